"""End-to-end: the installed `kubesim` command never hangs on a failing plugin, and names it.

The plugin data/plugins/kubesim_failing.py has controllers that loop without changing the
cluster, never settle, write forever or raise; an admission hook and a result aggregator
that raise. Each run must end within seconds, Failed (exit 1), with one line naming the
plugin (and, for an exception, its file:line), the result so far written and no traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubesim import testing
from kubesim.testing import KubesimRun

DATA = Path(__file__).parents[1] / "data"
PLUGIN = DATA / "plugins" / "kubesim_failing.py"


def run_kubesim(*args: str, cwd: Path) -> KubesimRun:
    """`kubesim ARGS` with only the failing plugin; a hang fails the test after 60 s."""
    return testing.run_kubesim(*args, cwd=cwd, plugins=(), pythonpath=[DATA / "plugins"],
                               modules=["kubesim_failing"], timeout=60)


def _line_of(marker: str) -> int:
    return next(i for i, line in enumerate(PLUGIN.read_text().splitlines(), 1) if marker in line)


def _config_map(name: str, step: int) -> dict[str, Any]:
    return {"id": name, "step": step, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}}}


def _scenario(tmp_path: Path, *, simulation: list[str], pre: list[str],
              operations: list[dict[str, Any]] | None = None) -> Path:
    doc = {
        "apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
        "metadata": {"name": "failing"},
        "spec": {"controllers": {
            "simulationControllers": {"enabled": [{"name": n} for n in simulation]},
            "preSimulationControllers": {"enabled": [{"name": n} for n in pre], "disabled": [{"name": "*"}]}},
            "operations": operations or [_config_map("a", 0), _config_map("b", 1), {"step": 2, "doneOperation": {}}]},
    }
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _failed_run(tmp_path: Path, scenario: Path) -> tuple[str, dict[str, Any]]:
    """Run `scenario`; it must fail with exit 1 and no traceback. Returns (message, result)."""
    proc = run_kubesim("run", str(scenario), "-o", "result.json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    result: dict[str, Any] = json.loads((tmp_path / "result.json").read_text())
    assert result["status"]["phase"] == "Failed"
    message: str = result["status"]["message"]
    assert json.dumps(message) in proc.stderr  # the error log line names it too
    return message, result


@pytest.mark.parametrize(("simulation", "pre", "expected"), [
    ([], ["spinner"],
     'step 0 did not settle: controller "spinner" still reports work after {idle} loops without changing the cluster'),
    (["spinner"], [],
     'step 0 did not settle: controller "spinner" still reports work after {idle} loops without changing the cluster'),
    (["writer"], [], 'step 0 did not settle: controller "writer" still changes the cluster after {loops} '
                     "loops in this step"),
    (["unsatisfied"], [], "SimulationController 'unsatisfied' has nothing to do but its waiter is not satisfied"),
    ([], ["unsatisfied"], "PreSimulationController 'unsatisfied' cannot settle: it has nothing left to do "
                          "but its waiter is not satisfied"),
])
def test_a_step_that_does_not_settle_fails_naming_the_controller(
        tmp_path: Path, simulation: list[str], pre: list[str], expected: str) -> None:
    message, result = _failed_run(tmp_path, _scenario(tmp_path, simulation=simulation, pre=pre))
    # kubesim.controllers.settle's bounds; the cluster holds 4 namespaces, the Scenario and "a"
    objects = 6
    assert message == expected.format(idle=1000 + 4 * objects, loops=10_000 + 100 * objects)
    assert [e["id"] for e in result["status"]["scenarioResult"]["timeline"]["0"]][0] == "a"
    assert result["status"]["stepStatus"]["step"]["major"] == 0


def test_a_controller_exception_names_the_controller_and_line(tmp_path: Path) -> None:
    message, result = _failed_run(tmp_path, _scenario(tmp_path, simulation=["crasher"], pre=[]))
    assert message == (f"controller \"crasher\" raised KeyError: 'limit' at kubesim_failing.py:"
                       f"{_line_of('CRASH-CONTROLLER')}")
    assert [e["id"] for e in result["status"]["scenarioResult"]["timeline"]["0"]] == ["a"]


def test_an_admission_hook_exception_names_the_plugin_and_line(tmp_path: Path) -> None:
    operations = [_config_map("a", 0), _config_map("boom", 1), {"step": 2, "doneOperation": {}}]
    message, result = _failed_run(tmp_path, _scenario(tmp_path, simulation=[], pre=[], operations=operations))
    assert message == (f'admission plugin "kubesim_failing" raised RuntimeError: cannot admit boom at '
                       f"kubesim_failing.py:{_line_of('CRASH-ADMISSION')}")
    timeline = result["status"]["scenarioResult"]["timeline"]
    assert [e["id"] for e in timeline["0"]] == ["a"] and "1" not in timeline


def test_a_result_aggregator_exception_names_it_and_exits_1(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, simulation=[], pre=[])
    assert run_kubesim("run", str(scenario), "-o", "result.json", cwd=tmp_path).returncode == 0
    for command in (["report", "result.json", "-o", "report.html"], ["compare", "result.json", "result.json"]):
        proc = run_kubesim(*command, cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.strip().endswith(
            'result aggregator "fragile" (fold, on event a at step 0/0) raised KeyError: '
            f"'node' at kubesim_failing.py:{_line_of('CRASH-AGGREGATOR')}")
