"""End to end: the installed `kubesim run` with the scheduler, the StatefulSet controller, the kubelet
and the PV controller (which binds the set's claims)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from kubesim.api.pod_ref import expand_pod_refs
from kubesim.testing import run_kubesim

DATA = Path(__file__).parent / "data"
PLUGINS = ("scheduler", "kubelet", "statefulset", "pv-controller")


def events(result: dict) -> list[tuple[int, str, str, str, str]]:
    """(step, actor, kind of event, object kind, object name) of every timeline event."""
    out = []
    for step, items in sorted(result["status"]["scenarioResult"]["timeline"].items(), key=lambda kv: int(kv[0])):
        for e in items:
            (field,) = [k for k in e if k not in ("id", "step", "actor")]
            body = e[field]
            if field in ("podScheduled", "podUnscheduled"):
                kind, name = "Pod", body["pod"]["metadata"]["name"]
            elif field == "create":
                kind, name = body["result"]["kind"], body["result"]["metadata"]["name"]
            elif field in ("patch", "delete"):
                kind, name = body["operation"]["typeMeta"]["kind"], body["operation"]["objectMeta"]["name"]
            else:
                kind, name = "", ""
            out.append((int(step), e["actor"], field, kind, name))
    return out


def run(cwd: Path, scenario: str, keep: tuple[str, ...] = PLUGINS) -> tuple[int, bytes, bytes]:
    proc = run_kubesim("run", str(DATA / scenario), "-o", "result.json", "--export-cluster", "state.yaml", "-q",
                       cwd=cwd, plugins=keep)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, (cwd / "result.json").read_bytes(), (cwd / "state.yaml").read_bytes()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return [run(tmp_path_factory.mktemp(f"run{i}"), "web.yaml") for i in range(2)]


def test_pods_are_created_in_order_and_replaced_after_node_loss(runs):
    code, raw, _ = runs[0]
    assert code == 0
    result = expand_pod_refs(json.loads(raw))
    assert result["status"]["phase"] == "Succeeded"
    timeline = events(result)
    step0 = [(a, f, k, n) for s, a, f, k, n in timeline if s == 0 and a in ("statefulset", "scheduler")]
    assert step0 == [
        ("statefulset", "create", "ControllerRevision", step0[0][3]),
        ("statefulset", "create", "PersistentVolumeClaim", "data-web-0"),
        ("statefulset", "create", "Pod", "web-0"),
        ("scheduler", "podScheduled", "Pod", "web-0"),
        ("statefulset", "create", "PersistentVolumeClaim", "data-web-1"),
        ("statefulset", "create", "Pod", "web-1"),
        ("scheduler", "podScheduled", "Pod", "web-1"),
        ("statefulset", "create", "PersistentVolumeClaim", "data-web-2"),
        ("statefulset", "create", "Pod", "web-2"),
        ("scheduler", "podScheduled", "Pod", "web-2"),
    ]
    assert [e for e in timeline if e[0] == 2][:3] == [
        (2, "scenario", "delete", "Node", "node-c"),
        (2, "pod-gc", "delete", "Pod", step0[5][3]),  # web-1 ran on node-c
        (2, "statefulset", "create", "Pod", "web-1"),
    ]


def test_the_rolling_update_goes_from_the_highest_ordinal_with_grace_periods(runs):
    timeline = events(expand_pod_refs(json.loads(runs[0][1])))
    # the controller starts a graceful delete (a patch that sets deletionTimestamp); 30 s later the
    # kubelet removes the pod and the controller creates it again from the new revision
    ss = [(s, a, f, n) for s, a, f, k, n in timeline if k == "Pod" and n.startswith("web-")
          and a in ("statefulset", "kubelet")
          and s >= 3 and f in ("patch", "delete", "create")]
    assert ss == [
        (3, "statefulset", "patch", "web-2"),
        (6, "kubelet", "delete", "web-2"), (6, "statefulset", "create", "web-2"), (6, "statefulset", "patch", "web-1"),
        (9, "kubelet", "delete", "web-1"), (9, "statefulset", "create", "web-1"), (9, "statefulset", "patch", "web-0"),
        (12, "kubelet", "delete", "web-0"), (12, "statefulset", "create", "web-0"),
        (15, "statefulset", "patch", "web-2"),  # scale down to 2
        (18, "kubelet", "delete", "web-2"),
    ]


def test_the_exported_cluster_holds_the_set_its_revisions_and_claims(runs):
    state = yaml.safe_load(runs[0][2])
    items = {(o["kind"], o["metadata"]["name"]): o for o in state["items"]}
    web = items[("StatefulSet", "web")]
    revisions = sorted((o for o in state["items"] if o["kind"] == "ControllerRevision"), key=lambda r: r["revision"])
    assert [r["revision"] for r in revisions] == [1, 2]
    new = revisions[1]["metadata"]["name"]
    assert web["status"] == {
        "observedGeneration": 3, "replicas": 2, "readyReplicas": 2, "currentReplicas": 2, "updatedReplicas": 2,
        "currentRevision": new, "updateRevision": new, "collisionCount": 0, "availableReplicas": 2,
    }
    pods = {n: o for (k, n), o in items.items() if k == "Pod" and n.startswith("web-")}
    assert sorted(pods) == ["web-0", "web-1"]
    for name, pod in pods.items():
        assert pod["metadata"]["labels"]["controller-revision-hash"] == new
        assert pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == name
        assert pod["spec"]["containers"][0]["image"] == "nginx:1.28"
        assert pod["status"]["phase"] == "Running"
        assert pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == f"data-{name}"
    claims = sorted(n for (k, n) in items if k == "PersistentVolumeClaim")
    assert claims == ["data-web-0", "data-web-1", "data-web-2"]  # retained after scale down (Retain policy)
    for name in claims:  # each bound to the volume provisioned for it from the default class
        claim = items[("PersistentVolumeClaim", name)]
        assert claim["spec"]["storageClassName"] == "standard"
        assert claim["status"]["phase"] == "Bound"
        volume = items[("PersistentVolume", claim["spec"]["volumeName"])]
        assert volume["spec"]["claimRef"]["name"] == name and volume["status"]["phase"] == "Bound"
    assert items[("Pod", "batch")]["status"]["phase"] == "Succeeded"


def test_two_runs_are_byte_identical(runs):
    assert runs[0] == runs[1]


def test_an_invalid_statefulset_is_refused_before_the_run_with_the_api_servers_message(tmp_path):
    # StatefulSet validation is the core's: `run` refuses the input (exit 2) before anything runs
    proc = run_kubesim("run", str(DATA / "invalid.yaml"), "-o", "result.json", cwd=tmp_path,
                       plugins=("scheduler", "statefulset"))
    assert proc.returncode == 2
    assert proc.stderr == (
        f"error: {DATA / 'invalid.yaml'}: spec.operations[1].createOperation.object: StatefulSet.apps \"web\" is "
        'invalid: spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template '
        "`labels`\n"
    )
    assert not (tmp_path / "result.json").exists()


def test_without_a_kubelet_an_ordered_set_stops_at_its_first_pod(tmp_path):
    code, raw, state = run(tmp_path, "web.yaml", keep=("scheduler", "statefulset"))
    assert code == 0
    created = [n for s, a, f, k, n in events(expand_pod_refs(json.loads(raw))) if (a, f, k) == ("statefulset", "create", "Pod")]
    assert created == ["web-0"]
    items = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load(state)["items"]}
    assert items[("Pod", "web-0")]["status"]["phase"] == "Pending"
    assert items[("StatefulSet", "web")]["status"]["replicas"] == 1
