"""index.html of a sweep: the candidates ranked by the chosen metric, with plots.

Plots (plotly, inlined as `kubesim report` does, fixed element ids so the same records give
the same bytes): the ranked candidates' mean with their spread, the rank metric against each
parameter (every cell a point), and the per-seed spread of the leading candidates. Tables:
the ranking with every metric's mean, and the failed cells with their errors.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from kubesim.results.report import PAGE_CSS, figure_html, figure_layout, plotly_modules
from kubesim.sweep.ranking import Candidate, rank
from kubesim.sweep.spec import Sweep
from kubesim.sweep.store import CellRecord

__all__ = ["MAX_PLOTTED_CANDIDATES", "MAX_RANKED_ROWS", "render_page"]

MAX_PLOTTED_CANDIDATES = 30
MAX_RANKED_ROWS = 500
_EXTRA_CSS = "tr.best td { background: #e3f9e5; } td.num { text-align: right; font-variant-numeric: tabular-nums; }"


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _ranking_figure(go: Any, sweep: Sweep, ranked: Sequence[Candidate]) -> Any:
    shown = [c for c in ranked if c.mean.get(sweep.rank_metric) is not None][:MAX_PLOTTED_CANDIDATES]
    fig = go.Figure(go.Bar(
        x=[c.mean[sweep.rank_metric] for c in shown], y=[c.label for c in shown], orientation="h",
        error_x={"type": "data", "array": [c.std[sweep.rank_metric] or 0.0 for c in shown], "visible": True},
        marker={"color": ["#2f9e44" if i == 0 else "#4c6ef5" for i in range(len(shown))]},
    ))
    figure_layout(fig, f"Candidates by mean {sweep.rank_metric} ({sweep.rank_better} is better; bars: 1 std)",
                  height=max(300, 28 * len(shown) + 120),
                  yaxis={"autorange": "reversed", "automargin": True}, xaxis={"title": sweep.rank_metric})
    return fig


def _parameter_figure(go: Any, sweep: Sweep, records: Sequence[CellRecord], name: str) -> Any:
    fig = go.Figure()
    groups: dict[str, list[CellRecord]] = {}
    for r in records:
        if r.status == "ok":
            groups.setdefault(r.configuration if len(sweep.scenarios) == 1 else f"{r.configuration} / {r.scenario}",
                              []).append(r)
    for label, members in groups.items():
        fig.add_trace(go.Box(x=[str(r.parameters[name]) for r in members],
                             y=[r.metrics.get(sweep.rank_metric) for r in members],
                             name=label, boxpoints="all", jitter=0.3, pointpos=0))
    figure_layout(fig, f"{sweep.rank_metric} vs {name} (every cell)", boxmode="group",
                  xaxis={"title": name, "type": "category"}, yaxis={"title": sweep.rank_metric})
    return fig


def _spread_figure(go: Any, sweep: Sweep, ranked: Sequence[Candidate]) -> Any:
    fig = go.Figure()
    for c in ranked[:MAX_PLOTTED_CANDIDATES]:
        fig.add_trace(go.Box(y=c.values[sweep.rank_metric], name=c.label, boxpoints="all", jitter=0.3,
                             pointpos=0, showlegend=False))
    figure_layout(fig, f"Spread of {sweep.rank_metric} over seeds and scenarios (leading candidates)",
                  height=460, xaxis={"automargin": True}, yaxis={"title": sweep.rank_metric})
    return fig


def _ranking_table(sweep: Sweep, ranked: Sequence[Candidate]) -> str:
    params = [p.name for p in sweep.parameters if p.target == "configuration"]
    metrics = [m.column for m in sweep.metrics]
    scenarios = [s.name for s in sweep.scenarios] if len(sweep.scenarios) > 1 else []
    head = ["rank", "configuration", *params, "cells", "failed",
            *(f"{m} mean" for m in metrics), f"{sweep.rank_metric} std",
            *(f"{sweep.rank_metric} on {s}" for s in scenarios)]
    out = ['<div class="scroll"><table class="data" id="ranking-table"><tr>'
           + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for i, c in enumerate(ranked[:MAX_RANKED_ROWS]):
        values = dict(c.parameters)
        cells = [str(i + 1), c.configuration, *(_fmt(values[p]) for p in params), str(c.cells), str(c.failed),
                 *(_fmt(c.mean[m]) for m in metrics), _fmt(c.std[sweep.rank_metric]),
                 *(_fmt(c.by_scenario[s]) for s in scenarios)]
        numeric = {0, *range(len(params) + 2, len(cells))}
        row = "".join(f'<td class="num">{html.escape(v)}</td>' if j in numeric else f"<td>{html.escape(v)}</td>"
                      for j, v in enumerate(cells))
        out.append(f'<tr class="best">{row}</tr>' if i == 0 else f"<tr>{row}</tr>")
    out.append("</table></div>")
    if len(ranked) > MAX_RANKED_ROWS:
        out.append(f'<p class="note">first {MAX_RANKED_ROWS} of {len(ranked)} candidates; all are in results.csv</p>')
    return "".join(out)


def _failed_table(records: Sequence[CellRecord]) -> str:
    failed = [r for r in records if r.status != "ok"]
    if not failed:
        return '<p class="note">none</p>'
    rows = "".join(
        f"<tr><td>{html.escape(r.key)}</td><td>{html.escape(r.scenario)}</td><td>{html.escape(r.configuration)}</td>"
        f"<td>{html.escape(', '.join(f'{k}={v}' for k, v in r.parameters.items()))}</td><td>{r.seed}</td>"
        f"<td>{html.escape(r.error or '')}</td></tr>"
        for r in failed[:MAX_RANKED_ROWS])
    return ('<div class="scroll"><table class="data" id="failed-table"><tr><th>cell</th><th>scenario</th>'
            f"<th>configuration</th><th>parameters</th><th>seed</th><th>error</th></tr>{rows}</table></div>")


def _summary(sweep: Sweep, records: Sequence[CellRecord], ranked: Sequence[Candidate]) -> str:
    best = ranked[0] if ranked else None
    items = [
        ("cells", f"{len(records)} of {sweep.cell_count}"),
        ("failed", sum(1 for r in records if r.status != "ok")),
        ("candidates", len(ranked)),
        ("scenarios", len(sweep.scenarios)), ("seeds", len(sweep.seeds)),
        (f"best mean {sweep.rank_metric}", _fmt(best.mean.get(sweep.rank_metric)) if best else "-"),
    ]
    cells = "".join(f"<div>{html.escape(k)}<b>{html.escape(str(v))}</b></div>" for k, v in items)
    lead = (f'<p id="best">Best: <b>{html.escape(best.label)}</b> ({sweep.rank_better} '
            f"{html.escape(sweep.rank_metric)} is better).</p>") if best else ""
    return f'<div class="summary" id="summary">{cells}</div>{lead}'


def render_page(sweep: Sweep, records: Sequence[CellRecord]) -> str:
    """The whole page for a sweep's records (grid order)."""
    go, offline = plotly_modules()
    ranked = rank(sweep, records)
    parts = [_summary(sweep, records, ranked), "<h2 id=\"ranking\">Ranking</h2>"]
    parts.append(f'<div class="figure">{figure_html(_ranking_figure(go, sweep, ranked), "ranking-plot")}</div>')
    parts.append(_ranking_table(sweep, ranked))
    if sweep.parameters:
        parts.append('<h2 id="parameters">Metric vs parameter</h2>')
        for i, p in enumerate(sweep.parameters):
            fig = _parameter_figure(go, sweep, records, p.name)
            parts.append(f'<div class="figure">{figure_html(fig, f"parameter-{i}-plot")}</div>')
    parts.append('<h2 id="spread">Per-seed spread</h2>')
    parts.append(f'<div class="figure">{figure_html(_spread_figure(go, sweep, ranked), "spread-plot")}</div>')
    parts.append(f'<h2 id="failed">Failed cells ({sum(1 for r in records if r.status != "ok")})</h2>')
    parts.append(_failed_table(records))
    title = f"kubesim sweep: {sweep.name}"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{PAGE_CSS}{_EXTRA_CSS}</style>\n"
        f'<script type="text/javascript">{offline.get_plotlyjs()}</script>\n'
        f"</head>\n<body>\n<h1>{html.escape(title)}</h1>\n" + "\n".join(parts) + "\n</body>\n</html>\n"
    )
