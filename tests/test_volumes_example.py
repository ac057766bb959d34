"""examples/volumes end to end: scheduler (with the volume plugins) + pv-controller + StatefulSet + kubelet.

What the scenario's README promises: the local volume decides where `cache` runs, every db pod
gets its claims provisioned in its own zone, the pod of the lost zone waits with the volume
plugins' reasons (VolumeBinding's node affinity conflict, NodeVolumeLimits' attach limit) and
returns to its zone when a node comes back; two runs are byte-identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kubesim.api.pod_ref import expand_pod_refs
from kubesim.testing import KubesimRun, run_kubesim

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "examples" / "volumes" / "scenario.yaml"
PLUGINS = ("scheduler", "kubelet", "statefulset", "pv-controller")
ZONE = "topology.kubernetes.io/zone"
AFFINITY = "node(s) didn't match PersistentVolume's node affinity"
LIMIT = "node(s) exceed max volume count"


def _run(workdir: Path) -> tuple[KubesimRun, bytes]:
    workdir.mkdir(parents=True, exist_ok=True)
    proc = run_kubesim("run", str(SCENARIO), "-o", "result.json", "--export-cluster", "state.json",
                       cwd=workdir, plugins=PLUGINS, timeout=300)
    raw = (workdir / "result.json").read_bytes() if (workdir / "result.json").exists() else b""
    return proc, raw


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[KubesimRun, bytes]]:
    base = tmp_path_factory.mktemp("volumes")
    return [_run(base / "first"), _run(base / "second")]


@pytest.fixture(scope="module")
def result(runs: list[tuple[KubesimRun, bytes]]) -> dict[str, Any]:
    proc, raw = runs[0]
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = expand_pod_refs(json.loads(raw))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    return out


@pytest.fixture(scope="module")
def state(runs: list[tuple[KubesimRun, bytes]], result: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(o["kind"], o["metadata"]["name"]): o for o in runs[0][0].exported}


def _timeline(result: dict[str, Any], field: str) -> list[tuple[int, dict[str, Any]]]:
    tl = result["status"]["scenarioResult"]["timeline"]
    return [(int(step), e[field]) for step in sorted(tl, key=int) for e in tl[step] if field in e]


def test_local_volume_decides_the_node(state: dict[tuple[str, str], dict[str, Any]]) -> None:
    assert state[("Pod", "cache")]["spec"]["nodeName"] == "node-b2"
    assert state[("PersistentVolumeClaim", "cache")]["spec"]["volumeName"] == "local-b2"
    assert state[("PersistentVolume", "local-b2")]["status"]["phase"] == "Bound"


def test_claims_are_provisioned_in_their_pods_zone(state: dict[tuple[str, str], dict[str, Any]]) -> None:
    nodes = {n: o for (k, n), o in state.items() if k == "Node"}
    zones = set()
    for i in range(3):
        pod = state[("Pod", f"db-{i}")]
        assert pod["status"]["phase"] == "Running"
        zone = nodes[pod["spec"]["nodeName"]]["metadata"]["labels"][ZONE]
        zones.add(zone)
        for template in ("data", "wal"):
            claim = state[("PersistentVolumeClaim", f"{template}-db-{i}")]
            assert claim["status"]["phase"] == "Bound"
            volume = state[("PersistentVolume", claim["spec"]["volumeName"])]
            terms = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
            assert terms == [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}]
            assert volume["spec"]["csi"]["driver"] == "disk.csi.example.com"
    assert zones == {"zone-a", "zone-b", "zone-c"}  # the spread constraint


def test_the_pod_of_the_lost_zone_waits_for_its_volumes(result: dict[str, Any]) -> None:
    waits = [(step, body) for step, body in _timeline(result, "podUnscheduled") if step == 2]
    assert waits, "a db pod should wait in step 2"
    for _, body in waits:
        attempt = body["scheduleResult"][-1]
        assert attempt["allFilteredNodes"] == []
        reasons = {node: plugins for node, plugins in attempt["pluginResults"]["filter"].items()}
        assert {n for n, p in reasons.items() if p.get("VolumeBinding") == AFFINITY} == {"node-b2", "node-c2"}
        assert {n for n, p in reasons.items() if p.get("NodeVolumeLimits") == LIMIT} == {"node-b1", "node-c1"}
        assert f"2 {AFFINITY}, 2 {LIMIT}" in attempt["message"]
    scheduled = [(step, body["boundTo"]) for step, body in _timeline(result, "podScheduled") if step == 3]
    assert scheduled == [(3, "node-a3")]


def test_two_runs_are_byte_identical(runs: list[tuple[KubesimRun, bytes]]) -> None:
    assert runs[0][0].returncode == runs[1][0].returncode == 0
    assert runs[0][1] == runs[1][1]
