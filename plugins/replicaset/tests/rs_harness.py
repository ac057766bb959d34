"""The Deployment and ReplicaSet controllers' world: kubesim.testing's SimEnv with the plugin's
admission, a log of every write, and a stand-in for the scheduler and the kubelet
(`bind_and_ready`) for pods the test wants running."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubesim import testing
from kubesim.cluster import Admitter, WatchEvent, copy_tree
from kubesim.controllers import ControllerFactory
from kubesim.testing import SimEnv
from kubesim_replicaset.deployment import DeploymentController
from kubesim_replicaset.replicaset import ReplicaSetController


class World(SimEnv):
    """The controllers under test (default: both) on a fresh cluster; the test's own writes are the scenario's."""

    def __init__(self, *factories: ControllerFactory, admitters: Iterable[Admitter] = (), seed: int = 0) -> None:
        self.writes: list[tuple[str, str, str, str]] = []
        super().__init__(factories or (DeploymentController, ReplicaSetController), seed=seed,
                         admitters=admitters)
        self.cluster.watch(self._count)

    def _count(self, event: WatchEvent) -> None:
        meta = event.object.get("metadata") or {}
        self.writes.append((event.actor, event.type if event.subresource is None else f"{event.type}/{event.subresource}",
                            event.object.get("kind"), meta.get("name", "")))

    def writes_by(self, actor: str, kind: str | None = None) -> list[tuple[str, str, str, str]]:
        return [w for w in self.writes if w[0] == actor and (kind is None or w[2] == kind)]

    def pods(self, namespace: str = "default", *, label: str | None = None) -> list[dict[str, Any]]:
        return self.list("v1", "Pod", namespace, label_selector=label)

    def replicasets(self, namespace: str = "default") -> list[dict[str, Any]]:
        return self.list("apps/v1", "ReplicaSet", namespace)

    def bind_and_ready(self, pods: Iterable[dict[str, Any]] | None = None, node: str = "node-1") -> int:
        """Bind the given (default: every unbound, not deleted) pods to `node` and mark them Ready."""
        todo = [p for p in (self.pods() if pods is None else pods)
                if not (p.get("spec") or {}).get("nodeName") and not p["metadata"].get("deletionTimestamp")]
        for p in todo:
            self.cluster.bind(p["metadata"]["namespace"], p["metadata"]["name"], node, actor="scheduler")
            self.set_ready(p["metadata"]["name"])
        return len(todo)

    def set_ready(self, name: str, ready: bool = True, namespace: str = "default") -> None:
        pod = copy_tree(self.get("v1", "Pod", name, namespace))
        status = pod.setdefault("status", {})
        status["phase"] = "Running"
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"]
        conditions.append({"type": "Ready", "status": "True" if ready else "False",
                           "lastTransitionTime": self.clock.timestamp()})
        status["conditions"] = conditions
        self.cluster.update(pod, actor="kubelet", subresource="status")


def rs_object(name: str, replicas: int, labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    """A ReplicaSet selecting `labels` with one container c: foo/bar."""
    return testing.replicaset(name, replicas, labels=labels, image="foo/bar", container="c", spec=spec)


def deployment_object(name: str, replicas: int, labels: dict[str, str], image: str = "foo/bar:1",
                      **spec: Any) -> dict[str, Any]:
    """A Deployment selecting `labels` with one container c."""
    return testing.deployment(name, replicas, labels=labels, image=image, container="c", spec=spec)


def pod_object(name: str, labels: dict[str, str], owner: dict[str, Any] | None = None,
               controller: bool = True) -> dict[str, Any]:
    """A bare pod, optionally owned by `owner` (as its controller unless told otherwise)."""
    pod = testing.pod(name, labels=labels, image="foo/bar", container="c")
    if owner is not None:
        pod["metadata"]["ownerReferences"] = [testing.owner_reference(owner, controller=controller)]
    return pod
