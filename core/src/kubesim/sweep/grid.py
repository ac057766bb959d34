"""The cells of a sweep: scenarios x configurations x parameter values x seeds, in a fixed order.

Each cell is keyed by a content hash of everything its result depends on: the scenario
document (or generator and parameters), the overrides, the configuration document, the
seed, the options, the metrics, and the versions of kubesim and of every installed plugin.
The same inputs give the same key on any machine, so `--resume` can trust a stored cell.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kubesim.sweep.cell import CellTask
from kubesim.sweep.paths import set_path
from kubesim.sweep.spec import ConfigurationSpec, ParameterSpec, ScenarioSource, Sweep

__all__ = ["Cell", "RunSettings", "canonical_json", "configuration_for", "expand", "short_hash"]

KEY_LENGTH = 20
"""Hex digits of the sha256 kept as a cell's key (80 bits: no collision in any real sweep)."""


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def short_hash(value: Any) -> str:
    """The first KEY_LENGTH hex digits of the sha256 of `value`'s canonical JSON."""
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:KEY_LENGTH]


@attrs.frozen
class RunSettings:
    """The options every cell shares (from the Sweep's `spec.options`)."""

    step_duration_seconds: float
    max_objects: int
    allow_unknown_targets: bool
    plugin_options: Mapping[str, Any]


@attrs.frozen
class Cell:
    """One point of the grid with the task a worker runs for it."""

    index: int
    scenario: str
    configuration: str
    parameters: tuple[tuple[str, Any], ...]
    seed: int
    task: CellTask

    @property
    def key(self) -> str:
        """The content hash that names the cell's stored result."""
        return self.task.key


def configuration_for(config: ConfigurationSpec, values: Sequence[tuple[ParameterSpec, Any]]) -> dict[str, Any] | None:
    """The configuration document with the grid's configuration parameters set (None: defaults untouched)."""
    doc: dict[str, Any] | None = dict(config.document) if config.document is not None else None
    for spec, value in values:
        if spec.target == "configuration":
            if doc is None:
                doc = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
            doc = set_path(doc, spec.path, value)
    return doc


def _scenario_identity(source: ScenarioSource) -> str:
    if source.document is not None:
        return short_hash({"document": source.document})
    return short_hash({"generator": source.generator, "parameters": source.parameters})


def expand(sweep: Sweep, settings: RunSettings, versions: Mapping[str, str]) -> list[Cell]:
    """Every cell of the grid in order: scenario, configuration, each parameter's values, seed."""
    identities = [_scenario_identity(s) for s in sweep.scenarios]
    common = {"versions": dict(versions), "settings": attrs.asdict(settings),
              "metrics": [m.column for m in sweep.metrics]}
    cells: list[Cell] = []
    grids = list(itertools.product(*(p.values for p in sweep.parameters)))
    for s_index, source in enumerate(sweep.scenarios):
        for config in sweep.configurations:
            for point in grids:
                values = list(zip(sweep.parameters, point))
                configuration = configuration_for(config, values)
                overrides = tuple((p.path, v) for p, v in values if p.target == "scenario")
                config_hash = short_hash(configuration)
                for seed in sweep.seeds:
                    key = short_hash({**common, "scenario": identities[s_index], "overrides": overrides,
                                      "configuration": config_hash, "seed": seed})
                    task = CellTask(
                        key=key, scenario=source.name, document=source.document, generator=source.generator,
                        generator_parameters=source.parameters, overrides=overrides, configuration=configuration,
                        seed=seed, step_duration_seconds=settings.step_duration_seconds,
                        max_objects=settings.max_objects, allow_unknown_targets=settings.allow_unknown_targets,
                        plugin_options=settings.plugin_options, metrics=tuple(m.column for m in sweep.metrics),
                    )
                    cells.append(Cell(index=len(cells), scenario=source.name, configuration=config.name,
                                      parameters=tuple((p.name, v) for p, v in values), seed=seed, task=task))
    return cells
