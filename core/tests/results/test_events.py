"""The timeline iterator: order, kinds, step ends, targets."""

from __future__ import annotations

import attrs
from kubesim.api import Scenario, ScenarioStep
from kubesim.results import iter_events, step_range
from kubesim.results.events import DENSE_STEP_LIMIT


def test_order_kinds_and_indexes(small_result: Scenario) -> None:
    events = list(iter_events(small_result))
    assert [(e.index, e.kind, e.id) for e in events] == [
        (0, "create", "n1"), (1, "create", "n2"),
        (2, "create", "p1"), (3, "create", "p2"), (4, "podScheduled", "event-1"),
        (5, "podUnscheduled", "event-2"), (6, "podUnscheduled", "event-3"),
        (7, "create", "n3"), (8, "podScheduled", "event-4"), (9, "patch", "event-5"),
        (10, "patch", "cordon"), (11, "create", "p3"), (12, "podPreempted", "event-6"), (13, "delete", "event-7"),
        (14, "done", "done"),
    ]
    assert events[4].step == ScenarioStep(1, 1) and events[4].actor == "scheduler"


def test_step_ends_cover_every_step_even_empty_ones(small_result: Scenario) -> None:
    assert step_range(small_result) == range(0, 6)
    events = list(iter_events(small_result, step_ends=True))
    ends = [(e.index, e.step.major, e.step.minor) for e in events if e.kind == "stepEnd"]
    # after the last event of each step (its minor), step 4 has no event
    assert ends == [(2, 0, 0), (7, 1, 1), (10, 2, 1), (14, 3, 1), (14, 4, 0), (15, 5, 0)]
    assert all(e.event is None and e.object is None and e.id is None for e in events if e.kind == "stepEnd")
    # a marker follows its step's events and comes before the next step's
    majors = [e.step.major for e in events]
    assert majors == sorted(majors)


def test_a_sparse_result_gets_step_ends_only_where_something_happened(small_result: Scenario) -> None:
    """A scenario done at step 10**9 (idle steps are skipped) must not yield 10**9 markers."""
    result = small_result  # a fresh one per test
    assert result.status.scenario_result is not None
    timeline = dict(result.status.scenario_result.timeline)
    timeline[str(10**9)] = timeline.pop("5")
    result.status.scenario_result = attrs.evolve(result.status.scenario_result, timeline=timeline)
    result.status.step_status.step = ScenarioStep(10**9, 0)
    assert len(step_range(result)) > DENSE_STEP_LIMIT
    ends = [e.step.major for e in iter_events(result, step_ends=True) if e.kind == "stepEnd"]
    assert ends == [0, 1, 2, 3, 10**9]  # step 4 had no event: no marker in a sparse result


def test_kind_filter(small_result: Scenario) -> None:
    assert [e.id for e in iter_events(small_result, kinds={"podScheduled", "delete"})] == [
        "event-1", "event-4", "event-7"]
    assert [e.kind for e in iter_events(small_result, kinds={"done"}, step_ends=True)].count("stepEnd") == 6


def test_targets_objects_and_pod_results(small_result: Scenario) -> None:
    events = {e.id: e for e in iter_events(small_result)}
    assert events["event-7"].target == ("v1", "Pod", "default", "p1")
    assert events["event-7"].object is None and events["event-7"].pod_result is None
    assert events["cordon"].target == ("v1", "Node", None, "n2")
    assert events["cordon"].object is not None and events["cordon"].object["spec"] == {"unschedulable": True}
    sched = events["event-4"]
    assert sched.pod_result is not None and sched.pod_result.bound_to == "n3"
    assert sched.object is sched.pod_result.pod and sched.target == ("v1", "Pod", "default", "p2")
    assert sched.is_kind("v1", "Pod") and not sched.is_kind("v1", "Node")
    assert events["n1"].is_kind("v1", "Node") and events["done"].target == ("", "", None, "")


def test_no_result_or_an_empty_timeline() -> None:
    from kubesim.api import ScenarioResult

    assert list(iter_events(Scenario(), step_ends=True)) == []
    ran = Scenario()
    ran.status.scenario_result = ScenarioResult()
    ran.status.step_status.step = ScenarioStep(1, 0)
    assert [(e.kind, e.step.major) for e in iter_events(ran, step_ends=True)] == [("stepEnd", 0), ("stepEnd", 1)]
