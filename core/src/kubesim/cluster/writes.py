"""The write path: create, update, delete and bind with API-server semantics over one object store.

Follows k8s.io/apiserver pkg/registry/generic/registry/store.go (Create, Update, Delete with
graceful deletion and finalizers, deletion-propagation finalizers) and, for pods/binding,
k8s.io/kubernetes pkg/registry/core/pod/storage/storage.go (BindingREST, assignPod). Each
write runs built-in defaulting and admission, the registered mutating admitters, validation,
the validating admitters, then the commit (resourceVersion from one counter) and its watch
event. The garbage collector, the namespace lifecycle and the CRD finalizer react to the
writes synchronously, through the objects this store owns.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from kubesim.clock import Clock, format_time
from kubesim.errors import AlreadyExists, BadRequest, Conflict, NotFound
from kubesim.k8s.conditions import update_pod_condition
from kubesim.k8s.decoding import decode_error, metadata_decoding_message
from kubesim.k8s.validation import invalid_error, name_check_for, validate_object_meta
from kubesim.k8s.values import json_kind, show_value

from . import priority, storage_class, strategies
from .admission import AdmissionChain, write_request
from .crds import CustomResourceDefinitions
from .events import ADDED, DELETED, MODIFIED, EventBus, WatchEvent
from .garbage_collection import (
    BACKGROUND,
    FOREGROUND,
    FOREGROUND_FINALIZER,
    ORPHAN,
    ORPHAN_BY_DEFAULT,
    GarbageCollector,
)
from .identity import NameGenerator, UidSource
from .namespaces import NamespaceLifecycle
from .registry import CRD_TYPE, ResourceRegistry, ResourceType, crd_resource_type
from .store import Key, ObjectStore, owner_uids

__all__ = ["GenericStore", "checked_metadata", "status_details"]

_SYSTEM_FIELDS = ("creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation")
"""Reset from the stored object on update (rest.BeforeUpdate); a uid is kept only when absent."""
_NO_RESOURCE = "the server could not find the requested resource"
_MISSING = object()


class GenericStore:
    """Every stored object, the counters that identify writes, and the write operations on them.

    Methods take an already looked-up ResourceType and key; the `Cluster` facade decodes
    requests and delivers the queued watch events once a request is over.
    """

    graceful_pod_deletion: bool
    """When True, deleting a pod bound to a node only marks it (deletionTimestamp) until a
    delete with grace period 0, as a kubelet would finish it. False: pods go at once."""

    def __init__(self, registry: ResourceRegistry, clock: Clock, seed: int) -> None:
        self.registry = registry
        self.clock = clock
        self.graceful_pod_deletion = False
        self.dry_run = False
        """While True (inside dry_running()), writes are checked and admitted but never committed."""
        self.store = ObjectStore()
        self.bus = EventBus()
        self.admission = AdmissionChain()
        self._uids = UidSource()
        self._names = NameGenerator(seed)
        self._rv = 0
        self._stamp: tuple[datetime, str] | None = None
        self._pods = registry.lookup("v1", "Pod")
        self._priority_classes = registry.lookup("scheduling.k8s.io/v1", "PriorityClass")
        self.gc = GarbageCollector(self)
        self.namespaces = NamespaceLifecycle(self)
        self.crds = CustomResourceDefinitions(self)
        self._namespace_rt = self.namespaces.rt
        self.namespaces.create_defaults()

    def reset(self) -> None:
        """Delete every object except CRDs, silently; counters restart right after the kept CRDs."""
        self.store.clear(keep=lambda rt: rt is CRD_TYPE)
        self.bus.discard()
        self._rv, serial = self.crds.kept()
        self._uids.restart(serial)
        self._names.restart()
        self.namespaces.create_defaults()

    def counters(self) -> dict[str, Any]:
        """resourceVersion, uid serial and the generated names' random state, as JSON data."""
        return {"resourceVersion": self._rv, "uidSerial": self._uids.serial,
                "names": json_state(self._names.state())}

    def restore_counters(self, counters: dict[str, Any]) -> None:
        """Continue from `counters()`."""
        self._rv = int(counters["resourceVersion"])
        self._uids.restart(int(counters["uidSerial"]))
        version, internal, gauss = counters["names"]
        self._names.set_state((version, tuple(internal), gauss))

    @contextmanager
    def dry_running(self) -> Iterator[None]:
        """Run writes as dryRun=All: every check and admitter, no commit, no event, and the uid
        and generated-name sequences left where they were (so later writes are unchanged)."""
        serial, names = self._uids.serial, self._names.state()
        self.dry_run = True
        try:
            yield
        finally:
            self.dry_run = False
            self._uids.serial = serial
            self._names.set_state(names)

    @property
    def resource_version(self) -> int:
        """The resourceVersion of the latest write (what a list returns as its own)."""
        return self._rv

    # --- shared plumbing --------------------------------------------------------------

    def now(self) -> str:
        """clock.timestamp(), formatted once per clock reading (thousands of writes share one)."""
        now = self.clock.now()
        if self._stamp is None or self._stamp[0] != now:
            self._stamp = (now, format_time(now))
        return self._stamp[1]

    def key(self, rt: ResourceType, namespace: str | None, name: str) -> Key:
        """The store key of a request's object; namespaced kinds default to "default"."""
        return ((namespace or "default") if rt.namespaced else "", name)

    def existing(self, rt: ResourceType, key: Key) -> dict[str, Any]:
        """The stored object; NotFound when it does not exist."""
        obj = self.store.get(rt, key)
        if obj is None:
            raise NotFound(f'{rt.group_resource} "{key[1]}" not found', details=status_details(rt, key[1]))
        return obj

    def decoded(
        self, rt: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None, field_validation: str
    ) -> dict[str, Any]:
        """Decode a request body as the API server does first (BadRequest); returns its metadata.

        Built-in kinds are checked whole against their OpenAPI definition (kubesim.k8s.decoding);
        custom resources only in their metadata (their schemas are their CRDs'). `old` is the
        stored object an update replaces: subtrees shared with it were checked already. Unknown
        fields are an error only with fieldValidation Strict (Ignore or Warn drops them).
        """
        if not self.registry.is_builtin(rt):
            return checked_metadata(rt, obj, old)
        error = decode_error(rt.group, rt.version, rt.kind, obj, old, strict=field_validation == "Strict")
        if error is not None:
            raise error
        return _metadata_of(obj)

    # --- create -----------------------------------------------------------------------

    def create(
        self, rt: ResourceType, obj: dict[str, Any], actor: str, *, quiet: bool = False,
        field_validation: str = "Strict",
    ) -> dict[str, Any]:
        """Store a new object (`obj` is taken over); quiet=True publishes no event."""
        meta = self.decoded(rt, obj, None, field_validation)
        if meta.get("resourceVersion"):
            raise BadRequest("resourceVersion should not be set on objects to be created")
        namespace = ""
        if rt.namespaced:
            namespace = meta.get("namespace") or "default"
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        name = meta.get("name") or ""  # decoded: a string (or null)
        generate = meta.get("generateName")
        if not name and generate:
            name = meta["name"] = self._generate_name(rt, namespace, generate)
        key = (namespace, name)
        if rt.namespaced:
            self.namespaces.check_accepts(rt, namespace, name)
        strategies.apply_defaults(rt, obj, field_validation)
        if rt is self._pods:
            self._admit_pod_priority(obj, None)
        elif (rt.group, rt.kind) == ("", "PersistentVolumeClaim"):
            bucket = self.store.buckets.get(("storage.k8s.io", "StorageClass"))
            storage_class.admit_claim_default_class(obj, bucket.objects.values() if bucket is not None else ())
        admitting = (write_request("CREATE", rt, key, obj, None, actor, None)
                     if self.admission.applies(rt, "CREATE", None) else None)
        if admitting is not None:
            mutated = self.admission.mutate_object(admitting)
            if mutated is not obj:  # a patched object is decoded, and so defaulted, again
                obj = mutated
                strategies.apply_defaults(rt, obj, field_validation)
        meta = obj["metadata"]
        uid, serial = self._uids.next()
        now = self.now()
        meta["uid"] = uid
        meta["creationTimestamp"] = now
        meta["generation"] = 1
        for field in ("deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion"):
            meta.pop(field, None)
        builtin = self.registry.is_builtin(rt)
        strategies.prepare_for_create(rt, obj, builtin, now)
        self._validate_object(rt, obj, None)
        if admitting is not None:
            self.admission.validate(admitting, obj)
        if self.store.get(rt, key) is not None:
            raise AlreadyExists(f'{rt.group_resource} "{name}" already exists',
                                details=status_details(rt, name))
        if self.dry_run:
            return obj
        if rt is CRD_TYPE:
            self.crds.created(obj, serial)
        self.commit(rt, key, obj, None, actor, None, quiet=quiet)
        return obj

    def _generate_name(self, rt: ResourceType, namespace: str, base: str) -> str:
        for _ in range(100):
            candidate = self._names.generate(base)
            if self.store.get(rt, (namespace, candidate)) is None:
                return candidate
        raise AlreadyExists(
            f'{rt.group_resource} "{candidate}" already exists, the server was not able to '
            "generate a unique name for the object"
        )

    def _admit_pod_priority(self, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        bucket = self.store.buckets.get(("scheduling.k8s.io", "PriorityClass"))
        classes = bucket.objects if bucket is not None else {}
        priority.admit_pod_priority(pod, old, lambda n: classes.get(("", n)), classes.values())

    def _validate_object(self, rt: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        meta = obj["metadata"]
        errs = validate_object_meta(meta, name_check_for(rt.group, rt.kind), old["metadata"] if old else None)
        if old is None:
            errs.extend(strategies.validate_kind(rt, obj))
        else:
            errs.extend(strategies.validate_kind_update(rt, obj, old))
        if errs:
            raise invalid_error(rt.group_kind, str(meta.get("name") or ""), errs)
        if rt is self._priority_classes:
            bucket = self.store.buckets.get(("scheduling.k8s.io", "PriorityClass"))
            others = [
                pc
                for pc in (bucket.objects.values() if bucket else ())
                if pc["metadata"]["name"] != meta["name"]
            ]
            priority.validate_priority_class(obj, others, creating=old is None)
        if rt is CRD_TYPE:
            crd_resource_type(obj)

    # --- update -----------------------------------------------------------------------

    def update(
        self, rt: ResourceType, key: Key, new: dict[str, Any], actor: str, subresource: str | None,
        field_validation: str = "Strict",
    ) -> dict[str, Any]:
        """Replace a stored object (`new` is taken over); returns what is stored afterwards."""
        self.decoded(rt, new, self.store.get(rt, key), field_validation)
        old = self.existing(rt, key)
        meta, old_meta = new["metadata"], old["metadata"]
        rv = meta.get("resourceVersion")
        if rv and rv != old_meta.get("resourceVersion"):
            raise Conflict(
                f'Operation cannot be fulfilled on {rt.group_resource} "{key[1]}": the object has been '
                "modified; please apply your changes to the latest version and try again",
                details=status_details(rt, key[1]),
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
                if rt.custom is not None:  # the request body is decoded: status pruned, defaulted
                    rt.custom.decode(new, "status", field_validation)
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
            if not meta.get("uid"):  # a different uid is refused by validation (field is immutable)
                meta["uid"] = old_meta.get("uid")
            meta["name"] = key[1]
            if rt.namespaced:
                meta["namespace"] = key[0]
            else:
                meta.pop("namespace", None)
            strategies.apply_defaults(rt, new, field_validation)
            if rt is self._pods:
                self._admit_pod_priority(new, old)
        admitting = (write_request("UPDATE", rt, key, new, old, actor, subresource)
                     if self.admission.applies(rt, "UPDATE", subresource) else None)
        if admitting is not None:
            mutated = self.admission.mutate_object(admitting)
            if mutated is not new:
                new = mutated
                if subresource is None:
                    strategies.apply_defaults(rt, new, field_validation)
        meta = new["metadata"]
        if subresource is None:
            self._validate_object(rt, new, old)
        elif subresource == "status":
            errs = strategies.validate_status_update(rt, new, old)
            if errs:
                raise invalid_error(rt.group_kind, key[1], errs)
        if admitting is not None:
            self.admission.validate(admitting, new)
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
        if self.dry_run:
            return new
        if rt is CRD_TYPE and subresource is None:
            self.crds.updated(new)
        self.commit(rt, key, new, old, actor, subresource)
        return new

    def commit(
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
            self.remove(rt, key, old, actor, final=new)
            return
        self._rv += 1
        new["metadata"]["resourceVersion"] = str(self._rv)
        self.store.put(rt, key, new, old)
        if not quiet:
            self.bus.publish(WatchEvent(ADDED if old is None else MODIFIED, new, old, actor, subresource))
        if old is not None and old["metadata"].get("ownerReferences") != new["metadata"].get(
            "ownerReferences"
        ):
            for owner in owner_uids(old):  # a dependent let go of an owner waiting for it
                self.gc.finish_foreground_deletion(owner)

    # --- bind -------------------------------------------------------------------------

    def bind(self, namespace: str, name: str, node_name: str, actor: str) -> dict[str, Any]:
        """pods/binding: set spec.nodeName and the PodScheduled condition; returns the stored pod."""
        rt = self._pods
        key = (namespace or "default", name)
        pod = self.existing(rt, key)
        if self.admission.applies(rt, "CREATE", "binding"):
            binding: dict[str, Any] | None = {
                "apiVersion": "v1",
                "kind": "Binding",
                "metadata": {"name": name, "namespace": key[0]},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
            }
            binding = self.admission.admit(write_request("CREATE", rt, key, binding, None, actor, "binding"))
            node_name = str(((binding or {}).get("target") or {}).get("name", node_name))
        meta, spec = pod["metadata"], pod.get("spec") or {}
        if meta.get("deletionTimestamp"):
            raise _binding_conflict(name, f"pod {name} is being deleted, cannot be assigned to a host")
        if spec.get("nodeName"):
            raise _binding_conflict(name, f'pod {name} is already assigned to node "{spec["nodeName"]}"')
        if spec.get("schedulingGates"):
            raise _binding_conflict(name, f"pod {name} has non-empty .spec.schedulingGates")
        bound = dict(pod)
        bound["metadata"] = dict(meta)
        bound["spec"] = {**spec, "nodeName": node_name}
        status = dict(pod.get("status") or {})
        conditions = status.get("conditions")
        status["conditions"] = update_pod_condition(conditions, "PodScheduled", "True", self.now())
        bound["status"] = status
        if not self.dry_run:
            self.commit(rt, key, bound, pod, actor, "binding")
        return bound

    # --- delete -----------------------------------------------------------------------

    def delete_request(
        self,
        rt: ResourceType,
        key: Key,
        obj: dict[str, Any],
        actor: str,
        policy: str | None,
        grace: int | None,
    ) -> dict[str, Any] | None:
        """A DELETE as the API receives it: admission, then the deletion; returns what remains
        stored (None once the object is gone)."""
        if rt is self._namespace_rt:
            self.namespaces.check_deletable(key[1])
        if self.admission.applies(rt, "DELETE", None):
            self.admission.admit(write_request("DELETE", rt, key, None, obj, actor, None))
        if self.dry_run:  # the would-be result, without deleting anything (nor the dependents)
            return self._dry_run_delete(rt, obj, policy, grace)
        if rt is self._namespace_rt:
            return self.namespaces.delete(key, obj, actor)
        if rt is CRD_TYPE:
            self.crds.delete_instances(obj)
        if policy is None:
            policy = ORPHAN if (rt.group, rt.kind) in ORPHAN_BY_DEFAULT else BACKGROUND
        meta = obj["metadata"]
        uid = meta["uid"]
        if rt is self._pods and self.graceful_pod_deletion:
            period = _grace_period(obj, grace)
            if period > 0:
                return self._delete_gracefully(rt, key, obj, actor, period, policy)
        if policy == ORPHAN:
            self.gc.orphan_dependents(uid)
        finalizers = list(meta.get("finalizers") or ())
        if meta.get("deletionTimestamp"):
            if meta.get("deletionGracePeriodSeconds"):  # a graceful deletion ends now (grace period 0)
                if not finalizers:
                    self.remove(rt, key, obj, actor)
                    return None
                marked = self.marked(obj, finalizers, self.now())
                self.commit(rt, key, marked, obj, actor, None)
                return marked
            if policy == FOREGROUND and FOREGROUND_FINALIZER not in finalizers:
                self.commit(
                    rt,
                    key,
                    self.marked(obj, [*finalizers, FOREGROUND_FINALIZER], meta["deletionTimestamp"]),
                    obj,
                    actor,
                    None,
                )
                self.gc.delete_dependents_in_foreground(uid)
            return self.store.get(rt, key)
        if policy == FOREGROUND:
            if FOREGROUND_FINALIZER not in finalizers:
                finalizers.append(FOREGROUND_FINALIZER)
            self.commit(rt, key, self.marked(obj, finalizers, self.now()), obj, actor, None)
            self.gc.delete_dependents_in_foreground(uid)
            return self.store.get(rt, key)
        if finalizers:
            marked = self.marked(obj, finalizers, self.now())
            self.commit(rt, key, marked, obj, actor, None)
            return marked
        self.remove(rt, key, obj, actor)
        return None

    def _dry_run_delete(
        self, rt: ResourceType, obj: dict[str, Any], policy: str | None, grace: int | None
    ) -> dict[str, Any] | None:
        """What a delete would leave stored: the object marked while finalizers, a foreground
        deletion, a namespace's contents or a pod's grace period keep it; None when it would go."""
        meta = obj["metadata"]
        finalizers = list(meta.get("finalizers") or ())
        if policy == FOREGROUND and FOREGROUND_FINALIZER not in finalizers:
            finalizers.append(FOREGROUND_FINALIZER)
        if rt is self._namespace_rt:
            finalizers = finalizers or ["kubernetes"]
        if rt is self._pods and self.graceful_pod_deletion and (period := _grace_period(obj, grace)) > 0:
            return self.marked(obj, finalizers, format_time(_later(self.clock.now(), period)), period)
        if meta.get("deletionTimestamp"):
            return obj if finalizers and not meta.get("deletionGracePeriodSeconds") else None
        return self.marked(obj, finalizers, self.now()) if finalizers else None

    def marked(self, obj: dict[str, Any], finalizers: list[str], when: str, grace: int = 0) -> dict[str, Any]:
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
        if policy == ORPHAN:
            self.gc.orphan_dependents(meta["uid"])
        when = format_time(_later(self.clock.now(), period))
        marked = self.marked(pod, list(meta.get("finalizers") or ()), when, period)
        self.commit(rt, key, marked, pod, actor, None)
        return marked

    def remove(
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
        self.store.remove(rt, key, old)
        self.bus.publish(WatchEvent(DELETED, gone, old, actor, None))
        meta = gone["metadata"]
        if rt is CRD_TYPE:
            self.crds.removed(gone)
        self.gc.collect_dependents(meta["uid"])
        for owner in sorted(set(owner_uids(old)) | set(owner_uids(gone))):
            self.gc.finish_foreground_deletion(owner)
        if rt.namespaced:
            self.namespaces.finish(key[0])


def checked_metadata(rt: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None = None) -> dict[str, Any]:
    """The object's metadata (created when missing), decoded as ObjectMeta first (BadRequest)."""
    message = metadata_decoding_message(rt.version, rt.kind, obj, old)
    if message is not None:
        raise BadRequest(message)
    return _metadata_of(obj)


def _metadata_of(obj: dict[str, Any]) -> dict[str, Any]:
    """A decoded object's metadata: an object, or missing (null) and then created empty."""
    meta = obj.get("metadata")
    if meta is None:
        meta = obj["metadata"] = {}
    return meta


def _later(now: datetime, seconds: int) -> datetime:
    """`now` plus a grace period; one past year 9999 (a gracePeriodSeconds near int64's limit,
    which Go's time.Duration arithmetic would wrap) is the latest time kubesim can write."""
    try:
        return now + timedelta(seconds=seconds)
    except OverflowError:
        return datetime.max.replace(microsecond=0, tzinfo=now.tzinfo)


def status_details(rt: ResourceType, name: str) -> dict[str, Any]:
    """StatusDetails of NewNotFound/NewAlreadyExists/NewConflict: the resource (plural) as kind
    (apimachinery pkg/api/errors/errors.go)."""
    details = {"name": name, "group": rt.group, "kind": rt.plural}
    if not rt.group:
        del details["group"]
    return details


def _binding_conflict(name: str, reason: str) -> Conflict:
    return Conflict(f'Operation cannot be fulfilled on pods/binding "{name}": {reason}',
                    details={"name": name, "kind": "pods/binding"})


def _grace_period(pod: dict[str, Any], requested: int | None) -> int:
    """How long a pod's deletion waits (podStrategy.CheckGracefulDelete)."""
    if not (pod.get("spec") or {}).get("nodeName"):
        return 0
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return 0
    period = requested if requested is not None else (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    if period is None:
        return 30
    # rest.BeforeDelete: "Negative values will be treated as the value `1s` on the delete path."
    return int(period) if int(period) >= 0 else 1


def _finalized(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """shouldDeleteDuringUpdate: the last finalizer is gone from an object being deleted."""
    old_meta = old["metadata"]
    if new["metadata"].get("finalizers") or not old_meta.get("deletionTimestamp"):
        return False
    return not old_meta.get("deletionGracePeriodSeconds")


def json_state(state: object) -> list[Any]:
    """random.Random.getstate() as JSON data (its tuple of ints becomes a list)."""
    assert isinstance(state, tuple)
    version, internal, gauss = state
    return [version, list(internal), gauss]
