"""JSON syntax errors read the same on every Python version (tox runs this on 3.10 to 3.13)."""

from __future__ import annotations

import json

import pytest

from kubesim.json_syntax import JSONSyntax, describe


def error(text: str) -> JSONSyntax:
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(text)
    return describe(info.value)


@pytest.mark.parametrize(("text", "message"), [
    # CPython 3.13 reports these at the comma, 3.12 and older at the bracket: kubesim at the comma
    ('{"a": 1,\n}', "line 1 column 8: trailing comma before '}'"),
    ("[1, 2,]", "line 1 column 6: trailing comma before ']'"),
    ('{"a": [1, 2,\n\n   ]}', "line 1 column 12: trailing comma before ']'"),
    ('{"a":1,  \n  }', "line 1 column 7: trailing comma before '}'"),
    ("[,]", "line 1 column 2: trailing comma before ']'"),
    # the rest: json's position, kubesim's reason
    ("{not json", "line 1 column 2: expected a key in double quotes"),
    ("", "line 1 column 1: unexpected end of the text"),
    ("[1, 2", "line 1 column 6: unexpected end of the text"),
    ('{"a" 1}', "line 1 column 6: expected ':' after the key"),
    ('{"a": 1 "b": 2}', "line 1 column 9: expected ',' between items"),
    ('"abc', "line 1 column 1: unterminated string"),
    ('"a\\x"', "line 1 column 3: invalid escape in a string"),
    ('"\\u12"', "line 1 column 3: invalid \\u escape in a string"),
    ('{"a": 1} x', "line 1 column 10: more data after the JSON value"),
    ("[1,\n  ,2]", "line 2 column 3: expected a value"),
    ('{"a": "x\ty"}', "line 1 column 9: control character in a string (escape it)"),
])
def test_json_syntax_errors_in_kubesims_words(text: str, message: str) -> None:
    assert str(error(text)) == message


def test_the_position_is_an_offset_too() -> None:
    assert error('{"a": 1,\n}') == JSONSyntax(line=1, column=8, pos=7, reason="trailing comma before '}'")
