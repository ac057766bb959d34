"""Scenario generators: a Sweep's scenarios made from parameters instead of a file.

`uniform` is kubesim's own: identical nodes at step 0 and pods whose requests are drawn
(with the cell's seed) from the sizes given, spread over `steps` steps, then done. Node
and pod shapes follow upstream scheduler_perf's node-default.yaml and pod-default.yaml
(kubernetes/kubernetes test/integration/scheduler_perf/config/). The scheduler is the
only controller, as in scheduler_perf. Plugins add generators with the
`kubesim_scenario_generators` hook.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from kubesim.k8s.quantity import parse_quantity

__all__ = ["BUILTIN_GENERATORS", "Generator", "uniform"]

Generator = Callable[[Mapping[str, Any], int], dict[str, Any]]
SCENARIO_API_VERSION = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"

MAX_NODES = 100_000
MAX_PODS = 1_000_000
_DEFAULTS: dict[str, Any] = {
    "nodes": 10, "nodeCpu": "4", "nodeMemory": "32Gi", "nodePods": 110,
    "pods": 50, "podCpu": ["100m"], "podMemory": ["500Mi"], "steps": 1, "namespace": "default",
}


def _count(params: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = params.get(key, _DEFAULTS[key])
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{key}: expected an integer from {low} to {high}, got {value!r}")
    return value


def _quantity(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key, _DEFAULTS[key])
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    try:
        if text is None:
            raise ValueError
        parse_quantity(text)
    except ValueError:
        raise ValueError(f"{key}: expected a Kubernetes quantity such as 4 or 32Gi, got {value!r}") from None
    return text


def _sizes(params: Mapping[str, Any], key: str) -> list[str]:
    value = params.get(key, _DEFAULTS[key])
    values = value if isinstance(value, list) else [value]
    if not values:
        raise ValueError(f"{key}: expected a quantity or a non-empty list of quantities")
    return [_quantity({key: v}, key) for v in values]


def uniform(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """`nodes` nodes of nodeCpu/nodeMemory/nodePods and `pods` pods, each pod's cpu and memory
    picked with `seed` from podCpu and podMemory (a quantity or a list), created over steps 1..`steps`."""
    unknown = sorted(set(params) - set(_DEFAULTS))
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown parameter (expected one of {', '.join(_DEFAULTS)})")
    nodes = _count(params, "nodes", 1, MAX_NODES)
    pods = _count(params, "pods", 0, MAX_PODS)
    steps = _count(params, "steps", 1, 10_000)
    node_pods = _count(params, "nodePods", 1, 100_000)
    cpu, memory = _quantity(params, "nodeCpu"), _quantity(params, "nodeMemory")
    pod_cpu, pod_memory = _sizes(params, "podCpu"), _sizes(params, "podMemory")
    namespace = params.get("namespace", _DEFAULTS["namespace"])
    if not isinstance(namespace, str) or not namespace:
        raise ValueError(f"namespace: expected a namespace name, got {namespace!r}")
    rng = random.Random(seed)
    capacity = {"cpu": cpu, "memory": memory, "pods": str(node_pods)}
    ops: list[dict[str, Any]] = []
    width = len(str(max(nodes, pods)))
    for i in range(nodes):
        node = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"node-{i:0{width}d}", "labels": {"kubernetes.io/hostname": f"node-{i:0{width}d}"}},
            "status": {"capacity": dict(capacity), "allocatable": dict(capacity),
                       "conditions": [{"type": "Ready", "status": "True"}]},
        }
        ops.append({"id": f"node-{i}", "step": 0, "createOperation": {"object": node}})
    for i in range(pods):
        req = {"cpu": rng.choice(pod_cpu), "memory": rng.choice(pod_memory)}
        pod = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-{i:0{width}d}", "namespace": namespace},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": req, "limits": dict(req)}}]},
        }
        ops.append({"id": f"pod-{i}", "step": 1 + i * steps // max(pods, 1), "createOperation": {"object": pod}})
    ops.append({"id": "done", "step": steps + 1, "doneOperation": {}})
    return {
        "apiVersion": SCENARIO_API_VERSION, "kind": "Scenario",
        "metadata": {"name": "uniform"},
        "spec": {
            "controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]},
                            "preSimulationControllers": {"disabled": [{"name": "*"}]}},
            "operations": ops,
        },
    }


BUILTIN_GENERATORS: dict[str, Generator] = {"uniform": uniform}
"""The generators kubesim ships; plugins' generators may not reuse these names."""
