"""examples/imperator end to end: scheduler + kubelet + ReplicaSet/Deployment + StatefulSet + Imperator.

The scenario runs through the installed `kubesim` command twice, with the scheduler's default
profile and with examples/imperator/bin-packing.yaml (NodeResourcesFit MostAllocated).

The Machine's status is written through the status subresource, which the engine's timeline
leaves out; the Machine controller records each status write that changed something as its
own `patch` event (see kubesim_imperator_nodepool.status_events). The usage at the end of a
step is the last such event up to that step; the exported cluster gives the final one, which
is checked against a recount of the exported pods.

The expected usage, placements and pending pods are derived from the scenario file and the
rules of Imperator (a guest that cannot be scheduled releases one reservation pod; a released
pod is gone after its 30 s grace period, i.e. three 10 s steps later; a guest is refused when
no reservation is left), not copied from a run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubesim.api.pod_ref import expand_pod_refs
from kubesim.cluster import parse_quantity
from kubesim.testing import KubesimRun, run_kubesim

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "imperator"
SCENARIO = EXAMPLE / "scenario.yaml"
BIN_PACKING = EXAMPLE / "bin-packing.yaml"
PLUGINS = ("scheduler", "kubelet", "replicaset", "statefulset", "imperator-machine", "imperator-nodepool",
           "pod-injector")
GROUP_KEY, TYPE_KEY, ROLE_KEY = ("imperator.tenzen-y.io/machine-group", "imperator.tenzen-y.io/machine-type",
                                 "imperator.tenzen-y.io/pod-role")
NODE_POOL_KEY = "imperator.tenzen-y.io/node-pool"
STEP_SECONDS = 10  # kubesim run's default --step-duration
GRACE_SECONDS = 30  # the reservation pods' terminationGracePeriodSeconds (the API server's default)
LAG = math.ceil(GRACE_SECONDS / STEP_SECONDS)  # steps from a reservation's release to its pod being gone

Run = tuple[KubesimRun, bytes, dict[str, Any], list[dict[str, Any]]]


def _run(workdir: Path, *args: str) -> Run:
    workdir.mkdir(parents=True, exist_ok=True)
    proc = run_kubesim("run", str(SCENARIO), "-o", "result.json", "--export-cluster", "state.json", *args,
                       cwd=workdir, plugins=PLUGINS, drop_env=("IMPERATOR_",), timeout=600)
    raw = (workdir / "result.json").read_bytes() if (workdir / "result.json").exists() else b""
    return proc, raw, expand_pod_refs(json.loads(raw)) if raw else {}, proc.exported


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    base = tmp_path_factory.mktemp("imperator")
    return {"default": _run(base / "default"), "again": _run(base / "again"),
            "bin-packing": _run(base / "bin-packing", "--scheduler-config", str(BIN_PACKING))}


@pytest.fixture(scope="module", params=["default", "bin-packing"])
def run(request: pytest.FixtureRequest, runs: dict[str, Run]) -> tuple[str, Run]:
    proc, _, result, _ = runs[request.param]
    assert proc.returncode == 0, proc.stderr
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    return request.param, runs[request.param]


# --- the scenario, read back ---------------------------------------------------------------

OPS: list[dict[str, Any]] = yaml.safe_load(SCENARIO.read_text())["spec"]["operations"]


def _op(op_id: str) -> dict[str, Any]:
    return next(op for op in OPS if op.get("id") == op_id)


def step_of(op_id: str) -> int:
    return int(_op(op_id)["step"])


MACHINE = _op("machine")["createOperation"]["object"]
MAXIMUM = {mt["name"]: mt["available"] for mt in MACHINE["spec"]["machineTypes"]}
TYPE_SPEC = {mt["name"]: mt["spec"] for mt in MACHINE["spec"]["machineTypes"]}
POOL = {np["name"]: np for np in MACHINE["spec"]["nodePool"]}
NODES = {op["createOperation"]["object"]["metadata"]["name"]: op["createOperation"]["object"] for op in OPS
         if "createOperation" in op and op["createOperation"]["object"]["kind"] == "Node"}
NOT_READY_NODE = _op("small-1-not-ready")["patchOperation"]["objectMeta"]["name"]
LAST_STEP = step_of("done")


def _type_of_pool(node: str) -> str:
    return str(POOL[node]["machineType"][0]["name"])


def ready_nodes(machine_type: str, step: int) -> list[str]:
    """Nodes of the machine type that are in a ready pool and not tainted not-ready at `step`."""
    return [n for n, np in POOL.items() if _type_of_pool(n) == machine_type and np["mode"] == "ready"
            and not (n == NOT_READY_NODE and step >= step_of("small-1-not-ready"))]


def reserved_cpu(node: str) -> Any:
    """CPU the reservation pods hold on a node before any guest comes: ready pool nodes are filled.

    The example is sized so that every machine type's ready nodes hold exactly its `available`
    reservation pods (a reservation pod that cannot be scheduled would make upstream's
    StatefulSet flap: see the plugin's README).
    """
    machine_type = _type_of_pool(node)
    cpu = parse_quantity(TYPE_SPEC[machine_type]["cpu"])
    slots = {n: int(parse_quantity(NODES[n]["status"]["allocatable"]["cpu"]) // cpu)
             for n in ready_nodes(machine_type, 0)}
    assert sum(slots.values()) == MAXIMUM[machine_type], machine_type
    return slots.get(node, 0) * cpu


def guest_creations() -> list[tuple[int, str, str]]:
    """(step, machine type, owner) of every guest pod the scenario asks for, in order."""
    wanted: list[tuple[int, str, str]] = []
    replicas: dict[str, int] = {}
    types: dict[str, str] = {}
    for op in sorted(OPS, key=lambda o: o["step"]):
        if "createOperation" in op and op["createOperation"]["object"]["kind"] == "Deployment":
            obj = op["createOperation"]["object"]
            name = obj["metadata"]["name"]
            types[name] = obj["spec"]["template"]["metadata"]["labels"][TYPE_KEY]
            replicas[name] = obj["spec"]["replicas"]
            wanted += [(op["step"], types[name], name)] * replicas[name]
        elif "patchOperation" in op and op["patchOperation"]["typeMeta"]["kind"] == "Deployment":
            name = op["patchOperation"]["objectMeta"]["name"]
            new = json.loads(op["patchOperation"]["patch"])["spec"]["replicas"]
            wanted += [(op["step"], types[name], name)] * (new - replicas[name])
            replicas[name] = new
    return wanted


def expected_guests() -> list[dict[str, Any]]:
    """Each wanted guest: admitted or refused (no reservation left), and the step it is bound at (or None).

    Admitting a guest releases one reservation pod at once; the guest is bound when that pod is
    gone (LAG steps later), provided a ready node of its machine type remains to take it.
    """
    admitted: dict[str, int] = {t: 0 for t in MAXIMUM}
    out = []
    for step, machine_type, owner in guest_creations():
        if admitted[machine_type] == MAXIMUM[machine_type]:
            out.append({"step": step, "type": machine_type, "owner": owner, "admitted": False, "bound": None})
            continue
        admitted[machine_type] += 1
        bound_at = step + LAG
        bound = bound_at if ready_nodes(machine_type, step) and bound_at <= LAST_STEP else None
        out.append({"step": step, "type": machine_type, "owner": owner, "admitted": True, "bound": bound})
    return out


def expected_usage(step: int) -> dict[str, dict[str, int]]:
    usage = {t: {"maximum": m, "reserved": m, "used": 0, "waiting": 0} for t, m in MAXIMUM.items()}
    for guest in expected_guests():
        if not guest["admitted"] or guest["step"] > step:
            continue
        u = usage[guest["type"]]
        u["reserved"] -= 1
        if guest["bound"] is not None and guest["bound"] <= step:
            u["used"] += 1
        else:
            u["waiting"] += 1
    return usage


# --- the run, read back ----------------------------------------------------------------------

def events(result: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    timeline = result["status"]["scenarioResult"]["timeline"]
    return [(int(step), e) for step in sorted(timeline, key=int) for e in timeline[step]]


def usage_by_step(result: dict[str, Any]) -> dict[int, dict[str, dict[str, int]]]:
    """The Machine's status.availableMachines at the end of every step, from its recorded status writes."""
    current: dict[str, dict[str, int]] = {}
    by_step: dict[int, dict[str, dict[str, int]]] = {}
    recorded = iter(events(result))
    pending = next(recorded, None)
    for step in range(LAST_STEP + 1):
        while pending is not None and pending[0] <= step:
            e = pending[1]
            if "patch" in e and e["patch"]["result"]["kind"] == "Machine" and e.get("actor") == "imperator-machine":
                status = e["patch"]["result"].get("status") or {}
                current = {am["name"]: am["usage"] for am in status.get("availableMachines") or ()}
            pending = next(recorded, None)
        by_step[step] = current
    return by_step


def pods_of(state: list[dict[str, Any]], namespace: str) -> list[dict[str, Any]]:
    return [o for o in state if o["kind"] == "Pod" and o["metadata"].get("namespace") == namespace]


def owner_name(pod: dict[str, Any]) -> str:
    """The Deployment a pod belongs to: its ReplicaSet's name without the template hash."""
    refs = pod["metadata"].get("ownerReferences") or []
    return str(refs[0]["name"]).rsplit("-", 1)[0] if refs else ""


def bound_steps(result: dict[str, Any]) -> dict[str, tuple[int, str]]:
    return {f"{e['podScheduled']['pod']['metadata']['namespace']}/{e['podScheduled']['pod']['metadata']['name']}":
            (step, e["podScheduled"]["boundTo"]) for step, e in events(result) if "podScheduled" in e}


# --- the tests -------------------------------------------------------------------------------

def test_runs_succeed_and_repeat_byte_for_byte(runs: dict[str, Run]) -> None:
    for name, (proc, _, result, _) in runs.items():
        assert proc.returncode == 0, (name, proc.stderr)
        assert result["status"]["phase"] == "Succeeded", (name, result["status"].get("message"))
    assert runs["default"][1] == runs["again"][1]


def test_machine_usage_at_every_step(run: tuple[str, Run]) -> None:
    _, (_, _, result, _) = run
    got = usage_by_step(result)
    for step in range(LAST_STEP + 1):
        assert got[step] == expected_usage(step), f"step {step}"


def test_final_usage_matches_the_exported_pods(run: tuple[str, Run]) -> None:
    """The last recorded status is what the exported Machine holds, and a recount of the pods agrees."""
    _, (_, _, result, state) = run
    machine = next(o for o in state if o["kind"] == "Machine")
    final = {am["name"]: am["usage"] for am in machine["status"]["availableMachines"]}
    assert final == usage_by_step(result)[LAST_STEP]
    injected = {o["metadata"]["name"] for o in state if o["kind"] == "Namespace"
                and (o["metadata"].get("labels") or {}).get("imperator.tenzen.io/inject-resource") == "enabled"}
    pods = [o for o in state if o["kind"] == "Pod" and not o["metadata"].get("deletionTimestamp")]
    for machine_type, usage in final.items():
        mine = [p for p in pods if (p["metadata"].get("labels") or {}).get(TYPE_KEY) == machine_type]
        reservations = [p for p in mine if p["metadata"]["labels"][ROLE_KEY] == "reservation"]
        guests = [p for p in mine if p["metadata"]["labels"][ROLE_KEY] == "guest"
                  and p["metadata"]["namespace"] in injected]
        assert usage["reserved"] == sum(1 for p in reservations if p["status"]["phase"] == "Running")
        assert usage["used"] == sum(1 for p in guests if p["spec"].get("nodeName"))
        assert usage["waiting"] == sum(1 for p in guests if not p["spec"].get("nodeName"))
        sts = next(o for o in state if o["kind"] == "StatefulSet" and o["metadata"]["name"].endswith(machine_type))
        assert sts["spec"]["replicas"] == usage["maximum"] - usage["used"] - usage["waiting"]


def test_guests_are_scheduled_onto_their_machine_type_when_a_reservation_has_gone(run: tuple[str, Run]) -> None:
    _, (_, _, result, state) = run
    bound = bound_steps(result)
    guests = [p for p in pods_of(state, "team-a")]
    for expected in [g for g in expected_guests() if g["admitted"]]:
        pods = [p for p in guests if owner_name(p) == expected["owner"]]
        placed = sorted(bound[f"team-a/{p['metadata']['name']}"] for p in pods if p["spec"].get("nodeName"))
        want = sorted(g["bound"] for g in expected_guests() if g["owner"] == expected["owner"] and g["admitted"]
                      and g["bound"] is not None)
        assert [step for step, _ in placed] == want, expected["owner"]
        for _, node in placed:
            assert _type_of_pool(node) == expected["type"] and node in ready_nodes(expected["type"], LAST_STEP)
    trainers = sorted(p["spec"]["nodeName"] for p in guests if owner_name(p) == "trainer")
    assert trainers == sorted(ready_nodes("compute-medium", LAST_STEP))  # one per node: each fills its node


def test_guests_get_the_machine_types_resources_affinity_and_tolerations(run: tuple[str, Run]) -> None:
    _, (_, _, _, state) = run
    trainer = next(p for p in pods_of(state, "team-a") if owner_name(p) == "trainer")
    containers = {c["name"]: c for c in trainer["spec"]["containers"]}
    spec = TYPE_SPEC["compute-medium"]
    resources = {"cpu": str(parse_quantity(spec["cpu"]).normalize()), "memory": spec["memory"],
                 spec["gpu"]["type"]: str(spec["gpu"]["num"])}
    assert containers["train"]["resources"] == {"requests": resources, "limits": resources}  # injecting-container
    assert "resources" not in containers["log-shipper"]
    terms = trainer["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [
        {"key": "imperator.tenzen-y.io/compute-medium", "operator": "In", "values": ["general-machine"]},
        {"key": NODE_POOL_KEY, "operator": "In", "values": ["ready"]},
        {"key": "nvidia.com/gpu.family", "operator": "In", "values": [spec["gpu"]["family"]]}]}]
    assert {(t["key"], t["value"]) for t in trainer["spec"]["tolerations"]} == {
        ("imperator.tenzen-y.io/compute-medium", "general-machine"), (NODE_POOL_KEY, "ready")}


def test_a_guest_outside_the_injected_namespace_is_left_alone(run: tuple[str, Run]) -> None:
    """team-b has no injection label: the pod keeps its own requests, and the Machine does not count it.

    It goes where the profile puts it among the nodes without imperator taints that have room:
    LeastAllocated to the emptiest (small-2, in maintenance, runs nothing), MostAllocated to the
    fullest (large-1, whose large reservation holds 16 of its 20 CPUs).
    """
    profile, (_, _, result, state) = run
    stray = next(p for p in pods_of(state, "team-b"))
    assert "affinity" not in stray["spec"] and "tolerations" not in stray["spec"]
    assert stray["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    request = parse_quantity(stray["spec"]["containers"][0]["resources"]["requests"]["cpu"])
    candidates = {}
    for name, node in NODES.items():
        allocatable = parse_quantity(node["status"]["allocatable"]["cpu"])
        held = reserved_cpu(name)
        if not POOL[name].get("taint") and allocatable - held >= request:
            candidates[name] = held / allocatable
    pick = min if profile == "default" else max
    want = pick(sorted(candidates), key=lambda n: candidates[n])
    assert bound_steps(result)["team-b/stray"] == (step_of("stray"), want)


def test_pods_that_stayed_pending_and_why(run: tuple[str, Run]) -> None:
    _, (_, _, result, state) = run
    refused = [g for g in expected_guests() if not g["admitted"]]
    never = [g for g in expected_guests() if g["admitted"] and g["bound"] is None]
    assert [(g["owner"], g["type"]) for g in refused] == [("trainer", "compute-medium")]
    assert [(g["owner"], g["type"]) for g in never] == [("web", "compute-small")]

    # the refused trainer replica was never created: the ReplicaSet reports the webhook's denial
    rs = next(o for o in state if o["kind"] == "ReplicaSet" and o["metadata"]["name"].startswith("trainer-"))
    failure = next(c for c in rs["status"]["conditions"] if c["type"] == "ReplicaFailure")
    assert failure["reason"] == "FailedCreate"
    assert failure["message"] == ('admission webhook "mutator.pod.imperator.tenzen-y.io" denied the request: '
                                  "name: <>, namespace: <team-a>; there is no <compute-medium> left")
    assert len([p for p in pods_of(state, "team-a") if owner_name(p) == "trainer"]) == 2

    # web waits: its only ready compute-small node turned not-ready, the other is in maintenance
    web = next(p for p in pods_of(state, "team-a") if owner_name(p) == "web")
    assert not web["spec"].get("nodeName")
    scheduled = next(c for c in web["status"]["conditions"] if c["type"] == "PodScheduled")
    assert (scheduled["status"], scheduled["reason"]) == ("False", "Unschedulable")
    attempts = [e["podUnscheduled"] for _, e in events(result) if "podUnscheduled" in e
                and e["podUnscheduled"]["pod"]["metadata"]["name"] == web["metadata"]["name"]]
    assert attempts
    message = attempts[-1]["scheduleResult"][-1]["message"]
    assert "node(s) had untolerated taint {node.kubernetes.io/not-ready: }" in message
    assert "didn't match Pod's node affinity/selector" in message

    # while their reservation pod terminated, the admitted guests waited for room
    for guest in [g for g in expected_guests() if g["bound"] is not None]:
        waits = [step for step, e in events(result) if "podUnscheduled" in e
                 and owner_name(e["podUnscheduled"]["pod"]) == guest["owner"] and step == guest["step"]]
        assert waits, guest
    first = next(e["podUnscheduled"] for step, e in events(result) if "podUnscheduled" in e
                 and owner_name(e["podUnscheduled"]["pod"]) == "trainer")
    assert "Insufficient nvidia.com/gpu" in first["scheduleResult"][-1]["message"]


def test_node_pool_follows_maintenance_taints_and_the_not_ready_node(run: tuple[str, Run]) -> None:
    _, (_, _, result, state) = run
    nodes = {o["metadata"]["name"]: o for o in state if o["kind"] == "Node"}
    for name, np in POOL.items():
        labels = nodes[name]["metadata"]["labels"]
        want = "maintenance" if np["mode"] == "maintenance" else "not-ready" if name == NOT_READY_NODE else "ready"
        assert labels[NODE_POOL_KEY] == want, name
        assert labels[f"imperator.tenzen-y.io/{_type_of_pool(name)}"] == "general-machine"
        taints = {t["key"]: t["value"] for t in (nodes[name].get("spec") or {}).get("taints") or () if "value" in t}
        if np.get("taint"):
            assert taints == {NODE_POOL_KEY: want, f"imperator.tenzen-y.io/{_type_of_pool(name)}": "general-machine"}
        else:
            assert taints == {}
    conditions_by_step: dict[int, dict[str, str]] = {}
    for step, e in events(result):
        if "patch" in e and e["patch"]["result"]["kind"] == "MachineNodePool" and e.get("actor") == "imperator-nodepool":
            status = e["patch"]["result"].get("status") or {}
            if "nodePool" in status:
                conditions_by_step[step] = {c["name"]: c.get("condition", "") for c in status["nodePool"]}
    turned = step_of("small-1-not-ready")
    assert conditions_by_step[0] == {n: "Maintenance" if np["mode"] == "maintenance" else "Healthy"
                                     for n, np in POOL.items()}
    assert conditions_by_step[turned][NOT_READY_NODE] == "Unhealthy"
    assert sorted(conditions_by_step) == [0, turned]
