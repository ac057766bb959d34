"""Watches limited to some kinds: only their events, in the same order as for a full watch."""

from __future__ import annotations

from typing import Any

from kubesim.cluster import Cluster, WatchEvent


def _names(events: list[WatchEvent]) -> list[tuple[str, str, str]]:
    return [(e.type, e.object["kind"], e.object["metadata"]["name"]) for e in events]


def test_a_watch_of_some_kinds_gets_only_those(cluster: Cluster, build: Any) -> None:
    everything: list[WatchEvent] = []
    pods: list[WatchEvent] = []
    nodes_and_pods: list[WatchEvent] = []
    cluster.watch(everything.append)
    cluster.watch(pods.append, kinds={"Pod"})
    cluster.watch(nodes_and_pods.append, kinds=("Node", "Pod"))
    cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    cluster.create(build.pod("p1"))
    cluster.create(build.deployment("d"))
    cluster.bind("default", "p1", "n1")
    cluster.delete("v1", "Pod", "p1", "default")
    assert [k for _, k, _ in _names(everything)] == ["Node", "Pod", "Deployment", "Pod", "Pod"]
    assert _names(pods) == [e for e in _names(everything) if e[1] == "Pod"]
    assert _names(nodes_and_pods) == [e for e in _names(everything) if e[1] in ("Node", "Pod")]


def test_subscribing_and_unsubscribing_while_events_are_delivered(cluster: Cluster, build: Any) -> None:
    """A handler added during a delivery gets the later events of its kinds; one removed gets no more."""
    late: list[WatchEvent] = []
    stops: list[Any] = []
    first: list[WatchEvent] = []

    def on_pod(event: WatchEvent) -> None:
        first.append(event)
        if len(first) == 1:
            cluster.create(build.pod("from-handler"))  # queued: delivered after this event
            stops.append(cluster.watch(late.append, kinds={"Pod"}))
        elif len(first) == 3:
            stops[0]()

    cluster.watch(on_pod, kinds={"Pod"})
    cluster.create(build.pod("a"))
    cluster.create(build.pod("b"))
    assert [e.object["metadata"]["name"] for e in first] == ["a", "from-handler", "b"]
    assert [e.object["metadata"]["name"] for e in late] == ["from-handler"]
