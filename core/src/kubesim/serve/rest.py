"""The resource verbs: get, list, create, update, patch, delete, deletecollection.

Each takes the request's parts and returns (HTTP code, JSON body); API errors propagate as
kubesim.errors.ApiError (app.py turns them into metav1.Status). Follows
k8s.io/apiserver pkg/endpoints/handlers (get.go, create.go, update.go, patch.go, delete.go)
and pkg/registry/generic/registry/store.go (preconditions, DeleteCollection).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.cluster.jsontree import copy_tree
from kubesim.cluster.patches import UnsupportedMediaType, unsupported_patch_message
from kubesim.cluster.registry import ResourceType
from kubesim.cluster.writes import status_details
from kubesim.errors import BadRequest, Conflict, MethodNotSupported, NotFound
from kubesim.serve.catalog import catalog_of
from kubesim.serve.field_labels import checked_field_selector
from kubesim.k8s.selectors import LabelSelector
from kubesim.serve.paging import check_list_options, page
from kubesim.serve.resources import RequestInfo
from kubesim.serve.scheduling_events import scheduling_events
from kubesim.serve.state import Identity, ServerState

__all__ = ["APPLY_PATCH", "NOT_ALLOWED", "Request", "check_scope", "create", "definition_version", "delete",
           "delete_collection", "get", "list_objects", "patch", "success_status", "update"]

APPLY_PATCH = "application/apply-patch+yaml"
NOT_ALLOWED = "the server does not allow this method on the requested resource"
_NO_RESOURCE = "the server could not find the requested resource"
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

    def dry_run(self, options: Mapping[str, Any] | None = None) -> bool:
        """dryRun=All (query, or DeleteOptions.dryRun); other values are 400 as upstream's
        ValidateDryRun (apimachinery pkg/apis/meta/v1/validation)."""
        values: list[Any] = []
        if options is not None and options.get("dryRun") is not None:
            values = options["dryRun"]
            if type(values) is not list:
                raise BadRequest("DeleteOptions.dryRun must be a list of strings (e.g. [\"All\"])")
        elif self.query.get("dryRun"):
            values = [self.query["dryRun"]]
        for value in values:
            if value != "All":
                raise BadRequest(f'dryRun: Unsupported value: "{value}": supported values: "All"')
        return bool(values)

    def name(self) -> str:
        if not self.info.name:
            raise MethodNotSupported(NOT_ALLOWED)
        return self.info.name


def definition_version(req: Request) -> Mapping[str, Any]:
    """The requested version's entry in the kind's CustomResourceDefinition spec.versions (its
    subresources.scale, selectableFields); {} for built-in kinds."""
    if req.state.cluster.registry.is_builtin(req.rt):
        return {}
    served = catalog_of(req.state).find(req.rt)
    spec = (served.crd if served is not None and served.crd is not None else {}).get("spec")
    versions = spec.get("versions") if isinstance(spec, Mapping) else None
    for version in versions or ():
        if isinstance(version, Mapping) and version.get("name") == req.info.version:
            return version
    return {}


def check_scope(rt: ResourceType, info: RequestInfo, method: str) -> None:
    """The URL rules of the API installer (endpoints/installer.go): a cluster-scoped kind has no
    namespaces/NS/ path (404); a namespaced kind without one is served for list, watch (all
    namespaces) only: with a name 404, other verbs on the collection 405."""
    if not rt.namespaced:
        if info.namespace is not None:
            raise NotFound(_NO_RESOURCE)
        return
    if info.namespace is None:
        if info.name is not None:
            raise NotFound(_NO_RESOURCE)
        if method != "GET":
            raise MethodNotSupported(NOT_ALLOWED)


def success_status(req: Request, uid: str = "") -> dict[str, Any]:
    """The Success Status a delete answers with (store.go Delete: details name, group, kind, uid)."""
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if req.info.name:
        details = status_details(req.rt, req.info.name)
        if uid:
            details["uid"] = uid
        body["details"] = details
    return body


def get(req: Request) -> tuple[int, dict[str, Any]]:
    """GET one object."""
    obj = req.state.call(lambda c: c.get(req.rt.api_version, req.rt.kind, req.name(), req.namespace))
    return 200, obj


def _limit(req: Request) -> int:
    text = req.query.get("limit") or "0"
    try:
        limit = int(text)
    except ValueError:
        raise BadRequest(f'limit: Invalid value: "{text}": must be an integer') from None
    return max(limit, 0)


def _selected(req: Request) -> list[dict[str, Any]]:
    """The objects the request's namespace, labelSelector and fieldSelector select (stored
    dicts: call under the lock, do not mutate)."""
    fields = req.query.get("fieldSelector") or None
    selectable = definition_version(req).get("selectableFields") or ()
    paths = [f.get("jsonPath") for f in selectable if isinstance(f, Mapping)]
    extra = frozenset(p.lstrip(".") for p in paths if isinstance(p, str) and p.lstrip("."))
    field_selector = (None if fields is None
                      else checked_field_selector(req.rt.group, req.rt.kind, fields, extra))
    labels = req.query.get("labelSelector") or None
    items = req.state.cluster.list(req.rt.api_version, req.rt.kind, req.namespace,
                                   label_selector=labels, field_selector=field_selector)
    if (req.rt.group, req.rt.kind) == ("", "Event"):  # and the scheduler's, for kubectl describe
        derived = scheduling_events(req.state.cluster.list("v1", "Pod", req.namespace),
                                    None if labels is None else LabelSelector.parse(labels), field_selector)
        if derived:
            items = sorted([*items, *derived],
                           key=lambda o: (o["metadata"].get("namespace") or "", o["metadata"]["name"]))
    return items


def list_objects(req: Request) -> tuple[int, dict[str, Any]]:
    """GET a collection (a namespace's, or all namespaces' without one), chunked by limit/continue."""
    limit = _limit(req)
    with req.state.locked() as cluster:
        rv = int(cluster.resource_version)
        check_list_options(req.query, rv)
        items = _selected(req)
        chunk = page(items, limit=limit, token=req.query.get("continue") or None, resource_version=rv,
                     count_remaining=not (req.query.get("labelSelector") or req.query.get("fieldSelector")))
        meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if chunk.continue_token:
            meta["continue"] = chunk.continue_token
        if chunk.remaining is not None:
            meta["remainingItemCount"] = chunk.remaining
        body = {"kind": f"{req.rt.kind}List", "apiVersion": req.rt.api_version, "metadata": meta,
                "items": [copy_tree(o) for o in chunk.items]}
    return 200, body


def _body_object(req: Request, body: Any) -> dict[str, Any]:
    if type(body) is not dict:
        raise BadRequest("the request body must be a JSON object")
    obj = dict(body)
    obj.setdefault("apiVersion", req.rt.api_version)
    obj.setdefault("kind", req.rt.kind)
    if req.rt.namespaced:
        meta = obj.get("metadata")
        if meta is None:
            meta = {}
        if isinstance(meta, dict):
            if meta.get("namespace") not in (None, "", req.info.namespace):
                # handlers/rest.go checkName / create.go: the namespace must match the URL's
                raise BadRequest("the namespace of the provided object does not match the namespace "
                                 "sent on the request")
            obj["metadata"] = {**meta, "namespace": req.info.namespace}
    return obj


def create(req: Request, body: Any) -> tuple[int, dict[str, Any]]:
    """POST a new object (201; dryRun=All: checked and returned, not stored)."""
    obj = _body_object(req, body)
    dry_run = req.dry_run()
    with req.state.locked() as cluster:
        created = cluster.create(obj, actor=req.who.actor, field_validation=req.field_validation(),
                                 dry_run=dry_run)
    return 201, created


def update(req: Request, body: Any) -> tuple[int, dict[str, Any]]:
    """PUT an object (or its status)."""
    obj = _body_object(req, body)
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if name != req.name():  # handlers/rest.go checkName
        raise BadRequest(f"the name of the object ({'' if name is None else name}) does not match the name "
                         f"on the URL ({req.name()})")
    dry_run = req.dry_run()
    with req.state.locked() as cluster:
        updated = cluster.update(obj, actor=req.who.actor, subresource=req.info.subresource,
                                 field_validation=req.field_validation(), dry_run=dry_run)
    return 200, updated


def check_patch_type(content_type: str, builtin: bool) -> None:
    """Server-side apply is refused with 415 (the supported patch types listed; patch.go)."""
    if content_type == APPLY_PATCH:
        raise UnsupportedMediaType(unsupported_patch_message(content_type, builtin)
                                   + " (server-side apply is not modelled by kubesim; use a client-side "
                                     "apply or a patch)")


def patch(req: Request, body: bytes, content_type: str) -> tuple[int, dict[str, Any]]:
    """PATCH an object with a JSON, merge or strategic merge patch (415 for other content types)."""
    dry_run = req.dry_run()
    with req.state.locked() as cluster:
        check_patch_type(content_type, cluster.registry.is_builtin(req.rt))
        patched = cluster.patch(req.rt.api_version, req.rt.kind, req.name(), body, content_type,
                                namespace=req.namespace, actor=req.who.actor,
                                subresource=req.info.subresource, field_validation=req.field_validation(),
                                dry_run=dry_run)
    return 200, patched


def _grace(req: Request, options: Mapping[str, Any]) -> int | None:
    grace = options.get("gracePeriodSeconds", req.query.get("gracePeriodSeconds"))
    try:
        return None if grace in (None, "") else int(grace)
    except (TypeError, ValueError):
        raise BadRequest(f"gracePeriodSeconds: Invalid value: {grace!r}: must be an integer") from None


def _check_preconditions(req: Request, obj: Mapping[str, Any], options: Mapping[str, Any]) -> None:
    """DeleteOptions.preconditions (uid, resourceVersion): 409 as the storage's checkPreconditions."""
    pre = options.get("preconditions")
    if pre is None:
        return
    if type(pre) is not dict:
        raise BadRequest("preconditions must be an object")
    meta = obj["metadata"]
    problem = None
    uid, rv = pre.get("uid"), pre.get("resourceVersion")
    if uid is not None and uid != meta.get("uid"):
        problem = f"Precondition failed: UID in precondition: {uid}, UID in object meta: {meta.get('uid')}"
    elif rv is not None and rv != meta.get("resourceVersion"):
        problem = (f"Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in meta: "
                   f"{meta.get('resourceVersion')}")
    if problem is not None:
        name = meta["name"]
        raise Conflict(f'Operation cannot be fulfilled on {req.rt.group_resource} "{name}": {problem}',
                       details=status_details(req.rt, name))


def _delete_one(req: Request, name: str, namespace: str | None, options: Mapping[str, Any],
                dry_run: bool) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Delete one object (under the lock): (the object before, what remains stored or None)."""
    cluster = req.state.cluster
    obj = cluster.get(req.rt.api_version, req.rt.kind, name, namespace)
    _check_preconditions(req, obj, options)
    policy = options.get("propagationPolicy", req.query.get("propagationPolicy"))
    orphan = options.get("orphanDependents", req.query.get("orphanDependents"))
    if policy in (None, "") and orphan is not None:  # the deprecated field, as BeforeDelete maps it
        policy = "Orphan" if orphan in (True, "true") else "Background"
    remaining = cluster.delete(req.rt.api_version, req.rt.kind, name, namespace, actor=req.who.actor,
                               propagation_policy=policy or None, grace_period_seconds=_grace(req, options),
                               dry_run=dry_run)
    return obj, remaining


def delete(req: Request, options: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    """DELETE an object: the object while finalizers or a grace period keep it (202 only when
    DeleteOptions.orphanDependents is false, as delete.go keeps for old clients), else the
    object (pods, services) or a Success Status."""
    dry_run = req.dry_run(options)
    with req.state.locked():
        obj, remaining = _delete_one(req, req.name(), req.namespace, options, dry_run)
    if remaining is not None:
        orphan = options.get("orphanDependents", req.query.get("orphanDependents"))
        return (202 if orphan in (False, "false") else 200), remaining
    if req.rt.kind in _RETURN_DELETED_OBJECT and not req.rt.group:
        return 200, obj
    return 200, success_status(req, uid=obj["metadata"].get("uid", ""))


def delete_collection(req: Request, options: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    """DELETE a collection: every object the selectors select, in list order; the list of what
    was deleted (store.go DeleteCollection)."""
    dry_run = req.dry_run(options)
    deleted: list[dict[str, Any]] = []
    with req.state.locked() as cluster:
        targets = [(o["metadata"]["name"], o["metadata"].get("namespace")) for o in _selected(req)]
        for name, namespace in targets:
            try:
                obj, remaining = _delete_one(req, name, namespace, options, dry_run)
            except NotFound:  # gone meanwhile (garbage collected with an owner deleted before it)
                continue
            deleted.append(remaining if remaining is not None else obj)
        rv = cluster.resource_version
    return 200, {"kind": f"{req.rt.kind}List", "apiVersion": req.rt.api_version,
                 "metadata": {"resourceVersion": rv}, "items": deleted}
