"""Reading results: the Scenario JSON (or YAML) that `kubesim run -o` writes, or a list of them.

A file that is not a result is an InvalidInput naming the field that gives it away
(`kind`, `apiVersion`, `status.scenarioResult`, or any field of the Scenario API with
the wrong shape), so the CLI can say what is wrong and exit 2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kubesim.api import API_VERSION, KIND, Scenario, structure
from kubesim.api.loader import load_documents
from kubesim.api.pod_ref import resolve_pod_refs
from kubesim.api.validation import MAX_STEP
from kubesim.errors import InvalidInput, Problem
from kubesim.k8s.decoding import decoding_message
from kubesim.input_limits import RESULT_LIMITS
from kubesim.results.gcpause import paused_gc

__all__ = ["is_result_document", "load_results", "parse_results"]

_HINT = "a result written by `kubesim run -o`"


def is_result_document(doc: Any) -> bool:
    """True for a document that looks like a result (a Scenario with status.scenarioResult)."""
    return (isinstance(doc, dict) and doc.get("kind") == KIND
            and isinstance(doc.get("status"), dict) and "scenarioResult" in doc["status"])


def _check(doc: Any) -> list[tuple[str, str]]:
    if not isinstance(doc, dict):
        return [("", f"expected a Scenario object ({_HINT}), got {type(doc).__name__}")]
    if doc.get("kind") != KIND:
        return [("kind", f"expected {KIND!r} ({_HINT}), got {doc.get('kind')!r}")]
    if doc.get("apiVersion") != API_VERSION:
        return [("apiVersion", f"expected {API_VERSION!r}, got {doc.get('apiVersion')!r}")]
    status = doc.get("status")
    if not isinstance(status, dict) or status.get("scenarioResult") is None:
        return [("status.scenarioResult", f"required: this is a scenario that has not been run, not {_HINT}")]
    return _check_steps(status)


_STEP_KEY = re.compile(r"0|[1-9][0-9]{0,9}")


def _check_steps(status: dict[str, Any]) -> list[tuple[str, str]]:
    """The timeline's keys and the final step are MajorSteps (0 to MAX_STEP): a report walks
    the steps between them."""
    found = []
    timeline = status["scenarioResult"].get("timeline") if isinstance(status["scenarioResult"], dict) else None
    for key in timeline if isinstance(timeline, dict) else ():
        if not (isinstance(key, str) and _STEP_KEY.fullmatch(key) and int(key) <= MAX_STEP):
            shown = key if len(str(key)) <= 40 else f"{key[:20]}...{key[-10:]}"
            found.append(("status.scenarioResult.timeline",
                          f"key {shown!r}: expected a MajorStep, a decimal integer from 0 to {MAX_STEP}"))
    step = (status.get("stepStatus") or {}).get("step") if isinstance(status.get("stepStatus"), dict) else None
    major = step.get("major") if isinstance(step, dict) else None
    if type(major) is int and not 0 <= major <= MAX_STEP:
        found.append(("status.stepStatus.step.major", f"expected a MajorStep from 0 to {MAX_STEP}, got {major}"))
    return found


_OBJECT_FIELDS = (("create", "result"), ("patch", "result"), ("pod_scheduled", "pod"),
                  ("pod_unscheduled", "pod"), ("pod_preempted", "pod"))
_CAMEL = {"pod_scheduled": "podScheduled", "pod_unscheduled": "podUnscheduled", "pod_preempted": "podPreempted"}


def _object_problems(scenario: Scenario) -> list[tuple[str, str]]:
    """Pods and nodes in the timeline that are not objects of their kind (analysis reads them):
    each with the API server's decoding message, at most 20."""
    result = scenario.status.scenario_result
    found: list[tuple[str, str]] = []
    for major, events in (result.timeline.items() if result is not None else ()):
        for i, event in enumerate(events):
            for field, part in _OBJECT_FIELDS:
                holder = getattr(event, field)
                obj = getattr(holder, part, None) if holder is not None else None
                if obj is None:
                    continue
                kind = obj.get("kind", "Pod") if isinstance(obj, dict) else "Pod"
                if kind not in ("Pod", "Node"):
                    continue
                message = decoding_message("", "v1", kind, obj, strict=False)
                if message is not None:
                    found.append((f"status.scenarioResult.timeline[{major}][{i}].{_CAMEL.get(field, field)}.{part}",
                                  message))
                    if len(found) >= 20:
                        return found
    return found


def parse_results(documents: Sequence[Any], file: str | None = None) -> list[Scenario]:
    """Structure result documents into Scenarios; InvalidInput lists every problem with its field path."""
    scenarios: list[Scenario] = []
    problems: list[Problem] = []
    for i, doc in enumerate(documents):
        where = f"{file} [document {i}]" if file and len(documents) > 1 else file
        found = _check(doc) or resolve_pod_refs(doc)  # podRefs (compact podUnscheduled events) become pods
        if found:
            problems.extend(Problem(path, message, where) for path, message in found)
            continue
        try:
            scenario = structure(doc, Scenario, file=where)
        except InvalidInput as exc:
            problems.extend(exc.problems)
            continue
        problems.extend(Problem(path, message, where) for path, message in _object_problems(scenario))
        scenarios.append(scenario)
    if problems:
        raise InvalidInput(problems)
    return scenarios


def load_results(path: str | Path) -> list[Scenario]:
    """Every result in a file (a Scenario, a JSON list of them, or YAML documents), in file order."""
    with paused_gc():
        return parse_results(load_documents(path, RESULT_LIMITS), str(path))
