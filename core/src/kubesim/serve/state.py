"""What `kubesim serve` serves: one embedded cluster, the lock every request takes, who may call.

The cluster is single-threaded code: HTTP handlers and the scenario engine (its own thread)
take `ServerState.lock` around every call into it, so each request is one atomic step of the
cluster, as in the in-process engine. A handler runs on the event loop when the lock is free
(`ServerState.run`), else in starlette's thread pool, counted in `waiting` so that the live
engine gives way to it (API requests first, as an API server never waits for its scheduler).
Code that must wait for outside clients (an outside controller to settle) waits on
`ServerState.changed`, which releases the lock while it waits and is notified after every write.
"""

from __future__ import annotations

import secrets
from contextvars import ContextVar
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

import attrs
from starlette.concurrency import run_in_threadpool

from kubesim.clock import Clock
from kubesim.cluster import Cluster
from kubesim.plugins import Hooks
from kubesim.scenario.crd import SCENARIO_CRD
from kubesim.serve.eventlog import DEFAULT_CAPACITY, EventLog

if TYPE_CHECKING:
    from kubesim.serve.controllers import OutsideControllers

__all__ = ["ADMIN", "WRITER", "Identity", "ServerState"]

T = TypeVar("T")


@attrs.frozen
class Identity:
    """Who sends a request: the user (kubectl, clients) or a named outside controller.

    `actor` is the name its writes carry in the timeline and in watch events.
    """

    name: str
    controller: bool = False

    @property
    def actor(self) -> str:
        return self.name


WRITER: ContextVar[Identity | None] = ContextVar("kubesim_serve_writer", default=None)
"""Who sends the write request being handled (set by the app for POST/PUT/PATCH/DELETE)."""

ADMIN = Identity("user")
"""The identity of requests with the admin token (or none, on loopback without a token)."""


class ServerState:
    """The served cluster, its lock, and the bearer tokens of the user and of outside controllers."""

    def __init__(self, cluster: Cluster, hooks: Hooks | None = None, *, require_token: bool = False,
                 event_log_capacity: int = DEFAULT_CAPACITY) -> None:
        self.cluster = cluster
        self.hooks = hooks
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        """Notified (lock held) after every committed write: waiters wait on it, which releases the lock."""
        self._waiting = 0
        self._waiting_lock = threading.Lock()
        self.last_request = 0.0
        """time.monotonic() of the latest request for the lock (live mode gives way while they come)."""
        cluster.watch(lambda _event: self.changed.notify_all())
        self.event_log = EventLog(int(cluster.resource_version), event_log_capacity)
        """The watch cache: recent events for watches (call event_log.reset(rv) after cluster.reset())."""
        cluster.watch(self.event_log.record)
        self.require_token = require_token
        self.admin_token = secrets.token_hex(16)
        self._tokens: dict[str, Identity] = {self.admin_token: ADMIN}
        self.outside: OutsideControllers | None = None
        """The outside controllers (serve/controllers.py): their writes wait for their turn."""

    @classmethod
    def create(cls, hooks: Hooks | None, *, seed: int = 0, clock: Clock | None = None,
               require_token: bool = False, event_log_capacity: int = DEFAULT_CAPACITY) -> ServerState:
        """A fresh cluster with the Scenario CRD and the installed plugins' CRDs registered."""
        cluster = Cluster(clock or Clock(), seed=seed)
        cluster.registry.register_crd(SCENARIO_CRD)
        if hooks is not None:
            for crd in hooks.custom_resources():
                cluster.registry.register_crd(dict(crd))
        return cls(cluster, hooks, require_token=require_token, event_log_capacity=event_log_capacity)

    # --- identities -------------------------------------------------------------

    def set_admin_token(self, token: str) -> None:
        """Use `token` (e.g. from --token) as the user's bearer token instead of the random one."""
        del self._tokens[self.admin_token]
        self.admin_token = token
        self._tokens[token] = ADMIN

    def add_controller(self, name: str) -> str:
        """Register an outside controller `name`; returns its bearer token."""
        for token, who in self._tokens.items():
            if who.controller and who.name == name:
                return token
        token = secrets.token_hex(16)
        self._tokens[token] = Identity(name, controller=True)
        return token

    def identify(self, token: str | None) -> Identity | None:
        """The identity a bearer token stands for; ADMIN for no token when none is required; None: refused."""
        if token is None:
            return None if self.require_token else ADMIN
        return self._tokens.get(token)

    def controllers(self) -> list[Identity]:
        """The outside controllers registered, in registration order."""
        return [who for who in self._tokens.values() if who.controller]

    # --- cluster access ----------------------------------------------------------

    @contextmanager
    def locked(self) -> Iterator[Cluster]:
        """The cluster, held for the duration of the block.

        In a write request of an outside controller (WRITER), first waits for its turn
        (serve/controllers.py), in the same hold of the lock as the write.
        """
        with self.lock:
            who = WRITER.get()
            if who is not None and who.controller and self.outside is not None:
                self.outside.gate(who)
            yield self.cluster

    def reset_cluster(self) -> None:
        """Empty the cluster (cluster.reset()) and end every open watch with 410 (they relist)."""
        with self.lock:
            self.cluster.reset()
            self.event_log.reset(int(self.cluster.resource_version))

    @property
    def waiting(self) -> int:
        """How many requests wait in the thread pool for the lock."""
        return self._waiting

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """`fn(*args)` with the lock held: on the event loop if the lock is free and the caller is
        no outside controller (whose write may wait for its turn), else in a worker thread.

        Most requests take a few hundred microseconds; two thread handoffs per request cost about
        as much again.
        """
        self.last_request = time.monotonic()
        who = WRITER.get()
        if (who is None or not who.controller) and self.lock.acquire(blocking=False):
            try:
                return fn(*args)
            finally:
                self.lock.release()
        return await run_in_threadpool(self._wait_and_call, fn, *args)

    def _wait_and_call(self, fn: Callable[..., T], *args: object) -> T:
        with self._waiting_lock:
            self._waiting += 1
        try:
            self.lock.acquire()
        finally:
            with self._waiting_lock:
                self._waiting -= 1
        try:
            return fn(*args)
        finally:
            self.lock.release()

    def call(self, fn: Callable[[Cluster], T]) -> T:
        """Run `fn(cluster)` under the lock."""
        with self.lock:
            return fn(self.cluster)
