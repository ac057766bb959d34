"""Permit plugins returning Wait: waiting pods held assumed until allowed, rejected or timed out."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

from kubesim_scheduler import Scheduler, in_tree_registry
from kubesim_scheduler.framework import Code, ProfileConfig, pod_key
from kubesim_scheduler.scheduler import default_profile
from scheduler_harness import make_node, make_pod

PLUGIN_DIR = Path(__file__).parent / "data" / "permit_wait"


def _load_gang() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kubesim_permit_gang", PLUGIN_DIR / "kubesim_permit_gang.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GANG = _load_gang().Gang


class Clock:
    """A simulated clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make_scheduler(clock: Clock, *, timeout: float = 30.0, cpus: tuple[str, ...] = ("4",)) -> Scheduler:
    reg = {**in_tree_registry(), GANG.name: GANG}
    base = default_profile(reg)
    plugins = dict(base.plugins)
    plugins["reserve"] = (*plugins.get("reserve", ()), GANG.name)
    plugins["permit"] = (GANG.name,)
    profile = ProfileConfig(plugins=plugins, weights=base.weights,
                            plugin_args={**base.plugin_args, GANG.name: {"timeoutSeconds": timeout}})
    s = Scheduler([profile], registry=reg, now=clock)
    for i, cpu in enumerate(cpus):
        s.add_node(make_node(f"n{i}", {"cpu": cpu, "memory": "8Gi", "pods": "110"}))
    return s


def gang_pod(name: str, size: int, cpu: str = "1") -> dict[str, Any]:
    return make_pod(name, reqs=[{"cpu": cpu}], labels={"gang": "g", "gang-size": str(size)})


def gang_plugin(s: Scheduler) -> Any:
    return s.frameworks["default-scheduler"].plugin(GANG.name)


def requested_cpu(s: Scheduler, node: str) -> int:
    info = s.handle.get_node_info(node)
    assert info is not None
    return int(info.requested.milli_cpu)


def test_waiting_pods_bind_when_the_last_one_allows_them() -> None:
    s = make_scheduler(Clock())
    pods = [gang_pod(f"p{i}", 3) for i in range(3)]
    for p in pods:
        s.add_pod(p)
    first = s.schedule_one()
    assert first is not None and first.pod_name == "default/p0"
    assert not first.bound and first.status is not None and first.status.code == Code.WAIT
    assert s.is_waiting(pod_key(pods[0])) and s.bindings == []
    wp = s.handle.get_waiting_pod(pods[0]["metadata"]["uid"])
    assert wp is not None and wp.get_pending_plugins() == ["Gang"]
    second = s.schedule_one()
    assert second is not None and s.is_waiting(pod_key(pods[1]))
    seen: list[str] = []
    s.handle.iterate_over_waiting_pods(lambda w: seen.append(w.get_pod()["metadata"]["name"]))
    assert seen == ["p0", "p1"]
    assert not s.waiting_resolved()
    # p2 completes the gang: it binds at once and allows the two waiting pods
    third = s.schedule_one()
    assert third is not None and third.bound and third.pod_name == "default/p2"
    assert s.waiting_resolved()
    # the allowed pods bind on the next calls, in the order they started waiting, with
    # their original attempts
    assert s.schedule_one() is first and first.bound and first.status is None and first.node == "n0"
    assert s.schedule_one() is second and second.bound
    assert [k for k, _n in s.bindings] == [pod_key(pods[2]), pod_key(pods[0]), pod_key(pods[1])]
    assert s.schedule_one() is None
    assert not s.is_waiting(pod_key(pods[0])) and s.handle.get_waiting_pod(pods[0]["metadata"]["uid"]) is None
    assert gang_plugin(s).unreserved == []


def test_a_waiting_pod_holds_its_resources() -> None:
    s = make_scheduler(Clock(), cpus=("2",))
    pod = gang_pod("g0", 2, cpu="1500m")
    s.add_pod(pod)
    a = s.schedule_one()
    assert a is not None and s.is_waiting(pod_key(pod))
    assert requested_cpu(s, "n0") == 1500
    s.add_pod(make_pod("other", reqs=[{"cpu": "1"}]))
    b = s.schedule_one()
    assert b is not None and not b.bound
    assert "Insufficient cpu" in b.message()


def test_rejecting_a_waiting_pod_unreserves_forgets_and_requeues_it() -> None:
    s = make_scheduler(Clock())
    pod = gang_pod("p0", 2)
    s.add_pod(pod)
    a = s.schedule_one()
    assert a is not None and requested_cpu(s, "n0") == 1000
    wp = s.handle.get_waiting_pod(pod["metadata"]["uid"])
    assert wp is not None
    wp.reject("Gang", "gang g broken")
    wp.allow("Gang")  # a later verdict changes nothing
    assert s.waiting_resolved()
    again = s.schedule_one()
    assert again is a and not a.bound and a.node is None
    assert a.status is not None and a.status.code == Code.UNSCHEDULABLE
    assert a.message() == "0/1 nodes are available: 1 gang g broken."
    assert a.fit_error is not None and a.fit_error.diagnosis.unschedulable_plugins == {"Gang"}
    assert gang_plugin(s).unreserved == ["p0"]
    assert requested_cpu(s, "n0") == 0 and s.table.pod_info(pod_key(pod)) is None
    assert not s.is_waiting(pod_key(pod)) and s.queue.contains(pod_key(pod))
    assert s.bindings == []


def test_a_waiting_pod_times_out_in_simulated_time() -> None:
    clock = Clock()
    s = make_scheduler(clock, timeout=10)
    pod = gang_pod("p0", 2)
    s.add_pod(pod)
    a = s.schedule_one()
    assert a is not None and s.is_waiting(pod_key(pod))
    clock.t = 9.5
    assert not s.waiting_resolved() and s.schedule_one() is None and s.is_waiting(pod_key(pod))
    clock.t = 10.0
    assert s.waiting_resolved()
    again = s.schedule_one()
    assert again is a and not a.bound
    assert a.message() == "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin Gang."
    assert gang_plugin(s).unreserved == ["p0"] and requested_cpu(s, "n0") == 0
    assert s.queue.contains(pod_key(pod))


def test_permit_timeouts_are_capped_at_fifteen_minutes() -> None:
    clock = Clock()
    s = make_scheduler(clock, timeout=3600)
    pod = gang_pod("p0", 2)
    s.add_pod(pod)
    assert s.schedule_one() is not None
    clock.t = 899.0
    assert s.schedule_one() is None and s.is_waiting(pod_key(pod))
    clock.t = 900.0
    a = s.schedule_one()
    assert a is not None and "rejected due to timeout after waiting 15m0s at plugin Gang" in a.message()


def test_deleting_a_waiting_pod_rejects_it_without_an_attempt() -> None:
    s = make_scheduler(Clock())
    pod = gang_pod("p0", 2)
    s.add_pod(pod)
    assert s.schedule_one() is not None
    s.remove_pod(pod)
    assert requested_cpu(s, "n0") == 0
    assert s.schedule_one() is None
    assert not s.is_waiting(pod_key(pod)) and gang_plugin(s).unreserved == ["p0"]
    assert not s.queue.contains(pod_key(pod))


def test_updating_a_waiting_pod_keeps_it_assumed() -> None:
    s = make_scheduler(Clock())
    pod = gang_pod("p0", 2)
    s.add_pod(pod)
    assert s.schedule_one() is not None
    changed = {**pod, "metadata": {**pod["metadata"], "annotations": {"a": "b"}}}
    s.update_pod(changed)
    assert s.is_waiting(pod_key(pod)) and s.pods[pod_key(pod)] is changed
    assert pod_key(pod) not in s.queue.active and s.schedule_one() is None
    assert requested_cpu(s, "n0") == 1000
