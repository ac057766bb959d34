"""Results with compact podUnscheduled events (`podRef`) read exactly like the full form."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kubesim.api.pod_ref import POD_REF, resolve_pod_refs, with_pod_ref
from kubesim.errors import InvalidInput
from kubesim.results import analyze, load_results, parse_results


def compact(doc: dict[str, Any]) -> dict[str, Any]:
    """The small result as written now: event-3 retries p2 unchanged, so it names the pod."""
    out = copy.deepcopy(doc)
    event = out["status"]["scenarioResult"]["timeline"]["1"][4]
    assert event["id"] == "event-3"
    event["podUnscheduled"] = with_pod_ref(event["podUnscheduled"])
    return out


def test_with_pod_ref_names_the_pod_in_its_place() -> None:
    pod = {"metadata": {"name": "p", "namespace": "ns", "uid": "u", "resourceVersion": "7"}, "spec": {}}
    ref = with_pod_ref({"pod": pod, "createdAt": {"major": 1, "minor": 0}})
    assert list(ref) == [POD_REF, "createdAt"]
    assert ref[POD_REF] == {"name": "p", "namespace": "ns", "uid": "u", "resourceVersion": "7"}


def test_both_forms_load_to_the_same_result_and_tables(small_doc: dict[str, Any]) -> None:
    short = compact(small_doc)
    assert "pod" not in short["status"]["scenarioResult"]["timeline"]["1"][4]["podUnscheduled"]
    [full_result] = parse_results([copy.deepcopy(small_doc)], "full.json")
    [short_result] = parse_results([short], "short.json")
    assert short_result == full_result
    full_tables, short_tables = analyze(full_result), analyze(short_result)
    assert list(short_tables.tables) == list(full_tables.tables)
    assert "pods" in full_tables
    assert short_tables.tables == full_tables.tables


def test_a_result_file_in_either_form_loads(small_doc: dict[str, Any], tmp_path: Path) -> None:
    for name, doc in (("full.json", small_doc), ("short.json", compact(small_doc))):
        (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")
    [full] = load_results(tmp_path / "full.json")
    [short] = load_results(tmp_path / "short.json")
    assert short == full


@pytest.mark.parametrize(("change", "message"), [
    (lambda ref: ref.update(resourceVersion="9"), "which no earlier podUnscheduled event of that pod holds"),
    (lambda ref: ref.update(name="other"), "names pod default/other"),
    (lambda ref: ref.pop("uid"), "expected a mapping of name, namespace, uid, resourceVersion"),
])
def test_a_reference_to_no_earlier_pod_is_bad_input(small_doc: dict[str, Any], change: Any, message: str) -> None:
    short = compact(small_doc)
    change(short["status"]["scenarioResult"]["timeline"]["1"][4]["podUnscheduled"][POD_REF])
    with pytest.raises(InvalidInput) as exc:
        parse_results([short], "short.json")
    [problem] = exc.value.problems
    assert problem.path == "status.scenarioResult.timeline[1][4].podUnscheduled.podRef"
    assert message in problem.message
    assert problem.file == "short.json"


def test_a_reference_before_its_pod_in_step_order_is_bad_input(small_doc: dict[str, Any]) -> None:
    short = compact(small_doc)
    timeline = short["status"]["scenarioResult"]["timeline"]
    timeline["0"].append(timeline["1"].pop(4))  # the reference now comes first
    [(path, _)] = resolve_pod_refs(short)
    assert path == "status.scenarioResult.timeline[0][2].podUnscheduled.podRef"
