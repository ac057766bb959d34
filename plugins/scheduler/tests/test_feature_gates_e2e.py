"""--feature-gates on the installed `kubesim`: a gate changes where a pod goes, bad gates are
invalid input naming the gate (exit 2), and the scheduler reads the gates it models."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from kubesim_cli import run_kubesim
from kubesim_scheduler import Scheduler
from kubesim_scheduler.plugins.defaultpreemption import DefaultPreemption

SCENARIO = Path(__file__).parent / "data" / "feature_gates" / "match-label-keys.yaml"


def _node_of(cluster: Path, pod: str) -> str | None:
    for doc in yaml.safe_load_all(cluster.read_text()):
        for obj in (doc or {}).get("items") or [doc or {}]:
            if obj.get("kind") == "Pod" and obj["metadata"]["name"] == pod:
                return obj["spec"].get("nodeName")  # type: ignore[no-any-return]
    raise AssertionError(f"no pod {pod} in {cluster}")


def test_match_label_keys_gate_changes_the_placement(tmp_path: Path) -> None:
    shutil.copy(SCENARIO, tmp_path / "s.yaml")
    on = run_kubesim("run", "s.yaml", "-q", "--export-cluster", "on.yaml", cwd=tmp_path)
    assert on.returncode == 0, on.stderr
    off = run_kubesim("run", "s.yaml", "-q", "--export-cluster", "off.yaml",
                      "--feature-gates", "MatchLabelKeysInPodTopologySpread=false", cwd=tmp_path)
    assert off.returncode == 0, off.stderr
    assert (_node_of(tmp_path / "on.yaml", "web-v2"), _node_of(tmp_path / "off.yaml", "web-v2")) == ("big", "small")


def test_bad_gates_are_invalid_input(tmp_path: Path) -> None:
    shutil.copy(SCENARIO, tmp_path / "s.yaml")
    unknown = run_kubesim("run", "s.yaml", "-o", "out.json", "--feature-gates", "SchedulerMagic=true", cwd=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("error: --feature-gates: unrecognized feature gate: SchedulerMagic")
    assert not (tmp_path / "out.json").exists()
    locked = run_kubesim("validate", "s.yaml", "--feature-gates", "SchedulerQueueingHints=false", cwd=tmp_path)
    assert locked.returncode == 2
    assert locked.stderr.strip() == (
        "error: --feature-gates: cannot set feature gate SchedulerQueueingHints to false, feature is locked to true"
    )


def test_scheduler_reads_its_gates() -> None:
    default, off = Scheduler([]), Scheduler([], feature_gates={
        "SchedulerPopFromBackoffQ": False, "SchedulerAsyncPreemption": False, "MatchLabelKeysInPodTopologySpread": False})
    assert default.queue.pop_from_backoff and not off.queue.pop_from_backoff
    for s, want in ((default, True), (off, False)):
        fw = s.frameworks["default-scheduler"]
        preemption = fw.plugins["DefaultPreemption"]
        assert isinstance(preemption, DefaultPreemption) and preemption.async_preemption is want
        assert fw.plugins["PodTopologySpread"].match_label_keys is want  # type: ignore[attr-defined]
    assert default.handle.feature("DynamicResourceAllocation")  # GA and on in v1.34
