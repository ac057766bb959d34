"""The API server's schema pruning and validation of MachineNodePools (apiextensions-apiserver semantics)."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.errors import BadRequest, Invalid
from kubesim_imperator_nodepool import API_VERSION, MachineNodePoolController
from nodepool_harness import Sim


def pool(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"machineGroupName": "g", "machineTypeStock": [{"name": "t"}],
                            "nodePool": [{"name": "n", "mode": "ready", "machineType": [{"name": "t"}]}]}
    base.update(spec)
    return {"apiVersion": API_VERSION, "kind": "MachineNodePool", "metadata": {"name": "g-node-pool"}, "spec": base}


@pytest.fixture
def sim() -> Sim:
    return Sim()


def test_unknown_fields_are_a_strict_decoding_error(sim: Sim) -> None:
    """kubectl's default fieldValidation=Strict: the API server refuses undeclared fields."""
    obj = pool(extra=1)
    obj["spec"]["nodePool"][0]["weight"] = 3
    obj["top"] = {"x": 1}
    with pytest.raises(BadRequest) as err:
        sim.create(obj)
    assert err.value.message == (
        'MachineNodePool in version "v1alpha1" cannot be handled as a MachineNodePool: strict decoding error: '
        'unknown field "spec.extra", unknown field "spec.nodePool[0].weight", unknown field "top"'
    )


def test_status_on_create_is_dropped(sim: Sim) -> None:
    obj = pool()
    obj["status"] = {"nodePool": [{"name": "n", "condition": "Healthy"}]}
    assert "status" not in sim.create(obj)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"nodePool": [{"name": "n", "mode": "down", "machineType": []}]},
         'spec.nodePool[0].mode: Unsupported value: "down": supported values: "ready", "maintenance"'),
        ({"nodePool": [{"name": "n", "mode": "ready"}]}, "spec.nodePool[0].machineType: Required value"),
        ({"nodePool": [{"name": "n", "mode": "ready", "taint": "yes", "machineType": []}]},
         ('spec.nodePool[0].taint: Invalid value: "string": spec.nodePool[0].taint in body must be of type '
         'boolean: "string"')),
        ({"machineGroupName": 7},
         ('spec.machineGroupName: Invalid value: "integer": spec.machineGroupName in body must be of type '
         'string: "integer"')),
    ],
)
def test_schema_errors_are_the_api_servers(sim: Sim, spec: dict[str, Any], message: str) -> None:
    with pytest.raises(Invalid) as err:
        sim.create(pool(**spec))
    assert err.value.message == f'MachineNodePool.imperator.tenzen-y.io "g-node-pool" is invalid: {message}'


def test_missing_required_fields_are_listed_together(sim: Sim) -> None:
    obj = pool()
    del obj["spec"]["machineTypeStock"]
    del obj["spec"]["nodePool"]
    with pytest.raises(Invalid) as err:
        sim.create(obj)
    assert err.value.message == ('MachineNodePool.imperator.tenzen-y.io "g-node-pool" is invalid: '
                                 "[spec.machineTypeStock: Required value, spec.nodePool: Required value]")


def test_status_writes_are_validated(sim: Sim) -> None:
    stored = sim.create(pool())
    stored["status"] = {"nodePool": [{"name": "n", "condition": "Broken"}]}
    with pytest.raises(Invalid) as err:
        sim.cluster.update(stored, subresource="status")
    assert 'status.nodePool[0].condition: Unsupported value: "Broken"' in err.value.message


def test_controller_is_not_needed_for_admission() -> None:
    """The schema is the API server's part: it applies with or without the controller running."""
    with_controller = Sim(MachineNodePoolController)
    with pytest.raises(Invalid):
        with_controller.create(pool(machineGroupName=None))
    with_controller.close()
