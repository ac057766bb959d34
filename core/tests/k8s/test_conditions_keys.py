"""Status conditions (apimachinery meta/conditions_test.go TestSetStatusCondition; the
ReplicaSet and Deployment SetCondition rules) and object keys (client-go MetaNamespaceKeyFunc)."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.k8s.conditions import (
    get_condition,
    remove_condition,
    set_condition,
    set_status_condition,
    update_pod_condition,
)
from kubesim.k8s.keys import namespaced_name, object_key, pod_key, split_key


def test_set_status_condition_keeps_transition_time_while_status_holds() -> None:
    conds: list[dict[str, Any]] = []
    set_status_condition(conds, "Ready", "True", "Up", "fine", "t1")
    set_status_condition(conds, "Ready", "True", "StillUp", "still fine", "t2")
    assert conds == [{"type": "Ready", "status": "True", "lastTransitionTime": "t1", "reason": "StillUp",
                      "message": "still fine"}]
    set_status_condition(conds, "Ready", "False", "Down", "gone", "t3")
    assert conds[0]["lastTransitionTime"] == "t3" and conds[0]["status"] == "False"
    set_status_condition(conds, "Other", "True", "R", "M", "t4")
    assert [x["type"] for x in conds] == ["Ready", "Other"]


@pytest.mark.parametrize("keep", [True, False])
def test_workload_set_condition(keep: bool) -> None:
    status: dict[str, Any] = {}
    first = {"type": "Progressing", "status": "True", "reason": "A", "lastTransitionTime": "t1"}
    set_condition(status, first, keep_transition_time=keep)
    assert status["conditions"] == [first]
    # same status and reason: nothing changes
    set_condition(status, {**first, "lastTransitionTime": "t2", "message": "x"}, keep_transition_time=keep)
    assert status["conditions"] == [first]
    # same status, another reason: replaced; the transition time is kept only for Deployments
    set_condition(status, {"type": "Available", "status": "True", "lastTransitionTime": "t0"}, keep_transition_time=keep)
    set_condition(status, {**first, "reason": "B", "lastTransitionTime": "t3"}, keep_transition_time=keep)
    assert [x["type"] for x in status["conditions"]] == ["Available", "Progressing"]
    assert get_condition(status["conditions"], "Progressing") == {
        **first, "reason": "B", "lastTransitionTime": "t1" if keep else "t3"}
    # a status change always takes the new time
    set_condition(status, {**first, "status": "False", "lastTransitionTime": "t4"}, keep_transition_time=keep)
    assert get_condition(status["conditions"], "Progressing")["lastTransitionTime"] == "t4"  # type: ignore[index]
    remove_condition(status, "Progressing")
    remove_condition(status, "Available")
    assert "conditions" not in status


def test_update_pod_condition() -> None:
    conds = update_pod_condition(None, "PodScheduled", "True", "t1")
    assert conds == [{"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": "t1"}]
    assert update_pod_condition(conds, "PodScheduled", "True", "t2") == conds
    old = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": "t0"}]
    assert update_pod_condition(old, "PodScheduled", "True", "t3")[0]["lastTransitionTime"] == "t3"
    assert old[0]["status"] == "False"  # the input is not changed


def test_keys() -> None:
    assert object_key({"metadata": {"namespace": "ns", "name": "a"}}) == "ns/a"
    assert object_key({"metadata": {"name": "node-1"}}) == "node-1"
    assert split_key("ns/a") == ("ns", "a") and split_key("node-1") == ("", "node-1")
    with pytest.raises(ValueError, match="unexpected key format"):
        split_key("a/b/c")
    assert namespaced_name(None, "p") == "default/p"
    assert pod_key({"metadata": {"uid": "u1", "name": "p"}}) == "u1"
    assert pod_key({"metadata": {"namespace": "ns", "name": "p"}}) == "ns/p"
