"""The ReplicaSet controller, as kube-controller-manager v1.34 runs it, on simulated time.

Ports k8s.io/kubernetes pkg/controller/replicaset/replica_set.go (event handlers,
syncReplicaSet, manageReplicas, claimPods, getIndirectlyRelatedPods) and
replica_set_utils.go (calculateStatus, updateReplicaSetStatus, the ReplicaFailure
condition). Differences, all because a simulation sees its own writes at once:

- no expectations: a sync always reads the cluster as it is;
- no slow-start batching: missing pods are created one by one (at most BurstReplicas per
  sync) and creation stops at the first rejected pod, whose error becomes the
  ReplicaFailure condition (reason FailedCreate, the API error as message);
- retries after a failed sync wait in simulated time (workqueue's per-item exponential
  backoff, 5 ms doubling up to 1000 s), so they happen at a later MajorStep;
- a pod that turns Ready re-queues its ReplicaSet at the exact simulated moment it becomes
  available (Ready for minReadySeconds) instead of minReadySeconds + 1 s later.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from kubesim import ReconcileController, Runtime
from kubesim.cluster import LabelSelector, WatchEvent, copy_tree
from kubesim.errors import ApiError, NotFound

from .ownership import adopt_patch, claim_objects, controller_ref, new_controller_ref, release_patch
from .podstate import is_pod_active, is_pod_available, is_pod_ready, ready_at
from .ranking import get_pods_to_delete

__all__ = [
    "BURST_REPLICAS",
    "REPLICA_FAILURE",
    "ReplicaSetController",
    "calculate_status",
    "pod_from_template",
    "replicaset_settled",
    "set_replicaset_condition",
]

RS_API_VERSION = "apps/v1"
BURST_REPLICAS = 500
REPLICA_FAILURE = "ReplicaFailure"
_BACKOFF_BASE = timedelta(milliseconds=5)
_BACKOFF_MAX = timedelta(seconds=1000)
_NAMESPACE_TERMINATING = "because it is being terminated"

Obj = Mapping[str, Any]


def _meta(obj: Obj) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _spec_replicas(rs: Obj) -> int:
    value = (rs.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


def _status_int(obj: Obj, field: str) -> int:
    return int((obj.get("status") or {}).get(field) or 0)


def get_condition(status: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    """The status condition of type `kind`, if any."""
    for c in status.get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == kind:
            return c
    return None


def set_replicaset_condition(status: dict[str, Any], condition: dict[str, Any]) -> None:
    """SetCondition: replace the condition of its type unless status and reason are unchanged."""
    current = get_condition(status, condition["type"])
    if current is not None and current.get("status") == condition["status"] and current.get(
        "reason"
    ) == condition.get("reason"):
        return
    rest = [c for c in status.get("conditions") or () if c.get("type") != condition["type"]]
    status["conditions"] = [*rest, condition]


def _remove_condition(status: dict[str, Any], kind: str) -> None:
    rest = [c for c in status.get("conditions") or () if c.get("type") != kind]
    if rest:
        status["conditions"] = rest
    else:
        status.pop("conditions", None)


def calculate_status(
    rs: Obj, active_pods: Sequence[Obj], manage_error: str | None, now: datetime, timestamp: str
) -> dict[str, Any]:
    """calculateStatus: counts over the RS's active pods, ReplicaFailure set or cleared.

    Zero counts are left out, as the API server's JSON (omitempty) does; `replicas` stays.
    """
    status = copy_tree(dict(rs.get("status") or {}))
    template_labels = LabelSelector.from_set(((rs.get("spec") or {}).get("template") or {}).get("metadata", {}).get("labels") or {})
    min_ready = int((rs.get("spec") or {}).get("minReadySeconds") or 0)
    fully_labeled = ready = available = 0
    for pod in active_pods:
        if template_labels.matches(_meta(pod).get("labels")):
            fully_labeled += 1
        if is_pod_ready(pod):
            ready += 1
            if is_pod_available(pod, min_ready, now):
                available += 1
    failure = get_condition(status, REPLICA_FAILURE)
    if manage_error is not None and failure is None:
        diff = len(active_pods) - _spec_replicas(rs)
        reason = "FailedCreate" if diff < 0 else ("FailedDelete" if diff > 0 else "")
        condition = {"type": REPLICA_FAILURE, "status": "True", "lastTransitionTime": timestamp}
        if reason:
            condition["reason"] = reason
        if manage_error:
            condition["message"] = manage_error
        set_replicaset_condition(status, condition)
    elif manage_error is None and failure is not None:
        _remove_condition(status, REPLICA_FAILURE)
    status["replicas"] = len(active_pods)
    for field, value in (("fullyLabeledReplicas", fully_labeled), ("readyReplicas", ready),
                         ("availableReplicas", available)):
        if value:
            status[field] = value
        else:
            status.pop(field, None)
    return status


def _status_unchanged(rs: Obj, new_status: Mapping[str, Any]) -> bool:
    """updateReplicaSetStatus's steady-state check."""
    return (
        all(_status_int(rs, f) == int(new_status.get(f) or 0)
            for f in ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"))
        and int(_meta(rs).get("generation") or 0) == _status_int(rs, "observedGeneration")
        and list((rs.get("status") or {}).get("conditions") or []) == list(new_status.get("conditions") or [])
    )


def has_replica_failure(rs: Obj) -> bool:
    """status.conditions holds ReplicaFailure=True."""
    c = get_condition(rs.get("status") or {}, REPLICA_FAILURE)
    return c is not None and c.get("status") == "True"


def replicaset_settled(rs: Obj, current_status: Mapping[str, Any] | None = None) -> bool:
    """The KEP's waiter condition for one ReplicaSet.

    True when the controller can do no more for it: a ReplicaFailure condition is True, or
    observedGeneration == generation and status.replicas == spec.replicas and
    status.fullyLabeledReplicas == spec.replicas. `current_status` (calculateStatus over the
    pods as they are) relaxes the last two where the controller cannot change them: pods it
    adopted or kept that lack some template label, and a ReplicaSet being deleted (whose
    pods it no longer manages); then the status only has to be up to date.
    """
    if has_replica_failure(rs):
        return True
    meta = _meta(rs)
    if int(meta.get("generation") or 0) != _status_int(rs, "observedGeneration"):
        return False
    want = _spec_replicas(rs)
    replicas, labeled = _status_int(rs, "replicas"), _status_int(rs, "fullyLabeledReplicas")
    if not meta.get("deletionTimestamp") and replicas == want and labeled == want:
        return True
    if current_status is None:
        return False
    up_to_date = replicas == int(current_status.get("replicas") or 0) and labeled == int(
        current_status.get("fullyLabeledReplicas") or 0
    )
    return up_to_date and (bool(meta.get("deletionTimestamp")) or replicas == want)


def pod_from_template(rs: Obj) -> dict[str, Any]:
    """GetPodFromTemplate: a pod to create for `rs` (generateName `<rs>-`, controller ref)."""
    meta = _meta(rs)
    template = (rs.get("spec") or {}).get("template") or {}
    tmeta = template.get("metadata") or {}
    name = str(meta.get("name") or "")
    prefix = f"{name}-" if len(name) < 253 else name
    pod_meta: dict[str, Any] = {"generateName": prefix, "namespace": meta.get("namespace") or "default"}
    for field in ("labels", "annotations", "finalizers"):
        if tmeta.get(field):
            pod_meta[field] = copy_tree(tmeta[field])
    pod_meta["ownerReferences"] = [new_controller_ref(rs)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": copy_tree(template.get("spec") or {})}


class ReplicaSetController(ReconcileController):
    """Keeps each ReplicaSet's pods at spec.replicas and its status up to date."""

    name = "replicaset"
    watches = ((RS_API_VERSION, "ReplicaSet"), ("v1", "Pod"))

    def __init__(self, runtime: Runtime) -> None:
        self._failures: dict[Hashable, int] = {}
        super().__init__(runtime)

    # --- event handlers (addPod / updatePod / deletePod, addRS / updateRS / deleteRS) ---

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        obj = event.object
        if obj.get("kind") == "ReplicaSet":
            return self.keys_for_object(obj)
        return self._pod_keys(event)

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        return self.keys_for_object(obj) if obj.get("kind") == "ReplicaSet" else ()

    def _owner_key(self, pod: Obj, ref: Mapping[str, Any] | None) -> list[Hashable]:
        if ref is None or ref.get("kind") != "ReplicaSet" or not str(ref.get("apiVersion", "")).startswith("apps/"):
            return []
        return [(_meta(pod).get("namespace") or "default", ref.get("name", ""))]

    def _matching_replicasets(self, pod: Obj) -> list[Hashable]:
        """getPodReplicaSets: the ReplicaSets in the pod's namespace whose selector matches it."""
        ns = _meta(pod).get("namespace") or "default"
        labels = _meta(pod).get("labels")
        if not labels:
            return []
        keys: list[Hashable] = []
        for rs in self.reader.list(RS_API_VERSION, "ReplicaSet", ns):
            selector = _selector(rs)
            if selector is not None and not selector.empty and selector.matches(labels):
                keys.append((ns, _meta(rs).get("name", "")))
        return keys

    def _pod_keys(self, event: WatchEvent) -> list[Hashable]:
        pod, old = event.object, event.old_object
        ref = controller_ref(pod)
        if event.type == "DELETED" or (event.type == "ADDED" and _meta(pod).get("deletionTimestamp")):
            return self._owner_key(pod, ref)
        if event.type == "ADDED":
            return self._owner_key(pod, ref) if ref is not None else self._matching_replicasets(pod)
        keys: list[Hashable] = []
        old_ref = controller_ref(old) if old is not None else None
        labels_changed = old is not None and _meta(old).get("labels") != _meta(pod).get("labels")
        if _meta(pod).get("deletionTimestamp"):
            keys += self._owner_key(pod, ref)
            if labels_changed and old is not None:
                keys += self._owner_key(old, old_ref)
            return keys
        ref_changed = old_ref != ref
        if ref_changed and old_ref is not None:
            keys += self._owner_key(old, old_ref)  # type: ignore[arg-type]
        if ref is not None:
            return keys + self._owner_key(pod, ref)
        if labels_changed or ref_changed:
            keys += self._matching_replicasets(pod)
        return keys

    # --- syncReplicaSet ---

    def reconcile(self, key: Hashable) -> None:
        namespace, name = cast(tuple[str, str], key)
        try:
            rs = self.reader.get(RS_API_VERSION, "ReplicaSet", name, namespace)
        except NotFound:
            self._failures.pop(key, None)
            return
        selector = _selector(rs)
        if selector is None:
            self.log.warning("invalid selector, ReplicaSet ignored", replicaset=f"{namespace}/{name}")
            return
        active = [p for p in self.reader.list("v1", "Pod", namespace) if is_pod_active(p)]
        claimed, errors = self._claim_pods(rs, selector, active)
        if errors:
            self._retry(key, errors[0])
            return
        manage_error: str | None = None
        if not _meta(rs).get("deletionTimestamp"):
            manage_error = self._manage_replicas(claimed, rs)
        now = self.runtime.clock.now()
        status = calculate_status(rs, claimed, manage_error, now, self.runtime.clock.timestamp())
        try:
            rs = self._update_status(rs, status)
        except ApiError as exc:
            self._retry(key, exc)
            return
        if manage_error is not None:
            self._retry(key, None)
            return
        self._failures.pop(key, None)
        self._requeue_for_availability(key, rs, claimed, now)

    def _claim_pods(self, rs: Obj, selector: LabelSelector, pods: Sequence[Obj]) -> tuple[list[Obj], list[ApiError]]:
        def adopt(pod: Obj) -> None:
            self.client.patch("v1", "Pod", _meta(pod)["name"], adopt_patch(rs, pod),
                              "application/strategic-merge-patch+json", namespace=_meta(pod).get("namespace"))

        def release(pod: Obj) -> None:
            self.client.patch("v1", "Pod", _meta(pod)["name"], release_patch(rs, pod),
                              "application/strategic-merge-patch+json", namespace=_meta(pod).get("namespace"))

        return claim_objects(rs, selector, pods, adopt, release)

    def _manage_replicas(self, pods: Sequence[Obj], rs: Obj) -> str | None:
        """manageReplicas: create or delete pods to reach spec.replicas; the first error's message."""
        diff = len(pods) - _spec_replicas(rs)
        if diff < 0:
            for _ in range(min(-diff, BURST_REPLICAS)):
                try:
                    self.client.create(pod_from_template(rs))
                except ApiError as exc:
                    if _NAMESPACE_TERMINATING in exc.message:
                        return None
                    return exc.message
            return None
        if diff > 0:
            diff = min(diff, BURST_REPLICAS)
            related = self._indirectly_related_pods(rs)
            error: str | None = None
            for pod in get_pods_to_delete(pods, related, diff, self.runtime.clock.now()):
                try:
                    self.client.delete("v1", "Pod", _meta(pod)["name"], _meta(pod).get("namespace"))
                except NotFound:
                    continue
                except ApiError as exc:
                    error = error or exc.message
            return error
        return None

    def _indirectly_related_pods(self, rs: Obj) -> list[Obj]:
        """getIndirectlyRelatedPods: pods selected by any ReplicaSet with the same controller."""
        ref = controller_ref(rs)
        if ref is None:
            return []
        ns = _meta(rs).get("namespace") or "default"
        seen: set[str] = set()
        related: list[Obj] = []
        pods = self.reader.list("v1", "Pod", ns)
        for other in self.reader.list(RS_API_VERSION, "ReplicaSet", ns):
            other_ref = controller_ref(other)
            if other_ref is None or other_ref.get("uid") != ref.get("uid"):
                continue
            selector = _selector(other)
            if selector is None:
                continue
            for pod in pods:
                uid = _meta(pod).get("uid", "")
                if uid not in seen and selector.matches(_meta(pod).get("labels")):
                    seen.add(uid)
                    related.append(pod)
        return related

    def _update_status(self, rs: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
        """updateReplicaSetStatus: write the status (with observedGeneration) when it changed."""
        if _status_unchanged(rs, status):
            return rs
        generation = _meta(rs).get("generation")
        if generation:
            status["observedGeneration"] = generation
        new = copy_tree(rs)
        new["status"] = status
        return self.client.update_status(new)

    def _requeue_for_availability(self, key: Hashable, rs: Obj, pods: Sequence[Obj], now: datetime) -> None:
        """Wake the ReplicaSet up when its next ready pod becomes available (minReadySeconds)."""
        min_ready = int((rs.get("spec") or {}).get("minReadySeconds") or 0)
        if min_ready <= 0:
            return
        pending = [t + timedelta(seconds=min_ready) for p in pods
                   if is_pod_ready(p) and (t := ready_at(p)) is not None and not is_pod_available(p, min_ready, now)]
        if pending:
            self.queue.add_after(key, min(pending))

    def _retry(self, key: Hashable, error: ApiError | None) -> None:
        """AddRateLimited in simulated time: 5 ms * 2^failures, at most 1000 s."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        delay = min(_BACKOFF_BASE * (2**failures), _BACKOFF_MAX)
        if error is not None:
            self.log.info("sync failed, retrying later", key=key, error=error.message)
        self.queue.add_after(key, self.runtime.clock.now() + delay)

    # --- waiter ---

    def settled(self) -> bool:
        """Every ReplicaSet satisfies `replicaset_settled` (see there)."""
        cluster = self.reader
        for rs in cluster.list(RS_API_VERSION, "ReplicaSet"):
            if replicaset_settled(rs):
                continue
            if not replicaset_settled(rs, self._current_status(rs)):
                return False
        return True

    def _current_status(self, rs: Obj) -> Mapping[str, Any] | None:
        selector = _selector(rs)
        if selector is None:
            return None
        uid = _meta(rs).get("uid")
        pods = [p for p in self.reader.list("v1", "Pod", _meta(rs).get("namespace") or "default")
                if is_pod_active(p) and (controller_ref(p) or {}).get("uid") == uid
                and selector.matches(_meta(p).get("labels"))]
        return calculate_status(rs, pods, None, self.runtime.clock.now(), self.runtime.clock.timestamp())


def _selector(rs: Obj) -> LabelSelector | None:
    """The ReplicaSet's selector; None when it cannot be parsed."""
    try:
        return LabelSelector.from_dict((rs.get("spec") or {}).get("selector"))
    except ApiError:
        return None
