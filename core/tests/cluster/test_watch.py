"""Watch events: commit order, re-entrant writes from handlers, unsubscribing, failing handlers."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.cluster import Cluster, WatchEvent


def test_events_carry_actor_subresource_and_old_object(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    created = cluster.create(build.pod("p"), actor="user")
    cluster.update({**created, "status": {"phase": "Running"}}, actor="kubelet", subresource="status")
    assert [(e.type, e.actor, e.subresource) for e in events] == [
        ("ADDED", "user", None),
        ("MODIFIED", "kubelet", "status"),
    ]
    assert events[0].old_object is None
    assert events[1].old_object is events[0].object
    assert events[1].object["status"]["phase"] == "Running"


def test_reentrant_writes_are_delivered_after_the_current_event_to_everyone(
    cluster: Cluster, build: Any
) -> None:
    log: list[tuple[str, str, str]] = []

    def first(event: WatchEvent) -> None:
        name = event.object["metadata"]["name"]
        log.append(("first", event.type, name))
        if event.type == "ADDED" and name == "a":
            cluster.create(build.pod("b"), actor="first")  # nested write: queued, delivered later
            assert cluster.get("v1", "Pod", "b")  # ...but already committed

    def second(event: WatchEvent) -> None:
        name = event.object["metadata"]["name"]
        log.append(("second", event.type, name))
        if event.type == "ADDED" and name == "b":
            cluster.delete("v1", "Pod", "a", actor="second")

    cluster.watch(first)
    cluster.watch(second)
    cluster.create(build.pod("a"))
    assert log == [
        ("first", "ADDED", "a"),
        ("second", "ADDED", "a"),
        ("first", "ADDED", "b"),
        ("second", "ADDED", "b"),
        ("first", "DELETED", "a"),
        ("second", "DELETED", "a"),
    ]


def test_resource_versions_increase_in_delivery_order(cluster: Cluster, build: Any) -> None:
    versions: list[int] = []

    def handler(event: WatchEvent) -> None:
        versions.append(int(event.object["metadata"]["resourceVersion"]))
        if event.type == "ADDED" and event.object["metadata"]["name"] == "a":
            cluster.bind("default", "a", "n1")
            cluster.create(build.pod("c"))

    cluster.watch(handler)
    cluster.create(build.pod("a"))
    assert versions == sorted(versions) and len(versions) == 3


def test_unsubscribe(cluster: Cluster, build: Any) -> None:
    seen: list[str] = []
    stop = cluster.watch(lambda e: seen.append(e.object["metadata"]["name"]))
    cluster.create(build.pod("a"))
    stop()
    stop()
    cluster.create(build.pod("b"))
    assert seen == ["a"]


def test_unsubscribing_during_delivery_skips_the_rest(cluster: Cluster, build: Any) -> None:
    seen: list[str] = []
    stops: list[Any] = []
    cluster.watch(lambda e: stops[0]())
    stops.append(cluster.watch(lambda e: seen.append(e.type)))
    cluster.create(build.pod("a"))
    assert seen == []


def test_a_failing_handler_does_not_starve_the_others(cluster: Cluster, build: Any) -> None:
    seen: list[str] = []

    def broken(event: WatchEvent) -> None:
        raise RuntimeError("boom")

    cluster.watch(broken)
    cluster.watch(lambda e: seen.append(e.object["metadata"]["name"]))
    with pytest.raises(RuntimeError, match="boom"):
        cluster.create(build.pod("a"))
    assert seen == ["a"]
    assert cluster.get("v1", "Pod", "a")  # the write itself committed


def test_gc_and_namespace_deletion_events_are_delivered(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    rs = cluster.create(build.replicaset("rs"))
    cluster.create(build.owned(build.pod("p"), rs))
    cluster.delete("apps/v1", "ReplicaSet", "rs")
    assert [(e.type, e.actor) for e in events[-2:]] == [
        ("DELETED", "scenario"),
        ("DELETED", "garbage-collector"),
    ]
