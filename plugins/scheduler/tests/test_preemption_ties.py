"""Preemption tie order as upstream (tests/data/preemption_ties): the order of a node's pods
after adds, updates and deletes, victims sorted with Go's sort.Slice, pods without
startTime (time.Now() on every read) and PDB grouping in that order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from kubesim import Runtime
from kubesim.plugins import load_plugins
from kubesim_scheduler import hooks as scheduler_hooks
from kubesim_scheduler import Scheduler
from kubesim_scheduler.controller import SchedulerController
from kubesim_scheduler.framework.node_pods import NodePods
from kubesim_scheduler.framework.pod_info import PodInfo
from kubesim_scheduler.plugins.defaultpreemption import parse_pdbs
from kubesim_cli import run_kubesim
from preemption_builders import Harness, node, pdb, pod

DATA = Path(__file__).parent / "data" / "preemption_ties"
SCENARIOS: list[dict[str, Any]] = json.loads((DATA / "scenarios.json").read_text())["scenarios"]
EXPECTED: dict[str, dict[str, Any]] = {
    r["name"]: r for r in json.loads((DATA / "expected.json").read_text())["results"]
}


def _start(seconds: int | None) -> str | None:
    return None if seconds is None else f"1970-01-01T00:00:{seconds:02d}Z"


def _pod(spec: dict[str, Any]) -> dict[str, Any]:
    return pod(spec["name"], node="node1", prio=spec["prio"], req={"cpu": f"{spec['cpu']}m"},
               labels={"app": "db"} if spec.get("pdb") else None, start=_start(spec["start"]))


def _harness(sc: dict[str, Any]) -> Harness:
    pdbs = []
    if "pdb_allowed" in sc:
        pdbs = [pdb({"app": "db"}, sc["pdb_allowed"], name="db", namespace="default")]
    h = Harness([node("node1", {"cpu": f"{sc['node_cpu']}m", "memory": "1Gi", "pods": "110"})], pdbs=pdbs)
    specs = {p["name"]: p for p in sc["pods"]}
    version = 0
    for e in sc["events"]:
        if e["op"] == "add":
            h.scheduler.add_pod(_pod(specs[e["name"]]))
        elif e["op"] == "update":
            version += 1
            updated = _pod(specs[e["name"]])
            updated["metadata"]["resourceVersion"] = str(version)
            h.scheduler.update_pod(updated)
        else:
            h.scheduler.remove_pod(e["name"])
    return h


def _victims(h: Harness, sc: dict[str, Any]) -> tuple[list[str], int]:
    pre = sc["preemptor"]
    state, pi = h.state_for(pod("preemptor", prio=pre["prio"], req={"cpu": f"{pre['cpu']}m"}))
    row = h.table.name_to_row["node1"]
    victims, num_violating, st = h.plugin.select_victims_on_node(state, pi, row, parse_pdbs(h.pdbs))
    assert st is None or st.is_success(), st
    return [v.name for v in victims], num_violating


@pytest.mark.parametrize("sc", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_victims_as_upstream(sc: dict[str, Any]) -> None:
    want = EXPECTED[sc["name"]]
    h = _harness(sc)
    row = h.table.name_to_row["node1"]
    assert list(h.table.pods[row]) == want["slice_order"]
    assert _victims(h, sc) == (want["victims"], want["num_violating"])
    assert list(h.table.pods[row]) == want["slice_order"]  # the dry run put the node back


def test_every_scenario_has_an_answer() -> None:
    assert len(SCENARIOS) == 12 and {s["name"] for s in SCENARIOS} == set(EXPECTED)


def test_assumed_pod_confirmed_by_the_informer_moves_to_the_end() -> None:
    """AssumePod appends; the informer's Add of the bound pod is remove + add (cache.AddPod
    of an assumed pod), and so is every later update (cache.UpdatePod)."""
    bound: list[tuple[str, str]] = []
    s = Scheduler([], binder=lambda p, n: bound.append((p["metadata"]["name"], n)))
    s.add_node(node("node1", {"cpu": "1", "memory": "1Gi", "pods": "110"}))
    s.add_pod(pod("a", node="node1", req={"cpu": "100m"}))
    d = pod("d", req={"cpu": "100m"})
    s.add_pod(d)
    assert s.schedule_one() is not None and bound == [("d", "node1")]
    row = s.table.name_to_row["node1"]
    s.add_pod(pod("b", node="node1", req={"cpu": "100m"}))
    assert list(s.table.pods[row]) == ["a", "d", "b"]
    s.update_pod({**d, "spec": {**d["spec"], "nodeName": "node1"}})  # the bind, through the informer
    assert list(s.table.pods[row]) == ["a", "b", "d"]
    s.update_pod(pod("a", node="node1", req={"cpu": "100m"}, start=_start(1)))  # kubelet: Running
    assert list(s.table.pods[row]) == ["d", "b", "a"]
    s.remove_pod("d")
    assert list(s.table.pods[row]) == ["a", "b"]


def test_node_pods_remove_moves_the_last_pod_into_the_slot() -> None:
    pods = NodePods((k, PodInfo(pod(k, node="n"))) for k in "abcde")
    del pods["b"]
    assert list(pods) == ["a", "e", "c", "d"]
    pods.move_to_end("a")
    assert list(pods) == ["d", "e", "c", "a"]
    pods.reorder(["a", "c", "d", "e"])
    assert list(pods) == ["a", "c", "d", "e"] and pods["c"].name == "c"
    with pytest.raises(ValueError):
        pods.reorder(["a"])


def test_candidate_window_with_more_than_100_potential_nodes() -> None:
    """150 potential nodes: 100 candidates (minCandidateNodesAbsolute), from the seeded random
    offset on, wrapping around (GetOffsetAndNumCandidates, DryRunPreemption)."""
    names = [f"n{i:03d}" for i in range(150)]
    h = Harness([node(n, {"cpu": "100m", "memory": "1Gi", "pods": "110"}) for n in names],
                [pod(f"v-{n}", node=n, prio=0, req={"cpu": "100m"}) for n in names])
    offsets: list[int] = []
    rand = h.plugin.offset_rand
    h.plugin.offset_rand = lambda n: offsets.append(rand(n)) or offsets[-1]
    state, pi = h.state_for(pod("p", prio=10, req={"cpu": "100m"}))
    rows = [h.table.name_to_row[n] for n in names]
    offset, num = h.plugin.get_offset_and_num_candidates(len(rows))
    assert (num, offsets) == (100, [offset]) and 0 <= offset < 150
    got, _, errs = h.plugin.evaluator.dry_run_preemption(state, pi, rows, [], offset, num)
    assert not errs
    assert [c.name for c in got] == [names[(offset + i) % 150] for i in range(100)]
    # the offset comes from the scheduler's seeded generator: the same seed, the same window
    again = Harness([node(n, {"cpu": "100m", "memory": "1Gi", "pods": "110"}) for n in names])
    assert again.plugin.offset_rand(150) == offset


def test_pods_listed_at_start_in_storage_key_order() -> None:
    """The informer's first list is in etcd key order: "team-a/x" before "team/x"."""
    nodes = [node("n1", {"cpu": "1", "memory": "1Gi", "pods": "110"})]
    pods = [pod(n, node="n1") for n in ("x", "y", "z")]
    pods[0]["metadata"]["namespace"] = "team"
    pods[1]["metadata"]["namespace"] = "team-a"
    pods[2]["metadata"]["namespace"] = "team"
    for p in pods:
        p["spec"]["containers"] = [{"name": "c", "image": "i"}]
        del p["metadata"]["uid"]
    rt = Runtime.standalone(hooks=load_plugins(builtins=[scheduler_hooks], entry_points=False))
    client = rt.client("test")
    namespaces = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in ("team", "team-a")]
    for obj in (*namespaces, *nodes, *pods):
        client.create(obj)
    sched = SchedulerController(rt).scheduler
    row = sched.table.name_to_row["n1"]
    assert [pi.pod["metadata"]["namespace"] + "/" + pi.name for pi in sched.table.pods[row].values()] == [
        "team-a/y", "team/x", "team/z"]


def test_kubesim_run_preempts_the_victims_upstream_picks(tmp_path: Path) -> None:
    """`kubesim run` (scheduler and kubelet): the victims are the ones the Go model picks on
    the event history this scenario produces (bind: assume + confirm; kubelet: Running)."""
    shutil.copy(DATA / "fourteen-tied-pods.yaml", tmp_path / "s.yaml")
    run = run_kubesim("run", "s.yaml", "-q", "-o", "out.json", cwd=tmp_path, keep=("scheduler", "kubelet"))
    assert run.returncode == 0, run.stderr
    timeline = json.loads((tmp_path / "out.json").read_text())["status"]["scenarioResult"]["timeline"]
    preempted = [e["podPreempted"]["pod"]["metadata"]["name"] for step in sorted(timeline, key=int)
                 for e in timeline[step] if "podPreempted" in e]
    assert preempted == EXPECTED["the history of fourteen-tied-pods.yaml in kubesim run"]["victims"]
