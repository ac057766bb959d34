"""The engine's simulated-time part: submitters each tick, metrics each metricsTick, the end of work.

The scenario engine (`kubesim.scenario.engine`) calls it at three points of every MajorStep
(a tick): `submit` after the step's operations (before the scheduler), `step_ended` once the
step is over (metrics), and `finished` to decide whether to go on past the last operation.
The loop follows k8s-cluster-simulator's `KubeSim.Run` (pkg/kubesim.go): submitters get the
metrics built at the end of the previous tick; metrics are written when more than metricsTick
has passed since the last write; the run ends when no pod is pending, running or terminating
and every submitter has terminated.
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections.abc import Mapping
from datetime import timedelta
from typing import IO, TYPE_CHECKING, Any

import structlog

from kubesim.errors import ApiError, NotFound
from kubesim.plugins.crash import PluginCrashed, crash_message
from kubesim.simtime.formats import formatter
from kubesim.simtime.metrics import collect
from kubesim.simtime.options import DEFAULT_MAX_TICKS, SimTimeOptions
from kubesim.simtime.simspec import FROZEN_AT_ANNOTATION
from kubesim.simtime.submitters import (
    DeleteEvent,
    FreezeUsageEvent,
    SubmitEvent,
    Submitter,
    TerminateSubmitterEvent,
    Tick,
    UpdateEvent,
)

if TYPE_CHECKING:
    from kubesim.controllers import Runtime
    from kubesim.plugins import Hooks

__all__ = ["SimTimeDriver", "SimTimeError", "submitter_rng"]

log = structlog.get_logger()


class SimTimeError(Exception):
    """Ends the scenario as Failed with this message (a submitter's bad event, too many ticks)."""


def submitter_rng(seed: int, name: str) -> random.Random:
    """The random numbers of one submitter: seeded from --seed and its name, stable across runs."""
    digest = hashlib.sha256(f"{seed}\0{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _open(dest: str) -> tuple[IO[str], bool]:
    """The stream of a metrics destination and whether kubesim opened it (k8s-cluster-simulator's rule)."""
    if dest in ("/dev/stdout", "-") or dest.lower() == "stdout":
        return sys.stdout, False
    if dest == "/dev/stderr" or dest.lower() == "stderr":
        return sys.stderr, False
    return open(dest, "a", encoding="utf-8"), True  # noqa: SIM115 - closed in close(); the command truncated it


class SimTimeDriver:
    """Submitters, metrics and the end of work for one scenario run in simulated time."""

    def __init__(self, runtime: Runtime, hooks: Hooks, options: SimTimeOptions, tick: timedelta) -> None:
        self.runtime = runtime
        self.options = options
        self.tick = tick
        self.metrics_tick = options.metrics_tick or tick
        self.max_ticks = options.max_ticks or DEFAULT_MAX_TICKS
        self.start = runtime.clock.now()
        self.deadline = options.until.deadline(self.start) if options.until is not None else None
        self.records: list[dict[str, Any]] = []
        """Every written metrics record (also kept for the scenario result)."""
        self.last: dict[str, Any] | None = None
        self._last_written = self.start
        self._ticks = 0
        try:
            submitters = hooks.submitters(runtime)
        except PluginCrashed:
            raise
        except Exception as exc:
            raise SimTimeError(crash_message("kubesim_submitters hook", exc)) from exc
        for s in submitters:
            if not isinstance(s, Submitter):
                raise SimTimeError(f"kubesim_submitters returned {s!r}, which has no name and submit(tick)")
        self.submitters: dict[str, Submitter] = {s.name: s for s in submitters}
        self.ever_submitters = bool(self.submitters)
        self._rngs = {name: submitter_rng(runtime.seed, name) for name in self.submitters}
        self._streams: list[tuple[IO[str], bool, Any]] = []
        for sink in options.metrics:
            stream, owned = _open(sink.dest)
            self._streams.append((stream, owned, formatter(sink.format)))

    # --- submitters -------------------------------------------------------------

    def submit(self, step: int) -> bool:
        """Call every live submitter (sorted by name) and apply its events; True when something was written."""
        if not self.submitters:
            return False
        reader = self.runtime.reader
        nodes = reader.list("v1", "Node")
        pods = reader.list("v1", "Pod")
        wrote = False
        for name in sorted(self.submitters):
            submitter = self.submitters[name]
            tick = Tick(clock=self.runtime.clock.now(), step=step, nodes=nodes, pods=pods,
                        metrics=self.last, rng=self._rngs[name])
            try:
                events = list(submitter.submit(tick) or ())
            except (PluginCrashed, SimTimeError):
                raise
            except Exception as exc:
                raise SimTimeError(crash_message(f'submitter "{name}"', exc, type(submitter).__module__)) from exc
            for i, event in enumerate(events):
                if isinstance(event, TerminateSubmitterEvent):
                    log.debug("submitter terminated", submitter=name, step=step)
                    del self.submitters[name]
                    break
                wrote = self._apply(name, i, event) or wrote
        return wrote

    def _apply(self, name: str, index: int, event: Any) -> bool:
        client = self.runtime.client(f"submitter:{name}")
        where = f'submitter "{name}": event {index} ({type(event).__name__})'
        try:
            if isinstance(event, SubmitEvent):
                pod = _pod_object(event.pod, where)
                client.create(pod)
            elif isinstance(event, DeleteEvent):
                try:
                    client.delete("v1", "Pod", event.name, event.namespace)
                except NotFound:  # k8s-cluster-simulator ignores a delete of an unknown pod too
                    log.warning("submitter deleted an unknown pod", submitter=name,
                                pod=f"{event.namespace}/{event.name}")
                    return False
            elif isinstance(event, UpdateEvent):
                current = client.get("v1", "Pod", event.name, event.namespace)
                if (current.get("spec") or {}).get("nodeName"):
                    raise SimTimeError(f"{where}: pod {event.namespace}/{event.name} is bound to a node; "
                                       "only pending pods can be updated")
                # the API forbids changing a pod's spec: the pending pod is replaced (it has no node to leave)
                pod = _pod_object(event.new_pod, where)
                client.delete("v1", "Pod", event.name, event.namespace, grace_period_seconds=0)
                client.create(pod)
            elif isinstance(event, FreezeUsageEvent):
                try:
                    current = client.get("v1", "Pod", event.name, event.namespace)
                except NotFound:  # it finished (and went) in the meantime
                    log.warning("submitter froze an unknown pod", submitter=name,
                                pod=f"{event.namespace}/{event.name}")
                    return False
                annotations = current["metadata"].setdefault("annotations", {})
                if FROZEN_AT_ANNOTATION in annotations:
                    return False
                annotations[FROZEN_AT_ANNOTATION] = self.runtime.clock.timestamp()
                client.update(current)
            else:
                raise SimTimeError(f"{where}: not a submitter event (expected SubmitEvent, DeleteEvent, "
                                   "UpdateEvent, FreezeUsageEvent or TerminateSubmitterEvent)")
        except ApiError as exc:
            raise SimTimeError(f"{where}: {exc.message}") from exc
        return True

    # --- metrics ----------------------------------------------------------------

    def step_ended(self) -> None:
        """Build this tick's metrics; write them when more than metricsTick has passed since the last write."""
        now = self.runtime.clock.now()
        self._ticks += 1
        if not self.submitters and now - self._last_written <= self.metrics_tick:
            self.last = None  # neither written nor read by a submitter: not built
            return
        record = collect(self.runtime.reader, now, tz=self.options.zone or self.start.tzinfo)
        self.last = record
        if now - self._last_written > self.metrics_tick:
            self._last_written = now
            self.records.append(record)
            for stream, _, fmt in self._streams:
                try:
                    stream.write(fmt(record) + "\n")
                except OSError as exc:  # a full disk, a closed pipe (| head)
                    raise SimTimeError(f"metrics: cannot write {getattr(stream, 'name', '')}: "
                                       f"{exc.strerror or exc}") from exc

    def close(self) -> None:
        """Flush and close the metrics files kubesim opened."""
        for stream, owned, _ in self._streams:
            try:
                if owned:
                    stream.close()
                else:
                    stream.flush()
            except OSError:
                pass  # reported by the write that failed
        self._streams = []

    # --- the end of work --------------------------------------------------------

    def finished(self, step: int, operations_left: bool) -> str | None:
        """Why the run ends after `step` (None to go on); SimTimeError past the tick limit."""
        now = self.runtime.clock.now()
        if self.options.until is not None and self.options.until.step is not None and step >= self.options.until.step:
            return f"reached step {self.options.until.step} (--until)"
        if self.deadline is not None and now + self.tick > self.deadline:
            return f"reached {self.deadline.isoformat()} (--until)"
        work = "operations for later steps" if operations_left else self.work_left()
        if work is None:
            return "no work left: no pod pending, running or terminating, every submitter terminated"
        if self._ticks >= self.max_ticks:
            raise SimTimeError(f"simulated time: work left after {self._ticks} ticks ({work}); stop earlier "
                               "with --until, or allow more with --max-ticks")
        return None

    def work_left(self) -> str | None:
        """What keeps the run going (None when nothing does)."""
        if self.submitters:
            return f"submitters running: {', '.join(sorted(self.submitters))}"
        pending = running = terminating = 0
        for pod in self.runtime.reader.list("v1", "Pod"):
            meta, status = pod.get("metadata") or {}, pod.get("status") or {}
            if status.get("phase") in ("Succeeded", "Failed"):
                continue
            if meta.get("deletionTimestamp"):
                terminating += 1
            elif not (pod.get("spec") or {}).get("nodeName"):
                pending += 1
            elif "simSpec" in (meta.get("annotations") or {}):
                running += 1  # pods without a simSpec run forever: they do not keep the run going
        if pending or running or terminating:
            return f"{pending} pending, {running} running and {terminating} terminating pods"
        return None


def _pod_object(pod: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A submitted pod as an object to write: apiVersion/kind and the default namespace filled in."""
    if not isinstance(pod, Mapping):
        raise SimTimeError(f"{where}: the pod must be a mapping (a Pod object), got {type(pod).__name__}")
    from kubesim.cluster import copy_tree

    obj = copy_tree(dict(pod))
    obj.setdefault("apiVersion", "v1")
    obj.setdefault("kind", "Pod")
    if (obj["apiVersion"], obj["kind"]) != ("v1", "Pod"):
        raise SimTimeError(f"{where}: submitters submit pods (apiVersion v1, kind Pod), "
                           f"got {obj['apiVersion']} {obj['kind']}")
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise SimTimeError(f"{where}: metadata must be a mapping")
    meta.setdefault("namespace", "default")
    return obj

