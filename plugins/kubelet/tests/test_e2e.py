"""End to end: the installed `kubesim run` with the scheduler, the kubelet and the StatefulSet controller."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from kubesim.api.pod_ref import expand_pod_refs
from kubesim.testing import run_kubesim

SCENARIO = Path(__file__).parent / "data" / "lifecycle.yaml"
PLUGINS = ("scheduler", "kubelet", "statefulset")


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


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    outputs = []
    for i in range(2):
        cwd = tmp_path_factory.mktemp(f"run{i}")
        proc = run_kubesim("run", str(SCENARIO), "-o", "result.json", "--export-cluster", "state.yaml", "-q",
                           cwd=cwd, plugins=PLUGINS)
        assert proc.returncode == 0, proc.stderr
        outputs.append(((cwd / "result.json").read_bytes(), (cwd / "state.yaml").read_bytes()))
    return outputs


def test_the_timeline_shows_the_pod_lifecycle(runs):
    result = expand_pod_refs(json.loads(runs[0][0]))
    assert result["status"]["phase"] == "Succeeded"
    timeline = events(result)
    scheduled = [(s, n) for s, a, f, _, n in timeline if f == "podScheduled"]
    assert scheduled == [(0, "web-0"), (0, "web-1"), (0, "web-2"), (1, "batch"), (2, "web-1")]
    # the batch pod's usage follows its simSpec phases: recorded as annotation patches by the kubelet
    usage_steps = [s for s, a, f, _, n in timeline if (a, f, n) == ("kubelet", "patch", "batch")]
    assert usage_steps == [1, 2, 3]
    # node-c went at step 2: pod-gc deleted its pod, the StatefulSet made a new one, the scheduler placed it
    step2 = [e for e in timeline if e[0] == 2]
    assert step2[:3] == [
        (2, "scenario", "delete", "Node", "node-c"),
        (2, "pod-gc", "delete", "Pod", "web-1"),
        (2, "statefulset", "create", "Pod", "web-1"),
    ]
    patches = [e for e in result["status"]["scenarioResult"]["timeline"]["3"]
               if e.get("actor") == "kubelet" and "patch" in e]
    assert json.loads(patches[0]["patch"]["operation"]["patch"])["metadata"]["annotations"] == {
        "kubesim.io/usage": "{}",
    }


def test_the_exported_cluster_holds_the_final_states(runs):
    state = yaml.safe_load(runs[0][1])
    items = {(o["kind"], o["metadata"]["name"]): o for o in state["items"]}
    assert ("Node", "node-c") not in items
    for name in ("node-a", "node-b"):
        ready = next(c for c in items[("Node", name)]["status"]["conditions"] if c["type"] == "Ready")
        assert (ready["status"], ready["reason"]) == ("True", "KubeletReady")
    batch = items[("Pod", "batch")]
    assert batch["status"]["phase"] == "Succeeded"
    assert batch["status"]["startTime"] == "2025-01-01T00:00:10Z"
    terminated = batch["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["reason"], terminated["exitCode"], terminated["finishedAt"]) == (
        "Completed", 0, "2025-01-01T00:00:25Z",
    )
    for i in range(3):
        pod = items[("Pod", f"web-{i}")]
        assert pod["status"]["phase"] == "Running"
        assert pod["spec"]["nodeName"] in ("node-a", "node-b")
    web = items[("StatefulSet", "web")]["status"]
    assert (web["replicas"], web["readyReplicas"], web["availableReplicas"]) == (3, 3, 3)


def test_two_runs_are_byte_identical(runs):
    assert runs[0] == runs[1]
