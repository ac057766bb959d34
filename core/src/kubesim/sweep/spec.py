"""The `Sweep` file: what `kubesim sweep` runs, versioned like the Scenario API.

```yaml
apiVersion: kubesim.io/v1alpha1
kind: Sweep
metadata: {name: fit-weights}
spec:
  scenarios:                        # files (relative to the sweep file) or generators
  - file: scenario.yaml
  - name: uniform
    generator: uniform
    parameters: {nodes: 50, pods: 400}
  configurations:                   # KubeSchedulerConfiguration files; no file: the defaults
  - name: default
  - {name: most-allocated, file: most.yaml}
  parameters:                       # the grid: a path into the configuration or the scenario
  - name: fitWeight
    path: profiles[0].plugins.score.enabled[name=NodeResourcesFit].weight
    values: [1, 5]
  seeds: [0, 1, 2]                  # or {count: 3} or {start: 10, count: 3}
  metrics: [unscheduled, allocation, pods.attempts:mean]
  rank: {metric: unscheduled}
  options: {stepDuration: 10s, detail: none}
```

Every problem is reported with its field path (`spec.parameters[1].values: ...`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeGuard

import attrs

from kubesim.api.loader import load_documents
from kubesim.errors import InvalidInput, Problem
from kubesim.sweep.metrics import MetricSpec, parse_metric
from kubesim.sweep.paths import PathError, parse_path

__all__ = [
    "API_VERSION",
    "KIND",
    "MAX_CELLS",
    "ConfigurationSpec",
    "ParameterSpec",
    "ScenarioSource",
    "Sweep",
    "load_sweep",
    "parse_sweep",
]

API_VERSION = "kubesim.io/v1alpha1"
KIND = "Sweep"
MAX_CELLS = 100_000
"""More cells than this is refused: a typo in a grid, not an experiment one machine finishes."""

MAX_SEEDS = 10_000
_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$")
_RESERVED_COLUMNS = {"cell", "scenario", "configuration", "seed", "status", "error"}
Target = Literal["configuration", "scenario"]


@attrs.frozen
class ScenarioSource:
    """One scenario: the documents of a file, or a generator plugin with its parameters."""

    name: str
    document: Mapping[str, Any] | None = None
    file: str | None = None
    generator: str | None = None
    parameters: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class ConfigurationSpec:
    """One KubeSchedulerConfiguration (None: the scheduler's defaults)."""

    name: str
    document: Mapping[str, Any] | None = None
    file: str | None = None


@attrs.frozen
class ParameterSpec:
    """One axis of the grid: a path into the configuration or the scenario, and its values."""

    name: str
    path: str
    target: Target
    values: tuple[Any, ...]


@attrs.frozen
class Sweep:
    """A validated Sweep file."""

    name: str
    scenarios: tuple[ScenarioSource, ...]
    configurations: tuple[ConfigurationSpec, ...]
    parameters: tuple[ParameterSpec, ...]
    seeds: tuple[int, ...]
    metrics: tuple[MetricSpec, ...]
    rank_metric: str
    rank_better: Literal["lower", "higher"]
    options: Mapping[str, Any]
    file: str | None = None

    @property
    def cell_count(self) -> int:
        """How many cells the grid has (scenarios x configurations x parameter values x seeds)."""
        n = len(self.scenarios) * len(self.configurations) * len(self.seeds)
        for p in self.parameters:
            n *= len(p.values)
        return n


class _Problems:
    """Collects problems with the file name."""

    def __init__(self, file: str | None) -> None:
        self.file = file
        self.items: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(Problem(path, message, self.file))


def _mapping(value: Any, path: str, problems: _Problems, *, required: bool = False) -> Mapping[str, Any]:
    if value is None:
        if required:
            problems.add(path, "required")
        return {}
    if not isinstance(value, Mapping):
        problems.add(path, f"expected a mapping, got {_kind(value)}")
        return {}
    return value


def _list(value: Any, path: str, problems: _Problems) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.add(path, f"expected a list, got {_kind(value)}")
        return []
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number"}.get(type(value), type(value).__name__)


def _unknown(data: Mapping[str, Any], allowed: Sequence[str], path: str, problems: _Problems) -> None:
    for key in data:
        if key not in allowed:
            problems.add(f"{path}.{key}" if path else str(key), f"unknown field (expected one of {', '.join(allowed)})")


def _name(value: Any, path: str, problems: _Problems) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        problems.add(path, "expected a name of letters, digits, '.', '_' or '-' (at most 63 characters), "
                           f"got {value!r}")
        return ""
    return value


def _document(base: Path, file: Any, path: str, problems: _Problems, what: str) -> Mapping[str, Any] | None:
    """The one document of a referenced file (a scenario or a configuration), read within input limits."""
    if not isinstance(file, str) or not file:
        problems.add(path, f"expected the path of a {what} file, got {file!r}")
        return None
    target = Path(file) if Path(file).is_absolute() else base / file
    try:
        docs = load_documents(target)
    except InvalidInput as exc:
        problems.items.extend(Problem(path, f"{what} file {p}", problems.file) for p in exc.problems)
        return None
    if len(docs) != 1 or not isinstance(docs[0], Mapping):
        problems.add(path, f"{what} file {target}: expected one document (a mapping), found {len(docs)}")
        return None
    return dict(docs[0])


def _scenarios(value: Any, base: Path, problems: _Problems) -> tuple[ScenarioSource, ...]:
    out: list[ScenarioSource] = []
    items = _list(value, "spec.scenarios", problems)
    if value is not None and not items and isinstance(value, list):
        problems.add("spec.scenarios", "expected at least one scenario")
    for i, item in enumerate(items):
        path = f"spec.scenarios[{i}]"
        if isinstance(item, str):
            item = {"file": item}
        data = _mapping(item, path, problems)
        _unknown(data, ("name", "file", "generator", "parameters"), path, problems)
        has_file, has_gen = "file" in data, "generator" in data
        if has_file == has_gen:
            problems.add(path, "expected exactly one of file or generator")
            continue
        if has_file:
            if "parameters" in data:
                problems.add(f"{path}.parameters", "only a generator takes parameters")
            doc = _document(base, data["file"], f"{path}.file", problems, "scenario")
            default = Path(str(data["file"])).stem
            name = _name(data.get("name", default), f"{path}.name", problems)
            out.append(ScenarioSource(name=name, document=doc, file=str(data["file"])))
        else:
            gen = data["generator"]
            if not isinstance(gen, str) or not gen:
                problems.add(f"{path}.generator", f"expected the name of a scenario generator, got {gen!r}")
                continue
            params = _mapping(data.get("parameters"), f"{path}.parameters", problems)
            name = _name(data.get("name", gen), f"{path}.name", problems)
            out.append(ScenarioSource(name=name, generator=gen, parameters=dict(params)))
    _unique([s.name for s in out], "spec.scenarios", "scenario", problems)
    return tuple(out)


def _configurations(value: Any, base: Path, problems: _Problems) -> tuple[ConfigurationSpec, ...]:
    if value is None:
        return (ConfigurationSpec(name="default"),)
    out: list[ConfigurationSpec] = []
    items = _list(value, "spec.configurations", problems)
    if isinstance(value, list) and not items:
        problems.add("spec.configurations", "expected at least one configuration (or leave it out for the defaults)")
    for i, item in enumerate(items):
        path = f"spec.configurations[{i}]"
        if isinstance(item, str):
            item = {"file": item}
        data = _mapping(item, path, problems)
        _unknown(data, ("name", "file"), path, problems)
        if "file" in data:
            doc = _document(base, data["file"], f"{path}.file", problems, "configuration")
            name = _name(data.get("name", Path(str(data["file"])).stem), f"{path}.name", problems)
            out.append(ConfigurationSpec(name=name, document=doc, file=str(data["file"])))
        else:
            if "name" not in data:
                problems.add(f"{path}.name", "required when there is no file (the scheduler's defaults)")
                continue
            out.append(ConfigurationSpec(name=_name(data["name"], f"{path}.name", problems)))
    _unique([c.name for c in out], "spec.configurations", "configuration", problems)
    return tuple(out)


def _parameters(value: Any, problems: _Problems) -> tuple[ParameterSpec, ...]:
    out: list[ParameterSpec] = []
    for i, item in enumerate(_list(value, "spec.parameters", problems)):
        path = f"spec.parameters[{i}]"
        data = _mapping(item, path, problems)
        _unknown(data, ("name", "path", "target", "values"), path, problems)
        target = data.get("target", "configuration")
        if target not in ("configuration", "scenario"):
            problems.add(f"{path}.target", f"expected configuration or scenario, got {target!r}")
            continue
        raw_path = data.get("path")
        if not isinstance(raw_path, str) or not raw_path:
            problems.add(f"{path}.path", "required: a field path such as "
                                         "profiles[0].plugins.score.enabled[name=NodeResourcesFit].weight")
            continue
        try:
            parse_path(raw_path)
        except PathError as exc:
            problems.add(f"{path}.path", str(exc))
            continue
        values = data.get("values")
        if not isinstance(values, list) or not values:
            problems.add(f"{path}.values", f"expected a non-empty list of values, got {_kind(values)}")
            continue
        for j, v in enumerate(values):
            if isinstance(v, float) and v != v:  # NaN: never equal to itself, so never one grid point
                problems.add(f"{path}.values[{j}]", "NaN is not a value")
        if len({_key(v) for v in values}) != len(values):
            problems.add(f"{path}.values", "values repeat")
        default = re.sub(r"\[[^]]*\]", "", raw_path).split(".")[-1] or raw_path
        name = _name(data.get("name", default), f"{path}.name", problems)
        if name in _RESERVED_COLUMNS:
            problems.add(f"{path}.name", f"{name!r} is a column of the results table; choose another name")
        out.append(ParameterSpec(name=name, path=raw_path, target=target, values=tuple(values)))
    _unique([p.name for p in out], "spec.parameters", "parameter", problems)
    return tuple(out)


def _key(value: Any) -> str:
    return f"{type(value).__name__}:{value!r}"


def _unique(names: Sequence[str], path: str, what: str, problems: _Problems) -> None:
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name and name in seen:
            problems.add(f"{path}[{i}].name", f"duplicate {what} name {name!r}")
        seen.add(name)


def _int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _seeds(value: Any, problems: _Problems) -> tuple[int, ...]:
    if value is None:
        return (0,)
    if isinstance(value, Mapping):
        _unknown(value, ("start", "count"), "spec.seeds", problems)
        start, count = value.get("start", 0), value.get("count")
        if not _int(start) or not 0 <= start < 2**63:
            problems.add("spec.seeds.start", f"expected an integer >= 0, got {start!r}")
            return ()
        if not _int(count) or not 1 <= count <= MAX_SEEDS:
            problems.add("spec.seeds.count", f"expected an integer from 1 to {MAX_SEEDS}, got {count!r}")
            return ()
        return tuple(range(start, start + count))
    items = _list(value, "spec.seeds", problems)
    if isinstance(value, list) and not items:
        problems.add("spec.seeds", "expected at least one seed")
    for i, s in enumerate(items):
        if not _int(s) or not 0 <= s < 2**63:
            problems.add(f"spec.seeds[{i}]", f"expected an integer >= 0, got {s!r}")
    if len(set(items)) != len(items):
        problems.add("spec.seeds", "seeds repeat")
    return tuple(s for s in items if _int(s))


def _metrics(value: Any, problems: _Problems) -> tuple[MetricSpec, ...]:
    if value is None:
        return tuple(parse_metric(m) for m in ("unscheduled", "pending", "allocation", "fragmentation",
                                              "preemptions", "attempts"))
    out: list[MetricSpec] = []
    items = _list(value, "spec.metrics", problems)
    if isinstance(value, list) and not items:
        problems.add("spec.metrics", "expected at least one metric")
    for i, m in enumerate(items):
        try:
            out.append(parse_metric(m))
        except ValueError as exc:
            problems.add(f"spec.metrics[{i}]", str(exc))
    seen: set[str] = set()
    for i, m in enumerate(out):
        if m.column in seen:
            problems.add(f"spec.metrics[{i}]", f"metric {m.column!r} repeats")
        seen.add(m.column)
    return tuple(out)


def _rank(value: Any, metrics: Sequence[MetricSpec], problems: _Problems) -> tuple[str, Literal["lower", "higher"]]:
    data = _mapping(value, "spec.rank", problems)
    _unknown(data, ("metric", "better"), "spec.rank", problems)
    if not metrics:
        return "", "lower"
    columns = {m.column: m for m in metrics}
    metric = data.get("metric", metrics[0].column)
    if metric not in columns:
        problems.add("spec.rank.metric", f"expected one of the metrics ({', '.join(columns)}), got {metric!r}")
        return "", "lower"
    better = data.get("better", columns[metric].better)
    if better not in ("lower", "higher"):
        what = "required for a metric kubesim does not know the direction of; " if better is None else ""
        problems.add("spec.rank.better", f"{what}expected lower or higher, got {better!r}")
        return metric, "lower"
    return metric, better


def parse_sweep(data: Any, *, file: str | None = None, base: Path | None = None) -> Sweep:
    """Validate a parsed Sweep document; InvalidInput lists every problem with its field path.

    Scenario and configuration files are read relative to `base` (the sweep file's directory).
    """
    problems = _Problems(file)
    root = _mapping(data, "", problems, required=True)
    if not root:
        if not problems.items:
            problems.add("", "expected a Sweep document")
        raise InvalidInput(problems.items)
    _unknown(root, ("apiVersion", "kind", "metadata", "spec"), "", problems)
    if root.get("apiVersion") != API_VERSION:
        problems.add("apiVersion", f"expected {API_VERSION}, got {root.get('apiVersion')!r}")
    if root.get("kind") != KIND:
        problems.add("kind", f"expected {KIND}, got {root.get('kind')!r}")
    meta = _mapping(root.get("metadata"), "metadata", problems)
    _unknown(meta, ("name",), "metadata", problems)
    name = _name(meta.get("name", Path(file).stem if file else "sweep"), "metadata.name", problems)
    spec = _mapping(root.get("spec"), "spec", problems, required=True)
    _unknown(spec, ("scenarios", "configurations", "parameters", "seeds", "metrics", "rank", "options"),
             "spec", problems)
    if "scenarios" not in spec and isinstance(root.get("spec"), Mapping):
        problems.add("spec.scenarios", "required: at least one scenario file or generator")
    base = base if base is not None else (Path(file).parent if file else Path("."))
    scenarios = _scenarios(spec.get("scenarios"), base, problems)
    configurations = _configurations(spec.get("configurations"), base, problems)
    parameters = _parameters(spec.get("parameters"), problems)
    seeds = _seeds(spec.get("seeds"), problems)
    metrics = _metrics(spec.get("metrics"), problems)
    rank_metric, rank_better = _rank(spec.get("rank"), metrics, problems)
    options = _mapping(spec.get("options"), "spec.options", problems)
    sweep = Sweep(name=name, scenarios=scenarios, configurations=configurations, parameters=parameters,
                  seeds=seeds, metrics=metrics, rank_metric=rank_metric, rank_better=rank_better,
                  options=dict(options), file=file)
    if not problems.items and sweep.cell_count > MAX_CELLS:
        problems.add("spec", f"the grid has {sweep.cell_count} cells; at most {MAX_CELLS} are allowed")
    if problems.items:
        raise InvalidInput(problems.items)
    return sweep


def load_sweep(path: str | Path) -> Sweep:
    """Read and validate a Sweep file (YAML or JSON, one document)."""
    docs = load_documents(path)
    if len(docs) != 1:
        raise InvalidInput([Problem("", f"expected one Sweep document, found {len(docs)}", str(path))])
    return parse_sweep(docs[0], file=str(path), base=Path(path).parent)
