"""The Scenario CustomResourceDefinition, with the structural schema of kubesim.api's types.

The schema mirrors KEP-140's Scenario types as kubesim.api defines them (scenario.py,
operations.py): what the scenario engine reads back from the stored object (spec.operations,
spec.controllers) is typed; objects to create are embedded resources kept as written; the
result (status.scenarioResult, large and written only by the engine) is kept unpruned.
"""

from __future__ import annotations

from typing import Any

from kubesim.api import API_VERSION, KIND
from kubesim.api.scenario import ScenarioPhase, StepPhase

__all__ = ["SCENARIO_CRD"]

_GROUP, _VERSION = API_VERSION.split("/")
_STRING: dict[str, Any] = {"type": "string"}
_STRINGS: dict[str, Any] = {"type": "array", "items": _STRING}
_INT32: dict[str, Any] = {"type": "integer", "format": "int32"}


def _object(required: list[str] | None = None, **properties: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


_TYPE_META = _object(["apiVersion", "kind"], apiVersion=_STRING, kind=_STRING)
_OBJECT_META = _object(["name"], name=_STRING, namespace=_STRING, uid=_STRING)
_CONTROLLER_SET = _object(
    enabled={"type": "array", "items": _object(["name"], name=_STRING)},
    disabled={"type": "array", "items": _object(["name"], name=_STRING)},
)
_OPERATION = _object(
    ["step"],
    step=_INT32,
    id=_STRING,
    createOperation=_object(
        ["object"],
        object={"type": "object", "x-kubernetes-embedded-resource": True,
                "x-kubernetes-preserve-unknown-fields": True},
        createOptions=_object(dryRun=_STRINGS, fieldManager=_STRING, fieldValidation=_STRING),
    ),
    patchOperation=_object(
        ["typeMeta", "objectMeta", "patch"],
        typeMeta=_TYPE_META,
        objectMeta=_OBJECT_META,
        patch=_STRING,
        patchType=_STRING,
        patchOptions=_object(dryRun=_STRINGS, force={"type": "boolean"}, fieldManager=_STRING,
                             fieldValidation=_STRING),
        subresource=_STRING,
    ),
    deleteOperation=_object(
        ["typeMeta", "objectMeta"],
        typeMeta=_TYPE_META,
        objectMeta=_OBJECT_META,
        deleteOptions=_object(
            gracePeriodSeconds={"type": "integer", "format": "int64"},
            propagationPolicy=_STRING,
            preconditions=_object(uid=_STRING, resourceVersion=_STRING),
            dryRun=_STRINGS,
        ),
    ),
    doneOperation={"type": "object"},
)
_STATUS = _object(
    phase={"type": "string", "enum": [p.value for p in ScenarioPhase]},
    message=_STRING,
    stepStatus=_object(
        step=_object(major=_INT32, minor=_INT32),
        phase={"type": "string", "enum": [p.value for p in StepPhase]},
        runningSimulationController=_STRING,
    ),
    scenarioResult={"type": "object", "x-kubernetes-preserve-unknown-fields": True},
)
_SCHEMA = _object(
    None,
    apiVersion=_STRING,
    kind=_STRING,
    metadata={"type": "object"},
    spec=_object(
        operations={"type": "array", "items": _OPERATION},
        controllers=_object(simulationControllers=_CONTROLLER_SET, preSimulationControllers=_CONTROLLER_SET),
        simulatedTime=_object(tick=_STRING, startClock=_STRING, metricsTick=_STRING, until=_STRING,
                              maxTicks={"type": "integer", "format": "int64"}),
    ),
    status=_STATUS,
)

SCENARIO_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"scenarios.{_GROUP}"},
    "spec": {
        "group": _GROUP,
        "names": {"kind": KIND, "plural": "scenarios", "singular": "scenario", "listKind": f"{KIND}List"},
        "scope": "Cluster",
        "versions": [
            {"name": _VERSION, "served": True, "storage": True, "schema": {"openAPIV3Schema": _SCHEMA},
             "subresources": {"status": {}},
             # what `kubectl get scenarios` (-w) shows: kube-apiserver's Table from these columns
             "additionalPrinterColumns": [
                 {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                 {"name": "Step", "type": "integer", "jsonPath": ".status.stepStatus.step.major"},
                 {"name": "Minor", "type": "integer", "jsonPath": ".status.stepStatus.step.minor"},
                 {"name": "Step Phase", "type": "string", "jsonPath": ".status.stepStatus.phase"},
                 {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
             ]}
        ],
    },
}
"""simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1 Scenario: cluster-scoped, status subresource."""
