"""Rollout arithmetic: maxSurge/maxUnavailable, new ReplicaSet sizes, proportions, progress.

Ports of k8s.io/kubernetes pkg/controller/deployment/util/deployment_util.go:
ResolveFenceposts, MaxUnavailable, MinAvailable, MaxSurge, NewRSNewReplicas, GetProportion,
getReplicaSetFraction, IsSaturated, DeploymentComplete, DeploymentProgressing,
DeploymentTimedOut, HasProgressDeadline, HasRevisionHistoryLimit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from kubesim.k8s.intorpercent import scaled_value

from ..podstate import parse_timestamp
from .annotations import DESIRED_REPLICAS_ANNOTATION, max_replicas_annotation
from .conditions import NEW_RS_AVAILABLE_REASON, PROGRESSING, TIMED_OUT_REASON, get_condition
from .replicasets import replica_count, spec_replicas

__all__ = [
    "MAX_INT32",
    "deployment_complete",
    "deployment_progressing",
    "deployment_timed_out",
    "get_proportion",
    "has_progress_deadline",
    "has_revision_history_limit",
    "is_rolling_update",
    "is_saturated",
    "max_surge",
    "max_unavailable",
    "min_available",
    "new_rs_new_replicas",
    "progress_deadline",
    "resolve_fenceposts",
]

MAX_INT32 = 2**31 - 1

Obj = Mapping[str, Any]


def _spec(d: Obj) -> Mapping[str, Any]:
    return d.get("spec") or {}


def _rolling(d: Obj) -> Mapping[str, Any]:
    return (_spec(d).get("strategy") or {}).get("rollingUpdate") or {}


def is_rolling_update(d: Obj) -> bool:
    """The strategy type is RollingUpdate."""
    return (_spec(d).get("strategy") or {}).get("type") == "RollingUpdate"


def resolve_fenceposts(surge: Any, unavailable: Any, desired: int) -> tuple[int, int]:
    """ResolveFenceposts: surge rounded up, unavailability down; both 0 means unavailability 1.

    Nil values count as 0; invalid ones raise IntOrPercentError.
    """
    s = scaled_value(0 if surge is None else surge, desired, True)
    u = scaled_value(0 if unavailable is None else unavailable, desired, False)
    if s == 0 and u == 0:
        u = 1
    return s, u


def max_unavailable(d: Obj) -> int:
    """MaxUnavailable: at most spec.replicas; 0 for Recreate or zero replicas."""
    replicas = spec_replicas(d)
    if not is_rolling_update(d) or replicas == 0:
        return 0
    r = _rolling(d)
    _, u = resolve_fenceposts(r.get("maxSurge"), r.get("maxUnavailable"), replicas)
    return min(u, replicas)


def min_available(d: Obj) -> int:
    """MinAvailable: spec.replicas - MaxUnavailable for RollingUpdate, else 0."""
    return spec_replicas(d) - max_unavailable(d) if is_rolling_update(d) else 0


def max_surge(d: Obj) -> int:
    """MaxSurge: 0 unless RollingUpdate."""
    if not is_rolling_update(d):
        return 0
    r = _rolling(d)
    s, _ = resolve_fenceposts(r.get("maxSurge"), r.get("maxUnavailable"), spec_replicas(d))
    return s


def new_rs_new_replicas(d: Obj, all_rss: Sequence[Obj | None], new_rs: Obj) -> int:
    """NewRSNewReplicas: how big the new ReplicaSet may be now."""
    kind = (_spec(d).get("strategy") or {}).get("type")
    replicas = spec_replicas(d)
    if kind == "RollingUpdate":
        surge = scaled_value(_rolling(d).get("maxSurge"), replicas, True)
        current = replica_count(all_rss)
        max_total = replicas + surge
        if current >= max_total:
            return spec_replicas(new_rs)
        scale_up = min(max_total - current, replicas - spec_replicas(new_rs))
        return spec_replicas(new_rs) + scale_up
    if kind == "Recreate":
        return replicas
    raise ValueError(f"deployment type {kind} isn't supported")


def _round_half_away(x: float) -> int:
    """integer.RoundToInt32: math.Round (halves away from zero)."""
    a = abs(x)
    r = math.floor(a)
    if a - r >= 0.5:
        r += 1
    return int(r) if x >= 0 else -int(r)


def _rs_fraction(rs: Obj, d: Obj) -> int:
    """getReplicaSetFraction."""
    if spec_replicas(d) == 0:
        return -spec_replicas(rs)
    deployment_replicas = spec_replicas(d) + max_surge(d)
    annotated, ok = max_replicas_annotation(rs)
    if not ok:
        annotated = int((d.get("status") or {}).get("replicas") or 0)
    if annotated <= 0:  # upstream divides by zero here ("should never happen"); stay put instead
        return 0
    new_size = float(spec_replicas(rs) * deployment_replicas) / float(annotated)
    return _round_half_away(new_size) - spec_replicas(rs)


def get_proportion(rs: Obj | None, d: Obj, to_add: int, added: int) -> int:
    """GetProportion: this ReplicaSet's share of the replicas to add (or remove)."""
    if rs is None or spec_replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _rs_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def is_saturated(d: Obj, rs: Obj | None) -> bool:
    """IsSaturated: the ReplicaSet holds all desired replicas, as both sides agree, all available."""
    if rs is None:
        return False
    desired = ((rs.get("metadata") or {}).get("annotations") or {}).get(DESIRED_REPLICAS_ANNOTATION)
    try:
        desired_int = int(str(desired))
    except ValueError:
        return False
    replicas = spec_replicas(d)
    return (spec_replicas(rs) == replicas and desired_int == replicas
            and int((rs.get("status") or {}).get("availableReplicas") or 0) == replicas)


def _st(status: Mapping[str, Any], field: str) -> int:
    return int(status.get(field) or 0)


def deployment_complete(d: Obj, status: Mapping[str, Any]) -> bool:
    """DeploymentComplete: all desired replicas updated and available, no old ones, generation observed."""
    replicas = spec_replicas(d)
    return (_st(status, "updatedReplicas") == replicas and _st(status, "replicas") == replicas
            and _st(status, "availableReplicas") == replicas
            and _st(status, "observedGeneration") >= int((d.get("metadata") or {}).get("generation") or 0))


def deployment_progressing(d: Obj, status: Mapping[str, Any]) -> bool:
    """DeploymentProgressing: more updated, fewer old, more ready or more available replicas."""
    old = d.get("status") or {}
    old_old = _st(old, "replicas") - _st(old, "updatedReplicas")
    new_old = _st(status, "replicas") - _st(status, "updatedReplicas")
    return (_st(status, "updatedReplicas") > _st(old, "updatedReplicas") or new_old < old_old
            or _st(status, "readyReplicas") > _st(old, "readyReplicas")
            or _st(status, "availableReplicas") > _st(old, "availableReplicas"))


def has_progress_deadline(d: Obj) -> bool:
    """HasProgressDeadline: progressDeadlineSeconds set and not MaxInt32."""
    value = _spec(d).get("progressDeadlineSeconds")
    return value is not None and int(value) != MAX_INT32


def has_revision_history_limit(d: Obj) -> bool:
    """HasRevisionHistoryLimit: revisionHistoryLimit set and not MaxInt32."""
    value = _spec(d).get("revisionHistoryLimit")
    return value is not None and int(value) != MAX_INT32


def progress_deadline(d: Obj, status: Mapping[str, Any]) -> datetime | None:
    """When the Progressing condition's last update plus progressDeadlineSeconds runs out."""
    if not has_progress_deadline(d):
        return None
    condition = get_condition(status, PROGRESSING)
    if condition is None:
        return None
    since = parse_timestamp(condition.get("lastUpdateTime"))
    if since is None:
        return None
    return since + timedelta(seconds=int(_spec(d)["progressDeadlineSeconds"]))


def deployment_timed_out(d: Obj, status: Mapping[str, Any], now: datetime) -> bool:
    """DeploymentTimedOut: no progress reported within progressDeadlineSeconds."""
    if not has_progress_deadline(d):
        return False
    condition = get_condition(status, PROGRESSING)
    if condition is None:
        return False
    if condition.get("reason") == NEW_RS_AVAILABLE_REASON:
        return False
    if condition.get("reason") == TIMED_OUT_REASON:
        return True
    deadline = progress_deadline(d, status)
    return deadline is not None and deadline < now
