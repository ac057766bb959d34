"""The resource registry: built-in kinds, lookups, CRD registration."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.cluster import ResourceRegistry
from kubesim.errors import Invalid, NotFound

OPEN_SCHEMA = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}


@pytest.mark.parametrize(
    ("api_version", "kind", "namespaced", "status"),
    [
        ("v1", "Pod", True, True),
        ("v1", "Node", False, True),
        ("v1", "Namespace", False, True),
        ("v1", "ConfigMap", True, False),
        ("v1", "PersistentVolume", False, True),
        ("v1", "Event", True, False),
        ("apps/v1", "Deployment", True, True),
        ("apps/v1", "ControllerRevision", True, False),
        ("batch/v1", "CronJob", True, True),
        ("policy/v1", "PodDisruptionBudget", True, True),
        ("scheduling.k8s.io/v1", "PriorityClass", False, False),
        ("storage.k8s.io/v1", "CSINode", False, False),
        ("coordination.k8s.io/v1", "Lease", True, False),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", False, True),
    ],
)
def test_builtin_kinds(api_version: str, kind: str, namespaced: bool, status: bool) -> None:
    rt = ResourceRegistry().lookup(api_version, kind)
    assert (rt.api_version, rt.namespaced, rt.status_subresource) == (api_version, namespaced, status)


def test_lookup_miss_reads_like_kubectl() -> None:
    with pytest.raises(NotFound) as info:
        ResourceRegistry().lookup("apps/v1beta1", "Deployment")
    assert info.value.message == 'no matches for kind "Deployment" in version "apps/v1beta1"'


def _crd(**spec: Any) -> dict[str, Any]:
    base = {
        "group": "example.com",
        "scope": "Cluster",
        "names": {"kind": "Thing", "plural": "things"},
        "versions": [
            {"name": "v1beta1", "served": True, "storage": False, "schema": OPEN_SCHEMA},
            {"name": "v1", "served": True, "storage": True, "schema": OPEN_SCHEMA, "subresources": {"status": {}}},
        ],
    }
    return {"metadata": {"name": "things.example.com"}, "spec": {**base, **spec}}


def test_register_crd_serves_every_served_version_from_the_storage_version() -> None:
    registry = ResourceRegistry()
    rt = registry.register_crd(_crd())
    assert (rt.api_version, rt.plural, rt.namespaced, rt.status_subresource) == (
        "example.com/v1",
        "things",
        False,
        True,
    )
    assert registry.lookup("example.com/v1beta1", "Thing") is rt
    assert registry.register_crd(_crd()) == rt  # idempotent
    assert rt in registry.types()
    kinds = [(t.group, t.kind) for t in registry.types()]
    assert kinds == sorted(kinds)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"group": ""}, "spec.group: Required value"),
        ({"scope": "Everywhere"}, 'spec.scope: Unsupported value: "Everywhere"'),
        (
            {"versions": [{"name": "v1", "served": True, "storage": False, "schema": OPEN_SCHEMA}]},
            "exactly one version marked as storage",
        ),
        ({"names": {"kind": "Thing"}}, "spec.names.plural: Required value"),
        ({"group": "", "names": {"kind": "Pod", "plural": "pods"}}, "spec.group: Required value"),
    ],
)
def test_invalid_crds(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(Invalid) as info:
        ResourceRegistry().register_crd(_crd(**spec))
    assert message in info.value.message


def test_crd_cannot_shadow_a_builtin_kind() -> None:
    crd = {
        "metadata": {"name": "csinodes.storage.k8s.io"},
        "spec": {
            "group": "storage.k8s.io",
            "scope": "Cluster",
            "names": {"kind": "CSINode", "plural": "csinodes"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": OPEN_SCHEMA}],
        },
    }
    with pytest.raises(Invalid, match="is a built-in kind"):
        ResourceRegistry().register_crd(crd)
