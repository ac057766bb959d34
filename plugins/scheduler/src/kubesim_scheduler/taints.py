"""Taint and toleration matching as in k8s.io/api core/v1 and component-helpers."""

# upstream: staging/src/k8s.io/api/core/v1/toleration.go (ToleratesTaint),
# staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go (FindMatchingUntoleratedTaint)

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "Taint",
    "Toleration",
    "taint_of",
    "toleration_of",
    "tolerates",
    "tolerations_tolerate_taint",
    "find_matching_untolerated_taint",
    "do_not_schedule_taint",
    "TAINT_NODE_UNSCHEDULABLE",
]

# (key, value, effect)
Taint = tuple[str, str, str]
# (key, operator, value, effect)
Toleration = tuple[str, str, str, str]

TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


def taint_of(t: Mapping[str, Any]) -> Taint:
    return (t.get("key") or "", t.get("value") or "", t.get("effect") or "")


def toleration_of(t: Mapping[str, Any]) -> Toleration:
    return (t.get("key") or "", t.get("operator") or "", t.get("value") or "", t.get("effect") or "")


def tolerates(tol: Toleration, taint: Taint) -> bool:
    """Toleration.ToleratesTaint."""
    key, op, value, effect = tol
    if effect and effect != taint[2]:
        return False
    if key and key != taint[0]:
        return False
    if op in ("", "Equal"):
        return value == taint[1]
    return op == "Exists"


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    return any(tolerates(t, taint) for t in tolerations)


def do_not_schedule_taint(taint: Taint) -> bool:
    """helper.DoNotScheduleTaintsFilterFunc: NoSchedule and NoExecute taints."""
    return taint[2] in ("NoSchedule", "NoExecute")


def find_matching_untolerated_taint(
    taints: Sequence[Taint],
    tolerations: Sequence[Toleration],
    inclusion: Callable[[Taint], bool] | None = None,
) -> Taint | None:
    """The first included taint that no toleration tolerates, or None."""
    for taint in taints:
        if inclusion is not None and not inclusion(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None
