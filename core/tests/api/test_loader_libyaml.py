"""Scenario files through libyaml: the same documents and the same error text as pure Python."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from kubesim.api import loader
from kubesim.errors import InvalidInput
from kubesim.input_limits import InputLimitError

DOC = """\
apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: s}
spec:
  operations:
  - step: 0
    createOperation:
      object:
        apiVersion: v1
        kind: Pod
        metadata: {name: "p", labels: {a: "1", b: yes, c: ~}}
        spec: {containers: [{name: c, image: "nginx:1.27"}], priority: 10, x: 1.5e3, t: 2025-01-01T00:00:00Z}
  - step: 1
    doneOperation: {}
---
# a second document, and an empty one
kind: Scenario
---
"""


def test_libyaml_and_pure_python_load_the_same_documents() -> None:
    assert loader._FAST_LOADER is not None, "PyYAML without libyaml: this test needs it"
    assert loader._load_yaml(DOC, "doc.yaml") == [d for d in yaml.safe_load_all(DOC) if d is not None]


@pytest.mark.parametrize("fast", [True, False])
def test_syntax_errors_read_the_same_with_or_without_libyaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    if not fast:
        monkeypatch.setattr(loader, "_FAST_LOADER", None)
    path = tmp_path / "broken.yaml"
    path.write_text("kind: Scenario\nspec:\n  operations:\n  - step: [1\n", encoding="utf-8")
    with pytest.raises(InvalidInput) as info:
        loader.load_documents(path)
    [problem] = info.value.problems
    assert str(problem).startswith(f"{path}: line 5 column 1: YAML syntax error: ")
    assert "expected ',' or ']'" in str(problem)


@pytest.mark.parametrize("text", [
    "a: 1\nb: [1, 2.5, true, null, '3', 0x1f, 1_000, .inf, 2025-01-01T00:00:00Z, 2025-01-01]\n",
    "base: &b {x: 1, y: [1, 2]}\nother: *b\nagain: *b\n",
    "base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n",
    "a: !!binary aGVsbG8=\nb: !!str 12\nc: !!int '7'\n",
    "s: !!set {a, b}\no: !!omap [a: 1, b: 2]\n",
    "'a': \"b\"\n1: 2\nnull: x\n",
    "--- \n---\na: 1\n---\n- x\n",
])
def test_fast_construction_equals_pyyaml(text: str) -> None:
    assert loader._load_yaml(text, "t.yaml") == [d for d in yaml.safe_load_all(text) if d is not None]


def test_recursive_documents_are_refused_and_unhashable_ones_left_to_pyyaml() -> None:
    # yaml.v2: "anchor 'a' value contains itself"; copies and checks would never end
    with pytest.raises(InputLimitError, match="^line 1: a YAML anchor contains an alias to itself$"):
        loader._load_yaml("x: &a [1, *a]\n", "t.yaml")
    with pytest.raises(yaml.YAMLError) as info:
        loader._load_nodes("? [1, 2]\n: x\n", yaml.CSafeLoader, "t.yaml")
    assert "unhashable" in str(info.value)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(("text", "problems"), [
    ("a: b\na: c\n", ["t.yaml: a: duplicate key (lines 1 and 2)"]),
    # a flow mapping repeats a key on one line; merge keys may repeat what they merge
    ("m: {x: 1, y: 2, x: 3}\n", ["t.yaml: m.x: duplicate key (line 1, columns 5 and 17)"]),
    ("base: &b {x: 1}\nm: &m\n  <<: *b\n  x: 2\n  x: 3\nn: *m\n", ["t.yaml: m.x: duplicate key (lines 4 and 5)"]),
    ("a: 1\n---\n- {k: 1, k: 2}\n", ["t.yaml [document 1]: [0].k: duplicate key (line 3, columns 4 and 10)"]),
])
def test_duplicate_keys_read_the_same_with_or_without_libyaml(
    monkeypatch: pytest.MonkeyPatch, fast: bool, text: str, problems: list[str]
) -> None:
    if not fast:
        monkeypatch.setattr(loader, "_FAST_LOADER", None)
    with pytest.raises(InvalidInput) as info:
        loader._load_yaml(text, "t.yaml")
    assert [str(p) for p in info.value.problems] == problems
