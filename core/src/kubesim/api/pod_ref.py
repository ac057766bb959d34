"""The compact form of repeated podUnscheduled events in a result file: `podRef` instead of `pod`.

A pod that waits for a node is retried at every tick of a simulated-time run, and each failed
attempt is a podUnscheduled event. While the pod does not change, the event written after the
first one names it instead of carrying it again::

    "podUnscheduled": {"podRef": {"name": "job-1", "namespace": "default", "uid": "...",
                                  "resourceVersion": "42"}, "createdAt": ..., "scheduleResult": [...]}

The reference is to the pod of the latest earlier podUnscheduled event of the same pod (by
namespace and name), which has that uid and resourceVersion. Readers resolve it when they load a
result (`resolve_pod_refs`), so they see the whole pod either way; results written before the
compact form (every event with its `pod`) read as they always did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from kubesim.errors import InvalidInput, Problem

__all__ = ["POD_REF", "REF_FIELDS", "expand_pod_refs", "resolve_pod_refs", "with_pod_ref"]

POD_REF = "podRef"
"""The field of a podUnscheduled event that names its pod instead of holding it."""

REF_FIELDS = ("name", "namespace", "uid", "resourceVersion")
"""What a podRef holds: the pod's identity and version (all strings)."""

_EVENT = "podUnscheduled"


def with_pod_ref(pod_result: Mapping[str, Any], ref: dict[str, str] | None = None) -> dict[str, Any]:
    """The JSON of a PodResult with its `pod` replaced by a `podRef` in the same place
    (`ref`: the podRef of that pod made before, to share)."""
    out: dict[str, Any] = {}
    for key, value in pod_result.items():
        if key == "pod":
            meta = value.get("metadata") or {}
            out[POD_REF] = ref if ref is not None else {f: str(meta.get(f) or "") for f in REF_FIELDS}
        else:
            out[key] = value
    return out


def _step_keys(timeline: Mapping[Any, Any]) -> list[Any]:
    """The timeline's keys in step order (keys that are no MajorStep last: the loader reports them)."""
    def order(key: Any) -> tuple[int, int, str]:
        text = str(key)
        return (0, int(text), "") if text.isdigit() and len(text) <= 10 else (1, 0, text)
    return sorted(timeline, key=order)


def resolve_pod_refs(doc: Any) -> list[tuple[str, str]]:
    """Replace every podRef of a result document (JSON data) by the pod it names, in place.

    :returns: (field path, message) of the references that name no earlier pod or are malformed
        (those are left as they are)
    """
    status = doc.get("status") if isinstance(doc, dict) else None
    result = status.get("scenarioResult") if isinstance(status, dict) else None
    timeline = result.get("timeline") if isinstance(result, dict) else None
    if not isinstance(timeline, dict):
        return []
    last: dict[tuple[str, str], Mapping[str, Any]] = {}
    problems: list[tuple[str, str]] = []
    for step in _step_keys(timeline):
        events = timeline[step]
        for i, event in enumerate(events if isinstance(events, list) else ()):
            held = event.get(_EVENT) if isinstance(event, dict) else None
            if not isinstance(held, dict):
                continue
            pod = held.get("pod")
            if isinstance(pod, dict):
                meta = pod.get("metadata")
                meta = meta if isinstance(meta, dict) else {}
                last[(str(meta.get("namespace") or ""), str(meta.get("name") or ""))] = pod
                continue
            if POD_REF not in held or "pod" in held:
                continue
            where = f"status.scenarioResult.timeline[{step}][{i}].{_EVENT}.{POD_REF}"
            ref = held[POD_REF]
            if not isinstance(ref, dict) or any(not isinstance(ref.get(f), str) for f in REF_FIELDS):
                problems.append((where, f"expected a mapping of {', '.join(REF_FIELDS)} (strings)"))
                continue
            found = last.get((ref["namespace"], ref["name"]))
            meta = (found.get("metadata") or {}) if found is not None else {}
            if (found is None or str(meta.get("uid") or "") != ref["uid"]
                    or str(meta.get("resourceVersion") or "") != ref["resourceVersion"]):
                problems.append((where, f"names pod {ref['namespace']}/{ref['name']} (uid {ref['uid']!r}, "
                                        f"resourceVersion {ref['resourceVersion']!r}), which no earlier "
                                        f"{_EVENT} event of that pod holds"))
                continue
            resolved = {("pod" if key == POD_REF else key): (found if key == POD_REF else value)
                        for key, value in held.items()}
            event[_EVENT] = resolved
    return problems


Doc = TypeVar("Doc")


def expand_pod_refs(doc: Doc) -> Doc:
    """`doc` (a result as JSON data) in the full form, every podRef replaced in place; InvalidInput
    when one names no earlier pod. For scripts that read result JSON themselves."""
    problems = resolve_pod_refs(doc)
    if problems:
        raise InvalidInput([Problem(path, message) for path, message in problems])
    return doc
