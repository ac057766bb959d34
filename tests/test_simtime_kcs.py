"""k8s-cluster-simulator's example config runs unchanged through the installed `kubesim` (issue 14).

`kubesim run --kcs-config` writes the config's three metrics loggers (stdout table, kubesim.log
JSON lines, kubesim-hr.log human-readable), byte-identical across runs; `kubesim import --from`
turns the config into a Scenario that gives the same metrics; a bad config is an exit-2 error
naming the field.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from kubesim.testing import run_kubesim

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "kcs"


def _copy_example(where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLE / "config.yaml", where / "config.yaml")
    shutil.copy(EXAMPLE / "jobs.yaml", where / "jobs.yaml")
    return where


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, str]]:
    out = []
    for i in range(2):
        where = _copy_example(tmp_path_factory.mktemp(f"kcs{i}"))
        run = run_kubesim("run", "--kcs-config", "config.yaml", "jobs.yaml", "-q", "-o", "result.json",
                          cwd=where, timeout=120)
        assert run.returncode == 0, run.stderr
        out.append((where, run.stdout))
    return out


def test_the_example_config_writes_its_three_loggers(runs: list[tuple[Path, str]]) -> None:
    where, stdout = runs[0]
    lines = (where / "kubesim.log").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    # tick 10 s, metricsTick 60 s: written every 70 s (more than 60 s since the last write)
    assert [r["Clock"] for r in records[:3]] == ["2019-01-01T00:01:10+09:00", "2019-01-01T00:02:20+09:00",
                                                 "2019-01-01T00:03:30+09:00"]
    assert list(records[0]) == ["Clock", "Nodes", "Pods", "Queue"]
    assert list(records[0]["Nodes"]["node-0"]) == ["Allocatable", "RunningPodsNum", "TerminatingPodsNum",
                                                   "FailedPodsNum", "TotalResourceRequest", "TotalResourceUsage"]
    assert records[0]["Nodes"]["node-0"]["Allocatable"] == {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "1",
                                                            "pods": "2"}
    assert records[-1]["Queue"] == {"PendingPodsNum": 0}
    human = (where / "kubesim-hr.log").read_text()
    assert human.startswith("Metrics 2019-01-01T00:01:10+09:00\n  Nodes\n    node-0: Pods ")
    assert human.count("Metrics ") == len(records)
    assert stdout.startswith("2019-01-01T00:01:10+09:00\n\nNode             Pods   Termi- Failed Capa-  cpu")
    result = json.loads((where / "result.json").read_text())
    assert result["status"]["phase"] == "Succeeded"
    assert result["status"]["scenarioResult"]["metrics"] == records


def test_runs_are_byte_identical(runs: list[tuple[Path, str]]) -> None:
    (a, out_a), (b, out_b) = runs
    assert out_a == out_b
    for name in ("kubesim.log", "kubesim-hr.log"):
        assert (a / name).read_bytes() == (b / name).read_bytes()


def test_import_gives_a_scenario_with_the_same_metrics(runs: list[tuple[Path, str]], tmp_path: Path) -> None:
    where = _copy_example(tmp_path)
    imported = run_kubesim("import", "--from", "config.yaml", "-o", "cluster.yaml", cwd=where, timeout=60)
    assert imported.returncode == 0, imported.stderr
    scenario = yaml.safe_load((where / "cluster.yaml").read_text())
    assert scenario["spec"]["simulatedTime"] == {"tick": "10s", "startClock": "2019-01-01T00:00:00+09:00",
                                                 "metricsTick": "60s"}
    assert [op["createOperation"]["object"]["metadata"]["name"] for op in scenario["spec"]["operations"]] == [
        "node-0", "node-1"]
    # the jobs scenario on the imported cluster: the same metrics as with --kcs-config
    jobs = yaml.safe_load((where / "jobs.yaml").read_text())
    jobs["spec"]["operations"] = scenario["spec"]["operations"] + jobs["spec"]["operations"]
    jobs["spec"]["simulatedTime"] = scenario["spec"]["simulatedTime"]
    (where / "both.yaml").write_text(yaml.safe_dump(jobs))
    run = run_kubesim("run", "both.yaml", "-q", "--metrics", "m.jsonl", cwd=where, timeout=120)
    assert run.returncode == 0, run.stderr
    assert (where / "m.jsonl").read_bytes() == (runs[0][0] / "kubesim.log").read_bytes()


def test_until_and_the_human_format_on_stdout(tmp_path: Path) -> None:
    where = _copy_example(tmp_path)
    config = yaml.safe_load((where / "config.yaml").read_text())
    config["metricsLogger"] = []
    (where / "config.yaml").write_text(yaml.safe_dump(config))
    run = run_kubesim("run", "--kcs-config", "config.yaml", "jobs.yaml", "--until", "5m", "--metrics", "-",
                      "--metrics-format", "human", "--metrics-tick", "100s", "-q", "-o", "r.json", cwd=where,
                      timeout=120)
    assert run.returncode == 0, run.stderr
    assert [line.split()[1] for line in run.stdout.splitlines() if line.startswith("Metrics ")] == [
        "2019-01-01T00:01:50+09:00", "2019-01-01T00:03:40+09:00"]
    assert run.result is not None
    assert run.result["status"]["stepStatus"]["step"]["major"] == 30  # 300 s


@pytest.mark.parametrize(("change", "message"), [
    ({"tick": "ten"}, "error: config.yaml: tick: expected a whole number of seconds greater than 0, got 'ten'"),
    ({"metricsLogger": [{"dest": "x.log", "formatter": "yaml"}]},
     "error: config.yaml: metricsLogger[0].formatter: expected one of JSON, humanReadable, table, got 'yaml'"),
])
def test_a_bad_config_names_the_field(tmp_path: Path, change: dict[str, object], message: str) -> None:
    where = _copy_example(tmp_path)
    config = yaml.safe_load((where / "config.yaml").read_text())
    config.update(change)
    (where / "config.yaml").write_text(yaml.safe_dump(config))
    run = run_kubesim("run", "--kcs-config", "config.yaml", cwd=where, timeout=60)
    assert run.returncode == 2
    assert message in run.stderr
    assert not (where / "kubesim.log").exists()


def test_the_report_draws_usage_per_node_over_time(runs: list[tuple[Path, str]]) -> None:
    from kubesim.results import analyze, load_results
    from kubesim.results.report import render_report

    [result] = load_results(runs[0][0] / "result.json")
    page = render_report([analyze(result)])
    assert 'id="s0-usage"' in page and 'id="s0-queue"' in page
    assert "cpu usage per node over time (cores)" in page
    for node in ("node-0", "node-1"):
        assert f'"name":"{node}"' in page
