"""Ranking the candidates of a sweep: a candidate is a configuration with its values of the
configuration parameters; its score is the mean of the rank metric over its successful
cells (every scenario, scenario-parameter value and seed). Ties keep the grid's order."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs

from kubesim.sweep.spec import Sweep
from kubesim.sweep.store import CellRecord

__all__ = ["Candidate", "rank"]


@attrs.frozen
class Candidate:
    """One configuration with its parameter values, and its metrics over its cells."""

    configuration: str
    parameters: tuple[tuple[str, Any], ...]
    cells: int
    failed: int
    mean: dict[str, float | None]
    std: dict[str, float | None]
    values: dict[str, list[float]]
    """Each metric's value per successful cell (in grid order): the per-seed spread."""
    by_scenario: dict[str, float | None]
    """The rank metric's mean on each scenario alone."""

    @property
    def label(self) -> str:
        """`name` or `name (p=v, ...)`."""
        if not self.parameters:
            return self.configuration
        return f"{self.configuration} ({', '.join(f'{k}={v}' for k, v in self.parameters)})"


def _stats(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    var = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(var)


def rank(sweep: Sweep, records: Sequence[CellRecord]) -> list[Candidate]:
    """The candidates best first by the rank metric's mean (candidates without a value last)."""
    config_params = [p.name for p in sweep.parameters if p.target == "configuration"]
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[CellRecord]] = {}
    labels: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[tuple[str, Any], ...]] = {}
    for r in records:
        params = tuple((n, r.parameters[n]) for n in config_params)
        key = (r.configuration, tuple((n, repr(v)) for n, v in params))
        groups.setdefault(key, []).append(r)
        labels.setdefault(key, params)
    candidates = []
    for key, members in groups.items():
        ok = [m for m in members if m.status == "ok"]
        values: dict[str, list[float]] = {}
        mean: dict[str, float | None] = {}
        std: dict[str, float | None] = {}
        for m in sweep.metrics:
            vals = [float(v) for r in ok if (v := r.metrics.get(m.column)) is not None]
            values[m.column] = vals
            mean[m.column], std[m.column] = _stats(vals)
        by_scenario = {}
        for scenario in sweep.scenarios:
            vals = [float(v) for r in ok if r.scenario == scenario.name
                    and (v := r.metrics.get(sweep.rank_metric)) is not None]
            by_scenario[scenario.name] = _stats(vals)[0]
        candidates.append(Candidate(key[0], labels[key], len(members), len(members) - len(ok), mean, std, values,
                                    by_scenario))
    sign = 1.0 if sweep.rank_better == "lower" else -1.0

    def order(item: tuple[int, Candidate]) -> tuple[int, float, int]:
        value = item[1].mean.get(sweep.rank_metric)
        return (1, 0.0, item[0]) if value is None else (0, sign * value, item[0])

    return [c for _, c in sorted(enumerate(candidates), key=order)]
