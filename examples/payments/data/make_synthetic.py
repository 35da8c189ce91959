"""Generate payments_synthetic.csv, a SMALL SYNTHETIC stand-in for DABstep's payments.csv.

The real payments.csv of the DABstep benchmark is not distributed with this example. This
script makes a few hundred made-up transactions with exactly the columns that
../context/payments-readme.md describes, so that the solution scripts in ../solutions run
and give non-trivial answers. Nothing in the output is real data, and answers computed on
it differ from the benchmark's answers.

The values are drawn so that they fit the context files:

- merchants are the five merchants of the benchmark's questions, with their acquirers
  (hence acquirer_country, through acquirer_countries.csv) from merchant_data.json;
- card schemes are the four schemes of fees.json (GlobalCard, NexPay, SwiftCharge,
  TransactPlus), as in the benchmark's data;
- the ACI follows the shopper interaction (manual, section 4): POS payments get a
  card-present ACI (A, B, C), Ecommerce payments a card-not-present one (D, E, F, G);
- countries are those listed in payments-readme.md.

Deterministic: a seeded random.Random, standard library only. Every merchant gets two
payments on each of the days of the year that the benchmark's day-level questions ask
about (10, 12, 100, 200, 300, 365) and at least one fraudulent dispute per month, so that
such questions have data to work on.

Usage: python make_synthetic.py [--output PATH]
"""

import argparse
import csv
import datetime
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTEXT_DIR = HERE.parent / "context"
DEFAULT_OUTPUT = HERE / "payments_synthetic.csv"

SEED = 20230101
YEAR = 2023

COLUMNS = [
    "psp_reference",
    "merchant",
    "card_scheme",
    "year",
    "hour_of_day",
    "minute_of_hour",
    "day_of_year",
    "is_credit",
    "eur_amount",
    "ip_country",
    "issuing_country",
    "device_type",
    "ip_address",
    "email_address",
    "card_number",
    "shopper_interaction",
    "card_bin",
    "has_fraudulent_dispute",
    "is_refused_by_adyen",
    "aci",
    "acquirer_country",
]

# payments per month (before a small random spread), share of Ecommerce payments,
# scale of the amounts and weights of the card-not-present ACIs D, E, F, G.
MERCHANT_PROFILES = {
    "Crossfit_Hanna": {
        "per_month": 14,
        "ecommerce": 0.85,
        "scale": 1.0,
        "cnp_aci": (0.45, 0.10, 0.30, 0.15),
    },
    "Rafa_AI": {
        "per_month": 9,
        "ecommerce": 1.0,
        "scale": 1.1,
        "cnp_aci": (0.30, 0.35, 0.20, 0.15),
    },
    "Belles_cookbook_store": {
        "per_month": 6,
        "ecommerce": 0.8,
        "scale": 0.6,
        "cnp_aci": (0.45, 0.05, 0.30, 0.20),
    },
    "Golfclub_Baron_Friso": {
        "per_month": 6,
        "ecommerce": 0.5,
        "scale": 1.6,
        "cnp_aci": (0.40, 0.10, 0.35, 0.15),
    },
    "Martinis_Fine_Steakhouse": {
        "per_month": 6,
        "ecommerce": 0.15,
        "scale": 1.3,
        "cnp_aci": (0.50, 0.05, 0.30, 0.15),
    },
}
CARD_SCHEMES = (
    ("GlobalCard", 0.35),
    ("NexPay", 0.30),
    ("TransactPlus", 0.25),
    ("SwiftCharge", 0.10),
)
COUNTRIES = (
    ("NL", 0.30),
    ("IT", 0.15),
    ("BE", 0.12),
    ("FR", 0.12),
    ("ES", 0.10),
    ("SE", 0.10),
    ("GR", 0.06),
    ("LU", 0.05),
)
DEVICE_TYPES = (
    ("Windows", 0.25),
    ("MacOS", 0.15),
    ("Linux", 0.05),
    ("iOS", 0.25),
    ("Android", 0.2),
    ("Other", 0.1),
)
POS_ACI = (("A", 0.3), ("B", 0.3), ("C", 0.4))
ANCHOR_DAYS = (10, 12, 100, 200, 300, 365)
HASH_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def pick(rng, weighted):
    """Draw one value from a sequence of (value, weight) pairs."""
    values = [value for value, _ in weighted]
    weights = [weight for _, weight in weighted]
    return rng.choices(values, weights=weights, k=1)[0]


def fake_hash(rng):
    """A random 22-character token standing in for a hashed identifier."""
    return "".join(rng.choice(HASH_ALPHABET) for _ in range(22))


def load_acquirer_countries():
    """Map acquirer name -> country code from acquirer_countries.csv."""
    with open(CONTEXT_DIR / "acquirer_countries.csv", newline="", encoding="utf-8") as f:
        return {row["acquirer"]: row["country_code"] for row in csv.DictReader(f)}


def load_merchants():
    """Map merchant name -> merchant record from merchant_data.json."""
    with open(CONTEXT_DIR / "merchant_data.json", encoding="utf-8") as f:
        return {record["merchant"]: record for record in json.load(f)}


def make_shopper(rng):
    """A shopper with one card: scheme, credit or debit, BIN, countries and identifiers."""
    issuing_country = pick(rng, COUNTRIES)
    return {
        "card_scheme": pick(rng, CARD_SCHEMES),
        "is_credit": rng.random() < 0.73,
        "card_bin": rng.randint(1000, 9999),
        "card_number": fake_hash(rng),
        "issuing_country": issuing_country,
        "ip_country": issuing_country if rng.random() < 0.85 else pick(rng, COUNTRIES),
        "email_address": fake_hash(rng) if rng.random() < 0.9 else "",
        "ip_address": fake_hash(rng) if rng.random() < 0.8 else "",
        "device_type": pick(rng, DEVICE_TYPES),
    }


def days_of_month(month):
    """The days of the year (1-based) that fall in `month` of YEAR."""
    first = datetime.date(YEAR, month, 1)
    if month == 12:
        last = datetime.date(YEAR, 12, 31)
    else:
        last = datetime.date(YEAR, month + 1, 1) - datetime.timedelta(days=1)
    start = first.timetuple().tm_yday
    return list(range(start, last.timetuple().tm_yday + 1))


def make_payment(rng, merchant, profile, shoppers, acquirer_countries, day_of_year):
    """One synthetic payment of `merchant` on `day_of_year`."""
    shopper = rng.choice(shoppers)
    ecommerce = rng.random() < profile["ecommerce"]
    if ecommerce:
        aci = pick(rng, list(zip("DEFG", profile["cnp_aci"], strict=True)))
        fraud_probability = 0.15 if aci == "G" else 0.08
    else:
        aci = pick(rng, POS_ACI)
        fraud_probability = 0.02
    fraud = rng.random() < fraud_probability
    amount = min(rng.lognormvariate(4.2, 0.9) * profile["scale"], 5000.0)
    acquirer = rng.choice(merchant["acquirer"])
    return {
        "merchant": merchant["merchant"],
        "card_scheme": shopper["card_scheme"],
        "year": YEAR,
        "hour_of_day": pick(rng, [(h, 3 if 8 <= h <= 22 else 1) for h in range(24)]),
        "minute_of_hour": rng.randint(0, 59),
        "day_of_year": day_of_year,
        "is_credit": shopper["is_credit"],
        "eur_amount": round(amount, 2),
        "ip_country": shopper["ip_country"],
        "issuing_country": shopper["issuing_country"],
        "device_type": shopper["device_type"],
        "ip_address": shopper["ip_address"] if ecommerce else "",
        "email_address": shopper["email_address"],
        "card_number": shopper["card_number"],
        "shopper_interaction": "Ecommerce" if ecommerce else "POS",
        "card_bin": shopper["card_bin"],
        "has_fraudulent_dispute": fraud,
        "is_refused_by_adyen": rng.random() < (0.3 if fraud else 0.05),
        "aci": aci,
        "acquirer_country": acquirer_countries[acquirer],
    }


def generate(seed=SEED):
    """All synthetic payments, sorted by time, with unique psp references."""
    rng = random.Random(seed)
    acquirer_countries = load_acquirer_countries()
    merchants = load_merchants()
    payments = []
    for name, profile in MERCHANT_PROFILES.items():
        merchant = merchants[name]
        shoppers = [make_shopper(rng) for _ in range(profile["per_month"] * 4)]
        for month in range(1, 13):
            days = days_of_month(month)
            count = max(2, profile["per_month"] + rng.randint(-2, 2))
            chosen = [rng.choice(days) for _ in range(count)]
            chosen += [day for day in ANCHOR_DAYS if day in days for _ in range(2)]
            month_payments = [
                make_payment(rng, merchant, profile, shoppers, acquirer_countries, day)
                for day in chosen
            ]
            if not any(p["has_fraudulent_dispute"] for p in month_payments):
                online = [p for p in month_payments if p["shopper_interaction"] == "Ecommerce"]
                rng.choice(online or month_payments)["has_fraudulent_dispute"] = True
            payments.extend(month_payments)
    references = set()
    for payment in payments:
        reference = rng.randint(10**10, 10**11 - 1)
        while reference in references:
            reference = rng.randint(10**10, 10**11 - 1)
        references.add(reference)
        payment["psp_reference"] = reference
    payments.sort(
        key=lambda p: (p["day_of_year"], p["hour_of_day"], p["minute_of_hour"], p["psp_reference"])
    )
    return payments


def write_csv(payments, path):
    """Write the payments with the columns of payments-readme.md, in that order."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for payment in payments:
            writer.writerow({column: payment[column] for column in COLUMNS})


def main():
    """Parse the command line and write the synthetic file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    payments = generate()
    write_csv(payments, args.output)
    print(f"wrote {len(payments)} synthetic payments to {args.output}")


if __name__ == "__main__":
    main()
