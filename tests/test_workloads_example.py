"""examples/workloads end to end: scheduler + kubelet + ReplicaSet/Deployment + StatefulSet.

The expected placement is derived from the scenario itself (node capacities, pod requests, the
zone spread constraint), not copied from a run: `spread_fill` models what maxSkew 1 with
DoNotSchedule allows, and the assertions compare the run against it.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubesim.api.pod_ref import expand_pod_refs
from kubesim.cluster import parse_quantity
from kubesim.testing import KubesimRun, run_kubesim

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "examples" / "workloads" / "scenario.yaml"
PLUGINS = ("scheduler", "kubelet", "replicaset", "statefulset")
ZONE = "topology.kubernetes.io/zone"


def _run(workdir: Path) -> tuple[KubesimRun, bytes, dict[str, Any], list[dict[str, Any]]]:
    workdir.mkdir(parents=True, exist_ok=True)
    proc = run_kubesim("run", str(SCENARIO), "-o", "result.json", "--export-cluster", "state.json",
                       cwd=workdir, plugins=PLUGINS, timeout=600)
    raw = (workdir / "result.json").read_bytes() if (workdir / "result.json").exists() else b""
    result = expand_pod_refs(json.loads(raw)) if raw else {}
    return proc, raw, result, proc.exported


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, bytes, dict[str, Any], list[dict[str, Any]]]]:
    base = tmp_path_factory.mktemp("workloads")
    return [_run(base / "first"), _run(base / "second")]


@pytest.fixture(scope="module")
def run(runs: list[Any]) -> tuple[Any, bytes, dict[str, Any], list[dict[str, Any]]]:
    proc, _, result, _ = runs[0]
    assert proc.returncode == 0, proc.stderr
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    return runs[0]


# --- the model -------------------------------------------------------------------------------

def _operations() -> list[dict[str, Any]]:
    return yaml.safe_load(SCENARIO.read_text())["spec"]["operations"]


def _objects(kind: str) -> list[dict[str, Any]]:
    return [op["createOperation"]["object"] for op in _operations()
            if "createOperation" in op and op["createOperation"]["object"]["kind"] == kind]


def _requests(template: dict[str, Any]) -> dict[str, Any]:
    return template["spec"]["containers"][0]["resources"]["requests"]


def _slots(node: dict[str, Any], requests: dict[str, Any]) -> int:
    """How many pods with `requests` fit on an empty node."""
    alloc = node["status"]["allocatable"]
    fits = [math.floor(parse_quantity(alloc[r]) / parse_quantity(q)) for r, q in requests.items()]
    return min([*fits, int(alloc["pods"])])


def spread_fill(counts: dict[str, int], capacity: dict[str, int], pods: int) -> dict[str, int]:
    """Place `pods` one by one under maxSkew 1 / DoNotSchedule over zones: a pod may only go to a
    zone holding the minimum count among all zones with eligible nodes, and only if it has room
    there; when no minimum zone has room, the remaining pods stay pending."""
    counts = dict(counts)
    for _ in range(pods):
        low = min(counts.values())
        room = sorted(z for z, c in counts.items() if c == low and c < capacity[z])
        if not room:
            break
        counts[room[0]] += 1
    return counts


class Model:
    """What the scenario's numbers imply."""

    def __init__(self) -> None:
        self.nodes = {n["metadata"]["name"]: n for n in _objects("Node")}
        self.zones = sorted({n["metadata"]["labels"][ZONE] for n in self.nodes.values()})
        [web] = _objects("Deployment")
        [db] = _objects("StatefulSet")
        self.web_requests = _requests(web["spec"]["template"])
        self.db_requests = _requests(db["spec"]["template"])
        self.db_replicas = db["spec"]["replicas"]
        self.db_zone = db["spec"]["template"]["spec"]["nodeSelector"][ZONE]
        self.replicas_before = web["spec"]["replicas"]
        patch = next(op["patchOperation"] for op in _operations() if "patchOperation" in op)
        self.replicas_after = json.loads(patch["patch"])["spec"]["replicas"]
        self.deleted = [op["deleteOperation"]["objectMeta"]["name"] for op in _operations() if "deleteOperation" in op]

    def zone_of(self, node: str) -> str:
        return str(self.nodes[node]["metadata"]["labels"][ZONE])

    def capacity(self, nodes: list[str]) -> dict[str, int]:
        """Web pods that fit per zone on `nodes`, less what the db pods take in their zone."""
        cap = Counter({z: 0 for z in self.zones})
        for name in nodes:
            cap[self.zone_of(name)] += _slots(self.nodes[name], self.web_requests)
        per_db = max(math.ceil(parse_quantity(q) / parse_quantity(self.web_requests[r]))
                     for r, q in self.db_requests.items())
        cap[self.db_zone] -= self.db_replicas * per_db
        return dict(cap)


@pytest.fixture(scope="module")
def model() -> Model:
    return Model()


# --- replaying the timeline ---------------------------------------------------------------------

def events(result: dict[str, Any]) -> list[dict[str, Any]]:
    timeline = result["status"]["scenarioResult"]["timeline"]
    return [e for major in sorted(timeline, key=int) for e in timeline[major]]


def _pod_name(e: dict[str, Any]) -> str | None:
    if "create" in e and e["create"]["result"]["kind"] == "Pod":
        return str(e["create"]["result"]["metadata"]["name"])
    if "delete" in e and e["delete"]["operation"]["typeMeta"]["kind"] == "Pod":
        return str(e["delete"]["operation"]["objectMeta"]["name"])
    for kind in ("podScheduled", "podUnscheduled"):
        if kind in e:
            return str(e[kind]["pod"]["metadata"]["name"])
    return None


def bound_after(result: dict[str, Any], major: int) -> dict[str, str]:
    """Pod -> node for the pods bound, and neither deleted nor terminating, at the end of MajorStep `major`."""
    bound: dict[str, str] = {}
    for e in events(result):
        if e["step"]["major"] > major:
            break
        name = _pod_name(e)
        if "podScheduled" in e and name:
            bound[name] = e["podScheduled"]["boundTo"]
        elif "delete" in e and name:
            bound.pop(name, None)
        elif "patch" in e and e["patch"]["result"]["kind"] == "Pod" and \
                e["patch"]["result"]["metadata"].get("deletionTimestamp"):
            bound.pop(e["patch"]["result"]["metadata"]["name"], None)  # graceful deletion began
    return bound


def web_zone_counts(model: Model, bound: dict[str, str], prefix: str) -> dict[str, int]:
    counts = Counter({z: 0 for z in model.zones})
    for pod, node in bound.items():
        if pod.startswith(prefix):
            counts[model.zone_of(node)] += 1
    return dict(counts)


def state_of(state: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in state if o["kind"] == kind}


def web_replicasets(state: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The web Deployment's ReplicaSets by revision."""
    return {r["metadata"]["annotations"]["deployment.kubernetes.io/revision"]: r
            for r in state_of(state, "ReplicaSet").values()}


# --- the tests ------------------------------------------------------------------------------

def test_runs_are_byte_identical(runs: list[Any]) -> None:
    (p1, raw1, _, _), (p2, raw2, _, _) = runs
    assert p1.returncode == 0 and p2.returncode == 0, p1.stderr + p2.stderr
    assert raw1 == raw2


def test_capacities_make_the_rollout_fit(model: Model) -> None:
    """The premise of the expected counts: every zone holds its share of old and new pods at once.

    During the update an old ReplicaSet pod is only ever placed under the same zone spread
    (at most replicas_after / 3 per zone) and the new ones take another replicas_after / 3.
    """
    share = math.ceil(model.replicas_after / len(model.zones))
    cap = model.capacity(list(model.nodes))
    assert all(c >= 2 * share for c in cap.values()), cap


def test_placement_per_zone_follows_the_spread_and_the_capacities(run: Any, model: Model) -> None:
    _, _, result, state = run
    all_nodes = list(model.nodes)
    revisions = web_replicasets(state)
    old_prefix, new_prefix = revisions["1"]["metadata"]["name"] + "-", revisions["2"]["metadata"]["name"] + "-"
    zero = {z: 0 for z in model.zones}
    # step 1: 60 replicas over three zones that all have room
    want1 = spread_fill(zero, model.capacity(all_nodes), model.replicas_before)
    assert want1 == {z: model.replicas_before // 3 for z in model.zones}
    assert web_zone_counts(model, bound_after(result, 1), old_prefix) == want1
    # step 2: the new ReplicaSet's pods spread among themselves (matchLabelKeys pod-template-hash)
    want2 = spread_fill(zero, model.capacity(all_nodes), model.replicas_after)
    assert want2 == {z: model.replicas_after // 3 for z in model.zones}
    assert web_zone_counts(model, bound_after(result, 2), new_prefix) == want2
    assert web_zone_counts(model, bound_after(result, 2), old_prefix) == zero
    # step 3: only one node of zone-c is left; whatever survived on it, the replacements can only go
    # to zone-c (the minimum), so zone-c fills that node and the rest stay pending
    left = [n for n in all_nodes if n not in model.deleted]
    cap3 = model.capacity(left)
    shrunk = {model.zone_of(n) for n in model.deleted}
    assert shrunk == {"zone-c"}
    finals = {tuple(sorted(spread_fill({**want2, "zone-c": k}, cap3, want2["zone-c"] - k).items()))
              for k in range(cap3["zone-c"] + 1)}
    assert len(finals) == 1  # independent of how many pods the surviving node already had
    want3 = dict(next(iter(finals)))
    assert want3 == {"zone-a": 30, "zone-b": 30, "zone-c": cap3["zone-c"]}
    final_bound = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in state_of(state, "Pod").values()
                   if p["spec"].get("nodeName")}
    assert web_zone_counts(model, final_bound, new_prefix) == want3
    assert web_zone_counts(model, bound_after(result, 4), new_prefix) == want3
    pending = [p for p in state_of(state, "Pod").values() if not p["spec"].get("nodeName")]
    assert len(pending) == model.replicas_after - sum(want3.values())
    assert all(p["metadata"]["name"].startswith(new_prefix) for p in pending)
    for p in pending:
        cond = next(c for c in p["status"]["conditions"] if c["type"] == "PodScheduled")
        assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")


def test_workload_status_fields(run: Any, model: Model) -> None:
    _, _, _, state = run
    placed = sum(1 for p in state_of(state, "Pod").values()
                 if p["spec"].get("nodeName") and p["metadata"]["labels"].get("app") == "web")
    pending = model.replicas_after - placed
    revisions = web_replicasets(state)
    assert sorted(revisions) == ["1", "2"]
    new, old = revisions["2"], revisions["1"]
    assert new["spec"]["replicas"] == model.replicas_after and old["spec"]["replicas"] == 0
    assert new["status"] == {"replicas": model.replicas_after, "fullyLabeledReplicas": model.replicas_after,
                             "readyReplicas": placed, "availableReplicas": placed,
                             "observedGeneration": new["metadata"]["generation"]}
    assert old["status"] == {"replicas": 0, "observedGeneration": old["metadata"]["generation"]}
    for rs in (new, old):
        assert rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == str(model.replicas_after)
    d = state_of(state, "Deployment")["web"]
    st = d["status"]
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert st["observedGeneration"] == d["metadata"]["generation"] == 2
    assert (st["replicas"], st["updatedReplicas"], st["readyReplicas"], st["availableReplicas"],
            st["unavailableReplicas"]) == (model.replicas_after, model.replicas_after, placed, placed, pending)
    conds = {c["type"]: (c["status"], c["reason"]) for c in st["conditions"]}
    # 76 available >= 90 - 22 (25% of 90 rounded down): still minimum availability
    assert conds["Available"] == ("True", "MinimumReplicasAvailable")
    sts = state_of(state, "StatefulSet")["db"]
    n = model.db_replicas
    assert sts["status"]["observedGeneration"] == sts["metadata"]["generation"]
    for field in ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"):
        assert sts["status"][field] == n, field
    db_pods = [p for p in state_of(state, "Pod").values() if p["metadata"]["labels"].get("app") == "db"]
    assert sorted(p["metadata"]["name"] for p in db_pods) == [f"db-{i}" for i in range(n)]
    assert {model.zone_of(p["spec"]["nodeName"]) for p in db_pods} == {model.db_zone}


def test_every_pod_is_in_the_timeline_with_its_minor_steps(run: Any, model: Model) -> None:
    _, _, result, state = run
    evs = events(result)
    created: dict[str, dict[str, int]] = {}
    scheduled: dict[str, list[dict[str, Any]]] = {}
    deleted: dict[str, dict[str, Any]] = {}
    last_scheduler_minor: dict[int, int] = {}
    for e in evs:
        name, major, minor = _pod_name(e), e["step"]["major"], e["step"]["minor"]
        if e.get("actor") == "scheduler" and ("podScheduled" in e or "podUnscheduled" in e):
            # each scheduler write (a bind, or a PodScheduled=False update) moves the MinorStep on
            assert minor >= last_scheduler_minor.get(major, 0)
            if "podScheduled" in e:
                assert minor > last_scheduler_minor.get(major, 0)
            last_scheduler_minor[major] = minor
        if name is None:
            continue
        if "create" in e:
            assert name not in created, f"pod {name} created twice"
            assert e["actor"] in ("replicaset", "statefulset")
            # PreSimulationControllers act right after the write that woke them: at the current MinorStep
            assert minor == last_scheduler_minor.get(major, 0), (name, e["step"])
            created[name] = e["step"]
        elif "podScheduled" in e:
            scheduled.setdefault(name, []).append(e)
            assert e["podScheduled"]["createdAt"] == created[name]
            assert e["podScheduled"]["boundAt"] == e["step"]
        elif "delete" in e:
            deleted[name] = e
    final_pods = state_of(state, "Pod")
    # every pod there ever was has been created in the timeline, and bound pods were scheduled there
    assert set(final_pods) <= set(created)
    assert set(deleted) <= set(created)
    assert set(created) == set(final_pods) | set(deleted)
    for name, pod in final_pods.items():
        if pod["spec"].get("nodeName"):
            assert [e["podScheduled"]["boundTo"] for e in scheduled[name]] == [pod["spec"]["nodeName"]]
        else:
            assert name not in scheduled
    # node loss: the pods on the deleted nodes went (pod-gc) and the ReplicaSet replaced each of them
    on_deleted = {p for p, n in bound_after(result, 2).items() if n in model.deleted}
    assert on_deleted and all(deleted[p]["actor"] == "pod-gc" and deleted[p]["step"]["major"] == 3
                              for p in on_deleted)
    replacements = [p for p, step in created.items() if step["major"] == 3]
    assert len(replacements) == len(on_deleted)
    assert all(created[p] == {"major": 3, "minor": 0} for p in replacements)
    # the rolling update in step 2 created new pods after binds made old ones replaceable
    assert any(step["major"] == 2 and step["minor"] > 0 for step in created.values())
