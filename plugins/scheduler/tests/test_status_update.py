"""A status-only write to a bound pod (the kubelet's) is the cache's remove + add without a parse.

upstream's updatePodInCache swaps in the new object (cache.UpdatePod: removePod + addPod, so the
pod moves to the end of its node's pods) and requeues by PodSchedulingPropertiesChange; kubesim
keeps the held PodInfo's parses when nothing they read changed, and parses anything else.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubesim_scheduler import Scheduler
from kubesim_scheduler.framework import pod_info as pod_info_module
from kubesim_scheduler.framework.events import ActionType, pod_scheduling_properties_change
from kubesim_scheduler.framework.pod_info import PodInfo, parses_alike, pod_key, status_requests_view
from scheduler_harness import make_node, make_pod


def _bound(pod: dict[str, Any], node: str) -> dict[str, Any]:
    return {**pod, "metadata": {**pod["metadata"], "resourceVersion": "2"}, "spec": {**pod["spec"], "nodeName": node}}


def _running(pod: dict[str, Any], **status: Any) -> dict[str, Any]:
    """The kubelet's status write as the informer delivers it (a new object throughout):
    container statuses, phase, start time, a new resourceVersion."""
    new_status = {
        "phase": "Running", "startTime": "2025-01-01T00:00:00Z",
        "containerStatuses": [{"name": c["name"], "ready": True} for c in pod["spec"]["containers"]],
        **status,
    }
    return {**pod, "metadata": {**copy.deepcopy(pod["metadata"]), "resourceVersion": "3"},
            "spec": copy.deepcopy(pod["spec"]), "status": new_status}


def _two_bound_pods() -> tuple[Scheduler, list[dict[str, Any]]]:
    s = Scheduler(seed=1)
    s.add_node(make_node("n0", {"cpu": "4", "memory": "8Gi", "pods": "10"}))
    pods = [_bound(make_pod(f"p{i}", reqs=[{"cpu": "500m", "memory": "1Gi"}], labels={"app": "a"}), "n0")
            for i in range(2)]
    for p in pods:
        s.add_pod(p)
    return s, pods


def _counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    parses: list[Any] = []
    original = pod_info_module.PodInfo.__init__

    def counting(self: Any, pod: Any) -> None:
        parses.append(pod)
        original(self, pod)

    monkeypatch.setattr(pod_info_module.PodInfo, "__init__", counting)
    return parses


def test_a_status_only_write_swaps_the_pod_in_without_a_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    s, (p0, p1) = _two_bound_pods()
    held = s.table.pod_info(pod_key(p0))
    assert held is not None
    generation = s.table.generation
    parses = _counting_parses(monkeypatch)
    running = _running(p0)
    s.update_pod(running)
    assert not parses
    now = s.table.pod_info(pod_key(p0))
    assert now is not None and now is not held and now.pod is running  # a new PodInfo of the new object
    assert now.requests == held.requests and now.labels == held.labels and now.node_name == "n0"
    row = s.table.name_to_row["n0"]
    assert list(s.table.pods[row]) == [pod_key(p1), pod_key(p0)]  # remove + add: to the end
    assert int(s.table.req_cpu[row]) == 1000 and int(s.table.pod_count[row]) == 2  # accounted once
    assert s.table.generation > generation  # the row changed for the plugins' indexes
    assert s.pods[pod_key(p0)] is running


@pytest.mark.parametrize("change", ["labels", "resize", "spec"])
def test_writes_that_change_what_is_parsed_are_parsed(monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    s, (p0, _p1) = _two_bound_pods()
    if change == "labels":
        new = _running(p0)
        new["metadata"] = {**new["metadata"], "labels": {"app": "b"}}
    elif change == "resize":  # in-place resize reported in the container status
        new = _running(p0, containerStatuses=[{"name": "c0", "resources": {"requests": {"cpu": "1"}}}])
    else:
        new = _running(p0)
        new["spec"] = {**new["spec"], "tolerations": [{"operator": "Exists"}]}
    parses = _counting_parses(monkeypatch)
    s.update_pod(new)
    assert len(parses) == 1
    now = s.table.pod_info(pod_key(p0))
    assert now is not None and now.pod is new
    row = s.table.name_to_row["n0"]
    assert int(s.table.req_cpu[row]) == (1500 if change == "resize" else 1000)
    if change == "labels":
        assert now.labels == {"app": "b"}


def test_parses_alike_reads_spec_metadata_and_status_resources() -> None:
    pod = _bound(make_pod("p", reqs=[{"cpu": "1"}]), "n0")
    held = PodInfo(pod)
    assert parses_alike(held, _running(pod))
    assert not parses_alike(held, {**pod, "metadata": {**pod["metadata"], "annotations": {"a": "b"}}})
    assert not parses_alike(held, {**pod, "metadata": {k: v for k, v in pod["metadata"].items() if k != "uid"}})
    # a spec or metadata shared with the parsed object may have been changed in place: parsed again
    assert not parses_alike(held, {**_running(pod), "spec": pod["spec"]})
    assert not parses_alike(held, {**_running(pod), "metadata": pod["metadata"]})
    resized = _running(pod, containerStatuses=[{"name": "c0", "resources": {"requests": {"cpu": "2"}}}])
    assert not parses_alike(held, resized)
    # an init container's status wins over a container's of the same name, as in pod_requests
    both = _running(pod, containerStatuses=[{"name": "c0", "resources": {"requests": {"cpu": "2"}}}],
                    initContainerStatuses=[{"name": "c0"}])
    assert status_requests_view(both) == {}
    assert parses_alike(held, both)


def test_status_only_writes_give_the_plain_update_event() -> None:
    pod = _bound(make_pod("p", reqs=[{"cpu": "1"}]), "n0")
    events = pod_scheduling_properties_change(_running(pod), pod)
    assert [e.action_type for e in events] == [ActionType.UPDATE]
    smaller = _running(pod, containerStatuses=[{"name": "c0", "resources": {"requests": {"cpu": "500m"}}}])
    bigger = _running(pod, containerStatuses=[{"name": "c0", "resources": {"requests": {"cpu": "2"}}}])
    assert [e.action_type for e in pod_scheduling_properties_change(smaller, bigger)] == [ActionType.UPDATE_POD_SCALE_DOWN]


def test_with_pod_copies_every_slot() -> None:
    pod = _bound(make_pod("p", reqs=[{"cpu": "1"}], labels={"app": "a"}), "n0")
    held = PodInfo(pod)
    running = _running(pod)
    copy = held.with_pod(running)
    assert copy.pod is running
    for name in PodInfo.__slots__:
        if name != "pod":
            assert getattr(copy, name) is getattr(held, name), name
