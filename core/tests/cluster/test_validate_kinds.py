"""Validation of Nodes, Namespaces, PriorityClasses, PodDisruptionBudgets, Jobs and DaemonSets, and
of pod updates: cases of upstream's validation_test.go tables (core TestValidateNode,
TestValidateNodeUpdate, TestValidatePodUpdate; apps TestValidateDaemonSet; batch TestValidateJob;
policy TestValidatePodDisruptionBudgetSpec; scheduling TestValidatePriorityClass) with the API
server's messages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster, copy_tree
from kubesim.cluster.validation.nodes import validate_node
from kubesim.errors import Invalid


def create_error(obj: dict[str, Any], cluster: Cluster | None = None) -> str:
    with pytest.raises(Invalid) as err:
        (cluster or Cluster(Clock())).create(obj)
    return err.value.message


def node(**fields: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    obj.update(fields)
    return obj


def taint(key: str = "k", effect: str = "NoSchedule", **rest: Any) -> dict[str, Any]:
    return {"key": key, "effect": effect, **rest}


@pytest.mark.parametrize(("fields", "message"), [
    ({"status": {"capacity": {"memory": "-5Gi"}}},
     'status.capacity.memory: Invalid value: "-5Gi": must be greater than or equal to 0'),
    ({"status": {"allocatable": {"cpu": "-1", "pods": "1.5"}}},
     '[status.allocatable.cpu: Invalid value: "-1": must be greater than or equal to 0, '
     'status.allocatable.pods: Invalid value: "1500m": must be an integer]'),
    ({"spec": {"taints": [taint(effect="Sometimes")]}},
     'metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
     '"PreferNoSchedule", "NoExecute"'),
    ({"spec": {"taints": [taint(effect="")]}}, "metadata.taints[0].effect: Required value"),
    ({"spec": {"taints": [taint(), taint(value="other")]}},
     'metadata.taints[1]: Duplicate value: {"key":"k","effect":"NoSchedule","value":"other"}: '
     "taints must be unique by key and effect pair"),
    ({"spec": {"taints": [taint(key="")]}},
     "[metadata.taints[0].key: Invalid value: \"\": name part must be non-empty, metadata.taints[0].key: Invalid "
     "value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
     "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"),
    ({"spec": {"taints": [taint(value="a b")]}},
     'metadata.taints[0].value: Invalid value: "a b": a valid label must be an empty string or consist of '
     "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
     "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
     "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
])
def test_node(fields: dict[str, Any], message: str) -> None:
    # upstream's ValidateNode puts taints under metadata (fldPath.Child("taints") of "metadata")
    assert create_error(node(**fields)) == f'Node "n1" is invalid: {message}'


@pytest.mark.parametrize(("fields", "message"), [
    ({"status": []}, "status: Invalid value: []: must be a node status object"),
    ({"spec": {"taints": "NoSchedule"}}, 'metadata.taints: Invalid value: "NoSchedule": must be a list of taints'),
])
def test_node_validation_never_crashes_on_shapes_decoding_refuses(fields: dict[str, Any], message: str) -> None:
    # the cluster's decoding answers these first (a 400); validation alone still names the field
    assert [str(e) for e in validate_node(node(**fields))] == [message]


def test_same_taint_key_with_other_effects_passes() -> None:
    taints = [taint(), taint(effect="NoExecute")]
    assert Cluster(Clock()).create(node(spec={"taints": taints}))["spec"]["taints"] == taints


def test_node_update_keeps_provider_id_and_checks_taints() -> None:
    c = Cluster(Clock())
    created = c.create(node(spec={"providerID": "aws://1"}))
    changed = copy_tree(created)
    changed["spec"]["providerID"] = "aws://2"
    assert create_update_error(c, changed) == (
        'Node "n1" is invalid: spec.providerID: Forbidden: node updates may not change providerID except from "" '
        "to valid")
    changed = copy_tree(created)
    changed["spec"]["taints"] = [taint(effect="Never")]
    assert create_update_error(c, changed) == (
        'Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "Never": supported values: '
        '"NoSchedule", "PreferNoSchedule", "NoExecute"')


def test_node_status_patch_is_validated() -> None:
    c = Cluster(Clock())
    c.create(node())
    with pytest.raises(Invalid) as err:
        c.patch("v1", "Node", "n1", {"status": {"allocatable": {"memory": "-1Gi"}}}, "merge", subresource="status")
    assert err.value.message == (
        'Node "n1" is invalid: status.allocatable.memory: Invalid value: "-1Gi": must be greater than or equal to 0')


def create_update_error(c: Cluster, obj: dict[str, Any]) -> str:
    with pytest.raises(Invalid) as err:
        c.update(obj)
    return err.value.message


def test_namespace_finalizers() -> None:
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}, "spec": {"finalizers": ["custom"]}}
    assert create_error(ns) == (
        'Namespace "team" is invalid: spec.finalizers: Invalid value: "custom": name is neither a standard '
        "finalizer name nor is it fully qualified")


def priority_class(name: str = "high", value: int = 1000, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **fields}


@pytest.mark.parametrize(("obj", "message"), [
    (priority_class(value=2_000_000_000),
     'PriorityClass.scheduling.k8s.io "high" is invalid: value: Forbidden: maximum allowed value of a user defined '
     "priority is 1000000000"),
    (priority_class(name="system-custom"),
     "PriorityClass.scheduling.k8s.io \"system-custom\" is invalid: metadata.name: Forbidden: priority class names "
     "with 'system-' prefix are reserved for system use only. error: system-custom is not a known system priority "
     "class"),
    (priority_class(name="system-node-critical", value=5),
     "PriorityClass.scheduling.k8s.io \"system-node-critical\" is invalid: metadata.name: Forbidden: priority class "
     "names with 'system-' prefix are reserved for system use only. error: value of system-node-critical "
     "PriorityClass must be 2000001000"),
    (priority_class(preemptionPolicy="Always"),
     'PriorityClass.scheduling.k8s.io "high" is invalid: preemptionPolicy: Unsupported value: "Always": '
     'supported values: "PreemptLowerPriority", "Never"'),
])
def test_priority_class(obj: dict[str, Any], message: str) -> None:
    assert create_error(obj) == message


def test_priority_class_value_and_policy_are_immutable() -> None:
    c = Cluster(Clock())
    created = c.create(priority_class())
    changed = copy_tree(created)
    changed["value"] = 7
    changed["preemptionPolicy"] = "Never"
    assert create_update_error(c, changed) == (
        'PriorityClass.scheduling.k8s.io "high" is invalid: [value: Forbidden: may not be changed in an update., '
        'preemptionPolicy: Invalid value: "Never": field is immutable]')


def pdb(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b"},
            "spec": {"selector": {"matchLabels": {"app": "a"}}, **spec}}


@pytest.mark.parametrize(("spec", "message"), [
    ({"minAvailable": 1, "maxUnavailable": 1},
     'spec: Invalid value: {"selector":{"matchLabels":{"app":"a"}},"minAvailable":1,"maxUnavailable":1}: '
     "minAvailable and maxUnavailable cannot be both set"),
    ({"minAvailable": -1}, "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
    ({"maxUnavailable": "120%"}, 'spec.maxUnavailable: Invalid value: "120%": must not be greater than 100%'),
    ({"minAvailable": "half"},
     "spec.minAvailable: Invalid value: \"half\": a valid percent string must be a numeric string followed by an "
     "ending '%' (e.g. '1%' or '93%', regex used for validation is '[0-9]+%')"),
    ({"unhealthyPodEvictionPolicy": "Never"},
     'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "IfHealthyBudget", '
     '"AlwaysAllow"'),
])
def test_pod_disruption_budget(spec: dict[str, Any], message: str) -> None:
    assert create_error(pdb(**spec)) == f'PodDisruptionBudget.policy "b" is invalid: {message}'


def job(**spec: Any) -> dict[str, Any]:
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"template": template, **spec}}


@pytest.mark.parametrize(("spec", "message"), [
    ({"parallelism": -1}, "spec.parallelism: Invalid value: -1: must be greater than or equal to 0"),
    ({"completions": -1}, "spec.completions: Invalid value: -1: must be greater than or equal to 0"),
    ({"backoffLimit": -1}, "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"),
    ({"completionMode": "Sometimes"},
     'spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"'),
    ({"manualSelector": True},
     "[spec.selector: Required value, spec.template.metadata.labels: Invalid value: null: `selector` does not match "
     "template `labels`]"),
    ({"manualSelector": True, "selector": {"matchLabels": {"a": "b"}}},
     "spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`"),
])
def test_job(spec: dict[str, Any], message: str) -> None:
    assert create_error(job(**spec)) == f'Job.batch "j" is invalid: {message}'


def test_job_selector_is_generated_unless_manual() -> None:
    c = Cluster(Clock())
    created = c.create(job())
    uid = created["metadata"]["uid"]
    assert created["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert created["spec"]["template"]["metadata"]["labels"] == {
        "job-name": "j", "batch.kubernetes.io/job-name": "j", "controller-uid": uid,
        "batch.kubernetes.io/controller-uid": uid}
    # a selector of one's own needs manualSelector: true (validateGeneratedSelector)
    own = job(selector={"matchLabels": {"app": "w"}})
    own["spec"]["template"]["metadata"] = {"labels": {"app": "w"}}
    message = re.sub(r'"[0-9a-f-]{36}"', '"<uid>"', create_error(own, c))
    assert message == (
        'Job.batch "j" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"w",'
        '"batch.kubernetes.io/controller-uid":"<uid>"}}: `selector` not auto-generated')
    own["spec"]["manualSelector"] = True
    own["metadata"]["name"] = "j2"
    assert c.create(own)["spec"]["selector"] == {"matchLabels": {"app": "w"}}


def test_job_template_must_not_restart_always() -> None:
    obj = job()
    obj["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    assert create_error(obj) == (
        'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: '
        '"OnFailure", "Never"')


def daemonset(**spec: Any) -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": template, **spec}}


@pytest.mark.parametrize(("spec", "message"), [
    ({"selector": {"matchLabels": {"app": "x"}}},
     'spec.template.metadata.labels: Invalid value: {"app":"d"}: `selector` does not match template `labels`'),
    ({"selector": {}},
     "spec.selector: Invalid value: {}: empty selector is invalid for daemonset"),
    ({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}},
     "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"),
    ({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}}},
     "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"),
    ({"updateStrategy": {"type": "Sometimes"}},
     'spec.updateStrategy: Unsupported value: {"type":"Sometimes"}: supported values: "RollingUpdate", "OnDelete"'),
    ({"minReadySeconds": -1}, "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
])
def test_daemonset(spec: dict[str, Any], message: str) -> None:
    assert create_error(daemonset(**spec)) == f'DaemonSet.apps "d" is invalid: {message}'


def _pod(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "img"}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": body}


def _updated(c: Cluster, change: Any) -> dict[str, Any]:
    current = c.get("v1", "Pod", "p", "default")
    change(current["spec"])
    return current


def test_pod_update_may_change_image_deadline_and_add_tolerations() -> None:
    c = Cluster(Clock())
    c.create(_pod(activeDeadlineSeconds=100, schedulingGates=[{"name": "g"}],
                  tolerations=[{"key": "a", "operator": "Exists"}]))

    def allowed(spec: dict[str, Any]) -> None:
        spec["containers"][0]["image"] = "img:2"
        spec["activeDeadlineSeconds"] = 50
        spec["tolerations"].append({"key": "b", "operator": "Exists"})
        spec["schedulingGates"] = []

    updated = c.update(_updated(c, allowed))
    assert updated["spec"]["containers"][0]["image"] == "img:2"


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s["containers"].append({"name": "d", "image": "x"}),
     "spec.containers: Forbidden: pod updates may not add or remove containers"),
    (lambda s: s.update(activeDeadlineSeconds=200),
     "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value"),
    (lambda s: s.pop("activeDeadlineSeconds"),
     "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"),
    (lambda s: s.update(tolerations=[]),
     "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"),
    (lambda s: s.update(schedulingGates=[{"name": "new"}]),
     "spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'new'"),
])
def test_pod_update_forbidden_changes(change: Any, message: str) -> None:
    c = Cluster(Clock())
    c.create(_pod(activeDeadlineSeconds=100, tolerations=[{"key": "a", "operator": "Exists"}],
                  schedulingGates=[{"name": "g"}]))
    assert create_update_error(c, _updated(c, change)) == f'Pod "p" is invalid: {message}'


def test_ungated_pod_may_not_change_other_fields() -> None:
    c = Cluster(Clock())
    c.create(_pod())
    assert create_update_error(c, _updated(c, lambda s: s.update(nodeSelector={"zone": "a"}))) == (
        'Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,'
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
        "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"
        '  spec.nodeSelector: null -> {"zone":"a"}')


def test_gated_pod_may_gain_a_node_selector() -> None:
    c = Cluster(Clock())
    c.create(_pod(schedulingGates=[{"name": "g"}]))
    updated = c.update(_updated(c, lambda s: s.update(nodeSelector={"zone": "a"})))
    assert updated["spec"]["nodeSelector"] == {"zone": "a"}


def test_patches_of_uid_kind_and_api_version_are_refused() -> None:
    c = Cluster(Clock())
    c.create(_pod())
    with pytest.raises(Invalid) as err:
        c.patch("v1", "Pod", "p", {"metadata": {"uid": "other"}}, "merge")
    assert err.value.message == 'Pod "p" is invalid: metadata.uid: Invalid value: "other": field is immutable'
    with pytest.raises(Invalid) as err:
        c.patch("v1", "Pod", "p", {"kind": "Service"}, "merge")
    assert err.value.message == 'Pod "p" is invalid: kind: Invalid value: "Service": field is immutable'
    with pytest.raises(Invalid) as err:
        c.patch("v1", "Pod", "p", [{"op": "replace", "path": "/apiVersion", "value": "v2"}], "json")
    assert err.value.message == 'Pod "p" is invalid: apiVersion: Invalid value: "v2": field is immutable'
