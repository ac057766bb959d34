"""End-to-end: `kubesim explain` through the installed command, on examples/preemption, and
the report's pod drill-down in headless Chromium (a failure without it under CI).

The example (see its comments): critical preempts default/batch-2 on node-1 and is bound
there once the victim is gone; too-big never fits and stays pending; batch-1 was bound
among two nodes with equal scores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from kubesim.cli.explain import explain_command
from kubesim.testing import KubesimRun, run_kubesim
from kubesim.testing.browser import dump_dom, screenshot

ROOT = Path(__file__).parents[3]
PREEMPTION = ROOT / "examples" / "preemption" / "scenario.yaml"
PLUGINS = {"scheduler", "kubelet"}

pytestmark = pytest.mark.needs_plugins  # runs the scheduler and kubelet plugins


def flat(text: str) -> str:
    """The text with every run of whitespace as one space (piped output wraps long lines)."""
    return " ".join(text.split())


def kubesim(cwd: Path, *args: str) -> KubesimRun:
    return run_kubesim(*args, cwd=cwd, plugins=PLUGINS)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example run at full and at summary detail: full.json and summary.json."""
    where = tmp_path_factory.mktemp("explain")
    for detail in ("full", "summary"):
        proc = kubesim(where, "run", str(PREEMPTION), "-o", f"{detail}.json", "--detail", detail, "-q")
        assert proc.returncode == 0, proc.stderr
    return where


def test_preempted_pod_shows_victims_and_nominated_node(results: Path) -> None:
    proc = kubesim(results, "explain", "full.json", "critical")
    assert proc.returncode == 0, proc.stderr
    out = flat(proc.stdout)
    assert "Pod default/critical" in out and "state: bound on node-1" in out
    assert "Attempt 1: step 2/1, profile default-scheduler, unschedulable" in out
    assert "preemption evicted 1 pod(s) of lower priority (default/batch-2) and nominated node node-1" in out
    victims = out.split("Preemption: victims evicted (nominated node: node-1)")[1]
    assert "default/batch-2 | node-1 | 100 | 2/1" in victims
    assert "node-1 is the pod's nominated node" in out


def test_pending_pod_shows_per_node_filter_reasons(results: Path) -> None:
    proc = run_kubesim("explain", "full.json", "too-big", "--attempt", "1", cwd=results, plugins=PLUGINS,
                       env={"COLUMNS": "120"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # docs/explain.md shows this output: it must stay what the command prints
    doc = (ROOT / "docs" / "explain.md").read_text()
    assert doc.split("$ kubesim explain result.json too-big --attempt 1\n")[1].split("```")[0] == out
    assert "state: pending" in flat(out) and "1 attempt(s) shown" in out and "Attempt 2" not in out
    rows = [line for line in out.splitlines() if "| NodeResourcesFit |" in line]
    assert rows == [" node-1 | NodeResourcesFit | Insufficient cpu", " node-2 | NodeResourcesFit | Insufficient cpu"]
    # piped output is plain: no colour codes, no cut cells
    assert "\x1b[" not in out and "…" not in out


def test_scheduled_pod_shows_scores_and_tie_rule(results: Path) -> None:
    proc = kubesim(results, "explain", "full.json", "batch-1", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    [attempt] = data["attempts"]
    assert (attempt["outcome"], attempt["node"], attempt["tiedNodes"]) == ("scheduled", "node-2", ["node-2", "node-1"])
    chosen = attempt["scores"][0]
    assert chosen["node"] == "node-2"
    assert chosen["total"] == sum(p["weighted"] for p in chosen["plugins"].values())
    assert chosen["plugins"]["TaintToleration"] == {"raw": 0, "normalized": 100, "weighted": 300}
    assert "reservoir sampling" in attempt["why"]


def test_summary_detail_says_what_was_kept(results: Path) -> None:
    proc = kubesim(results, "explain", "summary.json", "too-big")
    assert proc.returncode == 0, proc.stderr
    out = flat(proc.stdout)
    assert "(summary detail; 2 node(s) considered, 0 feasible)" in out
    assert "Filter: rejection reasons (nodes per reason; per-node verdicts not recorded)" in out
    assert "Insufficient cpu | 2" in out
    assert "`kubesim run --detail full` records every node and plugin" in out


def test_bad_pod_name_and_attempt(results: Path) -> None:
    proc = kubesim(results, "explain", "full.json", "batch")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("error: full.json: POD: no pod 'batch' in the result (6 pods); did you mean: "
                           "default/batch-1, default/batch-2, default/batch-3, default/batch-4\n")


@pytest.mark.parametrize(("args", "error"), [
    (("--attempt", "9"), "--attempt: expected 1 to 4, the attempts of default/critical, got 9"),
    (("--node", "node-3"), "--node: no node 'node-3' in the result; did you mean: node-1, node-2"),
    (("--scenario", "other"), "--scenario: no scenario named 'other'"),
])
def test_bad_options(results: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], error: str) -> None:
    """In process (the command's own checks; the installed command is exercised above)."""
    monkeypatch.chdir(results)
    out = CliRunner().invoke(explain_command(), ["full.json", "critical", *args])
    assert (out.exit_code, out.output) == (2, f"error: full.json: {error}\n")


# --- the report's pod drill-down, rendered in headless Chromium -----------------------------

PROBE = """
<script>
// what a person does: click a pod's row, type in the search box, open a scheduled pod;
// each result is copied into a probe element that the DOM dump keeps
window.addEventListener('load', function () {
  var out = document.getElementById('s0-explain-pod');
  function keep(id, html) {
    var d = document.createElement('div'); d.id = id; d.innerHTML = html; document.body.appendChild(d);
  }
  keep('probe-link', out.innerHTML);  // opened from the address: #pod=default%2Fcritical
  document.querySelector('#s0-unschedulable tbody tr:nth-child(2)').click();  // default/too-big's row
  keep('probe-click', out.innerHTML);
  var box = document.getElementById('s0-explain-search');
  box.value = 'batch';
  box.dispatchEvent(new Event('input'));
  keep('probe-search', document.getElementById('s0-explain-matches').innerHTML);
  kubesimExplain.show('s0', 'default/batch-1');
  keep('probe-scores', out.innerHTML);
});
</script>
"""


@pytest.fixture(scope="module")
def report(results: Path) -> Path:
    proc = kubesim(results, "report", "full.json", "-o", "report.html")
    assert proc.returncode == 0, proc.stderr
    return results / "report.html"


def probe(dom: str, name: str) -> str:
    """The markup a probe kept."""
    return dom.split(f'id="probe-{name}">')[1].split('<div id="probe-')[0]


def test_report_drilldown_in_chromium(report: Path, tmp_path: Path) -> None:
    page = report.read_text()
    assert page.count('id="s0-explain-data"') == 1 and "default/too-big" in page
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", PROBE + "</body>"))
    dom = dump_dom(probed, tmp_path / "profile", "pod=default%2Fcritical")
    linked = probe(dom, "link")
    assert "<h4>Pod default/critical</h4>" in linked
    assert "Attempt 1: step 2/1, profile default-scheduler, unschedulable" in linked
    assert "preemption evicted 1 pod(s) of lower priority (default/batch-2) and nominated node node-1" in linked
    assert '<td>default/batch-2</td><td>node-1</td><td class="num">100</td><td>2/1</td>' in linked  # the victim
    clicked = probe(dom, "click")
    assert "<h4>Pod default/too-big</h4>" in clicked and "state: pending" in clicked
    assert "<td>node-2</td><td>NodeResourcesFit</td><td>Insufficient cpu</td>" in clicked  # a filter verdict
    assert probe(dom, "search").count('<button type="button" data-pod="default/batch-') == 4
    scored = probe(dom, "scores")
    assert ('<td>node-2 (chosen)</td><td>TaintToleration</td><td class="num">0</td><td class="num">100</td>'
            '<td class="num">300</td>' in scored)
    assert '<td></td><td>total</td><td></td><td></td><td></td><td class="num">424</td>' in scored


# the drill-down alone, as a person sees it after clicking a pod (the plots above it left out)
ONLY_DRILLDOWN = "<style>body > :not(section.explain):not(script):not(style) { display: none !important; }</style>"


def test_report_drilldown_screenshot(report: Path, tmp_path: Path) -> None:
    page = tmp_path / "drilldown.html"
    page.write_text(report.read_text().replace("</body>", ONLY_DRILLDOWN + "</body>"))
    png = screenshot(page, tmp_path / "drilldown.png", tmp_path / "profile", "pod=default%2Fcritical", (1300, 1400))
    data = png.read_bytes()
    assert int.from_bytes(data[16:20], "big") == 1300  # PNG IHDR width
    assert len(data) > 60_000  # headings, tables and text; a blank page is ~10 kB
