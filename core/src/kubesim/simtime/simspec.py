"""The `simSpec` pod annotation of k8s-cluster-simulator: what a pod uses, phase by phase.

A pod may carry a YAML list of phases in its `simSpec` annotation::

    metadata:
      annotations:
        simSpec: |
          - seconds: 5          # the first phase lasts 5 s of simulated time
            resourceUsage: {cpu: 1, memory: 2Gi}
          - seconds: 10         # then this one, 10 s
            resourceUsage: {cpu: 2, memory: 4Gi}

Such a pod runs from its `status.startTime` for the sum of the phases and then succeeds; at
each moment it uses what the current phase says (usage, not requests or limits).

Frozen usage (the pod-migration fork's `FreezeUsage`, and k8s-cluster-simulator's deleted
pods): a pod whose usage is frozen, by the `simtime.kubesim.io/usage-frozen-at` annotation or by
being deleted (terminating), is evaluated at the executed-second it had reached then, from then
on: its usage stays, and it never finishes on its own. `effective_time` gives that moment.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

import attrs
import yaml
from kubesim.clock import parse_time
from kubesim.duplicate_keys import DuplicateKeys, load_json, load_yaml
from kubesim.input_limits import FastSafeLoader, InputLimitError, SafeLoader
from kubesim.k8s.quantity import parse_quantity
from kubesim.simtime.simspec_block import read_block_phases

__all__ = [
    "SIM_SPEC_ANNOTATION",
    "USAGE_ANNOTATION",
    "SimPhase",
    "SimSpec",
    "SimSpecError",
    "deleted_at",
    "effective_time",
    "frozen_at",
    "parse_sim_spec",
    "sim_spec_of",
    "usage_annotation",
    "usage_at",
]

SIM_SPEC_ANNOTATION = "simSpec"
"""The annotation k8s-cluster-simulator reads (not a qualified name, kept for compatibility)."""

USAGE_ANNOTATION = "kubesim.io/usage"
"""Where the kubelet records a running pod's current usage, as compact JSON."""

FROZEN_AT_ANNOTATION = "simtime.kubesim.io/usage-frozen-at"
"""Pod annotation (RFC 3339 simulated time) from which the pod's usage is frozen."""

_PHASE_FIELDS = frozenset({"seconds", "resourceUsage"})


class SimSpecError(ValueError):
    """A simSpec annotation that cannot be used; the message says where and why."""


@attrs.frozen
class SimPhase:
    """One phase: how long it lasts and what the pod uses meanwhile."""

    duration: timedelta
    usage: Mapping[str, str]
    """Quantities as written (numbers turned into their decimal text)."""
    values: Mapping[str, Decimal]
    """The same quantities as exact numbers."""


@attrs.frozen
class SimSpec:
    """A parsed simSpec: its phases in order."""

    phases: tuple[SimPhase, ...]
    ends: tuple[timedelta, ...] = attrs.field(init=False, repr=False, eq=False)
    """Where each phase ends after the start (cumulative), for lookups in O(log n)."""
    memo: dict[Any, Any] = attrs.field(init=False, repr=False, eq=False, factory=dict)
    """What readers derive from a phase and keep (the metrics' usage sum of each phase): a parsed
    spec is shared by every pod with the same annotation and evaluated every tick."""

    def __attrs_post_init__(self) -> None:
        ends, end = [], timedelta(0)
        for phase in self.phases:
            end += phase.duration
            ends.append(end)
        object.__setattr__(self, "ends", tuple(ends))

    @property
    def duration(self) -> timedelta:
        """How long the pod runs: the sum of its phases."""
        return self.ends[-1] if self.ends else timedelta(0)

    def phase_index(self, elapsed: timedelta) -> int | None:
        """The phase running `elapsed` after the start; None before the start or once finished.

        A phase covers [its start, its end); zero-length phases are never current.
        """
        if elapsed < timedelta(0):
            return None
        index = bisect.bisect_right(self.ends, elapsed)  # the first phase ending after `elapsed`
        return index if index < len(self.ends) else None

    def finished(self, elapsed: timedelta) -> bool:
        """Whether the pod has run all its phases `elapsed` after its start.

        A pod runs for at least one instant: one whose phases all last 0 s finishes at the next
        step, not when it starts, as k8s-cluster-simulator's node sees a pod's executed seconds
        reach its total only at its next tick. (Finishing at once would let a ReplicaSet replace
        it within the same instant forever.)
        """
        return elapsed >= self.duration and elapsed > timedelta(0)

    def next_boundary(self, elapsed: timedelta) -> timedelta | None:
        """The next phase boundary strictly after `elapsed` (None when none is left)."""
        index = bisect.bisect_right(self.ends, elapsed)
        return self.ends[index] if index < len(self.ends) else None


def _quantity_text(value: Any) -> str:
    if isinstance(value, bool):
        raise ValueError(f"invalid quantity {value!r}: expected a string or a number")  # noqa: TRY004
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value) if isinstance(value, (int, float)) else value


@lru_cache(maxsize=16384)
def parse_sim_spec(text: str) -> SimSpec:
    """Parse the annotation's YAML; SimSpecError names the phase and field that are wrong.

    Long specs (a replayed trace has hundreds of phases) are read with libyaml when PyYAML has
    it, and a spec written as JSON (valid YAML too) with the JSON parser: 100x faster.
    """
    try:
        data = read_block_phases(text)  # the plain block form of traces, without a YAML parser
        if data is None:
            data = _load(text)
    except (DuplicateKeys, InputLimitError) as exc:
        raise SimSpecError(str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise SimSpecError(f"not valid YAML{where}: {problem}") from None
    if not isinstance(data, list):
        raise SimSpecError(f"must be a YAML list of phases, not {_kind(data)}")
    phases = []
    for i, item in enumerate(data):
        where = f"[{i}]"
        if not isinstance(item, dict):
            raise SimSpecError(f"{where}: a phase must be a mapping with seconds and resourceUsage, not {_kind(item)}")
        unknown = sorted(str(k) for k in item if k not in _PHASE_FIELDS)
        if unknown:
            raise SimSpecError(f"{where}: unknown field {unknown[0]!r} (expected seconds, resourceUsage)")
        if "seconds" not in item:
            raise SimSpecError(f"{where}.seconds: required")
        seconds = item["seconds"]
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise SimSpecError(f"{where}.seconds: must be a number of seconds, not {seconds!r}")
        if seconds < 0 or not math.isfinite(seconds):
            raise SimSpecError(f"{where}.seconds: must be a non-negative number of seconds, not {seconds!r}")
        usage = item.get("resourceUsage") or {}
        if not isinstance(usage, dict):
            raise SimSpecError(f"{where}.resourceUsage: must be a mapping of resource names to quantities")
        texts: dict[str, str] = {}
        values: dict[str, Decimal] = {}
        for name in sorted(usage, key=str):
            q = usage[name]
            path = f"{where}.resourceUsage[{name}]"
            if not isinstance(name, str) or not name:
                raise SimSpecError(f"{path}: resource names must be non-empty strings")
            try:
                value = parse_quantity(_quantity_text(q))
            except ValueError as exc:
                raise SimSpecError(f"{path}: {exc}") from None
            if value < 0:
                raise SimSpecError(f"{path}: must not be negative, got {q!r}")
            texts[name] = _quantity_text(q)
            values[name] = value
        phases.append(SimPhase(timedelta(seconds=seconds), texts, values))
    return SimSpec(tuple(phases))


def _load(text: str) -> Any:
    if text.lstrip().startswith("["):
        try:
            return load_json(text)
        except json.JSONDecodeError:
            pass  # YAML's flow style is wider than JSON: read it as YAML
    if FastSafeLoader is not None:
        try:
            return load_yaml(text, FastSafeLoader)
        except yaml.YAMLError:
            pass  # PyYAML's own parser says where the error is the way kubesim reports it
    return load_yaml(text, SafeLoader)


def sim_spec_of(pod: Mapping[str, Any]) -> SimSpec | None:
    """The pod's parsed simSpec, None when it has none; SimSpecError when it is invalid."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    text = annotations.get(SIM_SPEC_ANNOTATION)
    if text is None:
        return None
    return parse_sim_spec(text)


def _started(pod: Mapping[str, Any]) -> datetime | None:
    start = (pod.get("status") or {}).get("startTime")
    return parse_time(start) if isinstance(start, str) and start else None


def deleted_at(pod: Mapping[str, Any]) -> datetime | None:
    """When a terminating pod was deleted: its deletionTimestamp minus its grace period."""
    meta = pod.get("metadata") or {}
    stamp = meta.get("deletionTimestamp")
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        at = parse_time(stamp)
    except ValueError:
        return None
    grace = meta.get("deletionGracePeriodSeconds")
    if isinstance(grace, int) and not isinstance(grace, bool) and 0 < grace < 10**9:
        at -= timedelta(seconds=grace)
    return at


def frozen_at(pod: Mapping[str, Any]) -> datetime | None:
    """The moment the pod's usage froze: its FROZEN_AT_ANNOTATION or its deletion, the earlier."""
    text = ((pod.get("metadata") or {}).get("annotations") or {}).get(FROZEN_AT_ANNOTATION)
    frozen = None
    if isinstance(text, str) and text:
        try:
            frozen = parse_time(text)
        except ValueError:
            frozen = None
    deleted = deleted_at(pod)
    if frozen is None or (deleted is not None and deleted < frozen):
        return deleted
    return frozen


def effective_time(pod: Mapping[str, Any], t: datetime) -> datetime:
    """The time at which the pod's simSpec is evaluated at `t`: `t`, or the moment it froze."""
    frozen = frozen_at(pod)
    return t if frozen is None or frozen >= t else frozen


def usage_at(pod: Mapping[str, Any], t: datetime) -> dict[str, Decimal]:
    """What `pod` uses at simulated time `t`, by resource name (exact numbers, e.g. cpu 1.5).

    Empty when the pod has no (valid) simSpec, has not started by `t` (no status.startTime,
    or `t` before it), has failed, or has finished all its phases by `t`. A frozen or
    terminating pod uses what it used when it froze (`effective_time`).
    """
    if (pod.get("status") or {}).get("phase") == "Failed":
        return {}
    try:
        spec = sim_spec_of(pod)
    except SimSpecError:
        return {}
    start = _started(pod)
    if spec is None or start is None:
        return {}
    index = spec.phase_index(effective_time(pod, t) - start)
    return {} if index is None else dict(spec.phases[index].values)


def usage_annotation(spec: SimSpec, index: int | None) -> str:
    """The USAGE_ANNOTATION value for a phase (`{}` once the pod has finished)."""
    usage = {} if index is None else spec.phases[index].usage
    return json.dumps(dict(sorted(usage.items())), separators=(",", ":"))


def _kind(value: Any) -> str:
    if value is None:
        return "an empty value"
    return {dict: "a mapping", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
