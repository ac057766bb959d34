"""Comparing two results, and the HTML report page (its content; rendering is tested in core/tests/cli)."""

from __future__ import annotations

import re
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from kubesim.api import Scenario
from kubesim.results import ResultTables, analyze
from kubesim.results.compare import METRICS, compare
from kubesim.results.report import ReportUnavailable, render_report


def _spread_or_pack(build: SimpleNamespace, packed: bool) -> Scenario:
    """Two 2-cpu nodes; two 1-cpu pods spread (one per node) or packed (both on n1); then a 2-cpu pod."""
    s = build.step
    events0 = [build.create("n1", s(0), build.node("n1", "2", "4Gi")),
               build.create("n2", s(0), build.node("n2", "2", "4Gi"))]
    events1 = []
    for i, target in enumerate(("n1", "n1" if packed else "n2")):
        p = build.pod(f"p{i}", "1", "1Gi", node_name=target)
        events1.append({"id": f"bind-{i}", "step": s(1, i + 1), "actor": "scheduler", "podScheduled": {
            "pod": p, "createdAt": s(1), "boundTo": target, "boundAt": s(1, i + 1), "scheduleResult": [
                {"step": s(1, i), "pluginResults": {"score": {
                    target: {"Fit": {"rawScore": 10 + i, "normalizedScore": 10 + i, "finalScore": 10 + i}}}}}]}})
    big = build.pod("big", "2", "1Gi")
    events2 = [build.create("big", s(2), big)]
    if packed:
        bound = build.pod("big", "2", "1Gi", node_name="n2")
        events2.append({"id": "bind-big", "step": s(2, 1), "actor": "scheduler", "podScheduled": {
            "pod": bound, "createdAt": s(2), "boundTo": "n2", "boundAt": s(2, 1), "scheduleResult": [{}]}})
    else:
        events2.append({"id": "fail-big", "step": s(2, 1), "actor": "scheduler", "podUnscheduled": {
            "pod": big, "createdAt": s(2), "scheduleResult": [{"message": "0/2 nodes are available",
                                                               "filterReasonCounts": {"Insufficient cpu": 2}}]}})
    return build.result({"0": events0, "1": events1, "2": events2}, name="spread" if not packed else "pack")


@pytest.fixture
def spread(build: SimpleNamespace) -> ResultTables:
    return analyze(_spread_or_pack(build, packed=False))


@pytest.fixture
def pack(build: SimpleNamespace) -> ResultTables:
    return analyze(_spread_or_pack(build, packed=True))


def test_compare_metrics_and_verdicts(spread: ResultTables, pack: ResultTables) -> None:
    c = compare(spread, pack)
    assert (c.a, c.b) == ("spread", "pack")
    values = {name: (m.a, m.b) for name, m in c.metrics.items()}
    assert list(values) == list(METRICS)
    # pending per step: spread 0, 0, 1 -> 1/3; pack 0, 0, 0
    assert values["pending"] == pytest.approx((1 / 3, 0.0))
    assert values["unscheduled"] == (1.0, 0.0)
    assert values["attempts"] == (1.0, 0.0)
    assert values["preemptions"] == (0.0, 0.0)
    # allocation per step (cpu and memory of 4 cpu / 8Gi): 0, (2/4 + 2/8)/2, then packed adds 2 cpu, 1Gi
    assert values["allocation"] == pytest.approx((0.375 * 2 / 3, (0.375 + (4 / 4 + 3 / 8) / 2) / 3))
    # spread, step 2: the 2-cpu pod fits neither node (1 cpu free each): all free capacity is stranded.
    # pack, step 1: n1 has no cpu left for the median pod (1 cpu): its 2Gi, weight (0 + 2/8)/2, are
    # stranded against n2's (2/4 + 4/8)/2 -> 0.2; step 2: no cpu left anywhere -> 1
    assert values["fragmentation"] == pytest.approx(((0 + 0 + 1) / 3, (0 + 0.2 + 1) / 3))
    assert not c.worse("pending") and c.metrics["pending"].improved
    assert c.worse("fragmentation") and not c.metrics["fragmentation"].improved
    assert c.worse("preemptions") is False and not c.metrics["preemptions"].improved
    reverse = compare(pack, spread)
    assert [m for m in METRICS if reverse.worse(m)] == ["pending", "unscheduled", "allocation", "attempts"]
    with pytest.raises(KeyError, match="unknown metric 'speed'"):
        c.worse("speed")


def test_compare_pods_and_steps(spread: ResultTables, pack: ResultTables) -> None:
    c = compare(spread, pack, labels=("A", "B"))
    assert [(p["name"], p["node_a"], p["node_b"], p["score_a"], p["score_b"], p["score_delta"]) for p in c.pods] == [
        ("p1", "n2", "n1", 11, 11, 0), ("big", None, "n2", None, None, None)]
    assert [p["name"] for p in c.placements] == ["p1", "big"]
    assert [(r["step"], r["pending_a"], r["pending_b"]) for r in c.steps] == [(0, 0, 0), (1, 0, 0), (2, 1, 0)]
    data = c.to_data()
    assert (data["a"], data["b"], data["placementsDiffer"]) == ("A", "B", 2)
    assert data["metrics"]["pending"] == {"a": pytest.approx(1 / 3), "b": 0.0, "better": "lower", "worse": False,
                                          "description": "mean pending pods per step"}


def test_identical_results_compare_equal(spread: ResultTables) -> None:
    c = compare(spread, spread)
    assert c.pods == [] and not any(m.worse or m.improved for m in c.metrics.values())


def _plot_ids(page: str) -> list[str]:
    return re.findall(r'<div id="(s\d+-[a-z]+-plot)"', page)


def test_report_page(small_result: Scenario, spread: ResultTables) -> None:
    tables = analyze(small_result)
    page = render_report([tables, spread], title="my <report>")
    assert page.startswith("<!DOCTYPE html>") and "<title>my &lt;report&gt;</title>" in page
    assert _plot_ids(page) == [f"s{i}-{n}-plot" for i in (0, 1) for n in ("allocation", "heatmap", "pending", "reasons")]
    # plotly.js is inlined once, each plot is drawn once, nothing is loaded from the network
    assert len(re.findall(r"\* plotly\.js v\d", page)) == 1
    assert re.findall(r'Plotly\.newPlot\(\s*"(s\d+-[a-z]+-plot)"', page) == _plot_ids(page)
    assert not re.search(r'<script[^>]+src=|<link[^>]+href="http', page)
    # the table of pods that failed scheduling lists p2 with its reason
    section = page.split('id="s0-unschedulable"')[1].split("</table>")[0]
    assert "Pods that failed scheduling (1)" in section and "<td>p2</td>" in section
    assert "Insufficient cpu (2)" in section
    assert render_report([tables, spread], title="my <report>") == page  # deterministic


def test_report_lists_plugin_tables(small_result: Scenario) -> None:
    from kubesim.results import Column, Table

    class Count:
        name = "count"

        def initial(self) -> int:
            return 0

        def fold(self, acc: int, event: Any, state: Any) -> int:
            return acc + 1

        def table(self, acc: int) -> Table:
            return Table("count", (Column("events", "int", "events and step ends"),), [(acc,)], "a plugin table")

    page = render_report([analyze(small_result, aggregators={"count": Count()})])
    assert "<h3>count</h3>" in page and "<td class=\"num\">21</td>" in page  # 15 events + 6 step ends


def test_report_without_plotly(monkeypatch: pytest.MonkeyPatch, small_result: Scenario) -> None:
    monkeypatch.setitem(sys.modules, "plotly", None)
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    with pytest.raises(ReportUnavailable, match=r"pip install 'kubesim\[report\]'"):
        render_report([analyze(small_result)])


def test_a_large_heatmap_shows_one_step_in_k_and_the_last(monkeypatch: pytest.MonkeyPatch,
                                                          small_result: Scenario) -> None:
    import plotly.graph_objects as go

    from kubesim.results import report

    nodes = analyze(small_result)["nodes"]
    steps = sorted(set(nodes.column("step")))
    count = len(set(nodes.column("node")))
    assert (steps, count) == ([0, 1, 2, 3, 4, 5], 3)
    assert list(report._heatmap_figure(go, nodes).data[0].x) == steps  # under the limit: every step
    monkeypatch.setattr(report, "HEATMAP_CELL_LIMIT", 9)  # 18 cells: one step in 2, and the last
    fig = report._heatmap_figure(go, nodes)
    assert list(fig.data[0].x) == [0, 2, 4, 5] and all(len(row) == 4 for row in fig.data[0].z)
    assert fig.layout.title.text.endswith("(one step in 2 of 6, and the last)")
