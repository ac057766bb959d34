"""Reading results: what is accepted, and the error (with the field) for what is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesim.api import ScenarioPluginsScoreResult, structure
from kubesim.errors import InvalidInput
from kubesim.results import is_result_document, load_results, parse_results


def _problems(docs: list[Any]) -> list[str]:
    with pytest.raises(InvalidInput) as info:
        parse_results(docs, "r.json")
    return [str(p) for p in info.value.problems]


def test_json_yaml_and_lists(tmp_path: Path, small_doc: dict[str, Any]) -> None:
    (tmp_path / "one.json").write_text(json.dumps(small_doc))
    second = json.loads(json.dumps(small_doc))
    second["metadata"]["name"] = "other"
    (tmp_path / "two.json").write_text(json.dumps([small_doc, second]))
    (tmp_path / "two.yaml").write_text(yaml.safe_dump_all([small_doc, second]))
    assert [r.name for r in load_results(tmp_path / "one.json")] == ["small"]
    assert [r.name for r in load_results(tmp_path / "two.json")] == ["small", "other"]
    assert [r.name for r in load_results(tmp_path / "two.yaml")] == ["small", "other"]


def test_not_a_result_names_the_field(small_doc: dict[str, Any]) -> None:
    assert _problems([{"apiVersion": "v1", "kind": "Pod"}]) == [
        "r.json: kind: expected 'Scenario' (a result written by `kubesim run -o`), got 'Pod'"]
    assert _problems([[1, 2]]) == ["r.json: expected a Scenario object (a result written by `kubesim run -o`), got list"]
    scenario = {k: v for k, v in small_doc.items() if k != "status"}
    assert _problems([scenario]) == [
        "r.json: status.scenarioResult: required: this is a scenario that has not been run, "
        "not a result written by `kubesim run -o`"]
    wrong_version = dict(small_doc, apiVersion="v2")
    assert _problems([wrong_version])[0].startswith("r.json: apiVersion: expected ")


def test_malformed_timeline_is_reported_with_its_path(small_doc: dict[str, Any]) -> None:
    event = small_doc["status"]["scenarioResult"]["timeline"]["1"][2]["podScheduled"]
    event["boundTo"] = 3
    event["scheduleResult"][0]["pluginResults"]["score"]["n1"]["NodeResourcesFit"]["finalScore"] = "75"
    assert _problems([small_doc]) == [
        "r.json: status.scenarioResult.timeline[1][2].podScheduled.boundTo: expected a string, got the number 3",
        "r.json: status.scenarioResult.timeline[1][2].podScheduled.scheduleResult[0].pluginResults"
        ".score[n1][NodeResourcesFit].finalScore: expected an integer, got the string '75'",
    ]


def test_several_documents_are_numbered(small_doc: dict[str, Any]) -> None:
    problems = _problems([small_doc, {"kind": "Scenario", "apiVersion": small_doc["apiVersion"]}])
    assert problems == ["r.json [document 1]: status.scenarioResult: required: this is a scenario that has not "
                        "been run, not a result written by `kubesim run -o`"]


def test_is_result_document(small_doc: dict[str, Any]) -> None:
    assert is_result_document(small_doc)
    assert not is_result_document({"kind": "Scenario", "spec": {}})
    assert not is_result_document([])


def test_score_results_are_shared_but_still_checked() -> None:
    a = structure({"rawScore": 1, "normalizedScore": 2, "finalScore": 3}, ScenarioPluginsScoreResult)
    b = structure({"rawScore": 1, "normalizedScore": 2, "finalScore": 3}, ScenarioPluginsScoreResult)
    assert a is b and a == ScenarioPluginsScoreResult(1, 2, 3)
    for bad, message in (
        ({"rawScore": True, "normalizedScore": 2, "finalScore": 3}, "rawScore: expected an integer, got a boolean"),
        ({"rawScore": 1, "normalizedScore": 2}, "finalScore: required"),
        ({"rawScore": 1, "normalizedScore": 2, "finalScore": 3, "x": 1}, "x: unknown field"),
        ({"rawScore": 1.0, "normalizedScore": 2, "finalScore": 3}, "rawScore: expected an integer, got the number 1.0"),
    ):
        with pytest.raises(InvalidInput) as info:
            structure(bad, ScenarioPluginsScoreResult)
        assert [str(p) for p in info.value.problems] == [message]
