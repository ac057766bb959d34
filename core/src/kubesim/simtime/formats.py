"""k8s-cluster-simulator's three metrics formatters: JSON, humanReadable and table.

Ported from pfnet-research/k8s-cluster-simulator pkg/metrics/{json,human_readable,table}_formatter.go.
Go iterates maps in random order; here nodes, pods and resources are sorted, so that the
output is deterministic. Numbers are Quantity.Value() (rounded up to whole units), memory
in MiB (value / 2^20), as the Go formatters write them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from kubesim.k8s.quantity import QuantityError, nano_to_value, parse_nano

__all__ = ["FORMATS", "FORMAT_ALIASES", "format_human", "format_json", "format_table", "formatter"]

_MIB = 1 << 20


def _value(rl: Mapping[str, Any] | None, name: str) -> int:
    """Quantity.Value() of `rl[name]` (0 when absent)."""
    q = (rl or {}).get(name)
    if q is None:
        return 0
    try:
        return nano_to_value(parse_nano(q))
    except QuantityError:
        return 0


def _scaled(rl: Mapping[str, Any] | None, name: str) -> int:
    v = _value(rl, name)
    return int(v / _MIB) if name == "memory" else v  # Go's int64 division truncates toward zero


def format_json(record: Mapping[str, Any]) -> str:
    """One compact JSON line, keys in the order Go's encoder writes them (no newline)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def format_human(record: Mapping[str, Any]) -> str:
    """HumanReadableFormatter: `Metrics <clock>` then Nodes, Pods and Queue blocks."""
    out = [f"Metrics {record['Clock']}\n", "  Nodes\n"]
    for name, met in record["Nodes"].items():
        alloc = met["Allocatable"]
        line = f"    {name}: Pods {met['RunningPodsNum']}({met['TerminatingPodsNum']})/{_value(alloc, 'pods')}"
        for r in sorted(alloc):
            if r == "pods":
                continue
            usage, req = met["TotalResourceUsage"], met["TotalResourceRequest"]
            label = "memMB" if r == "memory" else r
            line += f", {label} {_scaled(usage, r)}/{_scaled(req, r)}/{_scaled(alloc, r)}"
        out.append(line + f", Failed {met['FailedPodsNum']}\n")
    out.append("  Pods\n")
    for key, met in record["Pods"].items():
        line = (f"    {key}: prio {met['Priority']}, bound at {met['BoundAt']} on {met['Node']}, "
                f"status {met['Status']}, elapsed {met['ExecutedSeconds']} s")
        for r in sorted(met["ResourceRequest"]):
            label = "memMB" if r == "memory" else r
            line += (f", {label} {_scaled(met['ResourceUsage'], r)}/{_scaled(met['ResourceRequest'], r)}"
                     f"/{_scaled(met['ResourceLimit'], r)}")
        out.append(line + "\n")
    out.append("  Queue\n")
    out.append(f"    PendingPods {record['Queue']['PendingPodsNum']}\n")
    return "".join(out)


def format_table(record: Mapping[str, Any]) -> str:
    """TableFormatter: the clock, then the node, pod and queue tables in fixed-width columns."""
    nodes = record["Nodes"]
    resources = sorted({r for met in nodes.values() for r in met["Allocatable"] if r != "pods"})
    head = "Node             Pods   Termi- Failed Capa-  "
    for r in resources:
        head += "memory (MB)                   " if r == "memory" else f"{r:<29} "
    lines = [head, "                        nating        city   " + "Usage    Request  Allocatable " * len(resources),
             "-" * 45 + "-" * 30 * len(resources)]
    for name, met in nodes.items():
        row = (f"{name:<16} {met['RunningPodsNum']:<6} {met['TerminatingPodsNum']:<6} "
               f"{met['FailedPodsNum']:<6} {_value(met['Allocatable'], 'pods'):<6} ")
        for r in resources:
            row += (f"{_scaled(met['TotalResourceUsage'], r):<8} {_scaled(met['TotalResourceRequest'], r):<8} "
                    f"{_scaled(met['Allocatable'], r):<11} ")
        lines.append(row)
    node_table = "\n".join(lines) + "\n"
    head = "Pod                  Status       Priority Node     BoundAt                   Executed "
    for r in resources:
        head += "memory (MB)                " if r == "memory" else f"{r:<26} "
    lines = [head, " " * 78 + "Seconds  " + "Usage    Request  Limit    " * len(resources),
             "-" * 87 + "-" * 27 * len(resources)]
    for key, met in record["Pods"].items():
        row = (f"{key:<20} {met['Status']:<12} {met['Priority']:<8} {met['Node']:<8} {met['BoundAt']:<25} "
               f"{met['ExecutedSeconds']:<8} ")
        for r in resources:
            row += (f"{_scaled(met['ResourceUsage'], r):<8} {_scaled(met['ResourceRequest'], r):<8} "
                    f"{_scaled(met['ResourceLimit'], r):<8} ")
        lines.append(row)
    pod_table = "\n".join(lines) + "\n"
    queue = "      PendingPods \n------------------\n" + f"Queue {record['Queue']['PendingPodsNum']:<8} \n"
    return f"{record['Clock']}\n\n{node_table}\n{pod_table}\n{queue}\n"


FORMATS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "json": format_json,
    "table": format_table,
    "human": format_human,
}
"""Formatter by kubesim's name (`--metrics-format`)."""

FORMAT_ALIASES = {"JSON": "json", "humanReadable": "human", "table": "table"}
"""k8s-cluster-simulator's formatter names (metricsLogger[].formatter) -> kubesim's."""


def formatter(name: str) -> Callable[[Mapping[str, Any]], str]:
    """The formatter named `name` (kubesim's or k8s-cluster-simulator's name); KeyError otherwise."""
    return FORMATS[FORMAT_ALIASES.get(name, name)]
