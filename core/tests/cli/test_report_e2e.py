"""End-to-end: `kubesim report` through the installed command, and the page rendered in Chromium.

The page is opened in headless Chromium (Debian's chromium package, installed by .ci/run):
without it this test fails under CI (CI set) and is skipped elsewhere.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kubesim.testing import KubesimRun, headless, installed_plugins, run_kubesim

ROOT = Path(__file__).parents[3]
QUICKSTART = ROOT / "examples" / "quickstart" / "scenario.yaml"
PLOTS = ("allocation", "heatmap", "pending", "reasons")

AGGREGATOR_PLUGIN = '''
from kubesim import hookimpl
from kubesim.results import Column, Table


class BindsPerNode:
    name = "binds_per_node"

    def initial(self):
        return {}

    def fold(self, acc, event, state):
        if event.kind == "podScheduled":
            acc[event.pod_result.bound_to] = acc.get(event.pod_result.bound_to, 0) + 1
        return acc

    def table(self, acc):
        return Table(self.name, (Column("node", "str", "a node"), Column("binds", "int", "binds to it")),
                     sorted(acc.items()), "binds per node, from a plugin")


@hookimpl
def kubesim_result_aggregators():
    return {"binds_per_node": BindsPerNode()}
'''

Run = Callable[..., KubesimRun]


@pytest.fixture
def kubesim(tmp_path: Path) -> Run:
    """`kubesim ARGS` in tmp_path with the scheduler (when installed) and a result-aggregator test plugin."""
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "binds_plugin.py").write_text(AGGREGATOR_PLUGIN)

    def run(*args: str) -> KubesimRun:
        return run_kubesim(*args, cwd=tmp_path, plugins=installed_plugins() & {"scheduler"},
                           pythonpath=[tmp_path / "plugins"], modules=["binds_plugin"])

    return run


@pytest.fixture
def quickstart_result(kubesim: Run, tmp_path: Path) -> Path:
    """examples/quickstart run with the scheduler: result.json."""
    pytest.importorskip("kubesim_scheduler", reason="the scheduler plugin is not installed")
    proc = kubesim("run", str(QUICKSTART), "-o", "result.json", "-q")
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "result.json"


def render(page: Path, tmp_path: Path) -> str:
    """The page's DOM after its scripts ran, from headless Chromium (no network)."""
    return headless("--dump-dom", page.as_uri(), profile=tmp_path / "chromium-profile")


def plot_dom(dom: str, plot_id: str) -> str:
    """The rendered markup of one plot (up to the next plot's or section's start)."""
    start = dom.index(f'id="{plot_id}"')
    end = min((i for i in (dom.find('class="figure"', start), dom.find("<h3", start)) if i > 0), default=len(dom))
    return dom[start:end]


def test_report_renders_every_plot(quickstart_result: Path, kubesim: Run, tmp_path: Path) -> None:
    proc = kubesim("report", str(quickstart_result), "-o", "report.html")
    assert proc.returncode == 0, proc.stderr
    page = tmp_path / "report.html"
    html = page.read_text()
    assert not re.search(r'<script[^>]+src=|<link[^>]+href="http', html)  # self-contained
    dom = render(page, tmp_path)
    assert dom.count('class="plot-container plotly"') == len(PLOTS)
    for name in PLOTS:
        plot = plot_dom(dom, f"s0-{name}-plot")
        assert 'class="main-svg"' in plot, name
    assert re.search(r'class="heatmaplayer.*?<image', plot_dom(dom, "s0-heatmap-plot"), re.S)
    assert plot_dom(dom, "s0-allocation-plot").count('class="trace scatter') == 4
    assert 'class="trace bars"' in plot_dom(dom, "s0-reasons-plot")
    assert 'class="trace bars"' in plot_dom(dom, "s0-pending-plot")
    # the unschedulable pod of the quickstart and its reasons
    section = dom.split('id="s0-unschedulable"')[1]
    assert "batch-big" in section and "Insufficient cpu (2)" in section


def test_report_tables_and_plugin_aggregator(quickstart_result: Path, kubesim: Run, tmp_path: Path) -> None:
    proc = kubesim("report", str(quickstart_result), "-o", "r.html", "--tables", "tables", "--format", "csv",
                   "--format", "json")
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in (tmp_path / "tables").iterdir()}
    assert names == {f"{t}.{f}" for t in ("pods", "nodes", "cluster", "plugins", "filter_reasons", "binds_per_node")
                     for f in ("csv", "json")}
    with open(tmp_path / "tables" / "pods.csv", newline="") as fh:
        pods = {r["name"]: r for r in csv.DictReader(fh)}
    # the quickstart's story: batch-big waits for node-d; web-1 is deleted at step 3
    assert (pods["batch-big"]["node"], pods["batch-big"]["bound_step"], pods["batch-big"]["attempts"]) == (
        "node-d", "2", "3")
    assert (pods["web-1"]["state"], pods["web-1"]["deleted_step"]) == ("deleted", "3")
    binds = json.loads((tmp_path / "tables" / "binds_per_node.json").read_text())["rows"]
    assert sum(r["binds"] for r in binds) == 3 and {r["node"] for r in binds} <= {"node-a", "node-b", "node-d"}
    assert "<h3>binds_per_node</h3>" in (tmp_path / "r.html").read_text()
    again = kubesim("report", str(quickstart_result), "-o", "r2.html")
    assert again.returncode == 0
    assert (tmp_path / "r2.html").read_bytes() == (tmp_path / "r.html").read_bytes()


def _write(tmp_path: Path, name: str, data: Any) -> str:
    (tmp_path / name).write_text(json.dumps(data) if not isinstance(data, str) else data)
    return name


@pytest.mark.parametrize(("content", "message"), [
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}},
     "error: bad.json: kind: expected 'Scenario' (a result written by `kubesim run -o`), got 'Pod'"),
    ({"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
      "metadata": {"name": "s"}, "spec": {"operations": []}},
     "error: bad.json: status.scenarioResult: required: this is a scenario that has not been run"),
    ({"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
      "metadata": {"name": "s"}, "status": {"scenarioResult": {"timeline": {"0": [{"id": 1}]}}}},
     "error: bad.json: status.scenarioResult.timeline[0][0].id: expected a string, got the number 1"),
    ("{not json", "error: bad.json: line 1 column 2: JSON syntax error"),
])
def test_bad_input_is_exit_2_without_traceback(kubesim: Run, tmp_path: Path, content: Any, message: str) -> None:
    _write(tmp_path, "bad.json", content)
    proc = kubesim("report", "bad.json", "-o", "r.html")
    assert proc.returncode == 2
    assert proc.stderr.startswith(message), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_missing_file_and_unknown_scenario(kubesim: Run, tmp_path: Path, quickstart_result: Path) -> None:
    proc = kubesim("report", "nope.json")
    assert proc.returncode == 2 and "error: nope.json: cannot read file" in proc.stderr
    proc = kubesim("report", str(quickstart_result), "--scenario", "other")
    assert proc.returncode == 2 and "no scenario named 'other'" in proc.stderr


def test_a_file_with_several_results(quickstart_result: Path, kubesim: Run, tmp_path: Path) -> None:
    first = json.loads(quickstart_result.read_text())
    second = json.loads(quickstart_result.read_text())
    second["metadata"]["name"] = "again"
    (tmp_path / "both.json").write_text(json.dumps([first, second]))
    proc = kubesim("report", "both.json", "-o", "both.html", "--tables", "tables")
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "both.html").read_text()
    assert "Scenario quickstart" in page and "Scenario again" in page
    assert re.findall(r'<div id="(s\d)-allocation-plot"', page) == ["s0", "s1"]
    assert sorted(p.name for p in (tmp_path / "tables").iterdir()) == ["again", "quickstart"]
    assert (tmp_path / "tables" / "again" / "pods.csv").read_text() == (
        tmp_path / "tables" / "quickstart" / "pods.csv").read_text()
    proc = kubesim("report", "both.json", "-o", "one.html", "--scenario", "again")
    assert proc.returncode == 0 and "Scenario quickstart" not in (tmp_path / "one.html").read_text()
