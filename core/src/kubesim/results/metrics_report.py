"""The HTML report's part for runs in simulated time: usage over time per node, and the queue.

Drawn from the metrics tables (`kubesim.results.metrics_tables`): one line per node of what its
pods use (not only what they request) against the simulated clock, one resource at a time
(a menu switches between them), and the pending pods over time.
"""

from __future__ import annotations

import html
from typing import Any

from kubesim.results.analysis import ResultTables
from kubesim.results.table import Table

__all__ = ["metrics_sections", "node_usage_figure", "queue_figure"]

_LAYOUT: dict[str, Any] = {"margin": {"l": 60, "r": 20, "t": 50, "b": 50}, "template": "plotly_white",
                           "legend": {"orientation": "h", "y": -0.2}}


def _scale(resource: str) -> tuple[float, str]:
    """Divisor and unit label of a resource's amounts on the plot (cpu in cores, memory in GiB)."""
    if resource == "cpu":
        return 1000.0, "cores"
    if resource == "memory" or resource == "ephemeral-storage" or resource.startswith("hugepages-"):
        return float(1 << 30), "GiB"
    return 1.0, "units"


def node_usage_figure(go: Any, table: Table) -> Any:
    """Usage over time, one line per node and a dashed line of its allocatable, per resource."""
    names = table.column_names
    resources = [c[: -len("_usage")] for c in names if c.endswith("_usage")]
    nodes = sorted(set(table.column("node")))
    rows = list(table.records())
    fig = go.Figure()
    visible_per_resource: list[list[bool]] = []
    traces = 0
    for i, r in enumerate(resources):
        div, label = _scale(r)
        start = traces
        for node in nodes:
            mine = [row for row in rows if row["node"] == node]
            fig.add_trace(go.Scatter(
                x=[row["clock"] for row in mine], y=[row[f"{r}_usage"] / div for row in mine], name=node,
                mode="lines", visible=(i == 0), legendgroup=node,
                hovertemplate=f"{html.escape(node)}<br>%{{x}}<br>%{{y:.3g}} {label} used<extra></extra>"))
            traces += 1
        visible_per_resource.append([start <= t < traces for t in range(len(resources) * len(nodes))])
    buttons = [{"label": r, "method": "update",
                "args": [{"visible": visible_per_resource[i]},
                         {"title": f"{r} usage per node over time ({_scale(r)[1]})"}]}
               for i, r in enumerate(resources)]
    first = resources[0] if resources else ""
    fig.update_layout(title=f"{first} usage per node over time ({_scale(first)[1] if first else ''})", height=420,
                      xaxis={"title": "simulated time"}, yaxis={"rangemode": "tozero"},
                      updatemenus=[{"buttons": buttons, "direction": "down", "x": 1.0, "xanchor": "right",
                                    "y": 1.15}] if len(buttons) > 1 else [], **_LAYOUT)
    return fig


def queue_figure(go: Any, table: Table) -> Any:
    """Pending pods at every metrics record."""
    fig = go.Figure(go.Scatter(x=table.column("clock"), y=table.column("pending"), mode="lines",
                               name="pending", line={"color": "#f0b429"}))
    fig.update_layout(title="Pending pods over time", height=320, xaxis={"title": "simulated time"},
                      yaxis={"title": "pods", "rangemode": "tozero"}, **_LAYOUT)
    return fig


def metrics_sections(go: Any, tables: ResultTables, ident: str,
                     figure_html: Any) -> list[str]:
    """The report's simulated-time figures of one scenario (none when it has no metrics)."""
    if "node_usage" not in tables.tables or not len(tables["node_usage"]):
        return []
    parts = ['<h3>Simulated time: usage per node over time</h3>'
             '<p class="note">From the metrics records written every metricsTick: what the pods on each node '
             "use (their simSpec), frozen for frozen and terminating pods.</p>"]
    for name, fig in (("usage", node_usage_figure(go, tables["node_usage"])),
                      ("queue", queue_figure(go, tables["queue"]))):
        parts.append(f'<div class="figure" id="{ident}-{name}">{figure_html(fig, f"{ident}-{name}-plot")}</div>')
    return parts
