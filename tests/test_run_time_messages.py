"""End-to-end with the installed plugins (issue 11): a Deployment of pods that finish at once
is bounded by time passing. (Malformed quantities are refused before the run, by decoding:
tests/test_decoding_e2e.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from kubesim.testing import run_kubesim

API = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                   "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}}


def _scenario(*ops: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API, "kind": "Scenario", "metadata": {"name": "s"},
            "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
                     "operations": list(ops)}}


def _run(tmp_path: Path, doc: dict[str, Any]) -> tuple[int, str, dict[str, Any]]:
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(doc))
    proc = run_kubesim("run", "s.yaml", "-q", "-o", "r.json", cwd=tmp_path, timeout=120)
    return proc.returncode, proc.stderr, json.loads((tmp_path / "r.json").read_text())


def test_a_deployment_of_zero_second_pods_makes_one_generation_per_step(tmp_path: Path) -> None:
    """k8s-cluster-simulator ends a pod at its next tick: each step replaces the finished pods once."""
    template = {"metadata": {"labels": {"app": "d"}, "annotations": {"simSpec": "- {seconds: 0, resourceUsage: {cpu: 1}}"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
                  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "d"}}, "template": template}}
    code, err, result = _run(tmp_path, _scenario(
        {"step": 0, "createOperation": {"object": NODE}},
        {"step": 0, "createOperation": {"object": deployment}},
        {"step": 3, "doneOperation": {}}))
    assert code == 0, err
    assert result["status"]["phase"] == "Succeeded"
    timeline = result["status"]["scenarioResult"]["timeline"]
    created = {step: sorted(e["create"]["result"]["metadata"]["name"] for e in events
                            if "create" in e and e["create"]["result"]["kind"] == "Pod")
               for step, events in timeline.items()}
    assert [len(created[str(s)]) for s in range(4)] == [2, 2, 2, 2]
    assert len({name for names in created.values() for name in names}) == 8
