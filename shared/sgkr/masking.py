"""Secrets kept out of everything SGKR shows: passwords and tokens in URLs, masked.

SGKR is given secrets in one place, the URL of a graph store
(``falkordb://user:password@host:port/name``). Every repr, dump, error and
log line that could hold such a URL shows it through :func:`mask_url` or
:func:`mask_secrets`, which replace the secret with ``***``:

- the password of a URL (``scheme://user:password@host``), or its whole user
  part when it has no ``:`` (``https://TOKEN@host``);
- the value of a ``name=value`` pair whose name says it is a secret
  (``password``, ``token``, ``api_key``, ``secret``, ``auth``, ...), as in a
  URL's query string.

Both run in time linear in the text. A pickle keeps the URL whole: a
retriever unpickled elsewhere connects again with it.

Examples
--------
>>> mask_url("falkordb://:s3cret@db.example:6379/code")
'falkordb://:***@db.example:6379/code'
>>> mask_secrets("graph store falkordb://reader:pa55@db:6379/g?token=abc is down")
'graph store falkordb://reader:***@db:6379/g?token=*** is down'
"""

from __future__ import annotations

import re

__all__ = ["mask_url", "mask_secrets", "MASK"]

#: What a secret is replaced with.
MASK = "***"
# A URL's user part: from its scheme (at the start of a run of scheme characters, so that
# each run is tried once) to the last "@" before the end of its authority. One slash is
# enough: a URL taken for a path comes back as "redis:/user:password@host".
_USERINFO = re.compile(r"(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*:/+)([^\s/?#]*)@")
# The same, for a text that is one URL: its user part ends at its last "@".
_URL_USERINFO = re.compile(r"\A([A-Za-z][A-Za-z0-9+.\-]*:/*)(.*)@(?=[^@]*\Z)", re.DOTALL)
_SECRET_NAMES = frozenset({
    "password", "passwd", "pwd", "pass", "secret", "client_secret", "token", "access_token",
    "refresh_token", "id_token", "auth", "authorization", "api_key", "apikey", "api-key",
    "access_key", "secret_key", "private_key", "credential", "credentials", "sig",
    "signature"})
# A name=value pair; the value is masked when the name is one of _SECRET_NAMES.
_PAIR = re.compile(r"(?<![A-Za-z0-9_\-])([A-Za-z_\-]{2,20}=)([^\s&#;,'\"]*)")


def _user(userinfo: str) -> str:
    """A URL's user part with its secret masked: ``user:***``, or ``***`` for a bare token."""
    user, colon, _ = userinfo.partition(":")
    return f"{user}:{MASK}" if colon else MASK


def _pair(match: re.Match[str]) -> str:
    name = match.group(1)
    return name + MASK if name[:-1].lower() in _SECRET_NAMES else match.group(0)


def mask_url(url: str) -> str:
    """``url`` with its password (everything of its user part after ``:``) and its secret
    query values masked.

    Everything between the scheme and the last ``@`` of the URL counts as its user
    part, so that a password holding ``/``, ``?`` or ``@`` unescaped is masked whole.

    Examples
    --------
    >>> mask_url("falkordb://admin:p@ss/w?rd@host:1/g")
    'falkordb://admin:***@host:1/g'
    >>> mask_url("falkordb://host:1/g")
    'falkordb://host:1/g'
    """
    if not isinstance(url, str):
        return url
    url = _URL_USERINFO.sub(lambda m: f"{m.group(1)}{_user(m.group(2))}@", url, count=1)
    return _PAIR.sub(_pair, url)


def mask_secrets(text: str) -> str:
    """``text`` with the secret of every URL in it, and every secret ``name=value``, masked.

    Examples
    --------
    >>> mask_secrets("no secret here: falkordb://db:6379/g")
    'no secret here: falkordb://db:6379/g'
    >>> mask_secrets("clone https://ghp_abc123@github.com/o/r.git, PASSWORD=hunter2")
    'clone https://***@github.com/o/r.git, PASSWORD=***'
    """
    if not isinstance(text, str):
        return text
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{_user(m.group(2))}@", text)
    return _PAIR.sub(_pair, text)
