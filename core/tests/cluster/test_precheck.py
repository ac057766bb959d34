"""check_new_object: the API server's create-time validation without cluster state."""

from __future__ import annotations

import pytest

from kubesim.clock import Clock
from kubesim.cluster import Cluster, check_new_object
from kubesim.errors import NotFound


@pytest.fixture
def registry():  # type: ignore[no-untyped-def]
    return Cluster(Clock()).registry


def test_valid_objects_pass(registry) -> None:  # type: ignore[no-untyped-def]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-"},
           "spec": {"containers": [{"name": "c", "image": "i"}]}}
    assert check_new_object(registry, pod) is None
    assert pod["metadata"] == {"generateName": "web-"}  # the input is not changed


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}},
         'Pod "p" is invalid: spec.containers: Required value'),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}},
         'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required'),
        ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}},
         'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots'),
    ],
)
def test_invalid_objects_get_the_api_server_message(registry, obj, message) -> None:  # type: ignore[no-untyped-def]
    result = check_new_object(registry, obj)
    assert result is not None and result.startswith(message)


def test_unknown_kinds_raise_not_found(registry) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFound):
        check_new_object(registry, {"apiVersion": "v1", "kind": "Gizmo", "metadata": {"name": "g"}})
