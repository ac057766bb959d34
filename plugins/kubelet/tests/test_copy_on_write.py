"""The kubelet and pod-gc read stored objects without copying them (copy on write): they must
never change a stored object in place. Every object a watch delivers is snapshotted when it
is delivered and compared at the end; a controller that wrote into a stored dict breaks it."""

from __future__ import annotations

import copy
from typing import Any

from kubelet_harness import Sim, node, pod
from kubesim.cluster import WatchEvent
from kubesim_kubelet import KubeletController, PodGCController


def test_stored_objects_are_never_changed_in_place():
    sim = Sim(KubeletController, PodGCController)
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def snapshot(event: WatchEvent) -> None:
        for obj in (event.object, event.old_object):
            if obj is not None:
                seen.append((obj, copy.deepcopy(obj)))

    sim.cluster.watch(snapshot)
    try:
        sim.create(node("n1"))
        sim.create(node("n2", cpu="1"))
        sim.create(pod("a", "n1", sim_spec="- {seconds: 5, resourceUsage: {cpu: 1}}"))
        sim.create(pod("b", "n1"))
        sim.create(pod("bad", "n1", sim_spec="- {nope: 1}"))  # Failed: invalid simSpec
        too_big = pod("too-big", "n2")
        too_big["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "2"}}
        sim.create(too_big)  # Failed: over the node's capacity (rejected by the kubelet)
        sim.create(pod("c", "n2"))
        sim.settle()
        assert sim.get("v1", "Pod", "too-big")["status"]["phase"] == "Failed"
        assert sim.get("v1", "Pod", "bad")["status"]["phase"] == "Failed"
        sim.delete("v1", "Node", "n2")  # pod-gc fails and deletes its pod
        sim.settle()
        sim.delete("v1", "Pod", "b")  # graceful: the kubelet finishes it later
        sim.settle()
        assert sim.get("v1", "Pod", "a")["status"]["phase"] == "Running"
        sim.step(10)  # its simSpec ends: Succeeded
        sim.settle()
        assert sim.get("v1", "Pod", "a")["status"]["phase"] == "Succeeded"
        assert sim.get("v1", "Node", "n1")["status"]["conditions"]
    finally:
        sim.close()
    assert len(seen) > 10
    changed = [(o.get("kind"), o["metadata"].get("name")) for o, snap in seen if o != snap]
    assert changed == []
