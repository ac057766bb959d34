"""`kubesim perf` options checked before anything runs (in process: nothing is run here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from kubesim.cli.perf import perf_command
from kubesim.plugins import load_plugins

CONFIG = """- name: Basic
  workloadTemplate: [{opcode: createNodes, count: 2}, {opcode: createPods, count: 3, collectMetrics: true}]
  workloads: [{name: small, labels: [short]}, {name: big}]
"""


@pytest.mark.parametrize("args, expected", [
    (["--workload", "nope"], "error: --workload nope: no such workload"),
    (["--test-case", "Other"], "error: --test-case Other: no such testCase (have: Basic)"),
    (["-o", "out.json", "--profile", "out.json"], "error: --profile out.json: the same file as --output out.json"),
])
def test_bad_options_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "perf.yaml").write_text(CONFIG)
    result = CliRunner().invoke(perf_command(load_plugins()), ["perf.yaml", *args])
    assert result.exit_code == 2
    assert expected in result.output
    assert not (tmp_path / "out.json").exists()


def test_list_shows_the_selection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "perf.yaml").write_text(CONFIG)
    result = CliRunner().invoke(perf_command(load_plugins()), ["perf.yaml", "--list", "--label", "short"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["Basic/small\t7 operations\t3 steps"]
