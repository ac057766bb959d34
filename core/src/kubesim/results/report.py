"""The HTML report: one self-contained page of plots and tables per result file.

Plots are drawn with plotly (the optional extra `kubesim[report]`); its JavaScript is
inlined once, so the page needs no network. Figures get fixed element ids, so the same
result gives the same page byte for byte.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from kubesim.results.analysis import BUILTIN_TABLES, ResultTables
from kubesim.results.metrics_report import metrics_sections
from kubesim.results.metrics_tables import METRICS_TABLES
from kubesim.results.report_explain import explain_section
from kubesim.results.table import Table

Figure = Any  # plotly.graph_objects.Figure (plotly ships no type information)

__all__ = [
    "HEATMAP_CELL_LIMIT", "MAX_TABLE_ROWS", "PAGE_CSS", "ReportUnavailable", "figure_html", "figure_layout",
    "plotly_modules", "render_report",
]

MAX_TABLE_ROWS = 500
_HEATMAP_LABEL_LIMIT = 60
HEATMAP_CELL_LIMIT = 200_000
"""Cells (nodes x steps) per heatmap variant: past it, every k-th step is shown (and the last),
so a 5,000-node page stays a few MB and opens in about a second."""

PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px;
       padding: 0 24px 48px; color: #1f2933; }
h1 { font-size: 1.6em; margin-top: 24px; } h2 { font-size: 1.3em; margin-top: 40px; border-bottom: 1px solid #d9e2ec; }
h3 { font-size: 1.05em; margin-top: 28px; }
.summary { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.summary div { background: #f0f4f8; border-radius: 6px; padding: 8px 14px; }
.summary b { display: block; font-size: 1.3em; }
table.data { border-collapse: collapse; font-size: 0.85em; margin: 8px 0; }
table.data th, table.data td { border: 1px solid #d9e2ec; padding: 3px 8px; text-align: left; vertical-align: top; }
table.data th { background: #f0f4f8; vertical-align: bottom; }
table.data td { overflow-wrap: break-word; }
table.data td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.note { color: #627d98; font-size: 0.9em; }
.scroll { overflow-x: auto; max-width: 100%; }
"""


class ReportUnavailable(Exception):
    """plotly is not installed."""


def plotly_modules() -> Any:
    """(plotly.graph_objects, plotly.offline); ReportUnavailable saying what to install."""
    try:
        import plotly.graph_objects as go
        import plotly.offline
    except ImportError as exc:
        raise ReportUnavailable("kubesim report needs plotly: pip install 'kubesim[report]'") from exc
    return go, plotly.offline


def figure_html(fig: Figure, div_id: str) -> str:
    """A figure as an HTML fragment with a fixed element id (same figure, same bytes)."""
    return str(fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id,
                           config={"displaylogo": False, "responsive": True}))


def figure_layout(fig: Figure, title: str, *, height: int = 380, **kw: Any) -> None:
    """The layout every kubesim page's figures share."""
    fig.update_layout(title=title, height=height, margin={"l": 60, "r": 20, "t": 50, "b": 50},
                      template="plotly_white", legend={"orientation": "h", "y": -0.2}, **kw)


def _step_axis(steps: Sequence[int]) -> dict[str, Any]:
    """An x axis of whole steps (a tick per step up to 30 steps)."""
    axis: dict[str, Any] = {"title": "step", "tickformat": "d"}
    if len(steps) <= 30:
        axis.update(tickmode="linear", dtick=1)
    return axis


def _allocation_figure(go: Any, cluster: Table) -> Figure:
    steps = cluster.column("step")
    fig = go.Figure()
    names = cluster.column_names
    for col, label, dash in (("allocation", "allocation rate", "solid"), ("cpu_allocation", "cpu", "dot"),
                             ("memory_allocation", "memory", "dot"), ("fragmentation", "fragmentation", "dash")):
        if col in names:
            fig.add_trace(go.Scatter(x=steps, y=cluster.column(col), name=label, mode="lines+markers",
                                     line={"dash": dash}))
    shares = [v for col in ("allocation", "cpu_allocation", "memory_allocation", "fragmentation") if col in names
              for v in cluster.column(col) if v is not None]
    small = max(shares, default=0) < 0.1  # whole percents would repeat (1%, 1%, 2%, 2%)
    figure_layout(fig, "Cluster allocation over steps", xaxis=_step_axis(steps),
            yaxis={"tickformat": ".1%" if small else ".0%", "rangemode": "tozero"})
    return fig


def _heatmap_figure(go: Any, nodes: Table) -> Figure:
    names = nodes.column_names
    all_steps = sorted(set(nodes.column("step")))
    node_names = sorted(set(nodes.column("node")))
    every = max(1, -(-len(node_names) * len(all_steps) // HEATMAP_CELL_LIMIT))
    steps = all_steps[::every]
    if steps and steps[-1] != all_steps[-1]:
        steps.append(all_steps[-1])
    thinned = f" (one step in {every} of {len(all_steps)}, and the last)" if every > 1 else ""
    ratio_cols = [c for c in names if c.endswith("_ratio")]
    usage_cols = [c for c in names if c.endswith("_usage") and any(v is not None for v in nodes.column(c))]
    variants: list[tuple[str, list[list[float | None]]]] = []
    index = {(r["step"], r["node"]): r for r in nodes.records()}

    def grid(value: Any) -> list[list[float | None]]:
        # 4 decimals (0.01% of a node) keep a 5,000-node page's data small
        return [[_round(value(index.get((s, n)))) for s in steps] for n in node_names]

    for col in ratio_cols:
        variants.append((f"{col[:-6]} requested / allocatable", grid(lambda r, c=col: r[c] if r else None)))
    for col in usage_cols:
        res = col[:-6]

        def used(r: dict[str, Any] | None, c: str = col, res: str = res) -> float | None:
            if not r or r[c] is None or not r[f"{res}_allocatable"]:
                return None
            return float(r[c]) / float(r[f"{res}_allocatable"])

        variants.append((f"{res} usage / allocatable", grid(used)))
    fig = go.Figure()
    for i, (label, z) in enumerate(variants):
        fig.add_trace(go.Heatmap(
            z=z, x=steps, y=node_names, zmin=0, zmax=1, colorscale="YlOrRd", visible=(i == 0), name=label,
            colorbar={"title": "ratio", "tickformat": ".0%"},
            hovertemplate="node %{y}<br>step %{x}<br>%{z:.1%}<extra>" + html.escape(label) + "</extra>",
        ))
    buttons = [
        {"label": label, "method": "update",
         "args": [{"visible": [j == i for j in range(len(variants))]},
                  {"title": f"Per-node utilization: {label}{thinned}"}]}
        for i, (label, _) in enumerate(variants)
    ]
    first = variants[0][0] if variants else ""
    height = max(320, min(1200, 18 * len(node_names) + 140))
    figure_layout(fig, f"Per-node utilization: {first}{thinned}", height=height, xaxis=_step_axis(steps),
            yaxis={"showticklabels": len(node_names) <= _HEATMAP_LABEL_LIMIT, "title": "node", "autorange": "reversed"},
            updatemenus=[{"buttons": buttons, "direction": "down", "x": 1.0, "xanchor": "right", "y": 1.0,
                          "yanchor": "bottom", "pad": {"b": 6}}]
            if len(buttons) > 1 else [])
    if len(buttons) > 1:  # the menu sits between the title and the plot, below plotly's toolbar
        fig.update_layout(margin={"t": 90})
    return fig


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _count_axis(values: Sequence[int], title: str) -> dict[str, Any]:
    """A y axis of whole counts from 0: a tick per pod up to 10 (a count of 1 is a whole pod, not noise)."""
    axis: dict[str, Any] = {"title": title, "rangemode": "tozero", "tickformat": "d"}
    top = max(values, default=0)
    if top <= 10:
        axis.update(tick0=0, dtick=1, range=[0, max(top, 1) * 1.1])
    return axis


def _pending_figure(go: Any, cluster: Table) -> Figure:
    """Pending pods on their own axis (top); binds and preemptions during each step below."""
    from plotly.subplots import make_subplots

    steps = cluster.column("step")
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.14, row_heights=[0.55, 0.45],
                        subplot_titles=("pods pending at the end of each step", "pods bound and preempted during each step"))
    pending, unschedulable = cluster.column("pending"), cluster.column("unschedulable")
    fig.add_trace(go.Bar(x=steps, y=pending, name="pending at step end", marker_color="#f0b429"), row=1, col=1)
    fig.add_trace(go.Scatter(x=steps, y=unschedulable, name="of those, failed an attempt in the step",
                             mode="lines+markers", line={"color": "#d64545"}), row=1, col=1)
    scheduled, preempted = cluster.column("scheduled"), cluster.column("preempted")
    fig.add_trace(go.Scatter(x=steps, y=scheduled, name="bound during the step", mode="lines+markers",
                             line={"color": "#2f8132"}), row=2, col=1)
    fig.add_trace(go.Scatter(x=steps, y=preempted, name="preempted during the step", mode="lines+markers",
                             line={"color": "#7c5e10", "dash": "dot"}), row=2, col=1)
    figure_layout(fig, "Pending pods over steps", height=520)
    axis = _step_axis(steps)
    fig.update_xaxes(**{k: v for k, v in axis.items() if k != "title"})
    fig.update_xaxes(title="step", row=2, col=1)
    fig.update_yaxes(**_count_axis(pending + unschedulable, "pending pods"), row=1, col=1)
    fig.update_yaxes(**_count_axis(scheduled + preempted, "pods"), row=2, col=1)
    return fig


def _reasons_figure(go: Any, reasons: Table, limit: int = 20) -> Figure | None:
    """Nodes rejected per reason: in failed attempts, and in attempts that bound the pod elsewhere,
    stacked and labelled; most nodes in failed attempts first. None when no node was rejected."""
    rows = sorted(reasons.records(), key=lambda r: (-r["failed_nodes"], -r["nodes"]))[:limit]
    if not rows:
        return None
    labels = [f"{r['reason']}" + (f" [{r['plugin']}]" if r["plugin"] else "") for r in rows]
    y = [_short(s, 80) for s in labels][::-1]
    failed = go.Bar(
        x=[r["failed_nodes"] for r in rows][::-1], y=y, orientation="h", name="in failed attempts (pod stayed pending)",
        customdata=[[r["failed_attempts"], s] for r, s in zip(rows, labels)][::-1],
        hovertemplate="%{customdata[1]}<br>%{x} nodes rejected in %{customdata[0]} failed attempts<extra></extra>",
        marker_color="#d64545",
    )
    bound = go.Bar(
        x=[r["nodes"] - r["failed_nodes"] for r in rows][::-1], y=y, orientation="h",
        name="in attempts that bound the pod elsewhere", marker_color="#bcccdc",
        customdata=[[r["attempts"] - r["failed_attempts"], s] for r, s in zip(rows, labels)][::-1],
        hovertemplate="%{customdata[1]}<br>%{x} nodes filtered out in %{customdata[0]} attempts that bound "
                      "the pod to another node<extra></extra>",
    )
    fig = go.Figure([failed, bound])
    figure_layout(fig, "Filter rejection reasons (nodes rejected)", height=max(280, 34 * len(rows) + 150),
            xaxis_title="nodes rejected, summed over attempts", barmode="stack")
    fig.update_layout(margin={"t": 90},  # the legend above the bars: below, it would meet the axis title
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0})
    fig.update_yaxes(automargin=True)
    return fig


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _html_table(table: Table, columns: Sequence[str] | None = None, rows: Sequence[dict[str, Any]] | None = None,
                limit: int = MAX_TABLE_ROWS) -> str:
    """The table's rows (at most `limit`): headers wrap at word breaks and say what they count
    on hover, numbers are right-aligned, long text wraps, so that it fits the page."""
    cols = list(columns or table.column_names)
    data = list(rows if rows is not None else table.records())
    described = {c.name: c for c in table.columns}
    head = "".join(
        f'<th title="{html.escape(described[c].description) if c in described else ""}">'
        f"{html.escape(c.replace('_', ' '))}</th>" for c in cols)
    numeric = {c for c in cols if c in described and described[c].type in ("int", "float")}
    body = []
    for r in data[:limit]:
        cells = "".join(f'<td class="num">{html.escape(_fmt(r.get(c)))}</td>' if c in numeric
                        else f"<td>{html.escape(_fmt(r.get(c)))}</td>" for c in cols)
        body.append(f"<tr>{cells}</tr>")
    note = f'<p class="note">showing {limit} of {len(data)} rows</p>' if len(data) > limit else ""
    return (f'<div class="scroll"><table class="data"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>{note}')


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _summary(tables: ResultTables, ident: str) -> str:
    cluster = list(tables["cluster"].records())
    pods = tables["pods"]
    last = cluster[-1] if cluster else {}
    states = pods.column("state")
    items = [
        ("steps", len(cluster), "MajorSteps in the result"),
        ("nodes at the end", last.get("nodes", 0), "nodes in the cluster after the last step"),
        ("pods created (incl. deleted)", len(pods), "every pod created during the scenario, including those "
                                                   "deleted or preempted since"),
        ("bound at the end", states.count("bound"), "pods bound to a node after the last step"),
        ("pending at the end", last.get("pending", 0), "pods not bound (and not finished) after the last step"),
        ("failed attempts", sum(r["failed_attempts"] for r in cluster), "scheduling attempts that found no node"),
        ("pods preempted", sum(r["preempted"] for r in cluster), "pods evicted by preemption"),
        ("final allocation", f"{(last.get('allocation') or 0):.1%}",
         "mean of cpu and memory requested / allocatable after the last step"),
    ]
    cells = "".join(f'<div title="{html.escape(tip)}">{html.escape(k)}<b>{html.escape(str(v))}</b></div>'
                    for k, v, tip in items)
    return f'<div class="summary" id="{ident}-summary">{cells}</div>'


def _section(go: Any, tables: ResultTables, n: int) -> str:
    ident = f"s{n}"
    parts = [f'<h2 id="{ident}">Scenario {html.escape(tables.scenario)}</h2>', _summary(tables, ident)]
    figures = [
        ("allocation", _allocation_figure(go, tables["cluster"])),
        ("heatmap", _heatmap_figure(go, tables["nodes"])),
        ("pending", _pending_figure(go, tables["cluster"])),
        ("reasons", _reasons_figure(go, tables["filter_reasons"])),
    ]
    for name, fig in figures:
        body = (figure_html(fig, f"{ident}-{name}-plot") if fig is not None
                else '<h3>Filter rejection reasons</h3><p class="note">No node was rejected by a Filter plugin.</p>')
        parts.append(f'<div class="figure" id="{ident}-{name}">{body}</div>')
    parts.extend(metrics_sections(go, tables, ident, figure_html))
    unschedulable = [r for r in tables["pods"].records() if r["unschedulable_reasons"] or r["message"]]
    parts.append(
        f'<section id="{ident}-unschedulable"><h3>Pods that failed scheduling ({len(unschedulable)})</h3>'
        '<p class="note">Pods with at least one failed attempt; the reasons are those of the last '
        "failed attempt (nodes rejected per reason).</p>"
        + (_html_table(tables["pods"], ["namespace", "name", "state", "node", "attempts",
                                        "unschedulable_reasons", "message"], unschedulable)
           if unschedulable else '<p class="note">none</p>')
        + "</section>"
    )
    if tables.result is not None:
        parts.append(explain_section(tables.result, ident))
    parts.append(f'<section id="{ident}-plugins"><h3>Scheduler plugins</h3>{_html_table(tables["plugins"])}</section>')
    for i, (name, table) in enumerate(t for t in tables.tables.items() if t[0] not in BUILTIN_TABLES + METRICS_TABLES):
        note = f'<p class="note">{html.escape(table.description)}</p>' if table.description else ""
        parts.append(f'<section id="{ident}-table-{i}"><h3>{html.escape(name)}</h3>{note}{_html_table(table)}</section>')
    return "\n".join(parts)


def render_report(results: Sequence[ResultTables], *, title: str = "kubesim report") -> str:
    """The report page for the results of one file (one section per scenario)."""
    go, offline = plotly_modules()
    sections = [_section(go, tables, i) for i, tables in enumerate(results)]
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{PAGE_CSS}</style>\n"
        f'<script type="text/javascript">{offline.get_plotlyjs()}</script>\n'
        f"</head>\n<body>\n<h1>{html.escape(title)}</h1>\n" + "\n".join(sections) + "\n</body>\n</html>\n"
    )
