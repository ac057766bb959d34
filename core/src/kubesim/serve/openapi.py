"""OpenAPI documents: /openapi/v2 and /openapi/v3 (the index and one document per group version).

Built from the vendored Kubernetes v1.34 definitions (kubesim.k8s.openapi) plus each CRD's
openAPIV3Schema under its REST-friendly name with x-kubernetes-group-version-kind, as
k8s.io/apiextensions-apiserver pkg/controller/openapi/builder does. The v3 documents carry a
path per resource whose PATCH lists the fieldValidation parameter: kubectl's
QueryParamVerifierV3 (k8s.io/cli-runtime pkg/resource/query_param_verifier_v3.go) then leaves
validation to the server. Documents are encoded once per Catalog and served as bytes.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from typing import Any

from kubesim.cluster.jsontree import copy_tree
from kubesim.k8s import openapi as vendored
from kubesim.serve.catalog import Catalog, Served
from kubesim.serve.discovery import KUBERNETES_VERSION

__all__ = ["OpenAPIDocs", "V2_PROTOBUF", "V2_PROTOBUF_DOCUMENT", "content_hash", "crd_definition_name"]

V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
"""The media type client-go's OpenAPISchema() asks /openapi/v2 for, and only that one."""

V2_PROTOBUF_DOCUMENT = b"\x0a\x032.0"
"""A gnostic openapi_v2.Document with only `swagger: "2.0"` (field 1) and no definitions.

kubesim does not encode protobuf. client-go cannot read JSON under that Accept header, so
kubectl gets a valid document without schemas: its client-side validation then skips the kind
(k8s.io/kubectl pkg/validation/schema.go: a kind absent from the schema is not validated)
and kubectl apply falls back to its compiled-in strategic merge metadata. kubectl 1.32
uses /openapi/v3 (complete) first for all three.
"""

_V2_REF = "#/definitions/"
_V3_REF = "#/components/schemas/"
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
_STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
_PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
_QUERY = ("dryRun", "fieldManager", "fieldValidation", "pretty")
_PATCH_TYPES = ("application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json")
_SMP = "application/strategic-merge-patch+json"


def content_hash(doc: bytes) -> str:
    """The hash naming a document's content (the v3 index's ?hash=, ETags): SHA-512, upper-case hex."""
    return hashlib.sha512(doc).hexdigest().upper()


def _encode(doc: Any) -> bytes:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def crd_definition_name(group: str, version: str, kind: str) -> str:
    """A CRD kind's definition name: the group reversed, then version and kind ("io.kubesim.v1alpha1.Scenario")."""
    return ".".join([*reversed(group.split(".")), version, kind])


def _crd_schemas(s: Served) -> dict[str, dict[str, Any]]:
    """version -> definition of a CRD kind (the declared schema plus apiVersion, kind, metadata)."""
    found: dict[str, dict[str, Any]] = {}
    spec = (s.crd or {}).get("spec") or {}
    for v in spec.get("versions") or ():
        if not isinstance(v, dict) or v.get("name") not in s.versions:
            continue
        schema = copy_tree(((v.get("schema") or {}).get("openAPIV3Schema")) or {"type": "object"})
        props = schema.setdefault("properties", {})
        props.setdefault("apiVersion", {"type": "string", "description": "APIVersion defines the versioned "
                                        "schema of this representation of an object."})
        props.setdefault("kind", {"type": "string", "description": "Kind is a string value representing the "
                                  "REST resource this object represents."})
        props["metadata"] = {"$ref": _V2_REF + _OBJECT_META}
        schema["x-kubernetes-group-version-kind"] = [{"group": s.rt.group, "version": v["name"], "kind": s.rt.kind}]
        found[v["name"]] = schema
    return found


def _definitions(catalog: Catalog) -> dict[str, dict[str, Any]]:
    defs = dict(vendored.definitions())
    for s in catalog.served:
        if s.crd is None:
            continue
        for version, schema in _crd_schemas(s).items():
            name = crd_definition_name(s.rt.group, version, s.rt.kind)
            defs[name] = schema
            defs[name + "List"] = {
                "type": "object", "required": ["items"],
                "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                               "items": {"type": "array", "items": {"$ref": _V2_REF + name}},
                               "metadata": {"$ref": _V2_REF + _LIST_META}},
                "x-kubernetes-group-version-kind": [{"group": s.rt.group, "version": version,
                                                     "kind": s.rt.kind + "List"}]}
    return defs


def _refs(node: Any) -> Iterator[str]:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith(_V2_REF):
                yield ref[len(_V2_REF):]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _closure(defs: dict[str, dict[str, Any]], roots: list[str]) -> list[str]:
    seen: set[str] = set()
    todo = [r for r in roots if r in defs]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(r for r in _refs(defs[name]) if r in defs and r not in seen)
    return sorted(seen)


def _to_v3(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _to_v3(v) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith(_V2_REF):
            out["$ref"] = _V3_REF + ref[len(_V2_REF):]
        return out
    if isinstance(node, list):
        return [_to_v3(v) for v in node]
    return node


def _definition_of(s: Served, version: str) -> str | None:
    if s.crd is not None:
        return crd_definition_name(s.rt.group, version, s.rt.kind)
    return vendored.definition_for(s.rt.group, version, s.rt.kind)


def _operation(action: str, gvk: dict[str, str], schema: str | None, query: tuple[str, ...],
               body: tuple[str, ...] = ()) -> dict[str, Any]:
    content = {"application/json": {"schema": {"$ref": _V3_REF + (schema or _STATUS)}}}
    op: dict[str, Any] = {}
    if body:
        # the media types kubectl's patcher reads (strategic merge only for built-ins, as upstream)
        ref = _PATCH if action == "patch" else schema or _STATUS
        op["requestBody"] = {"content": {t: {"schema": {"$ref": _V3_REF + ref}} for t in body}, "required": True}
    return op | {"operationId": f"{action}{gvk['kind']}", "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": gvk,
            "parameters": [{"name": q, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
                           for q in query],
            "responses": {"200": {"description": "OK", "content": content}}}


def _paths(s: Served, version: str, prefix: str) -> dict[str, Any]:
    rt = s.rt
    gvk = {"group": rt.group, "version": version, "kind": rt.kind}
    schema = _definition_of(s, version)
    base = f"{prefix}/namespaces/{{namespace}}/{rt.plural}" if rt.namespaced else f"{prefix}/{rt.plural}"
    list_schema = schema + "List" if schema else None
    patch_types = _PATCH_TYPES if s.crd is not None else (*_PATCH_TYPES, _SMP)
    return {
        base: {"get": _operation("list", gvk, list_schema, ()),
               "post": _operation("post", gvk, schema, _QUERY, ("application/json",))},
        base + "/{name}": {"get": _operation("get", gvk, schema, ()),
                           "put": _operation("put", gvk, schema, _QUERY, ("application/json",)),
                           "patch": _operation("patch", gvk, schema, _QUERY + ("force",), patch_types),
                           "delete": _operation("delete", gvk, _STATUS, ("dryRun",))},
    }


class OpenAPIDocs:
    """The encoded documents of one Catalog, built on first use (and again when the catalog changes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._catalog: Catalog | None = None
        self._defs: dict[str, dict[str, Any]] = {}
        self._v2: bytes | None = None
        self._v3: dict[str, bytes] = {}

    def _for(self, catalog: Catalog) -> None:
        if self._catalog is not catalog:
            self._catalog, self._defs, self._v2, self._v3 = catalog, _definitions(catalog), None, {}

    def v2(self, catalog: Catalog) -> bytes:
        """/openapi/v2 as JSON bytes."""
        with self._lock:
            self._for(catalog)
            if self._v2 is None:
                self._v2 = _encode({"swagger": "2.0", "info": {"title": "Kubernetes", "version": KUBERNETES_VERSION},
                                    "paths": {}, "definitions": self._defs})
            return self._v2

    def _v3_doc(self, catalog: Catalog, gv: str) -> bytes | None:
        group, _, version = gv.rpartition("/")
        legacy = gv.startswith("api/")
        group = "" if legacy else group.removeprefix("apis/")
        if (legacy and gv != f"api/{version}") or (not legacy and not gv.startswith("apis/")):
            return None
        served = catalog.in_version(group, version)
        if not served:
            return None
        prefix = f"/api/{version}" if legacy else f"/apis/{group}/{version}"
        paths: dict[str, Any] = {}
        roots = [_STATUS, _PATCH]
        for s in served:
            paths.update(_paths(s, version, prefix))
            name = _definition_of(s, version)
            if name:
                roots += [name, name + "List"]
        schemas = {n: _to_v3(self._defs[n]) for n in _closure(self._defs, roots)}
        return _encode({"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": KUBERNETES_VERSION},
                        "paths": paths, "components": {"schemas": schemas}})

    def v3(self, catalog: Catalog, gv: str) -> bytes | None:
        """/openapi/v3/<gv> ("api/v1", "apis/apps/v1") as JSON bytes; None: no such group version."""
        with self._lock:
            self._for(catalog)
            if gv not in self._v3:
                doc = self._v3_doc(catalog, gv)
                if doc is None:
                    return None
                self._v3[gv] = doc
            return self._v3[gv]

    def v3_index(self, catalog: Catalog) -> bytes:
        """/openapi/v3: each group version's document path with a hash of its content."""
        paths: dict[str, Any] = {}
        for group, versions in sorted(catalog.group_versions().items()):
            for version in versions:
                gv = f"apis/{group}/{version}" if group else f"api/{version}"
                doc = self.v3(catalog, gv)
                if doc is not None:
                    paths[gv] = {"serverRelativeURL": f"/openapi/v3/{gv}?hash={content_hash(doc)}"}
        return _encode({"paths": paths})
