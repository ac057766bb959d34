"""End-to-end (issue 11): what `kubesim run` refuses on the input alone, `kubesim validate`
refuses too, with the same clear message, exit 2 and no Python internals; what only a run
can find fails the scenario (exit 1) with a message naming the field and the operation."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from kubesim.testing import KubesimRun

RunKubesim = Callable[..., KubesimRun]

API = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"
CONTROLLERS = "  controllers: {simulationControllers: {enabled: [{name: marker}]}}\n"


def scenario(*operations: str, name: str = "s", controllers: str = CONTROLLERS) -> str:
    """A scenario with a ConfigMap `a` created at step 0, then `operations` (YAML list items)."""
    head = (f"apiVersion: {API}\nkind: Scenario\nmetadata: {{name: {json.dumps(name, ensure_ascii=False)}}}\nspec:\n"
            f"{controllers}  operations:\n"
            "  - step: 0\n    createOperation: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}\n")
    return head + "".join(operations)


def patch(body: str, patch_type: str = "application/merge-patch+json", *, kind: str = "ConfigMap",
          api_version: str = "v1", name: str = "a", step: int = 1) -> str:
    return (f"  - step: {step}\n    patchOperation: {{typeMeta: {{apiVersion: {api_version}, kind: {kind}}}, "
            f"objectMeta: {{name: {name}}}, patchType: {patch_type}, patch: {json.dumps(body)}}}\n")


def create(obj: str, step: int = 1, extra: str = "") -> str:
    return f"  - step: {step}\n{extra}    createOperation: {{object: {obj}}}\n"


POD = "{{apiVersion: v1, kind: Pod, metadata: {{name: p}}, spec: {{{spec}containers: [{{name: c, image: i}}]}}}}"
GOLD = "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: gold}, value: 1000}"
CRD = """{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition,
      metadata: {name: widgets.example.com},
      spec: {group: example.com, scope: Namespaced, names: {plural: widgets, singular: widget, kind: Widget},
             versions: [{name: v1, served: true, storage: true,
                         schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]}}"""
WIDGET = "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}"
DIGITS = "9" * 5000

# case -> (scenario text, message after "error: s.yaml: ")
INVALID = {
    "scenario-name-emoji": (
        scenario(name="s\U0001f600"),
        'Scenario.simulation.kube-scheduler-simulator.x-k8s.io "s\U0001f600" is invalid: metadata.name: '
        'Invalid value: "s\U0001f600": a lowercase RFC 1123 subdomain must consist of'),
    "scenario-name-surrogate-pair": (  # YAML's "\ud83d\ude00" escapes: one character, as Go joins them
        scenario(name="s\ud83d\ude00").replace('"s\ud83d\ude00"', '"s\\ud83d\\ude00"'),
        'Scenario.simulation.kube-scheduler-simulator.x-k8s.io "s\U0001f600" is invalid: metadata.name'),
    "scenario-name-300": (
        scenario(name="a" * 300),
        f'Scenario.simulation.kube-scheduler-simulator.x-k8s.io "{"a" * 300}" is invalid: metadata.name: '
        f'Invalid value: "{"a" * 300}": must be no more than 253 characters'),
    "id-taken-from-an-earlier-operation": (
        scenario("  - step: 1\n    id: operation-0\n    doneOperation: {}\n"),
        'spec.operations[1].id: duplicate id "operation-0": spec.operations[0] has no id and is given this '
        "one (operation-<index>); choose another id"),
    "id-taken-from-a-later-operation": (
        scenario("  - step: 1\n    id: operation-2\n    doneOperation: {}\n",
                 create("{apiVersion: v1, kind: ConfigMap, metadata: {name: b}}")),
        'spec.operations[1].id: duplicate id "operation-2": spec.operations[2] has no id and is given this one'),
    "missing-priority-class": (
        scenario(create(POD.format(spec="priorityClassName: gold, "))),
        'spec.operations[1].createOperation.object.spec.priorityClassName: pods "p" is forbidden: '
        "no PriorityClass with name gold was found (no earlier operation creates it; if a controller does, "
        "run with --allow-unknown-targets)"),
    "priority-class-created-later": (
        scenario(create(POD.format(spec="priorityClassName: gold, ")), create(GOLD, step=2)),
        'spec.operations[1].createOperation.object.spec.priorityClassName: pods "p" is forbidden: '
        "no PriorityClass with name gold was found"),
    "priority-class-deleted-before": (
        scenario(create(GOLD), "  - step: 2\n    deleteOperation: {typeMeta: {apiVersion: scheduling.k8s.io/v1, "
                 "kind: PriorityClass}, objectMeta: {name: gold}}\n", create(POD.format(spec="priorityClassName: gold, "),
                                                                         step=3)),
        'spec.operations[3].createOperation.object.spec.priorityClassName: pods "p" is forbidden: '
        "no PriorityClass with name gold was found"),
    "priority-class-only-dry-run": (
        scenario(f"  - step: 1\n    createOperation: {{object: {GOLD}, createOptions: {{dryRun: [All]}}}}\n",
                 create(POD.format(spec="priorityClassName: gold, "), step=2)),
        'spec.operations[2].createOperation.object.spec.priorityClassName: pods "p" is forbidden'),
    "json-patch-unknown-op": (
        scenario(patch('[{"op": "frob", "path": "/data"}]', "application/json-patch+json")),
        'spec.operations[1].patchOperation.patch: [0].op: Unsupported value: "frob": supported values: '
        "add, remove, replace, move, copy, test"),
    "json-patch-not-a-pointer": (
        scenario(patch('[{"op": "add", "path": "data", "value": {}}]', "application/json-patch+json")),
        'spec.operations[1].patchOperation.patch: [0].path: Invalid value: "data": a JSON pointer is empty '
        "or starts with /, and ~ is followed by 0 or 1"),
    "json-patch-bad-escape": (
        scenario(patch('[{"op": "remove", "path": "/data/a~2b"}]', "application/json-patch+json")),
        'spec.operations[1].patchOperation.patch: [0].path: Invalid value: "/data/a~2b"'),
    "json-patch-without-value": (
        scenario(patch('[{"op": "add", "path": "/data"}]', "application/json-patch+json")),
        "spec.operations[1].patchOperation.patch: [0].value: required: add needs a value"),
    "json-patch-move-without-from": (
        scenario(patch('[{"op": "move", "path": "/data"}]', "application/json-patch+json")),
        "spec.operations[1].patchOperation.patch: [0].from: required: a JSON pointer such as /metadata/labels"),
    "json-patch-not-a-list": (
        scenario(patch('{"op": "add"}', "application/json-patch+json")),
        "spec.operations[1].patchOperation.patch: a JSON patch must be a list of operations, not an object"),
    "merge-patch-not-an-object": (
        scenario(patch("[1, 2]")),
        "spec.operations[1].patchOperation.patch: a merge merge patch must be an object, not a list"),
    "merge-patch-metadata-string": (
        scenario(patch('{"metadata": "x"}')),
        "spec.operations[1].patchOperation.patch: metadata must be an object, not a string"),
    "strategic-patch-labels-not-strings": (
        scenario(patch('{"metadata": {"labels": "x"}}', "application/strategic-merge-patch+json")),
        "spec.operations[1].patchOperation.patch: metadata.labels must map strings to strings"),
    "strategic-patch-unknown-directive": (
        scenario(patch('{"data": {"$patch": "frob"}}', "application/strategic-merge-patch+json")),
        'spec.operations[1].patchOperation.patch: data.$patch: Unsupported value: "frob": supported values: '
        "replace, merge, delete"),
    "strategic-patch-retain-keys-not-a-list": (
        scenario(patch('{"data": {"$retainKeys": "a"}}', "application/strategic-merge-patch+json")),
        "spec.operations[1].patchOperation.patch: data.$retainKeys: must be a list of field names"),
    "strategic-patch-on-a-custom-resource": (
        scenario(create(CRD), create(WIDGET, step=2),
                 patch('{"spec": {}}', "application/strategic-merge-patch+json", kind="Widget",
                       api_version="example.com/v1", name="w", step=3)),
        "spec.operations[3].patchOperation.patchType: the body of the request was in an unknown format - "
        "accepted media types include: application/json-patch+json, application/merge-patch+json (strategic "
        "merge patch is not supported for custom resources; use a merge patch or a JSON patch)"),
    "patch-changes-kind": (
        scenario(patch('{"kind": "Secret"}')),
        'spec.operations[1].patchOperation.patch: kind: Invalid value: "Secret": a patch cannot change the '
        "kind of the object (ConfigMap)"),
    "json-patch-changes-kind": (
        scenario(patch('[{"op": "replace", "path": "/kind", "value": "Secret"}]', "application/json-patch+json")),
        'spec.operations[1].patchOperation.patch: kind: Invalid value: "Secret"'),
    "patch-changes-api-version": (
        scenario(patch('{"apiVersion": "v2"}')),
        'spec.operations[1].patchOperation.patch: apiVersion: Invalid value: "v2": no kind "ConfigMap" is '
        'registered for version "v2"'),
    "patch-with-a-huge-integer": (
        scenario(patch('{"data": {"x": ' + DIGITS + "}}")),
        "spec.operations[1].patchOperation.patch: line 1 column 16: an integer of 5000 digits, more than the "
        "4300 kubesim reads"),
    "file-with-a-huge-integer": (
        scenario(f"  - step: {DIGITS}\n    doneOperation: {{}}\n"),
        "line 9 column 11: an integer of 5000 digits, more than the 4300 kubesim reads"),
    "nan-in-an-object": (
        scenario(create(POD.format(spec="terminationGracePeriodSeconds: .nan, "))),
        "spec.operations[1].createOperation.object.spec.terminationGracePeriodSeconds: Invalid value: nan: "
        "not a JSON number (JSON has no NaN or infinity)"),
    "infinity-in-a-quantity": (
        scenario(create("{apiVersion: v1, kind: Node, metadata: {name: n}, status: {allocatable: {cpu: .inf}}}")),
        "spec.operations[1].createOperation.object.status.allocatable.cpu: Invalid value: inf: not a JSON number"),
    "nan-in-a-patch": (
        scenario(patch("[{op: add, path: /x, value: .nan}]", "application/json-patch+json")),
        "spec.operations[1].patchOperation.patch: [0].value: Invalid value: nan: not a JSON number"),
    "no-controllers": (
        scenario(controllers=""),
        "spec.controllers: required: simulationControllers lists the controllers under test, "
        "e.g. {enabled: [{name: scheduler}]}, or {enabled: []} for none"),
    "no-simulation-controllers": (
        scenario(controllers="  controllers: {preSimulationControllers: {disabled: [{name: '*'}]}}\n"),
        "spec.controllers.simulationControllers: required: the controllers under test"),
}

PYTHON_INTERNALS = ("Traceback", "sys.set_int_max_str_digits", "NoneType", "has no attribute", " dict",
                    "integer ratio", "{'", "None", "True", "False")


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("case", sorted(INVALID))
def test_validate_refuses_what_run_refuses(kubesim: RunKubesim, tmp_path: Path, case: str, command: str) -> None:
    text, message = INVALID[case]
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    proc = kubesim(command, "s.yaml", *(("-o", "out.json") if command == "run" else ()))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: s.yaml: {message}"), proc.stderr
    assert not any(s in proc.stderr for s in PYTHON_INTERNALS), proc.stderr
    assert not (tmp_path / "out.json").exists()


VALID = {
    "priority-class-earlier-in-the-same-step": scenario(create(GOLD), create(POD.format(spec="priorityClassName: gold, "))),
    "priority-class-deleted-only-in-a-dry-run": scenario(
        create(GOLD), "  - step: 2\n    deleteOperation: {typeMeta: {apiVersion: scheduling.k8s.io/v1, kind: "
        "PriorityClass}, objectMeta: {name: gold}, deleteOptions: {dryRun: [All]}}\n",
        create(POD.format(spec="priorityClassName: gold, "), step=3)),
    "system-priority-class": scenario(create(POD.format(spec="priorityClassName: system-node-critical, "))),
    "own-generated-id": scenario("  - step: 1\n    id: operation-1\n    doneOperation: {}\n"),
    "json-patch-every-op": scenario(patch(json.dumps([
        {"op": "add", "path": "/data", "value": {"c": "1"}}, {"op": "copy", "from": "/data/c", "path": "/data/d"},
        {"op": "add", "path": "/metadata/annotations", "value": {}},
        {"op": "add", "path": "/metadata/annotations/example.com~1x", "value": "~"},
        {"op": "move", "from": "/data/d", "path": "/data/e"}, {"op": "test", "path": "/data/e", "value": "1"},
        {"op": "replace", "path": "/data/e", "value": "2"}, {"op": "remove", "path": "/data/e"},
        {"op": "replace", "path": "/kind", "value": "ConfigMap"}]), "application/json-patch+json")),
    "strategic-patch-directives": scenario(patch(json.dumps(
        {"metadata": {"labels": {"x": "1", "y": None}}, "data": {"$patch": "replace", "k": "v"}}),
        "application/strategic-merge-patch+json")),
    "merge-patch-on-a-custom-resource": scenario(create(CRD), create(WIDGET, step=2),
                                                 patch('{"spec": {"size": 2}}', kind="Widget",
                                                       api_version="example.com/v1", name="w", step=3)),
    "no-simulation-controller-enabled": scenario(controllers="  controllers: {simulationControllers: {enabled: []}}\n"),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_scenarios_pass_validate_and_run(kubesim: RunKubesim, tmp_path: Path, case: str) -> None:
    """No false positive: each of these is what the API server accepts."""
    (tmp_path / "s.yaml").write_text(VALID[case], encoding="utf-8")
    proc = kubesim("validate", "s.yaml")
    assert proc.returncode == 0, proc.stderr
    proc = kubesim("run", "s.yaml", "-q", "-o", "out.json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "out.json").read_text())["status"]["phase"] in ("Paused", "Succeeded")


def test_a_controller_may_create_the_priority_class_with_allow_unknown_targets(kubesim: RunKubesim,
                                                                               tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(scenario(create(POD.format(spec="priorityClassName: gold, "))))
    assert kubesim("validate", "s.yaml", "--allow-unknown-targets").returncode == 0
    proc = kubesim("run", "s.yaml", "-q", "--allow-unknown-targets", "-o", "out.json")
    assert proc.returncode == 1  # no controller does here: the API server's own message
    status = json.loads((tmp_path / "out.json").read_text())["status"]
    assert status["message"] == ('spec.operations[1] (id operation-1, step 1): pods "p" is forbidden: '
                                 "no PriorityClass with name gold was found")


@pytest.mark.parametrize(("body", "message"), [
    ('{"metadata": {"uid": "x"}}', 'ConfigMap "a" is invalid: metadata.uid: Invalid value: "x": field is immutable'),
    ('[{"op": "add", "path": "/metadata/uid", "value": "x"}]',
     'ConfigMap "a" is invalid: metadata.uid: Invalid value: "x": field is immutable'),
])
def test_a_patch_of_the_uid_fails_the_scenario(kubesim: RunKubesim, tmp_path: Path, body: str, message: str) -> None:
    """The uid is known only at run time: the run fails with the API server's message, never drops it."""
    ptype = "application/json-patch+json" if body.startswith("[") else "application/merge-patch+json"
    (tmp_path / "s.yaml").write_text(scenario(patch(body, ptype)))
    assert kubesim("validate", "s.yaml").returncode == 0
    proc = kubesim("run", "s.yaml", "-q", "-o", "out.json")
    assert proc.returncode == 1
    status = json.loads((tmp_path / "out.json").read_text())["status"]
    assert status == {**status, "phase": "Failed", "message": f"spec.operations[1] (id operation-1, step 1): {message}"}


LAST_STEP = scenario("  - step: 30\n    doneOperation: {}\n")  # 30 x 2562047h is past year 9999


@pytest.mark.parametrize(("args", "message"), [
    (["--step-duration", "100000000h"],
     "Invalid value for '--step-duration': time: invalid duration \"100000000h\" (expected e.g. 10s, 1m30s, 2h; "
     "at most 2562047h)"),
    (["--step-duration", "2562047h47m16.854775808s"], 'time: invalid duration "2562047h47m16.854775808s"'),
    (["--step-duration", "0s"], "Invalid value for '--step-duration': '0s' must be greater than 0"),
    (["--step-duration", "-1s"], "Invalid value for '--step-duration': '-1s' must be greater than 0"),
    (["--step-duration", "1ns"], "'1ns' is shorter than 1us, the finest step kubesim's clock has"),
    (["--step-duration", "1e9h"], 'time: unknown unit "e" in duration "1e9h"'),
    (["--start-time", "2025-01-01"], "Invalid value for '--start-time': '2025-01-01' is not an RFC 3339 time"),
    (["--start-time", "2025-W01-1T00:00:00Z"], "'2025-W01-1T00:00:00Z' is not an RFC 3339 time"),
    (["--start-time", "2025-01-01T00:00:00"], "'2025-01-01T00:00:00' has no time zone (add Z or an offset)"),
    (["--start-time", "9999-12-31T23:59:59Z"],
     "error: scenario s: spec.operations[1].step: step 30 would start after 9999-12-31T23:59:59Z, the latest "
     "time kubesim can represent (see --step-duration)"),
    (["--step-duration", "2562047h"],
     "error: scenario s: spec.operations[1].step: step 30 would start after 9999-12-31T23:59:59Z"),
])
def test_time_flags_are_bounded_before_anything_runs(kubesim: RunKubesim, tmp_path: Path, args: list[str],
                                                     message: str) -> None:
    (tmp_path / "s.yaml").write_text(LAST_STEP)
    proc = kubesim("run", "s.yaml", "-o", "out.json", *args)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_the_largest_go_duration_runs(kubesim: RunKubesim, tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(scenario("  - step: 1\n    doneOperation: {}\n"))
    proc = kubesim("run", "s.yaml", "-q", "-o", "out.json", "--step-duration", "2562047h47m16.854775807s")
    assert proc.returncode == 0, proc.stderr
