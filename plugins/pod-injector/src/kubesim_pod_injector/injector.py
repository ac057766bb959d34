"""Imperator's pod resource injector on plain Pod dicts (upstream pkg/api/v1alpha1/pod_resource_injector.go).

A guest pod (labels machine-group, machine-type and pod-role=guest) gets, from its Machine's
machine type:

- the resources of the chosen container (the one named by the `injecting-container` label,
  else the first) replaced by requests = limits = the machine type's cpu, memory and GPUs;
- a required node affinity term appended (after dropping the pod's own match expressions
  that ask for an injected key's value);
- its tolerations with the same key and value as the injected ones replaced by them.

It is denied when the pod already exists (an update), when no Machine has its group, when
the Machine has no such machine type, and when no reservation pod of the type is left
(`reserved == 0`). Where upstream's Go code would panic (no status entry for the machine
type yet, an affinity without nodeAffinity, a match expression without values, a pod
without containers) the webhook call fails; `WebhookCallFailed` stands for that.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from kubesim_imperator_machine import affinity_match_expressions, machine_type_resources, tolerations
from kubesim_imperator_nodepool import (
    INJECT_CONTAINER_KEY,
    MACHINE_GROUP_KEY,
    MACHINE_TYPE_KEY,
    POD_ROLE_GUEST,
    POD_ROLE_KEY,
)

__all__ = [
    "Denied",
    "WebhookCallFailed",
    "find_machine_type",
    "inject_affinity",
    "inject_resources",
    "inject_to_pod",
    "inject_tolerations",
    "injecting_container_index",
    "requires_injection",
]

Obj = dict[str, Any]


class Denied(Exception):
    """admission.Denied(message): the webhook refuses the pod."""


class WebhookCallFailed(Exception):
    """The webhook's handler panics in Go; the API server sees the call fail."""


def requires_injection(pod: Mapping[str, Any]) -> bool:
    """requiredInjection: machine-group and machine-type labels present, pod-role guest."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return MACHINE_GROUP_KEY in labels and MACHINE_TYPE_KEY in labels and labels.get(POD_ROLE_KEY) == POD_ROLE_GUEST


def injecting_container_index(pod: Mapping[str, Any]) -> int:
    """findInjectingTargetContainerIndex: the container named by the label, else 0."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    if INJECT_CONTAINER_KEY in labels:
        for i, c in enumerate((pod.get("spec") or {}).get("containers") or ()):
            if c.get("name") == labels[INJECT_CONTAINER_KEY]:
                return i
    return 0


def find_machine_type(machines: Iterable[Mapping[str, Any]], machine_group: str,
                      machine_type: str) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]:
    """findMachineType: (machine type, its status usage) of the first Machine labelled with the group."""
    found = list(machines)
    if not found:
        raise Denied(f"failed to find machine-group <{machine_group}>")
    machine = found[0]
    target = next((mt for mt in (machine.get("spec") or {}).get("machineTypes") or ()
                   if mt.get("name") == machine_type), None)
    usage = next((am.get("usage") or {} for am in (machine.get("status") or {}).get("availableMachines") or ()
                  if am.get("name") == machine_type), None)
    return target, usage


def inject_resources(pod: Obj, machine_type: Mapping[str, Any], index: int) -> None:
    """injectResource: requests and limits of container `index` become the machine type's."""
    containers = (pod.get("spec") or {}).get("containers") or []
    if index >= len(containers):
        raise WebhookCallFailed("index out of range")
    resources = machine_type_resources(machine_type)
    containers[index]["resources"] = {"requests": dict(resources), "limits": dict(resources)}


def _first_value(expr: Mapping[str, Any]) -> str:
    values = expr.get("values") or []
    if not values:
        raise WebhookCallFailed("index out of range")  # mExpression.Values[0]
    return str(values[0])


def _drop_injected(exprs: list[Obj], injected: Mapping[str, str]) -> list[Obj]:
    """One term's match expressions after upstream's removal loop, Go slice aliasing included.

    The loop ranges over the original slice while each removal shifts the shared backing
    array and rebuilds the term's slice from the original header, so the result is always
    one shorter than the original when anything matched.
    """
    array, n, length = list(exprs), len(exprs), None
    for index in range(n):
        expr = array[index]
        if injected.get(str(expr.get("key", "")), "") != _first_value(expr):
            continue
        if index != n - 1:
            array[index:n - 1] = array[index + 1:n]
        length = n - 1
    return exprs if length is None else array[:length]


def inject_affinity(pod: Obj, requirements: list[Obj]) -> None:
    """injectPodAffinity: append the machine type's node selector term."""
    injected = {str(r["key"]): str(r["values"][0]) for r in requirements}
    spec = pod.setdefault("spec", {})
    affinity = spec.get("affinity")
    if affinity is None:
        affinity = spec["affinity"] = {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}
    elif affinity.get("nodeAffinity") is None:
        raise WebhookCallFailed("invalid memory address or nil pointer dereference")
    node_affinity = affinity["nodeAffinity"]
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        required = node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": []}
    terms = required.setdefault("nodeSelectorTerms", [])
    for term in terms:
        if "matchExpressions" in term:
            term["matchExpressions"] = _drop_injected(list(term["matchExpressions"] or []), injected)
    terms.append({"matchExpressions": requirements})


def inject_tolerations(pod: Obj, injected: list[Obj]) -> None:
    """injectPodToleration: each injected toleration replaces the first one with its key and value."""
    spec = pod.setdefault("spec", {})
    current = list(spec.get("tolerations") or [])
    for toleration in injected:
        for i, t in enumerate(current):
            if t.get("key", "") == toleration["key"] and t.get("value", "") == toleration["value"]:
                del current[i]
                break
        current.append(dict(toleration))
    spec["tolerations"] = current


def inject_to_pod(pod: Obj, name: str, machines: Iterable[Mapping[str, Any]]) -> Obj:
    """injectToPod: the mutated copy of a guest pod; `name` is the pod's name as the webhook sees it.

    `machines` are the Machines labelled with the pod's machine group, in list order.
    """
    out = copy.deepcopy(pod)
    labels = (out.get("metadata") or {}).get("labels") or {}
    group, type_name = labels[MACHINE_GROUP_KEY], labels[MACHINE_TYPE_KEY]
    index = injecting_container_index(out)
    target, usage = find_machine_type(machines, group, type_name)
    if target is None:
        raise Denied(f"machine-group, <{group}> does not have machine-type, <{type_name}>")
    if usage is None:
        raise WebhookCallFailed("invalid memory address or nil pointer dereference")
    if int(usage.get("reserved", 0)) == 0:
        namespace = (out.get("metadata") or {}).get("namespace", "")
        raise Denied(f"name: <{name}>, namespace: <{namespace}>; there is no <{target.get('name', '')}> left")
    inject_resources(out, target, index)
    inject_affinity(out, affinity_match_expressions(target, group))
    inject_tolerations(out, tolerations(type_name, group))
    return out
