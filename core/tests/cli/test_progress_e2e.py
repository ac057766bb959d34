"""`kubesim run`'s progress during a step: log lines when stderr is not a terminal, a rich
live line on one, nothing with -q; the results are the same either way."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from kubesim.api import Scenario, structure
from kubesim.cli.progress import RATE_WINDOW, ProgressLine, RunProgress, _Rates, format_eta
from kubesim.plugins import load_plugins
from kubesim.scenario import EngineOptions, Simulator
from kubesim.testing import create, done, installed_plugins, node, pod, run_kubesim, scenario
from rich.console import Console

NODES, PODS = 100, 500


def _scenario() -> dict[str, Any]:
    """Nodes at step 0, pods at step 1 (the last 50 too big for any node), done at step 2."""
    pods = [pod(f"pod-{i:04d}", cpu=8 if i >= PODS - 50 else "100m", memory="100Mi") for i in range(PODS)]
    return scenario("progress", {0: [create(node(f"node-{i:04d}", cpu=4, memory="32Gi")) for i in range(NODES)],
                                 1: [create(p) for p in pods], 2: [done()]},
                    simulation_controllers=["scheduler"], pre_simulation_controllers=[])


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    pytest.importorskip("kubesim_scheduler", reason="the scheduler plugin is not installed")
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(_scenario()))
    return path


def _progress_lines(stderr: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    return [line for line in lines if line["event"] == "progress"]


def test_log_lines_during_a_step_and_quiet_silences_them(scenario_file: Path, tmp_path: Path) -> None:
    scheduler = installed_plugins() & {"scheduler"}
    proc = run_kubesim("run", scenario_file, "-o", "a.json", "--progress-interval", "1us", cwd=tmp_path,
                       plugins=scheduler)
    assert proc.returncode == 0, proc.stderr
    lines = _progress_lines(proc.stderr)
    in_step = [line for line in lines if line["step"] == "1 of 2" and 0 < line["bound"] < PODS - 50]
    assert len(in_step) >= 2, lines  # updated inside the step, not only between steps
    for line in lines:
        assert line["bound"] + line["pending"] == line["pods"] <= PODS
        assert 0 <= line["unschedulable"] <= line["pending"]
        assert line["scenario"] == "progress" and line["level"] == "info"
    assert [line["bound"] for line in in_step] == sorted(line["bound"] for line in in_step)
    # rates need 0.2 s of samples: a fast machine may finish the step sooner (test_rates covers them)
    assert all(line["events_per_s"] is None or line["events_per_s"] > 0 for line in in_step)
    quiet = run_kubesim("run", scenario_file, "-o", "b.json", "-q", "--progress-interval", "1us", cwd=tmp_path,
                        plugins=scheduler)
    assert quiet.returncode == 0 and quiet.stderr == ""
    # the display reads the wall clock: the results must not depend on it
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_live_display_on_a_terminal(scenario_file: Path) -> None:
    doc = json.loads(scenario_file.read_text())
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=200, color_system=None)
    shown: list[ProgressLine] = []
    with RunProgress(console, "live") as display:
        def live(run: Any) -> None:
            display.update(run)
            shown.append(display.last_line) if display.last_line is not None else None

        simulator = Simulator(load_plugins(), EngineOptions(), progress=display.update, live=live, live_interval=0.0)
        [result] = simulator.run([structure(doc, Scenario)])
    assert result.status.phase is not None and result.status.phase.value == "Succeeded"
    during = [s for s in shown if s.step == 1 and 0 < s.bound < PODS - 50]
    assert during and during[-1].pods == PODS
    end = shown[-1]
    assert (end.bound, end.pending, end.unschedulable) == (PODS - 50, 50, 50)
    text = out.getvalue()
    assert "progress: step 1 of 2" in text and "bound" in text and "unschedulable" in text


def test_progress_line_text() -> None:
    line = ProgressLine("s", 3, 10, 20_000, 12_000, 8_000, 40, 45_000, 3_912.4, 185.0)
    assert line.text() == ("s: step 3 of 10 · 20,000 pods: 12,000 bound, 8,000 pending (40 unschedulable) · "
                           "45,000 events · 3,912 events/s · ETA 3m05s")
    assert [format_eta(s) for s in (0.4, 59.6, 3725)] == ["0s", "1m00s", "1h02m"]


def test_rates_over_the_last_window() -> None:
    """Events and attempts per second from the samples of the last RATE_WINDOW seconds, none
    before 0.2 s of samples; a new run starts afresh."""
    rates, run, other = _Rates(), object(), object()
    assert rates.add(run, 10.0, 0, 0) == (None, None)  # type: ignore[arg-type]
    assert rates.add(run, 10.1, 50, 5) == (None, None)  # type: ignore[arg-type]
    assert rates.add(run, 10.5, 200, 20) == (400.0, 40.0)  # type: ignore[arg-type]
    # older samples are dropped but the last one before the window: from 10.5 s (200 events) on
    rates.add(run, 10.0 + RATE_WINDOW + 1, 1000, 100)  # type: ignore[arg-type]
    assert rates.add(run, 10.0 + RATE_WINDOW + 2, 1100, 110) == pytest.approx((900 / 4.5, 90 / 4.5))  # type: ignore[arg-type]
    assert rates.add(other, 20.0, 5, 1) == (None, None)  # type: ignore[arg-type]
