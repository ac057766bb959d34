"""The converter: camelCase names, unknown keys, strict scalars, field paths, round trips."""

from __future__ import annotations

from typing import Any

import pytest

from kubesim.api import (
    API_VERSION,
    PodResult,
    Scenario,
    ScenarioPluginsResults,
    ScenarioPluginsScoreResult,
    ScenarioPodScheduleResult,
    ScenarioStep,
    ScenarioTimelineEvent,
    StepPhase,
    structure,
    unstructure,
)
from kubesim.errors import InvalidInput


def scenario_doc(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "Scenario",
        "metadata": {"name": "s"},
        "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}, **spec},
    }


def problems(doc: Any) -> list[str]:
    with pytest.raises(InvalidInput) as info:
        structure(doc, Scenario)
    return [str(p) for p in info.value.problems]


def test_full_scenario_round_trips_with_camel_case_names() -> None:
    doc = scenario_doc(operations=[
        {"id": "a", "step": 0, "createOperation": {"object": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}, "createOptions": {"dryRun": []}}},
        {"id": "b", "step": 1, "patchOperation": {"typeMeta": {"apiVersion": "v1", "kind": "Node"}, "objectMeta": {"name": "n"}, "patch": '{"a":1}', "patchType": "application/merge-patch+json"}},
        {"id": "c", "step": 2, "deleteOperation": {"typeMeta": {"apiVersion": "v1", "kind": "Node"}, "objectMeta": {"name": "n"}, "deleteOptions": {"gracePeriodSeconds": 0, "propagationPolicy": "Foreground"}}},
        {"id": "d", "step": 3, "doneOperation": {}},
    ])
    doc["spec"]["controllers"]["preSimulationControllers"] = {"enabled": [], "disabled": [{"name": "*"}]}
    s = structure(doc, Scenario)
    assert s.spec.operations[2].delete_operation is not None
    assert s.spec.operations[2].delete_operation.delete_options is not None
    assert s.spec.operations[2].delete_operation.delete_options.propagation_policy == "Foreground"
    out = unstructure(s)
    assert out["spec"]["operations"] == doc["spec"]["operations"]
    assert out["spec"]["controllers"]["simulationControllers"] == {"enabled": [{"name": "scheduler"}], "disabled": []}
    assert list(out)[:2] == ["apiVersion", "kind"]
    assert structure(out, Scenario) == s


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["spec"].update(bogus=1), ["spec.bogus: unknown field"]),
        (lambda d: d["spec"].update(operations=[{"step": "1", "doneOperation": {}}]),
         ["spec.operations[0].step: expected an integer, got the string '1'"]),
        (lambda d: d["spec"].update(operations=[{"step": True, "doneOperation": {}}]),
         ["spec.operations[0].step: expected an integer, got a boolean"]),
        (lambda d: d["spec"].update(operations=[{"step": 0, "createOperation": {}}]),
         ["spec.operations[0].createOperation.object: required"]),
        (lambda d: d["spec"].update(operations=[{"doneOperation": {}}]),
         ["spec.operations[0].step: required"]),
        (lambda d: d["spec"].update(operations=[{"step": 0, "createOperation": {"object": "pod"}}]),
         ["spec.operations[0].createOperation.object: expected a mapping (a Kubernetes object), got the string 'pod'"]),
        (lambda d: d["spec"].update(operations={"step": 0}),
         ["spec.operations: expected a list, got a mapping"]),
        (lambda d: d["spec"]["controllers"]["simulationControllers"].update(enabled=[{"nam": "x"}]),
         ["spec.controllers.simulationControllers.enabled[0].nam: unknown field",
          "spec.controllers.simulationControllers.enabled[0].name: required"]),
    ],
)
def test_structuring_errors_name_the_field_path(mutate: Any, expected: list[str]) -> None:
    doc = scenario_doc()
    mutate(doc)
    assert sorted(problems(doc)) == sorted(expected)


def test_every_problem_is_reported_not_only_the_first() -> None:
    doc = scenario_doc(operations=[{"step": "x", "createOperation": {}}, {"step": 0, "patchOperation": {"bogus": 1}}])
    found = problems(doc)
    assert "spec.operations[0].step: expected an integer, got the string 'x'" in found
    assert "spec.operations[1].patchOperation.bogus: unknown field" in found
    assert "spec.operations[1].patchOperation.typeMeta: required" in found


def test_patch_may_be_written_as_a_mapping_and_is_kept_as_json_text() -> None:
    doc = scenario_doc(operations=[{"step": 0, "patchOperation": {
        "typeMeta": {"apiVersion": "v1", "kind": "Node"}, "objectMeta": {"name": "n"},
        "patch": {"spec": {"unschedulable": True}}}}])
    s = structure(doc, Scenario)
    assert s.spec.operations[0].patch_operation is not None
    assert s.spec.operations[0].patch_operation.patch == '{"spec":{"unschedulable":true}}'


def test_step_phase_values_are_the_kep_strings() -> None:
    assert [p.value for p in StepPhase] == [
        "Operating", "OperatingCompleted", "ControllerRunning", "ControllerPaused", "ControllerCompleted", "Finished"
    ]


def test_pod_results_use_the_kep_json_names() -> None:
    result = PodResult(
        pod={"metadata": {"name": "p"}}, created_at=ScenarioStep(1, 0), bound_to="n1", bound_at=ScenarioStep(1, 1),
        schedule_result=[ScenarioPodScheduleResult(
            step=ScenarioStep(1, 0), all_candidate_nodes=["n1", "n2"], all_filtered_nodes=["n1"],
            plugin_results=ScenarioPluginsResults(
                filter={"n2": {"NodeResourcesFit": "Insufficient cpu"}},
                score={"n1": {"ImageLocality": ScenarioPluginsScoreResult(1, 2, 3)}},
            ),
        )],
    )
    event = ScenarioTimelineEvent(id="e", step=ScenarioStep(1, 1), pod_scheduled=result)
    out = unstructure(event)
    assert out == {
        "id": "e",
        "step": {"major": 1, "minor": 1},
        "podScheduled": {
            "pod": {"metadata": {"name": "p"}},
            "createdAt": {"major": 1, "minor": 0},
            "boundTo": "n1",
            "boundAt": {"major": 1, "minor": 1},
            "scheduleResult": [{
                "step": {"major": 1, "minor": 0},
                "allCandidateNodes": ["n1", "n2"],
                "allFilteredNodes": ["n1"],
                "pluginResults": {
                    "filter": {"n2": {"NodeResourcesFit": "Insufficient cpu"}},
                    "score": {"n1": {"ImageLocality": {"rawScore": 1, "normalizedScore": 2, "finalScore": 3}}},
                },
            }],
        },
    }


def _scheduled_event(pod: dict[str, Any]) -> ScenarioTimelineEvent:
    score = ScenarioPluginsScoreResult(3, 30, 60)
    attempt = ScenarioPodScheduleResult(
        step=ScenarioStep(1, 4), plugin_results=ScenarioPluginsResults(
            score={"n1": {"Fit": score, "Taint": ScenarioPluginsScoreResult(0, 100, 300)}, "n2": {"Fit": score}}),
        message=None, candidate_node_count=2, filtered_node_count=2, filter_reason_counts={})
    result = PodResult(pod, ScenarioStep(1, 0), bound_to="n1", bound_at=ScenarioStep(1, 4), schedule_result=[attempt])
    return ScenarioTimelineEvent(id="event-1", step=ScenarioStep(1, 4), actor="scheduler", pod_scheduled=result)


def test_unstructure_shared_writes_the_same_json_sharing_the_objects() -> None:
    import json

    from kubesim.api import unstructure_shared

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"nodeName": "n1"}}
    event = _scheduled_event(pod)
    shared, copied = unstructure_shared(event), unstructure(event)
    assert json.dumps(shared) == json.dumps(copied)  # same members in the same order
    assert shared["podScheduled"]["pod"] is pod  # the object itself, not a copy
    assert copied["podScheduled"]["pod"] is not pod
    attempt = shared["podScheduled"]["scheduleResult"][0]
    # equal small values are one dict: steps, score results, one node's scores
    assert attempt["step"] is shared["step"] is shared["podScheduled"]["boundAt"]
    assert attempt["pluginResults"]["score"]["n2"]["Fit"] is attempt["pluginResults"]["score"]["n1"]["Fit"]
    again = unstructure_shared(_scheduled_event(dict(pod)))
    assert again["podScheduled"]["scheduleResult"][0]["pluginResults"]["score"]["n1"] \
        is attempt["pluginResults"]["score"]["n1"]


def test_unstructure_shared_keeps_enums_and_omitted_fields() -> None:
    from kubesim.api import ScenarioStepStatus, unstructure_shared

    status = ScenarioStepStatus(step=ScenarioStep(2, 1), phase=StepPhase.CONTROLLER_RUNNING)
    assert unstructure_shared(status) == unstructure(status)


def test_unstructure_shared_shares_the_empty_parts_of_an_attempt() -> None:
    from kubesim.api import unstructure_shared

    first = unstructure_shared(ScenarioPodScheduleResult(step=ScenarioStep(1, 1), message="0/2 nodes are available"))
    second = unstructure_shared(ScenarioPodScheduleResult(step=ScenarioStep(1, 2), message="0/2 nodes are available"))
    assert first["allCandidateNodes"] is second["allFilteredNodes"] == []
    assert first["pluginResults"] is second["pluginResults"] == {"filter": {}, "score": {}}
    full = ScenarioPodScheduleResult(all_candidate_nodes=["n1"], filter_reason_counts={"Insufficient cpu": 1},
                                     plugin_results=ScenarioPluginsResults(filter={"n1": {"Fit": "passed"}}))
    assert unstructure_shared(full) == unstructure(full)  # what is not empty is written as it is
