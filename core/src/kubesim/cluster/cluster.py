"""The embedded, in-memory Kubernetes API: CRUD with API-server semantics, in one process.

Each request goes through the same stages as in kube-apiserver: namespace lifecycle, built-in
defaulting and mutation, registered mutating admitters, validation, registered validating
admitters, then the commit (resourceVersion from one counter) and a watch event. Deletion
honours finalizers, graceful pod deletion, propagation policies and ownerReference garbage
collection, all done synchronously so that a run is deterministic.

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
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import structlog

from kubesim.clock import Clock, format_time
from kubesim.errors import AlreadyExists, ApiError, BadRequest, Conflict, Forbidden, NotFound
from kubesim.k8s.conditions import update_pod_condition
from kubesim.k8s.selectors import FieldSelector, LabelSelector
from kubesim.k8s.validation import invalid_error, name_check_for, validate_object_meta

from . import priority, strategies
from .admission import MUTATING, VALIDATING, AdmissionChain, AdmissionRequest, Admitter
from .events import ADDED, DELETED, MODIFIED, EventBus, WatchEvent, WatchHandler
from .identity import NameGenerator, UidSource
from .jsontree import copy_tree
from .patches import apply_patch, patch_kind
from .registry import CRD_TYPE, ResourceRegistry, ResourceType, crd_group_kind, crd_resource_type
from .store import Key, ObjectStore, owner_uids
from .strategic_tables import schema_for

__all__ = ["DEFAULT_NAMESPACES", "Cluster"]

log = structlog.get_logger(__name__)

_Objects = list[dict[str, Any]]  # spelled out here: inside Cluster, `list` is the method

DEFAULT_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")
_UNDELETABLE_NAMESPACES = frozenset(("default", "kube-system", "kube-public"))
_ORPHAN, _BACKGROUND, _FOREGROUND = "Orphan", "Background", "Foreground"
_POLICIES = (_ORPHAN, _BACKGROUND, _FOREGROUND)
_ORPHAN_BY_DEFAULT = frozenset((("", "ReplicationController"), ("batch", "Job")))  # v1 back-compat defaults
_FOREGROUND_FINALIZER = "foregroundDeletion"
_ORPHAN_FINALIZER = "orphan"
_GC = "garbage-collector"
_NAMESPACE_CONTROLLER = "namespace-controller"
_SYSTEM_FIELDS = ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation")
_NO_RESOURCE = "the server could not find the requested resource"


class Cluster:
    """An in-memory Kubernetes API server: objects are plain dicts in Kubernetes JSON form."""

    graceful_pod_deletion: bool
    """When True, deleting a pod bound to a node only marks it (deletionTimestamp) until a
    delete with grace period 0, as a kubelet would finish it. False: pods go at once."""

    def __init__(self, clock: Clock, *, seed: int = 0) -> None:
        self.clock = clock
        self.seed = seed
        self.registry = ResourceRegistry()
        self.graceful_pod_deletion = False
        self._store = ObjectStore()
        self._bus = EventBus()
        self._admission = AdmissionChain()
        self._uids = UidSource()
        self._names = NameGenerator(seed)
        self._rv = 0
        self._crd_serials: dict[str, int] = {}
        self._stamp: tuple[datetime, str] | None = None
        self._pods = self.registry.lookup("v1", "Pod")
        self._namespaces = self.registry.lookup("v1", "Namespace")
        self._priority_classes = self.registry.lookup("scheduling.k8s.io/v1", "PriorityClass")
        self._create_default_namespaces()

    # --- subscriptions --------------------------------------------------------------

    def add_admitter(self, admitter: Admitter, *, phase: str) -> None:
        """Register an admitter for "mutating" or "validating"; runs after the built-ins, in order."""
        self._admission.add(admitter, phase)

    def watch(self, handler: WatchHandler) -> Callable[[], None]:
        """Deliver every committed change to `handler`; returns the function that stops it."""
        return self._bus.subscribe(handler)

    # --- reads ----------------------------------------------------------------------

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        """A copy of one object; NotFound when it does not exist."""
        rt = self.registry.lookup(api_version, kind)
        return copy_tree(self._existing(rt, self._key(rt, namespace, name)))

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

    def create(self, obj: dict[str, Any], *, actor: str = "scenario", copy: bool = True) -> dict[str, Any]:
        """Create an object (POST); returns the stored object as a copy.

        copy=False: `obj` is handed over (stored, possibly after defaulting, without a copy)
        and the stored object itself is returned; never mutate either afterwards.
        """
        with self._api_call():
            rt = self._type_of(obj)
            created = self._create(rt, copy_tree(obj) if copy else obj, actor)
        return copy_tree(created) if copy else created

    def update(
        self,
        obj: dict[str, Any],
        *,
        actor: str = "scenario",
        subresource: str | None = None,
        copy: bool = True,
    ) -> dict[str, Any]:
        """Replace an object (PUT); Conflict when metadata.resourceVersion is set and stale.

        copy=False: as for create(), `obj` is handed over and the stored object returned.
        """
        with self._api_call():
            rt = self._type_of(obj)
            new = copy_tree(obj) if copy else obj
            meta = _metadata(new)
            key = self._key(rt, meta.get("namespace"), _name(meta))
            stored = self._store.get(rt, key)
            if stored is not None and (stored is obj or stored["metadata"] is obj.get("metadata")):
                raise ValueError(
                    "update() was given the stored object itself (from list(), objects() or a watch "
                    "event), which must not be mutated: copy it first with copy_tree()"
                )
            if rt.namespaced:
                meta["namespace"] = key[0]
            updated = self._update(rt, key, new, actor, subresource)
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
    ) -> dict[str, Any]:
        """Patch an object (merge, JSON or strategic merge patch; long or short type names)."""
        with self._api_call():
            rt = self.registry.lookup(api_version, kind)
            content_type = patch_kind(patch_type, self.registry.is_builtin(rt))
            key = self._key(rt, namespace, name)
            old = self._existing(rt, key)
            schema = schema_for(rt.group, rt.kind)
            new = apply_patch(copy_tree(old), patch, content_type, schema)
            meta = _metadata(new)
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
            new["apiVersion"], new["kind"] = old["apiVersion"], old["kind"]
            updated = self._update(rt, key, new, actor, subresource)
        return copy_tree(updated)

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
    ) -> dict[str, Any] | None:
        """Delete an object; returns it (a copy) while finalizers or a grace period keep it, else None."""
        if propagation_policy is not None and propagation_policy not in _POLICIES:
            raise BadRequest(
                f'propagationPolicy: Unsupported value: "{propagation_policy}": supported values: '
                + ", ".join(f'"{p}"' for p in _POLICIES)
            )
        if grace_period_seconds is not None and grace_period_seconds < 0:
            raise BadRequest(f"gracePeriodSeconds: Invalid value: {grace_period_seconds}: must be >= 0")
        with self._api_call():
            rt = self.registry.lookup(api_version, kind)
            key = self._key(rt, namespace, name)
            obj = self._existing(rt, key)
            remaining = self._delete_request(rt, key, obj, actor, propagation_policy, grace_period_seconds)
        return None if remaining is None else copy_tree(remaining)

    def bind(
        self, namespace: str, name: str, node_name: str, *, actor: str = "scheduler", copy: bool = True
    ) -> dict[str, Any]:
        """Bind a pod to a node (pods/binding): set spec.nodeName and the PodScheduled condition.

        copy=False returns the stored pod itself (read it, never mutate it).
        """
        with self._api_call():
            rt = self._pods
            key = (namespace or "default", name)
            pod = self._existing(rt, key)
            if self._admission:
                binding: dict[str, Any] | None = {
                    "apiVersion": "v1",
                    "kind": "Binding",
                    "metadata": {"name": name, "namespace": key[0]},
                    "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
                }
                binding = self._admit("CREATE", rt, key, binding, None, actor, "binding")
                node_name = str(((binding or {}).get("target") or {}).get("name", node_name))
            meta, spec = pod["metadata"], pod.get("spec") or {}
            if meta.get("deletionTimestamp"):
                raise self._binding_conflict(
                    name, f"pod {name} is being deleted, cannot be assigned to a host"
                )
            if spec.get("nodeName"):
                raise self._binding_conflict(
                    name, f'pod {name} is already assigned to node "{spec["nodeName"]}"'
                )
            if spec.get("schedulingGates"):
                raise self._binding_conflict(name, f"pod {name} has non-empty .spec.schedulingGates")
            bound = dict(pod)
            bound["metadata"] = dict(meta)
            bound["spec"] = {**spec, "nodeName": node_name}
            status = dict(pod.get("status") or {})
            status["conditions"] = update_pod_condition(status.get("conditions"), "PodScheduled", "True", self._now())
            bound["status"] = status
            self._commit(rt, key, bound, pod, actor, "binding")
        return copy_tree(bound) if copy else bound

    def reset(self) -> None:
        """Delete every object except CustomResourceDefinitions, silently, and start counting again.

        Registered kinds stay. Default namespaces are recreated. uids, resourceVersions and
        generated names restart where they would be right after the kept CRDs were created, so
        a scenario started after reset() always sees the same identities.
        """
        self._store.clear(keep=lambda rt: rt is CRD_TYPE)
        self._bus.discard()
        kept = [obj for _, obj in self._store.each([CRD_TYPE])]
        self._crd_serials = {
            o["metadata"]["uid"]: self._crd_serials.get(o["metadata"]["uid"], 0) for o in kept
        }
        self._rv = max((int(o["metadata"]["resourceVersion"]) for o in kept), default=0)
        self._uids.restart(max(self._crd_serials.values(), default=0))
        self._names.restart()
        self._create_default_namespaces()

    # --- request plumbing -------------------------------------------------------------

    def _now(self) -> str:
        """clock.timestamp(), formatted once per clock reading (thousands of writes share one)."""
        now = self.clock.now()
        if self._stamp is None or self._stamp[0] != now:
            self._stamp = (now, format_time(now))
        return self._stamp[1]

    @contextmanager
    def _api_call(self) -> Iterator[None]:
        """Deliver the events a request queued, also when it failed half-way."""
        try:
            yield
        except BaseException:
            try:
                self._bus.flush()
            except Exception:
                log.exception("a watch handler failed while a failed request's events were delivered")
            raise
        self._bus.flush()

    def _type_of(self, obj: Any) -> ResourceType:
        if type(obj) is not dict:
            raise BadRequest(f"the object must be a JSON object, not {type(obj).__name__}")
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(kind, str) or not kind:
            raise BadRequest(f"Object 'Kind' is missing in '{_short_json(obj)}'")
        if not isinstance(api_version, str) or not api_version:
            raise BadRequest(f"Object 'apiVersion' is missing in '{_short_json(obj)}'")
        return self.registry.lookup(api_version, kind)

    def _key(self, rt: ResourceType, namespace: str | None, name: str) -> Key:
        return ((namespace or "default") if rt.namespaced else "", name)

    def _existing(self, rt: ResourceType, key: Key) -> dict[str, Any]:
        obj = self._store.get(rt, key)
        if obj is None:
            raise NotFound(f'{rt.group_resource} "{key[1]}" not found')
        return obj

    def _admission_request(
        self,
        operation: str,
        rt: ResourceType,
        key: Key,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        actor: str,
        subresource: str | None,
        phase: str,
    ) -> AdmissionRequest:
        return AdmissionRequest(
            operation, rt, subresource, key[0] if rt.namespaced else None, key[1], obj, old, actor, phase
        )

    def _mutate(
        self,
        operation: str,
        rt: ResourceType,
        key: Key,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        actor: str,
        subresource: str | None,
    ) -> dict[str, Any]:
        """Run the registered mutating admitters; the result may be a new (patched) object."""
        if not self._admission:
            return obj
        mutated = self._admission.mutate(
            self._admission_request(operation, rt, key, obj, old, actor, subresource, MUTATING)
        )
        if mutated is None or mutated is obj:
            return obj
        _check_identity(mutated, obj)
        return mutated

    def _validate(
        self,
        operation: str,
        rt: ResourceType,
        key: Key,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        actor: str,
        subresource: str | None,
    ) -> None:
        """Run the registered validating admitters."""
        if self._admission:
            self._admission.validate(
                self._admission_request(operation, rt, key, obj, old, actor, subresource, VALIDATING)
            )

    def _admit(
        self,
        operation: str,
        rt: ResourceType,
        key: Key,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        actor: str,
        subresource: str | None,
    ) -> dict[str, Any] | None:
        """Both admission phases for requests without built-in steps between them (DELETE, binding)."""
        if not self._admission:
            return obj
        if obj is None:
            self._admission.mutate(
                self._admission_request(operation, rt, key, None, old, actor, subresource, MUTATING)
            )
        else:
            obj = self._mutate(operation, rt, key, obj, old, actor, subresource)
        self._validate(operation, rt, key, obj, old, actor, subresource)
        return obj

    # --- create -----------------------------------------------------------------------

    def _create(
        self, rt: ResourceType, obj: dict[str, Any], actor: str, *, quiet: bool = False
    ) -> dict[str, Any]:
        meta = _metadata(obj)
        if meta.get("resourceVersion"):
            raise BadRequest("resourceVersion should not be set on objects to be created")
        namespace = ""
        if rt.namespaced:
            namespace = meta.get("namespace") or "default"
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        name = meta.get("name") or ""
        if not isinstance(name, str):
            raise BadRequest(f"metadata.name must be a string, not {name!r}")
        generate = meta.get("generateName")
        if not name and generate:
            if not isinstance(generate, str):
                raise BadRequest(f"metadata.generateName must be a string, not {generate!r}")
            name = meta["name"] = self._generate_name(rt, namespace, generate)
        key = (namespace, name)
        if rt.namespaced:
            self._check_namespace_accepts(rt, namespace, name)
        strategies.apply_defaults(rt, obj)
        if rt is self._pods:
            self._admit_pod_priority(obj, None)
        mutated = self._mutate("CREATE", rt, key, obj, None, actor, None)
        if mutated is not obj:  # a patched object is decoded, and so defaulted, again
            obj = mutated
            strategies.apply_defaults(rt, obj)
        meta = obj["metadata"]
        uid, serial = self._uids.next()
        now = self._now()
        meta["uid"] = uid
        meta["creationTimestamp"] = now
        meta["generation"] = 1
        for field in ("deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion"):
            meta.pop(field, None)
        builtin = self.registry.is_builtin(rt)
        strategies.prepare_for_create(rt, obj, builtin, now)
        self._validate_object(rt, obj, None)
        self._validate("CREATE", rt, key, obj, None, actor, None)
        if self._store.get(rt, key) is not None:
            raise AlreadyExists(f'{rt.group_resource} "{name}" already exists')
        if rt is CRD_TYPE:
            self.registry.register_crd(obj)
            self._crd_serials[uid] = serial
        self._commit(rt, key, obj, None, actor, None, quiet=quiet)
        return obj

    def _generate_name(self, rt: ResourceType, namespace: str, base: str) -> str:
        for _ in range(100):
            candidate = self._names.generate(base)
            if self._store.get(rt, (namespace, candidate)) is None:
                return candidate
        raise AlreadyExists(
            f'{rt.group_resource} "{candidate}" already exists, the server was not able to '
            "generate a unique name for the object"
        )

    def _check_namespace_accepts(self, rt: ResourceType, namespace: str, name: str) -> None:
        """NamespaceLifecycle admission: the namespace must exist and not be terminating."""
        ns = self._store.get(self._namespaces, ("", namespace))
        if ns is None:
            raise NotFound(f'namespaces "{namespace}" not found')
        if ns["metadata"].get("deletionTimestamp"):
            raise Forbidden(
                f'{rt.group_resource} "{name}" is forbidden: unable to create new content in '
                f"namespace {namespace} because it is being terminated"
            )

    def _admit_pod_priority(self, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        bucket = self._store.buckets.get(("scheduling.k8s.io", "PriorityClass"))
        classes = bucket.objects if bucket is not None else {}
        priority.admit_pod_priority(pod, old, lambda n: classes.get(("", n)), classes.values())

    def _validate_object(self, rt: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        meta = obj["metadata"]
        errs = validate_object_meta(meta, name_check_for(rt.group, rt.kind), old["metadata"] if old else None)
        errs.extend(strategies.validate_kind(rt, obj))
        if errs:
            raise invalid_error(rt.group_kind, str(meta.get("name") or ""), errs)
        if rt is self._priority_classes:
            bucket = self._store.buckets.get(("scheduling.k8s.io", "PriorityClass"))
            others = [
                pc
                for pc in (bucket.objects.values() if bucket else ())
                if pc["metadata"]["name"] != meta["name"]
            ]
            priority.validate_priority_class(obj, others, creating=old is None)
        if rt is CRD_TYPE:
            crd_resource_type(obj)

    # --- update -----------------------------------------------------------------------

    def _update(
        self, rt: ResourceType, key: Key, new: dict[str, Any], actor: str, subresource: str | None
    ) -> dict[str, Any]:
        old = self._existing(rt, key)
        meta, old_meta = new["metadata"], old["metadata"]
        rv = meta.get("resourceVersion")
        if rv and rv != old_meta.get("resourceVersion"):
            raise Conflict(
                f'Operation cannot be fulfilled on {rt.group_resource} "{key[1]}": the object has been '
                "modified; please apply your changes to the latest version and try again"
            )
        if subresource == "status":
            if not rt.status_subresource:
                raise NotFound(_NO_RESOURCE)
            status = new.get("status", _MISSING)
            new = dict(old)
            new["metadata"] = meta = dict(old_meta)
            if status is _MISSING:
                new.pop("status", None)
            else:
                new["status"] = status
        elif subresource is not None:
            raise NotFound(_NO_RESOURCE)
        else:
            if rt.status_subresource:
                if "status" in old:
                    new["status"] = old["status"]
                else:
                    new.pop("status", None)
            for field in _SYSTEM_FIELDS:
                if field in old_meta:
                    meta[field] = old_meta[field]
                else:
                    meta.pop(field, None)
            meta["name"] = key[1]
            if rt.namespaced:
                meta["namespace"] = key[0]
            else:
                meta.pop("namespace", None)
            strategies.apply_defaults(rt, new)
            if rt is self._pods:
                self._admit_pod_priority(new, old)
        mutated = self._mutate("UPDATE", rt, key, new, old, actor, subresource)
        if mutated is not new:
            new = mutated
            if subresource is None:
                strategies.apply_defaults(rt, new)
        meta = new["metadata"]
        if subresource is None:
            self._validate_object(rt, new, old)
        self._validate("UPDATE", rt, key, new, old, actor, subresource)
        if subresource is None:
            changed = any(
                new.get(k) != old.get(k)
                for k in new.keys() | old.keys()
                if k not in ("metadata", "status", "apiVersion", "kind")
            )
            meta["generation"] = old_meta.get("generation", 1) + (1 if changed else 0)
        meta["resourceVersion"] = old_meta.get("resourceVersion")
        if new == old:
            return old
        if rt is CRD_TYPE and subresource is None:
            self.registry.register_crd(new)
        self._commit(rt, key, new, old, actor, subresource)
        return new

    def _commit(
        self,
        rt: ResourceType,
        key: Key,
        new: dict[str, Any],
        old: dict[str, Any] | None,
        actor: str,
        subresource: str | None,
        *,
        quiet: bool = False,
    ) -> None:
        """Store a write (a new resourceVersion) and queue its event; an update that removes
        the last finalizer of an object being deleted deletes it instead (DELETED only)."""
        if old is not None and _finalized(new, old):
            self._remove(rt, key, old, actor, final=new)
            return
        self._rv += 1
        new["metadata"]["resourceVersion"] = str(self._rv)
        self._store.put(rt, key, new, old)
        if not quiet:
            self._bus.publish(WatchEvent(ADDED if old is None else MODIFIED, new, old, actor, subresource))
        if old is not None and old["metadata"].get("ownerReferences") != new["metadata"].get(
            "ownerReferences"
        ):
            for owner in owner_uids(old):  # a dependent let go of an owner waiting for it
                self._finish_foreground_deletion(owner)

    # --- delete -----------------------------------------------------------------------

    def _delete_request(
        self,
        rt: ResourceType,
        key: Key,
        obj: dict[str, Any],
        actor: str,
        policy: str | None,
        grace: int | None,
    ) -> dict[str, Any] | None:
        """A DELETE as the API receives it: admission first, then the deletion itself."""
        if rt is self._namespaces and key[1] in _UNDELETABLE_NAMESPACES:
            raise Forbidden(f'namespaces "{key[1]}" is forbidden: this namespace may not be deleted')
        self._admit("DELETE", rt, key, None, obj, actor, None)
        return self._delete(rt, key, obj, actor, policy, grace)

    def _delete(
        self,
        rt: ResourceType,
        key: Key,
        obj: dict[str, Any],
        actor: str,
        policy: str | None,
        grace: int | None,
    ) -> dict[str, Any] | None:
        """Delete a stored object; returns what remains stored (None once it is gone)."""
        if rt is self._namespaces:
            return self._delete_namespace(key, obj, actor)
        if rt is CRD_TYPE:
            self._delete_custom_resources(obj)
        if policy is None:
            policy = _ORPHAN if (rt.group, rt.kind) in _ORPHAN_BY_DEFAULT else _BACKGROUND
        meta = obj["metadata"]
        uid = meta["uid"]
        if rt is self._pods and self.graceful_pod_deletion:
            period = _grace_period(obj, grace)
            if period > 0:
                return self._delete_gracefully(rt, key, obj, actor, period, policy)
        if policy == _ORPHAN:
            self._orphan_dependents(uid)
        finalizers = list(meta.get("finalizers") or ())
        if meta.get("deletionTimestamp"):
            if meta.get("deletionGracePeriodSeconds"):  # a graceful deletion ends now (grace period 0)
                if not finalizers:
                    self._remove(rt, key, obj, actor)
                    return None
                marked = self._marked(obj, finalizers, self._now())
                self._commit(rt, key, marked, obj, actor, None)
                return marked
            if policy == _FOREGROUND and _FOREGROUND_FINALIZER not in finalizers:
                self._commit(
                    rt,
                    key,
                    self._marked(obj, [*finalizers, _FOREGROUND_FINALIZER], meta["deletionTimestamp"]),
                    obj,
                    actor,
                    None,
                )
                self._delete_dependents_in_foreground(uid)
            return self._store.get(rt, key)
        if policy == _FOREGROUND:
            if _FOREGROUND_FINALIZER not in finalizers:
                finalizers.append(_FOREGROUND_FINALIZER)
            self._commit(rt, key, self._marked(obj, finalizers, self._now()), obj, actor, None)
            self._delete_dependents_in_foreground(uid)
            return self._store.get(rt, key)
        if finalizers:
            marked = self._marked(obj, finalizers, self._now())
            self._commit(rt, key, marked, obj, actor, None)
            return marked
        self._remove(rt, key, obj, actor)
        return None

    def _marked(
        self, obj: dict[str, Any], finalizers: builtins.list[str], when: str, grace: int = 0
    ) -> dict[str, Any]:
        """A copy of `obj` marked for deletion (new metadata; other fields shared)."""
        marked = dict(obj)
        meta = marked["metadata"] = dict(obj["metadata"])
        meta["deletionTimestamp"] = when
        meta["deletionGracePeriodSeconds"] = grace
        if finalizers:
            meta["finalizers"] = finalizers
        return marked

    def _delete_gracefully(
        self, rt: ResourceType, key: Key, pod: dict[str, Any], actor: str, period: int, policy: str
    ) -> dict[str, Any]:
        """Mark a bound pod for deletion after `period` seconds (shortening only), as kubelets expect."""
        meta = pod["metadata"]
        current = meta.get("deletionGracePeriodSeconds")
        if meta.get("deletionTimestamp") and current is not None and current <= period:
            return pod
        if policy == _ORPHAN:
            self._orphan_dependents(meta["uid"])
        when = format_time(self.clock.now() + timedelta(seconds=period))
        marked = self._marked(pod, list(meta.get("finalizers") or ()), when, period)
        self._commit(rt, key, marked, pod, actor, None)
        return marked

    def _remove(
        self,
        rt: ResourceType,
        key: Key,
        old: dict[str, Any],
        actor: str,
        *,
        final: dict[str, Any] | None = None,
    ) -> None:
        """Take an object out of the store (DELETED event), then collect what depended on it."""
        gone = dict(final if final is not None else old)
        gone["metadata"] = dict(gone["metadata"])
        self._rv += 1
        gone["metadata"]["resourceVersion"] = str(self._rv)
        self._store.remove(rt, key, old)
        self._bus.publish(WatchEvent(DELETED, gone, old, actor, None))
        meta = gone["metadata"]
        if rt is CRD_TYPE:
            self.registry.unregister(*crd_group_kind(gone))
            self._crd_serials.pop(meta["uid"], None)
        for dep_rt, dep_key in self._store.dependents(meta["uid"]):
            dep = self._store.get(dep_rt, dep_key)
            if dep is not None:
                self._collect(dep_rt, dep_key, dep)
        for owner in sorted(set(owner_uids(old)) | set(owner_uids(gone))):
            self._finish_foreground_deletion(owner)
        if rt.namespaced:
            self._finish_namespace(key[0])

    # --- garbage collection -------------------------------------------------------------

    def _collect(self, rt: ResourceType, key: Key, obj: dict[str, Any]) -> None:
        """Garbage-collect one dependent whose owner went away or waits for it (attemptToDeleteItem)."""
        meta = obj["metadata"]
        if meta.get("deletionTimestamp"):
            return
        solid, dangling = [], []
        waiting: list[str] = []
        for ref in meta.get("ownerReferences") or ():
            found = self._store.by_uid(ref.get("uid", ""))
            if found is None:
                dangling.append(ref["uid"])
            elif _deleting_dependents(found[1]):
                waiting.append(ref["uid"])
            else:
                solid.append(ref["uid"])
        try:
            if solid:
                if dangling or waiting:
                    self._drop_owner_references(rt, key, obj, set(dangling + waiting))
                return
            finalizers = meta.get("finalizers") or ()
            if waiting and self._store.has_dependents(meta["uid"]):
                policy = _FOREGROUND
            elif _ORPHAN_FINALIZER in finalizers:
                policy = _ORPHAN
            elif _FOREGROUND_FINALIZER in finalizers:
                policy = _FOREGROUND
            else:
                policy = _BACKGROUND
            self._delete_request(rt, key, obj, _GC, policy, None)
        except ApiError as exc:  # the real collector would retry; here the object just stays
            log.warning(
                "garbage collection failed", kind=rt.kind, name=key[1], namespace=key[0], error=str(exc)
            )

    def _drop_owner_references(self, rt: ResourceType, key: Key, obj: dict[str, Any], uids: set[str]) -> None:
        new = copy_tree(obj)
        refs = [r for r in new["metadata"].get("ownerReferences") or () if r.get("uid") not in uids]
        if refs:
            new["metadata"]["ownerReferences"] = refs
        else:
            new["metadata"].pop("ownerReferences", None)
        self._update(rt, key, new, _GC, None)

    def _orphan_dependents(self, uid: str) -> None:
        """Remove the owner's references from its dependents (propagationPolicy Orphan)."""
        for dep_rt, dep_key in self._store.dependents(uid):
            dep = self._store.get(dep_rt, dep_key)
            if dep is None:
                continue
            try:
                self._drop_owner_references(dep_rt, dep_key, dep, {uid})
            except ApiError as exc:
                log.warning("orphaning failed", kind=dep_rt.kind, name=dep_key[1], error=str(exc))

    def _delete_dependents_in_foreground(self, uid: str) -> None:
        """Delete every dependent of an owner being deleted in the foreground, then finish it if free."""
        for dep_rt, dep_key in self._store.dependents(uid):
            dep = self._store.get(dep_rt, dep_key)
            if dep is not None:
                self._collect(dep_rt, dep_key, dep)
        self._finish_foreground_deletion(uid)

    def _finish_foreground_deletion(self, uid: str) -> None:
        """Drop the foregroundDeletion finalizer once no dependent blocks the owner any more."""
        found = self._store.by_uid(uid)
        if found is None or not _deleting_dependents(found[1]):
            return
        rt, owner = found

        def blocks(dep: dict[str, Any]) -> bool:
            return any(
                r.get("uid") == uid and r.get("blockOwnerDeletion")
                for r in dep["metadata"].get("ownerReferences") or ()
            )

        if self._store.any_dependent(uid, blocks):
            return
        new = copy_tree(owner)
        finalizers = [f for f in new["metadata"]["finalizers"] if f != _FOREGROUND_FINALIZER]
        if finalizers:
            new["metadata"]["finalizers"] = finalizers
        else:
            new["metadata"].pop("finalizers")
        key = self._key(rt, owner["metadata"].get("namespace"), owner["metadata"]["name"])
        try:
            self._update(rt, key, new, _GC, None)
        except ApiError as exc:
            log.warning("removing the foregroundDeletion finalizer failed", kind=rt.kind, error=str(exc))

    # --- namespaces and CRDs --------------------------------------------------------------

    def _delete_namespace(self, key: Key, ns: dict[str, Any], actor: str) -> dict[str, Any] | None:
        """Mark a namespace Terminating, delete its contents (namespace controller), then remove it."""
        if not ns["metadata"].get("deletionTimestamp"):
            marked = self._marked(ns, list(ns["metadata"].get("finalizers") or ()), self._now())
            marked["status"] = {**(ns.get("status") or {}), "phase": "Terminating"}
            self._commit(self._namespaces, key, marked, ns, actor, None)
        name = key[1]
        for rt in self.registry.types():
            if not rt.namespaced:
                continue
            bucket = self._store.buckets.get((rt.group, rt.kind))
            if bucket is None or name not in bucket.namespaces:
                continue
            for obj in bucket.values(name):
                obj_key = (name, obj["metadata"]["name"])
                current = self._store.get(rt, obj_key)
                if current is None or current["metadata"].get("deletionTimestamp"):
                    continue
                try:
                    self._delete_request(rt, obj_key, current, _NAMESPACE_CONTROLLER, _BACKGROUND, None)
                except ApiError as exc:
                    log.warning("namespace cleanup failed", kind=rt.kind, name=obj_key[1], error=str(exc))
        self._finish_namespace(name)
        return self._store.get(self._namespaces, key)

    def _finish_namespace(self, name: str) -> None:
        """Remove a terminating namespace once nothing is left in it."""
        key = ("", name)
        ns = self._store.get(self._namespaces, key)
        if ns is None or not ns["metadata"].get("deletionTimestamp") or ns["metadata"].get("finalizers"):
            return
        for bucket in self._store.buckets.values():
            if bucket.rt.namespaced and name in bucket.namespaces:
                return
        self._remove(self._namespaces, key, ns, _NAMESPACE_CONTROLLER)

    def _delete_custom_resources(self, crd: dict[str, Any]) -> None:
        """Delete every instance of a CRD's kind before the CRD goes (the CRD finalizer's job)."""
        group, kind = crd_group_kind(crd)
        rt = self.registry.get(group, kind)
        bucket = self._store.buckets.get((group, kind))
        if rt is None or bucket is None:
            return
        for obj in bucket.values():
            key = (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
            if self._store.get(rt, key) is not None:
                self._remove(rt, key, obj, "apiextensions-controller")

    def _create_default_namespaces(self) -> None:
        for name in DEFAULT_NAMESPACES:
            self._create(
                self._namespaces,
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                "system",
                quiet=True,
            )

    @staticmethod
    def _binding_conflict(name: str, reason: str) -> Conflict:
        return Conflict(f'Operation cannot be fulfilled on pods/binding "{name}": {reason}')


_MISSING = object()


def _metadata(obj: dict[str, Any]) -> dict[str, Any]:
    """The object's metadata, checked for the types decoding would insist on (BadRequest)."""
    meta = obj.get("metadata")
    if meta is None:
        meta = obj["metadata"] = {}
    elif type(meta) is not dict:
        raise BadRequest(f"metadata must be an object, not {type(meta).__name__}")
    for field in ("labels", "annotations"):
        values = meta.get(field)
        if values is None:
            continue
        if type(values) is not dict or not all(type(k) is str and type(v) is str for k, v in values.items()):
            raise BadRequest(f"metadata.{field} must map strings to strings")
    finalizers = meta.get("finalizers")
    if finalizers is not None and (
        type(finalizers) is not list or not all(type(f) is str for f in finalizers)
    ):
        raise BadRequest("metadata.finalizers must be a list of strings")
    refs = meta.get("ownerReferences")
    if refs is not None and (type(refs) is not list or not all(type(r) is dict for r in refs)):
        raise BadRequest("metadata.ownerReferences must be a list of objects")
    return meta


def _name(meta: dict[str, Any]) -> str:
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise BadRequest("metadata.name is required for an update")
    return name


def _short_json(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, default=str)
    return text if len(text) <= 200 else text[:197] + "..."


def _check_identity(mutated: dict[str, Any], original: dict[str, Any] | None) -> None:
    """Mutating admitters may not move an object to another kind, name or namespace."""
    if original is None:
        return
    before = (
        original.get("apiVersion"),
        original.get("kind"),
        (original.get("metadata") or {}).get("name"),
        (original.get("metadata") or {}).get("namespace"),
    )
    meta = mutated.get("metadata")
    after = (
        mutated.get("apiVersion"),
        mutated.get("kind"),
        meta.get("name") if type(meta) is dict else None,
        meta.get("namespace") if type(meta) is dict else None,
    )
    if before != after:
        raise BadRequest(f"a mutating admitter changed the object's identity from {before} to {after}")


def _grace_period(pod: dict[str, Any], requested: int | None) -> int:
    """How long a pod's deletion waits (podStrategy.CheckGracefulDelete)."""
    if not (pod.get("spec") or {}).get("nodeName"):
        return 0
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return 0
    if requested is not None:
        return requested
    period = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    return 30 if period is None else int(period)


def _deleting_dependents(obj: dict[str, Any]) -> bool:
    meta = obj["metadata"]
    return bool(meta.get("deletionTimestamp")) and _FOREGROUND_FINALIZER in (meta.get("finalizers") or ())


def _finalized(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """shouldDeleteDuringUpdate: the last finalizer is gone from an object being deleted."""
    old_meta = old["metadata"]
    if new["metadata"].get("finalizers") or not old_meta.get("deletionTimestamp"):
        return False
    return not old_meta.get("deletionGracePeriodSeconds")
