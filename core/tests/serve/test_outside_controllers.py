"""Outside controllers against the engine: the settle contract, CheckScenarioStepPhase, write gating.

Until `kubesim serve` runs scenarios itself, the engine runs here in a thread on the served
cluster (holding the server's lock, as the server's scenario thread does), behind the real
ASGI app on a real socket; the controllers are threads using the official `kubernetes` client.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import kubernetes
import pytest
import uvicorn
import yaml

from kubesim.api import ScenarioPhase, structure
from kubesim.api.scenario import Scenario
from kubesim.client import check_scenario_step_phase
from kubesim.plugins import load_plugins
from kubesim.scenario import EngineOptions, ScenarioRun
from kubesim.serve.app import build_app
from kubesim.serve.controllers import OutsideControllers
from kubesim.serve.settled_when import parse_settled_when
from kubesim.serve.state import WRITER, Identity, ServerState

TIMEOUT = 20.0

SCENARIO = """
apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: outside}
spec:
  controllers:
    simulationControllers: {enabled: [{name: labeler}]}
    preSimulationControllers: {enabled: PRE}
  operations:
  - {step: 0, createOperation: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: default}}}}
  - {step: 0, createOperation: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: default}}}}
  - {step: 1, createOperation: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: default}}}}
  - {step: 2, doneOperation: {}}
"""


PODS = """
- {step: 0, createOperation: {object: {apiVersion: v1, kind: Node, metadata: {name: node-a}}}}
- {step: 0, createOperation: {object: {apiVersion: v1, kind: Pod, metadata: {name: p1, namespace: default},
                                       spec: {containers: [{name: c, image: i}]}}}}
- {step: 1, createOperation: {object: {apiVersion: v1, kind: Pod, metadata: {name: p2, namespace: default},
                                       spec: {containers: [{name: c, image: i}]}}}}
- {step: 2, doneOperation: {}}
"""


def scenario(pre: list[str], operations: str | None = None) -> Scenario:
    data = yaml.safe_load(SCENARIO.replace("PRE", repr([{"name": n} for n in pre])))
    if operations is not None:
        data["spec"]["operations"] = yaml.safe_load(operations)
    return structure(data, Scenario)


class Harness:
    """The engine in a thread on a ServerState served by uvicorn; clients per controller."""

    def __init__(self, run: ScenarioRun, timeout: float, gate_timeout: float,
                 settled_when: dict[str, str]) -> None:
        self.run = run
        self.state = ServerState(run.cluster, run.hooks)
        self.outside = OutsideControllers(self.state, timeout=timeout, gate_timeout=gate_timeout)
        for name in ("labeler", "pre"):
            expr = settled_when.get(name)
            self.outside.add(name, parse_settled_when(expr, run.cluster.registry) if expr else None)
        self.outside.register(run.hooks)
        self.state.outside = self.outside
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(build_app(self.state), log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.threads = [threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)]

    def client(self, name: str) -> kubernetes.client.ApiClient:
        config = kubernetes.client.Configuration()
        config.host = self.url
        config.api_key = {"authorization": f"Bearer {self.state.add_controller(name)}"}
        return kubernetes.client.ApiClient(config)

    def start_engine(self) -> None:
        def engine() -> None:
            with self.state.lock:
                self.run.start()

        t = threading.Thread(target=engine, daemon=True)
        self.threads.append(t)
        t.start()

    def wait_done(self) -> None:
        self.threads[-1].join(TIMEOUT + 5)
        assert not self.threads[-1].is_alive(), "the engine did not finish"


@pytest.fixture
def harness(request: pytest.FixtureRequest) -> Iterator[Any]:
    made: list[Harness] = []

    def make(pre: list[str], *, timeout: float = TIMEOUT, gate_timeout: float = 5.0,
             settled_when: dict[str, str] | None = None, operations: str | None = None) -> Harness:
        run = ScenarioRun(scenario(pre, operations), load_plugins(entry_points=False), EngineOptions())
        h = Harness(run, timeout, gate_timeout, settled_when or {})
        h.threads[0].start()
        deadline = time.monotonic() + 10
        while not h.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert h.server.started
        made.append(h)
        return h

    yield make
    for h in made:
        h.server.should_exit = True
        h.threads[0].join(10)


def labeler(h: Harness, stop: threading.Event, label: str = "labeled", die_after: int | None = None,
            name: str = "labeler") -> None:
    """An outside controller: labels one unlabeled ConfigMap per loop, then CheckScenarioStepPhase."""
    api = h.client(name)
    core = kubernetes.client.CoreV1Api(api)
    loops = 0
    while not stop.is_set():
        cms = core.list_namespaced_config_map("default", _request_timeout=10)
        todo = sorted(c.metadata.name for c in cms.items if label not in (c.metadata.labels or {}))
        if todo:
            core.patch_namespaced_config_map(todo[0], "default", {"metadata": {"labels": {label: "yes"}}},
                                             _request_timeout=30)
            loops += 1
            if die_after is not None and loops >= die_after:
                return  # dies inside its loop: never reaches its checkpoint
        check_scenario_step_phase(name, api, resource_version=cms.metadata.resource_version,
                                  idle=not todo, timeout=TIMEOUT)
        if not todo:
            stop.wait(0.05)


def test_an_outside_simulation_controller_runs_in_minor_steps_and_settles_by_reporting_idle(harness: Any) -> None:
    h: Harness = harness([])
    stop = threading.Event()
    worker = threading.Thread(target=labeler, args=(h, stop), daemon=True)
    worker.start()
    h.start_engine()
    h.wait_done()
    stop.set()
    worker.join(TIMEOUT)
    assert h.run.phase == ScenarioPhase.SUCCEEDED, h.run.scenario.status.message
    labels = {c["metadata"]["name"]: c["metadata"].get("labels") for c in h.run.cluster.list("v1", "ConfigMap")
              if c["metadata"]["name"] in "abc"}
    assert labels == {n: {"labeled": "yes"} for n in "abc"}
    timeline = h.run.to_json()["status"]["scenarioResult"]["timeline"]
    patches = [(step, e) for step, events in timeline.items() for e in events if "patch" in e]
    assert patches, timeline
    assert all(e.get("actor") == "labeler" for _, e in patches), patches
    # each loop's write is its own MinorStep (KEP-140 step 5): a, b in step 0; c in step 1
    assert sorted((e["step"]["major"], e["step"]["minor"]) for _, e in patches) == [(0, 1), (0, 2), (1, 1)], patches


def test_a_controller_that_dies_mid_loop_fails_the_scenario_naming_it(harness: Any) -> None:
    h: Harness = harness([], timeout=2.0)
    stop = threading.Event()
    worker = threading.Thread(target=labeler, args=(h, stop), kwargs={"die_after": 1}, daemon=True)
    worker.start()
    h.start_engine()
    h.wait_done()
    stop.set()
    assert h.run.phase == ScenarioPhase.FAILED
    message = h.run.scenario.status.message or ""
    assert "SimulationController 'labeler' did not finish within 2 s" in message
    assert "the end of its loop" in message


def test_a_missing_pre_simulation_controller_fails_the_step_with_what_was_awaited(harness: Any) -> None:
    h: Harness = harness(["pre"], timeout=1.0)
    h.start_engine()
    h.wait_done()
    assert h.run.phase == ScenarioPhase.FAILED
    message = h.run.scenario.status.message or ""
    assert "PreSimulationController 'pre' did not settle within 1 s" in message
    assert "report idle at resourceVersion >=" in message


def test_settled_when_and_out_of_turn_writes_are_held_then_refused(harness: Any) -> None:
    h: Harness = harness(["pre"], gate_timeout=1.0,
                         settled_when={"pre": "no configmaps where metadata.namespace=default and metadata.labels.pre="})
    core_sim = kubernetes.client.CoreV1Api(h.client("labeler"))
    core_pre = kubernetes.client.CoreV1Api(h.client("pre"))
    h.start_engine()
    # the step's operations ran; the engine waits for "pre" (its condition): "labeler" may not write now
    deadline = time.monotonic() + TIMEOUT
    while not any(c.metadata.name == "a" for c in core_pre.list_namespaced_config_map("default", _request_timeout=10).items):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    with pytest.raises(kubernetes.client.ApiException) as refused:
        core_sim.patch_namespaced_config_map("a", "default", {"metadata": {"labels": {"early": "yes"}}},
                                             _request_timeout=10)
    assert refused.value.status == 429
    assert refused.value.headers["Retry-After"] == "1"
    assert "wrote out of turn" in refused.value.body
    stop = threading.Event()
    worker = threading.Thread(target=labeler, args=(h, stop), daemon=True)
    worker.start()
    # "pre" labels what the operations created; its condition then holds, step by step
    while h.threads[-1].is_alive() and time.monotonic() < deadline:
        for c in core_pre.list_namespaced_config_map("default", _request_timeout=10).items:
            if "pre" not in (c.metadata.labels or {}):
                core_pre.patch_namespaced_config_map(c.metadata.name, "default",
                                                     {"metadata": {"labels": {"pre": "yes"}}}, _request_timeout=30)
        time.sleep(0.05)
    h.wait_done()
    stop.set()
    worker.join(TIMEOUT)
    assert h.run.phase == ScenarioPhase.SUCCEEDED, h.run.scenario.status.message
    names = {c["metadata"]["name"]: c["metadata"].get("labels") for c in h.run.cluster.list("v1", "ConfigMap", "default")}
    assert names["c"] == {"pre": "yes", "labeled": "yes"}


def test_an_outside_schedulers_bindings_are_podscheduled_events_with_its_actor(harness: Any) -> None:
    """The outside scheduler calls the cluster directly with its identity (the pods/binding route is
    tested end to end in test_outside_e2e.py): writes gated, checkpoints as over HTTP."""
    h: Harness = harness([], operations=PODS)
    who = Identity("labeler", controller=True)
    stop = threading.Event()

    def binder() -> None:
        while not stop.is_set():
            token = WRITER.set(who)  # as the app does for a write request
            with h.state.locked() as cluster:
                pending = sorted(p["metadata"]["name"] for p in cluster.list("v1", "Pod", "default")
                                 if not p["spec"].get("nodeName"))
                rv = cluster.resource_version
                if pending:
                    cluster.bind("default", pending[0], "node-a", actor="labeler")
            WRITER.reset(token)
            h.outside.checkpoint(who, "labeler", {"resourceVersion": rv, "idle": str(not pending).lower(),
                                                  "timeoutSeconds": "10"})
            if not pending:
                stop.wait(0.05)

    worker = threading.Thread(target=binder, daemon=True)
    worker.start()
    h.start_engine()
    h.wait_done()
    stop.set()
    worker.join(TIMEOUT)
    assert h.run.phase == ScenarioPhase.SUCCEEDED, h.run.scenario.status.message
    timeline = h.run.to_json()["status"]["scenarioResult"]["timeline"]
    scheduled = [e for events in timeline.values() for e in events if "podScheduled" in e]
    assert [(e["actor"], e["podScheduled"]["pod"]["metadata"]["name"], e["podScheduled"]["boundTo"],
             e["step"]["major"], e["step"]["minor"]) for e in scheduled] == [
        ("labeler", "p1", "node-a", 0, 1), ("labeler", "p2", "node-a", 1, 1)]


def test_an_outside_pre_simulation_controller_settles_by_reporting_idle(harness: Any) -> None:
    h: Harness = harness(["pre"])
    stop = threading.Event()
    workers = [threading.Thread(target=labeler, args=(h, stop), daemon=True),
               threading.Thread(target=labeler, args=(h, stop), kwargs={"name": "pre", "label": "pre"}, daemon=True)]
    for w in workers:
        w.start()
    h.start_engine()
    h.wait_done()
    stop.set()
    for w in workers:
        w.join(TIMEOUT)
    assert h.run.phase == ScenarioPhase.SUCCEEDED, h.run.scenario.status.message
    timeline = h.run.to_json()["status"]["scenarioResult"]["timeline"]
    patches = [(e["step"]["major"], e["step"]["minor"], e["actor"], e["patch"]["result"]["metadata"]["name"])
               for step in sorted(timeline, key=int) for e in timeline[step] if "patch" in e]
    # "pre" labels what each step's operations created before "labeler" runs (MinorStep 0)
    assert sorted(p for p in patches if p[2] == "pre") == [(0, 0, "pre", "a"), (0, 0, "pre", "b"), (1, 0, "pre", "c")]
    assert [p for p in patches if p[2] == "labeler"] == [(0, 1, "labeler", "a"), (0, 2, "labeler", "b"),
                                                         (1, 1, "labeler", "c")]
