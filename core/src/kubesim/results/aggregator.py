"""The Aggregator protocol and the one pass that runs aggregators over a result.

An aggregator is a fold: `initial()` makes its accumulator, `fold(acc, event, state)`
takes every timeline event in order (with `stepEnd` markers after each MajorStep) and
the cluster state right after that event, and `table(acc)` turns the accumulator into
a `Table`. Aggregators hold no per-result state themselves, so one instance serves
any number of results. The built-in tables are aggregators too; plugins add theirs
with the `kubesim_result_aggregators` hook.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from kubesim.api import Scenario
from kubesim.plugins.crash import crash_message
from kubesim.results.events import TimelineEvent, iter_events
from kubesim.results.gcpause import paused_gc
from kubesim.results.state import ClusterState
from kubesim.results.table import Table

__all__ = ["Aggregator", "AggregatorError", "aggregate", "check_aggregator"]

A = TypeVar("A")


@runtime_checkable
class Aggregator(Protocol[A]):
    """A named fold over timeline events that yields a table.

    :ivar name: the table's name (a plugin's hook may register it under another name)
    """

    name: str

    def initial(self) -> A:
        """A fresh accumulator for one result."""
        ...

    def fold(self, acc: A, event: TimelineEvent, state: ClusterState) -> A:
        """Take one event; `state` is the cluster right after it. Return the accumulator."""
        ...

    def table(self, acc: A) -> Table:
        """The table for everything folded into `acc`."""
        ...


class AggregatorError(Exception):
    """An aggregator is malformed or failed on a result; the message names it."""


def check_aggregator(name: str, obj: Any) -> Aggregator[Any]:
    """`obj` if it has initial/fold/table methods, else AggregatorError naming what is missing."""
    missing = [m for m in ("initial", "fold", "table") if not callable(getattr(obj, m, None))]
    if missing:
        raise AggregatorError(f"result aggregator {name!r} ({obj!r}) has no method {', '.join(missing)}")
    return obj  # type: ignore[no-any-return]


def aggregate(result: Scenario, aggregators: Mapping[str, Aggregator[Any]] | Sequence[Aggregator[Any]]) -> dict[str, Table]:
    """Run every aggregator over `result` in one pass; tables by name, in the order given.

    A mapping names the tables by its keys; a sequence by each aggregator's `name`.
    """
    named = list(aggregators.items()) if isinstance(aggregators, Mapping) else [(a.name, a) for a in aggregators]
    checked = [(name, check_aggregator(name, agg)) for name, agg in named]
    with paused_gc():
        return _aggregate(result, checked)


def _aggregate(result: Scenario, checked: list[tuple[str, Aggregator[Any]]]) -> dict[str, Table]:
    state = ClusterState()
    accs: list[Any] = []
    for name, agg in checked:
        accs.append(_call(name, "initial", agg.initial))
    folds = [agg.fold for _, agg in checked]
    for event in iter_events(result, step_ends=True):
        state.apply(event)
        for i, fold in enumerate(folds):
            try:
                accs[i] = fold(accs[i], event, state)
            except Exception as exc:
                what = (f'result aggregator "{checked[i][0]}" (fold, on event {event.id or event.kind} '
                        f"at step {event.step})")
                raise AggregatorError(crash_message(what, exc, type(checked[i][1]).__module__)) from exc
    tables: dict[str, Table] = {}
    for (name, agg), acc in zip(checked, accs):
        table = _call(name, "table", agg.table, acc)
        if not isinstance(table, Table):
            raise AggregatorError(f"result aggregator {name!r} returned {type(table).__name__}, not a Table")
        tables[name] = table
    return tables


def _call(name: str, what: str, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception as exc:
        module = type(getattr(fn, "__self__", fn)).__module__
        raise AggregatorError(crash_message(f'result aggregator "{name}" ({what})', exc, module)) from exc
