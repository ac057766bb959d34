"""Hypothesis strategies for valid Scenario documents, built from kubesim.testing's builders.

A generated scenario is valid as the API server and `kubesim validate` see it: every
object passes its kind's validation, every patch/delete names an object an earlier step
creates, and patches touch only what the API server lets a client change (labels and
annotations), so a run never fails on the input alone. Sizes stay small: a run takes
milliseconds in-process.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from kubesim.testing import (
    create,
    delete,
    deployment,
    done,
    namespace,
    node,
    patch,
    pod,
    priority_class,
    replicaset,
    scenario,
)

__all__ = ["Obj", "scenarios"]

Obj = dict[str, Any]

ZONES = ("zone-a", "zone-b", "zone-c")
APPS = ("web", "batch", "db")
TAINT_KEYS = ("dedicated", "gpu")
EFFECTS = ("NoSchedule", "PreferNoSchedule")
CPUS = ("500m", "1", "2", "4", "16")
MEMORIES = ("512Mi", "1Gi", "4Gi", "16Gi")
POD_CPUS = (None, "50m", "100m", "250m", "1", "3")
POD_MEMORIES = (None, "64Mi", "256Mi", "1Gi")
PATCH_TYPES = ("merge", "strategic", "json")

dns_label = st.from_regex(r"\A[a-z]([a-z0-9-]{0,10}[a-z0-9])?\Z")


@st.composite
def _node(draw: st.DrawFn, name: str) -> Obj:
    taints = draw(st.lists(st.tuples(st.sampled_from(TAINT_KEYS), st.sampled_from(EFFECTS)),
                           max_size=2, unique_by=lambda t: t[0]))
    return node(
        name,
        cpu=draw(st.sampled_from(CPUS)),
        memory=draw(st.sampled_from(MEMORIES)),
        pods=draw(st.integers(1, 110)),
        labels={"topology.kubernetes.io/zone": draw(st.sampled_from(ZONES))},
        taints=[f"{key}=true:{effect}" for key, effect in taints],
        unschedulable=draw(st.booleans()) and draw(st.booleans()),
    )


def _tolerations(draw: st.DrawFn) -> list[Obj]:
    out = []
    for key in draw(st.lists(st.sampled_from(TAINT_KEYS), unique=True, max_size=2)):
        toleration = {"key": key, "operator": draw(st.sampled_from(("Equal", "Exists"))),
                      "effect": draw(st.sampled_from(EFFECTS))}
        if toleration["operator"] == "Equal":  # validateTolerations: Exists takes no value
            toleration["value"] = "true"
        out.append(toleration)
    return out


def _affinity(draw: st.DrawFn, app: str) -> Obj:
    affinity: Obj = {}
    zones = draw(st.lists(st.sampled_from(ZONES), unique=True, min_size=1, max_size=3))
    term = {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": zones}]}
    choice = draw(st.sampled_from(("none", "required", "preferred", "pod-anti")))
    if choice == "required":
        affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    elif choice == "preferred":
        affinity["nodeAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": draw(st.integers(1, 100)), "preference": term}]}
    elif choice == "pod-anti":
        affinity["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": draw(st.integers(1, 100)), "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}}]}
    return affinity


def _pod_spec(draw: st.DrawFn, app: str, priority_classes: list[str]) -> Obj:
    spec: Obj = {}
    tolerations = _tolerations(draw)
    if tolerations:
        spec["tolerations"] = tolerations
    affinity = _affinity(draw, app)
    if affinity:
        spec["affinity"] = affinity
    if draw(st.booleans()):
        spec["topologySpreadConstraints"] = [{
            "maxSkew": draw(st.integers(1, 3)),
            "topologyKey": draw(st.sampled_from(("topology.kubernetes.io/zone", "kubernetes.io/hostname"))),
            "whenUnsatisfiable": draw(st.sampled_from(("DoNotSchedule", "ScheduleAnyway"))),
            "labelSelector": {"matchLabels": {"app": app}},
        }]
    if priority_classes and draw(st.booleans()):
        spec["priorityClassName"] = draw(st.sampled_from(priority_classes))
    return spec


def _label_patch(draw: st.DrawFn, target: Obj) -> Obj:
    """A patch of a label or annotation of `target` in one of the three patch types (always allowed)."""
    value = draw(st.sampled_from(("a", "b", "")))
    kind = draw(st.sampled_from(PATCH_TYPES))
    if kind == "json":  # builders leave annotations out: "add" creates them whole
        body: Any = [{"op": "add", "path": "/metadata/annotations", "value": {"patched": value}}]
    else:
        body = {"metadata": {"labels": {"patched": value}}}
    return patch(target, body, patch_type=kind)


@st.composite
def scenarios(draw: st.DrawFn, *, max_nodes: int = 4, max_pods: int = 6) -> Obj:
    """A valid Scenario document: objects at step 0..2, patches and deletes later, maybe a done."""
    names = draw(st.lists(dns_label, unique=True, min_size=12, max_size=12))
    steps: dict[int, list[Obj]] = {0: []}

    def at(step: int, op: Obj) -> None:
        steps.setdefault(step, []).append(op)

    namespaces = ["default"]
    for ns_name in names[:draw(st.integers(0, 2))]:
        if ns_name not in ("default", "kube-system", "kube-public", "kube-node-lease"):
            at(0, create(namespace(ns_name)))
            namespaces.append(ns_name)
    classes = []
    for i in range(draw(st.integers(0, 2))):
        classes.append(f"prio-{i}")
        at(0, create(priority_class(f"prio-{i}", draw(st.integers(-1000, 10**9)),
                                    preemption_policy=draw(st.sampled_from((None, "Never", "PreemptLowerPriority"))))))
    created: list[tuple[int, Obj]] = []
    for i in range(draw(st.integers(1, max_nodes))):
        step = draw(st.integers(0, 1))
        obj = draw(_node(f"node-{i}"))
        at(step, create(obj))
        created.append((step, obj))
    for i in range(draw(st.integers(0, max_pods))):
        app = draw(st.sampled_from(APPS))
        step = draw(st.integers(0, 2))
        obj = pod(f"pod-{i}", namespace=draw(st.sampled_from(namespaces)),
                  cpu=draw(st.sampled_from(POD_CPUS)), memory=draw(st.sampled_from(POD_MEMORIES)),
                  labels={"app": app}, spec=_pod_spec(draw, app, classes))
        at(step, create(obj))
        created.append((step, obj))
    for i in range(draw(st.integers(0, 2))):
        build = draw(st.sampled_from((deployment, replicaset)))
        app = draw(st.sampled_from(APPS))
        obj = build(f"{app}-set-{i}", draw(st.integers(0, 3)), namespace=draw(st.sampled_from(namespaces)),
                    labels={"app": app, "set": str(i)}, cpu=draw(st.sampled_from(POD_CPUS)))
        step = draw(st.integers(0, 2))
        at(step, create(obj))
        created.append((step, obj))
    if draw(st.booleans()):
        at(0, create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                      "metadata": {"name": "pdb", "namespace": "default"},
                      "spec": {"minAvailable": draw(st.integers(0, 3)),
                               "selector": {"matchLabels": {"app": draw(st.sampled_from(APPS))}}}}))
    last = 2
    changed: set[int] = set()
    # later operations leave pods alone: the scheduler may preempt (delete) one first, and a
    # patch or delete of a pod that is gone fails the scenario, as it would on a cluster
    targets = [i for i, (_, obj) in enumerate(created) if obj["kind"] != "Pod"]
    for _ in range(draw(st.integers(0, 3))):
        index = draw(st.sampled_from(targets))
        if index in changed:
            continue
        born, obj = created[index]
        step = draw(st.integers(born + 1, born + 4))
        last = max(last, step)
        changed.add(index)  # one later operation per object: never a patch after its delete
        at(step, _label_patch(draw, obj) if draw(st.booleans()) else delete(obj))
    if draw(st.booleans()):
        at(last + draw(st.integers(1, 2)), done())
    return scenario(draw(dns_label), steps, simulation_controllers=["scheduler"])
