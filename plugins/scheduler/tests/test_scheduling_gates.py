"""SchedulingGates, ported from upstream's scheduling_gates_test.go tables."""

# upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates_test.go

from __future__ import annotations

import pytest
from scheduler_harness import PluginHarness, make_pod

from kubesim_scheduler.framework import Code, QueueingHint, Status
from kubesim_scheduler.plugins.schedulinggates import _gates_removed

CASES = [
    ("pod does not carry scheduling gates", make_pod("p"), None),
    ("pod carries scheduling gates", make_pod("p", gates=["foo", "bar"]),
     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [foo bar]")),
]


@pytest.mark.parametrize("name,pod,want", CASES, ids=[c[0] for c in CASES])
def test_pre_enqueue(name, pod, want):  # type: ignore[no-untyped-def]
    pl = PluginHarness("SchedulingGates").fw.plugin("SchedulingGates")
    assert pl.pre_enqueue(pod) == want  # type: ignore[union-attr]


def test_is_schedulable_after_update_target_pod_scheduling_gates_eliminated() -> None:
    pod = make_pod("p", gates=["foo"])
    old = {**pod}
    new = {**make_pod("p"), "metadata": dict(pod["metadata"])}
    assert _gates_removed(pod, old, new) == QueueingHint.QUEUE
