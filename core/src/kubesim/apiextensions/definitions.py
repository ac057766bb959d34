"""Validation and defaulting of CustomResourceDefinition objects (apiextensions.k8s.io/v1).

Follows k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
(ValidateCustomResourceDefinition, ...Spec, ...Names, ...Version) and pkg/apis/apiextensions/
v1/defaults.go (singular and listKind defaults). Each version's openAPIV3Schema is required
(v1) and must be structural (see structural.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from kubesim.k8s.validation import FieldError, invalid, is_dns1035_label, is_dns1123_subdomain, required

from .openapi_errors import type_name
from .structural import Schema, parse_schema

__all__ = ["CheckedDefinition", "check_definition", "default_definition"]

_SCOPES = ("Cluster", "Namespaced")


@attrs.frozen
class CheckedDefinition:
    """What a valid CRD defines: names, scope, versions and each version's schema."""

    group: str
    kind: str
    plural: str
    namespaced: bool
    storage_version: str
    served_versions: tuple[str, ...]
    status_subresource: bool
    schemas: Mapping[str, Schema]


def default_definition(crd: dict[str, Any]) -> None:
    """SetDefaults_CustomResourceDefinitionSpec: singular and listKind from the kind (in place)."""
    spec = crd.get("spec")
    names = spec.get("names") if isinstance(spec, dict) else None
    if not isinstance(names, dict) or not isinstance(names.get("kind"), str):
        return
    kind = names["kind"]
    if not names.get("singular"):
        names["singular"] = kind.lower()
    if not names.get("listKind") and kind:
        names["listKind"] = kind + "List"


def check_definition(crd: Mapping[str, Any]) -> tuple[CheckedDefinition | None, list[FieldError]]:
    """Validate a CRD; what it defines (None when invalid) and every problem found."""
    meta = crd.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    spec = crd.get("spec")
    if not isinstance(spec, Mapping):
        return None, [required("spec") if spec is None else invalid("spec", spec, "must be an object")]
    errs: list[FieldError] = []
    group = _text(spec, "group", "spec", errs)
    if not group:
        errs.append(required("spec.group"))
    elif is_dns1123_subdomain(group):
        errs.append(invalid("spec.group", group, ",".join(is_dns1123_subdomain(group))))
    elif "." not in group:
        errs.append(invalid("spec.group", group, "should be a domain with at least one dot"))
    kind, plural = _names(spec.get("names"), errs)
    scope = _text(spec, "scope", "spec", errs)
    if not scope:
        errs.append(required("spec.scope"))
    elif scope not in _SCOPES:
        errs.append(FieldError("Unsupported value", "spec.scope", scope,
                               "supported values: " + ", ".join(f'"{s}"' for s in _SCOPES)))
    versions = _versions(spec.get("versions"), errs)
    if isinstance(name, str) and group and plural and name != f"{plural}.{group}":
        errs.append(invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'))
    if errs:
        return None, errs
    storage = next(v for v in versions if v.get("storage") is True)
    subresources = storage.get("subresources")
    return CheckedDefinition(
        group=group,
        kind=kind,
        plural=plural,
        namespaced=scope == "Namespaced",
        storage_version=storage["name"],
        served_versions=tuple(v["name"] for v in versions if v.get("served") is True),
        status_subresource=isinstance(subresources, Mapping) and "status" in subresources,
        schemas={v["name"]: v["_schema"] for v in versions},
    ), []


def _text(obj: Mapping[str, Any], key: str, path: str, errs: list[FieldError]) -> str:
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        errs.append(invalid(f"{path}.{key}", type_name(value), "must be a string"))
        return ""
    return value


def _names(names: Any, errs: list[FieldError]) -> tuple[str, str]:
    """ValidateCustomResourceDefinitionNames plus the required names of the spec."""
    path = "spec.names"
    if not isinstance(names, Mapping):
        errs.append(required(path) if names is None else invalid(path, names, "must be an object"))
        return "", ""
    plural = _text(names, "plural", path, errs)
    kind = _text(names, "kind", path, errs)
    singular = _text(names, "singular", path, errs) or kind.lower()
    list_kind = _text(names, "listKind", path, errs) or (kind + "List" if kind else "")
    for key, value in (("plural", plural), ("singular", singular)):
        if value and is_dns1035_label(value):
            errs.append(invalid(f"{path}.{key}", value, ",".join(is_dns1035_label(value))))
    for key, value in (("kind", kind), ("listKind", list_kind)):
        if value and is_dns1035_label(value.lower()):
            errs.append(invalid(f"{path}.{key}", value, "may have mixed case, but should otherwise match: "
                                + ",".join(is_dns1035_label(value.lower()))))
    short = names.get("shortNames")
    if isinstance(short, list):
        for i, s in enumerate(short):
            if not isinstance(s, str) or is_dns1035_label(s):
                detail = ",".join(is_dns1035_label(s)) if isinstance(s, str) else "must be a string"
                errs.append(invalid(f"{path}.shortNames[{i}]", s, detail))
    if kind and kind == list_kind:
        errs.append(invalid(f"{path}.listKind", list_kind, "kind and listKind may not be the same"))
    for key, value in (("plural", plural), ("singular", singular), ("kind", kind), ("listKind", list_kind)):
        if not value:
            errs.append(required(f"{path}.{key}"))
    return kind, plural


def _versions(versions: Any, errs: list[FieldError]) -> list[dict[str, Any]]:
    """Per-version checks and schemas; each good version comes back with its parsed `_schema`."""
    path = "spec.versions"
    if versions is None or versions == []:
        errs.append(required(path, "must have at least one version"))
        versions = []
    elif not isinstance(versions, list):
        errs.append(invalid(path, type_name(versions), "must be a list of versions"))
        return []
    out: list[dict[str, Any]] = []
    names: set[str] = set()
    unique = True
    storage = served = 0
    for i, v in enumerate(versions):
        vpath = f"{path}[{i}]"
        if not isinstance(v, Mapping):
            errs.append(invalid(vpath, type_name(v), "must be an object"))
            continue
        name = _text(v, "name", vpath, errs)
        if not name:
            errs.append(required(f"{vpath}.name"))
        elif is_dns1035_label(name):
            errs.append(invalid(f"{vpath}.name", name, ",".join(is_dns1035_label(name))))
        if name in names:
            unique = False
        names.add(name)
        for flag in ("served", "storage"):
            if not isinstance(v.get(flag, False), bool):
                errs.append(invalid(f"{vpath}.{flag}", v.get(flag), "must be a boolean"))
        storage += v.get("storage") is True
        served += v.get("served") is True
        schema_holder = v.get("schema")
        raw = schema_holder.get("openAPIV3Schema") if isinstance(schema_holder, Mapping) else None
        spath = f"{vpath}.schema.openAPIV3Schema"
        if raw is None:
            errs.append(required(spath, "schemas are required"))
            continue
        schema, found = parse_schema(raw, spath)
        errs.extend(found)
        if schema is not None:
            out.append({**v, "_schema": schema})
    if not unique:
        errs.append(invalid(path, sorted(names), "must contain unique version names"))
    if storage != 1:
        stored = [v.get("name") for v in versions if isinstance(v, Mapping) and v.get("storage") is True]
        errs.append(invalid(path, stored, "must have exactly one version marked as storage version"))
    if not served:
        errs.append(invalid(path, sorted(names), "must have at least one served version"))
    return out
