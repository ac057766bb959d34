"""End-to-end: `kubesim capacity --add-nodes` and `--remove-nodes` against hand-computed answers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubesim.testing import KubesimRun

from .cases import node, pod, write, write_list

pytestmark = pytest.mark.needs_plugins  # runs the scheduler (and kubelet) plugins

RunKubesim = Callable[..., KubesimRun]

OWNER = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "rs-uid", "controller": True}]


def _json(run_kubesim: RunKubesim, *args: str) -> dict[str, Any]:
    run = run_kubesim("capacity", "--cluster", "cluster.json", *args, "-o", "json")
    assert run.returncode == 0, run.stderr
    out: dict[str, Any] = json.loads(run.stdout)
    return out


def test_add_nodes_minimum_by_hand(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # n1 (2 cpu) and three pending 1500m pods, plus 5 copies of a 500m pod; a 2-cpu template node
    # holds one big and one small pod exactly. 3 big pods need 3 nodes (n1 + 2 new) which also
    # take 3 small ones; the 2 small ones left need a third new node: 3.
    items = [node("n1", cpu="2"), *(pod(f"p{i}", cpu="1500m") for i in range(3))]
    write_list(tmp_path / "cluster.json", items)
    write(tmp_path / "node.json", {**node("big", cpu="2"), "metadata": {"name": "new"}})
    write(tmp_path / "pod.json", pod("web", cpu="500m"))
    answer = _json(run_kubesim, "--add-nodes", "node.json", "--pod", "pod.json", "--count", "5")
    assert answer["nodesToAdd"] == 3
    assert answer["pendingPods"] == 8
    # exponential then binary search: 0, 1, 2 fail; 4 works; 3 works
    assert [(s["nodesAdded"], s["podsPending"] == 0) for s in answer["simulations"]] == [
        (0, False), (1, False), (2, False), (4, True), (3, True)]
    assert {p["nodeName"] for p in answer["placements"]} == {"n1", "new-0", "new-1", "new-2"}
    assert answer["unschedulablePods"] == []
    # the pending pods alone: 2 new nodes (n1 + 2 for the 3 big pods)
    assert _json(run_kubesim, "--add-nodes", "node.json")["nodesToAdd"] == 2


def test_add_nodes_none_needed_and_impossible(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    write(tmp_path / "node.json", {**node("x", cpu="2"), "metadata": {"name": "new"}})
    write_list(tmp_path / "cluster.json", [node("n1", cpu="4"), pod("small", cpu="1")])
    assert _json(run_kubesim, "--add-nodes", "node.json")["nodesToAdd"] == 0
    # a 3-cpu pod never fits a 2-cpu template node: no number suffices, and the answer says why
    write_list(tmp_path / "cluster.json", [node("n1", cpu="2"), pod("huge", cpu="3")])
    answer = _json(run_kubesim, "--add-nodes", "node.json")
    assert answer["nodesToAdd"] is None
    assert answer["unschedulablePods"] == [{"pod": "default/huge", "reason": (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: "
        "1 Preemption is not helpful for scheduling.")}]
    run = run_kubesim("capacity", "--cluster", "cluster.json", "--add-nodes", "node.json")
    assert run.stdout.startswith("No number of nodes like new (up to 1) lets all 1 pending pod(s) schedule.\n")


def test_add_nodes_anti_affinity_needs_one_node_per_pod(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    items = [node("n1", cpu="8"), *(pod(f"db{i}", cpu="100m", labels={"app": "db"}, affinity=anti) for i in range(4))]
    write_list(tmp_path / "cluster.json", items)
    write(tmp_path / "node.json", {**node("x", cpu="8"), "metadata": {"name": "new"}})
    # one db pod per node: n1 takes one, 3 new nodes the others
    assert _json(run_kubesim, "--add-nodes", "node.json")["nodesToAdd"] == 3


def test_remove_nodes_least_utilised_first(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # n1 4 cpu with 2 cpu used (50%), n2 4 cpu with 1 cpu (25%), n3 4 cpu with 3 cpu (75%):
    # n2 goes first, its pod to n1 (LeastAllocated prefers n1 at 50% over n3 at 75%);
    # then n1 (now 3 cpu: a 2-cpu and a 1-cpu pod) cannot move to n3 (1 cpu free); n3 stays too.
    items = [node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4"),
             {**pod("a", cpu="2", node_name="n1"), "metadata": {"name": "a", "namespace": "default", "ownerReferences": OWNER}},
             {**pod("b", cpu="1", node_name="n2"), "metadata": {"name": "b", "namespace": "default", "ownerReferences": OWNER}},
             {**pod("c", cpu="3", node_name="n3"), "metadata": {"name": "c", "namespace": "default", "ownerReferences": OWNER}}]
    write_list(tmp_path / "cluster.json", items)
    answer = _json(run_kubesim, "--remove-nodes")
    assert answer["removableNodes"] == [{"nodeName": "n2", "utilization": "25.0%",
                                         "podsMoved": [{"pod": "default/b", "toNode": "n1"}]}]
    stays = {n["nodeName"]: n["reason"] for n in answer["unremovableNodes"]}
    assert list(stays) == ["n1", "n3"]
    assert stays["n1"].startswith("NoPlaceToMovePods: default/a: 0/1 nodes are available: 1 Insufficient cpu.")


def test_remove_nodes_drain_rules(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    ds = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "ds", "controller": True}]
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guard", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "guarded"}}, "minAvailable": 1},
           "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}

    def owned(name: str, where: str, refs: list[dict[str, Any]] = OWNER, **meta: Any) -> dict[str, Any]:
        p = pod(name, cpu="100m", node_name=where)
        p["metadata"].update(ownerReferences=refs, **meta)
        return p

    items = [node("big", cpu="8"), node("ds-only"), node("bare"), node("guarded"), node("sys"),
             owned("agent-1", "ds-only", ds), owned("agent-2", "big", ds),
             pod("lonely", cpu="100m", node_name="bare"),
             owned("g", "guarded", labels={"app": "guarded"}), pdb,
             owned("dns", "sys", namespace="kube-system"),
             owned("filler", "big", OWNER)]
    items[-1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "4"
    write_list(tmp_path / "cluster.json", items)
    answer = _json(run_kubesim, "--remove-nodes")
    # a node with only a DaemonSet pod drains with nothing to move; its utilization is the larger
    # of cpu 100m/2 = 5% and memory 1Gi/8Gi = 12.5%
    assert answer["removableNodes"] == [{"nodeName": "ds-only", "podsMoved": [], "utilization": "12.5%"}]
    assert {n["nodeName"]: n["reason"] for n in answer["unremovableNodes"]} == {
        "bare": "NotReplicated: default/lonely is not replicated",
        "guarded": "NotEnoughPdb: not enough pod disruption budget to move default/g",
        "sys": "UnmovableKubeSystemPod: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: dns",
        # 4 cpu exceeds every remaining node's 2 cpu allocatable: unresolvable, so preemption cannot help
        "big": "NoPlaceToMovePods: default/filler: 0/3 nodes are available: 3 Insufficient cpu. "
               "no new claims to deallocate, preemption: "
               "0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    }


def test_node_answers_are_byte_identical_run_to_run(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    items = [node("n1", cpu="2"), node("n2", cpu="2"), *(pod(f"p{i}", cpu="1500m") for i in range(3)),
             {**pod("b", cpu="1", node_name="n2"), "metadata": {"name": "b", "namespace": "default", "ownerReferences": OWNER}}]
    write_list(tmp_path / "cluster.json", items)
    write(tmp_path / "node.json", {**node("x", cpu="2"), "metadata": {"name": "new"}})
    for question in (["--add-nodes", "node.json"], ["--remove-nodes"]):
        runs = [run_kubesim("capacity", "--cluster", "cluster.json", *question, "-o", "json") for _ in range(2)]
        assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout and runs[0].stdout.startswith("{")


def test_remove_nodes_spends_the_pdb_budget(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # the PDB allows 1 disruption: n-a's guarded pod moves (budget now 0), n-b's cannot.
    # n-c (8 cpu, 64Gi) is least utilised (100m/8 = 1.25%, 1Gi/64Gi = 1.6%) but holds a pod
    # with no controller; n-a and n-b tie at 12.5% (memory) and go by name.
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guard", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "g"}}, "maxUnavailable": 1},
           "status": {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2}}

    def guarded(name: str, where: str) -> dict[str, Any]:
        p = pod(name, cpu="100m", node_name=where, labels={"app": "g"})
        p["metadata"]["ownerReferences"] = OWNER
        return p

    items = [node("n-a"), node("n-b"), node("n-c", cpu="8", memory="64Gi"), pdb,
             guarded("g1", "n-a"), guarded("g2", "n-b"), pod("lonely", cpu="100m", node_name="n-c")]
    write_list(tmp_path / "cluster.json", items)
    answer = _json(run_kubesim, "--remove-nodes")
    assert [(n["nodeName"], n["podsMoved"]) for n in answer["removableNodes"]] == [
        ("n-a", [{"pod": "default/g1", "toNode": "n-c"}])]
    assert [(n["nodeName"], n["reason"]) for n in answer["unremovableNodes"]] == [
        ("n-c", "NotReplicated: default/lonely is not replicated"),
        ("n-b", "NotEnoughPdb: not enough pod disruption budget to move default/g2")]


def test_add_nodes_counts_daemonset_pods_on_new_nodes(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # n1 (1 cpu) takes one of four pending 1-cpu pods; a DaemonSet asking 1 cpu leaves each 2-cpu
    # template node 1 cpu, so the other three need 3 new nodes (without it 2 would do); a
    # DaemonSet whose nodeSelector the template does not match adds nothing
    def daemonset(name: str, cpu: str, **spec: Any) -> dict[str, Any]:
        return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"ds": name}}, "template": {
                    "metadata": {"labels": {"ds": name}},
                    "spec": {"containers": [{"name": "c", "image": "agent",
                                             "resources": {"requests": {"cpu": cpu, "memory": "10Mi"}}}], **spec}}}}

    items = [node("n1", cpu="1", memory="1Gi"), daemonset("agent", "1"),
             daemonset("gpu-agent", "1", nodeSelector={"gpu": "yes"}),
             *(pod(f"p{i}", cpu="1", memory="100Mi") for i in range(4))]
    write_list(tmp_path / "cluster.json", items)
    write(tmp_path / "node.json", {**node("x", cpu="2"), "metadata": {"name": "new"}})
    answer = _json(run_kubesim, "--add-nodes", "node.json")
    assert answer["nodesToAdd"] == 3
    assert {p["nodeName"] for p in answer["placements"]} == {"n1", "new-0", "new-1", "new-2"}


def test_daemonset_pods_tolerate_what_the_daemonset_controller_lets_them(run_kubesim: RunKubesim,
                                                                         tmp_path: Path) -> None:
    # the template node starts tainted memory-pressure:NoSchedule; the pending pods tolerate every
    # taint and the DaemonSet's template none, but the DaemonSet controller adds a toleration of
    # memory-pressure to its pods: each new node runs the agent (1 cpu), so three 1-cpu pods
    # need three 2-cpu nodes, not two
    agent = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
             "spec": {"selector": {"matchLabels": {"ds": "agent"}}, "template": {
                 "metadata": {"labels": {"ds": "agent"}},
                 "spec": {"containers": [{"name": "c", "image": "agent", "resources": {"requests": {"cpu": "1"}}}]}}}}
    pending = [pod(f"p{i}", cpu="1", memory="100Mi", tolerations=[{"operator": "Exists"}]) for i in range(3)]
    write_list(tmp_path / "cluster.json", [agent, *pending])
    template = node("new", cpu="2", taints=[{"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}])
    write(tmp_path / "node.json", template)
    assert _json(run_kubesim, "--add-nodes", "node.json")["nodesToAdd"] == 3
