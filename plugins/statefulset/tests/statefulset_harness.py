"""Test world for the StatefulSet controller: a cluster with the StatefulSet admission, a clock,
the controller (and optionally the kubelet), and helpers that play the kubelet by hand as
upstream's fakeStatefulPodControl does (setPodRunning, setPodReady, ...)."""

from __future__ import annotations

from typing import Any

from kubesim import testing
from kubesim.cluster import WatchEvent, copy_tree
from kubesim.controllers import ControllerFactory
from kubesim.errors import NotFound
from kubesim.testing import SimEnv
from kubesim_statefulset import StatefulSetController
from kubesim_statefulset.identity import is_running_and_ready, ordinal_of


class Sim(SimEnv):
    """The StatefulSet controller (plus `extra` controllers) on a fresh cluster."""

    def __init__(self, *extra: ControllerFactory) -> None:
        super().__init__((StatefulSetController, *extra))
        self.log: list[WatchEvent] = []
        self.cluster.watch(self.log.append)

    @property
    def ssc(self) -> StatefulSetController:
        return self.controllers[0]  # type: ignore[return-value]

    # --- objects ---------------------------------------------------------------------

    def sts(self, name: str = "foo") -> dict[str, Any]:
        return self.cluster.get("apps/v1", "StatefulSet", name, "default")

    def pods(self, set_name: str = "foo") -> list[dict[str, Any]]:
        """The set's member pods, by ordinal."""
        pods = [p for p in self.cluster.list("v1", "Pod", "default")
                if p["metadata"]["name"].rsplit("-", 1)[0] == set_name]
        return sorted(pods, key=ordinal_of)

    def names(self, set_name: str = "foo") -> list[str]:
        return [p["metadata"]["name"] for p in self.pods(set_name)]

    def revisions(self) -> list[dict[str, Any]]:
        return sorted(self.cluster.list("apps/v1", "ControllerRevision", "default"), key=lambda r: r["revision"])

    def patch_set(self, patch: dict[str, Any], name: str = "foo") -> None:
        self.cluster.patch("apps/v1", "StatefulSet", name, patch, "application/merge-patch+json",
                           namespace="default")

    # --- playing the kubelet ---------------------------------------------------------

    def set_phase(self, name: str, phase: str) -> None:
        pod = self.cluster.get("v1", "Pod", name, "default")
        pod["status"]["phase"] = phase
        self.cluster.update(pod, actor="kubelet", subresource="status")

    def set_ready(self, name: str, ready: bool = True) -> None:
        pod = self.cluster.get("v1", "Pod", name, "default")
        conditions = [c for c in pod["status"].get("conditions") or () if c["type"] != "Ready"]
        conditions.append({"type": "Ready", "status": "True" if ready else "False",
                           "lastTransitionTime": self.clock.timestamp()})
        pod["status"]["conditions"] = conditions
        self.cluster.update(pod, actor="kubelet", subresource="status")

    def run_and_ready(self, name: str) -> None:
        self.set_phase(name, "Running")
        self.set_ready(name)

    def scale_up(self, set_name: str = "foo") -> None:
        """scaleUpStatefulSetControl: make pods Running then Ready in ordinal order until all are."""
        for _ in range(1000):
            self.settle()
            pods = self.pods(set_name)
            waiting = [p for p in pods if not is_running_and_ready(p) and not p["metadata"].get("deletionTimestamp")]
            sts = self.sts(set_name)
            if not waiting and sts["status"].get("readyReplicas", 0) == sts["spec"]["replicas"] \
                    and len(pods) == sts["spec"]["replicas"]:
                return
            for p in waiting:
                self.run_and_ready(p["metadata"]["name"])
        raise AssertionError("scale up did not finish")

    def scale_down(self, set_name: str = "foo") -> None:
        """Settle until the set has no more pods than it wants."""
        for _ in range(1000):
            self.settle()
            sts = self.sts(set_name)
            if len(self.pods(set_name)) == sts["spec"]["replicas"] and sts["status"]["replicas"] == sts["spec"]["replicas"]:
                return
            for p in self.pods(set_name):
                if not is_running_and_ready(p):
                    self.run_and_ready(p["metadata"]["name"])
        raise AssertionError("scale down did not finish")

    def update_all(self, set_name: str = "foo") -> None:
        """updateStatefulSetControl: settle, re-running recreated pods, until every pod is at the update revision."""
        for _ in range(1000):
            self.scale_up(set_name)
            sts = self.sts(set_name)
            status = sts["status"]
            if status.get("updatedReplicas", 0) == sts["spec"]["replicas"] == status.get("readyReplicas", 0) \
                    and status.get("currentRevision") == status.get("updateRevision"):
                return
        raise AssertionError("update did not finish")

    def delete_pod(self, name: str) -> None:
        try:
            self.cluster.delete("v1", "Pod", name, "default")
        except NotFound:
            pass

    def created(self) -> list[str]:
        """Names of the pods the controller created, in order."""
        return [e.object["metadata"]["name"] for e in self.log
                if e.type == "ADDED" and e.object["kind"] == "Pod" and e.actor == "statefulset"]

    def deleted(self) -> list[str]:
        """Names of the pods the controller deleted (or started to delete), in order."""
        out = []
        for e in self.log:
            if e.object["kind"] != "Pod" or e.actor != "statefulset":
                continue
            if e.type == "DELETED" or (e.type == "MODIFIED" and e.object["metadata"].get("deletionTimestamp")
                                       and not (e.old_object or {}).get("metadata", {}).get("deletionTimestamp")):
                out.append(e.object["metadata"]["name"])
        return out


def new_statefulset(replicas: int, name: str = "foo", **spec: Any) -> dict[str, Any]:
    """upstream's newStatefulSet: selector foo=bar, one container nginx, governed by governingsvc."""
    return testing.statefulset(name, replicas, labels={"foo": "bar"}, service_name="governingsvc",
                               image="nginx", container="nginx", spec=spec)


def burst(sts: dict[str, Any]) -> dict[str, Any]:
    sts = copy_tree(sts)
    sts["spec"]["podManagementPolicy"] = "Parallel"
    return sts


def monotonic_invariants(sim: Sim) -> None:
    """assertMonotonicInvariants: every pod was created only after all lower ordinals were Running and Ready,
    and pods were deleted from the highest ordinal down while all lower ones were healthy."""
    def check(event: WatchEvent) -> None:
        if event.object["kind"] != "Pod" or event.actor != "statefulset":
            return
        name = event.object["metadata"]["name"]
        ordinal = ordinal_of(event.object)
        set_name = name.rsplit("-", 1)[0]
        sts = sim.cluster.get("apps/v1", "StatefulSet", set_name, "default")
        start = int((sts["spec"].get("ordinals") or {}).get("start") or 0)
        creating = event.type == "ADDED"
        if not creating:
            return
        for other in sim.pods(set_name):
            o = ordinal_of(other)
            if start <= o < ordinal:
                assert is_running_and_ready(other), f"{name} created before {other['metadata']['name']} was ready"
        for o in range(start, ordinal):
            assert any(ordinal_of(p) == o for p in sim.pods(set_name)), f"{name} created before ordinal {o}"

    sim.cluster.watch(check)
