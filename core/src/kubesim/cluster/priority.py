"""The Priority admission plugin: pod priority from PriorityClasses, and PriorityClass rules.

Follows k8s.io/kubernetes plugin/pkg/admission/priority/admission.go (admitPod,
validatePriorityClass, getDefaultPriorityClass) and pkg/apis/scheduling/v1 defaults and
helpers (the two system classes, preemptionPolicy defaulting).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kubesim.errors import Forbidden

__all__ = [
    "DEFAULT_PREEMPTION_POLICY",
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "SYSTEM_PRIORITY_CLASSES",
    "admit_pod_priority",
    "default_priority_class",
    "validate_priority_class",
]

DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES: dict[str, int] = {
    "system-node-critical": 2_000_001_000,
    "system-cluster-critical": 2_000_000_000,
}
"""Created by kube-apiserver at start-up; known here without being stored as objects."""

ClassLookup = Callable[[str], "dict[str, Any] | None"]


def _forbidden(name: str, message: str) -> Forbidden:
    return Forbidden(f'pods "{name}" is forbidden: {message}')


def class_value(pc: dict[str, Any]) -> int:
    """A PriorityClass's value; null or absent is 0, as Go decodes it into its int32 field."""
    return int(pc.get("value") or 0)


def _global_default(classes: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The globalDefault class; the lowest value wins if several claim it (as upstream)."""
    best: dict[str, Any] | None = None
    for pc in classes:
        if pc.get("globalDefault") and (best is None or class_value(pc) < class_value(best)):
            best = pc
    return best


def admit_pod_priority(
    pod: dict[str, Any], old: dict[str, Any] | None, lookup: ClassLookup, classes: Iterable[dict[str, Any]]
) -> None:
    """Set spec.priority and spec.preemptionPolicy of a pod being created (in place).

    On update the old values are kept when the new object omits them. Raises Forbidden for an
    unknown class or a priority that disagrees with the class.
    """
    spec = pod.get("spec")
    if type(spec) is not dict:
        return
    if old is not None:
        old_spec = old.get("spec") or {}
        for field in ("priority", "preemptionPolicy"):
            if spec.get(field) is None and old_spec.get(field) is not None:
                spec[field] = old_spec[field]
        return
    name = str((pod.get("metadata") or {}).get("name", ""))
    class_name = spec.get("priorityClassName") or ""
    policy: str | None
    if not class_name:
        default = _global_default(classes)
        if default is None:
            priority, policy = 0, DEFAULT_PREEMPTION_POLICY
        else:
            priority = class_value(default)
            policy = default.get("preemptionPolicy") or DEFAULT_PREEMPTION_POLICY
            spec["priorityClassName"] = default["metadata"]["name"]
    else:
        pc = lookup(class_name)
        if pc is not None:
            priority = class_value(pc)
            policy = pc.get("preemptionPolicy") or DEFAULT_PREEMPTION_POLICY
        elif class_name in SYSTEM_PRIORITY_CLASSES:
            priority, policy = SYSTEM_PRIORITY_CLASSES[class_name], DEFAULT_PREEMPTION_POLICY
        else:
            raise _forbidden(name, f"no PriorityClass with name {class_name} was found")
    given = spec.get("priority")
    if given is not None and given != priority:
        raise _forbidden(
            name,
            f"the integer value of priority ({given}) must not be provided in pod spec; "
            f"priority admission controller computed {priority} from the given PriorityClass name",
        )
    spec["priority"] = priority
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and given_policy != policy:
        raise _forbidden(
            name,
            f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod "
            f"spec; priority admission controller computed {policy} from the given PriorityClass name",
        )
    spec["preemptionPolicy"] = policy


def default_priority_class(pc: dict[str, Any]) -> None:
    """SetDefaults_PriorityClass: preemptionPolicy defaults to PreemptLowerPriority (in place)."""
    if not pc.get("preemptionPolicy"):
        pc["preemptionPolicy"] = DEFAULT_PREEMPTION_POLICY


def validate_priority_class(pc: dict[str, Any], classes: Iterable[dict[str, Any]], creating: bool) -> None:
    """Reject a second globalDefault class (Forbidden), as the Priority admission plugin does.

    The class's own fields (value range, system names, preemptionPolicy) are checked by
    kubesim.cluster.validation.scheduling with the other per-kind validation.
    """
    name = str((pc.get("metadata") or {}).get("name", ""))
    if pc.get("globalDefault"):
        default = _global_default(classes)
        if default is not None:
            other = default["metadata"]["name"]
            if creating or other != name:
                raise Forbidden(
                    f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: PriorityClass {other} '
                    "is already marked as default. Only one default can exist"
                )
