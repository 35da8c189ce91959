"""DABstep task 49 (easy).

What is the top country (ip_country) for fraud? A. NL, B. BE, C. ES, D. FR

Guidelines: Answer must be in the form 'X. Y' where X is the option's letter chosen and
Y is the option's country code. If a question does not have a relevant or applicable
answer for the task, please respond with 'Not Applicable'.

Plan: the fraud of a country is its fraud rate, fraudulent volume over total volume
(manual, section 7), computed per ip_country; pick the option with the highest.
"""

import os
from pathlib import Path

import pandas as pd

DEFAULT_PAYMENTS_CSV = Path(__file__).resolve().parent.parent / "data" / "payments_synthetic.csv"


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


def fraud_rate_by(payments, column):
    """Fraud rate in percent (fraudulent volume over total volume) per value of `column`."""
    return {str(value): compute_fraud_rate(group) for value, group in payments.groupby(column)}


def best_option(rates, options):
    """The multiple-choice option with the highest rate, as 'letter. value'."""
    letter = max(options, key=lambda option: rates.get(options[option], float("-inf")))
    return f"{letter}. {options[letter]}"


if __name__ == "__main__":
    # Step 1: fraud rate per ip_country.
    rates = fraud_rate_by(load_payments(), "ip_country")
    # Step 2: the option with the highest fraud rate.
    print(best_option(rates, {"A": "NL", "B": "BE", "C": "ES", "D": "FR"}))
