"""A CRD version's openAPIV3Schema read into a Schema tree, checked against the structural rules.

Rules and messages follow k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/
validation.go (ValidateCustomResourceDefinitionOpenAPISchema: forbidden keywords, list types,
patterns, compiled with RE2 as Go's regexp is) and pkg/apiserver/schema/validation.go (validateStructuralInvariants and
completeness: a type at every level, metadata at the root restricted to name/generateName).
Nesting is bounded by MAX_SCHEMA_DEPTH so that hostile schemas cannot exhaust the stack.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol

import attrs
import re2

from kubesim.k8s.validation import FieldError, forbidden, invalid, required

from .openapi_errors import type_name

__all__ = ["MAX_SCHEMA_DEPTH", "Pattern", "Schema", "compile_pattern", "parse_schema"]

MAX_SCHEMA_DEPTH = 64
"""Deepest schema kubesim reads (upstream has no explicit bound; Go's stack is larger)."""

_TYPES = ("array", "boolean", "integer", "number", "object", "string")
_LIST_TYPES = ("atomic", "map", "set")
_UNSUPPORTED = {
    "$ref": "$ref is not supported",
    "id": "id is not supported",
    "$schema": "$schema is not supported",
    "definitions": "definitions is not supported",
    "patternProperties": "patternProperties is not supported",
    "dependencies": "dependencies is not supported",
    "additionalItems": "additionalItems is not supported",
}
_ROOT, _FIELD, _ITEM, _VALUE = "root", "field", "item", "value"
_INT_OR_STRING_VALUE = "int-or-string value"  # anyOf/allOf below x-kubernetes-int-or-string
_TYPE_REQUIRED = {
    _ROOT: "must not be empty at the root",
    _FIELD: "must not be empty for specified object fields",
    _ITEM: "must not be empty for specified array items",
}
_NO_DEFAULT = object()
_PERL_ONLY = re.compile(r"\(\?(?:[=!>]|<[=!]|P=)|(?<!\\)\\[1-9](?![0-7])|(?<!\\)[*+?}][+]")
"""Perl syntax Go's regexp (what the API server compiles) refuses, found first so that the error
reads as Go's: lookarounds, atomic groups, backreferences, possessive quantifiers."""


class Pattern(Protocol):
    """A compiled `pattern`: RE2, the engine (and syntax) of Go's regexp, which the API server uses."""

    def search(self, text: str) -> object | None:
        """A match anywhere in `text` (JSON Schema patterns are not anchored), else None."""


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # errors are raised; RE2 would also print them to stderr


def compile_pattern(text: str) -> Pattern:
    """Compile a schema pattern with RE2: linear-time matching, so no input can hang a match."""
    compiled: Pattern = re2.compile(text, _RE2_OPTIONS)
    return compiled


@attrs.define(eq=False)
class Schema:
    """One node of a structural schema, with the value validations kube-openapi applies."""

    type: str = ""
    format: str = ""
    nullable: bool = False
    enum: list[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    multiple_of: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: Pattern | None = None
    pattern_text: str = ""
    min_items: int | None = None
    max_items: int | None = None
    min_properties: int | None = None
    max_properties: int | None = None
    required: tuple[str, ...] = ()
    properties: dict[str, Schema] = attrs.field(factory=dict)
    additional_properties: Schema | None = None
    items: Schema | None = None
    all_of: tuple[Schema, ...] = ()
    any_of: tuple[Schema, ...] = ()
    one_of: tuple[Schema, ...] = ()
    not_: Schema | None = None
    preserve_unknown_fields: bool = False
    embedded_resource: bool = False
    int_or_string: bool = False
    list_type: str = ""
    list_map_keys: tuple[str, ...] = ()
    default: Any = _NO_DEFAULT
    has_cel_rules: bool = False

    @property
    def has_default(self) -> bool:
        """True when the schema declares a `default`."""
        return self.default is not _NO_DEFAULT

    def uses_cel(self) -> bool:
        """True when this node or one below declares x-kubernetes-validations (not evaluated)."""
        return self.has_cel_rules or any(s.uses_cel() for s in self.children())

    def children(self) -> list[Schema]:
        """Every schema directly below this one."""
        out = list(self.properties.values())
        out.extend(s for s in (self.additional_properties, self.items, self.not_) if s is not None)
        out.extend(self.all_of + self.any_of + self.one_of)
        return out


def _go_parse_error(syntax: str) -> str:
    """How Go's regexp/syntax words its refusal of `syntax` (an _PERL_ONLY match)."""
    if syntax.startswith("\\"):
        return f"invalid escape sequence: `{syntax}`"
    if syntax.startswith("("):
        return f"invalid or unsupported Perl syntax: `{syntax}`"
    return f"invalid nested repetition operator: `{syntax}`"


def parse_schema(raw: Any, path: str) -> tuple[Schema | None, list[FieldError]]:
    """Read an openAPIV3Schema; the Schema (None when unusable) and every structural problem."""
    errs: list[FieldError] = []
    schema = _Reader(errs).read(raw, path, _ROOT, 0)
    if schema is not None and not errs:
        errs.extend(_root_rules(schema, path))
    return (None if errs else schema), errs


class _Reader:
    def __init__(self, errs: list[FieldError]) -> None:
        self.errs = errs

    def read(self, raw: Any, path: str, level: str, depth: int) -> Schema | None:
        errs = self.errs
        if not isinstance(raw, Mapping):
            errs.append(invalid(path, type_name(raw), "must be an object (a JSON schema)"))
            return None
        if depth > MAX_SCHEMA_DEPTH:
            errs.append(forbidden(path, f"must not be nested more than {MAX_SCHEMA_DEPTH} levels deep"))
            return None
        s = Schema()
        for key, message in _UNSUPPORTED.items():
            if key in raw:
                errs.append(forbidden(f"{path}.{key}", message))
        s.type = self._string(raw, "type", path)
        if s.type and s.type not in _TYPES:
            errs.append(FieldError("Unsupported value", f"{path}.type", s.type,
                                   "supported values: " + ", ".join(f'"{t}"' for t in _TYPES)))
        s.format = self._string(raw, "format", path)
        s.nullable = self._bool(raw, "nullable", path)
        s.preserve_unknown_fields = self._extension(raw, "x-kubernetes-preserve-unknown-fields", path)
        s.embedded_resource = self._extension(raw, "x-kubernetes-embedded-resource", path)
        s.int_or_string = self._extension(raw, "x-kubernetes-int-or-string", path)
        self._numbers(s, raw, path)
        self._pattern(s, raw, path)
        if "enum" in raw:
            if isinstance(raw["enum"], list):
                s.enum = list(raw["enum"])
            else:
                errs.append(invalid(f"{path}.enum", type_name(raw["enum"]), "must be an array"))
        if raw.get("uniqueItems") is True:
            errs.append(forbidden(f"{path}.uniqueItems", "uniqueItems cannot be set to true since the runtime "
                                                         "complexity becomes quadratic"))
        req = raw.get("required")
        if req is not None:
            if isinstance(req, list) and all(isinstance(r, str) for r in req):
                s.required = tuple(req)
            else:
                errs.append(invalid(f"{path}.required", type_name(req), "must be an array of strings"))
        props = raw.get("properties")
        if props is not None:
            if isinstance(props, Mapping):
                for name in sorted(props, key=str):
                    child = self.read(props[name], f"{path}.properties[{name}]", _FIELD, depth + 1)
                    if child is not None:
                        s.properties[str(name)] = child
            else:
                errs.append(invalid(f"{path}.properties", type_name(props), "must be an object"))
        self._additional_properties(s, raw, path, depth)
        if "items" in raw:
            if isinstance(raw["items"], list):
                errs.append(forbidden(f"{path}.items", "items must be a schema object and not an array"))
            else:
                s.items = self.read(raw["items"], f"{path}.items", _ITEM, depth + 1)
        elif s.type == "array":
            errs.append(required(f"{path}.items", "must be specified"))
        for key in ("allOf", "anyOf", "oneOf"):
            subs = raw.get(key)
            if subs is None:
                continue
            if not isinstance(subs, list):
                errs.append(invalid(f"{path}.{key}", type_name(subs), "must be an array"))
                continue
            sub_level = _INT_OR_STRING_VALUE if s.int_or_string and key != "oneOf" else _VALUE
            read = [self.read(x, f"{path}.{key}[{i}]", sub_level, depth + 1) for i, x in enumerate(subs)]
            setattr(s, {"allOf": "all_of", "anyOf": "any_of", "oneOf": "one_of"}[key],
                    tuple(x for x in read if x is not None))
        if "not" in raw:
            s.not_ = self.read(raw["not"], f"{path}.not", _VALUE, depth + 1)
        self._list_type(s, raw, path)
        if "x-kubernetes-validations" in raw:
            s.has_cel_rules = True
        if "default" in raw:
            s.default = raw["default"]
        self._structural(s, path, level)
        return s

    def _string(self, raw: Mapping[str, Any], key: str, path: str) -> str:
        value = raw.get(key, "")
        if not isinstance(value, str):
            self.errs.append(invalid(f"{path}.{key}", type_name(value), "must be a string"))
            return ""
        return value

    def _bool(self, raw: Mapping[str, Any], key: str, path: str) -> bool:
        value = raw.get(key, False)
        if not isinstance(value, bool):
            self.errs.append(invalid(f"{path}.{key}", type_name(value), "must be a boolean"))
            return False
        return value

    def _extension(self, raw: Mapping[str, Any], key: str, path: str) -> bool:
        if raw.get(key) is False:
            self.errs.append(invalid(f"{path}.{key}", False, "must be true or undefined"))
        return self._bool(raw, key, path)

    def _numbers(self, s: Schema, raw: Mapping[str, Any], path: str) -> None:
        for key, attr in (("minimum", "minimum"), ("maximum", "maximum"), ("multipleOf", "multiple_of")):
            value = raw.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.errs.append(invalid(f"{path}.{key}", type_name(value), "must be a number"))
            elif key == "multipleOf" and value <= 0:
                self.errs.append(invalid(f"{path}.{key}", value, "must be greater than zero"))
            else:
                setattr(s, attr, value)
        s.exclusive_minimum = self._bool(raw, "exclusiveMinimum", path)
        s.exclusive_maximum = self._bool(raw, "exclusiveMaximum", path)
        for key, attr in (("minLength", "min_length"), ("maxLength", "max_length"), ("minItems", "min_items"),
                          ("maxItems", "max_items"), ("minProperties", "min_properties"),
                          ("maxProperties", "max_properties")):
            value = raw.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
                shown = value if isinstance(value, (int, str)) else type_name(value)
                self.errs.append(invalid(f"{path}.{key}", shown, "must be a non-negative 64-bit integer"))
            else:
                setattr(s, attr, value)

    def _pattern(self, s: Schema, raw: Mapping[str, Any], path: str) -> None:
        text = self._string(raw, "pattern", path)
        if not text:
            return
        perl = _PERL_ONLY.search(text)
        try:
            if perl is not None:
                raise ValueError(_go_parse_error(perl.group(0)))
            s.pattern = compile_pattern(text)
        except (re2.error, ValueError) as exc:
            detail = exc.args[0].decode() if isinstance(exc.args[0], bytes) else str(exc.args[0])
            self.errs.append(invalid(f"{path}.pattern", text,
                                     f"must be a valid regular expression, but isn't: error parsing regexp: {detail}"))
            return
        s.pattern_text = text

    def _additional_properties(self, s: Schema, raw: Mapping[str, Any], path: str, depth: int) -> None:
        extra = raw.get("additionalProperties")
        if extra is None or extra is True:
            return
        if extra is False:
            self.errs.append(forbidden(f"{path}.additionalProperties",
                                       "additionalProperties cannot be set to false"))
            return
        if "properties" in raw:
            self.errs.append(forbidden(f"{path}.additionalProperties",
                                       "additionalProperties and properties are mutual exclusive"))
        s.additional_properties = self.read(extra, f"{path}.additionalProperties", _FIELD, depth + 1)

    def _list_type(self, s: Schema, raw: Mapping[str, Any], path: str) -> None:
        list_type = self._string(raw, "x-kubernetes-list-type", path)
        keys = raw.get("x-kubernetes-list-map-keys")
        if list_type:
            if list_type not in _LIST_TYPES:
                self.errs.append(FieldError("Unsupported value", f"{path}.x-kubernetes-list-type", list_type,
                                            "supported values: " + ", ".join(f'"{t}"' for t in _LIST_TYPES)))
            elif s.type != "array":
                self.errs.append(invalid(f"{path}.type", s.type,
                                         "must be array if x-kubernetes-list-type is set"))
            s.list_type = list_type
        if keys is not None:
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                self.errs.append(invalid(f"{path}.x-kubernetes-list-map-keys", type_name(keys),
                                         "must be an array of strings"))
            elif list_type != "map":
                self.errs.append(forbidden(f"{path}.x-kubernetes-list-map-keys",
                                           "can only be set if x-kubernetes-list-type is map"))
            else:
                s.list_map_keys = tuple(keys)
        if list_type == "map" and not s.list_map_keys:
            self.errs.append(required(f"{path}.x-kubernetes-list-map-keys",
                                      "must not be empty if x-kubernetes-list-type is map"))

    def _structural(self, s: Schema, path: str, level: str) -> None:
        errs = self.errs
        if s.int_or_string:
            if s.type:
                errs.append(invalid(f"{path}.type", s.type,
                                    "must be empty if x-kubernetes-int-or-string is true"))
        elif level in _TYPE_REQUIRED and not s.type and not s.preserve_unknown_fields:
            errs.append(required(f"{path}.type", _TYPE_REQUIRED[level]))
        if level in (_VALUE, _INT_OR_STRING_VALUE):
            int_or_string = level == _INT_OR_STRING_VALUE and s.type in ("integer", "string")
            for key, value in (("type", s.type and not int_or_string), ("nullable", s.nullable),
                               ("default", s.has_default)):
                if value:
                    errs.append(forbidden(f"{path}.{key}", f"must not be specified in a nested {key}"
                                          if key != "type" else "must be empty to be structural"))
        if s.list_type == "map" and s.items is not None:
            if s.items.type != "object":
                errs.append(invalid(f"{path}.items.type", s.items.type,
                                    "must be object if parent array's x-kubernetes-list-type is map"))
            for key in s.list_map_keys:
                item = s.items.properties.get(key)
                if item is None:
                    errs.append(required(f"{path}.items.properties[{key}]",
                                         "entries for x-kubernetes-list-map-keys must be specified"))
                elif key not in s.items.required and not item.has_default:
                    errs.append(required(f"{path}.items.required",
                                         "all map keys must be required or have a default value"))
        if s.list_type == "set" and s.items is not None and s.items.type in ("object", "array"):
            errs.append(invalid(f"{path}.items.type", s.items.type,
                                "must be a scalar type if parent array's x-kubernetes-list-type is set"))
        if s.embedded_resource and s.type != "object":
            errs.append(invalid(f"{path}.type", s.type,
                                "must be object if x-kubernetes-embedded-resource is true"))


def _root_rules(schema: Schema, path: str) -> list[FieldError]:
    """The root is an object; metadata may only constrain name and generateName."""
    errs: list[FieldError] = []
    if schema.type and schema.type != "object":
        errs.append(invalid(f"{path}.type", schema.type, "must be object at the root"))
    meta = schema.properties.get("metadata")
    if meta is not None:
        mpath = f"{path}.properties[metadata]"
        if meta.type != "object":
            errs.append(invalid(f"{mpath}.type", meta.type, "must be object"))
        if set(meta.properties) - {"name", "generateName"}:
            errs.append(forbidden(mpath, "must not specify anything other than name and generateName, but "
                                         "metadata is implicitly specified"))
        for key, sub in sorted(meta.properties.items()):
            if key in ("name", "generateName") and sub.type not in ("", "string"):
                errs.append(invalid(f"{mpath}.properties[{key}].type", sub.type, "must be string"))
    return errs
