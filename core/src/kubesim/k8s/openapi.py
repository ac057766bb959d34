"""Kubernetes v1.34's OpenAPI v2 definitions, vendored as package data and loaded once on first use.

Source: Kubernetes' api/openapi-spec/swagger.json of release-1.34, as kubernetes-client/python
commit 4f585b3b8eb46c8afada5fa74200d9c859e2e92e ships it (kubernetes/swagger.json.unprocessed;
Apache-2.0). `paths` are dropped; `definitions` are kept whole, descriptions included, for
`kubectl explain`-style use. "x-kubesim-go-types" adds the Go type names of every field
(from k8s.io/api, k8s.io/apimachinery and k8s.io/apiextensions-apiserver v0.34.10), which
encoding/json prints in decoding errors. Regenerate with core/scripts/vendor_openapi.py.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from importlib.resources import files
from typing import Any

__all__ = ["GoTypes", "definition", "definition_for", "definitions", "document", "go_types"]

_DATA = "openapi-v2.json.gz"

GoTypes = dict[str, list[Any]]
"""One definition's fields: json name -> [embedding Go field path, [Go type, element type, ...]]."""


@cache
def document() -> dict[str, Any]:
    """The vendored document: swagger, info, definitions and x-kubesim-go-types."""
    raw = files("kubesim.k8s").joinpath(_DATA).read_bytes()
    doc: dict[str, Any] = json.loads(gzip.decompress(raw))
    return doc


def definitions() -> dict[str, dict[str, Any]]:
    """Every definition by its name ("io.k8s.api.apps.v1.Deployment")."""
    defs: dict[str, dict[str, Any]] = document()["definitions"]
    return defs


def definition(name: str) -> dict[str, Any]:
    """One definition by name; KeyError when the document has none of that name."""
    return definitions()[name]


def go_types(name: str) -> GoTypes | None:
    """The Go types of a definition's fields, when its Go struct was found."""
    types: dict[str, GoTypes] = document()["x-kubesim-go-types"]
    return types.get(name)


@cache
def _by_group_version_kind() -> dict[tuple[str, str, str], str]:
    found: dict[tuple[str, str, str], str] = {}
    for name in sorted(definitions()):
        for gvk in definitions()[name].get("x-kubernetes-group-version-kind") or ():
            found.setdefault((gvk["group"], gvk["version"], gvk["kind"]), name)
    return found


def definition_for(group: str, version: str, kind: str) -> str | None:
    """The name of the definition of a kind (x-kubernetes-group-version-kind), None if unknown."""
    return _by_group_version_kind().get((group, version, kind))
