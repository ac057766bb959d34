"""`kubesim serve --state-dir`: objects and Scenarios survive a restart; a Scenario that was running
(or paused) when the server stopped is Failed with KEP-140's message."""

from __future__ import annotations

import json
import time
from pathlib import Path

from kubernetes import client, config

from kubesim.serve.scenarios import RESTARTED_MESSAGE
from kubesim.testing import KubesimServer

GROUP, VERSION, PLURAL = "simulation.kube-scheduler-simulator.x-k8s.io", "v1alpha1", "scenarios"
WAIT = 30.0


def _apis(server: KubesimServer) -> tuple[client.CoreV1Api, client.CustomObjectsApi]:
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    return client.CoreV1Api(api), client.CustomObjectsApi(api)


def _phase(api: client.CustomObjectsApi, name: str, want: str) -> dict[str, object]:
    deadline = time.monotonic() + WAIT
    while True:
        obj: dict[str, object] = api.get_cluster_custom_object(GROUP, VERSION, PLURAL, name, _request_timeout=20)
        if (obj.get("status") or {}).get("phase") == want:  # type: ignore[union-attr]
            return obj
        assert time.monotonic() < deadline, f"{name}: {obj.get('status')}"
        time.sleep(0.05)


def _scenario(name: str, *, done: bool) -> dict[str, object]:
    ops: list[dict[str, object]] = [{"step": 0, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": f"{name}-node"},
        "status": {"allocatable": {"cpu": "4", "memory": "1Gi", "pods": "10"}}}}}]
    if done:
        ops.append({"step": 1, "doneOperation": {}})
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Scenario", "metadata": {"name": name},
            "spec": {"controllers": {"simulationControllers": {"enabled": []}}, "operations": ops}}


def test_a_restart_loses_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with KubesimServer(tmp_path, "--state-dir", str(state)) as server:
        core, scenarios = _apis(server)
        scenarios.create_cluster_custom_object(GROUP, VERSION, PLURAL, _scenario("finished", done=True),
                                               _request_timeout=20)
        _phase(scenarios, "finished", "Succeeded")
        # a scenario's start empties the cluster: objects written after it
        scenarios.create_cluster_custom_object(GROUP, VERSION, PLURAL, _scenario("waiting", done=False),
                                               _request_timeout=20)
        _phase(scenarios, "waiting", "Paused")
        core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}},
                              _request_timeout=20)
        created = core.create_namespaced_config_map(
            "team-a", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k": "v"}},
            _request_timeout=20)
        before = core.list_node(_request_timeout=20).metadata.resource_version
    saved = json.loads((state / "state.json").read_text())
    assert saved["format"] == "kubesim.serve/state/v1"
    with KubesimServer(tmp_path, "--state-dir", str(state)) as server:
        core, scenarios = _apis(server)
        again = core.read_namespaced_config_map("cm", "team-a", _request_timeout=20)
        assert (again.data, again.metadata.uid, again.metadata.resource_version) == (
            {"k": "v"}, created.metadata.uid, created.metadata.resource_version)
        assert [n.metadata.name for n in core.list_node(_request_timeout=20).items] == ["waiting-node"]
        finished = _phase(scenarios, "finished", "Succeeded")
        assert finished["status"]["scenarioResult"]["timeline"]  # type: ignore[index]
        failed = _phase(scenarios, "waiting", "Failed")
        assert failed["status"]["message"] == RESTARTED_MESSAGE  # type: ignore[index]
        # counters go on: new writes get later resourceVersions and new uids
        fresh = core.create_namespaced_config_map(
            "team-a", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm2"}}, _request_timeout=20)
        assert int(fresh.metadata.resource_version) > int(before)
        uids = {o.metadata.uid for o in core.list_config_map_for_all_namespaces(_request_timeout=20).items}
        assert len(uids) == len(core.list_config_map_for_all_namespaces(_request_timeout=20).items)


def test_an_unreadable_state_file_is_a_clear_error(tmp_path: Path) -> None:
    from kubesim.testing.cli import run_kubesim

    state = tmp_path / "state"
    state.mkdir()
    (state / "state.json").write_text("{not json")
    ran = run_kubesim("serve", "--port", "0", "--state-dir", str(state), cwd=tmp_path, timeout=30)
    assert ran.returncode == 2
    assert f"error: --state-dir: {state / 'state.json'}: cannot load it" in ran.stderr


def test_a_scenario_running_at_shutdown_is_failed_at_restart(tmp_path: Path) -> None:
    state = tmp_path / "state"
    long = _scenario("long", done=False)
    long["spec"]["operations"] += [  # type: ignore[index]
        {"step": i, "createOperation": {"object": {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}", "namespace": "default"}}}}
        for i in range(1, 5000)]
    with KubesimServer(tmp_path, "--state-dir", str(state)) as server:
        _, scenarios = _apis(server)
        scenarios.create_cluster_custom_object(GROUP, VERSION, PLURAL, long, _request_timeout=20)
        _phase(scenarios, "long", "Running")
        started = time.monotonic()
        server.stop()  # SIGTERM: the engine leaves the scenario between two steps, the state is saved
        assert time.monotonic() - started < 10
    saved = json.loads((state / "state.json").read_text())
    stored = [o for o in saved["objects"] if o["kind"] == "Scenario"]
    assert [o["status"]["phase"] for o in stored] == ["Running"]
    with KubesimServer(tmp_path, "--state-dir", str(state)) as server:
        _, scenarios = _apis(server)
        failed = _phase(scenarios, "long", "Failed")
        assert failed["status"]["message"] == "the controller restarted while the Scenario was running"  # type: ignore[index]
