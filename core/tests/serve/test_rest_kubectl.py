"""kubectl against `kubesim serve`: create -f, scale, label, annotate, patch, delete -l, dry-run, paging."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from kubesim.testing import KubesimServer

_DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "c", "image": "x"}]}}}}


def _run(kubectl: str, server: KubesimServer, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([kubectl, "--kubeconfig", str(server.kubeconfig), "--request-timeout=20s", *args],
                          capture_output=True, text=True, timeout=60)
    if ok:
        assert done.returncode == 0, done.stderr
    return done


def _json(kubectl: str, server: KubesimServer, *args: str) -> Any:
    return json.loads(_run(kubectl, server, *args, "-o", "json").stdout)


def _create(kubectl: str, server: KubesimServer, tmp_path: Path, obj: dict[str, Any]) -> None:
    path = tmp_path / f"{obj['metadata']['name']}-{obj['kind']}.json"
    path.write_text(json.dumps(obj))
    _run(kubectl, server, "create", "--validate=false", "-f", str(path))  # OpenAPI: the "discovery" helper


def test_kubectl_scale_label_annotate_patch(server: KubesimServer, kubectl: str, tmp_path: Path) -> None:
    _create(kubectl, server, tmp_path, _DEPLOYMENT)
    _run(kubectl, server, "scale", "deployment", "web", "--replicas", "3")
    assert _json(kubectl, server, "get", "deployment", "web")["spec"]["replicas"] == 3
    _run(kubectl, server, "scale", "deployment", "web", "--replicas", "5", "--current-replicas", "3")
    done = _run(kubectl, server, "scale", "deployment", "web", "--replicas", "1", "--current-replicas", "3", ok=False)
    assert done.returncode != 0 and "Expected replicas to be 3, was 5" in done.stderr
    _run(kubectl, server, "label", "deployment", "web", "tier=front")
    _run(kubectl, server, "annotate", "deployment", "web", "note=hello")
    _run(kubectl, server, "patch", "deployment", "web", "--type", "merge", "-p", '{"spec":{"paused":true}}')
    _run(kubectl, server, "patch", "deployment", "web", "--type", "json",
         "-p", '[{"op":"add","path":"/metadata/labels/extra","value":"1"}]')
    got = _json(kubectl, server, "get", "deployment", "web")
    assert got["metadata"]["labels"] == {"tier": "front", "extra": "1"}
    assert got["metadata"]["annotations"]["note"] == "hello" and got["spec"]["paused"] is True
    done = _run(kubectl, server, "label", "deployment", "web", "tier=back", ok=False)
    assert "--overwrite is false" in done.stderr
    done = _run(kubectl, server, "apply", "--server-side", "--validate=false", "-f", str(tmp_path / "web-Deployment.json"), ok=False)
    assert done.returncode != 0 and "server-side apply is not modelled" in done.stderr


def test_kubectl_delete_by_label_dry_run_and_chunked_get(server: KubesimServer, kubectl: str,
                                                         tmp_path: Path) -> None:
    for i in range(12):
        _create(kubectl, server, tmp_path, {"apiVersion": "v1", "kind": "ConfigMap",
                                            "metadata": {"name": f"cm{i:02d}", "labels": {"even": str(i % 2 == 0)}}})
    names = [c["metadata"]["name"] for c in _json(kubectl, server, "get", "configmaps", "--chunk-size", "5")["items"]]
    assert names == [f"cm{i:02d}" for i in range(12)]
    done = _run(kubectl, server, "delete", "configmaps", "-l", "even=True", "--dry-run=server")
    assert "(server dry run)" in done.stdout
    assert len(_json(kubectl, server, "get", "configmaps")["items"]) == 12
    _run(kubectl, server, "delete", "configmaps", "-l", "even=True")
    left = [c["metadata"]["name"] for c in _json(kubectl, server, "get", "configmaps")["items"]]
    assert left == [f"cm{i:02d}" for i in range(1, 12, 2)]
    done = _run(kubectl, server, "get", "configmaps", "nope", ok=False)
    assert 'configmaps "nope" not found' in done.stderr
    done = _run(kubectl, server, "get", "pods", "--field-selector", "spec.image=x", ok=False)
    assert "field label not supported: spec.image" in done.stderr
    # `kubectl create namespace` sends protobuf: a 415 saying to send JSON
    done = _run(kubectl, server, "create", "namespace", "team", ok=False)
    assert done.returncode != 0 and "send the request body as JSON" in done.stderr
