"""A scheduler_perf workload as a kubesim Scenario: its ops become operations on numbered steps.

Time is simulated and deterministic. Each op starts a new MajorStep once the ops before it
have finished: the engine runs the scheduler until nothing is left to do at the end of
every step, which is upstream's wait for the pods to be scheduled (createPods without
skipWaitToCompletion, deletePods, barrier). An op after `skipWaitToCompletion: true` joins
its step instead. A step lasts `step_seconds` of simulated time; `sleep` skips
ceil(duration / step) steps; `deletePodsPerSecond` and `updatePerSecond` spread their writes
over the steps at that rate; `churn` acts every intervalMilliseconds of simulated time from
its op until the workload's last step. Names are fixed (prefix + counter instead of the API
server's random generateName suffix) so that two runs are the same.
"""

# upstream: test/integration/scheduler_perf/scheduler_perf.go (runWorkload: each op's effect,
# default namespaces "namespace-<op index>", churn modes), util.go (the default node and pod),
# test/utils/runners.go (LabelNodePrepareStrategy round robin, NodeAllocatableStrategy,
# UniqueNodeLabelStrategy), test/utils/create_resources.go (pods with a PV and PVC each)

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesim.cluster.namespaces import DEFAULT_NAMESPACES
from kubesim.cluster.registry import BUILTIN_TYPES
from kubesim.errors import InvalidInput, Problem
from kubesim.perf.config import Op, TestCase, Workload, parse_duration, resolve_op
from kubesim.perf.templates import TemplateCache

__all__ = ["Collector", "Plan", "compile_workload", "default_node", "default_pod"]

_CLUSTER_SCOPED = frozenset(t.kind for t in BUILTIN_TYPES if not t.namespaced)
API_VERSION = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"


def default_node() -> dict[str, Any]:
    """The node scheduler_perf creates without nodeTemplatePath: 4 CPU, 32Gi, 110 pods, Ready."""
    resources = {"pods": "110", "cpu": "4", "memory": "32Gi"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"generateName": "sample-node-"}, "spec": {},
            "status": {"capacity": dict(resources), "allocatable": dict(resources), "phase": "Running",
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def default_pod() -> dict[str, Any]:
    """The pod scheduler_perf creates without a pod template: one pause container, 100m / 500Mi."""
    req = {"cpu": "100m", "memory": "500Mi"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "pod-"},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                     "ports": [{"containerPort": 80}],
                                     "resources": {"requests": dict(req), "limits": dict(req)}}]}}


@dataclass
class Collector:
    """Pods whose scheduling is measured: those of a createPods op with collectMetrics, or those of
    `namespaces` (matching `selector`) between startCollectingMetrics and stopCollectingMetrics."""

    name: str
    first_step: int
    last_step: int = -1
    pods: set[tuple[str, str]] | None = None
    namespaces: frozenset[str] = frozenset()
    selector: Mapping[str, str] = field(default_factory=dict)

    def measures(self, namespace: str, name: str, labels: Mapping[str, str] | None) -> bool:
        """Whether pod namespace/name (with `labels`) is one of the measured pods."""
        if self.pods is not None:
            return (namespace, name) in self.pods
        if namespace not in self.namespaces:
            return False
        labels = labels or {}
        return all(labels.get(k) == v for k, v in self.selector.items())


@dataclass
class Plan:
    """A workload ready to run: the Scenario document and the measured pods."""

    name: str
    scenario: dict[str, Any]
    collectors: list[Collector]
    feature_gates: dict[str, bool]
    steps: int
    objects: int
    origins: list[str] = field(default_factory=list)
    """For each operation of the scenario, the field path of the op that wrote it (error messages)."""


class _Compiler:
    """Walks a workload's ops, placing each write on a step."""

    def __init__(self, case: TestCase, workload: Workload, step_seconds: float, max_objects: int,
                 templates: TemplateCache) -> None:
        self.case, self.workload = case, workload
        self.step_seconds = step_seconds
        self.max_objects = max_objects
        self.templates = templates
        self.name = f"{case.name}/{workload.name}"
        self.ops: list[dict[str, Any]] = []
        self.origins: list[str] = []  # the field path of the op that wrote each operation
        self.origin = ""
        self.step = 0
        self.advance = False
        self.last_step = 0
        self.names: dict[tuple[str, str, str], int] = {}  # (kind, namespace, prefix) -> next suffix
        self.taken: set[tuple[str, str, str]] = set()
        self.namespaces: set[str] = set(DEFAULT_NAMESPACES)
        self.pods: dict[tuple[str, str], dict[str, str]] = {}  # live pods this workload created -> labels
        self.collectors: list[Collector] = []
        self.open: Collector | None = None
        self.churns: list[tuple[Op, int]] = []

    # --- placing writes -------------------------------------------------------------

    def _begin(self) -> None:
        if self.advance:
            self.step += 1
            self.advance = False

    def _emit(self, step: int, operation: dict[str, Any]) -> None:
        if len(self.ops) >= self.max_objects:
            raise InvalidInput([Problem(self.workload.path, f"workload {self.name} writes more than "
                                        f"{self.max_objects} objects (--max-objects)", self.case.file)])
        operation["step"] = step
        self.ops.append(operation)
        self.origins.append(self.origin)
        self.last_step = max(self.last_step, step)

    def _name(self, obj: dict[str, Any], default_prefix: str) -> None:
        """Give `obj` a fixed unique name: its own when free, else generateName (or the default
        prefix) followed by a counter."""
        meta = obj.setdefault("metadata", {})
        ns = meta.get("namespace") or ""
        kind = obj.get("kind", "")
        name = meta.get("name")
        if not name or (kind, ns, name) in self.taken:
            prefix = meta.get("generateName") or (f"{name}-" if name else default_prefix)
            n = self.names.get((kind, ns, prefix), 0)
            while (kind, ns, f"{prefix}{n}") in self.taken:
                n += 1
            self.names[(kind, ns, prefix)] = n + 1
            name = f"{prefix}{n}"
        meta.pop("generateName", None)
        meta["name"] = name
        self.taken.add((kind, ns, name))

    def _create(self, step: int, obj: dict[str, Any]) -> None:
        self._emit(step, {"createOperation": {"object": obj}})

    def _ensure_namespace(self, ns: str, step: int) -> None:
        if ns and ns not in self.namespaces:
            self.namespaces.add(ns)
            self.taken.add(("Namespace", "", ns))
            self._create(step, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})

    def _template(self, op: Op, field_name: str, path: str | None, default: dict[str, Any] | None,
                  env: Mapping[str, Any]) -> dict[str, Any]:
        if path is None:
            assert default is not None
            return copy.deepcopy(default)
        kind = default.get("kind") if default is not None else None
        return self.templates.object(self.case.path_of(path), env, f"{op.path}.{field_name}", kind)

    def _step_at(self, start: int, seconds: float) -> int:
        return start + math.floor(seconds / self.step_seconds + 1e-9)

    # --- ops ------------------------------------------------------------------------

    def create_nodes(self, op: Op) -> None:
        self._begin()
        count = op.get("count", 0)
        label = op.get("labelNodePrepareStrategy")
        unique = op.get("uniqueNodeLabelStrategy")
        alloc = op.get("nodeAllocatableStrategy")
        params = op.get("templateParams", {})
        for i in range(count):
            node = self._template(op, "nodeTemplatePath", op.get("nodeTemplatePath"), default_node(),
                                  {**params, "Index": i, "Count": count})
            self._name(node, "node-")
            meta, status = node["metadata"], node.setdefault("status", {})
            if "capacity" in status and "allocatable" not in status:
                status["allocatable"] = dict(status["capacity"])  # as the kubelet reports it
            if label:
                values = label["labelValues"]
                meta.setdefault("labels", {})[label["labelKey"]] = values[i % len(values)]
            if unique:  # upstream: a random UUID; here the node's own name, unique and fixed
                meta.setdefault("labels", {})[unique["labelKey"]] = meta["name"]
            if alloc:
                for key, value in alloc.get("nodeAllocatable", {}).items():
                    status.setdefault("allocatable", {})[key] = value
                    status.setdefault("capacity", {}).setdefault(key, value)
            self._create(self.step, node)
            if alloc and (alloc.get("csiNodeAllocatable") or alloc.get("migratedPlugins")):
                self._create(self.step, self._csi_node(meta["name"], alloc))
        self.advance = True

    @staticmethod
    def _csi_node(node: str, alloc: Mapping[str, Any]) -> dict[str, Any]:
        drivers = []
        for driver, resources in sorted((alloc.get("csiNodeAllocatable") or {}).items()):
            entry: dict[str, Any] = {"name": driver, "nodeID": node}
            count = (resources or {}).get("count") if isinstance(resources, dict) else None
            if count is not None:
                entry["allocatable"] = {"count": count}
            drivers.append(entry)
        meta: dict[str, Any] = {"name": node}
        if alloc.get("migratedPlugins"):
            meta["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": ",".join(alloc["migratedPlugins"])}
        return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": meta, "spec": {"drivers": drivers}}

    def create_namespaces(self, op: Op) -> None:
        self._begin()
        count = op.get("count", 0)
        prefix = op.get("prefix") or "namespace"
        for i in range(count):
            name = f"{prefix}-{i}"
            if op.get("namespaceTemplatePath"):
                obj = self._template(op, "namespaceTemplatePath", op.get("namespaceTemplatePath"),
                                     {"apiVersion": "v1", "kind": "Namespace"}, {"Index": i, "Count": count})
                obj.setdefault("metadata", {})["name"] = name
                if name not in self.namespaces:
                    self.namespaces.add(name)
                    self._create(self.step, obj)
            else:
                self._ensure_namespace(name, self.step)
        self.advance = True

    def create_pods(self, op: Op, namespace: str | None = None) -> None:
        self._begin()
        count = op.get("count", 0)
        ns = namespace or op.get("namespace") or f"namespace-{op.index}"
        self._ensure_namespace(ns, self.step)
        template = op.get("podTemplatePath") or self.case.default_pod_template_path
        params = op.get("templateParams", {})
        batch = op.get("signatureBatchSize") or 0
        measured: set[tuple[str, str]] = set()
        for i in range(count):
            pod = self._template(op, "podTemplatePath", template, default_pod(), {**params, "Index": i, "Count": count})
            meta = pod.setdefault("metadata", {})
            meta["namespace"] = ns
            self._name(pod, "pod-")
            if batch > 0:
                meta.setdefault("labels", {})["signature"] = f"signature-label-{i // batch}"
            if op.get("persistentVolumeTemplatePath") or op.get("persistentVolumeClaimTemplatePath"):
                self._volume(op, pod, i, count)
            self._create(self.step, pod)
            self.pods[(ns, meta["name"])] = dict(meta.get("labels") or {})
            measured.add((ns, meta["name"]))
        if op.get("collectMetrics"):
            self.collectors.append(Collector(self.name, self.step, self.step, pods=measured))
        self.advance = not op.get("skipWaitToCompletion", False)

    def _volume(self, op: Op, pod: dict[str, Any], i: int, count: int) -> None:
        """A PersistentVolume and a claim bound to it for the pod (upstream CreatePodWithPersistentVolume)."""
        ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        env = {"Index": i, "Count": count}
        pv = self._template(op, "persistentVolumeTemplatePath", op.get("persistentVolumeTemplatePath"),
                            {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {}, "spec": {}}, env)
        pvc = self._template(op, "persistentVolumeClaimTemplatePath", op.get("persistentVolumeClaimTemplatePath"),
                             {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {}, "spec": {}}, env)
        pv.setdefault("metadata", {}).update({"name": f"vol-{ns}-{name}"})
        pvc.setdefault("metadata", {}).update({"name": f"pvc-{name}", "namespace": ns})
        pv.setdefault("spec", {})["claimRef"] = {"namespace": ns, "name": f"pvc-{name}"}
        pvc.setdefault("spec", {})["volumeName"] = pv["metadata"]["name"]
        self._create(self.step, pv)
        self._create(self.step, pvc)
        pod["spec"].setdefault("volumes", []).append({"name": "vol", "persistentVolumeClaim": {"claimName": f"pvc-{name}"}})

    def create_pod_sets(self, op: Op) -> None:
        inner: Op = op.get("createPodsOp")
        prefix = op.get("namespacePrefix") or "namespace"
        skip = inner.get("skipWaitToCompletion", False)
        for i in range(op.get("count", 0)):
            self.create_pods(inner, namespace=f"{prefix}-{i}")
            self.advance = False  # the sets are created together, as upstream runs them one after another
        self.advance = not skip

    def delete_pods(self, op: Op) -> None:
        self._begin()
        ns = op.get("namespace") or ""
        selector = op.get("labelSelector") or {}
        rate = op.get("deletePodsPerSecond") or 0
        victims = [key for key, labels in self.pods.items()
                   if key[0] == ns and all(labels.get(k) == v for k, v in selector.items())]
        start = self.step
        for i, (pod_ns, name) in enumerate(victims):
            step = self._step_at(start, i / rate) if rate else start
            self._emit(step, {"deleteOperation": {"typeMeta": {"apiVersion": "v1", "kind": "Pod"},
                                                  "objectMeta": {"name": name, "namespace": pod_ns}}})
            del self.pods[(pod_ns, name)]
        self.step = max(self.step, self.last_step)
        self.advance = not op.get("skipWaitToCompletion", False)

    def create_any(self, op: Op) -> None:
        self._begin()
        count = op.get("count") if op.get("count") is not None else 1
        params = op.get("templateParams", {})
        for i in range(count):
            obj = self._template(op, "templatePath", op.get("templatePath"), None, {**params, "Index": i, "Count": count})
            self._place(obj, op.get("namespace"), self.step)
            self._name(obj, f"{obj.get('kind', 'object').lower()}-")
            self._create(self.step, obj)
            if obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1":
                self.pods[(obj["metadata"].get("namespace", ""), obj["metadata"]["name"])] = dict(
                    obj["metadata"].get("labels") or {})
        self.advance = True

    def _place(self, obj: dict[str, Any], namespace: str | None, step: int) -> None:
        meta = obj.setdefault("metadata", {})
        if obj.get("kind") in _CLUSTER_SCOPED:
            meta.pop("namespace", None)
            return
        ns = namespace or meta.get("namespace") or "default"
        meta["namespace"] = ns
        self._ensure_namespace(ns, step)

    def update_any(self, op: Op) -> None:
        self._begin()
        count = op.get("count") if op.get("count") is not None else 1
        params = op.get("templateParams", {})
        rate = op.get("updatePerSecond") or 0
        start = self.step
        for i in range(count):
            obj = self._template(op, "templatePath", op.get("templatePath"), None, {**params, "Index": i, "Count": count})
            self._place(obj, op.get("namespace"), start)
            meta = obj["metadata"]
            if not meta.get("name"):
                raise InvalidInput([Problem(f"{op.path}.templatePath", "updateAny: the template must name the "
                                            "object to update (metadata.name)", self.case.file)])
            patch = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}
            patch["metadata"] = {k: v for k, v in meta.items() if k not in ("name", "namespace")}
            if not patch["metadata"]:
                del patch["metadata"]
            object_meta = {"name": meta["name"], **({"namespace": meta["namespace"]} if "namespace" in meta else {})}
            self._emit(self._step_at(start, i / rate) if rate else start, {"patchOperation": {
                "typeMeta": {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj["kind"]},
                "objectMeta": object_meta, "patch": json.dumps(patch, sort_keys=True),
                "patchType": "application/merge-patch+json"}})
        self.step = max(self.step, self.last_step)
        self.advance = True

    def churn(self, op: Op) -> None:
        self._begin()
        self.churns.append((op, self.step))

    def barrier(self, op: Op) -> None:
        self.advance = True

    def sleep(self, op: Op) -> None:
        self._begin()
        seconds = parse_duration(op.get("duration") or "0") or 0.0
        self.step += max(0, math.ceil(seconds / self.step_seconds - 1e-9))
        self.last_step = max(self.last_step, self.step)

    def start_collecting(self, op: Op) -> None:
        if self.open is not None:
            raise InvalidInput([Problem(op.path, "startCollectingMetrics while metrics are already being collected",
                                        self.case.file)])
        self._begin()
        name = f"{self.name}/{op.get('name')}" if op.get("name") else self.name
        self.open = Collector(name, self.step, namespaces=frozenset(op.get("namespaces") or ()),
                              selector=dict(op.get("labelSelector") or {}))

    def stop_collecting(self, op: Op) -> None:
        if self.open is None:
            raise InvalidInput([Problem(op.path, "stopCollectingMetrics without startCollectingMetrics", self.case.file)])
        self.open.last_step = self.last_step if self.advance else self.step
        self.collectors.append(self.open)
        self.open = None

    # --- churn ----------------------------------------------------------------------

    def run_churns(self, end: int) -> None:
        """Each churn op acts every intervalMilliseconds from its step until step `end` (upstream
        runs it in the background until the workload ends)."""
        for op, start in self.churns:
            self.origin = op.path
            interval = (op.get("intervalMilliseconds") or 500) / 1000.0
            mode, number = op.get("mode"), op.get("number") or 0
            ns = op.get("namespace") or f"namespace-{op.index}"
            paths = op.get("templatePaths")
            slots: list[list[tuple[dict[str, Any], str] | None]] = [[None] * max(number, 1) for _ in paths]
            tick = 0
            while True:
                tick += 1
                step = self._step_at(start, tick * interval)
                if step > end or (mode == "create" and number and tick > number):
                    break
                for t, path in enumerate(paths):
                    if mode == "create":
                        self._churn_create(op, path, ns, step, tick)
                        continue
                    slot = (tick - 1) % number
                    held = slots[t][slot]
                    if held is None:
                        slots[t][slot] = self._churn_create(op, path, ns, step, tick)
                    else:
                        obj, _ = held
                        meta = obj["metadata"]
                        self._emit(step, {"deleteOperation": {
                            "typeMeta": {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj["kind"]},
                            "objectMeta": {"name": meta["name"], **({"namespace": meta["namespace"]}
                                                                    if "namespace" in meta else {})}}})
                        slots[t][slot] = None

    def _churn_create(self, op: Op, path: str, ns: str, step: int, tick: int) -> tuple[dict[str, Any], str]:
        obj = self.templates.object(self.case.path_of(path), {"Index": tick - 1}, f"{op.path}.templatePaths")
        self._place(obj, ns, step)
        self._name(obj, f"{obj['kind'].lower()}-churn-")
        self._create(step, obj)
        return obj, obj["metadata"]["name"]


_DISPATCH = {
    "createNodes": _Compiler.create_nodes, "createNamespaces": _Compiler.create_namespaces,
    "createPods": _Compiler.create_pods, "createPodSets": _Compiler.create_pod_sets,
    "deletePods": _Compiler.delete_pods, "createAny": _Compiler.create_any, "updateAny": _Compiler.update_any,
    "churn": _Compiler.churn, "barrier": _Compiler.barrier, "sleep": _Compiler.sleep,
    "startCollectingMetrics": _Compiler.start_collecting, "stopCollectingMetrics": _Compiler.stop_collecting,
}


def compile_workload(case: TestCase, workload: Workload, *, step_seconds: float = 1.0,
                     max_objects: int = 2_000_000, templates: TemplateCache | None = None,
                     all_controllers: bool = False) -> Plan:
    """The Scenario that runs `workload` of `case` and the pods it measures.

    InvalidInput (naming the field path) for a missing parameter, a template that cannot be
    read, or more than `max_objects` writes.
    """
    templates = templates or TemplateCache(case.file)
    c = _Compiler(case, workload, step_seconds, max_objects, templates)
    used: set[str] = set()
    for op in case.ops:
        resolved = resolve_op(op, workload, used, case.file)  # first: it refuses ops kubesim does not model
        c.origin = op.path
        _DISPATCH[resolved.opcode](c, resolved)
    if c.open is not None:
        c.stop_collecting(Op("stopCollectingMetrics", {}, f"{workload.path}", -1))
    end = max(c.last_step, c.step)
    c.run_churns(end)
    order = sorted(range(len(c.ops)), key=lambda i: c.ops[i]["step"])  # stable: within a step, as written
    operations = [c.ops[i] for i in order] + [{"step": end + 1, "doneOperation": {}}]
    origins = [c.origins[i] for i in order] + [workload.path]
    controllers: dict[str, Any] = {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}
    if not all_controllers:  # scheduler_perf runs the API server and the scheduler only
        controllers["preSimulationControllers"] = {"disabled": [{"name": "*"}]}
    scenario = {"apiVersion": API_VERSION, "kind": "Scenario",
                "metadata": {"name": _scenario_name(c.name)},
                "spec": {"controllers": controllers, "operations": operations}}
    gates = {**case.feature_gates, **workload.feature_gates}
    return Plan(c.name, scenario, c.collectors, gates, end + 2, len(operations), origins)


def _scenario_name(name: str) -> str:
    """A DNS-1123 name for the Scenario object of a testCase/workload."""
    out = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
    return (out or "workload")[:63].rstrip("-") or "workload"
