"""dryRun=All in the cluster: every check and admitter runs, nothing is stored or published."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.cluster import Cluster, WatchEvent
from kubesim.errors import AlreadyExists, Invalid


def _cm(name: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}, "data": {"k": "v"}}


def test_dry_run_writes_store_nothing_and_publish_nothing(cluster: Cluster, events: list[WatchEvent]) -> None:
    cluster.create(_cm("kept", labels={"a": "b"}))
    events.clear()
    rv, stored = cluster.resource_version, [dict(o) for o in cluster.objects()]
    made = cluster.create(_cm("", generateName="gen-"), dry_run=True)
    assert made["metadata"]["name"].startswith("gen-") and "resourceVersion" not in made["metadata"]
    with pytest.raises(AlreadyExists):
        cluster.create(_cm("kept"), dry_run=True)
    with pytest.raises(Invalid):
        cluster.create(_cm("Bad_Name"), dry_run=True)
    assert cluster.update({**_cm("kept"), "data": {"k": "w"}}, dry_run=True)["data"] == {"k": "w"}
    assert cluster.patch("v1", "ConfigMap", "kept", {"data": {"k": "x"}}, "merge", dry_run=True)["data"] == {"k": "x"}
    assert cluster.delete("v1", "ConfigMap", "kept", "default", dry_run=True) is None
    assert events == [] and cluster.resource_version == rv and [dict(o) for o in cluster.objects()] == stored
    # the generated name and uid sequences did not move: the real create gets what the dry run showed
    real = cluster.create(_cm("", generateName="gen-"))
    assert (real["metadata"]["name"], real["metadata"]["uid"]) == (made["metadata"]["name"], made["metadata"]["uid"])


def test_dry_run_bind_and_finalized_delete(cluster: Cluster, events: list[WatchEvent], build: Any) -> None:
    cluster.create(build.pod("p"))
    cluster.create(_cm("held", finalizers=["example.com/x"]))
    events.clear()
    assert cluster.bind("default", "p", "n1", dry_run=True)["spec"]["nodeName"] == "n1"
    marked = cluster.delete("v1", "ConfigMap", "held", "default", dry_run=True)
    assert marked is not None and marked["metadata"]["deletionTimestamp"]
    assert events == []
    assert cluster.get("v1", "Pod", "p", "default")["spec"].get("nodeName") is None
    assert "deletionTimestamp" not in cluster.get("v1", "ConfigMap", "held", "default")["metadata"]
