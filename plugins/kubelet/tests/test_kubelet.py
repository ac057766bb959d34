"""The kubelet controller: node status and pod state transitions over simulated time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from kubelet_harness import Sim, conditions, node, pod
from kubesim.clock import DEFAULT_EPOCH, format_time
from kubesim.controllers import GRACEFUL_POD_DELETION
from kubesim_kubelet import USAGE_ANNOTATION, KubeletController, PodGCController, pod_settled

T0 = format_time(DEFAULT_EPOCH)


def at(seconds: float) -> str:
    return format_time(DEFAULT_EPOCH + timedelta(seconds=seconds))


@pytest.fixture
def sim():
    s = Sim(KubeletController, PodGCController)
    yield s
    s.close()


# --- nodes -----------------------------------------------------------------------------


def test_a_new_node_gets_the_kubelets_standard_status(sim):
    sim.create(node("n1"))
    sim.settle()
    n = sim.get("v1", "Node", "n1")
    assert conditions(n) == {
        "Ready": ("True", "KubeletReady"),
        "MemoryPressure": ("False", "KubeletHasSufficientMemory"),
        "DiskPressure": ("False", "KubeletHasNoDiskPressure"),
        "PIDPressure": ("False", "KubeletHasSufficientPID"),
        "NetworkUnavailable": ("False", "RouteCreated"),
    }
    ready = n["status"]["conditions"][0]
    assert ready["message"] == "kubelet is posting ready status"
    assert ready["lastHeartbeatTime"] == T0 and ready["lastTransitionTime"] == T0
    assert n["status"]["addresses"] == [{"type": "InternalIP", "address": "172.16.0.1"},
                                        {"type": "Hostname", "address": "n1"}]
    assert n["status"]["allocatable"] == {"cpu": "4", "memory": "8Gi", "pods": "110"}  # the scenario's


def test_a_declared_ready_condition_is_completed_and_given_addresses_kept(sim):
    sim.step(20)
    sim.create(node("n1", ready="True", ip="192.168.9.9"))
    sim.create(node("n2"))
    sim.settle()
    n1, n2 = sim.get("v1", "Node", "n1"), sim.get("v1", "Node", "n2")
    ready = next(c for c in n1["status"]["conditions"] if c["type"] == "Ready")
    assert ready == {"type": "Ready", "status": "True", "reason": "KubeletReady",
                     "message": "kubelet is posting ready status", "lastHeartbeatTime": at(20),
                     "lastTransitionTime": at(20)}
    assert n1["status"]["addresses"][0] == {"type": "InternalIP", "address": "192.168.9.9"}
    assert n2["status"]["addresses"][0] == {"type": "InternalIP", "address": "172.16.0.1"}


@pytest.mark.parametrize("state", ["False", "Unknown"])
def test_a_node_declared_not_ready_is_left_alone_and_its_pods_do_not_start(sim, state):
    sim.create(node("n1", ready=state))
    sim.create(pod("p", "n1"))
    sim.settle()
    assert sim.get("v1", "Node", "n1")["status"]["conditions"] == [{"type": "Ready", "status": state}]
    assert sim.get("v1", "Pod", "p")["status"]["phase"] == "Pending"
    # the node comes back: its kubelet starts the pod
    sim.cluster.patch("v1", "Node", "n1", {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
                      "application/merge-patch+json", subresource="status")
    sim.settle()
    assert sim.get("v1", "Pod", "p")["status"]["phase"] == "Running"


# --- pods ------------------------------------------------------------------------------


def test_a_bound_pod_becomes_running_and_ready(sim):
    sim.create(node("n1"))
    sim.create(pod("p", "n1", initContainers=[
        {"name": "init", "image": "busybox"},
        {"name": "sidecar", "image": "envoy:1.30", "restartPolicy": "Always"},
    ]))
    sim.settle()
    p = sim.get("v1", "Pod", "p")
    status = p["status"]
    assert status["phase"] == "Running"
    assert status["startTime"] == T0
    assert [c["type"] for c in status["conditions"]] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled",
    ]
    assert all(c["status"] == "True" for c in status["conditions"])
    assert status["hostIP"] == "172.16.0.1" and status["hostIPs"] == [{"ip": "172.16.0.1"}]
    assert status["podIP"] == "10.0.0.1" and status["podIPs"] == [{"ip": "10.0.0.1"}]
    (main,) = status["containerStatuses"]
    assert main["ready"] is True and main["started"] is True and main["restartCount"] == 0
    assert main["state"] == {"running": {"startedAt": T0}}
    assert main["image"] == "nginx:1.27"
    assert main["imageID"].startswith("docker.io/library/nginx@sha256:")
    assert main["containerID"].startswith("containerd://") and len(main["containerID"]) == 13 + 64
    init, sidecar = status["initContainerStatuses"]
    assert init["state"]["terminated"]["reason"] == "Completed" and init["state"]["terminated"]["exitCode"] == 0
    assert init["ready"] is True
    assert sidecar["state"] == {"running": {"startedAt": T0}} and sidecar["started"] is True
    assert "qosClass" in status  # kept from the API server


def test_scheduled_pods_keep_their_pod_scheduled_condition(sim):
    sim.create(node("n1"))
    sim.create(pod("p"))
    sim.settle()
    assert sim.get("v1", "Pod", "p")["status"]["phase"] == "Pending"  # unbound: not the kubelet's business
    sim.step(10)
    sim.cluster.bind("default", "p", "n1")
    sim.settle()
    assert conditions(sim.get("v1", "Pod", "p"))["PodScheduled"] == ("True", None)
    assert sim.get("v1", "Pod", "p")["status"]["startTime"] == at(10)


def test_addresses_are_deterministic_and_host_network_pods_use_the_node_ip(sim):
    sim.create(node("n1"))
    sim.create(node("n2"))
    sim.create(pod("a", "n2"))
    sim.create(pod("b", "n1"))
    sim.create(pod("h", "n2", hostNetwork=True))
    sim.settle()
    ips = {name: sim.get("v1", "Pod", name)["status"]["podIP"] for name in ("a", "b", "h")}
    assert ips == {"a": "10.0.0.1", "b": "10.0.0.2", "h": "172.16.0.2"}


def test_a_sim_spec_pod_moves_through_its_phases_and_succeeds(sim):
    spec = "- {seconds: 5, resourceUsage: {cpu: 1}}\n- {seconds: 10, resourceUsage: {cpu: 2, memory: 1Gi}}"
    sim.create(node("n1"))
    sim.create(pod("job", "n1", sim_spec=spec))
    sim.settle()
    p = sim.get("v1", "Pod", "job")
    assert p["status"]["phase"] == "Running"
    assert p["metadata"]["annotations"][USAGE_ANNOTATION] == '{"cpu":"1"}'
    sim.step(10)  # t=10: the second phase
    p = sim.get("v1", "Pod", "job")
    assert p["status"]["phase"] == "Running"
    assert p["metadata"]["annotations"][USAGE_ANNOTATION] == '{"cpu":"2","memory":"1Gi"}'
    sim.step(10)  # t=20: finished at t=15
    p = sim.get("v1", "Pod", "job")
    status = p["status"]
    assert status["phase"] == "Succeeded"
    assert p["metadata"]["annotations"][USAGE_ANNOTATION] == "{}"
    assert conditions(p)["Ready"] == ("False", "PodCompleted")
    assert conditions(p)["ContainersReady"] == ("False", "PodCompleted")
    assert conditions(p)["Initialized"] == ("True", "PodCompleted")
    (c,) = status["containerStatuses"]
    assert c["ready"] is False and c["started"] is False
    assert c["state"]["terminated"] == {
        "containerID": c["containerID"], "exitCode": 0, "finishedAt": at(15), "reason": "Completed",
        "startedAt": T0,
    }
    # the usage annotation changes are recorded, status writes are not
    assert [e for e in sim.timeline_writes() if e[1] == "kubelet"] == [
        (0, "kubelet", "patch", "Pod", "job"), (1, "kubelet", "patch", "Pod", "job"),
        (2, "kubelet", "patch", "Pod", "job"),
    ]


def test_a_sim_spec_of_zero_seconds_runs_until_time_passes(sim):
    """Like k8s-cluster-simulator, a pod ends at the next tick, never in the instant it starts
    (a ReplicaSet would otherwise replace it within one step forever)."""
    sim.create(node("n1"))
    sim.create(pod("quick", "n1", sim_spec="- {seconds: 0, resourceUsage: {cpu: 1}}"))
    sim.settle()
    assert sim.get("v1", "Pod", "quick")["status"]["phase"] == "Running"
    sim.clock.advance(timedelta(seconds=10))
    sim.settle()
    status = sim.get("v1", "Pod", "quick")["status"]
    assert status["phase"] == "Succeeded"
    assert status["containerStatuses"][0]["state"]["terminated"]["finishedAt"] == status["startTime"]


@pytest.mark.parametrize(("spec", "problem"), [
    ("- seconds: -3", "[0].seconds: must be a non-negative number of seconds, not -3"),
    ("seconds: 3", "must be a YAML list of phases, not a mapping"),
    ("- {seconds: 3, resourceUsage: {memory: 12XB}}", "[0].resourceUsage[memory]: invalid quantity '12XB'"),
])
def test_an_invalid_sim_spec_fails_the_pod_with_a_clear_message(sim, spec, problem, caplog):
    sim.create(node("n1"))
    sim.create(pod("bad", "n1", sim_spec=spec))
    sim.settle()
    status = sim.get("v1", "Pod", "bad")["status"]
    assert status["phase"] == "Failed"
    assert status["reason"] == "InvalidSimSpec"
    assert status["message"].startswith(f'invalid annotation "simSpec": {problem}')
    assert conditions(sim.get("v1", "Pod", "bad"))["Ready"] == ("False", "PodFailed")


# --- deletion ------------------------------------------------------------------------------


def test_a_deleted_pod_terminates_after_its_grace_period_in_simulated_time(sim):
    sim.create(node("n1"))
    sim.create(pod("p", "n1", grace=25))
    sim.settle()
    sim.step(10)
    sim.cluster.delete("v1", "Pod", "p", "default")
    sim.settle()
    p = sim.get("v1", "Pod", "p")
    assert p["metadata"]["deletionTimestamp"] == at(35)
    assert p["metadata"]["deletionGracePeriodSeconds"] == 25
    sim.step(10)  # t=20
    assert sim.exists("v1", "Pod", "p")
    sim.step(10)  # t=30
    assert sim.exists("v1", "Pod", "p")
    sim.step(10)  # t=40 >= 35
    assert not sim.exists("v1", "Pod", "p")
    assert (4, "kubelet", "delete", "Pod", "p") in sim.timeline_writes()


def test_the_delete_requests_grace_period_wins_and_zero_deletes_at_once(sim):
    sim.create(node("n1"))
    sim.create(pod("short", "n1"))
    sim.create(pod("now", "n1"))
    sim.settle()
    sim.cluster.delete("v1", "Pod", "short", "default", grace_period_seconds=5)
    sim.cluster.delete("v1", "Pod", "now", "default", grace_period_seconds=0)
    sim.settle()
    assert not sim.exists("v1", "Pod", "now")
    assert sim.exists("v1", "Pod", "short")
    sim.step(5)
    assert not sim.exists("v1", "Pod", "short")


def test_a_pod_with_finalizers_is_finished_but_kept_until_they_are_removed(sim):
    sim.create(node("n1"))
    p = pod("p", "n1", grace=1)
    p["metadata"]["finalizers"] = ["example.com/keep"]
    sim.create(p)
    sim.settle()
    sim.cluster.delete("v1", "Pod", "p", "default")
    sim.step(1)
    kept = sim.get("v1", "Pod", "p")
    assert kept["metadata"]["deletionGracePeriodSeconds"] == 0


def test_the_kubelet_provides_graceful_pod_deletion():
    """Declared, not flipped: a runtime whose controllers include the kubelet deletes pods gracefully."""
    assert GRACEFUL_POD_DELETION in KubeletController.provides
    with_kubelet, without = Sim(KubeletController), Sim()
    assert with_kubelet.runtime.capabilities.graceful_pod_deletion is True
    assert with_kubelet.cluster.graceful_pod_deletion is True
    assert without.cluster.graceful_pod_deletion is False
    with_kubelet.close()
    assert with_kubelet.cluster.graceful_pod_deletion is True  # for the whole scenario


def test_unbound_pods_are_deleted_at_once(sim):
    sim.create(pod("p"))
    sim.settle()
    sim.cluster.delete("v1", "Pod", "p", "default")
    assert not sim.exists("v1", "Pod", "p")


# --- the waiter's condition ------------------------------------------------------------------


def test_pod_settled_describes_the_expected_state_at_a_time():
    ready_node = {"metadata": {"name": "n1"}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    down_node = {"metadata": {"name": "n1"}, "status": {"conditions": [{"type": "Ready", "status": "False"}]}}
    now = DEFAULT_EPOCH + timedelta(seconds=20)
    pending = {"metadata": {"name": "p"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Pending"}}
    assert not pod_settled(pending, ready_node, now)
    assert pod_settled(pending, down_node, now)
    assert pod_settled(pending, None, now)
    assert pod_settled({"metadata": {"name": "p"}, "spec": {}, "status": {"phase": "Pending"}}, ready_node, now)
    terminating = {"metadata": {"name": "p", "deletionTimestamp": at(30), "deletionGracePeriodSeconds": 30},
                   "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}
    assert pod_settled(terminating, ready_node, now)
    terminating["metadata"]["deletionTimestamp"] = at(20)
    assert not pod_settled(terminating, ready_node, now)
    running = {"metadata": {"name": "p", "annotations": {"simSpec": "- {seconds: 30, resourceUsage: {cpu: 1}}",
                                                        USAGE_ANNOTATION: '{"cpu":"1"}'}},
               "spec": {"nodeName": "n1"}, "status": {"phase": "Running", "startTime": T0}}
    assert pod_settled(running, ready_node, now)
    assert not pod_settled(running, ready_node, now + timedelta(seconds=10))  # should have succeeded by then


def test_the_waiter_waits_for_a_pod_whose_time_has_come(sim):
    sim.create(node("n1"))
    sim.create(pod("job", "n1", sim_spec="- {seconds: 5, resourceUsage: {cpu: 1}}"))
    sim.settle()
    kubelet = sim.controllers[0]
    sim.clock.advance(timedelta(seconds=10))
    assert not kubelet.waiter().satisfied()  # the pod should have succeeded by now
    sim.settle()
    assert kubelet.waiter().satisfied()
    assert sim.get("v1", "Pod", "job")["status"]["phase"] == "Succeeded"
