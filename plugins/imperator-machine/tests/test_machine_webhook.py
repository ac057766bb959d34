"""Port of upstream pkg/api/v1alpha1/machine_webhook_test.go ("Machine Webhook"), with the denial messages.

Upstream only checks that a bad Machine is refused; here the test also checks the words the
API server answers with: `admission webhook "validator.machine.imperator.tenzen-y.io" denied
the request: <machine_webhook.go's error>`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Cluster
from kubesim.errors import Forbidden, Invalid
from kubesim_imperator_machine import MACHINE_CRD, MachineController, admit_machine, default_machine
from kubesim_imperator_nodepool import API_VERSION, MACHINE_GROUP_KEY
from machine_harness import Sim, node

GROUP = "test-machine-group"
DENIED = 'admission webhook "validator.machine.imperator.tenzen-y.io" denied the request: '


def fake_machine() -> dict[str, Any]:
    """newFakeMachine."""
    return {
        "apiVersion": API_VERSION,
        "kind": "Machine",
        "metadata": {"name": GROUP, "labels": {MACHINE_GROUP_KEY: GROUP}},
        "spec": {
            "nodePool": [
                {"name": "test-node1", "mode": "ready", "taint": False, "machineType": [{"name": "test-machine1"}]},
                {"name": "test-node2", "mode": "maintenance", "taint": False,
                 "machineType": [{"name": "test-machine2"}]},
                {"name": "test-node3", "mode": "ready", "taint": True, "machineType": [{"name": "test-machine1"}]},
            ],
            "machineTypes": [
                {"name": "test-machine1", "available": 2,
                 "spec": {"cpu": "4", "memory": "24Gi",
                          "gpu": {"type": "nvidia.com/gpu", "num": "2", "family": "ampere"}}},
                {"name": "test-machine2", "available": 2,
                 "spec": {"cpu": "2000m", "memory": "12Gi",
                          "gpu": {"type": "nvidia.com/gpu", "num": "1", "product": "NVIDIA-GeForce-RTX-3090"}}},
            ],
        },
    }


@pytest.fixture
def sim() -> Iterator[Sim]:
    s = Sim(MachineController)  # the controller manager serves the webhooks
    for name in ("test-node1", "test-node2", "test-node3"):
        s.create(node(name))
    yield s
    s.close()


def test_create_machine_resource_successfully(sim: Sim) -> None:
    """It("Create Machine resource successfully")."""
    sim.create(fake_machine())
    sim.cluster.delete(API_VERSION, "Machine", GROUP)


def _edit(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    m = fake_machine()
    change(m)
    return m


def _spec(m: dict[str, Any]) -> dict[str, Any]:
    return m["spec"]  # type: ignore[no-any-return]


CASES: list[tuple[str, Callable[[dict[str, Any]], None], str | None]] = [
    (f"Missing key, {MACHINE_GROUP_KEY} in labels",
     lambda m: m["metadata"]["labels"].pop(MACHINE_GROUP_KEY),
     f"{MACHINE_GROUP_KEY} is must be set in .metadata.labels"),
    ("Specified non exist node name to nodePool",
     lambda m: _spec(m)["nodePool"][0].update(name="non-exist"),
     "failed to find node non-exist in Kubernetes Cluster"),
    ("Type of GPU must be set value",
     lambda m: _spec(m)["machineTypes"][0]["spec"]["gpu"].update(type=""),
     "gpu.type must be set value"),
    ("Number of GPU must be set 0 or more value",
     lambda m: _spec(m)["machineTypes"][0]["spec"]["gpu"].update(num="-1"),
     "gpu.num must be set 0 or more value"),
    ("GPU family, product or machine must be set value",
     lambda m: _spec(m)["machineTypes"][0]["spec"]["gpu"].update(family=""),
     "you must set a value for either gpu.family, gpu.product or gpu.machine"),
    ("Only one GPU family, product or machine cane be set",
     lambda m: _spec(m)["machineTypes"][1]["spec"]["gpu"].update(family="ampere", machine="DGX-1"),
     "only one GPU family, product or machine cane be set"),
    ("Support only one machineType in NodePool",
     lambda m: _spec(m)["nodePool"][0]["machineType"].append({"name": "test-machine2"}),
     "<test-node1>; can not set multiple machineType in nodePool.machineType"),
    ("Failed to find machineType using in nodePool",
     lambda m: _spec(m)["nodePool"][0].update(machineType=[{"name": "missing-machine"}]),
     "missing-machine was not found in spec.machineTypes"),
    ("MachineType name is duplicated",
     lambda m: _spec(m)["machineTypes"].append(copy.deepcopy(_spec(m)["machineTypes"][0])),
     "machineType name <test-machine1> is duplicated"),
    ("Not specified GPU",
     lambda m: _spec(m)["machineTypes"][1]["spec"].pop("gpu"),
     None),
]


@pytest.mark.parametrize(("description", "change", "denial"), CASES, ids=[c[0] for c in CASES])
def test_create_machine_resource(sim: Sim, description: str, change: Callable[[dict[str, Any]], None],
                                 denial: str | None) -> None:
    """It("Create Machine resource"): the table of cases."""
    machine = _edit(change)
    if denial is None:
        sim.create(machine)
        return
    with pytest.raises(Forbidden) as err:
        sim.create(machine)
    assert err.value.message == DENIED + denial, description


def test_machine_group_label_is_duplicated(sim: Sim) -> None:
    """The table's "MachineGroup label is duplicated" case: another Machine has the group already."""
    other = fake_machine()
    other["metadata"]["name"] = "duplicated-machine-group"
    sim.create(other)
    with pytest.raises(Forbidden) as err:
        sim.create(fake_machine())
    assert err.value.message == DENIED + "machineGroup label is duplicate, machineGroup must be set as unique"


def test_updates_are_validated_too(sim: Sim) -> None:
    stored = sim.create(fake_machine())
    stored["spec"]["nodePool"][1]["name"] = "gone"
    with pytest.raises(Forbidden) as err:
        sim.cluster.update(stored)
    assert err.value.message == DENIED + "failed to find node gone in Kubernetes Cluster"


def test_the_webhook_reads_the_cluster_through_the_runtime_without_any_controller() -> None:
    """The webhooks are served whenever the plugin is installed: no controller needs to run."""
    bare = Sim()
    with pytest.raises(Forbidden) as err:
        bare.create(fake_machine())  # no nodes exist
    assert err.value.message.endswith("failed to find node test-node1 in Kubernetes Cluster")


def test_without_a_runtime_only_the_schema_applies() -> None:
    """With no runtime there is no cluster to read: the webhook has no opinion, the schema still applies."""
    clock = Clock(DEFAULT_EPOCH)
    cluster = Cluster(clock)
    cluster.registry.register_crd(MACHINE_CRD)
    for phase in ("mutating", "validating"):
        cluster.add_admitter(functools.partial(admit_machine, runtime=None), phase=phase)
    cluster.create(fake_machine())  # no nodes exist, but nobody can check
    bad = fake_machine()
    bad["metadata"]["name"] = "bad"
    bad["spec"]["machineTypes"][0]["available"] = -1
    with pytest.raises(Invalid):
        cluster.create(bad)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: _spec(m)["machineTypes"][0].update(available=-1),
         ("spec.machineTypes[0].available: Invalid value: -1: spec.machineTypes[0].available in body should be "
         "greater than or equal to 0")),
        (lambda m: _spec(m)["nodePool"][0].update(mode="not-ready"),
         'spec.nodePool[0].mode: Unsupported value: "not-ready": supported values: "ready", "maintenance"'),
        (lambda m: _spec(m)["machineTypes"][1]["spec"].update(cpu="two"),
         ('spec.machineTypes[1].spec.cpu: Invalid value: "two": spec.machineTypes[1].spec.cpu in body should match '
         "'^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)"
         "|(\\.[0-9]+))))?$'")),
        (lambda m: _spec(m).pop("machineTypes"), "spec.machineTypes: Required value"),
    ],
)
def test_schema_errors_come_before_the_webhook(sim: Sim, change: Callable[[dict[str, Any]], None],
                                                message: str) -> None:
    with pytest.raises(Invalid) as err:
        sim.create(_edit(change))
    assert err.value.message == f'Machine.imperator.tenzen-y.io "{GROUP}" is invalid: {message}'


def test_defaulting_fills_the_status_which_the_api_server_drops(sim: Sim) -> None:
    """Machine.Default appends availableMachines, but status is not writable through the main resource."""
    defaulted = default_machine(fake_machine())
    assert defaulted["status"]["availableMachines"] == [
        {"name": "test-machine1", "usage": {"maximum": 2, "reserved": 0, "used": 0, "waiting": 0}},
        {"name": "test-machine2", "usage": {"maximum": 2, "reserved": 0, "used": 0, "waiting": 0}},
    ]
    assert "status" not in sim.create(fake_machine())
