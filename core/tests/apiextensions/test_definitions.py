"""CRD validation: a selection of apiextensions-apiserver's validation_test.go cases
(pkg/apis/apiextensions/validation) and the structural-schema rules."""

from __future__ import annotations

from typing import Any

import pytest

from kubesim.apiextensions import MAX_SCHEMA_DEPTH, check_definition, default_definition

_P = "spec.versions[0].schema.openAPIV3Schema"


def _crd(schema: Any = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "group": "group.com",
        "scope": "Cluster",
        "names": {"plural": "plural", "singular": "singular", "kind": "Plural", "listKind": "PluralList"},
        "versions": [{"name": "version", "served": True, "storage": True,
                      "schema": {"openAPIV3Schema": schema or {"type": "object"}}}],
    }
    body.update(spec)
    return {"metadata": {"name": "plural.group.com"}, "spec": body}


def _messages(crd: dict[str, Any]) -> list[str]:
    return [str(e) for e in check_definition(crd)[1]]


@pytest.mark.parametrize(("crd", "expected"), [
    (_crd(group="group"), ['spec.group: Invalid value: "group": should be a domain with at least one dot',
                           'metadata.name: Invalid value: "plural.group.com": must be spec.names.plural+"."+spec.group']),
    (_crd(scope="foo"), ['spec.scope: Unsupported value: "foo": supported values: "Cluster", "Namespaced"']),
    (_crd(scope=""), ["spec.scope: Required value"]),
    (_crd(versions=[]), ["spec.versions: Required value: must have at least one version",
                         "spec.versions: Invalid value: []: must have exactly one version marked as storage version",
                         "spec.versions: Invalid value: []: must have at least one served version"]),
    (_crd(names={"plural": "plural", "kind": "Plural", "listKind": "Plural"}),
     ['spec.names.listKind: Invalid value: "Plural": kind and listKind may not be the same']),
    (_crd(names={"plural": "Plural!", "kind": "Plural"}),
     ['spec.names.plural: Invalid value: "Plural!": a DNS-1035 label must consist of lower case alphanumeric '
      "characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. "
      "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'metadata.name: Invalid value: "plural.group.com": must be spec.names.plural+"."+spec.group']),
    (_crd(names={"plural": "plural", "singular": "plural", "kind": "Plu ral"}),
     ['spec.names.kind: Invalid value: "Plu ral": may have mixed case, but should otherwise match: a DNS-1035 label '
      "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with "
      "an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
      "'[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.names.listKind: Invalid value: "Plu ralList": may have mixed case, but should otherwise match: a DNS-1035 '
      "label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end "
      "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
      "'[a-z]([-a-z0-9]*[a-z0-9])?')"]),
    (_crd(names={"plural": "plural"}), ["spec.names.singular: Required value", "spec.names.kind: Required value",
                                        "spec.names.listKind: Required value"]),
    (_crd(versions=[{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}},
                    {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}]),
     ['spec.versions: Invalid value: ["v1"]: must contain unique version names',
      'spec.versions: Invalid value: ["v1","v1"]: must have exactly one version marked as storage version']),
    (_crd(versions=[{"name": "v1", "served": False, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}]),
     ['spec.versions: Invalid value: ["v1"]: must have at least one served version']),
    (_crd(versions=[{"name": "v1", "served": True, "storage": True}]),
     [f"{_P.replace('version', 'version')}: Required value: schemas are required"]),
    (_crd({"properties": {"a": {"type": "string"}}}), [f"{_P}.type: Required value: must not be empty at the root"]),
    (_crd({"type": "string"}), [f'{_P}.type: Invalid value: "string": must be object at the root']),
    (_crd({"type": "object", "properties": {"a": {}}}),
     [f"{_P}.properties[a].type: Required value: must not be empty for specified object fields"]),
    (_crd({"type": "object", "properties": {"a": {"type": "array", "items": {}}}}),
     [f"{_P}.properties[a].items.type: Required value: must not be empty for specified array items"]),
    (_crd({"type": "object", "properties": {"a": {"type": "array"}}}),
     [f"{_P}.properties[a].items: Required value: must be specified"]),
    (_crd({"type": "object", "properties": {"a": {"type": "foo"}}}),
     [f'{_P}.properties[a].type: Unsupported value: "foo": supported values: "array", "boolean", "integer", '
      '"number", "object", "string"']),
    (_crd({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}}),
     [f"{_P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but "
      "metadata is implicitly specified"]),
    (_crd({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}}),
     [f"{_P}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity "
      "becomes quadratic"]),
    (_crd({"type": "object", "properties": {"a": {"type": "object", "additionalProperties": False}}}),
     [f"{_P}.properties[a].additionalProperties: Forbidden: additionalProperties cannot be set to false"]),
    (_crd({"type": "object", "properties": {"a": {"type": "object", "properties": {},
                                                  "additionalProperties": {"type": "string"}}}}),
     [f"{_P}.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"]),
    (_crd({"type": "object", "$ref": "#/x"}), [f"{_P}.$ref: Forbidden: $ref is not supported"]),
    (_crd({"type": "object", "properties": {"a": {"type": "string", "x-kubernetes-int-or-string": True}}}),
     [f'{_P}.properties[a].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true']),
    (_crd({"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
     [f"{_P}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"]),
    (_crd({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object"},
                                                  "x-kubernetes-list-type": "map"}}}),
     [f"{_P}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type "
      "is map"]),
    (_crd({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}),
     [f"{_P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural",
      f"{_P}.properties[a].type: Required value: must not be empty for specified object fields"]),
], ids=lambda v: "" if isinstance(v, dict) else None)
def test_invalid_definitions(crd: dict[str, Any], expected: list[str]) -> None:
    assert _messages(crd) == expected


def test_a_valid_definition_says_what_it_defines() -> None:
    checked, errs = check_definition(_crd(scope="Namespaced"))
    assert errs == [] and checked is not None
    assert (checked.group, checked.kind, checked.plural, checked.namespaced, checked.storage_version,
            checked.served_versions) == ("group.com", "Plural", "plural", True, "version", ("version",))


def test_int_or_string_may_name_integer_and_string_in_any_of() -> None:
    schema = {"type": "object", "properties": {"q": {"x-kubernetes-int-or-string": True,
                                                    "anyOf": [{"type": "integer"}, {"type": "string"}]}}}
    assert _messages(_crd(schema)) == []


def test_a_pattern_re2_cannot_compile_is_a_clear_error() -> None:
    [message] = _messages(_crd({"type": "object", "properties": {"a": {"type": "string", "pattern": "a{2,1}"}}}))
    assert message.startswith(f'{_P}.properties[a].pattern: Invalid value: "a{{2,1}}": must be a valid regular '
                              "expression, but isn't: ")


@pytest.mark.parametrize(("pattern", "error"), [
    ("a(?=b)", "invalid or unsupported Perl syntax: `(?=`"),
    ("(a)\\1", "invalid escape sequence: `\\1`"),
    ("a++", "invalid nested repetition operator: `++`"),
])
def test_patterns_go_cannot_compile_are_refused(pattern: str, error: str) -> None:
    """The API server compiles patterns with Go's RE2 regexp: no lookarounds, backreferences."""
    [message] = _messages(_crd({"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}}))
    assert message.endswith(f"must be a valid regular expression, but isn't: error parsing regexp: {error}")


def test_nesting_is_bounded() -> None:
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(MAX_SCHEMA_DEPTH + 5):
        schema = {"type": "object", "properties": {"a": schema}}
    [message] = _messages(_crd(schema))
    assert f"must not be nested more than {MAX_SCHEMA_DEPTH} levels deep" in message


def test_singular_and_list_kind_default_from_the_kind() -> None:
    crd = _crd(names={"plural": "plural", "kind": "Plural"})
    default_definition(crd)
    assert crd["spec"]["names"] == {"plural": "plural", "kind": "Plural", "singular": "plural", "listKind": "PluralList"}
