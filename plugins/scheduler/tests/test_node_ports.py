"""NodePorts, ported from upstream's node_ports_test.go tables (TestNodePorts,
TestPreFilterDisabled, Test_isSchedulableAfterAssignedPodDeleted, TestFits)."""

# upstream: pkg/scheduler/framework/plugins/nodeports/node_ports_test.go

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

from kubesim_scheduler.framework import Code, CycleState, HostPortInfo, PodInfo, QueueingHint, Status
from kubesim_scheduler.plugins.nodeports import ERR_REASON, fits_ports

FAIL = Status(Code.UNSCHEDULABLE, ERR_REASON)


def ports(*infos: str) -> list[dict[str, Any]]:
    out = []
    for info in infos:
        proto, ip, port = info.split("/")
        out.append({"hostIP": ip, "hostPort": int(port), "protocol": proto, "containerPort": int(port)})
    return out


def new_pod(node: str, *infos: str) -> dict[str, Any]:
    return make_pod(node=node, ports=ports(*infos))


def init_port_pod(sidecar: bool) -> dict[str, Any]:
    init = {"name": "init", "image": "", "ports": [{"containerPort": 8001, "hostPort": 8001, "protocol": "TCP"}]}
    if sidecar:
        init["restartPolicy"] = "Always"
    return make_pod(spec_extra={"initContainers": [init]})


CASES = [
    ("skip filter", make_pod(), [], Status(Code.SKIP), None),
    ("other port", new_pod("", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/9090"], None, None),
    ("same udp port", new_pod("", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/8080"], None, FAIL),
    ("same tcp port", new_pod("", "TCP/127.0.0.1/8080"), ["TCP/127.0.0.1/8080"], None, FAIL),
    ("different host ip", new_pod("", "TCP/127.0.0.1/8080"), ["TCP/127.0.0.2/8080"], None, None),
    ("different protocol", new_pod("", "UDP/127.0.0.1/8080"), ["TCP/127.0.0.1/8080"], None, None),
    ("second udp port conflict", new_pod("", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/8080"], None, FAIL),
    ("first tcp port conflict", new_pod("", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
     ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"], None, FAIL),
    ("first tcp port conflict due to 0.0.0.0 hostIP", new_pod("", "TCP/0.0.0.0/8001"), ["TCP/127.0.0.1/8001"], None, FAIL),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", new_pod("", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
     ["TCP/127.0.0.1/8001"], None, FAIL),
    ("second tcp port conflict to 0.0.0.0 hostIP", new_pod("", "TCP/127.0.0.1/8001"), ["TCP/0.0.0.0/8001"], None, FAIL),
    ("second different protocol", new_pod("", "UDP/127.0.0.1/8001"), ["TCP/0.0.0.0/8001"], None, None),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", new_pod("", "UDP/127.0.0.1/8001"), ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"], None, FAIL),
    ("non-sidecar initContainer using hostPort", init_port_pod(False), ["TCP/0.0.0.0/8001"], Status(Code.SKIP), None),
    ("TCP hostPort conflict from sidecar initContainer", init_port_pod(True), ["TCP/0.0.0.0/8001"], None, FAIL),
]


@pytest.mark.parametrize("name,pod,existing,want_pre_filter,want_filter", CASES, ids=[c[0] for c in CASES])
def test_node_ports(name, pod, existing, want_pre_filter, want_filter):  # type: ignore[no-untyped-def]
    pods = [new_pod("m1", *existing)] if existing else []
    h = PluginHarness("NodePorts", None, [make_node("m1")], pods)
    pl = h.fw.plugin("NodePorts")
    pi = PodInfo(pod)
    state = CycleState(pi)
    _res, st = pl.pre_filter(state, pod, None)  # type: ignore[union-attr]
    assert st == want_pre_filter
    if st is not None and st.is_skip():
        return
    row = h.table.name_to_row["m1"]
    assert pl.filter_batch(state, pi, np.array([row])).status(0, row) == want_filter  # type: ignore[union-attr]


def test_pre_filter_disabled() -> None:
    h = PluginHarness("NodePorts", None, [make_node("m1")])
    pl = h.fw.plugin("NodePorts")
    pod = make_pod()
    pi = PodInfo(pod)
    row = h.table.name_to_row["m1"]
    st = pl.filter_batch(CycleState(pi), pi, np.array([row])).status(0, row)  # type: ignore[union-attr]
    assert st is not None and st.code == Code.ERROR


POD_WITH_HOST_PORT = make_pod(ports=[{"hostPort": 8080, "containerPort": 8080}])
HINTS = [
    ("skip-queue-on-unscheduled", make_pod(), QueueingHint.QUEUE_SKIP),
    ("skip-queue-on-non-hostport", make_pod(node="fake-node"), QueueingHint.QUEUE_SKIP),
    ("skip-queue-on-unrelated-hostport", make_pod(node="fake-node", ports=[{"hostPort": 8081, "containerPort": 8081}]), QueueingHint.QUEUE_SKIP),
    ("queue-on-released-hostport", make_pod(node="fake-node", ports=[{"hostPort": 8080, "containerPort": 8080}]), QueueingHint.QUEUE),
]


@pytest.mark.parametrize("name,old,want", HINTS, ids=[c[0] for c in HINTS])
def test_is_schedulable_after_assigned_pod_deleted(name, old, want):  # type: ignore[no-untyped-def]
    pl = PluginHarness("NodePorts").fw.plugin("NodePorts")
    assert pl._after_pod_deleted(POD_WITH_HOST_PORT, old, None) == want  # type: ignore[union-attr]


FITS = [
    ("non-conflicting ports", ["TCP/127.0.0.1/80"], ["TCP/127.0.0.1/9090"], True),
    ("multiple non-conflicting ports", ["TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"],
     ["TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"], True),
    ("same ports on different protocols", ["TCP/127.0.0.1/80"], ["UDP/127.0.0.1/80"], True),
    ("conflicting ports", ["TCP/127.0.0.1/80"], ["TCP/127.0.0.1/80"], False),
    ("multiple ports, some conflicting", ["TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"],
     ["TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"], False),
]


@pytest.mark.parametrize("desc,want_ports,existing,expect", FITS, ids=[c[0] for c in FITS])
def test_fits(desc, want_ports, existing, expect):  # type: ignore[no-untyped-def]
    used = HostPortInfo()
    for ip, proto, port in PodInfo(new_pod("p", *existing)).host_ports:
        used.add(ip, proto, port)
    assert fits_ports(PodInfo(new_pod("p", *want_ports)).host_ports, used) is expect
