"""A binding's watch event confirms the assumed pod: nothing is parsed or re-accounted again.

The binder here plays the API server: it writes the bound pod back through update_pod as
the informer would, with spec.nodeName, a PodScheduled condition and a new
resourceVersion, plus optionally another change that must not be swallowed.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesim_scheduler import Scheduler
from kubesim_scheduler.framework import pod_info as pod_info_module
from kubesim_scheduler.framework.pod_info import pod_key
from scheduler_harness import make_node, make_pod


def _scheduler(extra: dict[str, Any] | None) -> tuple[Scheduler, list[Any]]:
    seen: list[Any] = []
    s: Scheduler

    def binder(pod: dict[str, Any], node: str) -> None:
        bound = dict(pod)
        bound["metadata"] = {**pod["metadata"], "resourceVersion": "99", **((extra or {}).get("metadata") or {})}
        bound["spec"] = {**pod["spec"], "nodeName": node}
        bound["status"] = {**(pod.get("status") or {}), "conditions": [{"type": "PodScheduled", "status": "True"}],
                           **((extra or {}).get("status") or {})}
        seen.append(s.table.pod_info(pod_key(pod)))
        s.update_pod(bound)
        seen.append(s.table.pod_info(pod_key(pod)))

    s = Scheduler(seed=2, binder=binder)
    for i in range(3):
        s.add_node(make_node(f"n{i}", {"cpu": "2", "memory": "4Gi", "pods": "10"}))
    return s, seen


def test_the_binding_keeps_the_assumed_pod_info(monkeypatch: pytest.MonkeyPatch) -> None:
    s, seen = _scheduler(None)
    pod = make_pod("p", reqs=[{"cpu": "500m"}], labels={"app": "a"})
    s.add_pod(pod)
    parses: list[Any] = []
    original = pod_info_module.PodInfo.__init__

    def counting(self: Any, pod: Any) -> None:
        parses.append(pod)
        original(self, pod)

    monkeypatch.setattr(pod_info_module.PodInfo, "__init__", counting)
    attempt = s.schedule_one()
    assert attempt is not None and attempt.bound
    assumed, after = seen
    assert after is assumed and after.node_name == attempt.node
    assert not parses  # the bound pod was not parsed again
    assert s.pods[pod_key(pod)]["metadata"]["resourceVersion"] == "99"  # the stored copy is the new one
    row = s.table.name_to_row[attempt.node]
    assert int(s.table.req_cpu[row]) == 500 and int(s.table.pod_count[row]) == 1
    assert not len(s.queue.active)


@pytest.mark.parametrize("extra", [
    {"metadata": {"labels": {"app": "b"}}},
    {"status": {"startTime": "2025-01-01T00:00:00Z"}},
])
def test_other_changes_in_the_same_write_are_taken_in(extra: dict[str, Any]) -> None:
    s, seen = _scheduler(extra)
    s.add_pod(make_pod("p", reqs=[{"cpu": "500m"}], labels={"app": "a"}))
    attempt = s.schedule_one()
    assert attempt is not None and attempt.bound
    assumed, after = seen
    assert after is not assumed and after is not None
    if "metadata" in extra:
        assert after.pod["metadata"]["labels"] == {"app": "b"}
    else:
        assert after.pod["status"]["startTime"] == "2025-01-01T00:00:00Z"
    row = s.table.name_to_row[attempt.node]
    assert int(s.table.req_cpu[row]) == 500 and int(s.table.pod_count[row]) == 1
