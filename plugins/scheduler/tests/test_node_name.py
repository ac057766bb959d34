"""NodeName, ported from upstream's node_name_test.go table."""

# upstream: pkg/scheduler/framework/plugins/nodename/node_name_test.go

from __future__ import annotations

import pytest
from scheduler_harness import make_node, make_pod

from kubesim_scheduler.api import Code, Status
from kubesim_scheduler.plugins.nodename import ERR_REASON
from kubesim_scheduler.testing import new_framework, register_filter_plugin

CASES = [
    ("no host specified", "", "node", None),
    ("host matches", "foo", "foo", None),
    ("host doesn't match", "bar", "foo", Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON, plugin="NodeName")),
]


@pytest.mark.parametrize("name,pod_node,node,want", CASES, ids=[c[0] for c in CASES])
def test_node_name(name, pod_node, node, want):  # type: ignore[no-untyped-def]
    fw = new_framework([register_filter_plugin("NodeName")], [make_node(node)])
    assert fw.filter(make_pod(spec_extra={"nodeName": pod_node} if pod_node else None)) == {node: want}
