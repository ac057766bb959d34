"""`kubectl get scenarios -w` on a real `kubesim serve`: the phase and step lines of a scenario
that runs, pauses, resumes on a patch and succeeds (needs the server's watch support)."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from kubesim.testing import KubesimServer

from .test_scenarios import kubectl_run, node, pod, scenario, scenarios_api, wait_phase

pytestmark = pytest.mark.needs_plugins  # runs the scheduler (and kubelet) plugins

WAIT = 30.0


def test_kubectl_get_scenarios_watch_shows_phase_and_step(server: KubesimServer, kubectl: str) -> None:
    watcher = subprocess.Popen(
        [kubectl, "--kubeconfig", str(server.kubeconfig), "get", "scenarios", "-w", "--request-timeout=60s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)  # the watch is open before the scenario exists
        api = scenarios_api(server)
        kubectl_run(kubectl, server, "create", "-f", "-", "--validate=false",
                    stdin=json.dumps(scenario("watched", node("node-a", 0), pod("p1", 1))))
        wait_phase(api, "watched", "Paused")
        kubectl_run(kubectl, server, "patch", "scenario", "watched", "--type", "json", "-p",
                    json.dumps([{"op": "add", "path": "/spec/operations/-", "value": {"step": 2, "doneOperation": {}}}]))
        wait_phase(api, "watched", "Succeeded")
        time.sleep(0.5)  # the last events reach kubectl
    finally:
        watcher.terminate()
        out, err = watcher.communicate(timeout=WAIT)
    lines = [line.split() for line in out.splitlines()]
    assert lines[0][:5] == ["NAME", "PHASE", "STEP", "MINOR", "STEP"], out
    rows = [(row[1], row[2]) for row in lines[1:] if row[0] == "watched" and len(row) > 3]
    assert ("Paused", "1") in rows and rows[-1] == ("Succeeded", "2"), out + err
    assert rows.index(("Running", "1")) > rows.index(("Paused", "1")), out  # resumed by the patch
    assert watcher.returncode is not None and "error" not in err.lower(), err  # the watch never ended


def test_scenario_watch_goes_on_across_the_next_scenarios_reset(server: KubesimServer, kubectl: str) -> None:
    """A second Scenario's start resets the cluster: a Scenario watch goes on (the first one's
    Succeeded, the second's phases), while a pod watch ends (410: its objects are gone)."""
    api = scenarios_api(server)
    kubectl_run(kubectl, server, "create", "-f", "-", "--validate=false",
                stdin=json.dumps(scenario("first", node("node-a", 0), pod("p1", 1), {"step": 2, "doneOperation": {}})))
    wait_phase(api, "first", "Succeeded")
    watcher = subprocess.Popen(
        [kubectl, "--kubeconfig", str(server.kubeconfig), "get", "scenarios", "-w", "--request-timeout=60s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pods = subprocess.Popen(
        [kubectl, "--kubeconfig", str(server.kubeconfig), "get", "pods", "-A", "-w", "--request-timeout=60s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        kubectl_run(kubectl, server, "create", "-f", "-", "--validate=false",
                    stdin=json.dumps(scenario("second", node("node-b", 0), pod("p2", 1), {"step": 2, "doneOperation": {}})))
        wait_phase(api, "second", "Succeeded")
        time.sleep(0.5)
        assert watcher.poll() is None, watcher.communicate(timeout=WAIT)  # still watching
        pods.communicate(timeout=WAIT)  # ended by the reset (kubectl leaves on the 410 ERROR event)
    finally:
        for proc in (watcher, pods):
            if proc.poll() is None:
                proc.terminate()
        out, err = watcher.communicate(timeout=WAIT)
    rows = [(row[0], row[1]) for row in (line.split() for line in out.splitlines()[1:]) if len(row) > 3]
    assert ("first", "Succeeded") in rows and rows[-1] == ("second", "Succeeded"), out + err
