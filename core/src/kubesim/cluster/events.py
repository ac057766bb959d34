"""Watch events and their in-order, re-entrant-safe delivery.

Every committed write queues one event. The queue is drained at the end of the outermost
API call: each event goes to every handler, in subscription order, before the next event.
A handler that writes to the cluster only queues new events, which are delivered after the
current one, so all handlers see the same commit order.

A handler may subscribe to some kinds only (`subscribe(handler, kinds={"Pod"})`): it then gets
only the events of objects of those kinds, as an informer watches one resource, and costs
nothing on the others. The handlers each kind goes to are worked out once per kind (until
someone subscribes or unsubscribes), not per event.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import attrs

__all__ = ["ADDED", "DELETED", "MODIFIED", "EventBus", "WatchEvent", "WatchHandler"]

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"


@attrs.frozen
class WatchEvent:
    """One committed change. The objects are the stored ones: read them, never mutate them."""

    type: str
    object: dict[str, Any]
    old_object: dict[str, Any] | None
    actor: str
    subresource: str | None


WatchHandler = Callable[[WatchEvent], None]


class _Subscription:
    __slots__ = ("active", "handler", "kinds")

    def __init__(self, handler: WatchHandler, kinds: frozenset[str] | None) -> None:
        self.handler = handler
        self.kinds = kinds
        self.active = True


class EventBus:
    """Queues events as writes commit and delivers them when the outermost call flushes."""

    def __init__(self) -> None:
        self._subs: list[_Subscription] = []
        self._routes: dict[Any, tuple[_Subscription, ...]] = {}
        """The subscriptions each kind's events go to, in subscription order (a cache)."""
        self._queue: deque[WatchEvent] = deque()
        self._delivering = False

    def subscribe(self, handler: WatchHandler, kinds: Iterable[str] | None = None) -> Callable[[], None]:
        """Add a handler; the returned function removes it (safe to call more than once).

        `kinds` (object kinds such as "Pod") limits it to events of those kinds; None: every event.
        """
        sub = _Subscription(handler, None if kinds is None else frozenset(kinds))
        self._subs.append(sub)
        self._routes.clear()

        def unsubscribe() -> None:
            if sub.active:
                sub.active = False
                self._subs.remove(sub)
                self._routes.clear()

        return unsubscribe

    def _route(self, kind: Any) -> tuple[_Subscription, ...]:
        """The subscriptions that get events of `kind`, in subscription order."""
        route = self._routes.get(kind)
        if route is None:
            route = self._routes[kind] = tuple(
                s for s in self._subs if s.kinds is None or kind in s.kinds
            )
        return route

    def publish(self, event: WatchEvent) -> None:
        """Queue an event (only when someone listens: events are not kept for later watchers)."""
        if self._subs:
            self._queue.append(event)

    def discard(self) -> None:
        """Drop queued events (used by reset, which must not notify anyone)."""
        self._queue.clear()

    def flush(self) -> None:
        """Deliver queued events unless a delivery is already running further up the stack.

        A handler's exception does not stop the others: the first one is re-raised once the
        queue is empty, so the cluster and every handler stay consistent.
        """
        if self._delivering:
            return
        self._delivering = True
        error: BaseException | None = None
        try:
            queue = self._queue
            while queue:
                event = queue.popleft()
                kind = event.object.get("kind")
                for sub in self._route(kind if type(kind) is str else None):
                    if not sub.active:
                        continue
                    try:
                        sub.handler(event)
                    except Exception as exc:  # noqa: BLE001 - re-raised below
                        if error is None:
                            error = exc
        finally:
            self._delivering = False
        if error is not None:
            raise error
