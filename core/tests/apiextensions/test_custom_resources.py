"""Custom resources against their schema: kube-openapi's messages, pruning, defaulting, status."""

from __future__ import annotations

from typing import Any

import pytest
from structlog.testing import capture_logs

from kubesim.apiextensions import parse_schema, validate_value
from kubesim.apiextensions.openapi_errors import go_number
from kubesim.apiextensions.pruning import apply_schema_defaults, prune
from kubesim.clock import Clock
from kubesim.cluster import Cluster
from kubesim.errors import BadRequest, Invalid


def _schema(**props: Any) -> Any:
    schema, errs = parse_schema({"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}, "s")
    assert errs == []
    return schema


@pytest.mark.parametrize(("prop", "value", "message"), [
    ({"type": "integer"}, "x", 'spec.v: Invalid value: "string": spec.v in body must be of type integer: "string"'),
    ({"type": "integer"}, 2.5, 'spec.v: Invalid value: "number": spec.v in body must be of type integer: "number"'),
    ({"type": "integer"}, 2**70, 'spec.v: Invalid value: "number": spec.v in body must be of type integer: "number"'),
    ({"type": "string"}, None, 'spec.v: Invalid value: "null": spec.v in body must be of type string: "null"'),
    ({"type": "integer", "maximum": 100}, 200, "spec.v: Invalid value: 200: spec.v in body should be less than or equal to 100"),
    ({"type": "integer", "maximum": 100, "exclusiveMaximum": True}, 100,
     "spec.v: Invalid value: 100: spec.v in body should be less than 100"),
    ({"type": "number", "minimum": 1e6}, 5, "spec.v: Invalid value: 5: spec.v in body should be greater than or equal to 1e+06"),
    ({"type": "integer", "minimum": 0, "exclusiveMinimum": True}, 0,
     "spec.v: Invalid value: 0: spec.v in body should be greater than 0"),
    ({"type": "integer", "multipleOf": 3}, 4, "spec.v: Invalid value: 4: spec.v in body should be a multiple of 3"),
    ({"type": "string", "enum": ["a", "b"]}, "c", 'spec.v: Unsupported value: "c": supported values: "a", "b"'),
    ({"type": "integer", "enum": [1, 2]}, 3, 'spec.v: Unsupported value: 3: supported values: "1", "2"'),
    ({"type": "string", "minLength": 2}, "a", 'spec.v: Invalid value: "a": spec.v in body should be at least 2 chars long'),
    ({"type": "string", "maxLength": 1}, "ab", "spec.v: Too long: may not be more than 1 byte"),
    ({"type": "string", "pattern": "^[a-z]+$"}, "A", "spec.v: Invalid value: \"A\": spec.v in body should match '^[a-z]+$'"),
    ({"type": "string", "format": "date-time"}, "now",
     'spec.v: Invalid value: "now": spec.v in body must be of type date-time: "now"'),
    ({"type": "string", "format": "int32"}, "anything", None),
    ({"type": "array", "items": {"type": "string"}, "minItems": 2}, ["a"],
     "spec.v: Invalid value: 1: spec.v in body should have at least 2 items"),
    ({"type": "array", "items": {"type": "string"}, "maxItems": 1}, ["a", "b"], "spec.v: Too many: 2: must have at most 1 items"),
    ({"type": "array", "items": {"type": "integer"}}, [1, "x"],
     'spec.v[1]: Invalid value: "string": spec.v[1] in body must be of type integer: "string"'),
    ({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}, ["a", "a"],
     'spec.v[1]: Duplicate value: "a"'),
    ({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
      "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
     [{"name": "a"}, {"name": "a"}], 'spec.v[1]: Duplicate value: {"name":"a"}'),
    ({"type": "object", "minProperties": 1}, {}, "spec.v: Invalid value: 0: spec.v in body should have at least 1 properties"),
    ({"type": "object", "maxProperties": 1, "additionalProperties": {"type": "integer"}}, {"a": 1, "b": 2},
     "spec.v: Too many: 2: must have at most 1 items"),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, {"a": "x"},
     'spec.v.a: Invalid value: "string": spec.v.a in body must be of type integer: "string"'),
    ({"type": "object", "required": ["x"], "properties": {"x": {"type": "string"}}}, {}, "spec.v.x: Required value"),
    ({"type": "string", "nullable": True}, None, None),
    ({"x-kubernetes-int-or-string": True}, True,
     'spec.v: Invalid value: "boolean": spec.v in body must be of type integer,string: "boolean"'),
    ({"x-kubernetes-int-or-string": True}, "10%", None),
    ({"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
     {"metadata": {}}, "spec.v.apiVersion: Required value: must not be empty"),
    ({"type": "boolean"}, 1, 'spec.v: Invalid value: "integer": spec.v in body must be of type boolean: "integer"'),
])
def test_values_are_checked_with_kube_openapis_messages(prop: dict[str, Any], value: Any, message: str | None) -> None:
    errors = [str(e) for e in validate_value(_schema(v=prop), {"spec": {"v": value}})]
    assert errors[:1] == ([message] if message else [])


@pytest.mark.parametrize(("value", "shown"), [
    (100, "100"), (1.5, "1.5"), (1e6, "1e+06"), (123456, "123456"), (0.0001, "0.0001"), (0.00001, "1e-05"), (-2, "-2"),
])
def test_numbers_print_as_gos_percent_v(value: float, shown: str) -> None:
    assert go_number(value) == shown


def test_pruning_keeps_what_the_schema_declares() -> None:
    schema = _schema(a={"type": "object", "properties": {"b": {"type": "string"}}},
                     keep={"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                     items={"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}})
    obj = {"apiVersion": "v", "kind": "K", "metadata": {"name": "n"}, "top": 1,
           "spec": {"a": {"b": "x", "c": 1}, "keep": {"any": {"thing": 1}}, "items": [{"x": 1, "y": 2}]}}
    assert prune(obj, schema) == ["spec.a.c", "spec.items[0].y", "top"]
    assert obj == {"apiVersion": "v", "kind": "K", "metadata": {"name": "n"},
                   "spec": {"a": {"b": "x"}, "keep": {"any": {"thing": 1}}, "items": [{"x": 1}]}}


def test_defaults_fill_missing_and_non_nullable_null_values() -> None:
    schema = _schema(n={"type": "integer", "default": 1}, m={"type": "integer", "default": 2},
                     o={"type": "object", "default": {}, "properties": {"p": {"type": "string", "default": "x"}}})
    obj: dict[str, Any] = {"spec": {"m": None}}
    apply_schema_defaults(obj, schema)
    assert obj == {"spec": {"n": 1, "m": 2, "o": {"p": "x"}}}


_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.example.com"},
    "spec": {"group": "example.com", "scope": "Cluster", "names": {"kind": "Gadget", "plural": "gadgets"},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "x-kubernetes-validations": [{"rule": "self.a > 0"}],
                                        "properties": {"a": {"type": "integer"}}},
                               "status": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}}}]},
}


def test_the_status_subresource_is_pruned_and_validated() -> None:
    cluster = Cluster(Clock())
    cluster.create(_CRD)
    cluster.create({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": 0}})
    bad = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "status": {"ok": "yes"}}
    with pytest.raises(Invalid) as err:
        cluster.update(bad, subresource="status")
    assert err.value.message == ('Gadget.example.com "g" is invalid: status.ok: Invalid value: "string": status.ok in '
                                 'body must be of type boolean: "string"')
    with pytest.raises(BadRequest, match='unknown field "status.extra"'):
        cluster.update({**bad, "status": {"ok": True, "extra": 1}}, subresource="status")
    assert cluster.update({**bad, "status": {"ok": True}}, subresource="status")["status"] == {"ok": True}


def test_cel_rules_are_not_evaluated_and_do_not_crash() -> None:
    """x-kubernetes-validations is a documented limitation: accepted, logged, not run."""
    cluster = Cluster(Clock())
    with capture_logs() as logs:
        cluster.create(_CRD)
    assert [(e["event"], e["crd"]) for e in logs if e["log_level"] == "warning"] == [
        ("x-kubernetes-validations (CEL) rules are not evaluated by kubesim", "gadgets.example.com")]
    cluster.create({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": 0}})


def test_the_cluster_refuses_an_unknown_field_validation() -> None:
    with pytest.raises(Invalid) as err:
        Cluster(Clock()).create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}},
                                field_validation="strict")
    assert err.value.message == ('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: '
                                 '"strict": supported values: "Ignore", "Strict", "Warn"')
