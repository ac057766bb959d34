"""End-to-end: `kubesim capacity --pod` answers checked against counts computed by hand."""

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


def _answer(run_kubesim: RunKubesim, tmp_path: Path, items: list[dict[str, Any]], template: dict[str, Any],
            *extra: str) -> dict[str, Any]:
    write_list(tmp_path / "cluster.json", items)
    write(tmp_path / "pod.json", template)
    run = run_kubesim("capacity", "--cluster", "cluster.json", "--pod", "pod.json", "-o", "json", *extra)
    assert run.returncode == 0, run.stderr
    out: dict[str, Any] = json.loads(run.stdout)
    return out


def _distribution(answer: dict[str, Any]) -> dict[str, int]:
    return {r["nodeName"]: r["replicas"] for r in answer["replicasOnNodes"]}


def test_cpu_decides(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # n1: 4 cpu - 1 cpu used = 3 -> 6 copies of 500m; n2: 2 cpu -> 4; memory (8Gi/1Gi = 8 each) is not the limit
    items = [node("n1", cpu="4"), node("n2", cpu="2"), pod("busy", cpu="1", node_name="n1")]
    answer = _answer(run_kubesim, tmp_path, items, pod("web"))
    assert answer["replicas"] == 10
    assert _distribution(answer) == {"n1": 6, "n2": 4}
    assert answer["failReason"]["failType"] == "Unschedulable"
    assert answer["failReason"]["failMessage"].startswith("0/2 nodes are available: 2 Insufficient cpu.")


def test_memory_and_pod_count_decide(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # n1: 3Gi / 1Gi = 3 copies (cpu would allow 8); n2: pods "2" with one pod bound -> 1 copy
    items = [node("n1", cpu="4", memory="3Gi"), node("n2", cpu="4", pods="2"),
             pod("other", cpu="100m", memory="100Mi", node_name="n2")]
    answer = _answer(run_kubesim, tmp_path, items, pod("web"))
    assert _distribution(answer) == {"n1": 3, "n2": 1}
    assert answer["failReason"]["failMessage"].startswith(
        "0/2 nodes are available: 1 Insufficient memory, 1 Too many pods.")


def test_max_stops_with_limit_reached(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    answer = _answer(run_kubesim, tmp_path, [node("n1", cpu="4")], pod("web"), "--max", "3")
    assert answer["replicas"] == 3
    assert answer["failReason"] == {"failType": "LimitReached", "failMessage": "Maximum number of pods simulated: 3"}


def test_taints_and_tolerations(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    items = [node("n1", cpu="4", taints=[taint]), node("n2", cpu="2")]
    # without a toleration only n2 takes copies: 2 cpu / 500m = 4
    answer = _answer(run_kubesim, tmp_path, items, pod("web"))
    assert _distribution(answer) == {"n2": 4}
    assert answer["failReason"]["failMessage"].startswith(
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}.")
    # tolerating it, n1 takes 4 / 0.5 = 8 more
    tolerant = pod("web", tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu",
                                        "effect": "NoSchedule"}])
    answer = _answer(run_kubesim, tmp_path, items, tolerant)
    assert _distribution(answer) == {"n1": 8, "n2": 4}


def test_required_anti_affinity_one_per_node(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    items = [node("n1", cpu="8"), node("n2", cpu="8"), node("n3", cpu="8")]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    answer = _answer(run_kubesim, tmp_path, items, pod("web", labels={"app": "web"}, affinity=anti))
    assert _distribution(answer) == {"n1": 1, "n2": 1, "n3": 1}
    assert answer["failReason"]["failMessage"].startswith(
        "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.")


def test_topology_spread_over_zones(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # zone a: n1 + n2, zone b: n3; 2 copies fit each node (1 cpu / 500m). Zone b fills at 2,
    # and maxSkew 1 then allows zone a at most 3: 5 copies in all.
    items = [node("n1", cpu="1", zone="a"), node("n2", cpu="1", zone="a"), node("n3", cpu="1", zone="b")]
    spread = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    answer = _answer(run_kubesim, tmp_path, items, pod("web", labels={"app": "web"}, topologySpreadConstraints=spread))
    assert answer["replicas"] == 5
    dist = _distribution(answer)
    assert dist["n3"] == 2 and sorted([dist.get("n1", 0), dist.get("n2", 0)]) == [1, 2]
    # NodeResourcesFit filters before PodTopologySpread: the two full nodes say cpu, the zone-a
    # node with room says spread
    assert answer["failReason"]["failMessage"].startswith(
        "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 Insufficient cpu.")


def test_json_is_stable_and_table_matches(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    items = [node("n1", cpu="4"), node("n2", cpu="2"), pod("busy", cpu="1", node_name="n1")]
    write_list(tmp_path / "cluster.json", items)
    write(tmp_path / "pod.json", pod("web"))
    args = ("capacity", "--cluster", "cluster.json", "--pod", "pod.json")
    first, second = run_kubesim(*args, "-o", "json"), run_kubesim(*args, "-o", "json")
    assert first.returncode == 0 and first.stdout == second.stdout
    assert list(json.loads(first.stdout)) == ["failReason", "limit", "podName", "replicas", "replicasOnNodes"]
    table = run_kubesim(*args)
    assert table.returncode == 0
    assert table.stdout.startswith("The cluster can schedule 10 instance(s) of the pod default/web.\n")
    assert "\nNODE   INSTANCES\nn1     6\nn2     4\n" in table.stdout


def test_a_scenario_file_is_the_cluster_it_leaves(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # the scenario binds "busy" (1 cpu) through the scheduler; then the answer is as for the List
    ops = [{"step": 0, "createOperation": {"object": o}} for o in (node("n1", cpu="4"), node("n2", cpu="2"))]
    ops.append({"step": 1, "createOperation": {"object": pod("busy", cpu="3")}})
    ops.append({"step": 2, "doneOperation": {}})
    scenario = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
                "metadata": {"name": "c"}, "spec": {"controllers": {"simulationControllers": {
                    "enabled": [{"name": "scheduler"}]}}, "operations": ops}}
    write(tmp_path / "scenario.json", scenario)
    write(tmp_path / "pod.json", pod("web"))
    run = run_kubesim("capacity", "--cluster", "scenario.json", "--pod", "pod.json", "-o", "json")
    assert run.returncode == 0, run.stderr
    # busy (3 cpu) fits only n1: 1 cpu left there -> 2 copies, n2 -> 4
    assert _distribution(json.loads(run.stdout)) == {"n1": 2, "n2": 4}


def test_the_users_scheduler_configuration_decides(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # with TaintToleration's filter disabled the tainted n1 (4 cpu -> 8 copies) takes copies too
    taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    (tmp_path / "sched.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  plugins:\n    filter:\n      disabled: [{name: TaintToleration}]\n")
    answer = _answer(run_kubesim, tmp_path, [node("n1", cpu="4", taints=[taint]), node("n2", cpu="2")], pod("web"),
                     "--scheduler-config", "sched.yaml")
    assert _distribution(answer) == {"n1": 8, "n2": 4}


def test_same_count_as_kubesim_run_binds(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # 14 copies created at once in a scenario: the scheduler binds as many as capacity says fit
    nodes = [node("n1", cpu="4"), node("n2", cpu="2")]
    answer = _answer(run_kubesim, tmp_path, nodes, pod("web"))
    ops = [{"step": 0, "createOperation": {"object": o}} for o in nodes]
    ops += [{"step": 1, "createOperation": {"object": pod(f"web-{i}")}} for i in range(14)]
    ops.append({"step": 2, "doneOperation": {}})
    write(tmp_path / "scenario.json", {
        "apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
        "metadata": {"name": "c"}, "spec": {"controllers": {"simulationControllers": {
            "enabled": [{"name": "scheduler"}]}}, "operations": ops}})
    run = run_kubesim("run", "scenario.json", "--export-cluster", "final.json")
    assert run.returncode == 0, run.stderr
    final = json.loads((tmp_path / "final.json").read_text())
    bound = [o for o in final["items"] if o["kind"] == "Pod" and o["spec"].get("nodeName")]
    assert answer["replicas"] == len(bound) == 12
