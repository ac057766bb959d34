"""Pod validation on create: the cases of upstream's pkg/apis/core/validation/validation_test.go
(TestValidateTolerations, TestValidateTopologySpreadConstraints, TestValidateAffinity,
TestValidatePodSpec, TestValidateResourceRequirements) for the fields kubesim models, with the
API server's full messages."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster
from kubesim.cluster.pods import default_pod
from kubesim.cluster.validation.podspec import validate_pod
from kubesim.errors import Invalid

SPREAD = "spec.topologySpreadConstraints[0]"
TOL = "spec.tolerations[0]"
NA = "spec.affinity.nodeAffinity"
REQ = f"{NA}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
PA = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
CTR = "spec.containers[0]"


def pod(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "img"}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": body}


def create_error(obj: dict[str, Any]) -> str:
    with pytest.raises(Invalid) as err:
        Cluster(Clock()).create(obj)
    prefix = 'Pod "p" is invalid: '
    assert err.value.message.startswith(prefix)
    return err.value.message[len(prefix):]


def spread(**fields: Any) -> dict[str, Any]:
    c: dict[str, Any] = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                         "labelSelector": {"matchLabels": {"app": "a"}}}
    c.update(fields)
    return c


@pytest.mark.parametrize(("constraints", "message"), [
    ([spread(maxSkew=0)], f"{SPREAD}.maxSkew: Invalid value: 0: must be greater than zero"),
    ([spread(maxSkew=-1)], f"{SPREAD}.maxSkew: Invalid value: -1: must be greater than zero"),
    ([spread(minDomains=-1)], f"{SPREAD}.minDomains: Invalid value: -1: must be greater than zero"),
    ([spread(minDomains=10, whenUnsatisfiable="ScheduleAnyway")],
     f"{SPREAD}.minDomains: Invalid value: 10: can only use minDomains if whenUnsatisfiable=DoNotSchedule, "
     "not ScheduleAnyway"),
    ([spread(minDomains=-1, whenUnsatisfiable="ScheduleAnyway")],
     f"[{SPREAD}.minDomains: Invalid value: -1: must be greater than zero, {SPREAD}.minDomains: Invalid value: -1: "
     "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway]"),
    ([spread(topologyKey="")], f"{SPREAD}.topologyKey: Required value: can not be empty"),
    ([spread(whenUnsatisfiable="")],
     f'{SPREAD}.whenUnsatisfiable: Unsupported value: "": supported values: "DoNotSchedule", "ScheduleAnyway"'),
    ([spread(whenUnsatisfiable="N/A")],
     f'{SPREAD}.whenUnsatisfiable: Unsupported value: "N/A": supported values: "DoNotSchedule", "ScheduleAnyway"'),
    ([spread(topologyKey="k8s.io/zone"), spread(topologyKey="k8s.io/zone")],
     f'{SPREAD}.{{topologyKey, whenUnsatisfiable}}: Duplicate value: "{{k8s.io/zone, DoNotSchedule}}"'),
    ([spread(nodeAffinityPolicy="Maybe")],
     f'{SPREAD}.nodeAffinityPolicy: Unsupported value: "Maybe": supported values: "Honor", "Ignore"'),
    ([spread(matchLabelKeys=["app"])],
     f'{SPREAD}.matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector'),
    ([spread(labelSelector=None, matchLabelKeys=["foo"])],
     f"{SPREAD}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"),
    ([spread(labelSelector={"matchExpressions": [{"key": "app", "operator": "In"}]})],
     f"{SPREAD}.labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is "
     "'In' or 'NotIn'"),
])
def test_topology_spread_constraints(constraints: list[dict[str, Any]], message: str) -> None:
    assert create_error(pod(topologySpreadConstraints=constraints)) == message


@pytest.mark.parametrize(("toleration", "message"), [
    ({"key": "", "operator": "Equal", "value": "bar"},
     f'{TOL}.operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means '
     '"match all values and all keys"'),
    ({"key": "foo", "operator": "Exists", "value": "bar"},
     f'{TOL}.operator: Invalid value: {{"key":"foo","operator":"Exists","value":"bar"}}: value must be empty when '
     "`operator` is 'Exists'"),
    ({"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule", "tolerationSeconds": 20},
     f"{TOL}.effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"),
    ({"key": "foo", "operator": "In", "value": "bar"},
     f'{TOL}.operator: Unsupported value: "In": supported values: "Equal", "Exists"'),
    ({"key": "foo", "operator": "Equal", "value": "bar", "effect": "Sometimes"},
     f'{TOL}.effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", '
     '"NoExecute"'),
    ({"key": "nospecialchars^=@", "operator": "Equal", "value": "bar"},
     f'{TOL}.key: Invalid value: "nospecialchars^=@": name part must consist of alphanumeric characters, \'-\', '
     "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
     "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ({"key": "foo", "operator": "Equal", "value": "bar baz"},
     f'{TOL}.operator: Invalid value: "bar baz": a valid label must be an empty string or consist of alphanumeric '
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
     "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
])
def test_tolerations(toleration: dict[str, Any], message: str) -> None:
    assert create_error(pod(tolerations=[toleration])) == message


def test_valid_tolerations_pass() -> None:
    tolerations = [
        {"operator": "Exists"},
        {"key": "foo", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
        {"key": "foo", "value": "bar", "effect": "PreferNoSchedule"},
    ]
    assert Cluster(Clock()).create(pod(tolerations=tolerations))["spec"]["tolerations"] == tolerations


def _required(*terms: Any) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def _pod_affinity_term(**fields: Any) -> dict[str, Any]:
    term: dict[str, Any] = {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "zone"}
    term.update(fields)
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


@pytest.mark.parametrize(("affinity", "message"), [
    (_required(), f"{REQ}: Required value: must have at least one node selector term"),
    (_required({"matchExpressions": [{"key": "k", "operator": "In"}]}),
     f"{REQ}[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"),
    (_required({"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["v"]}]}),
     f"{REQ}[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or "
     "'DoesNotExist'"),
    (_required({"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1", "2"]}]}),
     f"{REQ}[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is "
     "'Lt' or 'Gt'"),
    (_required({"matchExpressions": [{"key": "k", "operator": "Near", "values": ["v"]}]}),
     f'{REQ}[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator'),
    (_required({"matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["v"]}]}),
     f'{REQ}[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key'),
    (_required({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}),
     f"{REQ}[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or "
     "'NotIn' for node field selector"),
    ({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 101, "preference": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}]}},
     f"{NA}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100"),
    # upstream reports the empty key twice: Required, then ValidateLabelName's findings
    (_pod_affinity_term(topologyKey=""),
     f"[{PA}.topologyKey: Required value: can not be empty, "
     f'{PA}.topologyKey: Invalid value: "": name part must be non-empty, '
     f'{PA}.topologyKey: Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or '
     "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
     "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"),
    (_pod_affinity_term(namespaces=["Bad_NS"]),
     f'{PA}.namespace: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric '
     "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
     "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
    (_pod_affinity_term(matchLabelKeys=["k"], mismatchLabelKeys=["k"]),
     f'{PA}.matchLabelKeys[0]: Invalid value: "k": exists in both matchLabelKeys and mismatchLabelKeys'),
    ({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 0, "podAffinityTerm": {"topologyKey": "zone"}}]}},
     "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: "
     "must be in the range 1-100"),
])
def test_affinity(affinity: dict[str, Any], message: str) -> None:
    assert create_error(pod(affinity=affinity)) == message


@pytest.mark.parametrize(("spec", "message"), [
    ({"restartPolicy": "Sometimes"},
     'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
    ({"dnsPolicy": "Google"},
     'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", '
     '"Default", "None"'),
    ({"activeDeadlineSeconds": 0},
     "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"),
    ({"schedulingGates": [{"name": "a"}, {"name": "a"}]}, 'spec.schedulingGates[1]: Duplicate value: "a"'),
    ({"schedulingGates": [{"name": "a/b/c"}]},
     "spec.schedulingGates[0]: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, "
     "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
     "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
     "subdomain prefix and '/' (e.g. 'example.com/MyName')"),
    ({"nodeName": "n1", "schedulingGates": [{"name": "a"}]},
     "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"),
    ({"nodeSelector": {"zone": "a b"}},
     'spec.nodeSelector: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric '
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
     "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
])
def test_pod_spec_fields(spec: dict[str, Any], message: str) -> None:
    assert create_error(pod(**spec)) == message


def test_priority_fields() -> None:
    # on a cluster the Priority admission plugin answers first (Forbidden); `kubesim validate` runs these
    obj = pod(priorityClassName="Bad_Name", preemptionPolicy="Sometimes")
    default_pod(obj)
    errs = validate_pod(obj)
    assert [str(e) for e in errs] == [
        'spec.priorityClassName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower '
        "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
    ]


@pytest.mark.parametrize(("resources", "message"), [
    ({"requests": {"cpu": "-1"}},
     f'{CTR}.resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0'),
    ({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}},
     f'{CTR}.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'),
    ({"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "2"}},
     f'{CTR}.resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'),
    ({"requests": {"example.com/gpu": "1"}},
     f"{CTR}.resources.limits: Required value: Limit must be set for non overcommitable resources"),
    # requests are defaulted from limits first, so both are reported
    ({"limits": {"example.com/gpu": "500m"}},
     f'[{CTR}.resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer, '
     f'{CTR}.resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer]'),
    ({"requests": {"gpu": "1"}},
     f'[{CTR}.resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified, '
     f'{CTR}.resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers]'),
])
def test_container_resources(resources: dict[str, Any], message: str) -> None:
    assert create_error(pod(containers=[{"name": "c", "image": "img", "resources": resources}])) == message


def test_missing_and_duplicate_containers() -> None:
    assert create_error(pod(containers=[])) == "spec.containers: Required value"
    both = pod(containers=[{"name": "c", "image": "i"}], initContainers=[{"name": "c", "image": "i"}])
    assert create_error(both) == 'spec.initContainers[0].name: Duplicate value: "c"'


def test_negative_termination_grace_period_is_accepted_as_upstream_does() -> None:
    # upstream only warns ("treated as 1") and the delete path uses 1s
    created = Cluster(Clock()).create(pod(terminationGracePeriodSeconds=-5))
    assert created["spec"]["terminationGracePeriodSeconds"] == -5


# The cluster's decoding refuses these shapes first (a 400); validation alone must still name
# each field rather than crash, since plugins and `kubesim validate` call it on any object.
def validation_errors(obj: dict[str, Any]) -> list[str]:
    """What validation alone says of `obj` after defaulting, sorted."""
    default_pod(obj)
    return sorted(str(e) for e in validate_pod(obj))


def test_lists_given_as_strings_are_named() -> None:
    assert validation_errors(pod(tolerations="all", schedulingGates="g")) == [
        'spec.schedulingGates: Invalid value: "g": must be a list of scheduling gates',
        'spec.tolerations: Invalid value: "all": must be a list of tolerations']


def test_wrong_types_give_field_errors_not_crashes() -> None:
    assert validation_errors(pod(tolerations=["x"], topologySpreadConstraints=[3], affinity="near")) == [
        'spec.affinity: Invalid value: "near": must be an object',
        'spec.tolerations[0]: Invalid value: "x": must be a toleration object',
        "spec.topologySpreadConstraints[0]: Invalid value: 3: must be a topology spread constraint object"]
