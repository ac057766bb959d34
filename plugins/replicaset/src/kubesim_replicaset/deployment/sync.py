"""One pass of the Deployment controller over one Deployment (syncDeployment and all it calls).

Ports k8s.io/kubernetes pkg/controller/deployment/: deployment_controller.go
(syncDeployment, getReplicaSetsForDeployment, getPodMapForDeployment), sync.go (sync,
scale, getNewReplicaSet, cleanupDeployment, calculateStatus, isScalingEvent,
checkPausedConditions), rolling.go, recreate.go, rollback.go and progress.go
(syncRolloutStatus, getReplicaFailures, requeueStuckDeployment).

Every write goes through a `Writes` object, so the same code runs for real, as a dry run
(the waiter asks "would a sync write anything?") and against a fake in unit tests. Events
(ScalingReplicaSet, ...) are not recorded: the timeline already shows every write.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from kubesim.cluster import LabelSelector, copy_tree
from kubesim.errors import AlreadyExists, ApiError

from ..ownership import adopt_patch, claim_objects, controller_ref, new_controller_ref, release_patch
from .annotations import (
    MAX_REV_HISTORY_LENGTH_IN_CHARS,
    ROLLBACK_TO_ANNOTATION,
    desired_replicas_annotation,
    replicas_annotations_need_update,
    set_deployment_annotations_to,
    set_deployment_revision,
    set_new_replicaset_annotations,
    set_replicas_annotations,
)
from .conditions import (
    AVAILABLE,
    FAILED_RS_CREATE_REASON,
    FOUND_NEW_RS_REASON,
    MINIMUM_REPLICAS_AVAILABLE,
    MINIMUM_REPLICAS_UNAVAILABLE,
    NEW_RS_AVAILABLE_REASON,
    NEW_RS_REASON,
    PAUSED_DEPLOY_REASON,
    PROGRESSING,
    REPLICA_FAILURE,
    RESUMED_DEPLOY_REASON,
    RS_UPDATED_REASON,
    TIMED_OUT_REASON,
    get_condition,
    new_condition,
    remove_condition,
    rs_to_deployment_condition,
    set_condition,
)
from .hashing import DEFAULT_UNIQUE_LABEL_KEY, compute_hash, equal_ignore_hash
from .replicasets import (
    REVISION_ANNOTATION,
    actual_replica_count,
    available_replica_count,
    filter_active,
    find_new_replicaset,
    find_old_replicasets,
    last_revision,
    max_revision,
    ready_replica_count,
    replica_count,
    revision,
    sort_by_creation,
    sort_by_revision,
    sort_by_size_newer,
    sort_by_size_older,
    spec_replicas,
)
from .rollout import (
    deployment_complete,
    deployment_progressing,
    deployment_timed_out,
    get_proportion,
    has_progress_deadline,
    has_revision_history_limit,
    is_rolling_update,
    is_saturated,
    max_surge,
    max_unavailable,
    new_rs_new_replicas,
    progress_deadline,
)

__all__ = ["DeploymentSync", "SyncError", "Writes", "calculate_status", "old_pods_running"]

RS = dict[str, Any]
PodMap = Mapping[str, Sequence[Mapping[str, Any]]]
_NAMESPACE_TERMINATING = "because it is being terminated"


class SyncError(Exception):
    """A sync that could not finish (upstream returns the error and re-queues the key)."""


class Writes(Protocol):
    """The writes a Deployment sync makes; each returns the object as stored afterwards."""

    def create_replicaset(self, rs: RS) -> RS: ...

    def update_replicaset(self, rs: RS) -> RS: ...

    def patch_replicaset(self, rs: Mapping[str, Any], patch: dict[str, Any]) -> RS: ...

    def delete_replicaset(self, rs: Mapping[str, Any]) -> None: ...

    def get_replicaset(self, namespace: str, name: str) -> RS: ...

    def update_deployment(self, d: RS) -> RS: ...

    def update_deployment_status(self, d: RS) -> RS: ...


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _name(obj: Mapping[str, Any]) -> str:
    return str(_meta(obj).get("name") or "")


def _uid(obj: Mapping[str, Any] | None) -> str | None:
    return _meta(obj).get("uid") if obj is not None else None


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("spec") or {}


def _strategy_type(d: Mapping[str, Any]) -> str:
    return str((_spec(d).get("strategy") or {}).get("type") or "")


def _selects_everything(selector: Any) -> bool:
    return isinstance(selector, Mapping) and not selector.get("matchLabels") and not selector.get("matchExpressions")


def _rollback_to(d: Mapping[str, Any]) -> int | None:
    """getRollbackTo: the revision in the deprecated rollback annotation (None when unset or bad)."""
    value = (_meta(d).get("annotations") or {}).get(ROLLBACK_TO_ANNOTATION)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def calculate_status(all_rss: Sequence[RS | None], new_rs: RS | None, d: Mapping[str, Any], now: str) -> dict[str, Any]:
    """calculateStatus: counts from the ReplicaSets' statuses and the Available condition.

    Zero counts are left out, as the API server's JSON (omitempty) does.
    """
    available = available_replica_count(all_rss)
    total = replica_count(all_rss)
    unavailable = max(total - available, 0)
    status: dict[str, Any] = {}
    generation = int(_meta(d).get("generation") or 0)
    for field, value in (
        ("observedGeneration", generation),
        ("replicas", actual_replica_count(all_rss)),
        ("updatedReplicas", actual_replica_count([new_rs])),
        ("readyReplicas", ready_replica_count(all_rss)),
        ("availableReplicas", available),
        ("unavailableReplicas", unavailable),
    ):
        if value:
            status[field] = value
    old = d.get("status") or {}
    if old.get("conditions"):
        status["conditions"] = [dict(c) for c in old["conditions"]]
    if old.get("collisionCount") is not None:
        status["collisionCount"] = old["collisionCount"]
    if available >= spec_replicas(d) - max_unavailable(d):
        set_condition(status, new_condition(AVAILABLE, "True", MINIMUM_REPLICAS_AVAILABLE,
                                            "Deployment has minimum availability.", now))
    else:
        set_condition(status, new_condition(AVAILABLE, "False", MINIMUM_REPLICAS_UNAVAILABLE,
                                            "Deployment does not have minimum availability.", now))
    return status


def old_pods_running(new_rs: RS | None, old_rss: Sequence[RS], pod_map: PodMap) -> bool:
    """oldPodsRunning: an old ReplicaSet still reports pods, or owns a pod not yet terminal."""
    if actual_replica_count(old_rss) > 0:
        return True
    new_uid = _uid(new_rs)
    for rs_uid, pods in pod_map.items():
        if new_uid is not None and rs_uid == new_uid:
            continue
        for pod in pods:
            if (pod.get("status") or {}).get("phase") not in ("Failed", "Succeeded"):
                return True
    return False


class DeploymentSync:
    """syncDeployment for one Deployment, writing through `writes` at simulated time `now`."""

    def __init__(self, writes: Writes, now: datetime, timestamp: str) -> None:
        self.writes = writes
        self.now = now
        self.timestamp = timestamp
        self.requeue_at: datetime | None = None
        """When requeueStuckDeployment wants the Deployment synced again (progress deadline)."""

    # --- syncDeployment -------------------------------------------------------

    def sync_deployment(
        self, d: RS, all_rss_in_namespace: Sequence[RS], pod_map: Callable[[Sequence[RS]], PodMap]
    ) -> None:
        """syncDeployment: `d` is a private copy (it is changed); ReplicaSets are only read."""
        selector = _spec(d).get("selector")
        if _selects_everything(selector):
            status = d.setdefault("status", {})
            if int(status.get("observedGeneration") or 0) < int(_meta(d).get("generation") or 0):
                status["observedGeneration"] = _meta(d).get("generation")
                self._update_status(d)
            return
        rs_list = self.replicasets_for_deployment(d, all_rss_in_namespace)
        if _meta(d).get("deletionTimestamp"):
            self.sync_status_only(d, rs_list)
            return
        self.check_paused_conditions(d)
        if _spec(d).get("paused"):
            self.sync(d, rs_list)
            return
        if _rollback_to(d) is not None:
            self.rollback(d, rs_list)
            return
        if self.is_scaling_event(d, rs_list):
            self.sync(d, rs_list)
            return
        kind = _strategy_type(d)
        if kind == "Recreate":
            self.rollout_recreate(d, rs_list, pod_map(rs_list))
        elif kind == "RollingUpdate":
            self.rollout_rolling(d, rs_list)
        else:
            raise SyncError(f"unexpected deployment strategy type: {kind}")

    def replicasets_for_deployment(self, d: Mapping[str, Any], rss: Sequence[RS]) -> list[RS]:
        """getReplicaSetsForDeployment: claim by selector (adopt orphans, release strays)."""
        try:
            selector = LabelSelector.from_dict(_spec(d).get("selector"))
        except ApiError as exc:
            raise SyncError(f"deployment {_meta(d).get('namespace')}/{_name(d)} has invalid label selector: {exc.message}") from exc
        claimed, errors = claim_objects(
            d, selector, rss,
            adopt=lambda rs: self.writes.patch_replicaset(rs, adopt_patch(d, rs)),
            release=lambda rs: self.writes.patch_replicaset(rs, release_patch(d, rs)),
        )
        if errors:
            raise errors[0]
        return [rs if isinstance(rs, dict) else dict(rs) for rs in claimed]

    def _update_status(self, d: RS) -> None:
        stored = self.writes.update_deployment_status(d)
        d.setdefault("metadata", {})["resourceVersion"] = _meta(stored).get("resourceVersion")

    # --- sync.go ----------------------------------------------------------------

    def sync_status_only(self, d: RS, rs_list: list[RS]) -> None:
        """syncStatusOnly."""
        new_rs, old_rss = self.get_all_replicasets_and_sync_revision(d, rs_list, False)
        self.sync_deployment_status([*old_rss, new_rs], new_rs, d)

    def sync(self, d: RS, rs_list: list[RS]) -> None:
        """sync: scaling events and paused Deployments."""
        new_rs, old_rss = self.get_all_replicasets_and_sync_revision(d, rs_list, False)
        self.scale(d, new_rs, old_rss)
        if _spec(d).get("paused") and _rollback_to(d) is None:
            self.cleanup_deployment(old_rss, d)
        self.sync_deployment_status([*old_rss, new_rs], new_rs, d)

    def check_paused_conditions(self, d: RS) -> None:
        """checkPausedConditions: Progressing=Unknown DeploymentPaused/DeploymentResumed."""
        if not has_progress_deadline(d):
            return
        status = d.setdefault("status", {})
        cond = get_condition(status, PROGRESSING)
        if cond is not None and cond.get("reason") == TIMED_OUT_REASON:
            return
        paused_exists = cond is not None and cond.get("reason") == PAUSED_DEPLOY_REASON
        paused = bool(_spec(d).get("paused"))
        if paused and not paused_exists:
            set_condition(status, new_condition(PROGRESSING, "Unknown", PAUSED_DEPLOY_REASON,
                                                "Deployment is paused", self.timestamp))
        elif not paused and paused_exists:
            set_condition(status, new_condition(PROGRESSING, "Unknown", RESUMED_DEPLOY_REASON,
                                                "Deployment is resumed", self.timestamp))
        else:
            return
        self._update_status(d)

    def get_all_replicasets_and_sync_revision(
        self, d: RS, rs_list: list[RS], create: bool
    ) -> tuple[RS | None, list[RS]]:
        """getAllReplicaSetsAndSyncRevision: (new RS, all old RSs)."""
        _, all_old = find_old_replicasets(d, rs_list)
        new_rs = self.get_new_replicaset(d, rs_list, all_old, create)
        return new_rs, all_old

    def get_new_replicaset(self, d: RS, rs_list: list[RS], old_rss: list[RS], create: bool) -> RS | None:
        """getNewReplicaSet: sync the existing new RS's annotations, or create it."""
        existing = find_new_replicaset(d, rs_list)
        new_revision = str(max_revision(old_rss) + 1)
        status = d.setdefault("status", {})
        if existing is not None:
            rs_copy = copy_tree(existing)
            annotations_updated = set_new_replicaset_annotations(d, rs_copy, new_revision, True,
                                                                 MAX_REV_HISTORY_LENGTH_IN_CHARS)
            min_ready = int(_spec(d).get("minReadySeconds") or 0)
            if annotations_updated or int(_spec(rs_copy).get("minReadySeconds") or 0) != min_ready:
                _set_min_ready(rs_copy, min_ready)
                return self.writes.update_replicaset(rs_copy)
            needs_update = set_deployment_revision(
                d, ((rs_copy.get("metadata") or {}).get("annotations") or {}).get(REVISION_ANNOTATION, "")
            )
            if has_progress_deadline(d) and get_condition(status, PROGRESSING) is None:
                set_condition(status, new_condition(PROGRESSING, "True", FOUND_NEW_RS_REASON,
                                                    f'Found new replica set "{_name(rs_copy)}"', self.timestamp))
                needs_update = True
            if needs_update:
                self._update_status(d)
            return rs_copy
        if not create:
            return None
        template = copy_tree(_spec(d).get("template") or {})
        collision = status.get("collisionCount")
        pod_hash = compute_hash(template, collision)
        labels = dict(((_spec(d).get("template") or {}).get("metadata") or {}).get("labels") or {})
        labels[DEFAULT_UNIQUE_LABEL_KEY] = pod_hash
        template.setdefault("metadata", {})["labels"] = labels
        selector = copy_tree(_spec(d).get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), DEFAULT_UNIQUE_LABEL_KEY: pod_hash}
        new_rs: RS = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{_name(d)}-{pod_hash}",
                "namespace": _meta(d).get("namespace") or "default",
                "labels": dict(labels),
                "ownerReferences": [new_controller_ref(d)],
            },
            "spec": {"replicas": 0, "selector": selector, "template": template},
        }
        _set_min_ready(new_rs, int(_spec(d).get("minReadySeconds") or 0))
        replicas = new_rs_new_replicas(d, [*old_rss, new_rs], new_rs)
        new_rs["spec"]["replicas"] = replicas
        set_new_replicaset_annotations(d, new_rs, new_revision, False, MAX_REV_HISTORY_LENGTH_IN_CHARS)
        already_exists = False
        try:
            created = self.writes.create_replicaset(new_rs)
        except AlreadyExists as exc:
            already_exists = True
            found = self.writes.get_replicaset(_meta(new_rs)["namespace"], _name(new_rs))
            ref = controller_ref(found)
            if not (ref is not None and ref.get("uid") == _uid(d)
                    and equal_ignore_hash(_spec(d).get("template"), _spec(found).get("template"))):
                status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
                self._update_status(d)
                raise SyncError(exc.message) from exc
            created = found
        except ApiError as exc:
            if _NAMESPACE_TERMINATING in exc.message:
                raise SyncError(exc.message) from exc
            msg = f'Failed to create new replica set "{_name(new_rs)}": {exc.message}'
            if has_progress_deadline(d):
                set_condition(status, new_condition(PROGRESSING, "False", FAILED_RS_CREATE_REASON, msg, self.timestamp))
                try:
                    self._update_status(d)
                except ApiError:
                    pass
            raise SyncError(msg) from exc
        needs_update = set_deployment_revision(d, new_revision)
        if not already_exists and has_progress_deadline(d):
            set_condition(status, new_condition(PROGRESSING, "True", NEW_RS_REASON,
                                                f'Created new replica set "{_name(created)}"', self.timestamp))
            needs_update = True
        if needs_update:
            self._update_status(d)
        return created

    def scale(self, d: RS, new_rs: RS | None, old_rss: list[RS]) -> None:
        """scale: grow/shrink the only active RS, or spread a size change proportionally."""
        active_or_latest = _find_active_or_latest(new_rs, old_rss)
        replicas = spec_replicas(d)
        if active_or_latest is not None:
            if spec_replicas(active_or_latest) == replicas:
                return
            self.scale_replicaset_and_record(active_or_latest, replicas, d)
            return
        if is_saturated(d, new_rs):
            for old in filter_active(old_rss):
                self.scale_replicaset_and_record(old, 0, d)
            return
        if not is_rolling_update(d):
            return
        all_rss = filter_active([*old_rss, new_rs])
        allowed = replicas + max_surge(d) if replicas > 0 else 0
        to_add = allowed - replica_count(all_rss)
        operation = ""
        if to_add > 0:
            sort_by_size_newer(all_rss)
            operation = "up"
        elif to_add < 0:
            sort_by_size_older(all_rss)
            operation = "down"
        added = 0
        sizes: dict[str, int] = {}
        for rs in all_rss:
            if to_add != 0:
                proportion = get_proportion(rs, d, to_add, added)
                sizes[_name(rs)] = spec_replicas(rs) + proportion
                added += proportion
            else:
                sizes[_name(rs)] = spec_replicas(rs)
        for i, rs in enumerate(all_rss):
            if i == 0 and to_add != 0:
                sizes[_name(rs)] = max(sizes[_name(rs)] + to_add - added, 0)
            self.scale_replicaset(rs, sizes[_name(rs)], d, operation)

    def scale_replicaset_and_record(self, rs: RS, new_scale: int, d: RS) -> tuple[bool, RS]:
        """scaleReplicaSetAndRecordEvent: (scaled, the RS afterwards)."""
        if spec_replicas(rs) == new_scale:
            return False, rs
        return self.scale_replicaset(rs, new_scale, d, "up" if spec_replicas(rs) < new_scale else "down")

    def scale_replicaset(self, rs: RS, new_scale: int, d: RS, operation: str) -> tuple[bool, RS]:
        """scaleReplicaSet: set spec.replicas and the replicas annotations; one update at most."""
        size_changes = spec_replicas(rs) != new_scale
        replicas = spec_replicas(d)
        maximum = replicas + max_surge(d)
        if not size_changes and not replicas_annotations_need_update(rs, replicas, maximum):
            return False, rs
        rs_copy = copy_tree(rs)
        rs_copy.setdefault("spec", {})["replicas"] = new_scale
        set_replicas_annotations(rs_copy, replicas, maximum)
        updated = self.writes.update_replicaset(rs_copy)
        return size_changes, updated

    def cleanup_deployment(self, old_rss: Sequence[RS], d: Mapping[str, Any]) -> None:
        """cleanupDeployment: delete the oldest empty ReplicaSets beyond revisionHistoryLimit."""
        if not has_revision_history_limit(d):
            return
        cleanable = [rs for rs in old_rss if rs is not None and not _meta(rs).get("deletionTimestamp")]
        diff = len(cleanable) - int(_spec(d)["revisionHistoryLimit"])
        if diff <= 0:
            return
        sort_by_revision(cleanable)
        for rs in cleanable[:diff]:
            status = rs.get("status") or {}
            if (int(status.get("replicas") or 0) != 0 or spec_replicas(rs) != 0
                    or int(_meta(rs).get("generation") or 0) > int(status.get("observedGeneration") or 0)
                    or _meta(rs).get("deletionTimestamp")):
                continue
            self.writes.delete_replicaset(rs)

    def sync_deployment_status(self, all_rss: Sequence[RS | None], new_rs: RS | None, d: RS) -> None:
        """syncDeploymentStatus: write calculateStatus when it differs."""
        new_status = calculate_status(all_rss, new_rs, d, self.timestamp)
        if (d.get("status") or {}) == new_status:
            return
        d["status"] = new_status
        self._update_status(d)

    def is_scaling_event(self, d: RS, rs_list: list[RS]) -> bool:
        """isScalingEvent: an active RS's desired-replicas annotation differs from spec.replicas."""
        new_rs, old_rss = self.get_all_replicasets_and_sync_revision(d, rs_list, False)
        for rs in filter_active([*old_rss, new_rs]):
            desired, ok = desired_replicas_annotation(rs)
            if ok and desired != spec_replicas(d):
                return True
        return False

    # --- rolling.go -------------------------------------------------------------------

    def rollout_rolling(self, d: RS, rs_list: list[RS]) -> None:
        """rolloutRolling: scale the new RS up, else old RSs down, then cleanup and status."""
        new_rs, old_rss = self.get_all_replicasets_and_sync_revision(d, rs_list, True)
        assert new_rs is not None
        all_rss: list[RS | None] = [*old_rss, new_rs]
        if self.reconcile_new_replicaset(all_rss, new_rs, d):
            self.sync_rollout_status(all_rss, new_rs, d)
            return
        if self.reconcile_old_replicasets(all_rss, filter_active(old_rss), new_rs, d):
            self.sync_rollout_status(all_rss, new_rs, d)
            return
        if deployment_complete(d, d.get("status") or {}):
            self.cleanup_deployment(old_rss, d)
        self.sync_rollout_status(all_rss, new_rs, d)

    def reconcile_new_replicaset(self, all_rss: Sequence[RS | None], new_rs: RS, d: RS) -> bool:
        """reconcileNewReplicaSet: scale the new RS towards spec.replicas within maxSurge."""
        replicas = spec_replicas(d)
        if spec_replicas(new_rs) == replicas:
            return False
        if spec_replicas(new_rs) > replicas:
            return self.scale_replicaset_and_record(new_rs, replicas, d)[0]
        count = new_rs_new_replicas(d, all_rss, new_rs)
        return self.scale_replicaset_and_record(new_rs, count, d)[0]

    def reconcile_old_replicasets(self, all_rss: Sequence[RS | None], old_rss: list[RS], new_rs: RS, d: RS) -> bool:
        """reconcileOldReplicaSets: clean up unhealthy old replicas, then scale old RSs down within maxUnavailable."""
        if replica_count(old_rss) == 0:
            return False
        all_pods = replica_count(all_rss)
        min_available = spec_replicas(d) - max_unavailable(d)
        new_unavailable = spec_replicas(new_rs) - int((new_rs.get("status") or {}).get("availableReplicas") or 0)
        max_scaled_down = all_pods - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        try:
            old_rss, cleaned = self.cleanup_unhealthy_replicas(old_rss, d, max_scaled_down)
        except (ApiError, SyncError):
            return False
        try:
            scaled_down = self.scale_down_old_replicasets_for_rolling_update([*old_rss, new_rs], old_rss, d)
        except (ApiError, SyncError):
            return False
        return cleaned + scaled_down > 0

    def cleanup_unhealthy_replicas(self, old_rss: list[RS], d: RS, max_cleanup: int) -> tuple[list[RS], int]:
        """cleanupUnhealthyReplicas: scale old RSs down by their unavailable replicas, oldest first."""
        sort_by_creation(old_rss)
        total = 0
        for i, rs in enumerate(old_rss):
            if total >= max_cleanup:
                break
            replicas = spec_replicas(rs)
            available = int((rs.get("status") or {}).get("availableReplicas") or 0)
            if replicas == 0 or replicas == available:
                continue
            count = min(max_cleanup - total, replicas - available)
            new_count = replicas - count
            if new_count > replicas:
                raise SyncError(f"when cleaning up unhealthy replicas, got invalid request to scale down "
                                f"{_meta(rs).get('namespace')}/{_name(rs)} {replicas} -> {new_count}")
            _, updated = self.scale_replicaset_and_record(rs, new_count, d)
            total += count
            old_rss[i] = updated
        return old_rss, total

    def scale_down_old_replicasets_for_rolling_update(
        self, all_rss: Sequence[RS | None], old_rss: list[RS], d: RS
    ) -> int:
        """scaleDownOldReplicaSetsForRollingUpdate: remove available old pods above minAvailable."""
        min_available = spec_replicas(d) - max_unavailable(d)
        available = available_replica_count(all_rss)
        if available <= min_available:
            return 0
        sort_by_creation(old_rss)
        total = 0
        wanted = available - min_available
        for rs in old_rss:
            if total >= wanted:
                break
            replicas = spec_replicas(rs)
            if replicas == 0:
                continue
            count = min(replicas, wanted - total)
            self.scale_replicaset_and_record(rs, replicas - count, d)
            total += count
        return total

    # --- recreate.go --------------------------------------------------------------------

    def rollout_recreate(self, d: RS, rs_list: list[RS], pod_map: PodMap) -> None:
        """rolloutRecreate: old RSs to zero, wait for their pods to go, then the new RS up."""
        new_rs, old_rss = self.get_all_replicasets_and_sync_revision(d, rs_list, False)
        all_rss: list[RS | None] = [*old_rss, new_rs]
        active_old = filter_active(old_rss)
        scaled = False
        for i, rs in enumerate(active_old):
            if spec_replicas(rs) == 0:
                continue
            did, updated = self.scale_replicaset_and_record(rs, 0, d)
            if did:
                active_old[i] = updated
                scaled = True
        if scaled:
            self.sync_rollout_status(all_rss, new_rs, d)
            return
        if old_pods_running(new_rs, old_rss, pod_map):
            self.sync_rollout_status(all_rss, new_rs, d)
            return
        if new_rs is None:
            new_rs, old_rss = self.get_all_replicasets_and_sync_revision(d, rs_list, True)
            all_rss = [*old_rss, new_rs]
        assert new_rs is not None
        self.scale_replicaset_and_record(new_rs, spec_replicas(d), d)
        if deployment_complete(d, d.get("status") or {}):
            self.cleanup_deployment(old_rss, d)
        self.sync_rollout_status(all_rss, new_rs, d)

    # --- rollback.go ---------------------------------------------------------------------

    def rollback(self, d: RS, rs_list: list[RS]) -> None:
        """rollback: copy the template of the wanted revision (0: the previous one) into the Deployment."""
        new_rs, all_old = self.get_all_replicasets_and_sync_revision(d, rs_list, True)
        all_rss = [*all_old, new_rs]
        wanted = _rollback_to(d) or 0
        if wanted == 0:
            wanted = last_revision(all_rss)
            if wanted == 0:
                self._clear_rollback_to(d)
                return
        for rs in all_rss:
            if rs is None:
                continue
            try:
                v = revision(rs)
            except ValueError:
                continue
            if v == wanted:
                if not equal_ignore_hash(_spec(d).get("template"), _spec(rs).get("template")):
                    template = copy_tree(_spec(rs).get("template") or {})
                    labels = dict((template.get("metadata") or {}).get("labels") or {})
                    labels.pop(DEFAULT_UNIQUE_LABEL_KEY, None)
                    template.setdefault("metadata", {})["labels"] = labels
                    d.setdefault("spec", {})["template"] = template
                    set_deployment_annotations_to(d, rs)
                self._clear_rollback_to(d)
                return
        self._clear_rollback_to(d)

    def _clear_rollback_to(self, d: RS) -> None:
        """updateDeploymentAndClearRollbackTo."""
        annotations = dict(_meta(d).get("annotations") or {})
        annotations.pop(ROLLBACK_TO_ANNOTATION, None)
        d.setdefault("metadata", {})["annotations"] = annotations
        stored = self.writes.update_deployment(d)
        d["metadata"]["resourceVersion"] = _meta(stored).get("resourceVersion")

    # --- progress.go ---------------------------------------------------------------------

    def sync_rollout_status(self, all_rss: Sequence[RS | None], new_rs: RS | None, d: RS) -> None:
        """syncRolloutStatus: status plus the Progressing and ReplicaFailure conditions."""
        new_status = calculate_status(all_rss, new_rs, d, self.timestamp)
        if not has_progress_deadline(d):
            remove_condition(new_status, PROGRESSING)
        current = get_condition(d.get("status") or {}, PROGRESSING)
        complete_before = (int(new_status.get("replicas") or 0) == int(new_status.get("updatedReplicas") or 0)
                           and current is not None and current.get("reason") == NEW_RS_AVAILABLE_REASON)
        if has_progress_deadline(d) and not complete_before:
            rs_name = _name(new_rs) if new_rs is not None else None
            if deployment_complete(d, new_status):
                msg = (f'ReplicaSet "{rs_name}" has successfully progressed.' if rs_name
                       else f'Deployment "{_name(d)}" has successfully progressed.')
                set_condition(new_status, new_condition(PROGRESSING, "True", NEW_RS_AVAILABLE_REASON, msg, self.timestamp))
            elif deployment_progressing(d, new_status):
                msg = (f'ReplicaSet "{rs_name}" is progressing.' if rs_name
                       else f'Deployment "{_name(d)}" is progressing.')
                condition = new_condition(PROGRESSING, "True", RS_UPDATED_REASON, msg, self.timestamp)
                if current is not None:
                    if current.get("status") == "True":
                        condition["lastTransitionTime"] = current.get("lastTransitionTime")
                    remove_condition(new_status, PROGRESSING)
                set_condition(new_status, condition)
            elif deployment_timed_out(d, new_status, self.now):
                msg = (f'ReplicaSet "{rs_name}" has timed out progressing.' if rs_name
                       else f'Deployment "{_name(d)}" has timed out progressing.')
                set_condition(new_status, new_condition(PROGRESSING, "False", TIMED_OUT_REASON, msg, self.timestamp))
        failures = _replica_failures(all_rss, new_rs)
        if failures:
            set_condition(new_status, failures[0])
        else:
            remove_condition(new_status, REPLICA_FAILURE)
        if (d.get("status") or {}) == new_status:
            self.requeue_stuck_deployment(d, new_status)
            return
        d["status"] = new_status
        self._update_status(d)

    def requeue_stuck_deployment(self, d: RS, new_status: Mapping[str, Any]) -> None:
        """requeueStuckDeployment: look again when the progress deadline runs out.

        Upstream re-queues at lastUpdateTime + progressDeadlineSeconds + 1 s (or at once,
        rate limited, when less than a second is left); in simulated time the Deployment is
        woken at the first instant after the deadline, when DeploymentTimedOut turns true.
        """
        current = get_condition(d.get("status") or {}, PROGRESSING)
        if not has_progress_deadline(d) or current is None:
            return
        if deployment_complete(d, new_status) or current.get("reason") == TIMED_OUT_REASON:
            return
        deadline = progress_deadline(d, d.get("status") or {})
        if deadline is not None:
            self.requeue_at = deadline + timedelta(microseconds=1)


def _set_min_ready(rs: RS, seconds: int) -> None:
    spec = rs.setdefault("spec", {})
    if seconds:
        spec["minReadySeconds"] = seconds
    else:
        spec.pop("minReadySeconds", None)


def _find_active_or_latest(new_rs: RS | None, old_rss: list[RS]) -> RS | None:
    """FindActiveOrLatest (sorts old_rss newest first, as upstream does in place)."""
    if new_rs is None and not old_rss:
        return None
    sort_by_creation(old_rss)
    old_rss.reverse()
    active = filter_active([*old_rss, new_rs])
    if not active:
        return new_rs if new_rs is not None else old_rss[0]
    if len(active) == 1:
        return active[0]
    return None


def _replica_failures(all_rss: Sequence[RS | None], new_rs: RS | None) -> list[dict[str, Any]]:
    """getReplicaFailures: the new RS's ReplicaFailure conditions, else any old one's."""
    out: list[dict[str, Any]] = []
    if new_rs is not None:
        out = [rs_to_deployment_condition(c) for c in (new_rs.get("status") or {}).get("conditions") or ()
               if c.get("type") == REPLICA_FAILURE]
    if out:
        return out
    for rs in all_rss:
        if rs is None:
            continue
        out.extend(rs_to_deployment_condition(c) for c in (rs.get("status") or {}).get("conditions") or ()
                   if c.get("type") == REPLICA_FAILURE)
    return out

