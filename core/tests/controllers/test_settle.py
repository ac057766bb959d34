"""The settle loop and its bounds (kubesim.controllers.settle), without the engine."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kubesim.controllers import ControllerWaiter, LoopGuard, NotSettled, SettleLimits, settle


class Fake:
    """A controller whose loop is `work()` (True: it did something) and waiter `done()`."""

    def __init__(self, name: str, work: Callable[[], bool], done: Callable[[], bool] = lambda: True) -> None:
        self.name = name
        self.work = work
        self.done = done
        self.loops = 0

    def run_once(self) -> bool:
        self.loops += 1
        return self.work()

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, self.done)


class Cluster:
    """A write counter standing in for the cluster."""

    def __init__(self) -> None:
        self.writes = 0
        self.objects = 0

    def write(self) -> bool:
        self.writes += 1
        return True


def test_controllers_run_round_robin_until_none_has_work() -> None:
    cluster = Cluster()
    todo = {"a": 3, "b": 1}

    def worker(name: str) -> Callable[[], bool]:
        def work() -> bool:
            if todo[name] == 0:
                return False
            todo[name] -= 1
            return cluster.write()
        return work

    a, b = Fake("a", worker("a")), Fake("b", worker("b"))
    settle([a, b], changes=lambda: cluster.writes)
    assert todo == {"a": 0, "b": 0}
    # rounds: both work, a works, a works, nobody works
    assert (a.loops, b.loops) == (4, 4)


def test_an_unsatisfied_waiter_without_work_is_named() -> None:
    idle = Fake("idle", lambda: False, done=lambda: False)
    with pytest.raises(NotSettled) as info:
        settle([idle], changes=lambda: 0)
    assert info.value.controllers == ("idle",)
    assert str(info.value) == ("PreSimulationController 'idle' cannot settle: it has nothing left to do "
                               "but its waiter is not satisfied")
    with pytest.raises(NotSettled, match="'outside' cannot settle"):
        settle([], [ControllerWaiter("outside", lambda: False)], changes=lambda: 0)


def test_loops_without_a_cluster_change_fail_after_the_idle_bound() -> None:
    cluster = Cluster()
    cluster.objects = 5
    spinner = Fake("spinner", lambda: True)
    writes_once = [True]

    def writer() -> bool:  # writes in its first loop only
        return cluster.write() if writes_once and writes_once.pop() else False

    other = Fake("other", writer)
    limits = SettleLimits(idle_loops=10, idle_loops_per_object=2)
    with pytest.raises(NotSettled) as info:
        settle([spinner, other], changes=lambda: cluster.writes, objects=lambda: cluster.objects, limits=limits)
    # the write in the first round starts the count again; then only the spinner has work
    assert str(info.value) == ('step did not settle: controller "spinner" still reports work after 20 loops '
                               "without changing the cluster")
    assert info.value.controllers == ("spinner",)
    assert spinner.loops == 21


def test_every_controller_with_work_since_the_last_change_is_named() -> None:
    a, b = Fake("a", lambda: True), Fake("b", lambda: True)
    guard = LoopGuard(lambda: 0, limits=SettleLimits(idle_loops=4, idle_loops_per_object=0), label="step 2")
    with pytest.raises(NotSettled) as info:
        settle([a, b], changes=lambda: 0, guard=guard)
    assert str(info.value) == ('step 2 did not settle: controllers "a", "b" still report work after 4 loops '
                               "without changing the cluster")


def test_a_step_that_writes_forever_fails_after_the_step_bound() -> None:
    cluster = Cluster()
    cluster.objects = 3
    writer = Fake("writer", cluster.write)
    limits = SettleLimits(step_loops=50, step_loops_per_object=10)
    with pytest.raises(NotSettled) as info:
        settle([writer], changes=lambda: cluster.writes, objects=lambda: cluster.objects, limits=limits)
    assert str(info.value) == 'step did not settle: controller "writer" still changes the cluster after 80 loops in this step'
    assert writer.loops == 80


def test_a_guard_is_shared_by_the_settles_of_one_step() -> None:
    cluster = Cluster()
    guard = LoopGuard(lambda: cluster.writes, limits=SettleLimits(step_loops=5, step_loops_per_object=0))
    budget = [3]

    def work() -> bool:
        if budget[0] == 0:
            return False
        budget[0] -= 1
        return cluster.write()

    settle([Fake("w", work)], changes=lambda: cluster.writes, guard=guard)
    budget[0] = 3
    with pytest.raises(NotSettled, match="after 5 loops in this step"):
        settle([Fake("w", work)], changes=lambda: cluster.writes, guard=guard)


def test_run_wraps_each_loop() -> None:
    seen: list[str] = []
    a = Fake("a", lambda: False)

    def run(controller: Fake) -> bool:  # type: ignore[override]
        seen.append(controller.name)
        return controller.run_once()

    settle([a], changes=lambda: 0, run=run)  # type: ignore[arg-type]
    assert seen == ["a"]


def test_a_cluster_past_the_object_limit_fails_the_step_naming_the_controller() -> None:
    cluster = Cluster()
    guard = LoopGuard(lambda: cluster.writes, objects=lambda: cluster.objects,
                      limits=SettleLimits(max_objects=10), label="step 4")

    def create() -> bool:
        cluster.objects += 1
        return cluster.write()

    with pytest.raises(NotSettled) as info:
        settle([Fake("creator", create)], changes=lambda: cluster.writes, guard=guard)
    assert str(info.value) == ('step 4: the cluster holds more than 10 objects (the limit, --max-objects) '
                               'while controller "creator" still has work')
    assert cluster.objects == 11
