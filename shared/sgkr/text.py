"""Folding of words, so that a question and a tag or identifier compare equal.

Case, plurals, ``snake_case``, ``camelCase``, hyphens and punctuation are
folded: ``"Fee_IDs"``, ``"fee ids"`` and ``"feeId"`` all become ``("fee", "id")``.
:func:`shown` writes any value short, for an error message.

Examples
--------
>>> fold("Monthly-Fraud levels")
('monthly', 'fraud', 'level')
>>> fold("merchantCategoryCode")
('merchant', 'category', 'code')
"""

from __future__ import annotations

import re
import reprlib

__all__ = ["fold", "singular", "words", "name_phrase", "without_docstring", "escaped", "shown"]

_POSSESSIVE = re.compile(r"['\u2019]s\b")
_ACRONYM_PLURAL = re.compile(r"(?<=[A-Z])s\b")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z]+|[0-9]+(?:\.[0-9]+)?")
_LOWER_WORDS = re.compile(r"[a-z]+(?: [a-z]+)*")
# Words ending in "s" that are not plurals of anything useful to fold.
_KEEP_S = frozenset(
    {"is", "has", "was", "this", "its", "less", "class", "gas", "bus", "status", "us", "yes",
     "analysis", "basis", "process", "access", "address", "business", "loss", "gross", "plus",
     "minus", "bonus", "previous", "various", "series", "species", "news", "means", "aces",
     "sales", "goods", "earnings", "savings", "assets", "ies"}
)
# Endings of singular words that end in "s".
_SINGULAR_S = ("ss", "us", "sis", "xis", "ias")
# English nouns ending in "ie", whose plural is not that of a noun ending in "y".
_IE_NOUNS = frozenset(
    {"cookie", "movie", "calorie", "zombie", "rookie", "genie", "brownie", "selfie", "hippie",
     "prairie", "sortie", "goalie", "freebie", "newbie", "hoodie", "smoothie", "auntie",
     "birdie", "bogie", "eyrie", "lingerie", "pixie", "quickie", "talkie", "veggie", "yuppie"}
)
# Leading verbs of function names; what follows them names what the function produces.
_VERBS = frozenset(
    {"get", "compute", "calculate", "calc", "find", "load", "read", "fetch", "make", "build",
     "create", "count", "check", "is", "has", "determine", "estimate", "derive", "extract",
     "list", "select", "filter", "match", "apply", "collect", "lookup", "parse", "total",
     "sum", "identify", "return", "to", "do", "run", "eval", "evaluate", "format", "print"}
)


def singular(word: str) -> str:
    """Return a crude singular of a lower-case English word.

    Singular words ending in ``s`` are kept: ``-ss``, ``-us`` (``status``),
    ``-sis`` and ``-xis`` (``analysis``, ``axis``), ``-ias`` (``alias``,
    ``bias``); their plurals fold to them (``statuses``, ``aliases``,
    ``analyses``).

    Examples
    --------
    >>> [singular(w) for w in ["fees", "countries", "ids", "status", "classes", "cookies"]]
    ['fee', 'country', 'id', 'status', 'class', 'cookie']
    >>> [singular(w) for w in ["aliases", "statuses", "analyses", "axis", "uris", "cases"]]
    ['alias', 'status', 'analysis', 'axis', 'uri', 'case']
    """
    if len(word) <= 2 or word in _KEEP_S or not word.endswith("s") or word.endswith(_SINGULAR_S):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-1] if word[:-1] in _IE_NOUNS else word[:-3] + "y"
    if word.endswith("yses"):
        return word[:-2] + "is"
    if word.endswith(("sses", "xes", "ches", "shes", "zes", "iases", "tuses")):
        return word[:-2]
    return word[:-1]


def words(text: str) -> list[str]:
    """Split text into lower-case words, splitting camelCase and snake_case.

    Examples
    --------
    >>> words("avgFee_by-MCC")
    ['avg', 'fee', 'by', 'mcc']
    """
    text = _CAMEL.sub(" ", _ACRONYM_PLURAL.sub("S", _POSSESSIVE.sub("", text)))
    return [w.lower() for w in _WORD.findall(text)]


def fold(text: str) -> tuple[str, ...]:
    """Fold text into a tuple of singular lower-case words (see the module doc)."""
    # Lower-case words and single spaces (most tag labels) have nothing to split or undo.
    found = text.split() if _LOWER_WORDS.fullmatch(text) else words(text)
    return tuple(singular(w) for w in found)


def name_phrase(name: str) -> str:
    """Return the noun phrase of a function name, without its leading verb.

    Examples
    --------
    >>> name_phrase("compute_average_fee")
    'average fee'
    >>> name_phrase("load")
    ''
    """
    parts = words(name)
    while parts and parts[0] in _VERBS:
        parts = parts[1:]
    return " ".join(parts)


_OPENING = re.compile(r"^\s*[rRuU]?(\"\"\"|\'\'\')")
_SIGNATURE_LINES = 12


def without_docstring(code: str, knowledge: str) -> str:
    r'''``code`` without its docstring when ``knowledge`` already says it, to save context.

    Examples
    --------
    >>> code = 'def fee(v):\n    """Fee of a value."""\n    return v / 100'
    >>> print(without_docstring(code, "Fee of a value."))
    def fee(v):
        return v / 100
    >>> without_docstring(code, "Other knowledge.") == code
    True
    '''
    lines = code.split("\n")
    start = next((i for i, line in enumerate(lines[:_SIGNATURE_LINES])
                  if _OPENING.match(line)), None)
    if start is None or start == 0 or not lines[start - 1].rstrip().endswith(":"):
        return code
    quote = _OPENING.match(lines[start]).group(1)  # type: ignore[union-attr]
    rest = lines[start].split(quote, 1)[1]
    end = start
    if quote not in rest:
        end = next((j for j in range(start + 1, len(lines)) if quote in lines[j]), -1)
        if end < 0:
            return code
    text = "\n".join(lines[start : end + 1]).strip()
    text = text.lstrip("rRuU")[3:].rsplit(quote, 1)[0]
    if " ".join(text.split()) not in " ".join(knowledge.split()):
        return code
    body = lines[end + 1 :]
    if not any(line.strip() for line in body):
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        body = [indent + "..."]
    return "\n".join(lines[:start] + body)


def escaped(found: re.Match[str]) -> str:
    """The matched character as a Python escape (``\\xNN`` or ``\\uNNNN``), for ``re.sub``.

    Examples
    --------
    >>> re.sub("[\\x00-\\x1f]", escaped, "a\\x1bb")
    'a\\\\x1bb'
    """
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlevel = 3


def shown(value: object) -> str:
    """A short repr of ``value`` for an error message, whatever its size or depth.

    Long strings, lists and dicts are cut, deep ones shown to a few levels, and
    an integer too long to print (``repr`` refuses over 4,300 digits) by its size.

    Examples
    --------
    >>> shown("x" * 1000)[:12], shown(10**5000)
    ("'xxxxxxxxxxx", 'an integer of about 5001 digits')
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    return _REPR.repr(value)
