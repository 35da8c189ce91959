"""DABstep task 1450 (hard).

For a credit transaction of 10 euros on TransactPlus, what would be the most expensive
Authorization Characteristics Indicator (ACI)? In the case of a draw between multiple
ACIs, return the ACI with the lowest alphabetical order. Provide the response in a list
even if there is only one value.

Guidelines: Answer must be just one letter. If a question does not have a relevant or
applicable answer for the task, please respond with 'Not Applicable'

Plan: for every ACI of the manual, average the fee of the rules of the card scheme that
apply to credit transactions and to that ACI, for the transaction value; the most
expensive ACI is the one with the highest average (lowest letter on a draw).
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


def list_aci_codes():
    """All Authorization Characteristics Indicator (ACI) codes of the manual, section 4.

    A: Card present - Non-authenticated; B: Card Present - Authenticated; C: Tokenized
    card with mobile device; D: Card Not Present - Card On File; E: Card Not Present -
    Recurring Bill Payment; F: Card Not Present - 3-D Secure; G: Card Not Present -
    Non-3-D Secure. The ACI says how the transaction was sent to the acquirer, and
    different ACIs carry different fees (section 5.1.2, "Choosing the right ACI").
    """
    return ["A", "B", "C", "D", "E", "F", "G"]


def average_fee_by_aci(fees, criteria, transaction_value):
    """Average fee per ACI for a transaction with the given characteristics.

    For each ACI of the manual, the rules that apply to `criteria` and to that ACI are
    averaged (a rule with a null or empty aci list applies to every ACI). ACIs that no
    rule covers are left out.
    """
    fee_by_aci = {}
    for aci in list_aci_codes():
        rules = filter_fee_rules(fees, {**criteria, "aci": aci})
        fee = average_fee(rules, transaction_value)
        if fee is not None:
            fee_by_aci[aci] = fee
    return fee_by_aci


def most_expensive_aci(fee_by_aci):
    """The ACI with the highest fee; on a draw, the lowest in alphabetical order."""
    if not fee_by_aci:
        return None
    highest = max(fee_by_aci.values())
    return min(aci for aci, fee in fee_by_aci.items() if abs(fee - highest) < 1e-12)


if __name__ == "__main__":
    # Step 1: the fee rules (fees.json).
    fees = load_fees()
    # Step 2: a credit transaction on TransactPlus: the fixed characteristics.
    criteria = {"card_scheme": "TransactPlus", "is_credit": True}
    # Step 3: the average fee of each ACI for a transaction of 10 EUR.
    fee_by_aci = average_fee_by_aci(fees, criteria, 10)
    # Step 4: the most expensive ACI.
    aci = most_expensive_aci(fee_by_aci)
    print("Not Applicable" if aci is None else aci)
