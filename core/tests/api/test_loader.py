"""Scenario files: YAML/JSON, several documents, and the errors for broken files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesim.api import API_VERSION
from kubesim.api.loader import load_scenarios
from kubesim.errors import InvalidInput

DOC = f"""
apiVersion: {API_VERSION}
kind: Scenario
metadata: {{name: NAME}}
spec:
  controllers: {{simulationControllers: {{enabled: [{{name: scheduler}}]}}}}
  operations:
  - step: 0
    doneOperation: {{}}
"""


def errors(path: Path) -> list[str]:
    with pytest.raises(InvalidInput) as info:
        load_scenarios(path)
    return [str(p) for p in info.value.problems]


def test_several_yaml_documents_load_in_file_order(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(DOC.replace("NAME", "first") + "---\n" + DOC.replace("NAME", "second"))
    assert [s.name for s in load_scenarios(f)] == ["first", "second"]


def test_a_json_list_of_scenarios_loads(tmp_path: Path) -> None:
    import yaml

    f = tmp_path / "s.json"
    f.write_text(json.dumps([yaml.safe_load(DOC.replace("NAME", n)) for n in ("a", "b")]))
    assert [s.name for s in load_scenarios(f)] == ["a", "b"]


def test_yaml_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("spec:\n  operations: [\n")
    [message] = errors(f)
    assert message.startswith(f"{f}: line ")
    assert "YAML syntax error" in message


def test_json_syntax_error_names_the_line_in_kubesims_words(tmp_path: Path) -> None:
    """The same message on every Python version (3.13 words and places this error differently)."""
    f = tmp_path / "bad.json"
    f.write_text('{"a": 1,\n}')
    assert errors(f) == [f"{f}: line 1 column 8: JSON syntax error: trailing comma before '}}'"]
    f.write_text('{"a": 1,\n "b": [1 2]}')
    assert errors(f) == [f"{f}: line 2 column 10: JSON syntax error: expected ',' between items"]


def test_missing_file_and_empty_file(tmp_path: Path) -> None:
    assert errors(tmp_path / "nope.yaml") == [f"{tmp_path / 'nope.yaml'}: cannot read file: No such file or directory"]
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing\n")
    assert errors(empty) == [f"{empty}: the file holds no scenario"]


def test_problems_name_the_document_when_a_file_has_several(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(DOC.replace("NAME", "ok") + "---\n" + DOC.replace("NAME", "bad").replace("step: 0", "step: x"))
    assert errors(f) == [f"{f} [document 1]: spec.operations[0].step: expected an integer, got the string 'x'"]


DUPLICATE_STEP = f"""\
apiVersion: {API_VERSION}
kind: Scenario
metadata: {{name: dup}}
spec:
  operations:
  - step: 0
    step: 1
    createOperation:
      object:
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          labels: {{app: a, app: b}}
        spec:
          containers:
          - name: c
            image: nginx
            name: d
  - step: 2
    doneOperation: {{}}
"""


def test_duplicate_keys_are_errors_with_their_path(tmp_path: Path) -> None:
    f = tmp_path / "dup.yaml"
    f.write_text(DUPLICATE_STEP)
    assert errors(f) == [
        f"{f}: spec.operations[0].step: duplicate key (lines 6 and 7)",
        f"{f}: spec.operations[0].createOperation.object.metadata.labels.app: duplicate key (line 14, columns 20 and 28)",
        f"{f}: spec.operations[0].createOperation.object.spec.containers[0].name: duplicate key (lines 17 and 19)",
    ]


def test_duplicate_keys_in_json_are_errors_with_their_path(tmp_path: Path) -> None:
    f = tmp_path / "dup.json"
    f.write_text('[{"kind": "Scenario"},\n {"kind": "Scenario", "spec": {"operations": [{"step": 0, "step": 1}]},'
                 ' "kind": "Scenario"}]')
    assert errors(f) == [f"{f}: [1].kind: duplicate key", f"{f}: [1].spec.operations[0].step: duplicate key"]


def test_duplicate_keys_name_the_document_when_a_file_has_several(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(DOC.replace("NAME", "ok") + "---\n" + DOC.replace("NAME", "dup").replace(
        "    doneOperation: {}", "    doneOperation: {}\n    step: 3"))
    assert errors(f) == [f"{f} [document 1]: spec.operations[0].step: duplicate key (lines 18 and 20)"]
