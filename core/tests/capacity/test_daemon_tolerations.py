"""The tolerations a template node's DaemonSet pods get (upstream AddOrUpdateDaemonPodTolerations)."""

from __future__ import annotations

from kubesim.capacity.addition import daemon_tolerations

ALWAYS = [("node.kubernetes.io/not-ready", "NoExecute"), ("node.kubernetes.io/unreachable", "NoExecute"),
          ("node.kubernetes.io/disk-pressure", "NoSchedule"), ("node.kubernetes.io/memory-pressure", "NoSchedule"),
          ("node.kubernetes.io/pid-pressure", "NoSchedule"), ("node.kubernetes.io/unschedulable", "NoSchedule")]


def _pairs(tolerations: list[dict[str, str]]) -> list[tuple[str, str]]:
    return [(t.get("key", ""), t.get("effect", "")) for t in tolerations]


def test_every_daemon_pod_tolerates_the_node_condition_taints() -> None:
    got = daemon_tolerations({})
    assert _pairs(got) == ALWAYS
    assert all(t["operator"] == "Exists" for t in got)


def test_host_network_pods_also_tolerate_network_unavailable() -> None:
    assert _pairs(daemon_tolerations({"hostNetwork": True})) == [*ALWAYS,
                                                                 ("node.kubernetes.io/network-unavailable", "NoSchedule")]


def test_the_template_tolerations_stay_first_and_matching_ones_are_replaced() -> None:
    own = [{"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"},
           # matches (key, operator, value, effect): replaced by the controller's, without the seconds
           {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
           # another operator and value: the controller's own is appended beside it
           {"key": "node.kubernetes.io/unschedulable", "operator": "Equal", "value": "x", "effect": "NoSchedule"}]
    got = daemon_tolerations({"tolerations": own})
    assert got[0] == own[0] and got[2] == own[2]
    assert got[1] == {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}
    assert _pairs(got).count(("node.kubernetes.io/not-ready", "NoExecute")) == 1
    assert _pairs(got).count(("node.kubernetes.io/unschedulable", "NoSchedule")) == 2
    assert len(got) == 3 + len(ALWAYS) - 1
