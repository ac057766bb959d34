"""The report as a person sees it: pages of a small and a 5,000-node result in headless Chromium.

Each page is opened at 1400x900 CSS pixels with a measuring script appended: after the
plots are drawn it writes, into the DOM that `--dump-dom` returns, the page's and every
table's widths, where the pending bars end in pixels, which axis each trace of the
pending plot uses, and the summary cards' labels. A screenshot of each page is taken too
(kept in $KUBESIM_SCREENSHOTS when set, e.g. as CI artifacts). Without Chromium these
tests fail under CI and are skipped elsewhere (kubesim.testing.browser).
"""

from __future__ import annotations

import html
import json
import os
import re
import struct
import time
from pathlib import Path
from typing import Any

import pytest
from kubesim.testing import create, done, headless, installed_plugins, node, pod, run_kubesim, scenario, write_yaml

QUICKSTART = Path(__file__).parents[3] / "examples" / "quickstart" / "scenario.yaml"

WIDTH, HEIGHT = 1400, 900
BIG_NODES = 5000

MEASURE = """<script>
window.addEventListener("load", function () { setTimeout(function () {
  function box(el) { var r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top,
                                                                  bottom: r.bottom, height: r.height}; }
  var out = {scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
             tables: [], cards: [], plots: {}};
  document.querySelectorAll("table.data").forEach(function (t) {
    var holder = t.closest(".scroll"), section = t.closest("section");
    var heads = t.querySelectorAll("th");
    out.tables.push({section: section ? section.id : "", table: box(t), holder: box(holder),
                     holderScroll: holder.scrollWidth, holderClient: holder.clientWidth,
                     lastHeader: heads.length ? box(heads[heads.length - 1]) : null,
                     lastHeaderText: heads.length ? heads[heads.length - 1].textContent : ""});
  });
  document.querySelectorAll(".summary div").forEach(function (d) { out.cards.push(d.firstChild.textContent); });
  document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
    var layout = gd._fullLayout, axes = {};
    Object.keys(layout).filter(function (k) { return /^yaxis\\d*$/.test(k); }).forEach(function (k) {
      axes[k] = {range: layout[k].range, length: layout[k]._length};
    });
    var bars = [];
    gd.querySelectorAll(".trace.bars .point path").forEach(function (p) { bars.push(box(p)); });
    out.plots[gd.id] = {traces: gd._fullData.map(function (t) { return {name: t.name, yaxis: t.yaxis}; }),
                        axes: axes, bars: bars, images: gd.querySelectorAll(".heatmaplayer image").length,
                        plot: box(gd)};
  });
  var pre = document.createElement("pre"); pre.id = "measured"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 500); });
</script>
"""


def look_at(page: Path, work: Path) -> dict[str, Any]:
    """The page's measurements (see MEASURE), and a screenshot of it next to them."""
    measured = work / f"{page.stem}.measured.html"
    measured.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>", 1),
                        encoding="utf-8")
    dom = headless("--dump-dom", measured.as_uri(), profile=work / "profile", window=(WIDTH, HEIGHT))
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script did not run"
    data: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    shots = Path(os.environ.get("KUBESIM_SCREENSHOTS") or work)
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / f"{page.stem}.png"
    headless(f"--screenshot={shot}", page.as_uri(), profile=work / "profile", window=(WIDTH, HEIGHT))
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    data["screenshot"] = (shot, struct.unpack(">II", png[16:24]))
    return data


def check_fits(data: dict[str, Any]) -> None:
    """Nothing is wider than the 1400-pixel window; every table shows its last column whole."""
    assert data["clientWidth"] == WIDTH and data["scrollWidth"] <= WIDTH, data["scrollWidth"]
    assert data["screenshot"][1] == (WIDTH, HEIGHT)
    for t in data["tables"]:
        assert t["holderScroll"] <= t["holderClient"], t  # no column hidden behind a scrollbar
        assert t["table"]["right"] <= t["holder"]["right"] + 0.5, t
        assert t["lastHeader"]["right"] <= WIDTH, t


def check_plots(data: dict[str, Any]) -> None:
    """Pending pods have their own axis, filled by the highest pending count; the filter reasons
    plot (when drawn) tells failed attempts from attempts that bound the pod."""
    pending = data["plots"]["s0-pending-plot"]
    traces = {t["name"]: t["yaxis"] for t in pending["traces"]}
    assert traces["pending at step end"] == "y" and traces["bound during the step"] == "y2", traces
    bars = [b for b in pending["bars"] if b["height"] > 0]
    if bars:
        top_axis = pending["axes"]["yaxis"]
        assert max(b["height"] for b in bars) >= 0.8 * top_axis["length"], (bars, top_axis)
    reasons = data["plots"].get("s0-reasons-plot")
    if reasons is not None:
        assert [t["name"] for t in reasons["traces"]] == [
            "in failed attempts (pod stayed pending)", "in attempts that bound the pod elsewhere"]
    assert "pods created (incl. deleted)" in data["cards"] and "pods" not in data["cards"]


@pytest.fixture(scope="session")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    """A report of a 5,000-node result (made once per session) and the seconds `kubesim report` took."""
    pytest.importorskip("kubesim_scheduler", reason="the scheduler plugin is not installed")
    work = tmp_path_factory.mktemp("big")

    steps: dict[int, list[dict[str, Any]]] = {
        0: [create(node(f"node-{i:05d}", cpu=4, memory="32Gi", labels={"zone": f"z{i % 3}"})) for i in range(BIG_NODES)],
        1: [], 2: [], 3: [], 4: [done()],
    }
    for step in (1, 2, 3):
        steps[step] = [create(pod(f"p{step}-{i}", cpu="500m", memory="1Gi")) for i in range(40)]
    steps[2] += [create(pod(f"big-{i}", cpu=6, memory="1Gi")) for i in range(3)]  # fit no node: pending
    write_yaml(work / "big.yaml", scenario("five-thousand", steps, simulation_controllers=["scheduler"]))
    plugins = installed_plugins() & {"scheduler"}
    proc = run_kubesim("run", "big.yaml", "-o", "result.json", "-q", cwd=work, plugins=plugins, timeout=300)
    assert proc.returncode == 0, proc.stderr
    start = time.monotonic()
    proc = run_kubesim("report", "result.json", "-o", "big-report.html", cwd=work, plugins=plugins, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return work / "big-report.html", time.monotonic() - start


def test_small_report_as_seen(tmp_path: Path) -> None:
    pytest.importorskip("kubesim_scheduler", reason="the scheduler plugin is not installed")
    plugins = installed_plugins() & {"scheduler"}
    assert run_kubesim("run", QUICKSTART, "-o", "r.json", "-q", cwd=tmp_path, plugins=plugins).returncode == 0
    proc = run_kubesim("report", "r.json", "-o", "small-report.html", cwd=tmp_path, plugins=plugins)
    assert proc.returncode == 0, proc.stderr
    data = look_at(tmp_path / "small-report.html", tmp_path)
    check_fits(data)
    check_plots(data)
    plugins_table = next(t for t in data["tables"] if t["section"] == "s0-plugins")
    assert plugins_table["lastHeaderText"] == "decided share"  # the last column is on the page
    # the quickstart's one pending pod at step 1: a bar as tall as the axis, not a sliver
    assert len([b for b in data["plots"]["s0-pending-plot"]["bars"] if b["height"] > 0]) == 1


def test_five_thousand_node_report_as_seen(big_page: tuple[Path, float], tmp_path: Path) -> None:
    page, seconds = big_page
    size = page.stat().st_size
    plotly_js = 5_000_000  # the inlined plotly.js, about 4.7 MB of it
    assert size < plotly_js + 2_000_000, size  # the 5,000 nodes' data adds under 2 MB
    assert seconds < 120, seconds
    start = time.monotonic()
    data = look_at(page, tmp_path)
    assert time.monotonic() - start < 120
    check_fits(data)
    check_plots(data)
    assert data["plots"]["s0-heatmap-plot"]["images"] == 1  # 5,000 rows drawn as one image
    assert data["plots"]["s0-heatmap-plot"]["plot"]["height"] <= 1250  # capped, not 18 px per node
    pending_bars = [b for b in data["plots"]["s0-pending-plot"]["bars"] if b["height"] > 0]
    assert len(pending_bars) == 3  # the 3 pods that fit no node, pending at the end of steps 2, 3 and 4
