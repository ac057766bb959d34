"""The admission chain: built-in pod defaulting and priority, registered admitters, denials."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.cluster import AdmissionRequest, AdmissionResponse, Cluster
from kubesim.errors import ApiError, Conflict, Forbidden, Invalid

PC = "scheduling.k8s.io/v1"


def _priority_class(name: str, value: int | None, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": PC, "kind": "PriorityClass", "metadata": {"name": name}, "value": value, **extra}


def test_pod_defaults(cluster: Cluster, build: Any) -> None:
    p = build.pod("p")
    p["spec"]["containers"][0].update(
        resources={"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}},
        ports=[{"containerPort": 80}],
    )
    spec = cluster.create(p)["spec"]
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["restartPolicy"] == "Always"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["priority"] == 0
    assert spec["preemptionPolicy"] == "PreemptLowerPriority"
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    assert spec["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]


def test_defaults_do_not_override_given_values(cluster: Cluster, build: Any) -> None:
    spec = cluster.create(build.pod("p", schedulerName="mine", restartPolicy="Never"))["spec"]
    assert (spec["schedulerName"], spec["restartPolicy"]) == ("mine", "Never")


@pytest.mark.parametrize(
    ("limits", "requests", "qos"),
    [
        ({"cpu": "1", "memory": "1Gi"}, None, "Guaranteed"),
        ({"cpu": "1", "memory": "1Gi"}, {"cpu": "500m"}, "Burstable"),
        (None, {"cpu": "100m"}, "Burstable"),
        (None, {"cpu": "0"}, "BestEffort"),
        (None, None, "BestEffort"),
    ],
)
def test_qos_class(cluster: Cluster, build: Any, limits: Any, requests: Any, qos: str) -> None:
    p = build.pod("p")
    resources = {k: v for k, v in (("limits", limits), ("requests", requests)) if v is not None}
    p["spec"]["containers"][0]["resources"] = resources
    assert cluster.create(p)["status"]["qosClass"] == qos


def test_priority_from_priority_class(cluster: Cluster, build: Any) -> None:
    cluster.create(_priority_class("high", 1000, preemptionPolicy="Never"))
    spec = cluster.create(build.pod("p", priorityClassName="high"))["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (1000, "Never")
    assert cluster.get(PC, "PriorityClass", "high")["preemptionPolicy"] == "Never"
    assert cluster.create(_priority_class("low", 1))["preemptionPolicy"] == "PreemptLowerPriority"


def test_global_default_priority_class(cluster: Cluster, build: Any) -> None:
    cluster.create(_priority_class("default", 7, globalDefault=True))
    spec = cluster.create(build.pod("p"))["spec"]
    assert (spec["priority"], spec["priorityClassName"]) == (7, "default")
    with pytest.raises(Forbidden, match="PriorityClass default is already marked as default"):
        cluster.create(_priority_class("other", 8, globalDefault=True))


def test_a_null_priority_class_value_is_zero(cluster: Cluster, build: Any) -> None:
    # Go decodes `value: null` into PriorityClass.Value (int32) as 0 (found by the property tests)
    cluster.create(_priority_class("nulled", None))
    assert cluster.create(build.pod("p", priorityClassName="nulled"))["spec"]["priority"] == 0
    cluster.create(_priority_class("fallback", None, globalDefault=True))
    assert cluster.create(build.pod("q"))["spec"]["priority"] == 0


def test_system_priority_classes_are_known(cluster: Cluster, build: Any) -> None:
    spec = cluster.create(build.pod("p", priorityClassName="system-node-critical"))["spec"]
    assert spec["priority"] == 2000001000


def test_unknown_priority_class_is_forbidden(cluster: Cluster, build: Any) -> None:
    with pytest.raises(Forbidden) as info:
        cluster.create(build.pod("p", priorityClassName="nope"))
    assert info.value.message == 'pods "p" is forbidden: no PriorityClass with name nope was found'


def test_priority_that_disagrees_with_the_class_is_forbidden(cluster: Cluster, build: Any) -> None:
    cluster.create(_priority_class("high", 1000))
    with pytest.raises(Forbidden, match=r"the integer value of priority \(5\) must not be provided"):
        cluster.create(build.pod("p", priorityClassName="high", priority=5))


def test_priority_survives_updates_that_omit_it(cluster: Cluster, build: Any) -> None:
    cluster.create(_priority_class("high", 1000))
    created = cluster.create(build.pod("p", priorityClassName="high"))
    del created["spec"]["priority"]
    assert cluster.update(created)["spec"]["priority"] == 1000


def test_pod_validation(cluster: Cluster, build: Any) -> None:
    with pytest.raises(Invalid) as info:
        cluster.create(build.pod("p", containers=[]))
    assert info.value.message == 'Pod "p" is invalid: spec.containers: Required value'
    with pytest.raises(Invalid) as info:
        cluster.create(build.pod("p", containers=[{"name": "a"}, {"name": "a"}, {"image": "x"}]))
    assert info.value.message == (
        'Pod "p" is invalid: [spec.containers[1].name: Duplicate value: "a", '
        "spec.containers[2].name: Required value]"
    )
    with pytest.raises(Invalid, match="must be less than or equal to cpu limit of 1"):
        cluster.create(
            build.pod(
                "p",
                containers=[{"name": "a", "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "2"}}}],
            )
        )


def test_mutating_admitter_patch_is_applied(cluster: Cluster, build: Any) -> None:
    def inject(req: AdmissionRequest) -> AdmissionResponse | None:
        if req.resource.kind != "Pod" or req.operation != "CREATE" or req.subresource:
            return None
        assert (
            req.object is not None and req.object["spec"]["schedulerName"] == "default-scheduler"
        )  # built-ins ran
        return AdmissionResponse(
            name="injector",
            patch=[
                {"op": "add", "path": "/metadata/labels", "value": {"injected": "true"}},
                {"op": "add", "path": "/spec/containers/-", "value": {"name": "sidecar", "image": "s"}},
            ],
        )

    cluster.add_admitter(inject, phase="mutating")
    created = cluster.create(build.pod("p"))
    assert created["metadata"]["labels"] == {"injected": "true"}
    assert [c["name"] for c in created["spec"]["containers"]] == ["app", "sidecar"]


def test_mutated_objects_are_defaulted_again(cluster: Cluster, build: Any) -> None:
    sidecar = {"name": "sidecar", "resources": {"limits": {"cpu": "1"}}}
    cluster.add_admitter(
        lambda req: (
            AdmissionResponse(patch=[{"op": "add", "path": "/spec/containers/-", "value": sidecar}])
            if req.operation == "CREATE"
            else None
        ),
        phase="mutating",
    )
    created = cluster.create(build.pod("p"))
    assert created["spec"]["containers"][1]["resources"]["requests"] == {"cpu": "1"}


def test_mutations_are_validated(cluster: Cluster, build: Any) -> None:
    cluster.add_admitter(
        lambda req: (
            AdmissionResponse(patch=[{"op": "add", "path": "/spec/containers/-", "value": {"name": "app"}}])
            if req.operation == "CREATE"
            else None
        ),
        phase="mutating",
    )
    with pytest.raises(Invalid, match="Duplicate value"):
        cluster.create(build.pod("p"))


def test_denial_message_and_code(cluster: Cluster, build: Any) -> None:
    cluster.add_admitter(
        lambda req: AdmissionResponse(
            allowed=False, name="policy.example.com", message="pods must have a team label"
        ),
        phase="validating",
    )
    with pytest.raises(Forbidden) as info:
        cluster.create(build.pod("p"))
    assert (
        info.value.message
        == 'admission webhook "policy.example.com" denied the request: pods must have a team label'
    )
    assert cluster.list("v1", "Pod") == []


def test_denial_code_picks_the_error(cluster: Cluster, build: Any) -> None:
    cluster.add_admitter(lambda req: AdmissionResponse(allowed=False, name="x", code=409), phase="validating")
    with pytest.raises(Conflict):
        cluster.create(build.pod("p"))
    other = Cluster(cluster.clock)
    other.add_admitter(lambda req: AdmissionResponse(allowed=False, name="x", code=429), phase="mutating")
    with pytest.raises(ApiError) as info:
        other.create(build.pod("p"))
    assert info.value.code == 429


def test_admitters_see_every_operation_in_order(cluster: Cluster, build: Any) -> None:
    seen: list[tuple[str, str, str | None, str, str]] = []

    def record(tag: str) -> Any:
        def admit(req: AdmissionRequest) -> None:
            seen.append((tag, req.operation, req.subresource, req.phase, req.actor))

        return admit

    cluster.add_admitter(record("m1"), phase="mutating")
    cluster.add_admitter(record("v1"), phase="validating")
    cluster.add_admitter(record("m2"), phase="mutating")
    cluster.create(build.pod("p"))
    cluster.bind("default", "p", "n1")
    cluster.delete("v1", "Pod", "p", actor="kubelet")
    assert seen == [
        ("m1", "CREATE", None, "mutating", "scenario"),
        ("m2", "CREATE", None, "mutating", "scenario"),
        ("v1", "CREATE", None, "validating", "scenario"),
        ("m1", "CREATE", "binding", "mutating", "scheduler"),
        ("m2", "CREATE", "binding", "mutating", "scheduler"),
        ("v1", "CREATE", "binding", "validating", "scheduler"),
        ("m1", "DELETE", None, "mutating", "kubelet"),
        ("m2", "DELETE", None, "mutating", "kubelet"),
        ("v1", "DELETE", None, "validating", "kubelet"),
    ]


def test_binding_request_carries_the_binding(cluster: Cluster, build: Any) -> None:
    requests: list[AdmissionRequest] = []
    cluster.add_admitter(
        lambda req: requests.append(req) if req.subresource == "binding" else None, phase="validating"
    )
    cluster.create(build.pod("p"))
    cluster.bind("default", "p", "n1")
    (req,) = requests
    assert req.resource.kind == "Pod" and req.name == "p" and req.namespace == "default"
    assert req.object == {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p", "namespace": "default"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"},
    }


def test_denied_delete_keeps_the_object(cluster: Cluster, build: Any) -> None:
    cluster.add_admitter(
        lambda req: AdmissionResponse(allowed=False, name="keep") if req.operation == "DELETE" else None,
        phase="validating",
    )
    cluster.create(build.pod("p"))
    with pytest.raises(Forbidden):
        cluster.delete("v1", "Pod", "p")
    assert len(cluster.list("v1", "Pod")) == 1


def test_bad_phase(cluster: Cluster) -> None:
    with pytest.raises(ValueError):
        cluster.add_admitter(lambda req: None, phase="sometimes")
