"""In-process properties of the scenario loader and the cluster's write path (cheap: no command).

Whatever the input, they raise only kubesim's error types (InvalidInput for files,
ApiError for API requests), never TypeError, KeyError, RecursionError and the like.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from kubesim.api.loader import load_scenarios
from kubesim.cli.validate import load_and_validate
from kubesim.clock import Clock
from kubesim.cluster import Cluster, check_new_object
from kubesim.errors import ApiError, InvalidInput
from kubesim.plugins import load_plugins

from command_runs import count
from documents import Document
from hostile_values import FAMILIES, PATCH_BODIES, PATCH_TYPES, json_values, mutated
from known_failures import enabled
from profiles import examples
from scenario_strategies import scenarios

HOOKS = load_plugins()

# Families that change parsed data only (no raw text): what an API request can carry.
DATA_FAMILIES = ("wrong_type", "numbers", "quantities", "strings", "missing", "unknown_field", "duplicates")

YAML_PIECES = ("apiVersion: ", "kind: Scenario\n", "spec:\n", "  operations:\n", "  - ", "{", "}", "[", "]",
               "&a ", "*a ", "!!python/object:os.system ", "!!binary ", "? ", ": ", "- ", "\t", "\n", "---\n",
               "...\n", "%YAML 1.1\n", "\ufeff", "'", '"', "#", "|\n", ">\n", "<<: *a\n", "1e999999999")


FILE_CONTENTS = {
    "binary": st.binary(max_size=300),
    "yaml_text": st.lists(st.sampled_from(YAML_PIECES) | st.text(max_size=5), max_size=30).map(
        lambda parts: "".join(parts).encode("utf-8", "surrogatepass")),
}


@pytest.mark.parametrize("source", enabled("loader", FILE_CONTENTS))
@settings(max_examples=examples(200))
@given(data=st.data(), suffix=st.sampled_from(("yaml", "json")))
def test_the_loader_raises_only_invalid_input_for_any_bytes(source: str, data: st.DataObject, suffix: str) -> None:
    content = data.draw(FILE_CONTENTS[source], label="content")
    count(f"loader: {source}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"input.{suffix}"
        path.write_bytes(content)
        try:
            load_scenarios(path)
        except InvalidInput as exc:
            assert exc.problems, "InvalidInput without a problem"


@pytest.mark.parametrize("family", enabled("loader", FAMILIES))
@settings(max_examples=examples(40))
@given(data=st.data())
def test_validation_raises_only_invalid_input(family: str, data: st.DataObject) -> None:
    doc = data.draw(mutated(st.builds(Document, scenarios()), family), label="document")
    count(f"validation: {family}")
    note(doc.note)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            load_and_validate([str(doc.write(Path(tmp)))], HOOKS)
        except InvalidInput as exc:
            assert exc.problems, "InvalidInput without a problem"


def _objects(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    return [op["createOperation"]["object"] for op in scenario["spec"]["operations"] if "createOperation" in op]


def _request(call: Any) -> None:
    """Make one API request; an ApiError is the API server's answer, anything else a bug."""
    try:
        call()
    except ApiError as exc:
        assert exc.message, f"{type(exc).__name__} without a message"


@pytest.mark.parametrize("family", enabled("cluster", DATA_FAMILIES))
@settings(max_examples=examples(40))
@given(data=st.data())
def test_the_write_path_raises_only_api_errors(family: str, data: st.DataObject) -> None:
    objects = _objects(data.draw(scenarios(), label="scenario"))
    count(f"cluster write path: {family}")
    cluster = Cluster(Clock())
    for obj in objects:
        _request(lambda: cluster.create(copy.deepcopy(obj)))
    target = data.draw(st.sampled_from(objects), label="target")
    changed = data.draw(mutated(st.just(Document(copy.deepcopy(target))), family), label="object").data
    note(repr(changed)[:2000])
    _request(lambda: check_new_object(cluster.registry, copy.deepcopy(changed)))
    if isinstance(changed, dict):
        _request(lambda: cluster.create(copy.deepcopy(changed)))
        _request(lambda: cluster.update(copy.deepcopy(changed)))
        _request(lambda: cluster.update(copy.deepcopy(changed), subresource="status"))
    meta = target["metadata"]
    drawn = data.draw(st.one_of(st.sampled_from(PATCH_BODIES), json_values), label="patch")
    body = drawn if isinstance(drawn, str) else json.dumps(drawn)  # a scenario's patch is a string
    patch_type = data.draw(st.sampled_from([t for t in PATCH_TYPES if isinstance(t, str)]), label="patch type")
    subresource = data.draw(st.sampled_from((None, "status")), label="subresource")
    _request(lambda: cluster.patch(target["apiVersion"], target["kind"], meta["name"], body,
                                   patch_type, namespace=meta.get("namespace"), subresource=subresource))
