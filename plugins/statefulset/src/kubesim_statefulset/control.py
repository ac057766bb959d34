"""One sync of one StatefulSet: claim pods, revisions, create/delete/update pods, status, history.

A port of pkg/controller/statefulset: stateful_set.go (sync, adoption), stateful_set_control.go
(UpdateStatefulSet, getStatefulSetRevisions, updateStatefulSet, processReplica,
processCondemned, truncateHistory, updateStatefulSetStatus) and stateful_pod_control.go
(CreateStatefulPod, UpdateStatefulPod, PVC creation and retention policy). The
MaxUnavailableStatefulSet feature gate is off (as in v1.34): rolling updates replace one pod
at a time.

Every write goes through `SetWriter`; a dry-run writer raises `WouldWrite` at the first
write instead, which is how the controller's waiter asks "would a sync change anything?".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import attrs
from kubesim.cluster import LabelSelector, copy_tree
from kubesim.controllers import ClusterReader
from kubesim.controllers import Client
from kubesim.errors import AlreadyExists, ApiError, NotFound

from .identity import (
    PodFacts,
    claim_name,
    controller_of,
    controller_ref,
    identity_matches,
    in_ordinal_range,
    is_member,
    new_claims,
    new_pod,
    ordinal_of,
    pod_facts,
    pod_revision,
    replicas_of,
    start_ordinal,
    storage_matches,
    update_identity,
    update_storage,
)
from .revisions import apply_revision, equal_revision, new_revision, next_revision, sort_revisions

__all__ = ["SetWriter", "SyncResult", "WouldWrite", "compute_status", "sync_statefulset"]

Obj = Mapping[str, Any]


class WouldWrite(Exception):
    """Raised by a dry-run writer at the first write a sync would make."""


class SetWriter:
    """The writes a sync makes, through an actor-bound client; `dry_run` turns them into WouldWrite.

    `replaced` remembers, per (set uid, ordinal), when a Failed or Succeeded pod was deleted, so
    that its replacement waits until simulated time moves on (see `can_replace`).
    """

    def __init__(self, client: Client, *, dry_run: bool = False,
                 replaced: dict[tuple[str, int], datetime] | None = None) -> None:
        self.client = client
        self.dry_run = dry_run
        self.replaced = replaced if replaced is not None else {}
        self.writes = 0
        self.status_writes = 0

    def _write(self, what: str) -> None:
        if self.dry_run:
            raise WouldWrite(what)
        self.writes += 1

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        self._write(f"create {obj['kind']} {obj['metadata'].get('name')}")
        return self.client.create(obj)

    def update(self, obj: dict[str, Any]) -> dict[str, Any]:
        self._write(f"update {obj['kind']} {obj['metadata'].get('name')}")
        return self.client.update(obj)

    def update_status(self, obj: dict[str, Any]) -> dict[str, Any]:
        self._write(f"update status of {obj['kind']} {obj['metadata'].get('name')}")
        self.status_writes += 1
        return self.client.update_status(obj)

    def delete(self, api_version: str, kind: str, name: str, namespace: str) -> None:
        self._write(f"delete {kind} {name}")
        self.client.delete(api_version, kind, name, namespace)


@attrs.define
class SyncResult:
    """What a sync found: the status it computed and when it wants to look again."""

    status: dict[str, Any] | None = None
    requeue_at: datetime | None = None


# --- reads -------------------------------------------------------------------------


def _selector(sts: Obj) -> LabelSelector | None:
    try:
        return LabelSelector.from_dict((sts.get("spec") or {}).get("selector"))
    except ApiError:
        return None


def _uid(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("uid", ""))


def _ns(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("namespace", "default"))


def _name(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def _deleting(obj: Obj) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def _get(cluster: ClusterReader, api_version: str, kind: str, name: str, namespace: str) -> dict[str, Any] | None:
    try:
        return cluster.get(api_version, kind, name, namespace)
    except NotFound:
        return None


# --- adoption (pkg/controller/controller_ref_manager.go ClaimObject) ------------------


def _with_owner_refs(obj: Obj, refs: list[dict[str, Any]]) -> dict[str, Any]:
    new = copy_tree(dict(obj))
    if refs:
        new["metadata"]["ownerReferences"] = refs
    else:
        new["metadata"].pop("ownerReferences", None)
    return new


def claim_objects(writer: SetWriter, sts: Obj, objects: Sequence[Obj], match: Callable[[Obj], bool]) -> list[Obj]:
    """Adopt matching orphans and release owned objects that no longer match; return what is ours."""
    uid = _uid(sts)
    claimed: list[Obj] = []
    for obj in objects:
        ref = controller_of(obj)
        refs = list((obj.get("metadata") or {}).get("ownerReferences") or ())
        if ref is not None:
            if ref.get("uid") != uid:
                continue
            if match(obj):
                claimed.append(obj)
            elif not _deleting(sts):
                try:
                    writer.update(_with_owner_refs(obj, [r for r in refs if r.get("uid") != uid]))
                except NotFound:
                    pass
            continue
        if _deleting(sts) or not match(obj) or _deleting(obj) or _ns(obj) != _ns(sts):
            continue
        try:
            claimed.append(writer.update(_with_owner_refs(obj, [*refs, controller_ref(sts)])))
        except NotFound:
            continue
    return claimed


def list_revisions(cluster: ClusterReader, sts: Obj, selector: LabelSelector) -> list[Obj]:
    """history.ListControllerRevisions: revisions selected by the set's selector, ours or orphans."""
    out: list[Obj] = []
    for r in cluster.list("apps/v1", "ControllerRevision", _ns(sts), label_selector=selector):
        ref = controller_of(r)
        if ref is None or ref.get("uid") == _uid(sts):
            out.append(r)
    return out


# --- status --------------------------------------------------------------------------


def compute_status(pods: Sequence[Obj], min_ready: int, now: datetime, current: str, update: str,
                   facts: Callable[[Obj], PodFacts] = pod_facts) -> dict[str, int]:
    """computeReplicaStatus over the given pods (placeholders for missing pods do not count)."""
    replicas = ready = available = current_n = updated = 0
    for pod in pods:
        f = facts(pod)
        created = f.created
        if created:
            replicas += 1
        if f.running_and_ready:
            ready += 1
            if f.available(min_ready, now):
                available += 1
        if created and not f.terminating:
            revision = f.revision
            if revision == current:
                current_n += 1
            if revision == update:
                updated += 1
    return {"replicas": replicas, "readyReplicas": ready, "availableReplicas": available,
            "currentReplicas": current_n, "updatedReplicas": updated}


def _status_json(status: Mapping[str, Any]) -> dict[str, Any]:
    """apps/v1 StatefulSetStatus as JSON: zero-valued omitempty counters and strings left out."""
    out: dict[str, Any] = {}
    if status.get("observedGeneration"):
        out["observedGeneration"] = status["observedGeneration"]
    out["replicas"] = status.get("replicas", 0)
    for field in ("readyReplicas", "currentReplicas", "updatedReplicas", "currentRevision", "updateRevision"):
        if status.get(field):
            out[field] = status[field]
    if status.get("collisionCount") is not None:
        out["collisionCount"] = status["collisionCount"]
    out["availableReplicas"] = status.get("availableReplicas", 0)
    return out


def _inconsistent(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """inconsistentStatus: the computed status differs from the stored one where it matters."""
    if int(new.get("observedGeneration") or 0) > int(old.get("observedGeneration") or 0):
        return True
    return any(
        (new.get(f) or 0) != (old.get(f) or 0)
        for f in ("replicas", "currentReplicas", "readyReplicas", "updatedReplicas", "availableReplicas")
    ) or any((new.get(f) or "") != (old.get(f) or "") for f in ("currentRevision", "updateRevision"))


# --- the sync ------------------------------------------------------------------------


class _Sync:
    """updateStatefulSet and friends for one set (pkg/controller/statefulset/stateful_set_control.go)."""

    def __init__(self, writer: SetWriter, cluster: ClusterReader, sts: Obj, now: datetime) -> None:
        self.w = writer
        self.cluster = cluster
        self.sts = sts
        self.now = now
        self.spec: Mapping[str, Any] = sts.get("spec") or {}
        self.min_ready = int(self.spec.get("minReadySeconds") or 0)
        self.monotonic: bool = self.spec.get("podManagementPolicy", "OrderedReady") != "Parallel"
        self.requeue_at: datetime | None = None
        self.partial_status: dict[str, Any] | None = None
        self._facts: dict[int, tuple[Obj, PodFacts]] = {}

    def f(self, pod: Obj) -> PodFacts:
        """The pod's facts, read once per sync (the pod object is kept so its id stays unique)."""
        hit = self._facts.get(id(pod))
        if hit is None:
            hit = self._facts[id(pod)] = (pod, pod_facts(pod))
        return hit[1]

    # --- revisions (getStatefulSetRevisions, truncateHistory) ---------------------

    def revisions(self, revisions: list[Obj]) -> tuple[Obj, Obj, int]:
        status = self.sts.get("status") or {}
        collision = int(status.get("collisionCount") or 0)
        revisions = sort_revisions(revisions)
        update: Obj = new_revision(self.sts, next_revision(revisions), collision)
        equal = [r for r in revisions if equal_revision(r, update)]
        if equal and equal_revision(revisions[-1], equal[-1]):
            update = revisions[-1]
        elif equal:  # a rollback: the equal revision becomes the newest
            bumped = copy_tree(dict(equal[-1]))
            bumped["revision"] = update["revision"]
            update = self.w.update(bumped)
        else:
            update, collision = self._create_revision(dict(update), collision)
        current = next((r for r in revisions if _name(r) == status.get("currentRevision")), update)
        return current, update, collision

    def _create_revision(self, revision: dict[str, Any], collision: int) -> tuple[Obj, int]:
        """history.CreateControllerRevision: on a name clash with other data, count a collision."""
        while True:
            candidate = new_revision(self.sts, int(revision["revision"]), collision)
            try:
                return self.w.create(candidate), collision
            except AlreadyExists:
                existing = _get(self.cluster, "apps/v1", "ControllerRevision", _name(candidate), _ns(self.sts))
                if existing is not None and equal_revision(existing, candidate):
                    return existing, collision
                collision += 1

    def truncate_history(self, pods: Sequence[Obj], revisions: list[Obj], current: Obj, update: Obj) -> None:
        live = {_name(current), _name(update)} | {pod_revision(p) for p in pods}
        history = [r for r in sort_revisions(revisions) if _name(r) not in live]
        limit = self.spec.get("revisionHistoryLimit")
        limit = 10 if limit is None else int(limit)
        if limit < 0 or len(history) <= limit:
            return
        for r in history[: len(history) - limit]:
            try:
                self.w.delete("apps/v1", "ControllerRevision", _name(r), _ns(r))
            except NotFound:
                pass

    # --- claims and their retention policy (stateful_pod_control.go) ------------------

    def _policy(self) -> tuple[str, str]:
        policy = self.spec.get("persistentVolumeClaimRetentionPolicy") or {}
        return policy.get("whenDeleted") or "Retain", policy.get("whenScaled") or "Retain"

    def create_missing_claims(self, pod: Obj) -> None:
        """createPersistentVolumeClaims: create each missing claim; a claim being deleted is an error."""
        problems = []
        for claim in new_claims(self.sts, ordinal_of(pod)):
            existing = _get(self.cluster, "v1", "PersistentVolumeClaim", _name(claim), _ns(claim))
            if existing is None:
                try:
                    self.w.create(claim)
                except ApiError as exc:
                    problems.append(f"failed to create PVC {_name(claim)}: {exc.message}")
            elif _deleting(existing):
                problems.append(f"pvc {_name(claim)} is being deleted")
        if problems:
            raise ApiError("; ".join(problems))

    def _wanted_claim_refs(self, claim: Obj, pod: Obj) -> list[dict[str, Any]]:
        """updateClaimOwnerRefForSetAndPod: the claim's ownerReferences under the retention policy."""
        refs = [dict(r) for r in (claim.get("metadata") or {}).get("ownerReferences") or ()]
        set_name, pod_name_ = _name(self.sts), _name(pod)

        def ours(r: Mapping[str, Any]) -> bool:
            return (r.get("kind"), r.get("name")) in (("StatefulSet", set_name), ("Pod", pod_name_))

        unexpected = self._has_unexpected_controller(refs, pod)
        refs = [r for r in refs if not ours(r)]
        if unexpected:
            return refs
        when_deleted, when_scaled = self._policy()
        scaled_down = not in_ordinal_range(pod, self.sts)
        if when_scaled == "Delete" and scaled_down:
            refs.append({"apiVersion": "v1", "kind": "Pod", "name": pod_name_, "uid": _uid(pod),
                         "controller": True, "blockOwnerDeletion": True})
        if when_deleted == "Delete" and not (when_scaled == "Delete" and scaled_down):
            refs.append(controller_ref(self.sts))
        return refs

    def _has_unexpected_controller(self, refs: Sequence[Mapping[str, Any]], pod: Obj) -> bool:
        if self._policy() == ("Retain", "Retain"):
            return False
        for r in refs:
            if (r.get("kind"), r.get("name")) == ("StatefulSet", _name(self.sts)):
                if r.get("uid") != _uid(self.sts):
                    return True
            elif (r.get("kind"), r.get("name")) == ("Pod", _name(pod)):
                if r.get("uid") != _uid(pod):
                    return True
            elif r.get("controller") is True:
                return True
        return False

    def _claims(self, pod: Obj) -> list[dict[str, Any]]:
        out = []
        for template in self.spec.get("volumeClaimTemplates") or ():
            claim = _get(self.cluster, "v1", "PersistentVolumeClaim",
                         claim_name(self.sts, template, ordinal_of(pod)), _ns(self.sts))
            if claim is not None:
                out.append(claim)
        return out

    def claims_match_policy(self, pod: Obj) -> bool:
        return all(
            (c["metadata"].get("ownerReferences") or []) == self._wanted_claim_refs(c, pod)
            for c in self._claims(pod)
        )

    def update_claims_for_policy(self, pod: Obj) -> None:
        for claim in self._claims(pod):
            refs = self._wanted_claim_refs(claim, pod)
            if (claim["metadata"].get("ownerReferences") or []) != refs:
                self.w.update(_with_owner_refs(claim, refs))

    def claim_is_stale(self, pod: Obj) -> bool:
        """PodClaimIsStale: with whenScaled=Delete, a claim still owned by an older pod blocks creation."""
        if self._policy()[1] == "Retain":
            return False
        for claim in new_claims(self.sts, ordinal_of(pod)):
            existing = _get(self.cluster, "v1", "PersistentVolumeClaim", _name(claim), _ns(claim))
            for r in (existing or {}).get("metadata", {}).get("ownerReferences") or ():
                if (r.get("kind"), r.get("name")) == ("Pod", _name(pod)) and r.get("uid") != _uid(pod):
                    return True
        return False

    # --- pods (stateful_pod_control.go) -----------------------------------------------

    def create_pod(self, pod: dict[str, Any]) -> None:
        self.create_missing_claims(pod)
        created = self.w.create(pod)
        if self.spec.get("volumeClaimTemplates"):
            self.update_claims_for_policy(created)

    def delete_pod(self, pod: Obj) -> None:
        self.w.delete("v1", "Pod", _name(pod), _ns(pod))

    def update_pod(self, pod: Obj) -> None:
        """UpdateStatefulPod: restore identity and storage (and the claims' retention refs)."""
        new = copy_tree(dict(pod))
        consistent = True
        if not identity_matches(self.sts, new):
            update_identity(self.sts, new)
            consistent = False
        if not storage_matches(self.sts, new):
            update_storage(self.sts, new)
            consistent = False
            self.create_missing_claims(new)
        if not self.claims_match_policy(new):
            self.update_claims_for_policy(new)
        if not consistent:
            self.w.update(new)

    # --- updateStatefulSet ---------------------------------------------------------------

    def process_replica(self, replicas: list[Obj], i: int) -> bool:
        """processReplica; returns True when a monotonic sync has to stop here."""
        pod = replicas[i]
        f = self.f(pod)
        ordinal = ordinal_of(pod)
        key = (_uid(self.sts), ordinal)
        if f.phase in ("Failed", "Succeeded"):
            if not f.terminating:
                self.delete_pod(pod)
                self.w.replaced[key] = self.now
            return True
        if not f.created:
            if self.w.replaced.get(key) == self.now:
                # the replacement of a failed/succeeded pod waits for simulated time to move on
                self._requeue(self.now + timedelta(microseconds=1))
                return self.monotonic
            if self.claim_is_stale(pod):
                return True
            self.create_pod(dict(pod))
            return self.monotonic
        if f.phase == "Pending":
            self.create_missing_claims(pod)
        if f.terminating and self.monotonic:
            return True
        if not f.running_and_ready and self.monotonic:
            return True
        if not f.available(self.min_ready, self.now) and self.monotonic:
            return True
        retention_match = self.claims_match_policy(pod)
        if identity_matches(self.sts, pod) and storage_matches(self.sts, pod) and retention_match:
            return False
        self.update_pod(pod)
        return False

    def process_condemned(self, first_unhealthy: Obj | None, condemned: list[Obj], i: int) -> bool:
        pod = condemned[i]
        f = self.f(pod)
        if f.terminating:
            return self.monotonic
        if not f.running_and_ready and self.monotonic and pod is not first_unhealthy:
            return True
        if not f.available(self.min_ready, self.now) and self.monotonic and pod is not first_unhealthy:
            return True
        self.delete_pod(pod)
        return True

    def run_for_all(self, items: list[Obj], fn: Callable[[int], bool]) -> bool:
        """runForAll: in order, stopping at the first blocked item when monotonic; else all
        of them in slow-start batches (1, 2, 4, ...), stopping after a batch with an error."""
        if self.monotonic:
            for i in range(len(items)):
                if fn(i):
                    return True
            return False
        i, batch = 0, 1
        while i < len(items):
            errors: list[ApiError] = []
            for j in range(i, min(i + batch, len(items))):
                try:
                    fn(j)
                except ApiError as exc:
                    errors.append(exc)
            if errors:
                raise ApiError("; ".join(e.message for e in errors))
            i += batch
            batch = min(batch * 2, 500)
        return False

    def update(self, pods: list[Obj], current: Obj, update: Obj, collision: int) -> dict[str, Any]:
        """updateStatefulSet: bring the pods towards the spec; returns the status to record."""
        sts, spec = self.sts, self.spec
        current_set = apply_revision(sts, current)
        update_set = apply_revision(sts, update)
        status: dict[str, Any] = {
            "observedGeneration": (sts.get("metadata") or {}).get("generation"),
            "currentRevision": _name(current),
            "updateRevision": _name(update),
            "collisionCount": collision,
        }

        def record(*lists: Sequence[Obj]) -> dict[str, Any]:
            counts = compute_status([p for lst in lists for p in lst], self.min_ready, self.now,
                                    _name(current), _name(update), self.f)
            return {**status, **counts}

        status = record(pods)
        start, replica_count = start_ordinal(sts), replicas_of(sts)
        replicas: list[Obj | None] = [None] * replica_count
        condemned: list[Obj] = []
        for pod in pods:
            ordinal = ordinal_of(pod)
            if in_ordinal_range(pod, sts):
                replicas[ordinal - start] = pod
            elif ordinal >= 0:
                condemned.append(pod)
        strategy = spec.get("updateStrategy") or {}
        rolling = strategy.get("rollingUpdate")
        for idx in range(replica_count):
            if replicas[idx] is None:
                ordinal = start + idx
                current_status = current_set.get("status") or {}
                use_current = (
                    (strategy.get("type") == "RollingUpdate" and rolling is None
                     and ordinal < start + int(current_status.get("currentReplicas") or 0))
                    or (rolling is not None and ordinal < start + int(rolling.get("partition") or 0))
                )
                source, revision = (current_set, current) if use_current else (update_set, update)
                replicas[idx] = new_pod(source, ordinal, _name(revision))
        members: list[Obj] = [p for p in replicas if p is not None]
        condemned.sort(key=ordinal_of, reverse=True)
        first_unhealthy: Obj | None = None
        for pod in members:
            if self.f(pod).unavailable(self.min_ready, self.now):
                first_unhealthy = pod
                break
        if first_unhealthy is None:
            for pod in reversed(condemned):
                if self.f(pod).unavailable(self.min_ready, self.now):
                    first_unhealthy = pod
                    break
        if _deleting(sts):
            return status
        try:
            if self.run_for_all(members, lambda i: self.process_replica(members, i)):
                return record(members, condemned)

            def fix_claim(i: int) -> bool:
                if not self.claims_match_policy(condemned[i]):
                    self.update_claims_for_policy(condemned[i])
                return False

            if self.run_for_all(condemned, fix_claim):
                return record(members, condemned)
            if self.run_for_all(condemned, lambda i: self.process_condemned(first_unhealthy, condemned, i)):
                return record(members, condemned)
        except ApiError:
            self.partial_status = record(members, condemned)
            raise
        status = record(members, condemned)
        if strategy.get("type") == "OnDelete":
            return status
        update_min = int((rolling or {}).get("partition") or 0)
        for target in range(len(members) - 1, update_min - 1, -1):
            pod = members[target]
            if self.f(pod).revision != _name(update) and not self.f(pod).terminating:
                try:
                    self.delete_pod(pod)
                except NotFound:
                    pass
                status["currentReplicas"] -= 1
                return status
            if self.f(pod).unavailable(self.min_ready, self.now):
                return status
        return status

    def _requeue(self, when: datetime) -> None:
        if self.requeue_at is None or when < self.requeue_at:
            self.requeue_at = when

    def write_status(self, status: dict[str, Any]) -> None:
        """updateStatefulSetStatus: complete a finished rolling update, write only when it changed."""
        spec, replicas = self.spec, replicas_of(self.sts)
        if ((spec.get("updateStrategy") or {}).get("type") == "RollingUpdate"
                and status["updatedReplicas"] == replicas and status["readyReplicas"] == replicas
                and status["replicas"] == replicas):
            status["currentReplicas"] = status["updatedReplicas"]
            status["currentRevision"] = status["updateRevision"]
        old = self.sts.get("status") or {}
        if not _inconsistent(old, status):
            return
        new = copy_tree(dict(self.sts))
        new["status"] = _status_json(status)
        self.w.update_status(new)


def sync_statefulset(writer: SetWriter, cluster: ClusterReader, sts: Obj, now: datetime) -> SyncResult:
    """Sync one StatefulSet (StatefulSetController.sync): claim, update pods, status, history.

    Raises ApiError when a write fails (the caller retries later) and WouldWrite in dry-run.
    """
    result = SyncResult()
    selector = _selector(sts)
    if selector is None:
        return result  # a non-transient error upstream too: nothing to do until the set changes
    revisions = list_revisions(cluster, sts, selector)
    revisions = claim_objects(writer, sts, revisions, lambda r: True)
    all_pods = cluster.list("v1", "Pod", _ns(sts))
    pods = claim_objects(writer, sts, all_pods,
                         lambda p: selector.matches((p.get("metadata") or {}).get("labels"))
                         and is_member(sts, p))
    sync = _Sync(writer, cluster, sts, now)
    current, update, collision = sync.revisions(list(revisions))
    try:
        status = sync.update(list(pods), current, update, collision)
    except ApiError:
        if sync.partial_status is not None:
            sync.write_status(sync.partial_status)
        raise
    sync.write_status(status)
    result.status = status
    sync.truncate_history(pods, list(revisions), current, update)
    min_ready = int((sts.get("spec") or {}).get("minReadySeconds") or 0)
    if min_ready > 0 and status.get("availableReplicas") != replicas_of(sts):
        sync._requeue(now + timedelta(seconds=min_ready))
    result.requeue_at = sync.requeue_at
    return result
