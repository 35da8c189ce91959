"""DABstep task 2264 (hard).

In April 2023 what delta would Martinis_Fine_Steakhouse pay if the relative fee of the
fee with ID=12 changed to 99?

Guidelines: Answer must be just a number rounded to 14 decimals. If a question does not
have a relevant or applicable answer for the task, please respond with 'Not Applicable'

Plan: find the payments of the merchant in the period to which the fee rule applies;
changing the rule's relative fee (rate) changes each of their fees by (new_rate - rate)
* amount / 10000. Add these changes up.
"""

import json
import os
from pathlib import Path

import pandas as pd

CONTEXT_DIR = Path(__file__).resolve().parent.parent / "context"
DEFAULT_PAYMENTS_CSV = Path(__file__).resolve().parent.parent / "data" / "payments_synthetic.csv"


def load_fees():
    """Load the fee rules of fees.json: a list of dicts, one per rule.

    Manual, section 5 ("Understanding Payment Processing Fees"): each rule has an ID, a
    card_scheme and conditions on merchant and transaction characteristics:
    account_type (list), capture_delay, monthly_fraud_level, monthly_volume,
    merchant_category_code (list), is_credit, aci (list) and intracountry. The fee it
    charges is given by fixed_amount (euros per transaction) and rate.
    """
    with open(CONTEXT_DIR / "fees.json", encoding="utf-8") as f:
        return json.load(f)


def load_merchant_data():
    """Load merchant_data.json: one record per merchant.

    Each record gives the merchant's own fee characteristics (manual, section 5):
    account_type (manual, section 2: R Enterprise - Retail, D Enterprise - Digital,
    H Enterprise - Hospitality, F Platform - Franchise, S Platform - SaaS, O Other),
    merchant_category_code, capture_delay, and the acquirers the merchant works with.
    """
    with open(CONTEXT_DIR / "merchant_data.json", encoding="utf-8") as f:
        return json.load(f)


def get_merchant_info(merchant_data, merchant):
    """Return the merchant_data.json record of `merchant` (KeyError if unknown)."""
    for record in merchant_data:
        if record["merchant"] == merchant:
            return record
    raise KeyError(f"unknown merchant: {merchant}")


def matches_field(rule_value, value):
    """Tell whether one field of a fee rule accepts `value`.

    Manual, section 5: "If a field is set to null it means that it applies to all
    possible values of that field" (e.g. null aci: all ACIs). In fees.json an empty list
    means the same (account_type [] applies to every account type). List fields
    (account_type, merchant_category_code, aci) accept the values they list; scalar
    fields (card_scheme, is_credit, intracountry, monthly bands) must be equal.
    """
    if rule_value is None:
        return True
    if isinstance(rule_value, list):
        return len(rule_value) == 0 or value in rule_value
    return rule_value == value


def get_fee_rule(fees, fee_id):
    """Return the fee rule with ID `fee_id` (KeyError if there is none)."""
    for rule in fees:
        if rule["ID"] == fee_id:
            return rule
    raise KeyError(f"no fee rule with ID {fee_id}")


def load_payments():
    """Load the payments table, one row per transaction, as a pandas DataFrame.

    Columns per payments-readme.md, among them merchant, card_scheme, year, day_of_year,
    is_credit (credit or debit card), eur_amount (payment amount in euro),
    issuing_country (card-issuing country), acquirer_country (country of the acquiring
    bank), shopper_interaction (Ecommerce or POS; POS is an in-person or in-store
    transaction), has_fraudulent_dispute and aci. Reads $SGKR_PAYMENTS_CSV if set, else
    the bundled SYNTHETIC file.
    """
    path = os.environ.get("SGKR_PAYMENTS_CSV") or DEFAULT_PAYMENTS_CSV
    return pd.read_csv(path)


def add_month_column(payments):
    """Return a copy of `payments` with a `month` column (1-12) from year and day_of_year.

    Manual, section 5: monthly volumes and rates are computed in natural months (January,
    February, ...), from day 1 to the last natural day of the month (28 for February,
    30 or 31). The payments only carry day_of_year, which is mapped to its month.
    """
    start = pd.to_datetime(payments["year"].astype(str) + "-01-01")
    dates = start + pd.to_timedelta(payments["day_of_year"] - 1, unit="D")
    result = payments.copy()
    result["month"] = dates.dt.month
    return result


def payments_of_merchant(payments, merchant, year):
    """The payments of `merchant` in `year`, with a month column."""
    selected = payments[(payments["merchant"] == merchant) & (payments["year"] == year)]
    return add_month_column(selected)


def payments_in_month(payments, month):
    """The payments of one month (1-12); needs the month column."""
    return payments[payments["month"] == month]


def compute_monthly_volume(month_payments):
    """Total volume in euros of one merchant's payments of one natural month.

    Manual, section 5: monthly_volume is the monthly total volume of the merchant, with
    all volumes in euros.
    """
    return float(month_payments["eur_amount"].sum())


def compute_fraud_rate(payments):
    """Fraud rate of the given payments in percent: fraudulent volume over total volume.

    Manual, section 7: "Fraud is defined as the ratio of fraudulent volume over total
    volume". A payment is fraudulent when has_fraudulent_dispute is true. The fee rules'
    monthly_fraud_level is this ratio over a natural month of the merchant.
    """
    total = payments["eur_amount"].sum()
    if total == 0:
        return 0.0
    fraud = payments.loc[payments["has_fraudulent_dispute"].astype(bool), "eur_amount"].sum()
    return float(100 * fraud / total)


def monthly_volume_bucket(volume):
    """The fees.json monthly_volume band of a monthly volume in euros.

    Manual, section 5: monthly_volume is the merchant's monthly total volume in euros;
    "'100k-1m' is between 100.000 (100k) and 1.000.000 (1m)". The bands the rules use
    are '<100k', '100k-1m', '1m-5m' and '>5m'. Higher volumes normally get cheaper fees.
    """
    if volume < 100_000:
        return "<100k"
    if volume <= 1_000_000:
        return "100k-1m"
    if volume <= 5_000_000:
        return "1m-5m"
    return ">5m"


def fraud_level_bucket(fraud_rate):
    """The fees.json monthly_fraud_level band of a monthly fraud rate given in percent.

    Manual, section 5: monthly_fraud_level is the ratio of the monthly volume notified as
    fraud to the monthly total volume; "'7.7%-8.3%' means that the ratio should be
    between 7.7 and 8.3 percent". The bands are '<7.2%', '7.2%-7.7%', '7.7%-8.3%' and
    '>8.3%'; fees grow as the fraud rate increases.
    """
    if fraud_rate < 7.2:
        return "<7.2%"
    if fraud_rate <= 7.7:
        return "7.2%-7.7%"
    if fraud_rate <= 8.3:
        return "7.7%-8.3%"
    return ">8.3%"


def monthly_fee_levels(merchant_payments):
    """Per month, the merchant's monthly_volume and monthly_fraud_level bands.

    Both are measured over the whole natural month (manual, section 5), whatever part of
    the month a question looks at, so they come from all the merchant's payments of
    that month. Returns {month: {"monthly_volume": band, "monthly_fraud_level": band}}.
    """
    levels = {}
    for month, month_payments in merchant_payments.groupby("month"):
        levels[int(month)] = {
            "monthly_volume": monthly_volume_bucket(compute_monthly_volume(month_payments)),
            "monthly_fraud_level": fraud_level_bucket(compute_fraud_rate(month_payments)),
        }
    return levels


def capture_delay_matches(rule_delay, merchant_delay):
    """Tell whether a rule's capture_delay condition accepts the merchant's capture delay.

    Manual, section 5: capture_delay is the number of days from authorization to
    settlement; rule values are '3-5' (between 3 and 5 days), '>5' (more than 5 days),
    '<3' (before 3 days), 'immediate' or 'manual'; null accepts all. The faster the
    capture, the more expensive. merchant_data.json gives a number of days ('1', '7')
    or 'immediate' / 'manual'.
    """
    if rule_delay is None:
        return True
    if merchant_delay in ("immediate", "manual"):
        return rule_delay == merchant_delay
    days = int(merchant_delay)
    if rule_delay == "<3":
        return days < 3
    if rule_delay == "3-5":
        return 3 <= days <= 5
    if rule_delay == ">5":
        return days > 5
    return False


def check_intracountry(rule_intracountry, issuing_country, acquirer_country):
    """Tell whether a rule's intracountry condition accepts a transaction.

    Manual, section 5: intracountry is True "if the transaction is domestic, defined by
    the fact that the issuer country and the acquiring country are the same"; False for
    international transactions, which are typically more expensive. Null accepts both.
    fees.json writes it as 1.0 / 0.0.
    """
    if rule_intracountry is None:
        return True
    return bool(rule_intracountry) == (issuing_country == acquirer_country)


def merchant_matches_fee(rule, merchant_info):
    """Tell whether a fee rule can apply to a merchant, from the merchant's own attributes.

    Checks the merchant characteristics of merchant_data.json: account_type (the
    merchant's type must be listed, or the list empty), merchant_category_code (the
    merchant's MCC must be listed, or the list empty) and capture_delay. Transaction
    fields (card scheme, credit, ACI, countries) and monthly bands are not checked here.
    """
    return (
        matches_field(rule["account_type"], merchant_info["account_type"])
        and matches_field(rule["merchant_category_code"], merchant_info["merchant_category_code"])
        and capture_delay_matches(rule["capture_delay"], merchant_info["capture_delay"])
    )


def transaction_matches_fee(rule, payment, levels):
    """Tell whether a fee rule applies to one payment, on the payment's own fields.

    Checks card_scheme, is_credit ("True if the rule applies for credit transactions"),
    aci, intracountry (issuer country vs acquirer country) and the merchant's
    monthly_volume and monthly_fraud_level bands in the payment's month (`levels`).
    Null or empty-list fields accept every value (manual, section 5).
    """
    return (
        rule["card_scheme"] == payment["card_scheme"]
        and matches_field(rule["is_credit"], bool(payment["is_credit"]))
        and matches_field(rule["aci"], payment["aci"])
        and check_intracountry(
            rule["intracountry"], payment["issuing_country"], payment["acquirer_country"]
        )
        and matches_field(rule["monthly_volume"], levels["monthly_volume"])
        and matches_field(rule["monthly_fraud_level"], levels["monthly_fraud_level"])
    )


def fee_delta_for_rate_change(payments, rule, new_rate, merchant_info, levels_by_month):
    """Change in euros of what the merchant pays if the rule's rate became `new_rate`.

    The rate is the relative part of the fee: fee = fixed_amount + rate *
    transaction_value / 10000 (manual, section 5). Only the payments the rule applies to
    change, each by (new_rate - rate) * eur_amount / 10000; the fixed amount cancels out.
    """
    if not merchant_matches_fee(rule, merchant_info):
        return 0.0
    delta = 0.0
    for payment in payments.to_dict("records"):
        if transaction_matches_fee(rule, payment, levels_by_month[payment["month"]]):
            delta += (new_rate - rule["rate"]) * payment["eur_amount"] / 10000
    return delta


if __name__ == "__main__":
    # Step 1: the fee rule, the merchant's characteristics and its payments of 2023.
    fees = load_fees()
    rule = get_fee_rule(fees, 12)
    merchant_info = get_merchant_info(load_merchant_data(), "Martinis_Fine_Steakhouse")
    merchant_payments = payments_of_merchant(load_payments(), "Martinis_Fine_Steakhouse", 2023)
    # Step 2: the merchant's monthly volume and fraud level bands, per natural month.
    levels_by_month = monthly_fee_levels(merchant_payments)
    # Step 3: the payments of April 2023.
    selected = payments_in_month(merchant_payments, 4)
    # Step 4: the change of the fees if the rate of rule 12 were 99.
    delta = fee_delta_for_rate_change(selected, rule, 99, merchant_info, levels_by_month)
    print(f"{delta:.14f}")
