"""Fixtures for the embedded cluster tests: a fresh cluster, its events, object builders.

Builders are reached through the `build` fixture (test modules are imported with
--import-mode=importlib, so they cannot import this file).
"""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster, WatchEvent


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cluster(clock: Clock) -> Cluster:
    return Cluster(clock, seed=0)


@pytest.fixture
def events(cluster: Cluster) -> list[WatchEvent]:
    """Every watch event the cluster delivers from now on."""
    seen: list[WatchEvent] = []
    cluster.watch(seen.append)
    return seen


def pod(name: str, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    """A minimal valid pod; keyword arguments are merged into its spec."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec},
    }


def owned(
    obj: dict[str, Any], owner: dict[str, Any], *, block: bool | None = None, controller: bool = True
) -> dict[str, Any]:
    """`obj` with an ownerReference to `owner` (a stored object)."""
    ref: dict[str, Any] = {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": controller,
    }
    if block is not None:
        ref["blockOwnerDeletion"] = block
    obj["metadata"].setdefault("ownerReferences", []).append(ref)
    return obj


def _template(app: str) -> dict[str, Any]:
    """A pod template the selector app=<app> matches, with one container "app"."""
    return {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}


def replicaset(name: str, namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}}, "template": _template(name)},
    }


def deployment(name: str, namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}}, "template": _template(name)},
    }


def summary(events: list[WatchEvent]) -> list[tuple[str, str, str, str]]:
    """(type, kind, name, actor) of each event, for compact assertions."""
    return [(e.type, e.object["kind"], e.object["metadata"]["name"], e.actor) for e in events]


class Builders:
    """Object builders for tests: `build.pod("a")`, `build.owned(obj, owner)`, ..."""

    pod = staticmethod(pod)
    owned = staticmethod(owned)
    replicaset = staticmethod(replicaset)
    deployment = staticmethod(deployment)
    summary = staticmethod(summary)


@pytest.fixture
def build() -> type[Builders]:
    return Builders
