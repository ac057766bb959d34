"""Values in messages are JSON, never Python reprs; huge integers are described, not printed."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.k8s.values import json_kind, non_json_value, show_value


@pytest.mark.parametrize(("value", "shown"), [
    (None, "null"), (True, "true"), (False, "false"), (3, "3"), (1.5, "1.5"), ("x", '"x"'),
    ({"a": [1, None]}, '{"a":[1,null]}'), (float("nan"), "nan"),
    pytest.param(10**5000, "a number of about 5001 digits", id="huge-int"),
    pytest.param([10**5000], "a list", id="huge-int-in-a-list"),
])
def test_show_value(value: Any, shown: str) -> None:
    assert show_value(value) == shown


@pytest.mark.parametrize(("value", "kind"), [
    (None, "null"), (True, "a boolean"), (1, "a number"), (1.0, "a number"), ("", "a string"), ([], "a list"),
    ({}, "an object"),
])
def test_json_kind(value: Any, kind: str) -> None:
    assert json_kind(value) == kind


def test_non_json_value_names_the_first_path() -> None:
    tree = {"a": [1, {"b": 2.0}], "c": {"d": float("inf")}, "e": float("nan")}
    assert non_json_value(tree, "obj") == "obj.c.d: Invalid value: inf: not a JSON number (JSON has no NaN or infinity)"
    assert non_json_value({"a": [1.5, "nan"]}) is None


def test_non_json_value_names_values_from_explicit_yaml_tags() -> None:
    assert non_json_value({"a": [b"x"]}, "obj") == (
        "obj.a[0]: Invalid value: a !!binary value: not a JSON value (YAML tags such as !!binary, !!set and !!timestamp "
        "have no JSON form; quote the value)")
