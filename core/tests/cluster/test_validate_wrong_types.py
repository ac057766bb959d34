"""Wrong JSON types anywhere in a built-in object give field errors, never an exception: every
field of a valid object of each validated kind is replaced by values of other types, and the
create check (kubesim validate's: decoding, then validation) and the update validation (which
also sees objects that never went through decoding) must both answer with messages."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster, check_new_object, strategies

TEMPLATE: dict[str, Any] = {
    "metadata": {"labels": {"app": "w"}},
    "spec": {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}],
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": "DoNotSchedule",
                                       "labelSelector": {"matchLabels": {"a": "b"}}, "matchLabelKeys": ["x"]}],
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}],
                 "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}]}},
            "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]},
                 "topologyKey": "z", "namespaces": ["x"], "matchLabelKeys": ["q"]}]},
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "podAffinityTerm": {"topologyKey": "z"}}]},
        },
        "schedulingGates": [{"name": "g"}],
        "nodeSelector": {"a": "b"},
    },
}
SELECTOR = {"matchLabels": {"app": "w"}}
OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": TEMPLATE["spec"]},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
     "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}], "providerID": "x"},
     "status": {"capacity": {"cpu": "4", "memory": "1Gi", "pods": "110"}}},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
     "spec": {"replicas": 1, "selector": SELECTOR, "template": TEMPLATE,
              "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}}}},
    {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"},
     "spec": {"replicas": 1, "selector": SELECTOR, "template": TEMPLATE, "ordinals": {"start": 1},
              "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}},
              "volumeClaimTemplates": [{"metadata": {"name": "x"}, "spec": {}}]}},
    {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"},
     "spec": {"selector": SELECTOR, "template": TEMPLATE,
              "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "10%"}}}},
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
     "spec": {"manualSelector": True, "selector": SELECTOR, "completionMode": "Indexed", "completions": 2,
              "template": {**TEMPLATE, "spec": {**TEMPLATE["spec"], "restartPolicy": "Never"}}}},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b"},
     "spec": {"minAvailable": "50%", "selector": SELECTOR}},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc"}, "value": 5,
     "preemptionPolicy": "Never"},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}, "spec": {"finalizers": ["kubernetes"]}},
]
WRONG = [None, "x", -1, 2**70, 1.5, True, [], {"a": 1}, [None]]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, (*path, key))


def _replaced(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    target: Any = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


@pytest.mark.parametrize("obj", OBJECTS, ids=[o["kind"] for o in OBJECTS])
def test_wrong_types_give_messages(obj: dict[str, Any]) -> None:
    registry = Cluster(Clock()).registry
    rt = registry.lookup(obj["apiVersion"], obj["kind"])
    assert check_new_object(registry, obj) is None
    checked = 0
    for path in _paths(obj):
        if not path or path[0] in ("metadata", "apiVersion", "kind"):
            continue
        for value in WRONG:
            bad = _replaced(obj, path, value)
            message = check_new_object(registry, bad)
            # the decoding's 400 or validation's 422, never an exception
            assert message is None or message.startswith((f'{rt.group_kind} "', f"{rt.kind} in version")), message
            strategies.apply_defaults(rt, bad)
            assert all(str(e) for e in strategies.validate_kind_update(rt, bad, copy.deepcopy(obj)))
            checked += 1
    assert checked >= len(WRONG)
