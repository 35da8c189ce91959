"""DABstep task 1464 (hard).

What is the fee ID or IDs that apply to account_type = R and aci = B?

Guidelines: Answer must be a list of values in comma separated list, eg: A, B, C. If the
answer is an empty list, reply with an empty string. If a question does not have a
relevant or applicable answer for the task, please respond with 'Not Applicable'

Plan: keep the fee rules whose account_type and aci fields accept the given values (the
value is listed, or the field is null / an empty list, which applies to all) and list
their IDs.
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


def collect_fee_ids(rules):
    """Sorted, distinct IDs of the given fee rules."""
    return sorted({rule["ID"] for rule in rules})


if __name__ == "__main__":
    # Step 1: the fee rules (fees.json).
    fees = load_fees()
    # Step 2: rules that apply to account type R and ACI B.
    rules = filter_fee_rules(fees, {"account_type": "R", "aci": "B"})
    # Step 3: their IDs.
    print(", ".join(str(fee_id) for fee_id in collect_fee_ids(rules)))
