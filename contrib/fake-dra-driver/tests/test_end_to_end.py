"""The installed `kubesim run` on examples/dra: fake driver slices, resource-claim controller,
DynamicResources allocation and its filter reasons, the claims' status,
and pod deletion freeing the devices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from kubesim.testing.pytest_plugin import RunKubesim

EXAMPLE = Path(__file__).parents[3] / "examples" / "dra" / "scenario.yaml"
KEEP = ("scheduler", "fake-dra-driver")


def events(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e[kind] for step in result["status"]["scenarioResult"]["timeline"].values() for e in step if kind in e]


def test_example_gpu_cluster(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    proc = run_kubesim("run", str(EXAMPLE), "-o", "result.json", "--export-cluster", "cluster.yaml", "-q", plugins=KEEP)
    assert proc.returncode == 0, proc.stderr
    result = proc.result
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    bound = {e["pod"]["metadata"]["name"]: e["boundTo"] for e in events(result, "podScheduled")}
    assert bound == {"train-large": "gpu-node-a", "train-small-1": "gpu-node-b"}
    pending = events(result, "podUnscheduled")[-1]
    assert pending["pod"]["metadata"]["name"] == "train-small-2"
    attempt = pending["scheduleResult"][-1]
    reasons = {n: r["DynamicResources"] for n, r in attempt["pluginResults"]["filter"].items()}
    assert reasons == {n: "cannot allocate all claims" for n in ("gpu-node-a", "gpu-node-b", "cpu-node")}
    assert attempt["message"].startswith("0/3 nodes are available: 3 cannot allocate all claims.")

    cluster = yaml.safe_load((tmp_path / "cluster.yaml").read_text())
    objs = cluster["items"] if "items" in cluster else cluster
    slices = {o["metadata"]["name"]: o for o in objs if o["kind"] == "ResourceSlice"}
    assert sorted(slices) == ["gpu-node-a-gpu.fake-dra.kubesim.io", "gpu-node-b-gpu.fake-dra.kubesim.io"]
    claims = {o["metadata"]["annotations"]["resource.kubernetes.io/pod-claim-name"] + "@" + o["metadata"]["ownerReferences"][0]["name"]: o
              for o in objs if o["kind"] == "ResourceClaim"}
    assert sorted(claims) == ["gpus@train-large", "gpus@train-small-1", "gpus@train-small-2"]
    large = claims["gpus@train-large"]
    assert large["metadata"]["name"].startswith("train-large-gpus-")
    assert [r["device"] for r in large["status"]["allocation"]["devices"]["results"]] == [f"gpu-{i}" for i in range(4)]
    assert large["status"]["reservedFor"][0]["name"] == "train-large"
    assert "allocation" not in (claims["gpus@train-small-2"].get("status") or {})


def test_deleting_a_pod_frees_its_gpus(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    """The resource-claim controller deletes the pod's claim, and the pending pod gets the GPUs."""
    doc = yaml.safe_load(EXAMPLE.read_text())
    ops = [o for o in doc["spec"]["operations"] if "doneOperation" not in o]
    ops.append({"id": "delete-small-1", "step": 2, "deleteOperation": {
        "typeMeta": {"apiVersion": "v1", "kind": "Pod"}, "objectMeta": {"name": "train-small-1", "namespace": "default"}}})
    ops.append({"id": "done", "step": 3, "doneOperation": {}})
    doc["spec"]["operations"] = ops
    (tmp_path / "scenario.yaml").write_text(yaml.safe_dump(doc))
    proc = run_kubesim("run", "scenario.yaml", "-o", "result.json", "-q", plugins=KEEP)
    assert proc.returncode == 0, proc.stderr
    result = proc.result
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    bound = {e["pod"]["metadata"]["name"]: e["boundTo"] for e in events(result, "podScheduled")}
    assert bound.get("train-small-2") == "gpu-node-b", json.dumps(bound)
