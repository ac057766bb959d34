"""End-to-end: hostile files (deep, bombs, binary, devices, absurd numbers) end fast with exit 2
and one message naming the file and where, through `validate`, `run`, `report` and `compare`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from kubesim.testing import KubesimRun, run_kubesim

RunKubesim = Callable[..., KubesimRun]

DATA = Path(__file__).parent.parent / "data"
DEEP = "JSON nested deeper than 100 levels, the most kubesim reads"
DEEP_YAML = "YAML nested deeper than 100 levels, the most kubesim reads"

HEAD = """apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: limits}
spec:
  controllers: {simulationControllers: {enabled: [{name: marker}]}}
  operations:
  - step: 0
    createOperation:
      object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, labels: {state: new}}, data: {k: v}}
"""


def _scenario_json(extra: str) -> str:
    """The scenario HEAD as one line of JSON, with `extra` as the ConfigMap's `x` field."""
    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "limits"},
           "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "marker"}]}},
                    "operations": [{"step": 0, "createOperation": {"object": {
                        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "x": "X"}}}]}}
    return json.dumps(doc).replace('"X"', extra)


BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")
)
DEPTHS = [400, 600, 3_000, 50_000, 1_000_000]
_PATCH = "  - step: 1\n    patchOperation: {typeMeta: {apiVersion: v1, kind: ConfigMap}, objectMeta: {name: a}, " \
         "patchType: application/merge-patch+json, patch: %s}\n"

# file name -> (content, the message after "error: <file>: ")
CASES: dict[str, tuple[str | bytes, str]] = {
    **{f"deep-flow-{d}.yaml": (HEAD.replace("data: {k: v}", "x: " + "[" * d + "]" * d),
                               f"line 9 column 189: {DEEP_YAML}") for d in DEPTHS},
    **{f"deep-{d}.json": (_scenario_json("[" * d + "]" * d), f"line 1 column 436: {DEEP}") for d in DEPTHS},
    "deep-block.yaml": (HEAD + "  - step: 1\n    doneOperation:\n      x:\n" + "      " + "- " * 3000 + "x\n",
                        f"line 13 column 197: {DEEP_YAML}"),
    "bomb.yaml": (HEAD + "  - step: 1\n    doneOperation: {}\nx:\n" + "".join("  " + line + "\n" for line in BOMB.splitlines()),
                  "line 16: excessive YAML aliasing: the aliases expand the document beyond 6901 nodes"),
    "recursive.yaml": (HEAD.replace("data: {k: v}", "data: &d {k: [*d]}"),
                       "line 9: a YAML anchor contains an alias to itself"),
    "binary.yaml": (b"\x7fELF\x02\x01\x01\x00\x00\x00", "NUL byte at byte 7: a binary file, not YAML or JSON"),
    "latin1.yaml": (HEAD.replace("{k: v}", "{k: caf\xe9}").encode("latin-1"), "not valid UTF-8 at byte 331"),
    "bigint.yaml": (HEAD.replace("step: 0", "step: " + "9" * 5000), "line 7 column 11: an integer of 5000 digits, "
                    "more than the 4300 kubesim reads"),
    "bigint.json": (_scenario_json("9" * 5001), "line 1 column 342: an integer of 5001 digits, more than the 4300 kubesim reads"),
    "nan.json": (_scenario_json("NaN"), "line 1 column 342: NaN is not a JSON value"),
    "huge-float.json": (_scenario_json("1e999999"),
                        "line 1 column 342: the number 1e999999 is out of the range of a 64-bit float"),
    "deep-patch.yaml": (HEAD + _PATCH % ("'{\"data\": " + "[" * 3000 + "]" * 3000 + "}'"),
                        f"spec.operations[1].patchOperation.patch: line 1 column 109: {DEEP}"),
    "bomb-patch.yaml": (HEAD + _PATCH % json.dumps(BOMB), "spec.operations[1].patchOperation.patch: line 4: "
                        "excessive YAML aliasing: the aliases expand the document beyond 1801 nodes"),
}


def _kubesim(*args: str, cwd: Path, stdin: str | None = None) -> KubesimRun:
    return run_kubesim(*args, cwd=cwd, plugins=(), pythonpath=[DATA / "plugins"], modules=["kubesim_testplugin"],
                       timeout=60, stdin=stdin)


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_scenario_files_end_fast_with_exit_2(tmp_path: Path, name: str, command: str) -> None:
    content, message = CASES[name]
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    start = time.perf_counter()
    proc = _kubesim(command, name, cwd=tmp_path)
    assert time.perf_counter() - start < 30  # a second or two; generous for a loaded machine
    assert (proc.returncode, proc.stderr) == (2, f"error: {name}: {message}\n")


@pytest.mark.parametrize(("path", "message"), [
    ("/dev/urandom", "not a regular file (a character device)"),
    ("/dev/zero", "not a regular file (a character device)"),
])
@pytest.mark.parametrize("command", ["validate", "run", "report"])
def test_devices_and_directories_are_refused_at_once(tmp_path: Path, command: str, path: str, message: str) -> None:
    proc = _kubesim(command, path, cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, f"error: {path}: {message}\n")


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_directory_is_refused(tmp_path: Path, command: str) -> None:
    proc = _kubesim(command, ".", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "error: .: is a directory\n")


def test_a_file_over_64_mib_is_refused_by_its_size(tmp_path: Path) -> None:
    with open(tmp_path / "big.yaml", "wb") as fh:
        fh.truncate(64 * 1024 * 1024 + 1)  # sparse: nothing is read
    proc = _kubesim("validate", "big.yaml", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "error: big.yaml: larger than 64 MiB, the most kubesim reads\n")


def test_a_pipe_given_on_purpose_is_read(tmp_path: Path) -> None:
    proc = _kubesim("validate", "/dev/stdin", cwd=tmp_path, stdin=HEAD)
    assert (proc.returncode, proc.stdout) == (0, "limits: valid (1 operations)\n"), proc.stderr


@pytest.mark.parametrize("name", ["within.yaml", "within.json", "anchors.yaml"])
def test_nesting_and_anchors_within_the_limits_run(tmp_path: Path, name: str) -> None:
    contents = {
        # nested in a field the ConfigMap does not have, kept by fieldValidation Ignore
        "within.yaml": HEAD.replace("data: {k: v}", "x: " + "[" * 90 + "]" * 90).replace(
            "    createOperation:\n", "    createOperation:\n      createOptions: {fieldValidation: Ignore}\n"),
        "within.json": _scenario_json("[" * 90 + "]" * 90).replace(
            '"createOperation": {', '"createOperation": {"createOptions": {"fieldValidation": "Ignore"}, '),
        "anchors.yaml": HEAD.replace("data: {k: v}", "data: &d {k: v}") + "".join(
            f"  - step: {i}\n    createOperation:\n      object: {{apiVersion: v1, kind: ConfigMap, "
            f"metadata: {{name: c{i}}}, data: *d}}\n" for i in range(1, 50)),
    }
    (tmp_path / name).write_text(contents[name], encoding="utf-8")
    proc = _kubesim("run", name, "-o", "out.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.results[0]["status"]["scenarioResult"]


# --- results given to report and compare ----------------------------------------------


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The text of a result that `kubesim run -o` wrote."""
    where = tmp_path_factory.mktemp("result")
    (where / "s.yaml").write_text(HEAD, encoding="utf-8")
    proc = _kubesim("run", "s.yaml", "-o", "r.json", cwd=where)
    assert proc.returncode == 0, proc.stderr
    return (where / "r.json").read_text(encoding="utf-8")


_STEP = '"step": {"major": 0'
_KEY = '"timeline": {\n        "0"'
_FINAL = '"stepStatus": {\n      "step": {\n        "major": '
MAJOR_STEP = "expected a MajorStep, a decimal integer from 0 to 2147483647"

# name -> (replaced, replacement, message after "error: <file>: ", or None: the result is read)
RESULT_CASES: dict[str, tuple[str, str, str | None]] = {
    **{f"deep-{d}": ('"k": "v"', '"k": ' + "[" * d + "]" * d,
                     "line 9 column 374: JSON nested deeper than 200 levels, the most kubesim reads") for d in DEPTHS},
    "within-150": ('"k": "v"', '"k": ' + "[" * 150 + "]" * 150, None),
    "nan-step": (_STEP, '"step": {"major": NaN', "line 35 column 51: NaN is not a JSON value"),
    "huge-float": (_STEP, '"step": {"major": 1e999999',
                   "line 35 column 51: the number 1e999999 is out of the range of a 64-bit float"),
    "5000-digits": (_STEP, '"step": {"major": ' + "9" * 5000,
                    "line 35 column 51: an integer of 5000 digits, more than the 4300 kubesim reads"),
    "huge-quantity": ('"k": "v"', '"k": "1e999999", "cpu": 1e308, "n": ' + str(2**70), None),
    "timeline-key": (_KEY, '"timeline": {\n        "99999999999"',
                     f"status.scenarioResult.timeline: key '99999999999': {MAJOR_STEP}"),
    "timeline-key-max": (_KEY, '"timeline": {\n        "2147483647"', None),
    "timeline-key-word": (_KEY, '"timeline": {\n        "first"', f"status.scenarioResult.timeline: key 'first': {MAJOR_STEP}"),
    "final-step": (_FINAL + "0", _FINAL + str(2**70),
                   "status.stepStatus.step.major: expected a MajorStep from 0 to 2147483647, got 1180591620717411303424"),
}


@pytest.mark.parametrize("command", ["report", "compare"])
@pytest.mark.parametrize("case", sorted(RESULT_CASES))
def test_hostile_results_end_fast(tmp_path: Path, result: str, case: str, command: str) -> None:
    replaced, replacement, message = RESULT_CASES[case]
    assert replaced in result, "the result's layout changed: update the case"
    name = f"{case}.json"
    (tmp_path / name).write_text(result.replace(replaced, replacement, 1), encoding="utf-8")
    (tmp_path / "good.json").write_text(result, encoding="utf-8")
    args = ("report", name, "-o", "report.html") if command == "report" else ("compare", name, "good.json")
    start = time.perf_counter()
    proc = _kubesim(*args, cwd=tmp_path)
    assert time.perf_counter() - start < 30
    if message is None:
        assert proc.returncode == 0, proc.stderr
    else:
        assert (proc.returncode, proc.stderr) == (2, f"error: {name}: {message}\n")


NODE = "  - step: 0\n    createOperation:\n      object: {apiVersion: v1, kind: Node, metadata: {name: n}, " \
       "status: {allocatable: {cpu: '4', memory: 1Gi, pods: '10'}, capacity: {cpu: '4', memory: 1Gi, pods: '10'}}}\n"


@pytest.mark.parametrize("command", ["report", "compare"])
@pytest.mark.parametrize(("quantity", "message"), [
    ('"1e999999"', "status.allocatable[cpu]: invalid quantity '1e999999': too large"),
    ('"1180591620717411303424"', None), (str(2**70), None), ('"-5Gi"', None),
    ('"x"', "status.allocatable[cpu]: quantities must match the regular expression"),
])
def test_absurd_quantities_in_a_result_are_no_traceback(
    tmp_path: Path, command: str, quantity: str, message: str | None
) -> None:
    (tmp_path / "s.yaml").write_text(HEAD + NODE, encoding="utf-8")
    assert _kubesim("run", "s.yaml", "-o", "good.json", cwd=tmp_path).returncode == 0
    text = (tmp_path / "good.json").read_text(encoding="utf-8")
    assert '"cpu": "4"' in text
    (tmp_path / "odd.json").write_text(text.replace('"cpu": "4"', f'"cpu": {quantity}'), encoding="utf-8")
    args = ("report", "odd.json", "-o", "report.html") if command == "report" else ("compare", "odd.json", "good.json")
    proc = _kubesim(*args, cwd=tmp_path)  # fails the test on a traceback
    if message is None:  # a Quantity the API server accepts: shown as it is
        assert proc.returncode == 0, proc.stderr
    else:  # not a Node the API server would decode: the result is refused, naming the event
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith("error: odd.json: status.scenarioResult.timeline[0][1].create.result: "
                                      'Node in version "v1" cannot be handled as a Node: ' + message), proc.stderr


@pytest.mark.parametrize("name", ["lone.yaml", "lone.json"])
def test_lone_surrogate_escapes_become_the_replacement_character(tmp_path: Path, name: str) -> None:
    """Go's decoders turn "\\ud864" (half of a UTF-16 pair) into U+FFFD; Python would keep a
    character that cannot be written as UTF-8, and the result could not be saved."""
    annotations = '{"a": "x\\ud864y", "b": "\\udc00", "pair": "\\ud83d\\ude00"}'
    text = HEAD.replace("labels: {state: new}}", f"labels: {{state: new}}, annotations: {annotations}}}")
    if name.endswith(".json"):
        text = json.dumps(yaml.safe_load(HEAD)).replace('"labels"', f'"annotations": {annotations}, "labels"')
    (tmp_path / name).write_text(text, encoding="utf-8")
    proc = _kubesim("run", name, "-o", "out.json", "--export-cluster", "state.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    exported = json.loads((tmp_path / "state.json").read_text(encoding="utf-8"))
    config_map = next(o for o in exported["items"] if o["kind"] == "ConfigMap")
    assert config_map["metadata"]["annotations"] == {"a": "x\ufffdy", "b": "\ufffd", "pair": "\U0001f600"}


def test_keys_that_are_not_strings_are_named_as_json_writes_them(tmp_path: Path) -> None:
    (tmp_path / "keys.yaml").write_text(HEAD.replace("spec:\n", "spec:\n  1: x\n  null: y\n"), encoding="utf-8")
    proc = _kubesim("validate", "keys.yaml", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "error: keys.yaml: spec.1: unknown field\n"
                                                 "error: keys.yaml: spec.null: unknown field\n")


def test_run_reads_a_larger_file_when_asked(tmp_path: Path) -> None:
    """`kubesim run --max-input-size` raises (or lowers) the 64 MiB bound, for scenarios of 10^5 pods."""
    text = (HEAD.replace("{name: marker}", "")
            + "  - step: 1\n    doneOperation: {}\n" + "# padding\n" * 200)
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    small = _kubesim("run", "s.yaml", "--max-input-size", "1Ki", "-q", cwd=tmp_path)
    assert (small.returncode, small.stderr) == (2, "error: s.yaml: larger than 1024 bytes, the most kubesim reads\n")
    ok = _kubesim("run", "s.yaml", "--max-input-size", "1Mi", "-q", "-o", "r.json", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["status"]["phase"] == "Succeeded"
    bad = _kubesim("run", "s.yaml", "--max-input-size", "lots", cwd=tmp_path)
    assert bad.returncode == 2 and "'lots' is not a size" in bad.stderr and "Traceback" not in bad.stderr
