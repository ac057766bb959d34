"""End to end through the installed `kubesim run`: the controllers as PreSimulationControllers
next to the scheduler, with and without the kubelet plugin, and a rejected Deployment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kubesim.testing import run_kubesim

DATA = Path(__file__).parent / "data"


def final_objects(path: Path, kind: str) -> dict[str, dict[str, Any]]:
    items = json.loads(path.read_text())["items"]
    return {o["metadata"]["name"]: o for o in items if o["kind"] == kind}


def test_without_a_kubelet_pods_stay_pending_and_the_waiters_hold(tmp_path: Path) -> None:
    proc = run_kubesim("run", str(DATA / "rollout.yaml"), "-o", "result.json", "--export-cluster", "state.json",
                       cwd=tmp_path, plugins=("scheduler", "replicaset"))
    assert proc.returncode == 0, proc.stderr
    result = proc.result
    assert result["status"]["phase"] == "Succeeded"
    pods = final_objects(tmp_path / "state.json", "Pod")
    assert all(p["status"]["phase"] == "Pending" for p in pods.values())
    d = final_objects(tmp_path / "state.json", "Deployment")["web"]
    # No pod ever becomes available, so the rollout stops where maxSurge (25% of 6, rounded
    # up: 2) and maxUnavailable (rounded down: 1) leave it: the scaling event takes the old
    # RS to 6; the new RS may grow to 6 + 2 - 6 = 2; unavailable old pods may go while
    # 8 - (6 - 1) - 2 = 1 > 0, so the old RS drops to 5; the new RS grows to 3; then
    # 8 - 5 - 3 = 0 and nothing more can happen.
    rss = final_objects(tmp_path / "state.json", "ReplicaSet")
    by_revision = {r["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: r for r in rss.values()}
    assert (by_revision["1"]["spec"]["replicas"], by_revision["2"]["spec"]["replicas"]) == (5, 3)
    st = d["status"]
    assert st["observedGeneration"] == d["metadata"]["generation"]
    assert (st["replicas"], st["updatedReplicas"], st["unavailableReplicas"]) == (8, 3, 8)
    assert st.get("availableReplicas", 0) == 0
    assert len(pods) == 8


def test_with_the_kubelet_the_rolling_update_completes(tmp_path: Path) -> None:
    proc = run_kubesim("run", str(DATA / "rollout.yaml"), "-o", "result.json", "--export-cluster", "state.json",
                       cwd=tmp_path, plugins=("scheduler", "replicaset", "kubelet"))
    assert proc.returncode == 0, proc.stderr
    assert proc.result["status"]["phase"] == "Succeeded"
    d = final_objects(tmp_path / "state.json", "Deployment")["web"]
    st = d["status"]
    assert (st["replicas"], st["updatedReplicas"], st["readyReplicas"], st["availableReplicas"]) == (6, 6, 6, 6)
    conds = {c["type"]: c["reason"] for c in st["conditions"]}
    assert conds == {"Available": "MinimumReplicasAvailable", "Progressing": "NewReplicaSetAvailable"}
    pods = final_objects(tmp_path / "state.json", "Pod")
    assert len(pods) == 6 and all(p["spec"]["containers"][0]["image"] == "nginx:2" for p in pods.values())
    events = proc.events()
    actors = {e.get("actor") for e in events}
    assert {"deployment", "replicaset", "scheduler"} <= actors


def test_invalid_deployment_is_refused_before_the_run_with_the_api_servers_message(tmp_path: Path) -> None:
    # the API server's Deployment validation is the core's: `run` refuses the input (exit 2) before step 0
    proc = run_kubesim("run", str(DATA / "invalid.yaml"), "-o", "result.json", cwd=tmp_path, plugins=("scheduler", "replicaset"))
    assert proc.returncode == 2
    assert proc.stderr == (
        f"error: {DATA / 'invalid.yaml'}: spec.operations[1].createOperation.object: Deployment.apps \"web\" is invalid: "
        "[spec.replicas: Invalid value: -1: must be greater than or equal to 0, "
        'spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`]\n')
    assert not (tmp_path / "result.json").exists()


def test_a_million_replicas_stop_at_the_object_limit_with_the_result_so_far(tmp_path: Path) -> None:
    proc = run_kubesim("run", str(DATA / "million.yaml"), "-o", "result.json", "--max-objects", "1200",
                       cwd=tmp_path, plugins=("scheduler", "replicaset"))
    assert proc.returncode == 1, proc.stderr
    status = proc.result["status"]
    assert status["phase"] == "Failed"
    assert status["message"] == ('step 1: the cluster holds more than 1200 objects (the limit, --max-objects) '
                                 'while controller "replicaset" still has work')
    # created in bursts of 500 (upstream's BurstReplicas): the limit stops the third burst's run
    created = [e for e in proc.events() if e.get("actor") == "replicaset" and "create" in e]
    assert 700 < len(created) <= 1500

