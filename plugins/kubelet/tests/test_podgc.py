"""pod-gc: pods bound to nodes that no longer exist are marked Failed and force-deleted."""

from __future__ import annotations

from kubelet_harness import Sim, node, pod
from kubesim_kubelet import KubeletController, PodGCController


def test_pods_of_a_deleted_node_are_garbage_collected_at_once():
    sim = Sim(KubeletController, PodGCController)
    sim.create(node("n1"))
    sim.create(node("n2"))
    sim.create(pod("a", "n1"))
    sim.create(pod("b", "n2"))
    sim.create(pod("unbound"))
    sim.settle()
    seen = []
    sim.cluster.watch(lambda e: seen.append((e.type, e.actor, e.object["metadata"]["name"],
                                             (e.object.get("status") or {}).get("phase"))))
    sim.step(10)
    sim.cluster.delete("v1", "Node", "n1")
    sim.settle()
    assert not sim.exists("v1", "Pod", "a")
    assert sim.exists("v1", "Pod", "b") and sim.exists("v1", "Pod", "unbound")
    # marked Failed first (a status write), then deleted with grace period 0 although it was running
    assert [s for s in seen if s[2] == "a"] == [
        ("MODIFIED", "pod-gc", "a", "Failed"), ("DELETED", "pod-gc", "a", "Failed"),
    ]
    assert (1, "pod-gc", "delete", "Pod", "a") in sim.timeline_writes()
    sim.close()


def test_the_failed_status_carries_the_disruption_target_condition():
    sim = Sim(PodGCController)
    p = pod("orphan", "gone")
    p["metadata"]["finalizers"] = ["example.com/keep"]  # keeps the pod so its last status can be read
    sim.create(p)
    sim.settle()
    kept = sim.get("v1", "Pod", "orphan")
    assert kept["status"]["phase"] == "Failed"
    assert kept["metadata"]["deletionGracePeriodSeconds"] == 0
    condition = next(c for c in kept["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "True", "DeletionByPodGC", "PodGC: node no longer exists",
    )
    sim.close()


def test_a_terminating_pod_of_a_deleted_node_goes_too():
    sim = Sim(KubeletController, PodGCController)
    sim.create(node("n1"))
    sim.create(pod("a", "n1", grace=300))
    sim.settle()
    sim.cluster.delete("v1", "Pod", "a", "default")
    sim.settle()
    assert sim.exists("v1", "Pod", "a")
    sim.cluster.delete("v1", "Node", "n1")
    sim.settle()
    assert not sim.exists("v1", "Pod", "a")
    sim.close()


def test_pods_created_for_a_node_that_never_existed_are_collected():
    sim = Sim(PodGCController)
    sim.create(pod("p", "nowhere"))
    sim.settle()
    assert not sim.exists("v1", "Pod", "p")
    sim.close()
