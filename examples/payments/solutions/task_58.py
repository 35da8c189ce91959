"""DABstep task 58 (easy).

What is the avg fraud rate of Crossfit_Hanna for Q3 of 2023?

Guidelines: Answer must be just a number expressed as a percentage rounded to 6
decimals. If a question does not have a relevant or applicable answer for the task,
please respond with 'Not Applicable'.

Plan: fraud rates are measured per natural month as fraudulent volume over total volume
(manual, sections 5 and 7); the average fraud rate of Q3 is the mean of the rates of
July, August and September.
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


def payments_in_months(payments, first_month, last_month):
    """The payments from `first_month` to `last_month` inclusive; needs the month column."""
    return payments[payments["month"].between(first_month, last_month)]


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


def quarter_months(quarter):
    """First and last month of a calendar quarter: Q1 is January-March, Q3 July-September."""
    return 3 * quarter - 2, 3 * quarter


def monthly_fraud_rates(merchant_payments):
    """Fraud rate in percent of each natural month of the payments (needs a month column)."""
    return {
        int(month): compute_fraud_rate(month_payments)
        for month, month_payments in merchant_payments.groupby("month")
    }


if __name__ == "__main__":
    # Step 1: Crossfit_Hanna's payments of 2023, and the months of Q3.
    merchant_payments = payments_of_merchant(load_payments(), "Crossfit_Hanna", 2023)
    first, last = quarter_months(3)
    # Step 2: the fraud rate of each month of the quarter.
    rates = monthly_fraud_rates(payments_in_months(merchant_payments, first, last))
    # Step 3: their average, in percent.
    print("Not Applicable" if not rates else f"{sum(rates.values()) / len(rates):.6f}")
