"""Hostile strings of the hostile review (issue 23), shared by the tests and the campaign."""

from __future__ import annotations

# Strings that have broken one output format or another: markup, quotes and
# backslashes of every format, a markdown backtick, terminal escapes, every
# control character class, separators, bidi overrides, a lone surrogate is not
# here (graphs refuse them on load).
HOSTILE = (
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<b>bold</b> & <i>it</i>",
    "`backtick first",
    "**markdown** _x_ [link](http://x)",
    'say "hi" \\ back\\slash \\n not a newline',
    "x\x1b]0;PWNED\x07y",
    "\x1b[2J\x1b[1;1H cleared",
    "nul\x00inside",
    "soh\x01 and del\x7f and c1\x9b",
    "form\x0cfeed and vertical\x0btab",
    "cr\r\nlf and tab\t.",
    "line\u2028separator\u2029para",
    "bidi \u202eevil\u202c and zero\u200bwidth",
    "&amp; &#60; #quot; #60; %% comment --> end",
    "{curly} [square] (round) |pipe| ;semi;",
    "caf\u00e9 \u4e2d\u6587 \U0001f600",
    "",
)
