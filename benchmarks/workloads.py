"""Scenario builders for the benchmarks, modelled on upstream scheduler_perf's workloads.

Templates follow kubernetes/kubernetes test/integration/scheduler_perf/config/:
node-default.yaml (4 CPU, 32Gi, 110 pods, Ready), pod-default.yaml (one pause container,
100m / 500Mi requests and limits, containerPort 80), pod-with-pod-anti-affinity.yaml and
pod-with-topology-spreading.yaml. Names are fixed (no generateName) so that runs repeat.

Every scenario has the same shape: nodes and init pods at step 0, the measured pods at
step 1, done at step 2. The scheduler is the only controller: scheduler_perf runs the
API server and the scheduler, no kubelet, so the scenario disables every
PreSimulationController ("*") unless asked to keep them.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = [
    "Clock",
    "MeasureWatch",
    "anti_affinity_pod",
    "build_scenario",
    "default_node",
    "default_pod",
    "now",
    "peak_rss_mib",
    "report",
    "run_in_process",
    "scheduler_config",
    "span",
    "spreading_pod",
]

API_VERSION = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"
PodFactory = Callable[[str, str], dict[str, Any]]


def default_node(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """node-default.yaml. Allocatable is set to the capacity, as the API server's Node defaulting does."""
    resources = {"pods": "110", "cpu": "4", "memory": "32Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, **({"labels": dict(labels)} if labels else {})},
        "spec": {},
        "status": {
            "capacity": dict(resources),
            "allocatable": dict(resources),
            "conditions": [{"status": "True", "type": "Ready"}],
            "phase": "Running",
        },
    }


def _pause_container(image: str = "registry.k8s.io/pause:3.10") -> dict[str, Any]:
    req = {"cpu": "100m", "memory": "500Mi"}
    return {
        "image": image,
        "name": "pause",
        "ports": [{"containerPort": 80}],
        "resources": {"limits": dict(req), "requests": dict(req)},
    }


def default_pod(name: str, namespace: str, variant: int = 0) -> dict[str, Any]:
    """pod-default.yaml: 100m CPU, 500Mi memory; variant k > 0 asks for k*10m and k*10Mi more."""
    container = _pause_container()
    if variant:
        req = {"cpu": f"{100 + 10 * variant}m", "memory": f"{500 + 10 * variant}Mi"}
        container["resources"] = {"limits": dict(req), "requests": dict(req)}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [container]},
    }


def anti_affinity_pod(name: str, namespace: str, namespaces: Sequence[str]) -> dict[str, Any]:
    """pod-with-pod-anti-affinity.yaml: color=green, one per hostname among green pods of `namespaces`."""
    pod = default_pod(name, namespace)
    pod["metadata"]["labels"] = {"color": "green"}
    pod["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"color": "green"}},
                "topologyKey": "kubernetes.io/hostname",
                "namespaces": list(namespaces),
            }]
        }
    }
    return pod


def spreading_pod(name: str, namespace: str) -> dict[str, Any]:
    """pod-with-topology-spreading.yaml: color=blue, maxSkew 5 over zones, DoNotSchedule."""
    pod = default_pod(name, namespace)
    pod["metadata"]["labels"] = {"color": "blue"}
    pod["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": 5,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"color": "blue"}},
    }]
    return pod


def _create(op_id: str, step: int, obj: dict[str, Any]) -> dict[str, Any]:
    return {"id": op_id, "step": step, "createOperation": {"object": obj}}


def build_scenario(
    name: str,
    nodes: Sequence[dict[str, Any]],
    init_pods: Sequence[dict[str, Any]],
    measured_pods: Sequence[dict[str, Any]],
    extra_step0: Sequence[dict[str, Any]] = (),
    *,
    other_controllers: bool = False,
) -> dict[str, Any]:
    """A Scenario document: extra objects, nodes and init pods at step 0, measured pods at 1, done at 2.

    other_controllers=True keeps the installed PreSimulationControllers (kubelet, ...).
    """
    ops: list[dict[str, Any]] = []
    for obj in extra_step0:
        ops.append(_create(f"{obj['kind'].lower()}-{obj['metadata']['name']}", 0, obj))
    for obj in nodes:
        ops.append(_create(f"node-{obj['metadata']['name']}", 0, obj))
    for obj in init_pods:
        ops.append(_create(f"init-{obj['metadata']['namespace']}-{obj['metadata']['name']}", 0, obj))
    for obj in measured_pods:
        ops.append(_create(f"pod-{obj['metadata']['namespace']}-{obj['metadata']['name']}", 1, obj))
    ops.append({"id": "done", "step": 2, "doneOperation": {}})
    controllers: dict[str, Any] = {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}
    if not other_controllers:
        controllers["preSimulationControllers"] = {"disabled": [{"name": "*"}]}
    return {
        "apiVersion": API_VERSION,
        "kind": "Scenario",
        "metadata": {"name": name},
        "spec": {"controllers": controllers, "operations": ops},
    }


def scheduler_config(percentage: int) -> dict[str, Any]:
    """A KubeSchedulerConfiguration with the default profile and percentageOfNodesToScore.

    Default plugins that this installation does not register yet (DefaultPreemption while
    it is being written) are disabled, with a note on stderr; they do not run for pods
    that fit anyway.
    """
    from kubesim.plugins import load_plugins

    config: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": percentage,
    }
    registry = load_plugins().scheduler_plugins()
    missing = [name for name in ("DefaultPreemption",) if name not in registry]
    if missing:
        print(f"note: {', '.join(missing)} not installed; disabled in the profile", file=sys.stderr)
        config["profiles"] = [{
            "schedulerName": "default-scheduler",
            "plugins": {"multiPoint": {"disabled": [{"name": n} for n in missing]}},
        }]
    return config


def peak_rss_mib() -> float:
    """Peak resident set size of this process in MiB (ru_maxrss is KiB on Linux, bytes on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


Clock = tuple[float, float]  # (time.perf_counter(), time.process_time())


def now() -> Clock:
    """Wall-clock and CPU time of this process (CPU time is what other load on the machine spares)."""
    return time.perf_counter(), time.process_time()


def span(start: Clock | None, end: Clock | None) -> Clock:
    """(wall, cpu) seconds from start to end; NaN when either is missing."""
    if start is None or end is None:
        return float("nan"), float("nan")
    return end[0] - start[0], end[1] - start[1]


class MeasureWatch:
    """Cluster watch handler timing the measured pods: creations and bindings.

    It is subscribed after step 0, so it runs after the engine's and the scheduler's own
    handlers for each event and sees only step-1 writes.
    """

    def __init__(self, measured: set[tuple[str, str]]) -> None:
        self.measured = measured
        self.first_created: Clock | None = None
        self.last_created: Clock | None = None
        self.first_bound: Clock | None = None
        self.last_bound: Clock | None = None
        self.created = 0
        self.bound = 0

    def __call__(self, event: Any) -> None:
        obj = event.object
        if obj.get("kind") != "Pod":
            return
        meta = obj["metadata"]
        if (meta.get("namespace"), meta.get("name")) not in self.measured:
            return
        if event.type == "ADDED":
            self.created += 1
            self.last_created = now()
            if self.first_created is None:
                self.first_created = self.last_created
        elif event.subresource == "binding":
            self.bound += 1
            self.last_bound = now()
            if self.first_bound is None:
                self.first_bound = self.last_bound


@contextmanager
def _config_file(config: dict[str, Any]) -> Iterator[str]:
    fd, path = tempfile.mkstemp(prefix="kubesim-bench-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(config, fh)
        yield path
    finally:
        os.unlink(path)


def run_in_process(
    scenario_doc: dict[str, Any], *, config: dict[str, Any], detail: str, seed: int = 0,
    profile_path: str | None = None,
) -> dict[str, Any]:
    """Run a scenario through kubesim.scenario.Simulator with the installed plugins and time it.

    Returns the phase, the watch counters and these (wall, CPU) second pairs:
    step0 (nodes, init pods and their scheduling), step1 (create the measured pods through
    the API, then schedule and bind them), create (first to last measured pod ADDED) and
    schedule (last measured pod ADDED to last measured binding: the scheduler's work on
    them, including its per-attempt timeline records).
    """
    from kubesim.api import structure
    from kubesim.api.scenario import Scenario
    from kubesim.cli.logconfig import configure_logging
    from kubesim.plugins import load_plugins
    from kubesim.scenario import EngineOptions, ScenarioRun, Simulator

    measured = {
        (op["createOperation"]["object"]["metadata"]["namespace"], op["createOperation"]["object"]["metadata"]["name"])
        for op in scenario_doc["spec"]["operations"]
        if op.get("step") == 1 and "createOperation" in op
    }
    configure_logging(-1)  # warnings and errors only, on stderr
    scenario = structure(scenario_doc, Scenario)
    hooks = load_plugins()
    watch = MeasureWatch(measured)
    marks: dict[int, Clock] = {}
    profiler: Any = None

    def on_step(run: ScenarioRun) -> None:
        nonlocal profiler
        step = run.scenario.status.step_status.step.major
        marks[step] = now()
        if step == 0:
            run.cluster.watch(watch)
            if profile_path:
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
        elif step == 1 and profiler is not None:
            profiler.disable()

    with _config_file(config) as path:
        options = EngineOptions(seed=seed, plugin_options={"scheduler_config": path, "detail": detail})
        simulator = Simulator(hooks, options, progress=on_step)
        start = now()
        (result,) = simulator.run([scenario])
        end = now()
    if profiler is not None and profile_path:
        profiler.dump_stats(profile_path)
    return {
        "phase": result.status.phase.value if result.status.phase else None,
        "message": result.status.message,
        "total": span(start, end),
        "step0": span(start, marks.get(0)),
        "step1": span(marks.get(0), marks.get(1)),
        "create": span(watch.first_created, watch.last_created),
        "schedule": span(watch.last_created, watch.last_bound),
        "created": watch.created,
        "bound": watch.bound,
        "result": result,
        "run": simulator.runs[0],
    }


def report(out: dict[str, Any], pods: int) -> str:
    """The figures of run_in_process as printed by the benchmarks (wall and CPU time)."""
    lines = [f"  phase {out['phase']}; measured pods created {out['created']}, bound {out['bound']}"]
    if out["message"]:
        lines.append(f"  message: {out['message']}")
    lines.append(f"  {'':31}{'wall s':>9}{'pods/s':>9}{'CPU s':>9}{'pods/s':>9}")

    def row(label: str, key: str, rate: bool) -> None:
        wall, cpu = out[key]
        rates = (f"{pods / wall:9.0f}", f"{pods / cpu:9.0f}") if rate else ("", "")
        lines.append(f"  {label:31}{wall:9.2f}{rates[0]:>9}{cpu:9.2f}{rates[1]:>9}")

    row("step 0 (nodes + init pods)", "step0", False)
    row("step 1 create (API writes)", "create", False)
    row("step 1 schedule (measured)", "schedule", True)
    row("step 1 total (create+schedule)", "step1", True)
    row("whole run", "total", False)
    lines.append(f"  peak RSS {peak_rss_mib():.0f} MiB")
    return "\n".join(lines)
