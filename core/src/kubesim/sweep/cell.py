"""One cell of a sweep: what a worker receives, how it runs, and what it sends back.

A worker gets a `CellTask` (the scenario document or its generator, the overrides of the
grid, the configuration document, the seed and options) and nothing else; it runs the
scenario in-process through the same `Simulator` as `kubesim run` with the installed
plugins, computes the metrics from `kubesim.results`, and returns a `CellResult`. Any
error becomes the cell's `error`; the other cells go on.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import attrs

from kubesim.api import ScenarioPhase
from kubesim.api.loader import parse_scenarios
from kubesim.controllers.settle import MAX_OBJECTS, SettleLimits
from kubesim.errors import InvalidInput
from kubesim.plugins import Hooks, load_plugins
from kubesim.results import analyze
from kubesim.scenario import EngineOptions, Simulator
from kubesim.scenario.memory import fewer_full_collections
from kubesim.sweep.metrics import compute_metrics, parse_metric
from kubesim.sweep.paths import PathError, set_path

__all__ = ["CONFIG_OPTION", "CellResult", "CellTask", "build_scenario", "run_cell"]

CONFIG_OPTION = "scheduler_config"
"""The `kubesim run` option (kubesim-scheduler's --scheduler-config) a configuration is given as."""


@attrs.frozen
class CellTask:
    """Everything one cell needs, picklable and small enough to ship to a Dask worker."""

    key: str
    scenario: str
    document: Mapping[str, Any] | None
    generator: str | None
    generator_parameters: Mapping[str, Any]
    overrides: tuple[tuple[str, Any], ...]
    """(path, value) set into the scenario document."""
    configuration: Mapping[str, Any] | None
    seed: int
    step_duration_seconds: float
    max_objects: int = MAX_OBJECTS
    allow_unknown_targets: bool = False
    plugin_options: Mapping[str, Any] = attrs.field(factory=dict)
    metrics: tuple[str, ...] = ()


@attrs.frozen
class CellResult:
    """What comes back: the metrics (None when the cell failed early), status, error, wall time."""

    key: str
    status: str
    error: str | None
    metrics: Mapping[str, float | None]
    wall_seconds: float


_HOOKS: Hooks | None = None


def _hooks() -> Hooks:
    """The installed plugins, loaded once per worker process."""
    global _HOOKS
    if _HOOKS is None:
        _HOOKS = load_plugins()
    return _HOOKS


def build_scenario(task: CellTask, hooks: Hooks) -> dict[str, Any]:
    """The cell's Scenario document: the file's or the generator's, with the grid's overrides."""
    if task.document is not None:
        doc: dict[str, Any] = dict(task.document)
    else:
        from kubesim.sweep.generators import BUILTIN_GENERATORS

        assert task.generator is not None
        generate = BUILTIN_GENERATORS.get(task.generator) or hooks.scenario_generators()[task.generator]
        doc = generate(task.generator_parameters, task.seed)
    for path, value in task.overrides:
        doc = set_path(doc, path, value)
    return doc


def run_cell(task: CellTask, hooks: Hooks | None = None) -> CellResult:
    """Run one cell; never raises for a problem of the cell itself (it becomes the error)."""
    hooks = hooks or _hooks()
    start = time.perf_counter()
    metrics: dict[str, float | None] = {}
    status, error = "ok", None
    try:
        with fewer_full_collections():  # as the kubesim command runs, in any worker process
            metrics, status, error = _run(task, hooks)
    except InvalidInput as exc:
        status, error = "failed", "; ".join(str(p) for p in exc.problems)
    except (PathError, ValueError, KeyError) as exc:
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a plugin's crash is this cell's failure, not the sweep's
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    return CellResult(task.key, status, error, metrics, time.perf_counter() - start)


def _run(task: CellTask, hooks: Hooks) -> tuple[dict[str, float | None], str, str | None]:
    doc = build_scenario(task, hooks)
    [scenario] = parse_scenarios([doc], file=task.scenario)
    plugin_options = dict(task.plugin_options)
    if task.configuration is not None:
        plugin_options[CONFIG_OPTION] = task.configuration
    options = EngineOptions(seed=task.seed, step_duration=timedelta(seconds=task.step_duration_seconds),
                            allow_unknown_targets=task.allow_unknown_targets,
                            settle_limits=SettleLimits(max_objects=task.max_objects),
                            plugin_options=plugin_options)
    [result] = Simulator(hooks, options).run([scenario])
    specs = [parse_metric(m) for m in task.metrics]
    tables = analyze(result, hooks=None if all(m.builtin_only for m in specs) else hooks)
    metrics = compute_metrics(tables, specs)
    if result.status.phase == ScenarioPhase.FAILED:
        return metrics, "failed", f"scenario failed: {result.status.message}"
    return metrics, "ok", None
