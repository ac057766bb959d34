"""The resource verbs: get, list, create, update, patch, delete on the served cluster.

Each takes the request's parts and returns (HTTP code, JSON body); API errors propagate as
kubesim.errors.ApiError (app.py turns them into metav1.Status). Follows
k8s.io/apiserver pkg/endpoints/handlers (get.go, create.go, update.go, patch.go, delete.go).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.cluster.jsontree import copy_tree
from kubesim.cluster.registry import ResourceType
from kubesim.errors import BadRequest, MethodNotSupported
from kubesim.serve.resources import RequestInfo
from kubesim.serve.state import Identity, ServerState

__all__ = ["Request", "create", "delete", "get", "list_objects", "patch", "update"]

_RETURN_DELETED_OBJECT = frozenset({"Pod", "Service"})
"""Built-ins whose registry answers a delete with the object (ReturnDeletedObject, pkg/registry/core)."""


class Request:
    """One resource request: its type, URL parts, query, body and caller."""

    def __init__(self, state: ServerState, rt: ResourceType, info: RequestInfo,
                 query: Mapping[str, str], who: Identity) -> None:
        self.state = state
        self.rt = rt
        self.info = info
        self.query = query
        self.who = who

    @property
    def namespace(self) -> str | None:
        return self.info.namespace if self.rt.namespaced else None

    def field_validation(self) -> str:
        return self.query.get("fieldValidation") or "Strict"

    def dry_run(self) -> bool:
        value = self.query.get("dryRun")
        if value in (None, ""):
            return False
        if value != "All":
            raise BadRequest(f'dryRun: Unsupported value: "{value}": supported values: "All"')
        return True

    def name(self) -> str:
        if not self.info.name:
            raise MethodNotSupported("the server does not allow this method on the requested resource")
        return self.info.name


def get(req: Request) -> tuple[int, dict[str, Any]]:
    """GET one object."""
    obj = req.state.call(lambda c: c.get(req.rt.api_version, req.rt.kind, req.name(), req.namespace))
    return 200, obj


def list_objects(req: Request) -> tuple[int, dict[str, Any]]:
    """GET a collection (a namespace's, or all namespaces' without one)."""
    with req.state.locked() as cluster:
        items = cluster.list(req.rt.api_version, req.rt.kind, req.namespace,
                             label_selector=req.query.get("labelSelector") or None,
                             field_selector=req.query.get("fieldSelector") or None)
        body = {"kind": f"{req.rt.kind}List", "apiVersion": req.rt.api_version,
                "metadata": {"resourceVersion": cluster.resource_version},
                "items": [copy_tree(o) for o in items]}
    return 200, body


def _body_object(req: Request, body: Any) -> dict[str, Any]:
    if type(body) is not dict:
        raise BadRequest("the request body must be a JSON object")
    obj = dict(body)
    obj.setdefault("apiVersion", req.rt.api_version)
    obj.setdefault("kind", req.rt.kind)
    if req.rt.namespaced:
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            if meta.get("namespace") not in (None, "", req.info.namespace):
                raise BadRequest("the namespace of the provided object does not match the namespace "
                                 "sent on the request")
            obj["metadata"] = {**meta, "namespace": req.info.namespace}
    return obj


def create(req: Request, body: Any) -> tuple[int, dict[str, Any]]:
    """POST a new object."""
    obj = _body_object(req, body)
    with req.state.locked() as cluster:
        created = cluster.create(obj, actor=req.who.actor, field_validation=req.field_validation())
    return 201, created


def update(req: Request, body: Any) -> tuple[int, dict[str, Any]]:
    """PUT an object (or its status)."""
    obj = _body_object(req, body)
    meta = obj.get("metadata")
    if isinstance(meta, dict) and meta.get("name") not in (None, req.name()):
        raise BadRequest(f"the name of the object ({meta.get('name')}) does not match the name on the URL "
                         f"({req.name()})")
    with req.state.locked() as cluster:
        updated = cluster.update(obj, actor=req.who.actor, subresource=req.info.subresource,
                                 field_validation=req.field_validation())
    return 200, updated


def patch(req: Request, body: bytes, content_type: str) -> tuple[int, dict[str, Any]]:
    """PATCH an object with a JSON, merge or strategic merge patch (415 for other content types)."""
    with req.state.locked() as cluster:
        patched = cluster.patch(req.rt.api_version, req.rt.kind, req.name(), body, content_type,
                                namespace=req.namespace, actor=req.who.actor,
                                subresource=req.info.subresource, field_validation=req.field_validation())
    return 200, patched


def delete(req: Request, options: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    """DELETE an object; the object while finalizers or a grace period keep it, else a Success Status."""
    grace = options.get("gracePeriodSeconds", req.query.get("gracePeriodSeconds"))
    policy = options.get("propagationPolicy", req.query.get("propagationPolicy"))
    try:
        grace_seconds = None if grace in (None, "") else int(grace)
    except (TypeError, ValueError):
        raise BadRequest(f"gracePeriodSeconds: Invalid value: {grace!r}: must be an integer") from None
    with req.state.locked() as cluster:
        obj = cluster.get(req.rt.api_version, req.rt.kind, req.name(), req.namespace)
        remaining = cluster.delete(req.rt.api_version, req.rt.kind, req.name(), req.namespace,
                                   actor=req.who.actor, propagation_policy=policy or None,
                                   grace_period_seconds=grace_seconds)
    if remaining is not None:
        return 200, remaining
    if req.rt.kind in _RETURN_DELETED_OBJECT and not req.rt.group:
        return 200, obj
    return 200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                 "details": {"name": req.name(), "group": req.rt.group, "kind": req.rt.plural,
                             "uid": obj["metadata"].get("uid", "")}}
