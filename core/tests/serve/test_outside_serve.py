"""`kubesim serve --controller NAME --settled-when NAME=EXPR`: the checkpoint endpoint and its answers,
through a real server with the `kubernetes` client, kubesim.client and raw HTTP."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from kubesim.client import check_scenario_step_phase, checkpoint_path
from kubesim.testing import KubesimServer
from kubesim.testing.cli import kubesim_command

SETTLED_WHEN = "pre=no configmaps where metadata.namespace=work and metadata.labels.done="


def _token(path: Path) -> str:
    token: str = yaml.safe_load(path.read_text())["users"][0]["user"]["token"]
    return token


def _post(server: KubesimServer, kubeconfig: Path, name: str, query: str = "") -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(f"{server.url}{checkpoint_path(name)}?{query}", method="POST", data=b"",
                                     headers={"Authorization": f"Bearer {_token(kubeconfig)}"})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def outside(tmp_path: Path) -> Any:
    with KubesimServer(tmp_path, "--settled-when", SETTLED_WHEN, "--controller-timeout", "5",
                       controllers=["pre", "other"]) as running:
        yield running


def test_settled_when_follows_the_cluster_state(outside: KubesimServer) -> None:
    pre = outside.controller_kubeconfig("pre")
    assert _post(outside, pre, "pre")[1]["status"]["settled"] is True  # no configmap at all
    core = client.CoreV1Api(config.new_client_from_config(config_file=str(outside.kubeconfig)))
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "work"}},
                          _request_timeout=10)
    core.create_namespaced_config_map("work", {"metadata": {"name": "a"}}, _request_timeout=10)
    code, body = _post(outside, pre, "pre")
    assert code == 200 and body["kind"] == "ControllerCheckpoint" and body["status"]["settled"] is False
    core.patch_namespaced_config_map("a", "work", {"metadata": {"labels": {"done": "yes"}}}, _request_timeout=10)
    assert _post(outside, pre, "pre")[1]["status"]["settled"] is True


def test_idle_reports_hold_until_another_actor_writes(outside: KubesimServer) -> None:
    api = config.new_client_from_config(config_file=str(outside.controller_kubeconfig("other")))
    core = client.CoreV1Api(api)
    listed = core.list_namespaced_config_map("default", _request_timeout=10)
    body = check_scenario_step_phase("other", api, resource_version=listed.metadata.resource_version, idle=True,
                                     timeout=10)
    assert body["status"]["settled"] is True and "scenario" not in body["status"]
    user = client.CoreV1Api(config.new_client_from_config(config_file=str(outside.kubeconfig)))
    user.create_namespaced_config_map("default", {"metadata": {"name": "new"}}, _request_timeout=10)
    assert check_scenario_step_phase("other", api, timeout=10)["status"]["settled"] is False
    # its own write does not count as news, but makes its last report stale until it reports again
    core.create_namespaced_config_map("default", {"metadata": {"name": "own"}}, _request_timeout=10)
    rv = core.list_namespaced_config_map("default", _request_timeout=10).metadata.resource_version
    assert check_scenario_step_phase("other", api, resource_version=rv, idle=True)["status"]["settled"] is True


def test_checkpoint_errors_are_status_objects(outside: KubesimServer) -> None:
    pre, other = outside.controller_kubeconfig("pre"), outside.controller_kubeconfig("other")
    code, body = _post(outside, other, "pre")
    assert (code, body["reason"]) == (403, "Forbidden")
    assert body["message"] == 'controller "other" cannot report for controller "pre"'
    code, body = _post(outside, pre, "nobody")
    assert (code, body["reason"]) == (404, "NotFound")
    assert "--controller nobody" in body["message"]
    code, body = _post(outside, pre, "pre", "idle=true")
    assert (code, body["reason"]) == (400, "BadRequest")
    assert "resourceVersion" in body["message"]
    code, body = _post(outside, pre, "pre", "idle=true&resourceVersion=x")
    assert (code, body["reason"]) == (400, "BadRequest")
    api = config.new_client_from_config(config_file=str(pre))
    with pytest.raises(ApiException) as refused:
        check_scenario_step_phase("other", api, timeout=5)
    assert refused.value.status == 403


@pytest.mark.parametrize(("args", "message"), [
    (["--settled-when", "x=no pods"], "--settled-when: no --controller NAME to apply it to"),
    (["--controller", "a", "--settled-when", "b=no pods"],
     "--settled-when 'b=no pods': expected NAME=EXPR with NAME one of the --controller names"),
    (["--controller", "a", "--settled-when", "a=no widgets"], "--settled-when 'a=no widgets': resource 'widgets' is unknown"),
    (["--controller", "a", "--settled-when", "a=all pods"],
     "--settled-when 'a=all pods': 'all pods': expected 'no RESOURCE [where PATH=VALUE and ...]'"),
    (["--controller", "a", "--settled-when", "a=no pods where spec.nodeName"],
     "--settled-when 'a=no pods where spec.nodeName': 'spec.nodeName': expected PATH=VALUE or PATH!=VALUE"),
])
def test_bad_settled_when_options_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run([str(kubesim_command()), "serve", "--port", "0", "--kubeconfig-out",
                           str(tmp_path / "k.yaml"), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"error: {message}"
