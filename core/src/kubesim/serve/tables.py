"""meta.k8s.io/v1 Table responses (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) for `kubectl get`.

Columns and cells follow kube-apiserver's printers (pkg/printers/internalversion/printers.go)
for the core kinds, the CRD table convertor (k8s.io/apiextensions-apiserver
pkg/registry/customresource/tableconvertor) for custom resources and the default convertor
(NAME, CREATED AT) for CustomResourceDefinitions. Ages are measured on the simulated clock,
so the same cluster state prints the same table. Other kinds: NAME and AGE.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from kubesim.cluster.registry import CRD_TYPE, ResourceType
from kubesim.errors import BadRequest
from kubesim.serve import jsonpath
from kubesim.serve.catalog import catalog_of
from kubesim.serve.negotiation import MediaRange, pick_as
from kubesim.serve.state import ServerState

__all__ = ["TABLE_VERSIONS", "human_duration", "table_content_type", "table_response", "wants_table"]

TABLE_VERSIONS = ("v1", "v1beta1")

Obj = Mapping[str, Any]
Column = tuple[str, str, int]  # name, type, priority (1: only with -o wide)
Cells = Callable[[Obj, datetime], list[Any]]

_NONE = "<none>"


def wants_table(accept: str | None) -> MediaRange | None:
    """The Table media range the client asks for first, None when it wants the objects."""
    return pick_as(accept, "meta.k8s.io", "Table", TABLE_VERSIONS)


def table_content_type(accept: str | None) -> str:
    """The Content-Type of a Table answering `accept` (the Table range it picked)."""
    wanted = wants_table(accept)
    return wanted.header() if wanted is not None else "application/json;as=Table;v=v1;g=meta.k8s.io"


def human_duration(seconds: float) -> str:
    """A duration as kubectl prints ages (k8s.io/apimachinery pkg/util/duration HumanDuration)."""
    if seconds < -1:
        return "<invalid>"
    s = max(0, int(seconds))
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m" if s % 60 == 0 else f"{m}m{s % 60}s"
    if m < 180:
        return f"{m}m"
    h = m // 60
    if h < 8:
        return f"{h}h" if m % 60 == 0 else f"{h}h{m % 60}m"
    if h < 48:
        return f"{h}h"
    if h < 24 * 8:
        return f"{h // 24}d" if h % 24 == 0 else f"{h // 24}d{h % 24}h"
    if h < 24 * 365 * 2:
        return f"{h // 24}d"
    y, d = h // (24 * 365), (h // 24) % 365
    if h < 24 * 365 * 8:
        return f"{y}y" if d == 0 else f"{y}y{d}d"
    return f"{y}y"


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else None  # RFC 3339 only (a date alone is not a timestamp)


def _since(value: Any, now: datetime) -> str:
    at = _time(value)
    return "<unknown>" if at is None else human_duration((now - at).total_seconds())


def _age(o: Obj, now: datetime) -> str:
    return _since(_meta(o).get("creationTimestamp"), now)


def _meta(o: Obj) -> Mapping[str, Any]:
    m = o.get("metadata")
    return m if isinstance(m, Mapping) else {}


def _get(o: Any, *path: str | int) -> Any:
    for key in path:
        if isinstance(key, int):
            o = o[key] if isinstance(o, list) and -len(o) <= key < len(o) else None
        else:
            o = o.get(key) if isinstance(o, Mapping) else None
    return o


def _list(o: Any, *path: str) -> list[Any]:
    v = _get(o, *path)
    return v if isinstance(v, list) else []


def _int(o: Any, *path: str) -> int:
    v = _get(o, *path)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _join(values: list[str]) -> str:
    return ",".join(values) if values else _NONE


def _selector(sel: Any) -> str:
    """metav1.FormatLabelSelector: requirements sorted by key, values sorted; <none> when empty."""
    if not isinstance(sel, Mapping):
        return _NONE
    parts = [(str(k), f"{k}={v}") for k, v in (sel.get("matchLabels") or {}).items()]
    for expr in sel.get("matchExpressions") or ():
        if not isinstance(expr, Mapping):
            continue
        key, op = str(expr.get("key", "")), str(expr.get("operator", ""))
        values = ",".join(sorted(str(v) for v in expr.get("values") or ()))
        parts.append((key, {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                            "DoesNotExist": f"!{key}"}.get(op, key)))
    return ",".join(text for _, text in sorted(parts)) if parts else _NONE


def _labels(labels: Any) -> str:
    """labels.FormatLabels: k=v pairs sorted by key, <none> when empty."""
    if not isinstance(labels, Mapping) or not labels:
        return _NONE
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _containers(template: Any) -> tuple[str, str]:
    cs = _list(template, "spec", "containers")
    return (_join([str(c.get("name", "")) for c in cs if isinstance(c, Mapping)]),
            _join([str(c.get("image", "")) for c in cs if isinstance(c, Mapping)]))


# --- per kind (printers.go: printPod, printNode, ...; the server prints every column, wide ones too) ---
# _API_DEFAULTS: where kubesim's store leaves a field unset that kube-apiserver's defaulting would set
# (Service type ClusterIP, Secret type Opaque and stringData, CronJob suspend false, PV/PVC volumeMode
# Filesystem), the cell shows the default, as it would on a real cluster.

def _restartable(container: Any) -> bool:
    return isinstance(container, Mapping) and container.get("restartPolicy") == "Always"


def _pod(o: Obj, now: datetime) -> list[Any]:
    restarts = restartable_restarts = 0
    last_restart: datetime | None = None
    last_restartable: datetime | None = None
    total = len(_list(o, "spec", "containers"))
    ready = 0
    phase = str(_get(o, "status", "phase") or "")
    reason = str(_get(o, "status", "reason") or phase)
    conditions = [c for c in _list(o, "status", "conditions") if isinstance(c, Mapping)]
    if any(c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated" for c in conditions):
        reason = "SchedulingGated"
    inits = {c.get("name"): c for c in _list(o, "spec", "initContainers") if isinstance(c, Mapping)}
    total += sum(1 for c in inits.values() if _restartable(c))

    def finished(c: Mapping[str, Any]) -> datetime | None:
        return _time(_get(c, "lastState", "terminated", "finishedAt"))

    initializing = False
    init_statuses = [c for c in _list(o, "status", "initContainerStatuses") if isinstance(c, Mapping)]
    for i, c in enumerate(init_statuses):
        restarts += _int(c, "restartCount")
        done = finished(c)
        if done is not None and (last_restart is None or done > last_restart):
            last_restart = done
        sidecar = _restartable(inits.get(c.get("name")))
        if sidecar:
            restartable_restarts += _int(c, "restartCount")
            if done is not None and (last_restartable is None or done > last_restartable):
                last_restartable = done
        terminated = _get(c, "state", "terminated")
        waiting = _get(c, "state", "waiting", "reason")
        if isinstance(terminated, Mapping) and terminated.get("exitCode", 0) == 0:
            continue
        if sidecar and c.get("started"):
            ready += 1 if c.get("ready") else 0
            continue
        if isinstance(terminated, Mapping):
            reason = f"Init:{terminated['reason']}" if terminated.get("reason") else \
                f"Init:Signal:{terminated['signal']}" if terminated.get("signal") else \
                f"Init:ExitCode:{terminated.get('exitCode', 0)}"
        elif waiting and waiting != "PodInitializing":
            reason = f"Init:{waiting}"
        else:
            reason = f"Init:{i}/{len(inits)}"
        initializing = True
        break
    initialized = any(c.get("type") == "Initialized" and c.get("status") == "True" for c in conditions)
    if not initializing or initialized:
        restarts, last_restart = restartable_restarts, last_restartable
        running = False
        for c in reversed([c for c in _list(o, "status", "containerStatuses") if isinstance(c, Mapping)]):
            restarts += _int(c, "restartCount")
            done = finished(c)
            if done is not None and (last_restart is None or done > last_restart):
                last_restart = done
            waiting = _get(c, "state", "waiting", "reason")
            terminated = _get(c, "state", "terminated")
            if waiting:
                reason = str(waiting)
            elif isinstance(terminated, Mapping):
                reason = str(terminated.get("reason") or (f"Signal:{terminated['signal']}" if terminated.get("signal")
                                                          else f"ExitCode:{terminated.get('exitCode', 0)}"))
            elif c.get("ready") and isinstance(_get(c, "state", "running"), Mapping):
                running = True
                ready += 1
        if reason == "Completed" and running:
            pod_ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
            reason = "Running" if pod_ready else "NotReady"
    if _meta(o).get("deletionTimestamp"):
        if _get(o, "status", "reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"
    shown_restarts = str(restarts)
    if restarts and last_restart is not None:
        shown_restarts = f"{restarts} ({human_duration((now - last_restart).total_seconds())} ago)"
    ips = [p.get("ip") for p in _list(o, "status", "podIPs") if isinstance(p, Mapping)]
    gates = [g for g in _list(o, "spec", "readinessGates") if isinstance(g, Mapping)]
    by_type: dict[Any, Any] = {}
    for c in conditions:
        by_type.setdefault(c.get("type"), c.get("status"))
    gates_cell = f"{sum(1 for g in gates if by_type.get(g.get('conditionType')) == 'True')}/{len(gates)}" \
        if gates else _NONE
    return [_meta(o).get("name"), f"{ready}/{total}", reason, shown_restarts, _age(o, now),
            (ips[0] if ips and ips[0] else _NONE), _get(o, "spec", "nodeName") or _NONE,
            _get(o, "status", "nominatedNodeName") or _NONE, gates_cell]


def _node(o: Obj, now: datetime) -> list[Any]:
    ready = [c.get("status") for c in _list(o, "status", "conditions") if isinstance(c, Mapping)
             and c.get("type") == "Ready"]
    status = ["Unknown"] if not ready else ["Ready" if ready[-1] == "True" else "NotReady"]
    if _get(o, "spec", "unschedulable"):
        status.append("SchedulingDisabled")
    labels = _meta(o).get("labels") or {}
    roles = {k.removeprefix("node-role.kubernetes.io/") for k in labels if k.startswith("node-role.kubernetes.io/")}
    if labels.get("kubernetes.io/role"):
        roles.add(str(labels["kubernetes.io/role"]))
    addresses = [a for a in _list(o, "status", "addresses") if isinstance(a, Mapping)]

    def address(kind: str) -> str:
        return next((str(a.get("address")) for a in addresses if a.get("type") == kind), _NONE)

    info = _get(o, "status", "nodeInfo") or {}
    return [_meta(o).get("name"), ",".join(status), _join(sorted(r for r in roles if r)), _age(o, now),
            info.get("kubeletVersion", ""), address("InternalIP"), address("ExternalIP"),
            info.get("osImage") or "<unknown>", info.get("kernelVersion") or "<unknown>",
            info.get("containerRuntimeVersion") or "<unknown>"]


def _replicas(o: Obj) -> int:
    desired = _get(o, "spec", "replicas")
    return desired if isinstance(desired, int) else 1


def _deployment(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    selector = _selector(_get(o, "spec", "selector"))
    return [_meta(o).get("name"), f"{_int(o, 'status', 'readyReplicas')}/{_replicas(o)}",
            _int(o, "status", "updatedReplicas"), _int(o, "status", "availableReplicas"), _age(o, now), c, i,
            "" if selector == _NONE else selector]


def _replicaset(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    return [_meta(o).get("name"), _replicas(o), _int(o, "status", "replicas"), _int(o, "status", "readyReplicas"),
            _age(o, now), c, i, _selector(_get(o, "spec", "selector"))]


def _replicationcontroller(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    return [_meta(o).get("name"), _replicas(o), _int(o, "status", "replicas"), _int(o, "status", "readyReplicas"),
            _age(o, now), c, i, _labels(_get(o, "spec", "selector"))]


def _statefulset(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    return [_meta(o).get("name"), f"{_int(o, 'status', 'readyReplicas')}/{_replicas(o)}", _age(o, now), c, i]


def _daemonset(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    return [_meta(o).get("name"), _int(o, "status", "desiredNumberScheduled"),
            _int(o, "status", "currentNumberScheduled"), _int(o, "status", "numberReady"),
            _int(o, "status", "updatedNumberScheduled"), _int(o, "status", "numberAvailable"),
            _labels(_get(o, "spec", "template", "spec", "nodeSelector")), _age(o, now), c, i,
            _selector(_get(o, "spec", "selector"))]


def _job(o: Obj, now: datetime) -> list[Any]:
    conditions: dict[Any, Any] = {}
    for cond in _list(o, "status", "conditions"):
        if isinstance(cond, Mapping):
            conditions.setdefault(cond.get("type"), cond.get("status"))
    status = "Running"
    if conditions.get("Complete") == "True":
        status = "Complete"
    elif conditions.get("Failed") == "True":
        status = "Failed"
    elif _meta(o).get("deletionTimestamp"):
        status = "Terminating"
    elif conditions.get("Suspended") == "True":
        status = "Suspended"
    elif conditions.get("FailureTarget") == "True":
        status = "FailureTarget"
    succeeded = _int(o, "status", "succeeded")
    completions = _get(o, "spec", "completions")
    parallelism = _get(o, "spec", "parallelism")
    if isinstance(completions, int):
        shown = f"{succeeded}/{completions}"
    elif isinstance(parallelism, int) and parallelism > 1:
        shown = f"{succeeded}/1 of {parallelism}"
    else:
        shown = f"{succeeded}/1"
    start, end = _time(_get(o, "status", "startTime")), _time(_get(o, "status", "completionTime"))
    duration = "" if start is None else human_duration(((end or now) - start).total_seconds())
    c, i = _containers(_get(o, "spec", "template"))
    return [_meta(o).get("name"), status, shown, duration, _age(o, now), c, i, _selector(_get(o, "spec", "selector"))]


def _bool_ptr(value: Any) -> str:
    return "<unset>" if value is None else "True" if value else "False"


def _cronjob(o: Obj, now: datetime) -> list[Any]:
    last = _get(o, "status", "lastScheduleTime")
    template = _get(o, "spec", "jobTemplate", "spec")
    c, i = _containers(_get(template, "template"))
    return [_meta(o).get("name"), _get(o, "spec", "schedule"), _get(o, "spec", "timeZone") or _NONE,
            _bool_ptr(_get(o, "spec", "suspend") or False), len(_list(o, "status", "active")),
            _since(last, now) if last else _NONE, _age(o, now), c, i, _selector(_get(template, "selector"))]


def _service(o: Obj, now: datetime) -> list[Any]:
    kind = str(_get(o, "spec", "type") or "ClusterIP")  # the API's default (see _API_DEFAULTS)
    external = [str(i) for i in _list(o, "spec", "externalIPs")]
    if kind in ("ClusterIP", "NodePort"):
        shown_external = ",".join(external) or _NONE
    elif kind == "LoadBalancer":
        lb = sorted({str(i.get("ip") or i.get("hostname")) for i in _list(o, "status", "loadBalancer", "ingress")
                     if isinstance(i, Mapping) and (i.get("ip") or i.get("hostname"))})
        shown_external = ",".join(lb + external) or "<pending>"
    elif kind == "ExternalName":
        shown_external = str(_get(o, "spec", "externalName") or "")
    else:
        shown_external = "<unknown>"
    ports = []
    for p in _list(o, "spec", "ports"):
        if isinstance(p, Mapping):
            node = f":{p['nodePort']}" if p.get("nodePort") else ""
            ports.append(f"{p.get('port')}{node}/{p.get('protocol', 'TCP')}")
    cluster_ips = _list(o, "spec", "clusterIPs")
    return [_meta(o).get("name"), kind, cluster_ips[0] if cluster_ips else _NONE, shown_external,
            ",".join(ports) or _NONE, _age(o, now), _labels(_get(o, "spec", "selector"))]


def _modes(modes: list[Any]) -> str:
    short = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX", "ReadWriteOncePod": "RWOP"}
    order = ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"]
    return ",".join(short[m] for m in order if m in modes)


def _storage_class(o: Obj) -> str:
    annotations = _meta(o).get("annotations") or {}
    beta = annotations.get("volume.beta.kubernetes.io/storage-class")
    return str(beta if beta is not None else _get(o, "spec", "storageClassName") or "")


def _pv(o: Obj, now: datetime) -> list[Any]:
    ref = _get(o, "spec", "claimRef")
    claim = f"{ref.get('namespace', '')}/{ref.get('name', '')}" if isinstance(ref, Mapping) else ""
    phase = "Terminating" if _meta(o).get("deletionTimestamp") else _get(o, "status", "phase") or ""
    return [_meta(o).get("name"), _get(o, "spec", "capacity", "storage") or "0",
            _modes(_list(o, "spec", "accessModes")), _get(o, "spec", "persistentVolumeReclaimPolicy") or "",
            phase, claim, _storage_class(o), _get(o, "spec", "volumeAttributesClassName") or "<unset>",
            _get(o, "status", "reason") or "", _age(o, now), _get(o, "spec", "volumeMode") or "Filesystem"]


def _pvc(o: Obj, now: datetime) -> list[Any]:
    phase = "Terminating" if _meta(o).get("deletionTimestamp") else _get(o, "status", "phase") or ""
    bound = bool(_get(o, "spec", "volumeName"))
    return [_meta(o).get("name"), phase, _get(o, "spec", "volumeName") or "",
            (_get(o, "status", "capacity", "storage") or "0") if bound else "",
            _modes(_list(o, "status", "accessModes")) if bound else "", _storage_class(o),
            _get(o, "spec", "volumeAttributesClassName") or "<unset>", _age(o, now),
            _get(o, "spec", "volumeMode") or "Filesystem"]


def _int_or_string(value: Any) -> str:
    return "N/A" if value is None else str(value)


def _pdb(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _int_or_string(_get(o, "spec", "minAvailable")),
            _int_or_string(_get(o, "spec", "maxUnavailable")), _int(o, "status", "disruptionsAllowed"), _age(o, now)]


def _priorityclass(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _int(o, "value"), bool(_get(o, "globalDefault")), _age(o, now),
            _get(o, "preemptionPolicy") or ""]


def _event(o: Obj, now: datetime) -> list[Any]:
    first_at = _get(o, "firstTimestamp") or _get(o, "eventTime")
    first = _since(first_at, now)
    last = _since(_get(o, "lastTimestamp"), now) if _get(o, "lastTimestamp") else first
    count = _get(o, "count") or 0
    series = _get(o, "series")
    if isinstance(series, Mapping):
        last, count = _since(series.get("lastObservedTime"), now), series.get("count") or 0
    elif not count:
        count = 1
    involved = _get(o, "involvedObject") or {}
    kind = str(involved.get("kind", "")).lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    component = _get(o, "source", "component") or _get(o, "reportingComponent") or ""
    host = _get(o, "source", "host") or _get(o, "reportingInstance") or ""
    source = f"{component}, {host}" if host else str(component)
    return [last, _get(o, "type") or "", _get(o, "reason") or "", target, involved.get("fieldPath") or "", source,
            str(_get(o, "message") or "").strip(), first, count, _meta(o).get("name")]


def _lease(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _get(o, "spec", "holderIdentity") or "", _age(o, now)]


def _namespace(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _get(o, "status", "phase") or "", _age(o, now)]


def _configmap(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), len(o.get("data") or {}) + len(o.get("binaryData") or {}), _age(o, now)]


def _secret(o: Obj, now: datetime) -> list[Any]:
    keys = set(o.get("data") or {}) | set(o.get("stringData") or {})  # stringData merges into data
    return [_meta(o).get("name"), o.get("type") or "Opaque", len(keys), _age(o, now)]


def _serviceaccount(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), len(_list(o, "secrets")), _age(o, now)]


def _storageclass(o: Obj, now: datetime) -> list[Any]:
    annotations = _meta(o).get("annotations") or {}
    default = "true" in (annotations.get("storageclass.kubernetes.io/is-default-class"),
                         annotations.get("storageclass.beta.kubernetes.io/is-default-class"))
    name = f"{_meta(o).get('name')} (default)" if default else _meta(o).get("name")
    return [name, o.get("provisioner") or "", o.get("reclaimPolicy") or "Delete",
            o.get("volumeBindingMode") or "Immediate", bool(o.get("allowVolumeExpansion")), _age(o, now)]


def _controllerrevision(o: Obj, now: datetime) -> list[Any]:
    owner = next((r for r in _list(_meta(o), "ownerReferences") if isinstance(r, Mapping) and r.get("controller")),
                 None)
    controller = _NONE
    if owner is not None:
        group = str(owner.get("apiVersion", "")).rpartition("/")[0]
        controller = f"{str(owner.get('kind', '')).lower()}{'.' + group if group else ''}/{owner.get('name', '')}"
    return [_meta(o).get("name"), controller, _int(o, "revision"), _age(o, now)]


def _scale(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _int(o, "spec", "replicas"), _int(o, "status", "replicas")]


def _name_age(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _age(o, now)]


def _s(name: str, priority: int = 0) -> Column:
    return (name, "string", priority)


def _i(name: str, priority: int = 0) -> Column:
    return (name, "integer", priority)


_NAME: Column = ("Name", "string", 0)
_AGE = _s("Age")
_WORKLOAD_WIDE = [_s("Containers", 1), _s("Images", 1), _s("Selector", 1)]

# (group, kind) -> (columns, cells): the column definitions of printers.go AddHandlers
_PRINTERS: dict[tuple[str, str], tuple[list[Column], Cells]] = {
    ("", "Pod"): ([_NAME, _s("Ready"), _s("Status"), _s("Restarts"), _AGE, _s("IP", 1), _s("Node", 1),
                   _s("Nominated Node", 1), _s("Readiness Gates", 1)], _pod),
    ("", "Node"): ([_NAME, _s("Status"), _s("Roles"), _AGE, _s("Version"), _s("Internal-IP", 1),
                    _s("External-IP", 1), _s("OS-Image", 1), _s("Kernel-Version", 1),
                    _s("Container-Runtime", 1)], _node),
    ("", "Namespace"): ([_NAME, _s("Status"), _AGE], _namespace),
    ("", "Service"): ([_NAME, _s("Type"), _s("Cluster-IP"), _s("External-IP"), _s("Port(s)"), _AGE,
                       _s("Selector", 1)], _service),
    ("", "PersistentVolumeClaim"): ([_NAME, _s("Status"), _s("Volume"), _s("Capacity"), _s("Access Modes"),
                                     _s("StorageClass"), _s("VolumeAttributesClass"), _AGE,
                                     _s("VolumeMode", 1)], _pvc),
    ("", "PersistentVolume"): ([_NAME, _s("Capacity"), _s("Access Modes"), _s("Reclaim Policy"), _s("Status"),
                                _s("Claim"), _s("StorageClass"), _s("VolumeAttributesClass"), _s("Reason"), _AGE,
                                _s("VolumeMode", 1)], _pv),
    ("", "Event"): ([_s("Last Seen"), _s("Type"), _s("Reason"), _s("Object"), _s("Subobject", 1), _s("Source", 1),
                     _s("Message"), _s("First Seen", 1), _s("Count", 1), ("Name", "string", 1)], _event),
    ("", "ConfigMap"): ([_NAME, _s("Data"), _AGE], _configmap),
    ("", "Secret"): ([_NAME, _s("Type"), _s("Data"), _AGE], _secret),
    ("", "ServiceAccount"): ([_NAME, _s("Secrets"), _AGE], _serviceaccount),
    ("", "ReplicationController"): ([_NAME, _i("Desired"), _i("Current"), _i("Ready"), _AGE, *_WORKLOAD_WIDE],
                                    _replicationcontroller),
    ("apps", "Deployment"): ([_NAME, _s("Ready"), _s("Up-to-date"), _s("Available"), _AGE, *_WORKLOAD_WIDE],
                             _deployment),
    ("apps", "ReplicaSet"): ([_NAME, _i("Desired"), _i("Current"), _i("Ready"), _AGE, *_WORKLOAD_WIDE],
                             _replicaset),
    ("apps", "StatefulSet"): ([_NAME, _s("Ready"), _AGE, _s("Containers", 1), _s("Images", 1)], _statefulset),
    ("apps", "DaemonSet"): ([_NAME, _i("Desired"), _i("Current"), _i("Ready"), _i("Up-to-date"), _i("Available"),
                             _s("Node Selector"), _AGE, *_WORKLOAD_WIDE], _daemonset),
    ("apps", "ControllerRevision"): ([_NAME, _s("Controller"), _s("Revision"), _AGE], _controllerrevision),
    ("batch", "Job"): ([_NAME, _s("Status"), _s("Completions"), _s("Duration"), _AGE, *_WORKLOAD_WIDE], _job),
    ("batch", "CronJob"): ([_NAME, _s("Schedule"), _s("Timezone"), ("Suspend", "boolean", 0), _i("Active"),
                            _s("Last Schedule"), _AGE, *_WORKLOAD_WIDE], _cronjob),
    ("policy", "PodDisruptionBudget"): ([_NAME, _s("Min Available"), _s("Max Unavailable"),
                                         _i("Allowed Disruptions"), _AGE], _pdb),
    ("scheduling.k8s.io", "PriorityClass"): ([_NAME, _i("Value"), ("Global-Default", "boolean", 0), _AGE,
                                              _s("PreemptionPolicy")], _priorityclass),
    ("storage.k8s.io", "StorageClass"): ([_NAME, _s("Provisioner"), _s("ReclaimPolicy"), _s("VolumeBindingMode"),
                                          _s("AllowVolumeExpansion"), _AGE], _storageclass),
    ("coordination.k8s.io", "Lease"): ([_NAME, _s("Holder"), _AGE], _lease),
    ("autoscaling", "Scale"): ([_NAME, _i("Desired"), _i("Available")], _scale),
}


# --- custom resources: additionalPrinterColumns -------------------------------------

def _go_text(value: Any) -> str:
    """How client-go's jsonpath prints one result: maps and lists as compact JSON, scalars as Go's fmt."""
    if isinstance(value, (Mapping, list)):
        return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return "<nil>" if value is None else str(value)


def _column_cell(kind: str, value: Any, now: datetime) -> Any:
    """tableconvertor.go cellForJSONValue: the value if it has the column's type, else an empty cell."""
    if kind == "string":
        return _go_text(value)
    if kind == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool) \
            and math.isfinite(value):
        return int(value)
    if kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, str):
        return "<invalid>" if _time(value) is None else _since(value, now)
    return None


def _printer_columns(crd: Mapping[str, Any] | None, version: str) -> list[Mapping[str, Any]]:
    for v in _list(crd, "spec", "versions"):
        if isinstance(v, Mapping) and v.get("name") == version:
            columns = v.get("additionalPrinterColumns")
            if isinstance(columns, list):
                return [c for c in columns if isinstance(c, Mapping)]
    return [{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]


def _custom(crd: Mapping[str, Any] | None, version: str) -> tuple[list[Column], Cells, list[str]]:
    columns = _printer_columns(crd, version)

    def cells(o: Obj, now: datetime) -> list[Any]:
        row: list[Any] = [_meta(o).get("name")]
        for c in columns:
            try:
                found = jsonpath.find(o, str(c.get("jsonPath", "")))
            except jsonpath.JSONPathError:
                found = []
            row.append(_column_cell(str(c.get("type", "string")), found[0], now) if found else None)
        return row

    defs: list[Column] = [_NAME] + [(str(c.get("name", "")), str(c.get("type", "string")),
                                      c["priority"] if isinstance(c.get("priority"), int) else 0) for c in columns]
    return defs, cells, [str(c.get("description") or "") for c in columns]


def _crd_row(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _meta(o).get("creationTimestamp")]


def _printer(state: ServerState, rt: ResourceType) -> tuple[list[Column], Cells, list[str]]:
    if rt.custom is not None:
        served = catalog_of(state).find(rt)
        return _custom(served.crd if served else None, rt.version)
    if (rt.group, rt.kind) == (CRD_TYPE.group, CRD_TYPE.kind):
        return [_NAME, ("Created At", "date", 0)], _crd_row, []
    columns, cells = _PRINTERS.get((rt.group, rt.kind), ([_NAME, _AGE], _name_age))
    return columns, cells, []


_DESCRIPTIONS = {"Name": "Name must be unique within a namespace. Is required when creating resources, although "
                         "some resources may allow a client to request the generation of an appropriate name "
                         "automatically. Name is primarily intended for creation idempotence and configuration "
                         "definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/"
                         "working-with-objects/names#names",
                 "Age": "CreationTimestamp is a timestamp representing the server time when this object was "
                        "created."}


def _row_object(o: Obj, include: str, version: str) -> Any:
    if include == "Object":
        return o
    if include == "None":
        return None
    return {"kind": "PartialObjectMetadata", "apiVersion": f"meta.k8s.io/{version}", "metadata": dict(_meta(o))}


def table_response(state: ServerState, rt: ResourceType, body: Mapping[str, Any], request_accept: str | None,
                   include_object: str | None = None, *, no_headers: bool = False) -> dict[str, Any] | None:
    """`body` (one object, or a list body with items and metadata) as a meta.k8s.io Table when the
    Accept header asks for one; None: answer `body` itself. `include_object` is the includeObject
    query parameter (Metadata by default, Object or None). A watch converts each event's object and
    sets `no_headers` after the first event, as handlers/watch.go does (columnDefinitions null)."""
    wanted = wants_table(request_accept)
    if wanted is None:
        return None
    include = include_object or "Metadata"
    if include not in ("Metadata", "Object", "None"):
        raise BadRequest(f'includeObject: Unsupported value: "{include}": supported values: "Metadata", '
                         f'"None", "Object"')
    version = wanted.params.get("v", "v1")
    items = body.get("items")
    kind = body.get("kind")
    if not isinstance(items, list) and isinstance(kind, str) and kind != rt.kind:
        # a subresource answering with another kind (kubectl get --subresource=scale): that kind's printer
        group = str(body.get("apiVersion", "")).rpartition("/")[0]
        columns, cells = _PRINTERS.get((group, kind), ([_NAME, _AGE], _name_age))
        descriptions: list[str] = []
    else:
        columns, cells, descriptions = _printer(state, rt)
    now = state.call(lambda c: c.clock.now())
    objects = [o for o in items if isinstance(o, Mapping)] if isinstance(items, list) else [body]
    rows = []
    for o in objects:
        row: dict[str, Any] = {"cells": cells(o, now)}
        obj = _row_object(o, include, version)
        if obj is not None:
            row["object"] = obj
        rows.append(row)
    described = [""] + descriptions if descriptions else []
    column_defs = []
    for n, (name, kind, priority) in enumerate(columns):
        fmt = "name" if name == "Name" and n == 0 else ""
        text = described[n] if n < len(described) and described[n] else _DESCRIPTIONS.get(name, "")
        column_defs.append({"name": name, "type": kind, "format": fmt, "description": text, "priority": priority})
    meta: dict[str, Any] = {}
    if isinstance(items, list):
        list_meta = body.get("metadata") or {}
        meta = {k: list_meta[k] for k in ("resourceVersion", "continue", "remainingItemCount") if k in list_meta}
    elif _meta(body).get("resourceVersion"):
        meta = {"resourceVersion": _meta(body)["resourceVersion"]}
    return {"kind": "Table", "apiVersion": f"meta.k8s.io/{version}", "metadata": meta,
            "columnDefinitions": None if no_headers else column_defs, "rows": rows}
