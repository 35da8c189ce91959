"""Secrets masked in text: every URL's password, every secret name=value, in linear time."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgkr.masking import mask_secrets, mask_url


@pytest.mark.parametrize("url, shown", [
    ("falkordb://:pw@h:1/g", "falkordb://:***@h:1/g"),
    ("falkordb://user:pw@h:1/g?timeout=2", "falkordb://user:***@h:1/g?timeout=2"),
    ("falkordb://user@h:1/g", "falkordb://***@h:1/g"),  # a bare user part may be a token
    ("falkordb://:p@s/s?#w@h:1/g", "falkordb://:***@h:1/g"),  # unescaped / ? # @
    ("falkordb://h:1/g?password=pw&timeout=1", "falkordb://h:1/g?password=***&timeout=1"),
    ("falkordb://h:1/g", "falkordb://h:1/g"),
    ("no url at all", "no url at all"),
    ("redis:/:pw@h/g", "redis:/:***@h/g"),
    ("a://b@c@d@e", "a://***@e"),
])
def test_mask_url(url: str, shown: str) -> None:
    assert mask_url(url) == shown


@pytest.mark.parametrize("text, shown", [
    ("error at redis://:pw@h:1/0: down", "error at redis://:***@h:1/0: down"),
    ("two: a://u:x@h b://:y@h", "two: a://u:***@h b://:***@h"),
    ("https://ghp_token@github.com/o/r", "https://***@github.com/o/r"),
    ("?api_key=abc&x=1 Token=t; SECRET=s,", "?api_key=***&x=1 Token=***; SECRET=***,"),
    ("monkey=1 passport=2 key=3", "monkey=1 passport=2 key=3"),  # names that are not secrets
    ("mailto:someone@example.com", "mailto:someone@example.com"),  # not a URL's user part
    ("redis:/u:pw@h:1/g: no such file", "redis:/u:***@h:1/g: no such file"),  # as a path
])
def test_mask_secrets(text: str, shown: str) -> None:
    assert mask_secrets(text) == shown


_secret = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"),
                  min_size=3, max_size=30).filter(
    lambda s: s.strip() == s and s not in "falkordb://reader:***@db:6379/g")


@settings(max_examples=300, deadline=None)
@given(_secret, st.sampled_from(["", "reader"]), st.text(max_size=20))
def test_no_password_survives(secret: str, user: str, around: str) -> None:
    escaped = quote(secret, safe="")
    for url in (f"falkordb://{user}:{escaped}@db:6379/g", f"falkordb://{user}:{secret}@db:6379/g"):
        assert secret not in mask_url(url) and escaped not in mask_url(url)
    shown = mask_secrets(f"{around} falkordb://{user}:{escaped}@db:6379/g {around}")
    assert escaped not in shown.replace(around, "")


@pytest.mark.parametrize("text", [
    "a" * 400_000,                                  # one long run of scheme characters
    "a://" + "x:" * 200_000,                        # a user part that never ends in @
    "a://b" * 100_000,                              # many URLs without a user part
    "password" * 100_000,                           # names without "="
])
def test_linear_time(text: str) -> None:
    # Quadratic matching of these would take minutes; linear takes milliseconds.
    assert mask_secrets(text).count("***") == 0
    assert mask_url(text)
