"""The settle loop asks `has_work()` first: a ReconcileController with nothing ready is not run,
one whose delayed key came due is, and a subclass with its own run_once is always run."""

from __future__ import annotations

from collections.abc import Hashable
from datetime import timedelta

import pytest
from kubesim.controllers import NotSettled, ReconcileController, Runtime, settle


class Counting(ReconcileController):
    name = "counting"
    watches = (("v1", "ConfigMap"),)

    def __init__(self, runtime: Runtime) -> None:
        self.runs = 0
        self.done: list[Hashable] = []
        super().__init__(runtime)

    def run_once(self) -> bool:
        self.runs += 1
        return super().run_once()

    def reconcile(self, key: Hashable) -> None:
        self.done.append(key)


class Plain(ReconcileController):
    name = "plain"

    def reconcile(self, key: Hashable) -> None:
        pass


def test_idle_reconcilers_are_not_run_and_due_keys_are() -> None:
    runtime = Runtime.standalone()
    plain = Plain(runtime)
    assert not plain.has_work()
    settle([plain], changes=lambda: 0)
    plain.queue.add_after(("", "later"), runtime.clock.now() + timedelta(seconds=5))
    assert not plain.has_work() and len(plain.queue) == 1
    runtime.clock.advance(timedelta(seconds=5))
    assert plain.has_work()
    settle([plain], changes=lambda: 0)
    assert not plain.has_work() and len(plain.queue) == 0


def test_a_subclass_with_its_own_loop_is_always_asked() -> None:
    runtime = Runtime.standalone()
    counting = Counting(runtime)
    assert counting.has_work()  # its run_once is its own: settle cannot know
    runtime.client("t").create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}})
    settle([counting], changes=lambda: len(counting.done))
    assert counting.done == [("default", "a")]
    assert counting.runs == 2  # the key, then the empty queue


class Gated(Plain):
    name = "gated"
    open = False

    def has_work(self) -> bool:
        return self.open and super().has_work()


def test_the_settle_loop_asks_the_queue_or_an_overriding_has_work() -> None:
    runtime = Runtime.standalone()
    plain, gated = Plain(runtime), Gated(runtime)
    assert plain.work_probe() == plain.queue.has_ready  # nothing overridden: the queue answers
    assert gated.work_probe() == gated.has_work
    gated.queue.add(("", "k"))
    with pytest.raises(NotSettled):  # its own has_work said no: not run, so its waiter does not hold
        settle([gated], changes=lambda: 0)
    assert len(gated.queue) == 1
    gated.open = True
    settle([gated], changes=lambda: 0)
    assert len(gated.queue) == 0
    plain.has_work = lambda: False  # type: ignore[method-assign]  # patched on the instance: honoured
    plain.queue.add(("", "k"))
    with pytest.raises(NotSettled):
        settle([plain], changes=lambda: 0)
    assert len(plain.queue) == 1
