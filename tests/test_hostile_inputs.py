"""Issue 11's hostile inputs through the installed command: each class ends fast, with the exit
code and the message kubesim gives for it (tests/hostile/cases.py builds the inputs;
`python tests/hostile/table.py` prints the whole table)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from kubesim.testing import run_kubesim

sys.path.insert(0, str(Path(__file__).parent / "hostile"))
from cases import CASES, write  # noqa: E402

EXPECTED: dict[str, tuple[int, str]] = {
    "quantity-1e999999999": (2, "requests[cpu]: invalid quantity '1e999999999': too large"),
    "extender-ftp-url": (2, 'extenders[0].urlPrefix: Invalid value: "ftp://127.0.0.1/x": must be an http or https URL'),
    "extender-refused": (0, ""),
    "extender-timeout-100000h": (2, "extenders[0].httpTimeout: Invalid value: \"100000h0m0s\": must be at most 10m0s"),
    "replicas-2**70": (2, "cannot unmarshal number 1180591620717411303424 into Go struct field "
                          "DeploymentSpec.spec.replicas of type int32"),
    "step-2**70": (2, "spec.operations[1].step: must be at most 2147483647 (MajorStep is an int32)"),
    "yaml-alias-bomb-scenario": (2, "excessive YAML aliasing"),
    "yaml-alias-bomb-scheduler-config": (2, "excessive YAML aliasing"),
    "validate-dev-urandom": (2, "error: /dev/urandom: not a regular file (a character device)"),
    "labels-int": (2, "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    "labels-list": (2, "cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    "cr-spec-string": (2, 'spec: Invalid value: "string": spec in body must be of type object: "string"'),
    "nesting-500": (2, "YAML nested deeper than 100 levels, the most kubesim reads"),
    "nesting-50000": (2, "YAML nested deeper than 100 levels, the most kubesim reads"),
    "node-quantity-1e30": (2, "status.allocatable[cpu]: invalid quantity '1e30': too large"),
    "node-quantity-2**70": (0, ""),
    "allocatable-string": (2, "cannot unmarshal string into Go struct field NodeStatus.status.allocatable of type "
                              "v1.ResourceList"),
    "taints-string": (2, "cannot unmarshal string into Go struct field NodeSpec.spec.taints of type []v1.Taint"),
    "tolerations-string": (2, "cannot unmarshal string into Go struct field PodSpec.spec.tolerations of type "
                              "[]v1.Toleration"),
    "status-patch-allocatable-string": (2, "spec.operations[1].patchOperation.patch: Node in version \"v1\" cannot be "
                                           "handled as a Node"),
    "grace-period-2**70": (2, "into Go struct field DeleteOptions.gracePeriodSeconds of type int64"),
    "start-time-9999": (2, "step 1 would start after 9999-12-31T23:59:59Z, the latest time kubesim can represent"),
    "step-duration-100000000h": (2, 'time: invalid duration "100000000h"'),
    "scheduler-config-3000-deep": (2, "YAML nested deeper than 100 levels"),
    "scenario-name-emoji": (2, 'metadata.name: Invalid value: "sim-\U0001f600": a lowercase RFC 1123 subdomain'),
    "scenario-name-300": (2, "metadata.name: Invalid value: \"" + "a" * 300 + "\": must be no more than 253 characters"),
    "id-collides-with-generated": (2, 'spec.operations[1].id: duplicate id "operation-0"'),
    "deployment-replicas-minus-1": (2, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
    "missing-priority-class": (2, "no PriorityClass with name gold was found"),
    "invalid-crd": (2, "spec.versions: Required value: must have at least one version"),
    "json-patch-unknown-op": (2, '[0].op: Unsupported value: "frob": supported values: add, remove, replace'),
    "extender-malformed-url": (2, 'extenders[0].urlPrefix: Invalid value: "http//nohost"'),
    "strategic-merge-on-cr": (2, "strategic merge patch is not supported for custom resources"),
    "huge-int-in-message": (2, "an integer of 5001 digits, more than the 4300 kubesim reads"),
    "node-memory-negative": (2, 'status.allocatable.memory: Invalid value: "-5Gi": must be greater than or equal to 0'),
    "replicas-2.5": (2, "cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32"),
    "replicas-string": (2, "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"),
    "taint-effect-unknown": (2, 'metadata.taints[0].effect: Unsupported value: "Sometimes"'),
    "toleration-operator-unknown": (2, 'spec.tolerations[0].operator: Unsupported value: "Maybe"'),
    "max-skew-0": (2, "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"),
    "node-status-list": (2, "cannot unmarshal array into Go struct field Node.status of type v1.NodeStatus"),
    "patch-uid": (1, 'metadata.uid: Invalid value: "other": field is immutable'),
    "patch-kind": (2, 'kind: Invalid value: "Pod": a patch cannot change the kind of the object (Node)'),
    "cr-violates-schema": (2, "spec.size: Invalid value: 200: spec.size in body should be less than or equal to 100"),
    "scenario-without-controllers": (2, "spec.controllers: required"),
}


def test_every_case_has_an_expectation() -> None:
    assert sorted(EXPECTED) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_ends_fast_with_its_message(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    write(case, tmp_path)
    code, message = EXPECTED[name]
    args = list(case.args)
    if args[0] == "validate" and code != 2:  # validate accepts it: the run decides
        assert run_kubesim(*args, cwd=tmp_path, timeout=60).returncode == 0
        args = ["run", *args[1:], "-q", "-o", "r.json"]
    started = time.monotonic()
    proc = run_kubesim(*args, cwd=tmp_path, timeout=60)
    assert time.monotonic() - started < 30
    assert proc.returncode == code, proc.stderr
    if code == 2:
        assert message in proc.stderr, proc.stderr
        # kubesim's `error: FILE: PATH: ...`, or click's usage error for a flag's value
        assert proc.stderr.startswith("error: ") or "Error: Invalid value for '--" in proc.stderr, proc.stderr
    elif code == 1:
        assert message in proc.results[0]["status"]["message"]
    else:
        assert proc.results[0]["status"]["phase"] == "Succeeded"
