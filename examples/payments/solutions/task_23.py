"""DABstep task 23 (easy).

What is the fraud rate for in-person transactions for the year 2023?

Guidelines: Answer must be just a number. If a question does not have a relevant or
applicable answer for the task, please respond with 'Not Applicable'.

Plan: in-person transactions are the POS ones (payments-readme.md); their fraud rate is
the fraudulent volume over the total volume (manual, section 7), in percent.
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


def payments_in_year(payments, year):
    """The payments of one year."""
    return payments[payments["year"] == year]


def payments_by_interaction(payments, interaction):
    """The payments of one shopper_interaction.

    payments-readme.md: shopper_interaction is the payment method, Ecommerce or POS;
    "POS means an in-person or in-store transaction".
    """
    return payments[payments["shopper_interaction"] == interaction]


if __name__ == "__main__":
    # Step 1: the payments of 2023 made in person (POS).
    in_person = payments_by_interaction(payments_in_year(load_payments(), 2023), "POS")
    # Step 2: their fraud rate, in percent of the volume.
    print(f"{compute_fraud_rate(in_person):.6f}")
