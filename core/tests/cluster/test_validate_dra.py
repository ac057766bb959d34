"""resource.k8s.io/v1 objects as the API server defaults and validates them (ports of cases in
pkg/apis/resource/validation/validation_*_test.go), and pods' resourceClaims."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.cluster import Cluster
from kubesim.errors import BadRequest, Invalid

API = "resource.k8s.io/v1"


def claim(devices: dict[str, Any], name: str = "c") -> dict[str, Any]:
    return {"apiVersion": API, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": devices}}


def req(name: str = "r", **exactly: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": "gpu", **exactly}}


def slice_(**spec: Any) -> dict[str, Any]:
    base = {"driver": "gpu.example.com", "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n1",
            "devices": [{"name": "d0", "attributes": {"model": {"string": "A100"}}, "capacity": {"memory": {"value": "40Gi"}}}]}
    base.update(spec)
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": base}


def error_of(cluster: Cluster, obj: dict[str, Any]) -> str:
    with pytest.raises(Invalid) as e:
        cluster.create(obj)
    return str(e.value)


def test_claim_defaults(cluster: Cluster) -> None:
    out = cluster.create(claim({"requests": [req()]}))
    assert out["spec"]["devices"]["requests"][0]["exactly"] == {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}


@pytest.mark.parametrize(("devices", "message"), [
    ({"requests": [req(allocationMode="All", count=2)]}, "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"),
    ({"requests": [req(count=0)]}, "spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero"),
    ({"requests": [req(allocationMode="Some")]}, 'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some"'),
    ({"requests": [req(), req()]}, 'spec.devices.requests[1].name: Duplicate value: "r"'),
    ({"requests": [{"name": "r"}]}, "exactly one of `exactly` or `firstAvailable` is required"),
    ({"requests": [req(selectors=[{"cel": {"expression": ""}}])]}, "spec.devices.requests[0].exactly.selectors[0].cel.expression: Required value"),
    ({"requests": [req(selectors=[{"cel": {"expression": "x" * 10241}}])]}, "may not be more than 10240 bytes"),
    ({"requests": [req()], "constraints": [{"requests": ["nope"], "matchAttribute": "example.com/model"}]}, 'spec.devices.constraints[0].requests[0]: Invalid value: "nope"'),
    ({"requests": [req()], "constraints": [{"matchAttribute": "model"}]}, 'spec.devices.constraints[0].matchAttribute: Invalid value: "model": must include a domain'),
])
def test_claim_validation(cluster: Cluster, devices: dict[str, Any], message: str) -> None:
    assert message in error_of(cluster, claim(devices))


def test_claim_spec_is_immutable(cluster: Cluster) -> None:
    c = cluster.create(claim({"requests": [req()]}))
    c["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    with pytest.raises(Invalid, match="spec: Invalid value.*field is immutable"):
        cluster.update(c)


@pytest.mark.parametrize(("spec", "message"), [
    ({"nodeName": None}, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"),
    ({"allNodes": True}, "but multiple fields are set"),
    ({"pool": {"name": "p", "resourceSliceCount": 0}}, "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"),
    ({"devices": [{"name": "d0"}, {"name": "d0"}]}, 'spec.devices[1].name: Duplicate value: "d0"'),
    ({"devices": [{"name": "d0", "attributes": {"model": {"string": "a", "int": 1}}}]}, "exactly one value must be specified"),
    ({"devices": [{"name": f"d{i}"} for i in range(129)]}, "spec.devices: Too many: 129: must have at most 128 items"),
    ({"pool": {"name": "a//b", "resourceSliceCount": 1}}, 'spec.pool.name: Invalid value: "a//b": segments must not be empty'),
    ({"pool": {"name": "Pool", "resourceSliceCount": 1}}, 'spec.pool.name: Invalid value: "Pool": a lowercase RFC 1123'),
])
def test_slice_validation(cluster: Cluster, spec: dict[str, Any], message: str) -> None:
    assert message in error_of(cluster, slice_(**spec))


def test_slice_capacity_must_be_a_quantity(cluster: Cluster) -> None:
    """Quantities are decoded before validation, as the API server's JSON decoding does."""
    with pytest.raises(BadRequest, match=r"spec.devices\[0\].capacity\[memory\].value: quantities must match"):
        cluster.create(slice_(devices=[{"name": "d0", "capacity": {"memory": {"value": "lots"}}}]))


def test_valid_objects_are_stored(cluster: Cluster) -> None:
    cluster.create(slice_())
    cluster.create({"apiVersion": API, "kind": "DeviceClass", "metadata": {"name": "gpu"},
                    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    tpl = cluster.create({"apiVersion": API, "kind": "ResourceClaimTemplate", "metadata": {"name": "t", "namespace": "default"},
                          "spec": {"spec": {"devices": {"requests": [req()]}}}})
    assert tpl["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1
    assert {o["metadata"]["name"] for o in cluster.list(API, "DeviceClass")} == {"gpu"}


def test_pod_resource_claims(cluster: Cluster) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpux"}]}}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t", "resourceClaimName": "c"}]}}
    text = error_of(cluster, pod)
    assert "spec.containers[0].resources.claims[0]: Not found: \"gpux\": must be one of the names in pod.spec.resourceClaims" in text
    assert "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`" in text
