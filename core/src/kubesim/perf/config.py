"""Reading scheduler_perf test-case files as upstream writes them.

A file is a list of testCases (name, featureGates, workloadTemplate, workloads,
schedulerConfigPath, defaultPodTemplatePath, labels); each workload has name, labels, params,
featureGates and threshold (with thresholdMetricSelector). Field names match upstream's Go
structs, which encoding/json matches without regard to case (`countParam` or `CountParam`);
an unknown field is an error, as upstream decodes with DisallowUnknownFields. Every problem
names the file and the field path (`[0].workloadTemplate[2].count`).
"""

# upstream: test/integration/scheduler_perf/scheduler_perf.go (testCase, workload, params,
# op.UnmarshalJSON), operations.go (each op's fields, isValid, patchParams)

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubesim.api.loader import load_documents
from kubesim.errors import InvalidInput, Problem

__all__ = [
    "MAX_COUNT",
    "OPCODES",
    "Op",
    "TestCase",
    "Workload",
    "load_test_cases",
    "parse_duration",
    "parse_test_cases",
    "resolve_op",
]

#: the largest count (nodes, pods, namespaces, objects) one op may create: bounded input
MAX_COUNT = 1_000_000

# field kinds: int, float, bool, str, param ($name), strlist, strmap, map (any mapping),
# duration (Go duration text), podsop (a nested createPods op)
_COUNTED = {"count": "int", "countParam": "param"}
OPCODES: dict[str, dict[str, str]] = {
    "createNodes": {**_COUNTED, "nodeTemplatePath": "str", "nodeAllocatableStrategy": "map",
                    "labelNodePrepareStrategy": "map", "uniqueNodeLabelStrategy": "map", "templateParams": "map"},
    "createNamespaces": {**_COUNTED, "prefix": "str", "namespaceTemplatePath": "str"},
    "createPods": {**_COUNTED, "countMultiplierParam": "param", "steadyState": "bool", "steadyStateParam": "param",
                   "duration": "duration", "durationParam": "param", "collectMetrics": "bool", "namespace": "str",
                   "podTemplatePath": "str", "skipWaitToCompletion": "bool", "persistentVolumeTemplatePath": "str",
                   "persistentVolumeClaimTemplatePath": "str", "templateParams": "map", "signatureBatchSize": "int",
                   "signatureBatchSizeParam": "param"},
    "createPodSets": {**_COUNTED, "namespacePrefix": "str", "createPodsOp": "podsop"},
    "deletePods": {"namespace": "str", "labelSelector": "strmap", "skipWaitToCompletion": "bool",
                   "deletePodsPerSecond": "int"},
    "churn": {"mode": "str", "number": "int", "intervalMilliseconds": "int", "namespace": "str",
              "templatePaths": "strlist"},
    "barrier": {"namespaces": "strlist", "labelSelector": "strmap", "stageRequirement": "str"},
    "sleep": {"duration": "duration", "durationParam": "param"},
    "startCollectingMetrics": {"name": "str", "namespaces": "strlist", "labelSelector": "strmap"},
    "stopCollectingMetrics": {},
    "createAny": {**_COUNTED, "namespace": "str", "templatePath": "str", "templateParams": "map"},
    "updateAny": {**_COUNTED, "namespace": "str", "templatePath": "str", "updatePerSecond": "int",
                  "templateParams": "map"},
}
#: upstream opcodes kubesim does not model (DRA claim drivers, pod groups)
_UNSUPPORTED = ("allocResourceClaims", "createResourceClaims", "createResourceDriver", "waitForPodGroups")

_TEST_CASE_FIELDS = {"name": "str", "featureGates": "boolmap", "metricsCollectorConfig": "map",
                     "workloadTemplate": "list", "workloads": "list", "schedulerConfigPath": "str",
                     "defaultPodTemplatePath": "str", "labels": "strlist", "defaultThresholdMetricSelector": "map"}
_WORKLOAD_FIELDS = {"name": "str", "params": "map", "labels": "strlist", "threshold": "float",
                    "thresholdMetricSelector": "map", "featureGates": "boolmap"}
_SELECTOR_FIELDS = {"name": "str", "labels": "strmap", "expectLower": "bool"}

_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> float | None:
    """Seconds of a Go duration ("1.5s", "2m30s", "500ms", "0"); None when it is not one."""
    text = text.strip()
    if text in ("0", "+0", "-0"):
        return 0.0
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    pos, total = 0, 0.0
    while pos < len(body):
        m = _DURATION.match(body, pos)
        if m is None:
            return None
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    return sign * total if body else None


@dataclass(frozen=True)
class Op:
    """One op of a workloadTemplate: its opcode, fields (canonical names) and field path."""

    opcode: str
    fields: Mapping[str, Any]
    path: str
    index: int
    unsupported: str | None = None
    """Why kubesim cannot run this op (an upstream opcode or mode it does not model): an error
    when a selected workload reaches it, so that the file's other testCases still run."""

    def get(self, name: str, default: Any = None) -> Any:
        """A field's value, `default` when unset."""
        return self.fields.get(name, default)


@dataclass(frozen=True)
class Workload:
    """A workload of a testCase: params and its own labels, gates and threshold."""

    name: str
    params: Mapping[str, Any]
    labels: tuple[str, ...]
    feature_gates: Mapping[str, bool]
    threshold: float
    threshold_selector: Mapping[str, Any] | None
    path: str


@dataclass(frozen=True)
class TestCase:
    """A testCase: the ops every workload follows and the settings they share."""

    __test__ = False  # not a pytest class

    name: str
    ops: tuple[Op, ...]
    workloads: tuple[Workload, ...]
    labels: tuple[str, ...]
    feature_gates: Mapping[str, bool]
    scheduler_config_path: str | None
    default_pod_template_path: str | None
    threshold_selector: Mapping[str, Any] | None
    file: str
    base: Path = field(default=Path("."))
    path: str = ""
    """The testCase's field path in the file ([0])."""

    def path_of(self, relative: str) -> Path:
        """A template or configuration path of the file. Upstream's are relative to the Go test's
        directory: the file's own directory in today's layout (affinity/performance-config.yaml
        with ../templates/...), its parent in the older one (config/performance-config.yaml with
        config/templates/...). The first of those where the file exists; the first otherwise."""
        p = Path(relative)
        if p.is_absolute():
            return p
        for base in (self.base, self.base.parent):
            if (base / p).exists():
                return base / p
        return self.base / p


class _Problems:
    """Collects problems of one file."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.items: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(Problem(path, message, self.file))


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a mapping", type(None): "null"}.get(type(value), type(value).__name__)


def _check_kind(kind: str, value: Any, path: str, problems: _Problems) -> Any:
    """The value when it is of field kind `kind`, else None with a problem."""
    ok: bool
    expected = {"int": "an integer", "float": "a number", "bool": "a boolean", "str": "a string",
                "param": "a parameter name starting with $", "strlist": "a list of strings",
                "strmap": "a mapping of strings to strings", "map": "a mapping", "list": "a list",
                "boolmap": "a mapping of names to booleans", "duration": "a duration such as 500ms or 2m",
                "podsop": "a createPods op"}[kind]
    if kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, float) and value.is_integer())
        if ok:
            value = int(value)
    elif kind == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "str":
        ok = isinstance(value, str)
    elif kind == "param":
        ok = isinstance(value, str) and value.startswith("$") and len(value) > 1
    elif kind == "strlist":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    elif kind == "strmap":
        ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    elif kind in ("map", "podsop"):
        ok = isinstance(value, dict)
    elif kind == "list":
        ok = isinstance(value, list)
    elif kind == "boolmap":
        ok = isinstance(value, dict) and all(isinstance(v, bool) for v in value.values())
    else:  # duration
        ok = isinstance(value, str) and parse_duration(value) is not None
    if not ok:
        problems.add(path, f"expected {expected}, got {_type_name(value)}")
        return None
    return value


def _fields(raw: Any, spec: Mapping[str, str], path: str, problems: _Problems,
            ignore: tuple[str, ...] = ()) -> dict[str, Any]:
    """The known fields of mapping `raw` by canonical name (matched without regard to case, as
    encoding/json does); unknown fields and wrong types are problems."""
    if not isinstance(raw, dict):
        problems.add(path, f"expected a mapping, got {_type_name(raw)}")
        return {}
    by_lower = {name.lower(): name for name in spec}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = by_lower.get(str(key).lower())
        here = f"{path}.{key}" if path else str(key)
        if name is None:
            if str(key).lower() not in ignore:
                known = ", ".join(sorted(spec))
                problems.add(here, f"unknown field (expected one of: {known})" if known else "unknown field")
            continue
        if value is None:
            continue
        checked = _check_kind(spec[name], value, here, problems)
        if checked is not None:
            out[name] = checked
    return out


def _parse_op(raw: Any, path: str, index: int, problems: _Problems, *, nested: str | None = None) -> Op | None:
    """One op; `nested` is the opcode a nested op must have (createPodSets' createPodsOp)."""
    if not isinstance(raw, dict):
        problems.add(path, f"expected an op (a mapping with opcode), got {_type_name(raw)}")
        return None
    opcode_key = next((k for k in raw if str(k).lower() == "opcode"), None)
    opcode = raw.get(opcode_key) if opcode_key is not None else nested
    if not isinstance(opcode, str):
        problems.add(f"{path}.opcode", "expected an opcode string (e.g. createNodes, createPods, barrier)")
        return None
    if opcode in _UNSUPPORTED:
        return Op(opcode, {}, f"{path}.opcode", index, f"opcode {opcode!r} is not supported by kubesim perf")
    spec = OPCODES.get(opcode)
    if spec is None or (nested is not None and opcode != nested):
        allowed = nested or ", ".join(OPCODES)
        problems.add(f"{path}.opcode", f"unknown opcode {opcode!r} (expected one of: {allowed})")
        return None
    before = len(problems.items)
    fields = _fields(raw, spec, path, problems, ignore=("opcode",))
    if "createPodsOp" in fields:
        inner = _parse_op(fields["createPodsOp"], f"{path}.createPodsOp", index, problems, nested="createPods")
        fields["createPodsOp"] = inner
    if len(problems.items) == before:
        _check_op(opcode, fields, path, problems)
    if len(problems.items) != before:
        return None
    if fields.get("steadyState") or "steadyStateParam" in fields:
        return Op(opcode, fields, f"{path}.steadyState", index, "steady-state createPods is not supported by kubesim perf")
    return Op(opcode, fields, path, index)


def _check_op(opcode: str, f: dict[str, Any], path: str, problems: _Problems) -> None:
    """Upstream's isValid(allowParameterization=true) checks, each naming its field."""
    for name in ("count", "number", "intervalMilliseconds", "deletePodsPerSecond", "updatePerSecond",
                 "signatureBatchSize"):
        value = f.get(name)
        if value is not None and not 0 <= value <= MAX_COUNT:
            problems.add(f"{path}.{name}", f"expected an integer from 0 to {MAX_COUNT}, got {value}")
    if opcode == "createPods" and f.get("collectMetrics") and f.get("skipWaitToCompletion"):
        problems.add(f"{path}.collectMetrics", "collectMetrics and skipWaitToCompletion cannot be true at the same time")
    if opcode == "createPodSets" and "createPodsOp" not in f:
        problems.add(f"{path}.createPodsOp", "required: the createPods op each set runs")
    if opcode == "churn":
        mode = f.get("mode")
        if mode not in ("recreate", "create"):
            problems.add(f"{path}.mode", f"expected recreate or create, got {mode!r}")
        if mode == "recreate" and not f.get("number"):
            problems.add(f"{path}.number", "must be > 0 when mode is recreate")
        if not f.get("templatePaths"):
            problems.add(f"{path}.templatePaths", "at least one template file is required")
    if opcode == "barrier" and f.get("stageRequirement") not in (None, "", "Scheduled", "Attempted"):
        problems.add(f"{path}.stageRequirement", f"expected Scheduled or Attempted, got {f['stageRequirement']!r}")
    if opcode == "startCollectingMetrics" and not f.get("namespaces"):
        problems.add(f"{path}.namespaces", "cannot be empty")
    if opcode in ("createAny", "updateAny") and not f.get("templatePath"):
        problems.add(f"{path}.templatePath", "required")
    if opcode == "createNodes":
        strategies = [s for s in ("nodeAllocatableStrategy", "labelNodePrepareStrategy", "uniqueNodeLabelStrategy")
                      if s in f]
        if len(strategies) > 1:
            problems.add(f"{path}.{strategies[1]}", f"at most one node strategy may be set (also {strategies[0]})")
        _check_strategy(f, path, problems)


def _check_strategy(f: dict[str, Any], path: str, problems: _Problems) -> None:
    """The node strategies' fields (upstream test/utils/runners.go)."""
    if "labelNodePrepareStrategy" in f:
        here = f"{path}.labelNodePrepareStrategy"
        s = _fields(f["labelNodePrepareStrategy"], {"labelKey": "str", "labelValues": "strlist"}, here, problems)
        if not s.get("labelKey") or not s.get("labelValues"):
            problems.add(here, "labelKey and a non-empty labelValues are required")
        f["labelNodePrepareStrategy"] = s
    if "uniqueNodeLabelStrategy" in f:
        here = f"{path}.uniqueNodeLabelStrategy"
        s = _fields(f["uniqueNodeLabelStrategy"], {"labelKey": "str"}, here, problems)
        if not s.get("labelKey"):
            problems.add(here, "labelKey is required")
        f["uniqueNodeLabelStrategy"] = s
    if "nodeAllocatableStrategy" in f:
        here = f"{path}.nodeAllocatableStrategy"
        s = _fields(f["nodeAllocatableStrategy"], {"nodeAllocatable": "strmap", "csiNodeAllocatable": "map",
                                                   "migratedPlugins": "strlist"}, here, problems)
        f["nodeAllocatableStrategy"] = s


def _parse_workload(raw: Any, path: str, problems: _Problems) -> Workload | None:
    before = len(problems.items)
    f = _fields(raw, _WORKLOAD_FIELDS, path, problems)
    if not f.get("name"):
        problems.add(f"{path}.name", "required: a workload name")
    if f.get("threshold", 0) < 0:
        problems.add(f"{path}.threshold", f"should be non-negative, got {f['threshold']}")
    selector = None
    if "thresholdMetricSelector" in f:
        selector = _fields(f["thresholdMetricSelector"], _SELECTOR_FIELDS, f"{path}.thresholdMetricSelector", problems)
    if len(problems.items) != before:
        return None
    return Workload(f["name"], dict(f.get("params", {})), tuple(f.get("labels", ())), dict(f.get("featureGates", {})),
                    float(f.get("threshold", 0.0)), selector, path)


def parse_test_cases(data: Any, file: str) -> list[TestCase]:
    """The testCases of a decoded file; InvalidInput with every problem found."""
    problems = _Problems(file)
    if not isinstance(data, list):
        raise InvalidInput([Problem("", f"expected a list of testCases, got {_type_name(data)}", file)])
    base = Path(file).parent
    out: list[TestCase] = []
    names: set[str] = set()
    for i, raw in enumerate(data):
        path = f"[{i}]"
        before = len(problems.items)
        f = _fields(raw, _TEST_CASE_FIELDS, path, problems)
        name = f.get("name")
        if not name:
            problems.add(f"{path}.name", "required: a testCase name")
        elif name in names:
            problems.add(f"{path}.name", f"testCase name {name!r} is not unique")
        names.add(name or "")
        ops = [_parse_op(r, f"{path}.workloadTemplate[{j}]", j, problems)
               for j, r in enumerate(f.get("workloadTemplate", []))]
        if not f.get("workloadTemplate"):
            problems.add(f"{path}.workloadTemplate", "required: a non-empty list of ops")
        workloads = [_parse_workload(r, f"{path}.workloads[{j}]", problems) for j, r in enumerate(f.get("workloads", []))]
        seen: set[str] = set()
        for j, w in enumerate(workloads):
            if w is not None and w.name in seen:
                problems.add(f"{path}.workloads[{j}].name", f"workload name {w.name!r} is not unique")
            if w is not None:
                seen.add(w.name)
        selector = None
        if "defaultThresholdMetricSelector" in f:
            selector = _fields(f["defaultThresholdMetricSelector"], _SELECTOR_FIELDS,
                               f"{path}.defaultThresholdMetricSelector", problems)
        if len(problems.items) != before:
            continue
        out.append(TestCase(
            name=str(name), ops=tuple(o for o in ops if o is not None), workloads=tuple(w for w in workloads if w),
            labels=tuple(f.get("labels", ())), feature_gates=dict(f.get("featureGates", {})),
            scheduler_config_path=f.get("schedulerConfigPath") or None,
            default_pod_template_path=f.get("defaultPodTemplatePath") or None,
            threshold_selector=selector, file=file, base=base, path=path,
        ))
    if problems.items:
        raise InvalidInput(problems.items)
    return out


def load_test_cases(path: str) -> list[TestCase]:
    """Read a scheduler_perf config file (YAML or JSON: a list of testCases)."""
    docs = load_documents(path)
    data = docs if len(docs) != 1 or not isinstance(docs[0], list) else docs[0]
    return parse_test_cases(list(data), path)


def _param(workload: Workload, op: Op, name: str, kind: str, problems: _Problems) -> Any:
    """The workload parameter `op.fields[name]` ($key) as `kind` (int, str or bool), upstream's
    params.get / getParam: a JSON number is an int parameter (truncated), no other conversion."""
    key = op.fields[name][1:]
    here = f"{op.path}.{name}"
    if key not in workload.params:
        problems.add(here, f"parameter {key} is undefined in workload {workload.name!r} ({workload.path}.params)")
        return None
    value = workload.params[key]
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            problems.add(here, f"parameter {key} has the wrong type: expected a number, got {_type_name(value)}")
            return None
        return int(value)
    if kind == "str" and not isinstance(value, str):
        problems.add(here, f"parameter {key} has the wrong type: expected a string, got {_type_name(value)}")
        return None
    return value


def _resolve_template_params(workload: Workload, op: Op, problems: _Problems) -> dict[str, Any]:
    """templateParams with `$name` string values replaced by the workload's parameters."""
    out: dict[str, Any] = {}
    for key, value in op.fields.get("templateParams", {}).items():
        if isinstance(value, str) and value.startswith("$"):
            if value[1:] not in workload.params:
                problems.add(f"{op.path}.templateParams.{key}", f"parameter {value[1:]!r} not found in workload "
                                                               f"{workload.name!r}")
                continue
            value = workload.params[value[1:]]
        out[key] = value
    return out


def resolve_op(op: Op, workload: Workload, used: set[str], file: str) -> Op:
    """The op with the workload's parameters substituted (upstream's patchParams): countParam,
    countMultiplierParam, durationParam, signatureBatchSizeParam and `$` values of
    templateParams. InvalidInput when a parameter is missing or of the wrong type."""
    problems = _Problems(file)
    if op.unsupported:
        raise InvalidInput([Problem(op.path, f"{op.unsupported} (workload {workload.name!r})", file)])
    f = dict(op.fields)
    for name, target, kind in (("countParam", "count", "int"), ("signatureBatchSizeParam", "signatureBatchSize", "int"),
                               ("durationParam", "duration", "str")):
        if name in f:
            used.add(f[name][1:])
            value = _param(workload, op, name, kind, problems)
            if value is not None:
                if name == "durationParam" and parse_duration(value) is None:
                    problems.add(f"{op.path}.{name}", f"parameter {f[name][1:]} is not a duration: {value!r}")
                f[target] = value
    if "countMultiplierParam" in f:
        used.add(f["countMultiplierParam"][1:])
        value = _param(workload, op, "countMultiplierParam", "int", problems)
        if value is not None:
            f["count"] = f.get("count", 0) * value
    if "templateParams" in f:
        used.update(v[1:] for v in f["templateParams"].values() if isinstance(v, str) and v.startswith("$"))
        f["templateParams"] = _resolve_template_params(workload, op, problems)
    count = f.get("count")
    if count is not None and not 0 <= count <= MAX_COUNT:
        problems.add(f"{op.path}.count", f"expected a count from 0 to {MAX_COUNT} (workload {workload.name!r}), got {count}")
    if isinstance(f.get("createPodsOp"), Op):
        f["createPodsOp"] = resolve_op(f["createPodsOp"], workload, used, file)
    if problems.items:
        raise InvalidInput(problems.items)
    return Op(op.opcode, f, op.path, op.index)
