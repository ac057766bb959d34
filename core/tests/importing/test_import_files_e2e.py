"""`kubesim import --from`: every supported file format, the round trip through `kubesim run
--export-cluster`, what is never copied, bad input, determinism (the installed command)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesim.testing import (
    create,
    deployment,
    done,
    namespace,
    node,
    pod,
    priority_class,
    scenario,
    statefulset,
    write_yaml,
)
from kubesim.testing.cli import KubesimRun

Obj = dict[str, Any]
SECRET_VALUE = "c3VwZXItc2VjcmV0LXRva2Vu"
CONFIG_VALUE = "do-not-copy-this-config"


def _cluster_objects() -> list[Obj]:
    """A small cluster as a server would list it: server fields set, one pod bound, one pending."""
    objs = [
        namespace("team-a", labels={"team": "a"}),
        priority_class("high", 1000),
        node("node-1", cpu="2", labels={"kubernetes.io/hostname": "node-1"}),
        node("node-2", cpu="4", labels={"kubernetes.io/hostname": "node-2"}, taints=["dedicated=gpu:NoSchedule"]),
        pod("bound", namespace="team-a", cpu="1", node_name="node-2",
            spec={"tolerations": [{"key": "dedicated", "operator": "Exists"}]}),
        pod("pending", namespace="team-a", cpu="1", priority_class_name="high"),
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "token", "namespace": "team-a"},
         "data": {"token": SECRET_VALUE}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "team-a"},
         "data": {"key": CONFIG_VALUE}},
    ]
    for i, obj in enumerate(objs):
        obj["metadata"].update({"uid": f"0000-{i}", "resourceVersion": str(100 + i), "generation": 1,
                                "creationTimestamp": "2026-01-01T00:00:00Z",
                                "managedFields": [{"manager": "kubectl", "operation": "Update"}]})
    objs[4]["status"] = {"phase": "Running", "startTime": "2026-01-01T00:00:05Z", "podIP": "10.0.0.9",
                         "conditions": [{"type": "Ready", "status": "True"}]}
    objs[5]["status"] = {"phase": "Pending"}
    return objs


def _write_formats(tmp_path: Path, objs: list[Obj]) -> dict[str, Path]:
    """The same objects in every format `kubesim import --from` reads."""
    listing = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objs}
    files = {"list.yaml": yaml.safe_dump(listing), "list.json": json.dumps(listing, indent=2),
             # kwokctl snapshot save --format k8s: one document per object
             "kwok-snapshot.yaml": yaml.safe_dump_all(objs)}
    kss: dict[str, Any] = {"schedulerConfig": {"apiVersion": "kubescheduler.config.k8s.io/v1",
                                               "kind": "KubeSchedulerConfiguration"}}
    for key, kind in (("namespaces", "Namespace"), ("priorityClasses", "PriorityClass"), ("nodes", "Node"),
                      ("pods", "Pod"), ("pvs", "PersistentVolume"), ("pvcs", "PersistentVolumeClaim"),
                      ("storageClasses", "StorageClass")):
        # kube-scheduler-simulator's export: typed Go objects, no apiVersion or kind
        kss[key] = [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")} for o in objs if o["kind"] == kind]
    files["kss-export.json"] = json.dumps(kss)
    out = {}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        out[name] = tmp_path / name
    return out


def _import(run_kubesim: Any, *args: str) -> KubesimRun:
    result: KubesimRun = run_kubesim("import", *args)
    assert result.returncode == 0, result.stderr
    return result


def _operations(path: Path) -> list[Obj]:
    return list(yaml.safe_load(path.read_text(encoding="utf-8"))["spec"]["operations"])


def test_every_format_gives_the_same_scenario(run_kubesim: Any, tmp_path: Path) -> None:
    files = _write_formats(tmp_path, _cluster_objects())
    texts = {}
    for name, path in files.items():
        _import(run_kubesim, "--from", str(path), "-o", f"{name}.scenario.yaml")
        texts[name] = (tmp_path / f"{name}.scenario.yaml").read_text(encoding="utf-8")
    assert len(set(texts.values())) == 1, {k: v[:300] for k, v in texts.items()}
    ops = _operations(tmp_path / "list.yaml.scenario.yaml")
    assert [(op["id"], op["step"]) for op in ops] == [
        ("namespace/team-a", 0), ("priorityclass/high", 0), ("node/node-1", 0), ("node/node-2", 0),
        ("pod/team-a/bound", 0), ("pod/team-a/bound/status", 0), ("pod/team-a/pending", 1), ("done", 2)]
    bound = ops[4]["createOperation"]["object"]
    assert bound["spec"]["nodeName"] == "node-2"
    # the API server resets a created pod's status: the kept status is written to the status subresource
    assert "status" not in bound
    status = ops[5]["patchOperation"]
    assert status["subresource"] == "status" and status["patchType"] == "application/merge-patch+json"
    assert json.loads(status["patch"]) == {"status": {"phase": "Running", "startTime": "2026-01-01T00:00:05Z"}}
    for op in [o for o in ops if "createOperation" in o]:
        meta = op["createOperation"]["object"]["metadata"]
        assert not {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"} & set(meta)
    node_2 = ops[3]["createOperation"]["object"]
    assert node_2["spec"]["taints"] == [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    assert node_2["status"]["allocatable"]["cpu"] == "4"


def test_secrets_and_config_map_data_are_never_copied(run_kubesim: Any, tmp_path: Path) -> None:
    files = _write_formats(tmp_path, _cluster_objects())
    result = _import(run_kubesim, "--from", str(files["list.yaml"]))
    assert "kind: Pod" in result.stdout
    for text in (result.stdout, result.stderr):
        assert SECRET_VALUE not in text and CONFIG_VALUE not in text
    assert "kind: Secret" not in result.stdout and "kind: ConfigMap" not in result.stdout
    assert "skipped 1 Secret (not imported)" in result.stderr
    assert "\x1b[" not in result.stderr  # no progress bar when stderr is not a terminal


def test_imports_are_deterministic(run_kubesim: Any, tmp_path: Path) -> None:
    objs = _cluster_objects()
    (tmp_path / "a.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    (tmp_path / "b.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs[::-1]}))
    first = _import(run_kubesim, "--from", "a.yaml").stdout
    assert _import(run_kubesim, "--from", "a.yaml").stdout == first
    assert _import(run_kubesim, "--from", "b.yaml").stdout == first  # the input's order does not matter
    _import(run_kubesim, "--from", "a.yaml", "-o", "out.json")
    assert json.loads((tmp_path / "out.json").read_text()) == yaml.safe_load(first)
    named = yaml.safe_load(_import(run_kubesim, "--from", "a.yaml", "--name", "prod", "--no-done").stdout)
    assert named["metadata"] == {"name": "prod"}
    assert named["spec"]["operations"] == yaml.safe_load(first)["spec"]["operations"][:-1]


def _workload_scenario() -> Obj:
    """Two nodes, a Deployment and a StatefulSet that fit, a Deployment that partly does not, a bare pod."""
    nodes = [node(f"node-{i}", cpu="4", labels={"kubernetes.io/hostname": f"node-{i}"}) for i in (1, 2)]
    return scenario("source", {
        0: [create(n) for n in nodes] + [create(pod("solo", cpu="500m"))],
        1: [create(deployment("web", 3, cpu="1")), create(statefulset("db", 2, cpu="1")),
            create(deployment("big", 3, cpu="2"))],
        3: [done()],
    }, simulation_controllers=["scheduler"])


def _placements(exported: list[Obj]) -> tuple[dict[str, str], dict[str, int]]:
    """(bound pod name -> node, pending pod count per name prefix) of an exported cluster."""
    bound, pending = {}, dict[str, int]()
    for obj in exported:
        if obj["kind"] != "Pod":
            continue
        name, node_name = obj["metadata"]["name"], obj["spec"].get("nodeName")
        if node_name:
            bound[name] = node_name
        else:
            prefix = name.split("-")[0]
            pending[prefix] = pending.get(prefix, 0) + 1
    return bound, pending


@pytest.mark.needs_plugins
def test_round_trip_keeps_every_placement(run_kubesim: Any, tmp_path: Path) -> None:
    write_yaml(tmp_path / "source.yaml", _workload_scenario())
    source = run_kubesim("run", "source.yaml", "--export-cluster", "cluster.yaml")
    assert source.returncode == 0, source.stderr
    bound, pending = _placements(source.exported)
    # 8 CPUs for 9.5 requested: solo, web x3 and db x2 fit, some of big do not
    assert len(bound) + sum(pending.values()) == 9 and set(pending) == {"big"}
    _import(run_kubesim, "--from", "cluster.yaml", "-o", "imported.yaml")
    ops = _operations(tmp_path / "imported.yaml")
    deployments = [op["createOperation"]["object"] for op in ops
                   if op.get("createOperation", {}).get("object", {}).get("kind") == "Deployment"]
    assert [d["spec"]["paused"] for d in deployments] == [True, True]  # keep: no rollout replaces the pods
    replay = run_kubesim("run", "imported.yaml", "--export-cluster", "replayed.yaml")
    assert replay.returncode == 0, replay.stderr
    assert _placements(replay.exported) == (bound, pending)


@pytest.mark.needs_plugins
def test_controller_mode_leaves_workload_pods_to_their_controllers(run_kubesim: Any, tmp_path: Path) -> None:
    write_yaml(tmp_path / "source.yaml", _workload_scenario())
    source = run_kubesim("run", "source.yaml", "--export-cluster", "cluster.yaml")
    assert source.returncode == 0, source.stderr
    _import(run_kubesim, "--from", "cluster.yaml", "--workload-pods", "controller", "-o", "imported.yaml")
    kinds = [op["createOperation"]["object"]["kind"] for op in _operations(tmp_path / "imported.yaml")
             if "createOperation" in op]
    assert kinds == ["Node", "Node", "Pod", "StatefulSet", "Deployment", "Deployment"]
    replay = run_kubesim("run", "imported.yaml", "--export-cluster", "replayed.yaml")
    assert replay.returncode == 0, replay.stderr
    bound, pending = _placements(replay.exported)
    # the controllers recreated every replica and the scheduler placed them anew (in its own order)
    counts = {p: sum(1 for name in bound if name.split("-")[0] == p) + pending.get(p, 0)
              for p in ("solo", "web", "db", "big")}
    assert counts == {"solo": 1, "web": 3, "db": 2, "big": 3}
    assert bound["solo"] == _placements(source.exported)[0]["solo"]  # a pod of no workload stays where it was


def test_bad_inputs_exit_2_naming_the_file(run_kubesim: Any, tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("items: [a\n")
    (tmp_path / "unknown.json").write_text('{"hello": "world"}')
    (tmp_path / "nokind.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                                          "items": [{"metadata": {"name": "x"}}]}))
    (tmp_path / "big.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [
        node(f"node-{i}") for i in range(50)]}))
    (tmp_path / "empty.yaml").write_text("")
    cases = [
        (("--from", "broken.yaml"), "broken.yaml: line 2 column 1: YAML syntax error"),
        (("--from", "unknown.json"), "unknown.json: unknown format: expected a Kubernetes object"),
        (("--from", "nokind.yaml"), "nokind.yaml: items[0].kind: required"),
        (("--from", "big.yaml", "--max-bytes", "1000"), "big.yaml: "),
        (("--from", "missing.yaml"), "missing.yaml: cannot read file"),
        (("--from", "empty.yaml"), "empty.yaml: the file holds no objects"),
        (("--from", "big.yaml", "--selector", "a=b"), "--from reads files"),
    ]
    for args, message in cases:
        result = run_kubesim("import", *args)
        assert result.returncode == 2, (args, result.stderr)
        assert f"error: {message}" in result.stderr, (args, result.stderr)
        assert result.stdout == ""
    assert "1000" in run_kubesim("import", "--from", "big.yaml", "--max-bytes", "1000").stderr


def _every_kind() -> list[Obj]:
    """One object of every imported kind as a server lists it (owner uids, generated Job labels)."""
    owner = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "ds-uid", "controller": True}
    template = {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    job_labels = {"batch.kubernetes.io/controller-uid": "job-uid", "controller-uid": "job-uid", "job-name": "once"}
    return [
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
         "provisioner": "example.com/fast", "volumeBindingMode": "WaitForFirstConsumer"},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                  "hostPath": {"path": "/data"},
                  "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default", "name": "data",
                               "uid": "pvc-uid", "resourceVersion": "7"}},
         "status": {"phase": "Bound"}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                  "storageClassName": "fast", "volumeName": "pv-1"},
         "status": {"phase": "Bound", "capacity": {"storage": "1Gi"}}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node-1"},
         "spec": {"drivers": [{"name": "fast.example.com", "nodeID": "node-1", "allocatable": {"count": 8}}]}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "fast.example.com"},
         "spec": {"attachRequired": True}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
         "metadata": {"name": "fast-zone-a", "namespace": "default"}, "storageClassName": "fast",
         "capacity": "100Gi", "nodeTopology": {"matchLabels": {"topology.kubernetes.io/zone": "a"}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "one-gpu", "namespace": "default"},
         "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}},
        node("node-1"),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "agent", "namespace": "default"},
         "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "agent"}}},
         "status": {"currentHealthy": 1, "desiredHealthy": 0, "disruptionsAllowed": 1, "expectedPods": 1}},
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default", "uid": "ds-uid"},
         "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template},
         "status": {"numberReady": 1}},
        {**pod("agent-x7k2p", cpu="100m", node_name="node-1", labels={"app": "agent"}),
         "metadata": {"name": "agent-x7k2p", "namespace": "default", "labels": {"app": "agent"},
                      "ownerReferences": [owner]}},
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once", "namespace": "default", "labels": job_labels},
         "spec": {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "job-uid"}},
                  "template": {"metadata": {"labels": job_labels},
                               "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {}},
    ]


@pytest.mark.needs_plugins
def test_every_kind_is_cleaned_into_a_valid_scenario(run_kubesim: Any, tmp_path: Path) -> None:
    (tmp_path / "all.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": _every_kind()}))
    result = _import(run_kubesim, "--from", "all.yaml", "-o", "all-scenario.yaml")
    assert "not served by kubesim" not in result.stderr  # resource.k8s.io is served (DRA)
    objs = {o["createOperation"]["object"]["kind"]: o["createOperation"]["object"]
            for o in _operations(tmp_path / "all-scenario.yaml") if "createOperation" in o}
    assert list(objs) == ["StorageClass", "CSIDriver", "PersistentVolume", "Node", "CSINode", "CSIStorageCapacity",
                          "DeviceClass", "PersistentVolumeClaim", "ResourceClaimTemplate", "PodDisruptionBudget", "Pod",
                          "Job", "DaemonSet"]
    assert objs["CSIStorageCapacity"]["capacity"] == "100Gi"
    assert objs["PersistentVolume"]["spec"]["claimRef"] == {"kind": "PersistentVolumeClaim", "name": "data",
                                                            "namespace": "default"}
    assert objs["Pod"]["metadata"]["annotations"] == {"import.kubesim.io/owner": "DaemonSet/agent"}
    assert "ownerReferences" not in objs["Pod"]["metadata"]
    statuses = {o["patchOperation"]["typeMeta"]["kind"]: json.loads(o["patchOperation"]["patch"])["status"]
                for o in _operations(tmp_path / "all-scenario.yaml")
                if o.get("patchOperation", {}).get("subresource") == "status"}
    assert statuses["PodDisruptionBudget"]["disruptionsAllowed"] == 1  # no disruption controller recomputes it
    assert statuses["PersistentVolume"] == {"phase": "Bound"}
    assert "status" not in objs["PodDisruptionBudget"]
    assert "selector" not in objs["Job"]["spec"]
    assert objs["Job"]["spec"]["template"]["metadata"]["labels"] == {"job-name": "once"}
    assert "status" not in objs["DaemonSet"]
    validated = run_kubesim("validate", "all-scenario.yaml")
    assert validated.returncode == 0, validated.stderr


@pytest.mark.needs_plugins
def test_namespaces_used_but_not_listed_are_created(run_kubesim: Any, tmp_path: Path) -> None:
    # an older kube-scheduler-simulator export has no "namespaces" list
    export = {"nodes": [{"metadata": {"name": "node-1"}, "status": node("node-1")["status"]}],
              "pods": [{"metadata": {"name": "p", "namespace": "team-b"},
                        "spec": {"containers": [{"name": "c", "image": "x"}]}}]}
    (tmp_path / "old-export.json").write_text(json.dumps(export))
    _import(run_kubesim, "--from", "old-export.json", "-o", "s.yaml")
    assert [op["id"] for op in _operations(tmp_path / "s.yaml")] == ["namespace/team-b", "node/node-1",
                                                                     "pod/team-b/p", "done"]
    replay = run_kubesim("run", "s.yaml", "-o", "r.json", "--export-cluster", "end.yaml")
    assert replay.returncode == 0 and replay.phase == "Succeeded", replay.stderr
    assert [o["spec"]["nodeName"] for o in replay.exported if o["kind"] == "Pod"] == ["node-1"]


@pytest.mark.needs_plugins
def test_kept_statuses_survive_the_replay(run_kubesim: Any, tmp_path: Path) -> None:
    # a running pod's startTime (preemption prefers evicting younger pods) and a PDB's budget
    # (no disruption controller recomputes it) are what the cluster had, not the simulation's
    items = [node("n1"),
             {**pod("old", node_name="n1", labels={"app": "a"}),
              "status": {"phase": "Running", "startTime": "2020-01-01T00:00:00Z"}},
             {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "a", "namespace": "default"},
              "spec": {"minAvailable": 0, "selector": {"matchLabels": {"app": "a"}}},
              "status": {"currentHealthy": 1, "desiredHealthy": 0, "disruptionsAllowed": 1, "expectedPods": 1}}]
    (tmp_path / "list.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    _import(run_kubesim, "--from", "list.yaml", "-o", "s.yaml")
    replay = run_kubesim("run", "s.yaml", "-o", "r.json", "--export-cluster", "end.yaml")
    assert replay.returncode == 0 and replay.phase == "Succeeded", replay.stderr
    end = {o["kind"]: o for o in replay.exported}
    assert end["Pod"]["status"]["startTime"] == "2020-01-01T00:00:00Z"
    assert end["Pod"]["status"]["phase"] == "Running"
    assert end["PodDisruptionBudget"]["status"]["disruptionsAllowed"] == 1
