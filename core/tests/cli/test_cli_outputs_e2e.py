"""End-to-end: what `kubesim run`, `compare` and `plugins` say, for people and for CI.

- compare refuses two results of different scenarios (exit 2) unless --force;
- run --fail-on-paused exits 3 for a scenario that ends Paused (a forgotten done);
- steps are written `4/0` (major/minor), never `4.0`;
- tables are whole when piped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from kubesim.api.digest import spec_hash
from kubesim.testing import KubesimRun, run_kubesim

pytest.importorskip("kubesim_scheduler", reason="these runs schedule pods with the scheduler plugin")

QUICKSTART = Path(__file__).parents[3] / "examples" / "quickstart" / "scenario.yaml"

Run = Callable[..., KubesimRun]


@pytest.fixture
def kubesim(tmp_path: Path) -> Run:
    def run(*args: str) -> KubesimRun:
        return run_kubesim(*args, cwd=tmp_path, plugins=("scheduler",))

    return run


def _variant(tmp_path: Path, name: str, keep: Callable[[dict[str, object]], bool]) -> str:
    """The quickstart with only the operations `keep` accepts, written as `name`.yaml."""
    doc = yaml.safe_load(QUICKSTART.read_text())
    doc["spec"]["operations"] = [op for op in doc["spec"]["operations"] if keep(op)]
    (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(doc))
    return f"{name}.yaml"


def test_compare_refuses_results_of_different_scenarios(kubesim: Run, tmp_path: Path) -> None:
    assert kubesim("run", str(QUICKSTART), "-o", "a.json", "-q").returncode == 0
    other = _variant(tmp_path, "other", lambda op: op.get("id") != "cordon-a")
    assert kubesim("run", other, "-o", "other.json", "-q").returncode == 0
    a = json.loads((tmp_path / "a.json").read_text())
    stored = a["status"]["scenarioResult"]["scenarioHash"]
    assert stored == spec_hash(a["spec"]) and stored.startswith("sha256:")
    # the hash is of the spec: a run under another name (or with other run options) is of the same scenario
    renamed = json.loads((tmp_path / "a.json").read_text())
    renamed["metadata"]["name"] = "renamed"
    (tmp_path / "renamed.json").write_text(json.dumps(renamed))
    assert kubesim("compare", "a.json", "renamed.json").returncode == 0

    proc = kubesim("compare", "a.json", "other.json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: a.json (scenario quickstart, {stored[:19]}) and other.json "
                                  "(scenario quickstart, sha256:"), proc.stderr
    assert "are results of different scenarios: compare two runs of the same scenario, or give --force" in proc.stderr
    forced = kubesim("compare", "a.json", "other.json", "--force")
    assert forced.returncode == 0 and "Summary" in forced.stdout
    assert "are results of different scenarios (--force: compared anyway)" in forced.stderr

    # a result of an older kubesim has no hash: said so, and the specs it holds are compared
    del a["status"]["scenarioResult"]["scenarioHash"]
    (tmp_path / "old.json").write_text(json.dumps(a))
    proc = kubesim("compare", "old.json", "renamed.json")
    assert proc.returncode == 0
    assert ("warning: old.json: scenario hash unknown (a result of an older kubesim): comparing the specs the "
            "results hold instead") in proc.stderr
    assert kubesim("compare", "old.json", "other.json").returncode == 2


def test_fail_on_paused(kubesim: Run, tmp_path: Path) -> None:
    paused = _variant(tmp_path, "paused", lambda op: "doneOperation" not in op)
    proc = kubesim("run", paused, "-o", "r.json")
    assert proc.returncode == 0
    message = "scenario quickstart ended Paused at step 3/0: its operations ran out before a done operation"
    assert f"warning: {message} (--fail-on-paused makes this exit 3)" in proc.stderr
    proc = kubesim("run", paused, "-o", "r.json", "--fail-on-paused", "-q")
    assert proc.returncode == 3 and proc.stderr == f"error: {message}\n"
    assert json.loads((tmp_path / "r.json").read_text())["status"]["phase"] == "Paused"  # still written
    proc = kubesim("run", str(QUICKSTART), "--fail-on-paused", "-q")  # a done operation: exit 0
    assert proc.returncode == 0 and proc.stderr == ""


def test_steps_are_major_slash_minor_and_piped_tables_are_whole(kubesim: Run) -> None:
    proc = kubesim("run", str(QUICKSTART))
    assert proc.returncode == 0
    row = next(line for line in proc.stderr.splitlines() if "│ quickstart" in line)
    assert "│ 4/0 " in row and "4.0" not in row
    assert "…" not in proc.stderr  # 80 columns are not assumed when stderr is not a terminal
    listing = kubesim("plugins")
    assert listing.returncode == 0 and "…" not in listing.stdout
    row = next(line for line in listing.stdout.splitlines() if line.startswith("│ scheduler "))
    assert "kubesim-scheduler" in row and "kubesim_scheduling_simulator" in row
