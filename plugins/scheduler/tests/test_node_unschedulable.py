"""NodeUnschedulable, ported from upstream's node_unschedulable_test.go table."""

# upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go

from __future__ import annotations

import pytest
from scheduler_harness import make_node, make_pod

from kubesim_scheduler.api import Code, Status
from kubesim_scheduler.plugins.nodeunschedulable import ERR_REASON_UNSCHEDULABLE
from kubesim_scheduler.testing import new_framework, register_filter_plugin

CASES = [
    ("Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)", [], True,
     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE, plugin="NodeUnschedulable")),
    ("Schedule pod to normal node", [], False, None),
    ("Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
     [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}], True, None),
]


@pytest.mark.parametrize("name,tolerations,unschedulable,want", CASES, ids=[c[0] for c in CASES])
def test_node_unschedulable(name, tolerations, unschedulable, want):  # type: ignore[no-untyped-def]
    fw = new_framework([register_filter_plugin("NodeUnschedulable")], [make_node("n", unschedulable=unschedulable)])
    assert fw.filter(make_pod(tolerations=tolerations)) == {"n": want}
