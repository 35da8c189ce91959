"""DABstep task 1570 (hard).

For account type D, what would be the average fee that the card scheme NexPay would
charge for a transaction value of 1000 EUR? Provide the answer in EUR and 6 decimals.

Guidelines: Answer must be just a number rounded to 6 decimals. If a question does not
have a relevant or applicable answer for the task, please respond with 'Not Applicable'

Plan: keep the fee rules of the card scheme whose account_type list contains the account
type (or is empty: all account types); average their fee for the value.
"""

import json
from pathlib import Path

CONTEXT_DIR = Path(__file__).resolve().parent.parent / "context"


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


def fee_rule_matches(rule, criteria):
    """Tell whether a fee rule applies to every characteristic given in `criteria`.

    `criteria` maps fee-rule fields to values, e.g. {"card_scheme": "GlobalCard",
    "is_credit": True}. Each given field must accept its value (null or an empty list
    accepts all values). Fields the question does not fix are left open: a question
    "in general" ranges over every possible value of them.
    """
    return all(matches_field(rule.get(field), value) for field, value in criteria.items())


def filter_fee_rules(fees, criteria):
    """Keep the fee rules that apply to all characteristics in `criteria`."""
    return [rule for rule in fees if fee_rule_matches(rule, criteria)]


def calculate_fee(rule, transaction_value):
    """Fee in euros that one fee rule charges for a transaction of `transaction_value` euros.

    Manual, section 5: "fee = fixed_amount + rate * transaction_value / 10000", where
    fixed_amount is the fixed amount in euros per transaction and rate is an integer
    multiplied by the transaction value and divided by 10000. Fixed amount and
    transaction value are in the same currency, euros.
    """
    return rule["fixed_amount"] + rule["rate"] * transaction_value / 10000


def average_fee(rules, transaction_value):
    """Mean fee that the given rules charge for `transaction_value` euros (None if no rule).

    When a question fixes only some characteristics, several rules may apply; the
    "average fee" (the average scenario) is the plain mean over them of
    fee = fixed_amount + rate * transaction_value / 10000.
    """
    if not rules:
        return None
    return sum(calculate_fee(rule, transaction_value) for rule in rules) / len(rules)


if __name__ == "__main__":
    # Step 1: the fee rules (fees.json).
    fees = load_fees()
    # Step 2: rules of NexPay that apply to account type D.
    rules = filter_fee_rules(fees, {"card_scheme": "NexPay", "account_type": "D"})
    # Step 3: the average fee of those rules for a transaction of 1000 EUR.
    fee = average_fee(rules, 1000)
    print("Not Applicable" if fee is None else f"{fee:.6f}")
