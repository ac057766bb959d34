"""The injector's behaviour beyond upstream's tests: the namespace selector, merging with what a pod
already has (Go's slice behaviour included), where upstream's handler panics, and which writes
the webhook sees."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from injector_harness import (
    GROUP,
    INJECTED_NS,
    MACHINE_TYPE,
    NOT_INJECTED_NS,
    World,
    fake_machine,
    fake_pod,
    guest_labels,
    new_world,
)
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Cluster
from kubesim.errors import ApiError
from kubesim_imperator_nodepool import MACHINE_GROUP_KEY, MACHINE_STATUS_KEY, POD_ROLE_KEY
from kubesim_pod_injector import admit_pod

TYPE_KEY = f"imperator.tenzen-y.io/{MACHINE_TYPE}"
FAILED_CALL = ('Internal error occurred: failed calling webhook "mutator.pod.imperator.tenzen-y.io": failed to call '
               'webhook: Post "https://imperator-webhook-service.imperator-system.svc:443/mutate-core-v1-pod'
               '?timeout=10s": EOF')


@pytest.fixture
def world() -> Iterator[World]:
    w = new_world()
    yield w
    w.close()


@pytest.fixture
def ready(world: World) -> World:
    world.create(fake_machine())
    world.set_usage(GROUP)
    return world


def guest(name: str = "g", **spec: Any) -> dict[str, Any]:
    pod = fake_pod(name, INJECTED_NS, guest_labels(MACHINE_TYPE))
    pod["spec"].update(spec)
    return pod


def test_namespace_without_the_label_is_left_alone(ready: World) -> None:
    """The namespaceSelector: a guest-labelled pod elsewhere is neither injected nor denied."""
    labels = {**guest_labels(MACHINE_TYPE), MACHINE_GROUP_KEY: "no-such-group"}
    ready.create(fake_pod("stray", NOT_INJECTED_NS, labels))
    pod = ready.pod("stray", NOT_INJECTED_NS)
    assert "affinity" not in pod["spec"] and "resources" not in pod["spec"]["containers"][0]


def test_generated_names_are_empty_for_the_webhook(world: World) -> None:
    """The API server names a generateName pod after mutating admission: the denial shows name <>."""
    machine = fake_machine()
    machine["spec"]["machineTypes"][0]["available"] = 0
    world.create(machine)
    world.set_usage(GROUP)
    pod = guest()
    del pod["metadata"]["name"]
    pod["metadata"]["generateName"] = "trainer-6d4f-"
    with pytest.raises(ApiError) as err:
        world.create(pod)
    assert err.value.message.endswith(f"name: <>, namespace: <{INJECTED_NS}>; there is no <{MACHINE_TYPE}> left")


def test_existing_node_affinity_terms_are_kept_and_lose_injected_expressions(ready: World) -> None:
    """injectPodAffinity drops expressions asking for an injected key's value; Go's aliasing keeps one here.

    Ranging over [type=group, zone=a, node-pool=ready] while removing: the first removal shifts
    node-pool=ready to index 1, the loop still visits index 2 (a stale copy of it), and every
    removal cuts the original length by one, so node-pool=ready survives.
    """
    term = {"matchExpressions": [
        {"key": TYPE_KEY, "operator": "In", "values": [GROUP]},
        {"key": "zone", "operator": "In", "values": ["a"]},
        {"key": MACHINE_STATUS_KEY, "operator": "In", "values": ["ready"]},
    ]}
    other = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}
    ready.create(guest(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [term, other]}}}))
    terms = ready.pod("g", INJECTED_NS)["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms[0]["matchExpressions"] == [term["matchExpressions"][1], term["matchExpressions"][2]]
    assert terms[1] == other
    assert [e["key"] for e in terms[2]["matchExpressions"]] == [TYPE_KEY, MACHINE_STATUS_KEY, "nvidia.com/gpu.family"]


def test_preferred_node_affinity_is_kept(ready: World) -> None:
    preferred = [{"weight": 1, "preference": {"matchExpressions": [{"key": "z", "operator": "In", "values": ["a"]}]}}]
    ready.create(guest(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}}))
    node_affinity = ready.pod("g", INJECTED_NS)["spec"]["affinity"]["nodeAffinity"]
    assert node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] == preferred
    assert len(node_affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]) == 1


def test_tolerations_with_an_injected_key_and_value_are_replaced(ready: World) -> None:
    mine = [
        {"key": TYPE_KEY, "operator": "Equal", "value": GROUP, "effect": "NoExecute"},
        {"key": "dedicated", "operator": "Exists"},
        {"key": MACHINE_STATUS_KEY, "operator": "Equal", "value": "maintenance", "effect": "NoSchedule"},
    ]
    ready.create(guest(tolerations=mine))
    got = ready.pod("g", INJECTED_NS)["spec"]["tolerations"]
    assert got == [
        mine[1], mine[2],
        {"key": TYPE_KEY, "operator": "Equal", "value": GROUP, "effect": "NoSchedule"},
        {"key": MACHINE_STATUS_KEY, "operator": "Equal", "value": "ready", "effect": "NoSchedule"},
    ]


@pytest.mark.parametrize(
    "spec",
    [
        {"affinity": {"podAntiAffinity": {}}},  # Affinity set, NodeAffinity nil
        {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}]}}}},  # Values[0] of an empty list
        {"containers": []},
    ],
    ids=["affinity-without-nodeAffinity", "expression-without-values", "no-containers"],
)
def test_where_upstream_panics_the_webhook_call_fails(ready: World, spec: dict[str, Any]) -> None:
    with pytest.raises(ApiError) as err:
        ready.create(guest(**spec))
    assert err.value.code == 500
    assert err.value.message == FAILED_CALL


def test_machine_without_status_entry_fails_the_call(world: World) -> None:
    """Before the Machine controller has written status.availableMachines, usage is a nil pointer."""
    world.create(fake_machine())
    with pytest.raises(ApiError) as err:
        world.create(guest())
    assert err.value.message == FAILED_CALL


def test_status_and_binding_of_guest_pods_are_not_the_webhooks_business(ready: World) -> None:
    ready.create(guest())
    pod = ready.pod("g", INJECTED_NS)
    pod["status"]["phase"] = "Running"
    ready.cluster.update(pod, subresource="status")
    ready.cluster.bind(INJECTED_NS, "g", "test-node1")
    assert ready.pod("g", INJECTED_NS)["spec"]["nodeName"] == "test-node1"


def test_updates_that_leave_the_guest_role_are_allowed(ready: World) -> None:
    """requiredInjection looks at the new object: a pod that stops being a guest may be updated."""
    ready.create(guest())
    pod = ready.pod("g", INJECTED_NS)
    del pod["metadata"]["labels"][POD_ROLE_KEY]
    ready.cluster.update(pod)
    assert POD_ROLE_KEY not in ready.pod("g", INJECTED_NS)["metadata"]["labels"]


def test_machine_type_without_gpu_gets_cpu_and_memory_only(world: World) -> None:
    machine = fake_machine()
    del machine["spec"]["machineTypes"][0]["spec"]["gpu"]
    world.create(machine)
    world.set_usage(GROUP)
    world.create(guest())
    assert world.pod("g", INJECTED_NS)["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "4", "memory": "24Gi"}, "limits": {"cpu": "4", "memory": "24Gi"}}


def test_without_a_runtime_the_hook_has_no_opinion() -> None:
    cluster = Cluster(Clock(DEFAULT_EPOCH))
    cluster.add_admitter(lambda request: admit_pod(request, None), phase="mutating")
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": INJECTED_NS, "labels": {"imperator.tenzen.io/inject-resource": "enabled"}}})
    created = cluster.create(guest())
    assert "affinity" not in created["spec"]
