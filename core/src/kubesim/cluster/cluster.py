"""The embedded, in-memory Kubernetes API: CRUD with API-server semantics, in one process.

Each request goes through the same stages as in kube-apiserver: namespace lifecycle, built-in
defaulting and mutation, registered mutating admitters, validation, registered validating
admitters, then the commit (resourceVersion from one counter) and a watch event. Deletion
honours finalizers, graceful pod deletion, propagation policies and ownerReference garbage
collection, all done synchronously so that a run is deterministic.

`Cluster` is the request layer (k8s.io/apiserver pkg/endpoints/handlers: create.go,
update.go, patch.go, delete.go): it decodes and checks requests, copies what it returns and
delivers each request's watch events. The write path is writes.py (the generic registry
store), admission.py runs the admitters, garbage_collection.py, namespaces.py and crds.py
are the garbage collector, the namespace lifecycle and the CRD finalizer.

Returned objects: `get`, `create`, `update`, `patch`, `delete` and `bind` return copies the
caller owns. `list`, `objects` and watch events return the stored dicts themselves, for
speed: read them, never mutate them (copy first, e.g. with `copy_tree`). Writers of big or
many objects (the scenario engine) may pass `copy=False` to `create`, `update` and `bind`:
the object given is handed over and stored as it is, and the stored object comes back
instead of a copy; neither may be mutated afterwards.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any

import structlog

from kubesim.apiextensions import FIELD_VALIDATIONS, field_validation_error
from kubesim.clock import Clock
from kubesim.errors import ApiError, BadRequest
from kubesim.k8s.decoding import delete_options_message
from kubesim.k8s.selectors import FieldSelector, LabelSelector
from kubesim.k8s.validation import FieldError, invalid, invalid_error

from .admission import Admitter
from .events import WatchHandler
from .garbage_collection import POLICIES
from .jsontree import copy_tree
from .namespaces import DEFAULT_NAMESPACES
from .patches import api_version_change_message, apply_patch, kind_change_message, patch_kind
from .registry import ResourceRegistry, ResourceType
from .strategic_tables import schema_for
from .writes import GenericStore, checked_metadata

__all__ = ["DEFAULT_NAMESPACES", "Cluster"]

log = structlog.get_logger(__name__)

_Objects = list[dict[str, Any]]  # spelled out here: inside Cluster, `list` is the method


class Cluster:
    """An in-memory Kubernetes API server: objects are plain dicts in Kubernetes JSON form.

    This class handles requests (decoding, checks, copies, event delivery, like kube-apiserver's
    endpoints/handlers); the stored state and the write path are a GenericStore (writes.py).
    """

    def __init__(self, clock: Clock, *, seed: int = 0) -> None:
        self.clock = clock
        self.seed = seed
        self.registry = ResourceRegistry()
        self._writes = GenericStore(self.registry, clock, seed)
        self._store = self._writes.store
        self._bus = self._writes.bus
        self._plain_call = _ApiCall(self, False)  # stateless: shared by every request without dryRun

    @property
    def graceful_pod_deletion(self) -> bool:
        """When True, deleting a pod bound to a node only marks it (deletionTimestamp) until a
        delete with grace period 0, as a kubelet would finish it. False: pods go at once."""
        return self._writes.graceful_pod_deletion

    @graceful_pod_deletion.setter
    def graceful_pod_deletion(self, value: bool) -> None:
        self._writes.graceful_pod_deletion = value

    @property
    def resource_version(self) -> str:
        """The latest write's resourceVersion, as a list's metadata.resourceVersion gives it."""
        return str(self._writes.resource_version)

    # --- subscriptions --------------------------------------------------------------

    def add_admitter(self, admitter: Admitter, *, phase: str) -> None:
        """Register an admitter for "mutating" or "validating"; runs after the built-ins, in order."""
        self._writes.admission.add(admitter, phase)

    def admitters_mark(self) -> tuple[int, int]:
        """A mark of the admitters registered so far; `drop_admitters(mark)` forgets later ones."""
        return self._writes.admission.mark()

    def drop_admitters(self, mark: tuple[int, int]) -> None:
        """Forget the admitters registered since `mark` (a run's, on a cluster that outlives it)."""
        self._writes.admission.truncate(mark)

    def watch(self, handler: WatchHandler, *, kinds: Iterable[str] | None = None) -> Callable[[], None]:
        """Deliver every committed change to `handler`; returns the function that stops it.

        `kinds` (e.g. {"Pod", "Node"}) delivers only changes of objects of those kinds.
        """
        return self._bus.subscribe(handler, kinds)

    # --- reads ----------------------------------------------------------------------

    def get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None, *, copy: bool = True
    ) -> dict[str, Any]:
        """A copy of one object; NotFound when it does not exist.

        copy=False returns the stored object itself, as `list` does: read it, never mutate it
        (a writer builds its new version from shallow copies of the parts it changes).
        """
        rt = self.registry.lookup(api_version, kind)
        stored = self._writes.existing(rt, self._writes.key(rt, namespace, name))
        return copy_tree(stored) if copy else stored

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | Mapping[str, Any] | LabelSelector | None = None,
        field_selector: str | FieldSelector | None = None,
    ) -> _Objects:
        """The stored objects of a kind, sorted by (namespace, name). Do not mutate them.

        `namespace` None lists all namespaces. A label selector may be a string, a
        metav1.LabelSelector dict or a parsed LabelSelector; invalid selectors raise BadRequest.
        """
        rt = self.registry.lookup(api_version, kind)
        labels = None if label_selector is None else LabelSelector.of(label_selector)
        fields = (
            field_selector
            if field_selector is None or isinstance(field_selector, FieldSelector)
            else FieldSelector.parse(field_selector)
        )
        bucket = self._store.buckets.get((rt.group, rt.kind))
        if bucket is None or not bucket.objects:
            return []
        node = _node_term(fields) if bucket.indexes_nodes else None
        if node is not None:  # pods on one node: from the index, not a walk over every pod
            objects = bucket.objects
            items = [objects[k] for k in bucket.on_node(node)
                     if not (rt.namespaced and namespace) or k[0] == namespace]
        else:
            items = bucket.values(namespace if rt.namespaced and namespace else None)
        if labels is not None and not labels.empty:
            match = labels.matches
            items = [o for o in items if match(o["metadata"].get("labels"))]
        if fields is not None and not fields.empty:
            items = [o for o in items if fields.matches(o)]
        return items

    def objects(self) -> _Objects:
        """Every stored object: kinds in registry order, then (namespace, name). Do not mutate them."""
        return [obj for _, obj in self._store.each(self.registry.types())]

    # --- writes ---------------------------------------------------------------------

    def create(
        self,
        obj: dict[str, Any],
        *,
        actor: str = "scenario",
        copy: bool = True,
        field_validation: str = "Strict",
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Create an object (POST); returns the stored object as a copy.

        copy=False: `obj` is handed over (stored, possibly after defaulting, without a copy)
        and the stored object itself is returned; never mutate either afterwards.
        field_validation (Strict, Warn, Ignore): what undeclared fields of a custom resource get.
        dry_run (dryRun=All, in every write method): checked and admitted, nothing stored.
        """
        _check_field_validation("CreateOptions", field_validation)
        with self._api_call(dry_run):
            rt = _type_of(self.registry, obj)
            created = self._writes.create(rt, copy_tree(obj) if copy else obj, actor,
                                          field_validation=field_validation)
        return copy_tree(created) if copy else created

    def update(
        self,
        obj: dict[str, Any],
        *,
        actor: str = "scenario",
        subresource: str | None = None,
        copy: bool = True,
        field_validation: str = "Strict",
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Replace an object (PUT); Conflict when metadata.resourceVersion is set and stale.

        copy=False: as for create(), `obj` is handed over and the stored object returned.
        """
        _check_field_validation("UpdateOptions", field_validation)
        with self._api_call(dry_run):
            rt = _type_of(self.registry, obj)
            new = copy_tree(obj) if copy else obj
            meta = checked_metadata(rt, new, self._stored_by_name(rt, new))
            key = self._writes.key(rt, meta.get("namespace"), _name(meta))
            stored = self._store.get(rt, key)
            if stored is not None and (stored is obj or stored["metadata"] is obj.get("metadata")):
                raise ValueError(
                    "update() was given the stored object itself (from list(), objects() or a watch "
                    "event), which must not be mutated: copy it first with copy_tree()"
                )
            if rt.namespaced:
                meta["namespace"] = key[0]
            updated = self._writes.update(rt, key, new, actor, subresource, field_validation)
        return copy_tree(updated) if copy else updated

    def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        patch: str | bytes | dict[str, Any] | builtins.list[Any],
        patch_type: str,
        *,
        namespace: str | None = None,
        actor: str = "scenario",
        subresource: str | None = None,
        field_validation: str = "Strict",
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Patch an object (merge, JSON or strategic merge patch; long or short type names)."""
        _check_field_validation("PatchOptions", field_validation)
        with self._api_call(dry_run):
            rt = self.registry.lookup(api_version, kind)
            content_type = patch_kind(patch_type, self.registry.is_builtin(rt))
            key = self._writes.key(rt, namespace, name)
            old = self._writes.existing(rt, key)
            schema = schema_for(rt.group, rt.kind)
            new = apply_patch(copy_tree(old), patch, content_type, schema)
            meta = checked_metadata(rt, new)
            if meta.get("name") != key[1]:
                raise BadRequest(
                    f"the name of the object ({meta.get('name', '')}) does not match the name on "
                    f"the URL ({key[1]})"
                )
            if rt.namespaced and meta.get("namespace") != key[0]:
                raise BadRequest(
                    f"the namespace of the object ({meta.get('namespace', '')}) does not match the "
                    f"namespace on the request ({key[0]})"
                )
            self._check_patched_identity(rt, old, new)
            new["apiVersion"], new["kind"] = old["apiVersion"], old["kind"]
            updated = self._writes.update(rt, key, new, actor, subresource, field_validation)
        return copy_tree(updated)

    def _check_patched_identity(self, rt: ResourceType, old: dict[str, Any], new: dict[str, Any]) -> None:
        """A patch may not change the object's kind, move it to a version that does not serve
        its kind, nor change its uid (never dropped silently: Invalid, as upstream's decoding
        in handlers/patch.go and ValidateObjectMetaUpdate refuse them)."""
        errors: list[FieldError | str] = []
        kind, api_version = new.get("kind"), new.get("apiVersion")
        if kind is not None and kind != old["kind"]:
            errors.append(kind_change_message(kind, old["kind"]))
        elif api_version is not None and api_version != old["apiVersion"]:
            try:
                served = isinstance(api_version, str) and self.registry.lookup(api_version, old["kind"]) is rt
            except ApiError:
                served = False
            if not served:
                errors.append(api_version_change_message(api_version, old["kind"]))
        uid = new["metadata"].get("uid")
        if uid and uid != old["metadata"].get("uid"):
            errors.append(invalid("metadata.uid", uid, "field is immutable"))
        if errors:
            raise invalid_error(rt.group_kind, old["metadata"]["name"], errors)

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        actor: str = "scenario",
        propagation_policy: str | None = None,
        grace_period_seconds: int | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any] | None:
        """Delete an object; returns it (a copy) while finalizers or a grace period keep it, else None."""
        if propagation_policy is not None and propagation_policy not in POLICIES:
            raise BadRequest(
                f'propagationPolicy: Unsupported value: "{propagation_policy}": supported values: '
                + ", ".join(f'"{p}"' for p in POLICIES)
            )
        if grace_period_seconds is not None and (message := delete_options_message(
            {"gracePeriodSeconds": grace_period_seconds}
        )):
            raise BadRequest(message)
        if grace_period_seconds is not None and grace_period_seconds < 0:
            raise BadRequest(f"gracePeriodSeconds: Invalid value: {grace_period_seconds}: must be >= 0")
        with self._api_call(dry_run):
            writes = self._writes
            rt = self.registry.lookup(api_version, kind)
            key = writes.key(rt, namespace, name)
            obj = writes.existing(rt, key)
            remaining = writes.delete_request(rt, key, obj, actor, propagation_policy, grace_period_seconds)
        return None if remaining is None else copy_tree(remaining)

    def bind(
        self, namespace: str, name: str, node_name: str, *, actor: str = "scheduler", copy: bool = True,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Bind a pod to a node (pods/binding): set spec.nodeName and the PodScheduled condition.

        copy=False returns the stored pod itself (read it, never mutate it).
        """
        with self._api_call(dry_run):
            bound = self._writes.bind(namespace, name, node_name, actor)
        return copy_tree(bound) if copy else bound

    def reset(self) -> None:
        """Delete every object except CustomResourceDefinitions, silently, and start counting again.

        Registered kinds stay. Default namespaces are recreated. uids, resourceVersions and
        generated names restart where they would be right after the kept CRDs were created, so
        a scenario started after reset() always sees the same identities.
        """
        self._writes.reset()

    def restore(self, objects: Iterable[dict[str, Any]]) -> None:
        """Put stored objects back exactly as they were (metadata included), silently and without
        moving the counters: Scenarios kept across a reset, a --state-dir loaded at start."""
        for obj in objects:
            rt = _type_of(self.registry, obj)
            meta = obj["metadata"]
            key = self._writes.key(rt, meta.get("namespace"), meta["name"])
            self._store.put(rt, key, obj, self._store.get(rt, key))

    def counters(self) -> dict[str, Any]:
        """The identity counters (resourceVersion, uid serial, generated names), as JSON data."""
        return self._writes.counters()

    def restore_counters(self, counters: dict[str, Any]) -> None:
        """Continue from `counters()` saved earlier (a restarted `kubesim serve --state-dir`)."""
        self._writes.restore_counters(counters)

    # --- request plumbing -------------------------------------------------------------

    def _stored_by_name(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The stored object an update body names, when its name and namespace are plain
        strings (else None): its metadata was decoded when it was stored, so decoding the
        body's metadata skips what it shares with it (a status write shares all of it)."""
        meta = obj.get("metadata")
        if type(meta) is not dict:
            return None
        name, namespace = meta.get("name"), meta.get("namespace")
        if type(name) is not str or not (namespace is None or type(namespace) is str):
            return None
        return self._store.get(rt, self._writes.key(rt, namespace, name))

    def _api_call(self, dry_run: bool = False) -> _ApiCall:
        """Deliver the events a request queued, also when it failed half-way; dry_run: the
        request is checked and admitted only (GenericStore.dry_running)."""
        return _ApiCall(self, dry_run) if dry_run else self._plain_call


class _ApiCall:
    """The context of one request (Cluster._api_call): a class rather than a generator, as
    every write goes through it. Re-entrant: delivery is deferred to the outermost flush."""

    __slots__ = ("_bus", "_dry", "_writes")

    def __init__(self, cluster: Cluster, dry_run: bool) -> None:
        self._bus = cluster._bus
        self._writes = cluster._writes
        self._dry: AbstractContextManager[None] | None = None
        if dry_run:
            self._dry = self._writes.dry_running()

    def __enter__(self) -> None:
        if self._dry is not None:
            self._dry.__enter__()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if self._dry is not None:
                self._dry.__exit__(kind, exc, tb)
        finally:
            if kind is None:
                self._bus.flush()
            else:
                try:
                    self._bus.flush()
                except Exception:
                    log.exception("a watch handler failed while a failed request's events were delivered")


def _type_of(registry: ResourceRegistry, obj: Any) -> ResourceType:
    """The registered type of a request body; BadRequest when apiVersion or kind is missing."""
    if type(obj) is not dict:
        raise BadRequest(f"the object must be a JSON object, not {type(obj).__name__}")
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise BadRequest(f"Object 'Kind' is missing in '{_short_json(obj)}'")
    if not isinstance(api_version, str) or not api_version:
        raise BadRequest(f"Object 'apiVersion' is missing in '{_short_json(obj)}'")
    return registry.lookup(api_version, kind)


_NODE_NAME = ("spec", "nodeName")


def _node_term(fields: FieldSelector | None) -> str | None:
    """The node name of a `spec.nodeName=<name>` term of a field selector, if it has one."""
    if fields is None:
        return None
    for path, equal, value in fields.terms:
        if equal and path == _NODE_NAME:
            return value
    return None


def _check_field_validation(options: str, value: str) -> None:
    """ValidateFieldValidation (apimachinery meta/v1/validation): Ignore, Strict or Warn."""
    if value not in FIELD_VALIDATIONS:
        raise invalid_error(f"{options}.meta.k8s.io", "", [field_validation_error(value)])


def _name(meta: dict[str, Any]) -> str:
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise BadRequest("metadata.name is required for an update")
    return name


def _short_json(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, default=str)
    return text if len(text) <= 200 else text[:197] + "..."
