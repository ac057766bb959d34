"""Custom resources and CRDs through the installed `kubesim` command (issue 11: hostile input).

Each case is a scenario file in and an exit code plus the API server's message out; `validate`
must catch on the input alone what `run` would reject.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

_WIDGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["mode"],
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "size": {"type": "integer", "minimum": 1, "maximum": 100},
                "mode": {"type": "string", "enum": ["a", "b"]},
            },
        },
    },
}


def _crd(schema: Any = _WIDGET_SCHEMA, **spec: Any) -> dict[str, Any]:
    body = {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"kind": "Widget", "plural": "widgets"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        **spec,
    }
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"}, "spec": body}


def _scenario(tmp_path: Path, *objects: dict[str, Any], field_validation: str | None = None) -> str:
    ops: list[dict[str, Any]] = [{"step": i, "createOperation": {"object": o}} for i, o in enumerate(objects)]
    if field_validation is not None:
        ops[-1]["createOperation"]["createOptions"] = {"fieldValidation": field_validation}
    ops.append({"step": len(objects), "doneOperation": {}})
    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "crd"}, "spec": {"controllers": {"simulationControllers": {"enabled": []}},
                                                 "operations": ops}}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(doc))
    return "s.yaml"


def _widget(spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


_W = 'spec.operations[1].createOperation.object: Widget.example.com "w" is invalid: '
_C = 'spec.operations[0].createOperation.object: CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: '


@pytest.mark.parametrize(("objects", "message"), [
    pytest.param([_crd(), _widget("a string")],
                 _W + 'spec: Invalid value: "string": spec in body must be of type object: "string"', id="spec-string"),
    pytest.param([_crd(), _widget({"mode": "a", "size": 200})],
                 _W + "spec.size: Invalid value: 200: spec.size in body should be less than or equal to 100",
                 id="maximum"),
    pytest.param([_crd(), _widget({"mode": "c"})],
                 _W + 'spec.mode: Unsupported value: "c": supported values: "a", "b"', id="enum"),
    pytest.param([_crd(), _widget({"size": 5})], _W + "spec.mode: Required value", id="required"),
    pytest.param([_crd(), _widget({"mode": "a", "replicas": "3"})],
                 _W + 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
                 id="type"),
    pytest.param([_crd(), _widget({"mode": "a", "foo": 1})],
                 'spec.operations[1].createOperation.object: Widget in version "v1" cannot be handled as a Widget: '
                 'strict decoding error: unknown field "spec.foo"', id="unknown-field"),
    pytest.param([{**_crd(), "spec": "oops"}],
                 'spec.operations[0].createOperation.object: CustomResourceDefinition in version "v1" cannot be '
                 "handled as a CustomResourceDefinition: json: cannot unmarshal string into Go struct field "
                 "CustomResourceDefinition.spec of type v1.CustomResourceDefinitionSpec", id="crd-spec-string"),
    pytest.param([_crd({"type": "object", "properties": {"spec": {"properties": {}}}})],
                 _C + "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be "
                      "empty for specified object fields", id="crd-not-structural"),
    pytest.param([_crd({"type": "object", "properties": {"spec": {"type": "string", "pattern": "(["}}})],
                 _C + 'spec.versions[0].schema.openAPIV3Schema.properties[spec].pattern: Invalid value: "([": must be '
                      "a valid regular expression, but isn't: ", id="crd-bad-pattern"),
    pytest.param([_crd(None)], _C + "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
                 id="crd-no-schema"),
    pytest.param([_crd(group="example")], _C + '[spec.group: Invalid value: "example": should be a domain with at least '
                 'one dot, metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group]',
                 id="crd-group"),
])
def test_invalid_custom_resources_and_crds_exit_2(run_kubesim: Any, tmp_path: Path, objects: list[dict[str, Any]],
                                                   message: str) -> None:
    path = _scenario(tmp_path, *objects)
    for command in ("validate", "run"):
        proc = run_kubesim(command, path, plugins=())
        assert proc.returncode == 2, proc.stderr
        assert f"error: {path}: {message}" in proc.stderr
        assert "Traceback" not in proc.stderr and "dict" not in proc.stderr


def test_schema_defaults_are_applied(run_kubesim: Any, tmp_path: Path) -> None:
    path = _scenario(tmp_path, _crd(), _widget({"mode": "a"}))
    proc = run_kubesim("run", path, "--export-cluster", "cluster.json", plugins=())
    assert proc.returncode == 0, proc.stderr
    assert proc.export is not None
    exported = yaml.safe_load(proc.export.read_text())  # a v1 List
    widget = next(o for o in exported["items"] if o["kind"] == "Widget")
    assert widget["spec"] == {"mode": "a", "replicas": 1}


@pytest.mark.parametrize("field_validation", ["Ignore", "Warn"])
def test_unknown_fields_are_dropped_when_the_operation_says_so(run_kubesim: Any, tmp_path: Path,
                                                               field_validation: str) -> None:
    path = _scenario(tmp_path, _crd(), _widget({"mode": "a", "foo": 1}), field_validation=field_validation)
    proc = run_kubesim("run", path, "--export-cluster", "cluster.yaml", plugins=())
    assert proc.returncode == 0, proc.stderr
    assert proc.export is not None
    widget = next(o for o in yaml.safe_load(proc.export.read_text())["items"] if o["kind"] == "Widget")
    assert widget["spec"] == {"mode": "a", "replicas": 1}
    assert ('unknown field \\"spec.foo\\"' in proc.stderr) == (field_validation == "Warn")


def test_an_unknown_field_validation_is_refused_before_the_run(run_kubesim: Any, tmp_path: Path) -> None:
    path = _scenario(tmp_path, _crd(), _widget({"mode": "a"}), field_validation="Lenient")
    proc = run_kubesim("validate", path, plugins=())
    assert proc.returncode == 2
    assert proc.stderr == (f"error: {path}: spec.operations[1].createOperation.createOptions.fieldValidation: "
                           'Unsupported value: "Lenient": supported values: "Ignore", "Strict", "Warn"\n')


def test_a_backtracking_pattern_cannot_hang_validation(run_kubesim: Any, tmp_path: Path) -> None:
    """(a+)+$ takes Python's re 2**60 steps on this value; RE2 matches in linear time."""
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "name": {"type": "string", "pattern": "^(a+)+$"}}}}}
    path = _scenario(tmp_path, _crd(schema), _widget({"name": "a" * 60 + "!"}))
    proc = run_kubesim("validate", path, plugins=(), timeout=30)
    assert proc.returncode == 2
    assert "spec.name: Invalid value: " in proc.stderr and "in body should match '^(a+)+$'" in proc.stderr
