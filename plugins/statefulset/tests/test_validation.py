"""StatefulSet defaulting and validation as the API server does them (pkg/apis/apps/v1/defaults.go,
pkg/apis/apps/validation/validation.go): the messages a scenario fails with."""

from __future__ import annotations

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster, copy_tree
from kubesim.errors import BadRequest, Invalid
from kubesim_statefulset import admit_statefulset, default_statefulset


def cluster() -> Cluster:
    c = Cluster(Clock())
    c.add_admitter(admit_statefulset, phase="mutating")
    c.add_admitter(admit_statefulset, phase="validating")
    return c


def sts(**spec) -> dict:
    body = {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
    }
    body.update(spec)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"}, "spec": body}


def test_defaults_match_set_defaults_stateful_set():
    created = cluster().create(sts())
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
        cluster().create(sts(**change))
    assert err.value.message == f'StatefulSet.apps "web" is invalid: {message}'


def test_restart_policy_and_active_deadline_of_the_template():
    bad = sts()
    bad["spec"]["template"]["spec"].update(restartPolicy="OnFailure", activeDeadlineSeconds=5)
    with pytest.raises(Invalid) as err:
        cluster().create(bad)
    assert err.value.message == (
        'StatefulSet.apps "web" is invalid: [spec.template.spec.restartPolicy: Unsupported value: "OnFailure": '
        'supported values: "Always", spec.template.spec.activeDeadlineSeconds: Forbidden: '
        "activeDeadlineSeconds in StatefulSet is not Supported]"
    )


def test_the_name_must_be_a_dns_label():
    bad = sts()
    bad["metadata"]["name"] = "web.v1"
    with pytest.raises(Invalid) as err:
        cluster().create(bad)
    assert err.value.message == 'StatefulSet.apps "web.v1" is invalid: metadata.name: Invalid value: "web.v1": must not contain dots'


def test_wrong_types_fail_like_json_decoding():
    with pytest.raises(BadRequest) as err:
        cluster().create(sts(replicas="3"))
    assert err.value.message == (
        'StatefulSet in version "v1" cannot be handled as a StatefulSet: json: cannot unmarshal string into Go '
        "struct field StatefulSetSpec.spec.replicas of type int32"
    )


def test_updates_may_change_only_some_spec_fields():
    c = cluster()
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
    c = cluster()
    created = c.create(sts())
    updated = copy_tree(created)
    updated["status"] = {"replicas": 0, "availableReplicas": 0}
    assert c.update(updated, subresource="status")["status"] == {"replicas": 0, "availableReplicas": 0}
