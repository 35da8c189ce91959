"""DABstep task 883 (hard).

What is the average transaction value grouped by aci for Crossfit_Hanna's GlobalCard
transactions between January and February 2023?

Guidelines: Present your results broken down by grouping and sorted in ascending order.
The final answer should be a list of this format: [grouping_i: amount_i, ]. When
grouping by country use the country_code. The elements of the list are sorted in
ascending order by the amount. All amounts should be rounded to 2 decimal places.. If a
question does not have a relevant or applicable answer for the task, please respond with
'Not Applicable'

Plan: select the merchant's GlobalCard payments from January to February 2023, average
eur_amount per aci and sort ascending.
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


def payments_of_card_scheme(payments, card_scheme):
    """The payments made with one card scheme."""
    return payments[payments["card_scheme"] == card_scheme]


def average_amount_by(payments, column):
    """Average eur_amount per value of `column`, as (value, average) pairs sorted by average."""
    averages = payments.groupby(column)["eur_amount"].mean()
    pairs = [(str(value), float(average)) for value, average in averages.items()]
    return sorted(pairs, key=lambda pair: (pair[1], pair[0]))


def format_grouped_amounts(pairs):
    """Render (group, amount) pairs as '[group: amount, ...]' with 2 decimals."""
    return "[" + ", ".join(f"{group}: {amount:.2f}" for group, amount in pairs) + "]"


if __name__ == "__main__":
    # Step 1: the merchant's payments of 2023.
    merchant_payments = payments_of_merchant(load_payments(), "Crossfit_Hanna", 2023)
    # Step 2: those made with GlobalCard, from January to February.
    selected = payments_in_months(payments_of_card_scheme(merchant_payments, "GlobalCard"), 1, 2)
    # Step 3: the average transaction value per aci, ascending.
    print(format_grouped_amounts(average_amount_by(selected, "aci")))
