"""Running a compiled workload on the embedded cluster and measuring its scheduling.

The run is a kubesim Scenario (kubesim.scenario.ScenarioRun) with the installed plugins. A
watch on pods notes, for each binding, the process CPU time and the step; the timeline gives
every scheduling attempt. Placement (which pod went where, attempts) is deterministic; the
throughput is CPU time of this process, which is not.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from kubesim.api.converter import structure
from kubesim.api.scenario import Scenario
from kubesim.controllers.settle import SettleLimits
from kubesim.errors import InvalidInput, Problem
from kubesim.feature_gates import FeatureGateError, format_feature_gates, parse_feature_gates
from kubesim.perf.compile import Plan
from kubesim.plugins import Hooks
from kubesim.scenario import EngineOptions, ScenarioRun
from kubesim.scenario.memory import fewer_full_collections

__all__ = ["Binding", "RunRecord", "feature_gates_option", "prepare_scenario", "run_plan"]

#: problems listed per workload when its objects are invalid
MAX_PROBLEMS = 20
_OPERATION_PATH = re.compile(r"^spec\.operations\[(\d+)\]\.?(.*)$")


@dataclass(frozen=True)
class Binding:
    """A pod bound during the run: when (process CPU seconds) and at which step."""

    namespace: str
    name: str
    labels: Mapping[str, str]
    cpu: float
    step: int
    node: str


@dataclass
class RunRecord:
    """What a workload's run leaves for its DataItems."""

    phase: str
    message: str | None
    bindings: list[Binding] = field(default_factory=list)
    step_start_cpu: dict[int, float] = field(default_factory=dict)
    end_cpu: float = 0.0
    attempts: list[tuple[str, str, int, str]] = field(default_factory=list)
    """(namespace, name, step, result) per attempt; result scheduled, unschedulable or error."""
    pod_labels: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    placement: dict[tuple[str, str], str | None] = field(default_factory=dict)
    """Every pod of the final cluster -> its node (None: pending)."""


def feature_gates_option(gates: Mapping[str, bool], where: str, file: str) -> str | None:
    """The `--feature-gates` text of a featureGates map, checked as kube-scheduler checks it."""
    if not gates:
        return None
    text = ",".join(f"{k}={'true' if v else 'false'}" for k, v in sorted(gates.items()))
    try:
        return format_feature_gates(parse_feature_gates(text)) or None
    except FeatureGateError as exc:
        raise InvalidInput([Problem(where, str(exc), file)]) from None


def prepare_scenario(plan: Plan, hooks: Hooks, file: str) -> Scenario:
    """The plan's Scenario, checked as `kubesim validate` checks a file (every object the API
    server would refuse, unknown kinds, patches of unknown objects). InvalidInput names the op
    that wrote each bad operation (`[0].workloadTemplate[2]: Pod namespace-2/pod-0: ...`)."""
    from kubesim.cli.validate import validate_scenarios

    scenario = structure(plan.scenario, Scenario)
    try:
        validate_scenarios([(file, scenario)], hooks)
    except InvalidInput as exc:
        operations = plan.scenario["spec"]["operations"]
        problems = []
        for p in exc.problems:
            m = _OPERATION_PATH.match(p.path)
            if m is None or int(m.group(1)) >= len(plan.origins):
                problems.append(Problem(p.path, f"workload {plan.name}: {p.message}", file))
                continue
            op = operations[int(m.group(1))]
            body: dict[str, Any] = next(iter(v for k, v in op.items() if k.endswith("Operation")), {})
            obj = body.get("object") or body.get("objectMeta") or {}
            meta = obj.get("metadata", obj)
            kind = obj.get("kind") or (body.get("typeMeta") or {}).get("kind", "")
            name = "/".join(x for x in (meta.get("namespace"), meta.get("name")) if x)
            rest = re.sub(r"^(createOperation\.object|patchOperation|deleteOperation)\.?", "", m.group(2))
            where = f"{kind} {name}" + (f": {rest}" if rest else "")
            problems.append(Problem(plan.origins[int(m.group(1))], f"{where}: {p.message}", file))
        if len(problems) > MAX_PROBLEMS:  # 10,000 pods of one bad template: the first ones say it
            more = len(problems) - MAX_PROBLEMS
            problems = [*problems[:MAX_PROBLEMS], Problem(plan.name, f"and {more} more problems", file)]
        raise InvalidInput(problems) from None
    return scenario


def run_plan(plan: Plan, scenario: Scenario, hooks: Hooks, plugin_options: Mapping[str, Any], *, seed: int = 0,
             step_seconds: float = 1.0, max_objects: int | None = None) -> RunRecord:
    """Run `plan` (its Scenario from prepare_scenario) and record its bindings, attempts and final placement."""
    limits = SettleLimits(max_objects=max_objects) if max_objects else SettleLimits()
    options = EngineOptions(seed=seed, step_duration=timedelta(seconds=step_seconds), plugin_options=dict(plugin_options),
                            settle_limits=limits)
    record = RunRecord(phase="", message=None)
    marks: list[tuple[int, float]] = []

    def on_step(run: ScenarioRun) -> None:
        marks.append((run.scenario.status.step_status.step.major, time.process_time()))

    run = ScenarioRun(scenario, hooks, options, on_step)

    def on_pod(event: Any) -> None:
        if event.subresource != "binding":
            return
        meta = event.object.get("metadata") or {}
        record.bindings.append(Binding(meta.get("namespace", ""), meta.get("name", ""),
                                       dict(meta.get("labels") or {}), time.process_time(),
                                       run.scenario.status.step_status.step.major,
                                       (event.object.get("spec") or {}).get("nodeName") or ""))

    run.cluster.watch(on_pod, kinds={"Pod"})
    start = time.process_time()
    try:
        with fewer_full_collections():
            run.start()
    except Exception as exc:  # noqa: BLE001 -- a bug must end this workload Failed, not lose the others
        run.abort(f"internal error: {type(exc).__name__}: {exc}")
    finally:
        record.end_cpu = time.process_time()
        run.close()
    previous = start
    for step, cpu in marks:
        record.step_start_cpu.setdefault(step, previous)
        previous = cpu
    status = run.scenario.status
    record.phase = status.phase.value if status.phase else ""
    record.message = status.message
    for events in run.timeline.timeline.values():
        for e in events:
            for result, kind in ((e.pod_scheduled, "scheduled"), (e.pod_unscheduled, "unschedulable")):
                if result is None:
                    continue
                meta = result.pod.get("metadata") or {}
                if kind == "unschedulable" and _scheduler_error(result.pod):
                    kind = "error"
                record.attempts.append((meta.get("namespace", ""), meta.get("name", ""), e.step.major, kind))
    for pod in run.cluster.list("v1", "Pod"):
        meta = pod.get("metadata") or {}
        key = (meta.get("namespace", ""), meta.get("name", ""))
        record.placement[key] = (pod.get("spec") or {}).get("nodeName") or None
        record.pod_labels[key] = dict(meta.get("labels") or {})
    return record


def _scheduler_error(pod: Mapping[str, Any]) -> bool:
    """Whether the pod's PodScheduled condition says the attempt failed with an error
    (reason SchedulerError), not for want of a node."""
    for cond in (pod.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "PodScheduled":
            return bool(cond.get("reason") == "SchedulerError")
    return False
