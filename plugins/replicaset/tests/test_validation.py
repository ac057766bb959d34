"""apps/v1 validation of Deployments and ReplicaSets: the API server's messages (v1.34 prints
bad values as JSON), through the cluster's admission chain."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.errors import Invalid
from rs_harness import World, deployment_object, rs_object

LABELS = {"app": "web"}


def create_error(obj: dict[str, Any]) -> str:
    w = World()
    with pytest.raises(Invalid) as err:
        w.create(obj)
    return err.value.message


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
        'ReplicaSet.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{}}: '
        "empty selector is invalid for deployment")


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
    w = World()
    w.create(deployment_object("web", 1, LABELS))
    d = w.get("apps/v1", "Deployment", "web")
    d["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "x"}}
    d["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    with pytest.raises(Invalid) as err:
        w.cluster.update(d, actor="scenario")
    assert err.value.message == (
        'Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: '
        "field is immutable")


def test_valid_objects_pass() -> None:
    w = World()
    w.create(deployment_object("web", 0, LABELS))
    w.create(rs_object("rs", 2, {"app": "rs"}))
    w.settle()
    assert len(w.pods()) == 2
