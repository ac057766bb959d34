"""kubesim.perf.config: upstream scheduler_perf test-case files, parameters and field errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kubesim.errors import InvalidInput
from kubesim.perf.config import Op, Workload, parse_duration, parse_test_cases, resolve_op
from kubesim.perf.select import label_filter_matches, select_workloads


def _case(ops: list[dict[str, Any]], **extra: Any) -> list[dict[str, Any]]:
    return [{"name": "Case", "workloadTemplate": ops,
             "workloads": [{"name": "w", "params": {"n": 5, "d": "2s", "s": "x", "f": 2.9}}], **extra}]


def _problems(data: Any) -> list[str]:
    with pytest.raises(InvalidInput) as info:
        parse_test_cases(data, "perf.yaml")
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize("op", [
    {"opcode": "createNodes", "count": 3, "nodeTemplatePath": "n.yaml",
     "labelNodePrepareStrategy": {"labelKey": "zone", "labelValues": ["a", "b"]}},
    {"opcode": "createNodes", "countParam": "$n", "uniqueNodeLabelStrategy": {"labelKey": "host"}},
    {"opcode": "createNodes", "count": 1, "nodeAllocatableStrategy": {"nodeAllocatable": {"cpu": "2"},
                                                                     "csiNodeAllocatable": {"d": {"count": 3}}}},
    {"opcode": "createNamespaces", "prefix": "ns", "count": 2},
    {"opcode": "createPods", "countParam": "$n", "collectMetrics": True, "namespace": "x", "podTemplatePath": "p.yaml"},
    {"opcode": "createPods", "count": 1, "skipWaitToCompletion": True, "persistentVolumeTemplatePath": "pv.yaml",
     "persistentVolumeClaimTemplatePath": "pvc.yaml"},
    {"opcode": "createPodSets", "countParam": "$n", "namespacePrefix": "set", "createPodsOp": {
        "opcode": "createPods", "count": 2}},
    {"opcode": "deletePods", "namespace": "x", "labelSelector": {"a": "b"}, "deletePodsPerSecond": 10},
    {"opcode": "churn", "mode": "recreate", "number": 2, "intervalMilliseconds": 100, "templatePaths": ["a.yaml"]},
    {"opcode": "barrier", "namespaces": ["x"], "stageRequirement": "Attempted"},
    {"opcode": "sleep", "duration": "1500ms"},
    {"opcode": "sleep", "durationParam": "$d"},
    {"opcode": "startCollectingMetrics", "name": "m", "namespaces": ["x"], "labelSelector": {"a": "b"}},
    {"opcode": "stopCollectingMetrics"},
    {"opcode": "createAny", "templatePath": "cm.yaml", "count": 2, "templateParams": {"k": "$s"}},
    {"opcode": "updateAny", "templatePath": "cm.yaml", "countParam": "$n", "updatePerSecond": 5},
])
def test_every_opcode_parses(op: dict[str, Any]) -> None:
    (case,) = parse_test_cases(_case([op]), "perf.yaml")
    assert case.ops[0].opcode == op["opcode"]
    assert set(case.ops[0].fields) == set(op) - {"opcode"}


def test_field_names_match_without_case_as_encoding_json_does() -> None:
    (case,) = parse_test_cases(_case([{"Opcode": "createPods", "CountParam": "$n", "CollectMetrics": True}]), "f")
    assert dict(case.ops[0].fields) == {"countParam": "$n", "collectMetrics": True}


def test_test_case_fields() -> None:
    (case,) = parse_test_cases(_case([{"opcode": "barrier"}], labels=["performance"], featureGates={"A": True},
                                     schedulerConfigPath="cfg.yaml", defaultPodTemplatePath="pod.yaml"), "dir/perf.yaml")
    assert case.labels == ("performance",) and case.feature_gates == {"A": True}
    assert case.path_of("cfg.yaml").as_posix() == "dir/cfg.yaml"
    assert case.default_pod_template_path == "pod.yaml"


@pytest.mark.parametrize("data, expected", [
    (_case([{"opcode": "fly"}]), "perf.yaml: [0].workloadTemplate[0].opcode: unknown opcode 'fly'"),
    (_case([{"opcode": "createPods", "cont": 1}]), "perf.yaml: [0].workloadTemplate[0].cont: unknown field"),
    (_case([{"opcode": "createPods", "count": "many"}]),
     "perf.yaml: [0].workloadTemplate[0].count: expected an integer, got a string"),
    (_case([{"opcode": "createPods", "countParam": "n"}]),
     "[0].workloadTemplate[0].countParam: expected a parameter name starting with $"),
    (_case([{"opcode": "createPods", "count": 10**7}]), "[0].workloadTemplate[0].count: expected an integer from 0"),
    (_case([{"opcode": "sleep", "duration": "soon"}]), "[0].workloadTemplate[0].duration: expected a duration"),
    (_case([{"opcode": "churn", "mode": "spin", "templatePaths": ["a"]}]), "[0].workloadTemplate[0].mode: expected"),
    (_case([{"opcode": "churn", "mode": "recreate", "templatePaths": ["a"]}]), "[0].workloadTemplate[0].number: must"),
    (_case([{"opcode": "createPods", "collectMetrics": True, "skipWaitToCompletion": True}]), "cannot be true"),
    (_case([{"opcode": "startCollectingMetrics"}]), "[0].workloadTemplate[0].namespaces: cannot be empty"),
    (_case([{"opcode": "createNodes", "labelNodePrepareStrategy": {"labelKey": "z"}}]),
     "labelNodePrepareStrategy: labelKey and a non-empty labelValues are required"),
    (_case([{"opcode": "createNodes", "uniqueNodeLabelStrategy": {"labelKey": "a"},
             "labelNodePrepareStrategy": {"labelKey": "z", "labelValues": ["a"]}}]), "at most one node strategy"),
    (_case([{"opcode": "createPodSets", "count": 1, "createPodsOp": {"opcode": "sleep"}}]),
     "[0].workloadTemplate[0].createPodsOp.opcode: unknown opcode 'sleep' (expected one of: createPods)"),
    ([{"name": "a", "workloadTemplate": [], "workloads": []}], "[0].workloadTemplate: required"),
    (_case([{"opcode": "barrier"}]) + _case([{"opcode": "barrier"}]), "[1].name: testCase name 'Case' is not unique"),
    ([{"name": "a", "workloadTemplate": [{"opcode": "barrier"}], "workloads": [{"name": "w"}, {"name": "w"}]}],
     "[0].workloads[1].name: workload name 'w' is not unique"),
    ([{"name": "a", "workloadTemplate": [{"opcode": "barrier"}], "workloads": [{"name": "w", "threshold": -1}]}],
     "[0].workloads[0].threshold: should be non-negative"),
    ({"name": "a"}, "perf.yaml: expected a list of testCases, got a mapping"),
])
def test_bad_fields_are_named(data: Any, expected: str) -> None:
    problems = _problems(data)
    assert any(expected in p for p in problems), problems


def _resolve(op: dict[str, Any], params: dict[str, Any]) -> Op:
    (case,) = parse_test_cases(_case([op]), "perf.yaml")
    w = Workload("w", params, (), {}, 0.0, None, "[0].workloads[0]")
    return resolve_op(case.ops[0], w, set(), "perf.yaml")


def test_params_substitute_like_upstream() -> None:
    assert _resolve({"opcode": "createPods", "countParam": "$n"}, {"n": 7}).get("count") == 7
    assert _resolve({"opcode": "createPods", "countParam": "$n"}, {"n": 7.9}).get("count") == 7  # int(float64)
    multiplied = _resolve({"opcode": "createPods", "count": 3, "countMultiplierParam": "$m"}, {"m": 4})
    assert multiplied.get("count") == 12
    assert _resolve({"opcode": "sleep", "durationParam": "$d"}, {"d": "3s"}).get("duration") == "3s"
    resolved = _resolve({"opcode": "createAny", "templatePath": "t", "templateParams": {"a": "$s", "b": 1}}, {"s": "x"})
    assert resolved.get("templateParams") == {"a": "x", "b": 1}


@pytest.mark.parametrize("op, params, expected", [
    ({"opcode": "createPods", "countParam": "$n"}, {}, "countParam: parameter n is undefined in workload 'w'"),
    ({"opcode": "createPods", "countParam": "$n"}, {"n": "5"}, "parameter n has the wrong type: expected a number"),
    ({"opcode": "sleep", "durationParam": "$d"}, {"d": 5}, "parameter d has the wrong type: expected a string"),
    ({"opcode": "sleep", "durationParam": "$d"}, {"d": "later"}, "parameter d is not a duration"),
    ({"opcode": "createPods", "countParam": "$n"}, {"n": 10**8}, "count: expected a count from 0 to"),
    ({"opcode": "createAny", "templatePath": "t", "templateParams": {"a": "$zz"}}, {}, "parameter 'zz' not found"),
])
def test_param_errors_name_the_field(op: dict[str, Any], params: dict[str, Any], expected: str) -> None:
    with pytest.raises(InvalidInput) as info:
        _resolve(op, params)
    assert any(expected in str(p) for p in info.value.problems), info.value.problems


@pytest.mark.parametrize("text, seconds", [("0", 0.0), ("1s", 1.0), ("1.5s", 1.5), ("250ms", 0.25), ("2m30s", 150.0),
                                           ("1h", 3600.0), ("x", None), ("", None), ("5", None)])
def test_go_durations(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("filters, labels, expected", [
    ((), (), True), (("performance",), ("performance", "fast"), True), (("performance",), ("fast",), False),
    (("performance,fast",), ("performance",), False), (("+performance", "-slow"), ("performance", "slow"), False),
    (("-slow",), ("performance",), True),
])
def test_label_filters(filters: tuple[str, ...], labels: tuple[str, ...], expected: bool) -> None:
    assert label_filter_matches(filters, labels) is expected


def test_selection_by_label_workload_and_test_case() -> None:
    data = [{"name": "A", "labels": ["performance"], "workloadTemplate": [{"opcode": "barrier"}],
             "workloads": [{"name": "small", "labels": ["short"]}, {"name": "big"}]},
            {"name": "B", "workloadTemplate": [{"opcode": "barrier"}], "workloads": [{"name": "small"}]}]
    cases = parse_test_cases(data, "f")

    def names(**kw: Any) -> list[str]:
        return [f"{c.name}/{w.name}" for c, w in select_workloads(cases, **kw)]

    assert names() == ["A/small", "A/big", "B/small"]
    assert names(labels=["performance"]) == ["A/small", "A/big"]
    assert names(labels=["performance", "short"]) == ["A/small"]
    assert names(workloads=["small"]) == ["A/small", "B/small"]
    assert names(workloads=["B/small"]) == ["B/small"]
    assert names(test_cases=["B"]) == ["B/small"]


@pytest.mark.parametrize("op, expected", [
    ({"opcode": "createPods", "steadyState": True, "durationParam": "$d"},
     ("perf.yaml: [0].workloadTemplate[0].steadyState: steady-state createPods is not supported by kubesim perf "
      "(workload 'w')")),
    ({"opcode": "createResourceDriver", "driverName": "x", "nodes": "*"},
     ("perf.yaml: [0].workloadTemplate[0].opcode: opcode 'createResourceDriver' is not supported by kubesim perf "
      "(workload 'w')")),
])
def test_unsupported_ops_fail_only_the_workloads_that_run_them(op: dict[str, Any], expected: str) -> None:
    (case,) = parse_test_cases(_case([op]), "perf.yaml")  # the file still parses: other testCases can run
    with pytest.raises(InvalidInput) as info:
        resolve_op(case.ops[0], case.workloads[0], set(), "perf.yaml")
    assert [str(p) for p in info.value.problems] == [expected]


def test_paths_relative_to_the_file_or_its_parent(tmp_path: Path) -> None:
    (tmp_path / "config" / "templates").mkdir(parents=True)
    (tmp_path / "templates").mkdir()
    (tmp_path / "config" / "templates" / "new.yaml").write_text("")
    (tmp_path / "config" / "old.yaml").write_text("")  # config/old.yaml named "config/old.yaml", from the parent
    (case,) = parse_test_cases(_case([{"opcode": "barrier"}]), str(tmp_path / "config" / "perf.yaml"))
    assert case.path_of("templates/new.yaml") == tmp_path / "config" / "templates" / "new.yaml"
    assert case.path_of("config/old.yaml") == tmp_path / "config" / "old.yaml"
    assert case.path_of("missing.yaml") == tmp_path / "config" / "missing.yaml"
