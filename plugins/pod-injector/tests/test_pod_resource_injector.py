"""Port of upstream pkg/api/v1alpha1/pod_resource_injector_test.go, with the denial messages.

Upstream's expected tolerations also hold the two `NoExecute` ones kube-apiserver's
DefaultTolerationSeconds plugin adds to every pod; kubesim's API server does not add them,
so here the tolerations are exactly the injected ones. Upstream's webhook envtest loads
config/webhook without the kustomize patch that adds the namespaceSelector; the
deployment has it, and so does kubesim (see test_namespace_without_the_label_is_left_alone).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from injector_harness import (
    DENIED,
    GROUP,
    INJECTED_NS,
    MACHINE_TYPE,
    World,
    fake_machine,
    fake_pod,
    guest_labels,
    new_world,
)
from kubesim.errors import ApiError, Forbidden, NotFound
from kubesim_imperator_machine import affinity_match_expressions, machine_type_resources, tolerations
from kubesim_imperator_nodepool import (
    INJECT_CONTAINER_KEY,
    MACHINE_GROUP_KEY,
    MACHINE_TYPE_KEY,
    POD_ROLE_KEY,
)


@pytest.fixture
def world() -> Iterator[World]:
    w = new_world()
    yield w
    w.close()


def expected_injection(container: int = 0) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    machine_type = fake_machine()["spec"]["machineTypes"][0]
    resources = machine_type_resources(machine_type)
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": affinity_match_expressions(machine_type, GROUP)}]}}}
    return {"requests": resources, "limits": resources}, affinity, tolerations(MACHINE_TYPE, GROUP)


def test_inject_resources_affinity_and_toleration(world: World) -> None:
    """It("Inject resources, affinity, and toleration to Pod")."""
    world.create(fake_machine())
    world.set_usage(GROUP)
    world.create(fake_pod("injected-pod", INJECTED_NS, guest_labels(MACHINE_TYPE)))
    pod = world.pod("injected-pod", INJECTED_NS)
    resources, affinity, injected = expected_injection()
    assert pod["spec"]["containers"][0]["resources"] == resources
    assert resources == {"requests": {"cpu": "4", "memory": "24Gi", "nvidia.com/gpu": "2"},
                         "limits": {"cpu": "4", "memory": "24Gi", "nvidia.com/gpu": "2"}}
    assert "resources" not in pod["spec"]["containers"][1]
    assert pod["spec"]["affinity"] == affinity
    assert pod["spec"]["tolerations"] == injected


@pytest.mark.parametrize("missing", [MACHINE_GROUP_KEY, MACHINE_TYPE_KEY, POD_ROLE_KEY])
def test_skip_injection_without_the_necessary_labels(world: World, missing: str) -> None:
    """It("Skip to inject ... since Pod does not have necessary labels"), one label missing at a time."""
    world.create(fake_machine())
    labels = guest_labels(MACHINE_TYPE)
    del labels[missing]
    world.create(fake_pod("injected-pod", INJECTED_NS, labels))
    pod = world.pod("injected-pod", INJECTED_NS)
    assert "resources" not in pod["spec"]["containers"][0]
    assert "affinity" not in pod["spec"]
    assert "tolerations" not in pod["spec"]
    world.cluster.delete("v1", "Pod", "injected-pod", INJECTED_NS)


def test_injecting_container_label_picks_the_container(world: World) -> None:
    """It("Specify a container name to inject resources using `imperator.tenzen-y.io/injecting-container` label")."""
    world.create(fake_machine())
    world.set_usage(GROUP)
    labels = {**guest_labels(MACHINE_TYPE), INJECT_CONTAINER_KEY: "test2"}
    world.create(fake_pod("injected-pod", INJECTED_NS, labels))
    pod = world.pod("injected-pod", INJECTED_NS)
    resources, affinity, injected = expected_injection()
    assert pod["spec"]["containers"][1]["resources"] == resources
    assert "resources" not in pod["spec"]["containers"][0]
    assert pod["spec"]["affinity"] == affinity
    assert pod["spec"]["tolerations"] == injected


def test_failed_to_update_pod(world: World) -> None:
    """It("Failed to update Pod"): swapping the containers of an injected guest pod is denied."""
    world.create(fake_machine())
    world.set_usage(GROUP)
    world.create(fake_pod("injected-pod", INJECTED_NS, guest_labels(MACHINE_TYPE)))
    pod = world.pod("injected-pod", INJECTED_NS)
    pod["spec"]["containers"].reverse()
    with pytest.raises(Forbidden) as err:
        world.cluster.update(pod)
    assert err.value.message == DENIED + "it is forbidden to update the Pod"


def _reserved_zero(machine: dict[str, Any]) -> dict[str, Any]:
    machine["spec"]["machineTypes"][0]["available"] = 0
    return machine


@pytest.mark.parametrize(
    ("description", "pod", "machine", "error"),
    [
        ("There is not Pod namespace",
         fake_pod("missing-namespace-pod", "missing-namespace", guest_labels(MACHINE_TYPE)), fake_machine(),
         (NotFound, 'namespaces "missing-namespace" not found')),
        ("There is not MachineGroup",
         fake_pod("missing-machine-group", INJECTED_NS,
                  {**guest_labels(MACHINE_TYPE), MACHINE_GROUP_KEY: "null-machine-group"}),
         fake_machine(), (Forbidden, DENIED + "failed to find machine-group <null-machine-group>")),
        ("MachineGroup does not have specified machineType",
         fake_pod("does-not-have-machine-type", INJECTED_NS, guest_labels("null-machine-type")), fake_machine(),
         (Forbidden, DENIED + f"machine-group, <{GROUP}> does not have machine-type, <null-machine-type>")),
        ("Reserved resources is zero",
         fake_pod("test-pod", INJECTED_NS, guest_labels(MACHINE_TYPE)), _reserved_zero(fake_machine()),
         (Forbidden, DENIED + f"name: <test-pod>, namespace: <{INJECTED_NS}>; there is no <{MACHINE_TYPE}> left")),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_create_pod(world: World, description: str, pod: dict[str, Any], machine: dict[str, Any],
                    error: tuple[type[ApiError], str]) -> None:
    """It("Create Pod"): the table of refused pods."""
    world.create(machine)
    world.set_usage(GROUP)
    cls, message = error
    with pytest.raises(cls) as err:
        world.create(pod)
    assert err.value.message == message, description
