"""A Deployment's ReplicaSets: finding the new and old ones, ordering and counting them.

Ports of k8s.io/kubernetes pkg/controller/controller_utils.go (ReplicaSetsByCreationTimestamp,
ReplicaSetsBySizeOlder/Newer, FilterActiveReplicaSets) and
pkg/controller/deployment/util/deployment_util.go (FindNewReplicaSet, FindOldReplicaSets,
Revision, MaxRevision, LastRevision, ReplicaSetsByRevision, the replica count sums).
Sorting functions sort in place, as Go's sort.Sort does on the caller's slice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from functools import cmp_to_key
from typing import Any, TypeVar

from ..podstate import parse_timestamp
from .hashing import equal_ignore_hash

__all__ = [
    "REVISION_ANNOTATION",
    "actual_replica_count",
    "available_replica_count",
    "filter_active",
    "find_new_replicaset",
    "find_old_replicasets",
    "last_revision",
    "max_revision",
    "ready_replica_count",
    "replica_count",
    "revision",
    "sort_by_creation",
    "sort_by_revision",
    "sort_by_size_newer",
    "sort_by_size_older",
    "spec_replicas",
]

REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
_INT = re.compile(r"[+-]?[0-9]+")
_ZERO = datetime(1, 1, 1, tzinfo=timezone.utc)

RS = Mapping[str, Any]
T = TypeVar("T", bound=Mapping[str, Any])


def spec_replicas(obj: RS) -> int:
    """spec.replicas (defaulted objects always have it; 1 when absent)."""
    value = (obj.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


def _status(obj: RS, field: str) -> int:
    return int((obj.get("status") or {}).get(field) or 0)


def _created(rs: RS) -> datetime:
    return parse_timestamp((rs.get("metadata") or {}).get("creationTimestamp")) or _ZERO


def _name(rs: RS) -> str:
    return str((rs.get("metadata") or {}).get("name") or "")


def _by_creation_less(a: RS, b: RS) -> bool:
    ca, cb = _created(a), _created(b)
    if ca == cb:
        return _name(a) < _name(b)
    return ca < cb


def _sort(items: list[T], less: Any) -> None:
    items.sort(key=cmp_to_key(lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0)))


def sort_by_creation(rss: list[T]) -> None:
    """ReplicaSetsByCreationTimestamp: oldest first, ties by name."""
    _sort(rss, _by_creation_less)


def sort_by_size_older(rss: list[T]) -> None:
    """ReplicaSetsBySizeOlder: largest first, equal sizes oldest first."""
    _sort(rss, lambda a, b: _by_creation_less(a, b) if spec_replicas(a) == spec_replicas(b)
          else spec_replicas(a) > spec_replicas(b))


def sort_by_size_newer(rss: list[T]) -> None:
    """ReplicaSetsBySizeNewer: largest first, equal sizes newest first."""
    _sort(rss, lambda a, b: _by_creation_less(b, a) if spec_replicas(a) == spec_replicas(b)
          else spec_replicas(a) > spec_replicas(b))


def revision(obj: RS) -> int:
    """The deployment.kubernetes.io/revision annotation (0 when absent); ValueError when not a number."""
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(REVISION_ANNOTATION)
    if value is None:
        return 0
    text = str(value)
    if not _INT.fullmatch(text):
        raise ValueError(f'strconv.ParseInt: parsing "{text}": invalid syntax')
    return int(text)


def _revision_or_none(obj: RS) -> int | None:
    try:
        return revision(obj)
    except ValueError:
        return None


def sort_by_revision(rss: list[T]) -> None:
    """ReplicaSetsByRevision: lowest revision first; unparsable or equal ones by creation."""

    def less(a: RS, b: RS) -> bool:
        ra, rb = _revision_or_none(a), _revision_or_none(b)
        if ra is None or rb is None or ra == rb:
            return _by_creation_less(a, b)
        return ra < rb

    _sort(rss, less)


def max_revision(rss: Sequence[RS | None]) -> int:
    """MaxRevision: the highest revision among `rss` (unparsable ones skipped)."""
    best = 0
    for rs in rss:
        v = _revision_or_none(rs) if rs is not None else None
        if v is not None and v > best:
            best = v
    return best


def last_revision(rss: Sequence[RS | None]) -> int:
    """LastRevision: the second highest revision."""
    top = second = 0
    for rs in rss:
        v = _revision_or_none(rs) if rs is not None else None
        if v is None:
            continue
        if v >= top:
            second, top = top, v
        elif v > second:
            second = v
    return second


def filter_active(rss: Sequence[T | None]) -> list[T]:
    """FilterActiveReplicaSets: the ones with spec.replicas > 0."""
    return [rs for rs in rss if rs is not None and spec_replicas(rs) > 0]


def find_new_replicaset(deployment: RS, rs_list: list[T]) -> T | None:
    """FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's (sorts rs_list)."""
    sort_by_creation(rs_list)
    template = (deployment.get("spec") or {}).get("template")
    for rs in rs_list:
        if equal_ignore_hash((rs.get("spec") or {}).get("template"), template):
            return rs
    return None


def find_old_replicasets(deployment: RS, rs_list: list[T]) -> tuple[list[T], list[T]]:
    """FindOldReplicaSets: (old ones with replicas, all old ones)."""
    new_rs = find_new_replicaset(deployment, rs_list)
    new_uid = (new_rs.get("metadata") or {}).get("uid") if new_rs is not None else None
    required: list[T] = []
    everything: list[T] = []
    for rs in rs_list:
        if new_rs is not None and (rs.get("metadata") or {}).get("uid") == new_uid:
            continue
        everything.append(rs)
        if spec_replicas(rs) != 0:
            required.append(rs)
    return required, everything


def replica_count(rss: Sequence[RS | None]) -> int:
    """GetReplicaCountForReplicaSets: the sum of spec.replicas."""
    return sum(spec_replicas(rs) for rs in rss if rs is not None)


def actual_replica_count(rss: Sequence[RS | None]) -> int:
    """GetActualReplicaCountForReplicaSets: the sum of status.replicas."""
    return sum(_status(rs, "replicas") for rs in rss if rs is not None)


def ready_replica_count(rss: Sequence[RS | None]) -> int:
    """GetReadyReplicaCountForReplicaSets: the sum of status.readyReplicas."""
    return sum(_status(rs, "readyReplicas") for rs in rss if rs is not None)


def available_replica_count(rss: Sequence[RS | None]) -> int:
    """GetAvailableReplicaCountForReplicaSets: the sum of status.availableReplicas."""
    return sum(_status(rs, "availableReplicas") for rs in rss if rs is not None)
