"""Work the write path remembers or skips (docs/performance-write-path.md) gives the answers
the full checks give: objects that differ only in their names are decoded once, the pre-run
check of a workload's pods checks only the metadata of the second one, a node's validation is
remembered by content and a node status write does not check again what it shares."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubesim.api import Scenario
from kubesim.api.converter import structure
from kubesim.cli import validate as validate_cli
from kubesim.clock import Clock
from kubesim.cluster import Cluster, check_new_object
from kubesim.cluster.validation import nodes as node_validation
from kubesim.errors import ApiError, InvalidInput
from kubesim.k8s import decoding
from kubesim.plugins.manager import load_plugins


def _pod(name: Any, *, cpu: str = "100m", **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **meta},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}}


def _node(name: str, cpu: Any = "4") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"capacity": {"cpu": cpu, "pods": "110"}, "allocatable": {"cpu": cpu, "pods": "110"}}}


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_objects_that_differ_only_in_their_names_are_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    walks = _counting(monkeypatch, decoding, "_walk")
    spec_cpu = "123m"  # content no other test decodes first
    assert decoding.decoding_message("", "v1", "Pod", _pod("a", cpu=spec_cpu)) is None
    assert decoding.decoding_message("", "v1", "Pod", _pod("b", cpu=spec_cpu)) is None
    assert len(walks) == 1
    # a name that is not a string is another object to the decoder: refused as before
    message = decoding.decoding_message("", "v1", "Pod", _pod(7, cpu=spec_cpu))
    assert message == ('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into '
                       "Go struct field ObjectMeta.metadata.name of type string")


def test_plain_times_and_integers_are_still_checked() -> None:
    pod = _pod("p")
    pod["spec"]["terminationGracePeriodSeconds"] = 2**63
    assert "of type int64" in str(decoding.decoding_message("", "v1", "Pod", pod))
    pod = _pod("p")
    pod["status"] = {"startTime": "yesterday"}
    message = decoding.decoding_message("", "v1", "Pod", pod)
    assert message is not None and message.startswith('Pod in version "v1" cannot be handled as a Pod: status.startTime: ')


def _scenario(*objects: dict[str, Any]) -> Scenario:
    ops = [{"step": 0, "createOperation": {"object": obj}} for obj in objects]
    ops.append({"step": 1, "doneOperation": {}})
    data = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario", "metadata": {"name": "s"},
            "spec": {"operations": ops}}
    return structure(data, Scenario)


def _problems(*objects: dict[str, Any]) -> list[str]:
    try:
        validate_cli.validate_scenarios([("s.yaml", _scenario(*objects))], load_plugins(entry_points=False))
    except InvalidInput as exc:
        return [str(p) for p in exc.problems]
    return []


def test_the_pre_run_check_of_a_pod_like_one_before_checks_its_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    checks = _counting(monkeypatch, validate_cli, "check_new_object")
    good = [_pod(f"web-{i}", cpu="77m") for i in range(3)]
    assert _problems(*good) == []
    assert len(checks) == 2  # the Scenario object and web-0: web-1 and web-2 are web-0 but for their names
    bad_name = _pod("Web_3", cpu="77m")
    registry = Cluster(Clock()).registry
    expected = check_new_object(registry, copy.deepcopy(bad_name))
    assert expected is not None and expected.startswith('Pod "Web_3" is invalid: metadata.name: Invalid value')
    problems = _problems(*good, bad_name)
    assert problems == [f"s.yaml: spec.operations[3].createOperation.object: {expected}"]
    generated = _pod("", cpu="77m", generateName="web-")
    assert _problems(*good, generated) == []
    long_name = _pod("w" * 254, cpu="77m")
    expected = check_new_object(registry, copy.deepcopy(long_name))
    assert expected is not None and "must be no more than 253 characters" in expected
    assert _problems(*good, long_name) == [f"s.yaml: spec.operations[3].createOperation.object: {expected}"]


def test_node_validation_is_remembered_with_its_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    walks = _counting(monkeypatch, node_validation, "_validate_node")
    assert node_validation.validate_node(_node("n1", "5")) == []
    assert node_validation.validate_node(_node("n2", "5")) == []
    assert len(walks) == 1
    first = node_validation.validate_node(_node("n1", "-5"))
    again = node_validation.validate_node(_node("n2", "-5"))
    assert first and [str(e) for e in again] == [str(e) for e in first]
    again.clear()  # the caller owns what it gets
    assert len(node_validation.validate_node(_node("n3", "-5"))) == len(first)


def test_a_node_status_write_checks_what_it_changes() -> None:
    cluster = Cluster(Clock())
    stored = cluster.create(_node("n1"), copy=False)
    shared = {**stored, "metadata": dict(stored["metadata"]),
              "status": {**stored["status"], "conditions": [{"type": "Ready", "status": "True"}]}}
    after = cluster.update(shared, subresource="status", copy=False)
    assert after["status"]["conditions"][0]["type"] == "Ready"
    changed = {**after, "metadata": dict(after["metadata"]),
               "status": {**after["status"], "capacity": {"cpu": "-1", "pods": "110"}}}
    with pytest.raises(ApiError) as refused:
        cluster.update(changed, subresource="status", copy=False)
    assert "status.capacity.cpu" in refused.value.message


def test_the_pre_run_check_leaves_the_scenario_as_it_was() -> None:
    objects = [_pod("p", cpu="31m"), _pod("q", cpu="31m"), _node("n")]
    objects[0]["spec"]["containers"][0]["ports"] = [{"containerPort": 80}]  # defaulted (protocol) on create
    scenario = _scenario(*objects)
    before = copy.deepcopy([op.create_operation.object for op in scenario.spec.operations if op.create_operation])
    validate_cli.validate_scenarios([("s.yaml", scenario)], load_plugins(entry_points=False))
    after = [op.create_operation.object for op in scenario.spec.operations if op.create_operation]
    assert after == before


def test_schema_defaults_below_are_still_set() -> None:
    from kubesim.apiextensions.pruning import apply_schema_defaults
    from kubesim.apiextensions.structural import Schema

    leaf = Schema(type="integer", default=3)
    schema = Schema(type="object", properties={
        "plain": Schema(type="object", properties={"x": Schema(type="string")}),
        "deep": Schema(type="array", items=Schema(type="object", properties={"size": leaf})),
    })
    value: dict[str, Any] = {"plain": {"x": "a"}, "deep": [{}, {"size": 1}]}
    apply_schema_defaults(value, schema)
    assert value == {"plain": {"x": "a"}, "deep": [{"size": 3}, {"size": 1}]}


def test_the_qos_class_remembered_by_containers_is_each_pods_own() -> None:
    from kubesim.cluster.pods import pod_qos_class

    def pod(requests: dict[str, str], limits: dict[str, str]) -> dict[str, Any]:
        return {"spec": {"containers": [{"name": "c", "resources": {"requests": requests, "limits": limits}}]}}

    full = {"cpu": "7m", "memory": "7Mi"}
    assert pod_qos_class(pod(full, full)) == "Guaranteed"
    assert pod_qos_class(pod(full, full)) == "Guaranteed"  # remembered
    assert pod_qos_class(pod(full, {})) == "Burstable"
    assert pod_qos_class(pod({}, {})) == "BestEffort"
    assert pod_qos_class({"spec": {"containers": [{"name": "c"}], "initContainers": [
        {"name": "i", "resources": {"requests": {"cpu": "1"}}}]}}) == "Burstable"  # init containers count
