"""The Deployment controller as a kubesim controller: event handlers, the work loop, the waiter.

Event handling follows k8s.io/kubernetes pkg/controller/deployment/deployment_controller.go
(addDeployment..., addReplicaSet/updateReplicaSet/deleteReplicaSet with orphan adoption,
deletePod for Recreate Deployments). A failed sync is retried after the workqueue's
per-item exponential backoff (5 ms doubling, at most 1000 s) in simulated time.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any, cast

from kubesim import ReconcileController, Runtime
from kubesim.cluster import LabelSelector, WatchEvent, copy_tree
from kubesim.controllers import Client
from kubesim.errors import ApiError, NotFound
from kubesim.k8s.intorpercent import IntOrPercentError

from ..ownership import controller_ref
from .sync import DeploymentSync, PodMap, SyncError

__all__ = ["ClientWrites", "DeploymentController", "DryRunWrites", "WouldWrite", "deployment_settled"]

_API = "apps/v1"
_BACKOFF_BASE = timedelta(milliseconds=5)
_BACKOFF_MAX = timedelta(seconds=1000)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _key(obj: Mapping[str, Any]) -> tuple[str, str]:
    return (_meta(obj).get("namespace") or "default", _meta(obj).get("name") or "")


class ClientWrites:
    """Writes through the controller's client (so the timeline attributes them to it)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def create_replicaset(self, rs: dict[str, Any]) -> dict[str, Any]:
        return self.client.create(rs)

    def update_replicaset(self, rs: dict[str, Any]) -> dict[str, Any]:
        return self.client.update(rs)

    def patch_replicaset(self, rs: Mapping[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
        ns, name = _key(rs)
        return self.client.patch(_API, "ReplicaSet", name, patch, "application/strategic-merge-patch+json",
                                 namespace=ns)

    def delete_replicaset(self, rs: Mapping[str, Any]) -> None:
        ns, name = _key(rs)
        try:
            self.client.delete(_API, "ReplicaSet", name, ns)
        except NotFound:
            pass

    def get_replicaset(self, namespace: str, name: str) -> dict[str, Any]:
        return self.client.get(_API, "ReplicaSet", name, namespace)

    def update_deployment(self, d: dict[str, Any]) -> dict[str, Any]:
        return self.client.update(d)

    def update_deployment_status(self, d: dict[str, Any]) -> dict[str, Any]:
        """UpdateStatus. Upstream's status subresource also takes the Deployment's annotations
        (the revision annotation travels that way); kubesim's keeps metadata as stored, so a
        changed annotation set is written first with a plain update."""
        ns, name = _key(d)
        stored = self.client.get(_API, "Deployment", name, ns)
        annotations = _meta(d).get("annotations") or {}
        if (_meta(stored).get("annotations") or {}) != annotations:
            meta_update = copy_tree(stored)
            if annotations:
                meta_update["metadata"]["annotations"] = copy_tree(dict(annotations))
            else:
                meta_update["metadata"].pop("annotations", None)
            stored = self.client.update(meta_update)
        new = copy_tree(stored)
        new["status"] = copy_tree(d.get("status") or {})
        return self.client.update_status(new)


class WouldWrite(Exception):
    """Raised by DryRunWrites at the first write a sync attempts."""


class DryRunWrites:
    """Reads like ClientWrites; any write stops the sync with WouldWrite."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def _stop(self, *_: Any) -> Any:
        raise WouldWrite()

    create_replicaset = update_replicaset = patch_replicaset = delete_replicaset = _stop
    update_deployment = update_deployment_status = _stop

    def get_replicaset(self, namespace: str, name: str) -> dict[str, Any]:
        return self.client.get(_API, "ReplicaSet", name, namespace)


def deployment_settled(sync: DeploymentSync, d: Mapping[str, Any], rss: Sequence[dict[str, Any]],
                       pod_map: Any) -> bool:
    """The waiter's condition for one Deployment: a sync would write nothing, and the status
    reflects the current generation (observedGeneration == generation)."""
    if int((d.get("status") or {}).get("observedGeneration") or 0) != int(_meta(d).get("generation") or 0):
        return False
    try:
        sync.sync_deployment(copy_tree(dict(d)), rss, pod_map)
    except WouldWrite:
        return False
    except (ApiError, SyncError, ValueError):  # a sync that fails is not done; the real one reports why
        return False
    return True


class DeploymentController(ReconcileController):
    """Rolls Deployments out through ReplicaSets (RollingUpdate, Recreate, scaling, rollback)."""

    name = "deployment"
    watches = ((_API, "Deployment"), (_API, "ReplicaSet"), ("v1", "Pod"))

    def __init__(self, runtime: Runtime) -> None:
        self._failures: dict[Hashable, int] = {}
        self.blocked: set[Hashable] = set()
        """Deployments whose last sync failed on an API error; they count as settled until
        something changes (an event re-queues them) or the backoff retry runs."""
        super().__init__(runtime)

    # --- event handlers --------------------------------------------------------------

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        return [_key(obj)] if obj.get("kind") == "Deployment" else ()

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        kind = event.object.get("kind")
        if kind == "Deployment":
            return [_key(event.object)]
        if kind == "ReplicaSet":
            return self._replicaset_keys(event)
        return self._pod_keys(event)

    def _owner(self, obj: Mapping[str, Any], ref: Mapping[str, Any] | None) -> list[Hashable]:
        if ref is None or ref.get("kind") != "Deployment" or not str(ref.get("apiVersion", "")).startswith("apps/"):
            return []
        return [(_meta(obj).get("namespace") or "default", ref.get("name", ""))]

    def _deployments_for(self, rs: Mapping[str, Any]) -> list[Hashable]:
        """getDeploymentsForReplicaSet: Deployments whose (non-empty) selector matches the RS's labels."""
        ns = _meta(rs).get("namespace") or "default"
        labels = _meta(rs).get("labels")
        if not labels:
            return []
        keys: list[Hashable] = []
        for d in self.reader.list(_API, "Deployment", ns):
            try:
                selector = LabelSelector.from_dict((d.get("spec") or {}).get("selector"))
            except ApiError:
                continue
            if not selector.empty and selector.matches(labels):
                keys.append(_key(d))
        return keys

    def _replicaset_keys(self, event: WatchEvent) -> list[Hashable]:
        rs, old = event.object, event.old_object
        ref = controller_ref(rs)
        if event.type in ("ADDED", "DELETED") or _meta(rs).get("deletionTimestamp"):
            if ref is not None or event.type == "DELETED":
                return self._owner(rs, ref)
            return self._deployments_for(rs)
        keys: list[Hashable] = []
        old_ref = controller_ref(old) if old is not None else None
        if old_ref != ref and old_ref is not None and old is not None:
            keys += self._owner(old, old_ref)
        if ref is not None:
            return keys + self._owner(rs, ref)
        labels_changed = old is not None and _meta(old).get("labels") != _meta(rs).get("labels")
        if labels_changed or old_ref != ref:
            keys += self._deployments_for(rs)
        return keys

    def _pod_keys(self, event: WatchEvent) -> list[Hashable]:
        """deletePod: a Recreate Deployment waits for its old pods to go."""
        if event.type != "DELETED":
            return []
        ref = controller_ref(event.object)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return []
        ns = _meta(event.object).get("namespace") or "default"
        try:
            rs = self.reader.get(_API, "ReplicaSet", ref.get("name", ""), ns)
        except NotFound:
            return []
        keys = self._owner(rs, controller_ref(rs))
        for key in keys:
            try:
                d = self.reader.get(_API, "Deployment", key[1], key[0])  # type: ignore[index]
            except NotFound:
                return []
            if ((d.get("spec") or {}).get("strategy") or {}).get("type") != "Recreate":
                return []
        return keys

    # --- the sync ----------------------------------------------------------------------

    def _pod_map(self, d: Mapping[str, Any]) -> Any:
        """getPodMapForDeployment, computed when a Recreate rollout asks for it."""

        def build(rs_list: Sequence[Mapping[str, Any]]) -> PodMap:
            selector = LabelSelector.from_dict((d.get("spec") or {}).get("selector"))
            pod_map: dict[str, list[Mapping[str, Any]]] = {str(_meta(rs).get("uid")): [] for rs in rs_list}
            for pod in self.reader.list("v1", "Pod", _meta(d).get("namespace") or "default"):
                if not selector.matches(_meta(pod).get("labels")):
                    continue
                ref = controller_ref(pod)
                if ref is not None and ref.get("uid") in pod_map:
                    pod_map[str(ref["uid"])].append(pod)
            return pod_map

        return build

    def _sync(self, writes: Any) -> DeploymentSync:
        return DeploymentSync(writes, self.runtime.clock.now(), self.runtime.clock.timestamp())

    def reconcile(self, key: Hashable) -> None:
        namespace, name = cast(tuple[str, str], key)
        try:
            d = self.reader.get(_API, "Deployment", name, namespace)
        except NotFound:
            self._failures.pop(key, None)
            self.blocked.discard(key)
            return
        sync = self._sync(ClientWrites(self.client))
        rss = self.reader.list(_API, "ReplicaSet", namespace)
        try:
            sync.sync_deployment(d, rss, self._pod_map(d))
        except (ApiError, SyncError, IntOrPercentError) as exc:
            self.blocked.add(key)
            failures = self._failures.get(key, 0)
            self._failures[key] = failures + 1
            self.log.info("deployment sync failed, retrying later", deployment=f"{namespace}/{name}",
                          error=getattr(exc, "message", str(exc)))
            self.queue.add_after(key, self.runtime.clock.now() + min(_BACKOFF_BASE * (2**failures), _BACKOFF_MAX))
            return
        self._failures.pop(key, None)
        self.blocked.discard(key)
        if sync.requeue_at is not None:
            self.queue.add_after(key, sync.requeue_at)

    # --- waiter ---------------------------------------------------------------------------

    def settled(self) -> bool:
        """Every Deployment is settled (`deployment_settled`) or blocked on a failed write."""
        deployments = self.reader.list(_API, "Deployment")
        if not deployments:  # the common case when settling after each binding: nothing to build
            return True
        dry = self._sync(DryRunWrites(self.client))
        for d in deployments:
            key = _key(d)
            if key in self.blocked:
                continue
            rss = self.reader.list(_API, "ReplicaSet", key[0])
            if not deployment_settled(dry, d, rss, self._pod_map(d)):
                self.log.debug("deployment not settled", deployment=f"{key[0]}/{key[1]}")
                return False
        return True
