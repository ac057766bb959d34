"""Pod statuses as a kubelet reports them, and the state a pod should be in at a given time.

Shapes follow KWOK's pod stages (kubernetes-sigs/kwok kustomize/stage/pod/fast/pod-ready.yaml
and pod-complete.yaml) with the kubelet's own condition reasons for terminal pods
(pkg/kubelet/status/generate.go: PodCompleted, PodFailed) and container/image IDs filled in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from kubesim.clock import parse_time

from .identities import container_id, image_id
from .node_status import internal_ip, node_ready_state, node_status_update
from .simspec import USAGE_ANNOTATION, SimSpecError, effective_time, sim_spec_of, usage_annotation

__all__ = [
    "INVALID_SIM_SPEC_REASON",
    "TERMINAL_PHASES",
    "failed_status",
    "node_settled",
    "pod_settled",
    "running_status",
    "sim_spec_message",
    "succeeded_status",
]

TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})
INVALID_SIM_SPEC_REASON = "InvalidSimSpec"
_RUNNING_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")


def _condition(kind: str, status: str, when: str, reason: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"type": kind, "status": status, "lastProbeTime": None, "lastTransitionTime": when}
    if reason is not None:
        c["reason"] = reason
    return c


def _merge_conditions(existing: Sequence[Any], wanted: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`wanted` in order (keeping an existing condition's transition time when unchanged),
    then the existing conditions not in `wanted` (PodScheduled, DisruptionTarget, ...)."""
    old = {c.get("type"): c for c in existing if isinstance(c, dict)}
    out = []
    for c in wanted:
        prev = old.get(c["type"])
        same = prev is not None and prev.get("status") == c["status"] and prev.get("reason") == c.get("reason")
        out.append(dict(prev) if same else c)  # type: ignore[arg-type]
    kinds = {c["type"] for c in wanted}
    out.extend(dict(c) for c in existing if isinstance(c, dict) and c.get("type") not in kinds)
    return out


def _restartable(container: Mapping[str, Any]) -> bool:
    return container.get("restartPolicy") == "Always"


def _running_container(pod_uid: str, c: Mapping[str, Any], started: str) -> dict[str, Any]:
    name = str(c.get("name", ""))
    image = str(c.get("image", ""))
    return {
        "containerID": container_id(pod_uid, name),
        "image": image,
        "imageID": image_id(image),
        "lastState": {},
        "name": name,
        "ready": True,
        "restartCount": 0,
        "started": True,
        "state": {"running": {"startedAt": started}},
    }


def _completed_container(pod_uid: str, c: Mapping[str, Any], started: str, finished: str) -> dict[str, Any]:
    name = str(c.get("name", ""))
    image = str(c.get("image", ""))
    cid = container_id(pod_uid, name)
    return {
        "containerID": cid,
        "image": image,
        "imageID": image_id(image),
        "lastState": {},
        "name": name,
        "ready": False,
        "restartCount": 0,
        "started": False,
        "state": {"terminated": {
            "containerID": cid, "exitCode": 0, "finishedAt": finished, "reason": "Completed", "startedAt": started,
        }},
    }


def running_status(pod: Mapping[str, Any], now: str, host_ip: str, pod_ip: str) -> dict[str, Any]:
    """The status of a pod whose containers all started at `now` and are ready.

    Init containers have completed (sidecars, restartPolicy Always, keep running); readiness
    gates are reported True as KWOK does; PodScheduled is True (an existing one is kept, with its
    transition time) and other conditions are kept.
    """
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    old = pod.get("status") or {}
    uid = str(meta.get("uid", ""))
    status = dict(old)
    gates = [g.get("conditionType") for g in spec.get("readinessGates") or () if isinstance(g, dict)]
    wanted = [_condition(kind, "True", now) for kind in _RUNNING_CONDITIONS]
    wanted.extend(_condition(str(g), "True", now) for g in gates if g)
    # the kubelet reports PodScheduled too (pods created with spec.nodeName never had a binding)
    wanted.append(_condition("PodScheduled", "True", now))
    status["conditions"] = _merge_conditions(old.get("conditions") or (), wanted)
    status["containerStatuses"] = [_running_container(uid, c, now) for c in spec.get("containers") or ()]
    inits = []
    for c in spec.get("initContainers") or ():
        if _restartable(c):
            inits.append(_running_container(uid, c, now))
        else:
            done = _completed_container(uid, c, now, now)
            done["ready"] = True
            inits.append(done)
    if inits:
        status["initContainerStatuses"] = inits
    status["hostIP"] = host_ip
    status["hostIPs"] = [{"ip": host_ip}]
    status["podIP"] = pod_ip
    status["podIPs"] = [{"ip": pod_ip}]
    status["phase"] = "Running"
    status["startTime"] = old.get("startTime") or now
    return status


def succeeded_status(pod: Mapping[str, Any], finished: str) -> dict[str, Any]:
    """The status of a running pod whose containers all exited 0 at `finished`."""
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    old = pod.get("status") or {}
    uid = str(meta.get("uid", ""))
    started = {
        s.get("name"): ((s.get("state") or {}).get("running") or {}).get("startedAt")
        for s in old.get("containerStatuses") or () if isinstance(s, dict)
    }
    start = old.get("startTime") or finished
    status = dict(old)
    status["phase"] = "Succeeded"
    status["conditions"] = _merge_conditions(old.get("conditions") or (), [
        _condition("PodReadyToStartContainers", "False", finished),
        _condition("Initialized", "True", finished, "PodCompleted"),
        _condition("Ready", "False", finished, "PodCompleted"),
        _condition("ContainersReady", "False", finished, "PodCompleted"),
    ])
    status["containerStatuses"] = [
        _completed_container(uid, c, started.get(c.get("name")) or start, finished)
        for c in spec.get("containers") or ()
    ]
    inits = []
    for s in old.get("initContainerStatuses") or ():
        if isinstance(s, dict) and "running" in (s.get("state") or {}):  # a sidecar stops with the pod
            c = next((c for c in spec.get("initContainers") or () if c.get("name") == s.get("name")), s)
            inits.append(_completed_container(uid, c, s["state"]["running"].get("startedAt") or start, finished))
        else:
            inits.append(s)
    if inits:
        status["initContainerStatuses"] = inits
    return status


def failed_status(pod: Mapping[str, Any], now: str, host_ip: str, reason: str, message: str) -> dict[str, Any]:
    """The status of a pod the kubelet refuses to run (like an admission rejection)."""
    old = pod.get("status") or {}
    status = dict(old)
    status["phase"] = "Failed"
    status["reason"] = reason
    status["message"] = message
    status["conditions"] = _merge_conditions(old.get("conditions") or (), [
        _condition("Ready", "False", now, "PodFailed"),
        _condition("ContainersReady", "False", now, "PodFailed"),
    ])
    status["hostIP"] = host_ip
    status["hostIPs"] = [{"ip": host_ip}]
    status["startTime"] = old.get("startTime") or now
    return status


def sim_spec_message(problem: str) -> str:
    """status.message of a pod whose simSpec annotation is invalid."""
    return f'invalid annotation "simSpec": {problem}'


def pod_settled(pod: Mapping[str, Any], node: Mapping[str, Any] | None, now: datetime, *, usage: bool = True) -> bool:
    """Whether `pod` is in the state the kubelet should have brought it to by `now`.

    Pods that are not bound, bound to a missing node (pod-gc's business) or to a node whose
    Ready condition is not True (its kubelet is down) are settled as they are. Otherwise a
    terminating pod is settled until its deletionTimestamp (then it should be gone), a pod with
    an invalid simSpec must be Failed, a pod whose simSpec has ended must be Succeeded, and
    every other pod must be Running with the usage annotation of its current simSpec phase
    (unless `usage` is False: in simulated time the kubelet writes no usage annotation).
    """
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    if not (pod.get("spec") or {}).get("nodeName") or node is None or node_ready_state(node) != "True":
        return True
    deleting = meta.get("deletionTimestamp")
    if deleting:
        return meta.get("deletionGracePeriodSeconds") == 0 or now < parse_time(deleting)
    phase = status.get("phase")
    if phase in TERMINAL_PHASES:
        return True
    if phase != "Running":
        return False
    try:
        spec = sim_spec_of(pod)
    except SimSpecError:
        return False
    if spec is None:
        return True
    start = status.get("startTime")
    if not start:
        return False
    elapsed = effective_time(pod, now) - parse_time(start)  # a frozen pod's stays where it froze
    if spec.finished(elapsed):
        return False
    if not usage:
        return True
    wanted = usage_annotation(spec, spec.phase_index(elapsed))
    return (meta.get("annotations") or {}).get(USAGE_ANNOTATION) == wanted


def node_settled(node: Mapping[str, Any]) -> bool:
    """Whether a node has the status its kubelet posts (or is deliberately not ready)."""
    if node_ready_state(node) in ("False", "Unknown"):
        return True
    return internal_ip(node) is not None and node_status_update(node, "", None) is None
