"""k8s-cluster-simulator's config file: tick, startClock, metricsTick, metricsLogger and cluster nodes.

Ported from pfnet-research/k8s-cluster-simulator pkg/config/config.go and example/config.yaml:
`tick` and `metricsTick` are whole seconds (defaults 10 and the tick), `startClock` an RFC 3339
time (default: now there; here kubesim's default epoch, since kubesim never reads the wall
clock), `metricsLogger[]` `{dest, formatter: JSON|humanReadable|table}`, `cluster[]` nodes as
`{metadata, spec, status: {allocatable}}` (capacity = allocatable; the kubelet reports them Ready).
`logLevel` is accepted and ignored (kubesim's -v/-q set the log level).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs

from kubesim.api import API_VERSION, KIND, Scenario, structure
from kubesim.api.loader import load_documents
from kubesim.errors import InvalidInput, Problem
from kubesim.simtime.formats import FORMAT_ALIASES
from kubesim.simtime.options import MetricsSink, SimTimeOptions

__all__ = ["KCS_KEYS", "KcsConfig", "is_kcs_config", "kcs_scenario", "load_kcs_config", "parse_kcs_config",
           "kcs_config_in", "simulated_time_spec", "with_kcs_cluster"]

KCS_KEYS = ("logLevel", "tick", "startClock", "metricsTick", "metricsLogger", "cluster")
"""The keys of a k8s-cluster-simulator config."""

_LOG_LEVELS = ("panic", "fatal", "error", "warn", "warning", "info", "debug", "trace")
_NODE_FIELDS = ("metadata", "spec", "status")


@attrs.frozen
class KcsConfig:
    """A k8s-cluster-simulator config, read and checked."""

    path: str
    tick: timedelta
    start: datetime | None
    metrics_tick: timedelta | None
    loggers: tuple[MetricsSink, ...]
    nodes: tuple[dict[str, Any], ...]

    def options(self) -> SimTimeOptions:
        """The simulated-time options the config sets."""
        return SimTimeOptions(tick=self.tick, start=self.start, metrics_tick=self.metrics_tick,
                              metrics=self.loggers, zone=self.start.tzinfo if self.start else None)


def is_kcs_config(doc: Any) -> bool:
    """Whether a parsed document looks like a k8s-cluster-simulator config (a `cluster` list, its keys only)."""
    return isinstance(doc, dict) and isinstance(doc.get("cluster"), list) and set(doc) <= set(KCS_KEYS)


def _seconds(doc: Mapping[str, Any], key: str, bad: Any) -> timedelta | None:
    value = doc.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value > 10**9:
        bad(key, f"expected a whole number of seconds greater than 0, got {value!r}")
        return None
    return timedelta(seconds=value)


def parse_kcs_config(doc: Any, path: str) -> KcsConfig:
    """Check a config document; InvalidInput names the file, the field and what was expected."""
    problems: list[Problem] = []

    def bad(field: str, message: str) -> None:
        problems.append(Problem(field, message, path))

    if not isinstance(doc, dict):
        raise InvalidInput([Problem("", "expected a k8s-cluster-simulator config (a mapping with "
                                        f"{', '.join(KCS_KEYS)})", path)])
    for key in sorted(set(doc) - set(KCS_KEYS), key=str):
        bad(str(key), f"unknown key (expected {', '.join(KCS_KEYS)})")
    level = doc.get("logLevel")
    if level is not None and (not isinstance(level, str) or level.lower() not in _LOG_LEVELS):
        bad("logLevel", f"expected one of {', '.join(_LOG_LEVELS)}, got {level!r}")
    tick = _seconds(doc, "tick", bad) or timedelta(seconds=10)
    metrics_tick = _seconds(doc, "metricsTick", bad)
    start = None
    clock = doc.get("startClock")
    if clock is not None:
        text = clock.isoformat() if isinstance(clock, datetime) else clock  # YAML may parse it itself
        try:
            start = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
        except ValueError:
            bad("startClock", f"expected an RFC 3339 time (e.g. 2019-01-01T00:00:00+09:00), got {clock!r}")
        else:
            if start.tzinfo is None:
                bad("startClock", f"{clock!r} has no time zone (add Z or an offset)")
                start = None
    loggers: list[MetricsSink] = []
    for i, entry in enumerate(doc.get("metricsLogger") or ()):
        where = f"metricsLogger[{i}]"
        if not isinstance(entry, dict):
            bad(where, "expected a mapping with dest and formatter")
            continue
        dest, fmt = entry.get("dest"), entry.get("formatter")
        if not isinstance(dest, str) or not dest:
            bad(f"{where}.dest", "required: stdout, stderr or a file path")
        elif fmt not in FORMAT_ALIASES:
            bad(f"{where}.formatter", f"expected one of {', '.join(FORMAT_ALIASES)}, got {fmt!r}")
        else:
            loggers.append(MetricsSink(dest, FORMAT_ALIASES[fmt]))  # relative to the working directory
    nodes: list[dict[str, Any]] = []
    for i, entry in enumerate(doc.get("cluster") or ()):
        node = _node(entry, f"cluster[{i}]", bad)
        if node is not None:
            nodes.append(node)
    if not nodes and not problems:
        bad("cluster", "required: at least one node ({metadata: {name}, status: {allocatable}})")
    if problems:
        raise InvalidInput(problems)
    return KcsConfig(path, tick, start, metrics_tick, tuple(loggers), tuple(nodes))


def _node(entry: Any, where: str, bad: Any) -> dict[str, Any] | None:
    if not isinstance(entry, dict):
        bad(where, "expected a node: {metadata: {name}, spec, status: {allocatable}}")
        return None
    for key in sorted(set(entry) - set(_NODE_FIELDS), key=str):
        bad(f"{where}.{key}", "unknown field (expected metadata, spec, status)")
    meta, spec, status = entry.get("metadata"), entry.get("spec") or {}, entry.get("status") or {}
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        bad(f"{where}.metadata.name", "required")
        return None
    if not isinstance(spec, dict):
        bad(f"{where}.spec", "expected a mapping (NodeSpec: unschedulable, taints)")
        return None
    allocatable = status.get("allocatable") if isinstance(status, dict) else None
    if not isinstance(allocatable, dict) or not allocatable:
        bad(f"{where}.status.allocatable", "required: resource quantities (cpu, memory, pods, ...)")
        return None
    quantities = {str(k): v if isinstance(v, str) else str(v) for k, v in allocatable.items()}
    return {"apiVersion": "v1", "kind": "Node", "metadata": dict(meta), "spec": dict(spec),
            "status": {"allocatable": quantities, "capacity": dict(quantities)}}


def load_kcs_config(path: str) -> KcsConfig:
    """Read and check a k8s-cluster-simulator config file (YAML or JSON)."""
    docs = [d for d in load_documents(path) if d is not None]
    if len(docs) != 1:
        raise InvalidInput([Problem("", "expected one k8s-cluster-simulator config document", path)])
    return parse_kcs_config(docs[0], path)


def simulated_time_spec(config: KcsConfig) -> dict[str, Any]:
    """A Scenario's spec.simulatedTime with the config's tick, start clock and metrics tick."""
    simulated: dict[str, Any] = {"tick": f"{int(config.tick.total_seconds())}s"}
    if config.start is not None:
        simulated["startClock"] = config.start.isoformat()
    if config.metrics_tick is not None:
        simulated["metricsTick"] = f"{int(config.metrics_tick.total_seconds())}s"
    return simulated


def kcs_config_in(path: str, limits: Any = None) -> KcsConfig | None:
    """The k8s-cluster-simulator config in file `path`, None when the file holds something else."""
    docs = [d for d in (load_documents(path, limits) if limits is not None else load_documents(path)) if d is not None]
    if len(docs) == 1 and is_kcs_config(docs[0]):
        return parse_kcs_config(docs[0], path)
    return None


def kcs_scenario(config: KcsConfig) -> dict[str, Any]:
    """A Scenario (JSON data) that creates the config's nodes at step 0 and runs the scheduler in
    simulated time with the config's tick, start clock and metrics tick."""
    simulated = simulated_time_spec(config)
    return {
        "apiVersion": API_VERSION, "kind": KIND,
        "metadata": {"name": Path(config.path).stem or "kcs"},
        "spec": {
            "simulatedTime": simulated,
            "controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
            "operations": [{"step": 0, "createOperation": {"object": node}} for node in config.nodes],
        },
    }


def with_kcs_cluster(config: KcsConfig, scenarios: Sequence[Scenario]) -> list[Scenario]:
    """The scenarios with the config's nodes created first at step 0; the config alone when none is given."""
    own = structure(kcs_scenario(config), Scenario, file=config.path)
    if not scenarios:
        return [own]
    out = []
    for s in scenarios:
        ops = list(own.spec.operations) + list(s.spec.operations)
        out.append(attrs.evolve(s, spec=attrs.evolve(s.spec, operations=ops)))
    return out
