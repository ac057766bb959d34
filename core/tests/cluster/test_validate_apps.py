"""apps/v1 defaulting and validation of Deployments, ReplicaSets and StatefulSets: the API server's
messages (v1.34 prints bad values as JSON). Ported from upstream's
pkg/apis/apps/validation/validation_test.go cases for these fields."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim import testing
from kubesim.clock import Clock
from kubesim.cluster import Cluster, copy_tree
from kubesim.cluster.workload_defaults import default_statefulset
from kubesim.errors import Invalid

LABELS = {"app": "web"}


def create_error(obj: dict[str, Any]) -> str:
    with pytest.raises(Invalid) as err:
        Cluster(Clock()).create(obj)
    return err.value.message


def deployment_object(name: str, replicas: int, labels: dict[str, str]) -> dict[str, Any]:
    """A Deployment selecting `labels` with one container c."""
    return testing.deployment(name, replicas, labels=labels, image="foo/bar:1", container="c")


def rs_object(name: str, replicas: int, labels: dict[str, str]) -> dict[str, Any]:
    """A ReplicaSet selecting `labels` with one container c."""
    return testing.replicaset(name, replicas, labels=labels, image="foo/bar", container="c")


def with_spec(obj: dict[str, Any], **spec: Any) -> dict[str, Any]:
    obj["spec"].update(spec)
    return obj


def test_negative_replicas() -> None:
    assert create_error(with_spec(deployment_object("web", 1, LABELS), replicas=-1)) == (
        'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0')
    assert create_error(with_spec(rs_object("web", 1, LABELS), replicas=-3)) == (
        'ReplicaSet.apps "web" is invalid: spec.replicas: Invalid value: -3: must be greater than or equal to 0')


def test_selector_must_match_template_labels() -> None:
    d = deployment_object("web", 1, LABELS)
    d["spec"]["template"]["metadata"]["labels"] = {"app": "x"}
    assert create_error(d) == (
        'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"x"}: '
        "`selector` does not match template `labels`")


def test_empty_selector() -> None:
    assert create_error(with_spec(deployment_object("web", 1, LABELS), selector={})) == (
        'Deployment.apps "web" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for deployment')
    # upstream's ReplicaSet validation says "deployment" too
    assert create_error(with_spec(rs_object("web", 1, LABELS), selector={"matchLabels": {}})) == (
        'ReplicaSet.apps "web" is invalid: spec.selector: Invalid value: {}: '
        "empty selector is invalid for deployment")  # omitempty: an empty matchLabels prints as {}


def test_missing_selector_reports_both_errors() -> None:
    d = deployment_object("web", 1, LABELS)
    del d["spec"]["selector"]
    assert create_error(d) == (
        'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: '
        'Invalid value: {"app":"web"}: `selector` does not match template `labels`]')


@pytest.mark.parametrize(("rolling", "message"), [
    ({"maxSurge": "abc", "maxUnavailable": 1},
     ("spec.strategy.rollingUpdate.maxSurge: Invalid value: \"abc\": a valid percent string must be a numeric string "
     "followed by an ending '%' (e.g. '1%' or '93%', regex used for validation is '[0-9]+%')")),
    ({"maxSurge": 0, "maxUnavailable": 0},
     "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"),
    ({"maxSurge": 1, "maxUnavailable": "120%"},
     'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%'),
    ({"maxSurge": -1, "maxUnavailable": 1},
     "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"),
])
def test_rolling_update_parameters(rolling: dict[str, Any], message: str) -> None:
    d = with_spec(deployment_object("web", 1, LABELS), strategy={"type": "RollingUpdate", "rollingUpdate": rolling})
    assert create_error(d) == f'Deployment.apps "web" is invalid: {message}'


def test_recreate_forbids_rolling_update_parameters_and_restart_policy_must_be_always() -> None:
    d = with_spec(deployment_object("web", 1, LABELS),
                  strategy={"type": "Recreate", "rollingUpdate": {"maxSurge": 1}})
    d["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert create_error(d) == (
        'Deployment.apps "web" is invalid: [spec.template.spec.restartPolicy: Unsupported value: "OnFailure": '
        'supported values: "Always", spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy '
        "`type` is 'Recreate']")


def test_progress_deadline_must_exceed_min_ready_seconds() -> None:
    d = with_spec(deployment_object("web", 1, LABELS), minReadySeconds=30, progressDeadlineSeconds=30)
    assert create_error(d) == (
        'Deployment.apps "web" is invalid: spec.progressDeadlineSeconds: Invalid value: 30: '
        "must be greater than minReadySeconds")


def test_template_needs_containers() -> None:
    d = deployment_object("web", 1, LABELS)
    d["spec"]["template"]["spec"] = {"containers": []}
    assert create_error(d) == 'Deployment.apps "web" is invalid: spec.template.spec.containers: Required value'


def test_selector_is_immutable() -> None:
    c = Cluster(Clock())
    c.create(deployment_object("web", 1, LABELS))
    d = c.get("apps/v1", "Deployment", "web")
    d["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "x"}}
    d["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    with pytest.raises(Invalid) as err:
        c.update(d, actor="scenario")
    assert err.value.message == (
        'Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: '
        "field is immutable")


def test_valid_objects_pass() -> None:
    c = Cluster(Clock())
    assert c.create(deployment_object("web", 0, LABELS))["spec"]["replicas"] == 0
    assert c.create(rs_object("rs", 2, {"app": "rs"}))["spec"]["replicas"] == 2


# --- StatefulSets ---------------------------------------------------------------------


def sts(**spec: Any) -> dict[str, Any]:
    body = {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
    }
    body.update(spec)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"}, "spec": body}


def test_defaults_match_set_defaults_stateful_set():
    created = Cluster(Clock()).create(sts())
    spec = created["spec"]
    assert spec["replicas"] == 1
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spec["revisionHistoryLimit"] == 10
    pod_spec = spec["template"]["spec"]
    assert (pod_spec["restartPolicy"], pod_spec["dnsPolicy"], pod_spec["terminationGracePeriodSeconds"],
            pod_spec["schedulerName"]) == ("Always", "ClusterFirst", 30, "default-scheduler")
    assert created["status"] == {}


def test_explicit_rolling_update_without_parameters_stays_without_them():
    s = sts(updateStrategy={"type": "RollingUpdate"})
    default_statefulset(s)
    assert s["spec"]["updateStrategy"] == {"type": "RollingUpdate"}
    s = sts(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}})
    default_statefulset(s)
    assert s["spec"]["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}


def test_claim_templates_are_defaulted():
    s = sts(volumeClaimTemplates=[{"metadata": {"name": "data"}, "spec": {}}])
    default_statefulset(s)
    assert s["spec"]["volumeClaimTemplates"] == [
        {"metadata": {"name": "data"}, "spec": {"volumeMode": "Filesystem"},
         "apiVersion": "v1", "kind": "PersistentVolumeClaim"},
    ]


@pytest.mark.parametrize(("change", "message"), [
    ({"replicas": -1}, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
    ({"template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}},
     'spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`'),
    ({"selector": {}}, "spec.selector: Invalid value: {}: empty selector is invalid for statefulset"),
    ({"selector": {"matchLabels": {}}}, "spec.selector: Invalid value: {}: empty selector is invalid for statefulset"),
    ({"selector": None}, ("[spec.selector: Required value, spec.template.metadata.labels: Invalid value: "
                          '{"app":"web"}: `selector` does not match template `labels`]')),
    ({"minReadySeconds": -5}, "spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0"),
    ({"ordinals": {"start": -1}}, "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"),
    ({"podManagementPolicy": "Random"},
     "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"),
    ({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": -2}}},
     "spec.updateStrategy.rollingUpdate.partition: Invalid value: -2: must be greater than or equal to 0"),
    ({"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 1}}},
     ('spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":1,"MaxUnavailable":null}: '
      "only allowed for updateStrategy 'RollingUpdate'")),
    ({"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Keep"}},
     ('spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": '
      'supported values: "Retain", "Delete"')),
    # LabelSelectorAsSelector fails on these too, which adds a second error without a detail
    ({"selector": {"matchExpressions": [{"key": "app", "operator": "In"}]}},
     ("[spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
      "'NotIn', spec.selector: Invalid value: {\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\"}]}]")),
    ({"selector": {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "app", "operator": "Exists",
                                                                        "values": ["web"]}]}},
     ("[spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or "
      '\'DoesNotExist\', spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":'
      '[{"key":"app","operator":"Exists","values":["web"]}]}]')),
])
def test_invalid_statefulsets_are_rejected_with_the_api_servers_message(change, message):
    with pytest.raises(Invalid) as err:
        Cluster(Clock()).create(sts(**change))
    assert err.value.message == f'StatefulSet.apps "web" is invalid: {message}'


def test_restart_policy_and_active_deadline_of_the_template():
    bad = sts()
    bad["spec"]["template"]["spec"].update(restartPolicy="OnFailure", activeDeadlineSeconds=5)
    with pytest.raises(Invalid) as err:
        Cluster(Clock()).create(bad)
    assert err.value.message == (
        'StatefulSet.apps "web" is invalid: [spec.template.spec.restartPolicy: Unsupported value: "OnFailure": '
        'supported values: "Always", spec.template.spec.activeDeadlineSeconds: Forbidden: '
        "activeDeadlineSeconds in StatefulSet is not Supported]"
    )


def test_the_name_must_be_a_dns_label():
    bad = sts()
    bad["metadata"]["name"] = "web.v1"
    with pytest.raises(Invalid) as err:
        Cluster(Clock()).create(bad)
    assert err.value.message == 'StatefulSet.apps "web.v1" is invalid: metadata.name: Invalid value: "web.v1": must not contain dots'


def test_updates_may_change_only_some_spec_fields():
    c = Cluster(Clock())
    c.create(sts())
    c.patch("apps/v1", "StatefulSet", "web", {"spec": {"replicas": 5, "minReadySeconds": 3}},
            "application/merge-patch+json")
    with pytest.raises(Invalid) as err:
        c.patch("apps/v1", "StatefulSet", "web", {"spec": {"serviceName": "other"}}, "application/merge-patch+json")
    assert err.value.message == (
        'StatefulSet.apps "web" is invalid: spec: Forbidden: updates to statefulset spec for fields other than '
        "'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
        "'minReadySeconds' are forbidden"
    )
    with pytest.raises(Invalid) as err:
        c.patch("apps/v1", "StatefulSet", "web", {"spec": {"replicas": -1}}, "application/merge-patch+json")
    assert err.value.message == 'StatefulSet.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'


def test_status_writes_are_not_validated_as_spec_changes():
    c = Cluster(Clock())
    created = c.create(sts())
    updated = copy_tree(created)
    updated["status"] = {"replicas": 0, "availableReplicas": 0}
    assert c.update(updated, subresource="status")["status"] == {"replicas": 0, "availableReplicas": 0}
