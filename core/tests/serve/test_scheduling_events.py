"""The scheduler's Events as `kubectl describe pod` and `kubectl get events` show them
(serve/scheduling_events.py: derived from the pods' PodScheduled conditions)."""

from __future__ import annotations

import json

import pytest
from kubernetes import client, config

from kubesim.testing import KubesimServer

from .test_scenarios import kubectl_run, node, pod, scenario, scenarios_api, wait_phase

pytestmark = pytest.mark.needs_plugins  # runs the scheduler (and kubelet) plugins


def _run(server: KubesimServer, kubectl: str) -> None:
    # node-a has 4 CPUs: p1 and p2 (1 CPU each) fit, "big" (8 CPUs) does not
    big = pod("big", 1)
    big["createOperation"]["object"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "8"
    kubectl_run(kubectl, server, "create", "-f", "-", "--validate=false", stdin=json.dumps(scenario(
        "events", node("node-a", 0), pod("p1", 1), pod("p2", 1), big, {"step": 2, "doneOperation": {}})))
    wait_phase(scenarios_api(server), "events", "Succeeded")


def test_kubectl_describe_shows_the_scheduler_events(server: KubesimServer, kubectl: str) -> None:
    _run(server, kubectl)
    described = kubectl_run(kubectl, server, "describe", "pod", "big").stdout
    assert "FailedScheduling" in described and "0/1 nodes are available: 1 Insufficient cpu." in described
    assert "default-scheduler" in described
    described = kubectl_run(kubectl, server, "describe", "pod", "p1").stdout
    assert "Scheduled" in described and "Successfully assigned default/p1 to node-a" in described
    assert "FailedScheduling" not in described
    table = kubectl_run(kubectl, server, "get", "events", "--field-selector", "reason=FailedScheduling").stdout
    assert "pod/big" in table and "pod/p1" not in table, table


def test_derived_events_follow_list_semantics(server: KubesimServer, kubectl: str) -> None:
    _run(server, kubectl)
    core = client.CoreV1Api(config.new_client_from_config(config_file=str(server.kubeconfig)))
    events = core.list_namespaced_event("default", _request_timeout=20).items
    assert sorted((e.involved_object.name, e.reason, e.type) for e in events) == [
        ("big", "FailedScheduling", "Warning"), ("p1", "Scheduled", "Normal"), ("p2", "Scheduled", "Normal")]
    again = core.list_namespaced_event("default", _request_timeout=20).items
    assert [e.metadata.name for e in again] == [e.metadata.name for e in events]  # stable names, sorted
    assert [e.metadata.name for e in events] == sorted(e.metadata.name for e in events)
    one = core.list_namespaced_event("default", field_selector="involvedObject.name=p2", _request_timeout=20)
    assert [e.involved_object.name for e in one.items] == ["p2"]
    assert core.list_namespaced_event("kube-system", _request_timeout=20).items == []
    # derived Events have no labels: app=x leaves them out, app!=x (no app label matches) keeps them
    assert core.list_namespaced_event("default", label_selector="app=x", _request_timeout=20).items == []
    assert len(core.list_namespaced_event("default", label_selector="app!=x", _request_timeout=20).items) == 3
    # they are not stored: by name they are not found
    try:
        core.read_namespaced_event(events[0].metadata.name, "default", _request_timeout=20)
    except client.ApiException as exc:
        assert exc.status == 404
    else:
        raise AssertionError("a derived Event was found by name")
