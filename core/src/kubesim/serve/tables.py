"""meta.k8s.io/v1 Table responses (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) for `kubectl get`.

Columns and cells follow kube-apiserver's printers (pkg/printers/internalversion/printers.go)
for the core kinds, the CRD table convertor (k8s.io/apiextensions-apiserver
pkg/registry/customresource/tableconvertor) for custom resources and the default convertor
(NAME, CREATED AT) for CustomResourceDefinitions. Ages are measured on the simulated clock,
so the same cluster state prints the same table. Other kinds: NAME and AGE.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from kubesim.cluster.registry import CRD_TYPE, ResourceType
from kubesim.errors import BadRequest
from kubesim.serve.catalog import catalog_of
from kubesim.serve.negotiation import MediaRange, pick_as
from kubesim.serve.state import ServerState

__all__ = ["TABLE_VERSIONS", "human_duration", "table_response", "wants_table"]

TABLE_VERSIONS = ("v1", "v1beta1")

Obj = Mapping[str, Any]
Column = tuple[str, str, int]  # name, type, priority (1: only with -o wide)
Cells = Callable[[Obj, datetime], list[Any]]

_NONE = "<none>"


def wants_table(accept: str | None) -> MediaRange | None:
    """The Table media range the client asks for first, None when it wants the objects."""
    return pick_as(accept, "meta.k8s.io", "Table", TABLE_VERSIONS)


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
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


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
    if not isinstance(sel, Mapping):
        return _NONE
    parts = [f"{k}={v}" for k, v in sorted((sel.get("matchLabels") or {}).items())]
    for expr in sel.get("matchExpressions") or ():
        op = str(expr.get("operator", ""))
        values = ",".join(str(v) for v in expr.get("values") or ())
        key = str(expr.get("key", ""))
        parts.append({"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                      "DoesNotExist": f"!{key}"}.get(op, key))
    return ",".join(parts) if parts else _NONE


def _containers(template: Any) -> tuple[str, str]:
    cs = _list(template, "spec", "containers")
    return (_join([str(c.get("name", "")) for c in cs if isinstance(c, Mapping)]),
            _join([str(c.get("image", "")) for c in cs if isinstance(c, Mapping)]))


# --- per kind (printers.go: printPod, printNode, ...) -------------------------------

def _pod(o: Obj, now: datetime) -> list[Any]:
    statuses = [c for c in _list(o, "status", "containerStatuses") if isinstance(c, Mapping)]
    total = len(_list(o, "spec", "containers"))
    ready = sum(1 for c in statuses if c.get("ready"))
    restarts = sum(_int(c, "restartCount") for c in statuses)
    reason = str(_get(o, "status", "reason") or _get(o, "status", "phase") or "")
    for c in reversed(statuses):
        waiting = _get(c, "state", "waiting", "reason")
        terminated = _get(c, "state", "terminated")
        if waiting:
            reason = str(waiting)
        elif isinstance(terminated, Mapping):
            reason = str(terminated.get("reason") or f"ExitCode:{terminated.get('exitCode', 0)}")
    if _meta(o).get("deletionTimestamp"):
        reason = "Unknown" if _get(o, "status", "reason") == "NodeLost" else "Terminating"
    ips = [str(p.get("ip")) for p in _list(o, "status", "podIPs") if isinstance(p, Mapping) and p.get("ip")]
    ip = ips[0] if ips else str(_get(o, "status", "podIP") or _NONE)
    gates = [g for g in _list(o, "spec", "readinessGates") if isinstance(g, Mapping)]
    conditions = {c.get("type"): c.get("status") for c in _list(o, "status", "conditions") if isinstance(c, Mapping)}
    gates_cell = f"{sum(1 for g in gates if conditions.get(g.get('conditionType')) == 'True')}/{len(gates)}" \
        if gates else _NONE
    return [_meta(o).get("name"), f"{ready}/{total}", reason, restarts, _age(o, now), ip,
            _get(o, "spec", "nodeName") or _NONE, _get(o, "status", "nominatedNodeName") or _NONE, gates_cell]


def _node(o: Obj, now: datetime) -> list[Any]:
    conditions = {c.get("type"): c.get("status") for c in _list(o, "status", "conditions") if isinstance(c, Mapping)}
    ready = conditions.get("Ready")
    status = ["Ready" if ready == "True" else "NotReady" if ready == "False" else "Unknown"]
    if _get(o, "spec", "unschedulable"):
        status.append("SchedulingDisabled")
    labels = _meta(o).get("labels") or {}
    roles = sorted({k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/") and "/" in k}
                   | ({str(labels["kubernetes.io/role"])} if labels.get("kubernetes.io/role") else set()))
    roles = [r for r in roles if r]
    addresses = {a.get("type"): a.get("address") for a in _list(o, "status", "addresses") if isinstance(a, Mapping)}
    info = _get(o, "status", "nodeInfo") or {}
    return [_meta(o).get("name"), ",".join(status), _join(roles), _age(o, now), info.get("kubeletVersion", ""),
            addresses.get("InternalIP") or _NONE, addresses.get("ExternalIP") or _NONE, info.get("osImage") or
            "<unknown>", info.get("kernelVersion") or "<unknown>", info.get("containerRuntimeVersion") or "<unknown>"]


def _deployment(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    desired = _get(o, "spec", "replicas")
    return [_meta(o).get("name"), f"{_int(o, 'status', 'readyReplicas')}/{desired if desired is not None else 1}",
            _int(o, "status", "updatedReplicas"), _int(o, "status", "availableReplicas"), _age(o, now), c, i,
            _selector(_get(o, "spec", "selector"))]


def _replicaset(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    desired = _get(o, "spec", "replicas")
    return [_meta(o).get("name"), desired if desired is not None else 1, _int(o, "status", "replicas"),
            _int(o, "status", "readyReplicas"), _age(o, now), c, i, _selector(_get(o, "spec", "selector"))]


def _statefulset(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    desired = _get(o, "spec", "replicas")
    return [_meta(o).get("name"), f"{_int(o, 'status', 'readyReplicas')}/{desired if desired is not None else 1}",
            _age(o, now), c, i]


def _daemonset(o: Obj, now: datetime) -> list[Any]:
    c, i = _containers(_get(o, "spec", "template"))
    selector = _get(o, "spec", "template", "spec", "nodeSelector") or {}
    return [_meta(o).get("name"), _int(o, "status", "desiredNumberScheduled"),
            _int(o, "status", "currentNumberScheduled"), _int(o, "status", "numberReady"),
            _int(o, "status", "updatedNumberScheduled"), _int(o, "status", "numberAvailable"),
            _join([f"{k}={v}" for k, v in sorted(selector.items())]), _age(o, now), c, i,
            _selector(_get(o, "spec", "selector"))]


def _job(o: Obj, now: datetime) -> list[Any]:
    conditions = {c.get("type"): c.get("status") for c in _list(o, "status", "conditions") if isinstance(c, Mapping)}
    status = "Running"
    for kind, shown in (("Complete", "Complete"), ("Failed", "Failed"), ("FailureTarget", "FailureTarget"),
                        ("SuccessCriteriaMet", "SuccessCriteriaMet"), ("Suspended", "Suspended")):
        if conditions.get(kind) == "True":
            status = shown
            break
    if _meta(o).get("deletionTimestamp"):
        status = "Terminating"
    completions = _get(o, "spec", "completions")
    parallelism = _get(o, "spec", "parallelism")
    total = str(completions) if completions is not None else f"{1 if parallelism is None else parallelism}"
    shown_completions = f"{_int(o, 'status', 'succeeded')}/{total}" if completions is not None or \
        parallelism in (None, 1) else f"{_int(o, 'status', 'succeeded')}/1 of {parallelism}"
    start, end = _time(_get(o, "status", "startTime")), _time(_get(o, "status", "completionTime"))
    duration = "" if start is None else human_duration(((end or now) - start).total_seconds())
    c, i = _containers(_get(o, "spec", "template"))
    return [_meta(o).get("name"), status, shown_completions, duration, _age(o, now), c, i,
            _selector(_get(o, "spec", "selector"))]


def _cronjob(o: Obj, now: datetime) -> list[Any]:
    last = _get(o, "status", "lastScheduleTime")
    c, i = _containers(_get(o, "spec", "jobTemplate", "spec", "template"))
    return [_meta(o).get("name"), _get(o, "spec", "schedule"), _get(o, "spec", "timeZone") or _NONE,
            bool(_get(o, "spec", "suspend")), len(_list(o, "status", "active")),
            _since(last, now) if last else _NONE, _age(o, now), c, i]


def _service(o: Obj, now: datetime) -> list[Any]:
    kind = str(_get(o, "spec", "type") or "ClusterIP")
    external = [str(i) for i in _list(o, "spec", "externalIPs")]
    if kind == "LoadBalancer":
        external += [str(i.get("ip") or i.get("hostname")) for i in _list(o, "status", "loadBalancer", "ingress")
                     if isinstance(i, Mapping)]
        shown_external = ",".join(external) if external else "<pending>"
    elif kind == "ExternalName":
        shown_external = str(_get(o, "spec", "externalName") or _NONE)
    else:
        shown_external = ",".join(external) if external else _NONE
    ports = []
    for p in _list(o, "spec", "ports"):
        if isinstance(p, Mapping):
            node = f":{p['nodePort']}" if p.get("nodePort") else ""
            ports.append(f"{p.get('port')}{node}/{p.get('protocol', 'TCP')}")
    selector = _get(o, "spec", "selector") or {}
    return [_meta(o).get("name"), kind, _get(o, "spec", "clusterIP") or _NONE, shown_external, _join(ports),
            _age(o, now), _join([f"{k}={v}" for k, v in sorted(selector.items())])]


def _modes(modes: list[Any]) -> str:
    short = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX", "ReadWriteOncePod": "RWOP"}
    return ",".join(short.get(str(m), str(m)) for m in modes)


def _pvc(o: Obj, now: datetime) -> list[Any]:
    phase = "Terminating" if _meta(o).get("deletionTimestamp") else _get(o, "status", "phase") or ""
    bound = bool(_get(o, "spec", "volumeName"))
    return [_meta(o).get("name"), phase, _get(o, "spec", "volumeName") or "",
            _get(o, "status", "capacity", "storage") or "" if bound else "",
            _modes(_list(o, "status", "accessModes")) if bound else "",
            _get(o, "spec", "storageClassName") or _NONE, _get(o, "spec", "volumeAttributesClassName") or _NONE,
            _age(o, now), _get(o, "spec", "volumeMode") or "Filesystem"]


def _pv(o: Obj, now: datetime) -> list[Any]:
    ref = _get(o, "spec", "claimRef")
    claim = f"{ref.get('namespace')}/{ref.get('name')}" if isinstance(ref, Mapping) else ""
    phase = "Terminating" if _meta(o).get("deletionTimestamp") else _get(o, "status", "phase") or ""
    return [_meta(o).get("name"), _get(o, "spec", "capacity", "storage") or "",
            _modes(_list(o, "spec", "accessModes")), _get(o, "spec", "persistentVolumeReclaimPolicy") or "",
            phase, claim, _get(o, "spec", "storageClassName") or "",
            _get(o, "spec", "volumeAttributesClassName") or _NONE, _get(o, "status", "reason") or "",
            _age(o, now), _get(o, "spec", "volumeMode") or "Filesystem"]


def _pdb(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _get(o, "spec", "minAvailable") if _get(o, "spec", "minAvailable") is not None
            else "N/A", _get(o, "spec", "maxUnavailable") if _get(o, "spec", "maxUnavailable") is not None else "N/A",
            _int(o, "status", "disruptionsAllowed"), _age(o, now)]


def _priorityclass(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _get(o, "value") or 0, bool(_get(o, "globalDefault")), _age(o, now),
            _get(o, "preemptionPolicy") or "PreemptLowerPriority"]


def _event(o: Obj, now: datetime) -> list[Any]:
    first = _get(o, "firstTimestamp") or _get(o, "eventTime") or _meta(o).get("creationTimestamp")
    last = _get(o, "lastTimestamp") or _get(o, "series", "lastObservedTime") or first
    count = _get(o, "series", "count") or _get(o, "count") or 1
    last_seen = _since(last, now)
    if isinstance(count, int) and count > 1:
        last_seen = f"{last_seen} (x{count} over {_since(first, now)})"
    involved = _get(o, "involvedObject") or {}
    source = _get(o, "source", "component") or _get(o, "reportingComponent") or ""
    host = _get(o, "source", "host")
    return [last_seen, _get(o, "type") or "", _get(o, "reason") or "",
            f"{str(involved.get('kind', '')).lower()}/{involved.get('name', '')}", _get(o, "message") or "",
            involved.get("fieldPath") or "", f"{source}, {host}" if host else source, _since(first, now), count,
            _meta(o).get("name")]


def _lease(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _get(o, "spec", "holderIdentity") or _NONE, _age(o, now)]


def _namespace(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _get(o, "status", "phase") or "", _age(o, now)]


def _configmap(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), len(o.get("data") or {}) + len(o.get("binaryData") or {}), _age(o, now)]


def _secret(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), o.get("type") or "Opaque", len(o.get("data") or {}) + len(o.get("stringData")
                                                                                         or {}), _age(o, now)]


def _name_age(o: Obj, now: datetime) -> list[Any]:
    return [_meta(o).get("name"), _age(o, now)]


def _s(name: str, priority: int = 0) -> Column:
    return (name, "string", priority)


def _i(name: str, priority: int = 0) -> Column:
    return (name, "integer", priority)


_NAME: Column = ("Name", "string", 0)
_AGE = _s("Age")
_WORKLOAD_WIDE = [_s("Containers", 1), _s("Images", 1), _s("Selector", 1)]

# (group, kind) -> (columns, cells)
_PRINTERS: dict[tuple[str, str], tuple[list[Column], Cells]] = {
    ("", "Pod"): ([_NAME, _s("Ready"), _s("Status"), _i("Restarts"), _AGE, _s("IP", 1), _s("Node", 1),
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
    ("", "Event"): ([_s("Last Seen"), _s("Type"), _s("Reason"), _s("Object"), _s("Message"), _s("Subobject", 1),
                     _s("Source", 1), _s("First Seen", 1), _i("Count", 1), _s("Name", 1)], _event),
    ("", "ConfigMap"): ([_NAME, _i("Data"), _AGE], _configmap),
    ("", "Secret"): ([_NAME, _s("Type"), _i("Data"), _AGE], _secret),
    ("apps", "Deployment"): ([_NAME, _s("Ready"), _i("Up-to-date"), _i("Available"), _AGE, *_WORKLOAD_WIDE],
                             _deployment),
    ("apps", "ReplicaSet"): ([_NAME, _i("Desired"), _i("Current"), _i("Ready"), _AGE, *_WORKLOAD_WIDE],
                             _replicaset),
    ("apps", "StatefulSet"): ([_NAME, _s("Ready"), _AGE, _s("Containers", 1), _s("Images", 1)], _statefulset),
    ("apps", "DaemonSet"): ([_NAME, _i("Desired"), _i("Current"), _i("Ready"), _i("Up-to-date"), _i("Available"),
                             _s("Node Selector"), _AGE, *_WORKLOAD_WIDE], _daemonset),
    ("batch", "Job"): ([_NAME, _s("Status"), _s("Completions"), _s("Duration"), _AGE, *_WORKLOAD_WIDE], _job),
    ("batch", "CronJob"): ([_NAME, _s("Schedule"), _s("Timezone"), ("Suspend", "boolean", 0), _i("Active"),
                            _s("Last Schedule"), _AGE, _s("Containers", 1), _s("Images", 1)], _cronjob),
    ("policy", "PodDisruptionBudget"): ([_NAME, _s("Min Available"), _s("Max Unavailable"),
                                         _i("Allowed Disruptions"), _AGE], _pdb),
    ("scheduling.k8s.io", "PriorityClass"): ([_NAME, _i("Value"), ("Global-Default", "boolean", 0), _AGE,
                                              _s("PreemptionPolicy")], _priorityclass),
    ("coordination.k8s.io", "Lease"): ([_NAME, _s("Holder"), _AGE], _lease),
}


# --- custom resources: additionalPrinterColumns -------------------------------------

def _json_path(o: Any, path: str) -> Any:
    """The value at a simple JSONPath (.a.b, .a[0].b, .a['x.y']); None when absent or unsupported."""
    path = path.strip()
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1]
    i, node = 0, o
    while i < len(path) and node is not None:
        ch = path[i]
        if ch == ".":
            j = i + 1
            while j < len(path) and path[j] not in ".[":
                j += 1
            key = path[i + 1:j]
            node = node.get(key) if isinstance(node, Mapping) and key else node if not key else None
            i = j
        elif ch == "[":
            j = path.find("]", i)
            if j < 0:
                return None
            inner = path[i + 1:j].strip()
            if inner[:1] in "'\"" and inner[-1:] == inner[:1]:
                node = node.get(inner[1:-1]) if isinstance(node, Mapping) else None
            elif inner.lstrip("-").isdigit():
                node = _get(node, int(inner))
            else:
                return None
            i = j + 1
        else:
            return None
    return node


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
            value = _json_path(o, str(c.get("jsonPath", "")))
            if value is None:
                row.append(None)
            elif c.get("type") == "date":
                row.append(_since(value, now))
            elif isinstance(value, (Mapping, list)):
                row.append(json.dumps(value, separators=(",", ":")))
            else:
                row.append(value)
        return row

    defs: list[Column] = [_NAME] + [(str(c.get("name", "")), str(c.get("type", "string")),
                                      int(c.get("priority") or 0)) for c in columns]
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
                   include_object: str | None = None) -> dict[str, Any] | None:
    """`body` (one object, or a list body with items and metadata) as a meta.k8s.io Table when the
    Accept header asks for one; None: answer `body` itself. `include_object` is the includeObject
    query parameter (Metadata by default, Object or None)."""
    wanted = wants_table(request_accept)
    if wanted is None:
        return None
    include = include_object or "Metadata"
    if include not in ("Metadata", "Object", "None"):
        raise BadRequest(f'includeObject: Unsupported value: "{include}": supported values: "Metadata", '
                         f'"None", "Object"')
    version = wanted.params.get("v", "v1")
    columns, cells, descriptions = _printer(state, rt)
    now = state.call(lambda c: c.clock.now())
    items = body.get("items")
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
            "columnDefinitions": column_defs, "rows": rows}
