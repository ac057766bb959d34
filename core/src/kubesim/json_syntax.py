"""JSON syntax errors in kubesim's own words, the same on every Python version.

json's messages and positions are CPython's and change between versions: 3.13 reports a
trailing comma at the comma ("Illegal trailing comma before end of object"), 3.12 and
older at the closing bracket ("Expecting property name enclosed in double quotes"). A
user sees `describe(exc)` instead: one position and one reason whatever runs kubesim.
"""

from __future__ import annotations

import json

import attrs

__all__ = ["JSONSyntax", "describe"]

_WHITESPACE = " \t\n\r"  # JSON's insignificant whitespace (RFC 8259, section 2)
_CLOSING = {"}": "'}'", "]": "']'"}

# CPython's message (up to its position suffix) -> kubesim's reason
_REASONS = {
    "Expecting value": "expected a value",
    "Expecting property name enclosed in double quotes": "expected a key in double quotes",
    "Expecting ':' delimiter": "expected ':' after the key",
    "Expecting ',' delimiter": "expected ',' between items",
    "Unterminated string starting at": "unterminated string",
    "Invalid control character at": "control character in a string (escape it)",
    "Invalid \\escape": "invalid escape in a string",
    "Invalid \\uXXXX escape": "invalid \\u escape in a string",
    "Extra data": "more data after the JSON value",
}


@attrs.frozen
class JSONSyntax:
    """Where a JSON text goes wrong (1-based line and column, 0-based offset) and why."""

    line: int
    column: int
    pos: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line} column {self.column}: {self.reason}"


def describe(exc: json.JSONDecodeError) -> JSONSyntax:
    """The error `exc` in kubesim's words: a trailing comma is reported at the comma, an
    unfinished text at its end, everything else at json's position."""
    text, pos = exc.doc, exc.pos
    comma = _trailing_comma(text, pos)
    if comma is not None:
        pos, reason = comma, f"trailing comma before {_CLOSING[_next_token(text, comma + 1)]}"
    elif pos >= len(text) and exc.msg.startswith("Expecting"):
        reason = "unexpected end of the text"
    else:
        reason = _REASONS.get(exc.msg, exc.msg[:1].lower() + exc.msg[1:])
    line = text.count("\n", 0, pos) + 1
    return JSONSyntax(line, pos - text.rfind("\n", 0, pos), pos, reason)


def _next_token(text: str, pos: int) -> str:
    """The first non-whitespace character at or after pos ("" at the end)."""
    stripped = text[pos:].lstrip(_WHITESPACE)
    return stripped[:1]


def _trailing_comma(text: str, pos: int) -> int | None:
    """The offset of a comma that json rejected as trailing (at the comma since 3.13, at
    the closing bracket before), or None."""
    if text[pos:pos + 1] == "," and _next_token(text, pos + 1) in _CLOSING:
        return pos
    if text[pos:pos + 1] in _CLOSING:
        before = text[:pos].rstrip(_WHITESPACE)
        if before.endswith(","):
            return len(before) - 1
    return None
