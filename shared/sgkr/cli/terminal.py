"""What the command line prints is printable: control characters never reach a terminal.

Source code, knowledge, labels, file names and error messages come from files
anyone may have written; an escape sequence among them (``ESC ] 0 ; ... BEL``
retitles a terminal, others rewrite the screen) would act on the terminal it is
printed to. :func:`main <sgkr.cli.main>` wraps ``stdout`` and ``stderr`` in
:class:`PrintableStream`, so every line any command prints shows such characters
as escapes (``\\x1b``). ``--json`` output is made with :func:`json_text`, which
escapes them the JSON way (``\\u001b``): it stays exact and has nothing left for
the stream to change.

Examples
--------
>>> printable("title\\x1b]0;PWNED\\x07 done\\n")
'title\\\\x1b]0;PWNED\\\\x07 done\\n'
>>> json_text({"code": "\\x1b[2J\\u202e"})
'{\\n  "code": "\\\\u001b[2J\\\\u202e"\\n}'
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from ..errors import SGKRError
from ..masking import mask_secrets
from ..text import escaped

__all__ = ["printable", "json_text", "PrintableStream", "printable_streams", "error_line", "warn"]

# C0 controls but tab and newline, DEL, C1 controls, invisible format and bidi
# characters, separators that break lines, and lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
                     "\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with every character that could act on a terminal shown as an escape."""
    return _UNSAFE.sub(escaped, text)


def json_text(data: Any, *, indent: int | None = 2) -> str:
    """Exact JSON of ``data`` in which no character can act on a terminal.

    Non-ASCII text stays readable; the characters :func:`printable` escapes
    are written as ``\\uXXXX`` (they occur only inside JSON strings).
    """
    text = json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class PrintableStream:
    """A text stream that writes through :func:`printable`.

    A carriage return opening a write is kept: progress lines rewrite
    themselves with it, and it moves the cursor only within its line.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` made printable; return the length given."""
        head = "\r" if text.startswith("\r") else ""
        self.stream.write(head + printable(text[len(head):]))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding, fileno...
        return getattr(self.stream, name)


@contextmanager
def printable_streams() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` are :class:`PrintableStream`."""
    saved = sys.stdout, sys.stderr
    sys.stdout = PrintableStream(saved[0])
    sys.stderr = PrintableStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def error_line(exc: SGKRError | OSError) -> str:
    """The message of an error, on one line.

    Examples
    --------
    >>> error_line(FileNotFoundError(2, "No such file or directory", "a.json"))
    'No such file or directory: a.json'
    >>> from sgkr.errors import SourceError
    >>> error_line(SourceError("bad\\nthing"))
    'bad thing'
    """
    if isinstance(exc, SGKRError):
        message = str(exc)
    else:
        message = f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
    return mask_secrets(" ".join(message.split("\n")).strip())


def warn(message: str) -> None:
    """Print ``sgkr: warning: message`` on stderr, on one line, secrets masked, controls escaped."""
    line = mask_secrets(" ".join(message.split("\n")).strip())
    print(f"sgkr: warning: {printable(line)}", file=sys.stderr, flush=True)
