"""The runtime: what a plugin sees of a running scenario, with and without the engine."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim import Capabilities, Runtime, hookimpl
from kubesim.api import API_VERSION, Scenario, ScenarioPhase, structure
from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim.controllers import GRACEFUL_POD_DELETION, Controller, ControllerWaiter
from kubesim.errors import Forbidden
from kubesim.plugins import load_plugins
from kubesim.scenario import Simulator


def node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}


def pod(name: str, node_name: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}]}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def test_standalone_runtime_reads_writes_and_records() -> None:
    rt = Runtime.standalone(seed=7, options={"x": 1})
    client = rt.client("me")
    created = client.create(node("n1"))
    assert rt.reader.get("v1", "Node", "n1")["metadata"]["uid"] == created["metadata"]["uid"]
    assert [n["metadata"]["name"] for n in rt.reader.list("v1", "Node")] == ["n1"]
    assert rt.reader.namespaced("v1", "Pod") and not rt.reader.namespaced("v1", "Node")
    assert rt.seed == 7 and rt.options == {"x": 1}
    assert rt.step_status.step.major == 0 and rt.recorder.step.major == 0
    events: list[str] = []
    unwatch = rt.reader.watch(lambda e: events.append(f"{e.type} {e.actor}"))
    after = client.patch("v1", "Node", "n1", {"status": {"phase": "Running"}}, subresource="status")
    unwatch()
    client.delete("v1", "Node", "n1")
    assert events == ["MODIFIED me"]
    rt.recorder.record_status("me", created, after)
    timeline = rt.recorder._timeline.timeline  # the recorder is write-only for plugins
    (event,) = timeline["0"]
    assert event.actor == "me" and event.patch is not None
    assert event.patch.operation.patch == '{"status":{"phase":"Running"}}'


def test_the_reader_has_no_writes() -> None:
    reader = Runtime.standalone().reader
    for verb in ("create", "update", "patch", "delete", "bind"):
        assert not hasattr(reader, verb)


def test_capabilities_are_declared_by_name() -> None:
    assert Capabilities.of([GRACEFUL_POD_DELETION]).graceful_pod_deletion
    assert not Capabilities.of([]).graceful_pod_deletion
    with pytest.raises(ValueError, match="unknown capability 'teleport'"):
        Capabilities.of(["teleport"])
    rt = Runtime.standalone(capabilities=Capabilities.of([GRACEFUL_POD_DELETION]))
    rt.client("t").create(node("n1"))
    rt.client("t").create(pod("p", "n1"))
    left = rt.client("t").delete("v1", "Pod", "p", "default")
    assert left is not None and left["metadata"].get("deletionTimestamp")  # a kubelet must finish it


class FrozenNamespaces:
    """A webhook that reads the cluster through the runtime it is given."""

    @staticmethod
    @hookimpl
    def kubesim_admission(request: AdmissionRequest, runtime: Runtime | None) -> AdmissionResponse | None:
        if runtime is None or request.phase != "validating" or request.resource.kind != "ConfigMap":
            return None
        ns = runtime.reader.get("v1", "Namespace", request.namespace or "default")
        if (ns["metadata"].get("labels") or {}).get("frozen") == "true":
            return AdmissionResponse(allowed=False, message="namespace is frozen")
        return None


def test_standalone_installs_admission_that_reads_the_cluster() -> None:
    rt = Runtime.standalone(hooks=load_plugins(extra=[FrozenNamespaces], entry_points=False))
    client = rt.client("t")
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ice", "labels": {"frozen": "true"}}})
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ice"}}
    with pytest.raises(Forbidden, match="namespace is frozen"):
        client.create(cm)
    client.create({**cm, "metadata": {"name": "c", "namespace": "default"}})


class Deleter(Controller):
    """Deletes every pod once; declares graceful deletion like a kubelet would."""

    name = "deleter"
    provides = frozenset({GRACEFUL_POD_DELETION})
    seen: list[bool] = []

    def run_once(self) -> bool:
        Deleter.seen.append(self.runtime.capabilities.graceful_pod_deletion)
        return False

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: True)


class DeleterPlugin:
    @staticmethod
    @hookimpl
    def kubesim_controllers() -> list[type[Controller]]:
        return [Deleter]


def test_the_engine_builds_capabilities_from_the_scenarios_controllers() -> None:
    scenario = structure({
        "apiVersion": API_VERSION, "kind": "Scenario", "metadata": {"name": "s"},
        "spec": {"operations": [{"step": 0, "doneOperation": {}}]},
    }, Scenario)
    Deleter.seen.clear()
    sim = Simulator(load_plugins(extra=[DeleterPlugin], entry_points=False))
    (result,) = sim.run([scenario])
    assert result.status.phase == ScenarioPhase.SUCCEEDED
    assert Deleter.seen and all(Deleter.seen)
    assert sim.runs[0].cluster.graceful_pod_deletion is True
