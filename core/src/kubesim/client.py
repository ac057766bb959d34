"""KEP-140's CheckScenarioStepPhase for outside controllers written in Python (official `kubernetes` client).

Call it at the end of every loop of your controller:

    api = kubernetes.config.new_client_from_config("kubesim-my-scheduler.kubeconfig")
    while True:
        pods = core.list_pod_for_all_namespaces()
        did = schedule(pods.items)                       # POST pods/NAME/binding ...
        check_scenario_step_phase("my-scheduler", api, resource_version=pods.metadata.resource_version,
                                  idle=not did)

It POSTs the controller's checkpoint (`kubesim serve`'s settle contract, docs/serve-controllers.md):
"one loop ended; with idle=True, I processed everything up to resource_version and have nothing
to do". While the running Scenario's stepStatus.phase is ControllerPaused and its
runningSimulationController is `name`, the server holds the request until the scenario
controller lets the controller run again; this function calls again until then, at most
`timeout` seconds in all. Needs the `kubernetes` package (kubesim[test] has it).
"""

from __future__ import annotations

import json
import time
from typing import Any

from kubesim.api import API_VERSION

__all__ = ["CheckpointTimeout", "check_scenario_step_phase", "checkpoint_path"]

_PAUSED = "ControllerPaused"


class CheckpointTimeout(Exception):
    """The scenario kept the controller paused longer than the timeout given."""


def checkpoint_path(name: str) -> str:
    """The checkpoint URL path of controller `name`."""
    return f"/apis/{API_VERSION}/controllers/{name}/checkpoint"


def _post(api_client: Any, path: str, query: list[tuple[str, str]], request_timeout: float) -> dict[str, Any]:
    """POST `path` with the client's configuration (host, bearer token); the JSON answer, ApiException if not 2xx."""
    from kubernetes.client.exceptions import ApiException

    method, url, headers, body, _ = api_client.param_serialize(
        "POST", path, query_params=query, header_params={"Accept": "application/json"},
        auth_settings=["BearerToken"],
    )
    response = api_client.call_api(method, url, header_params=headers, body=body, _request_timeout=request_timeout)
    data = response.read()
    if not 200 <= response.status < 300:
        raise ApiException(status=response.status, reason=response.reason, body=data)
    result: dict[str, Any] = json.loads(data)
    return result


def check_scenario_step_phase(name: str, api_client: Any, *, resource_version: str | int | None = None,
                              idle: bool = False, timeout: float = 120.0,
                              request_timeout: float = 30.0) -> dict[str, Any]:
    """Report the end of one loop of controller `name`; return once it may run again.

    `api_client` is a `kubernetes.client.ApiClient` built from the controller's kubeconfig
    (`kubesim serve --controller NAME`). Returns the server's last ControllerCheckpoint (its
    status.scenario.stepStatus shows the step). Raises CheckpointTimeout after `timeout` seconds
    paused, and the client's ApiException for an HTTP error.
    """
    deadline = time.monotonic() + timeout
    query: list[tuple[str, str]] = []
    if idle:
        if resource_version is None:
            raise ValueError("idle=True needs the resource_version the controller has processed")
        query.append(("idle", "true"))
    if resource_version is not None:
        query.append(("resourceVersion", str(resource_version)))
    while True:
        wait = max(1, min(int(deadline - time.monotonic()), int(request_timeout) - 1))
        body = _post(api_client, checkpoint_path(name), [*query, ("timeoutSeconds", str(wait))], request_timeout)
        scenario = body.get("status", {}).get("scenario") or {}
        step = scenario.get("stepStatus") or {}
        paused = (scenario.get("phase") == "Running" and step.get("phase") == _PAUSED
                  and step.get("runningSimulationController") == name)
        if not paused:
            return body
        if time.monotonic() >= deadline:
            raise CheckpointTimeout(f"controller {name!r} is still paused by scenario {scenario.get('name')!r} "
                                    f"after {timeout:g} s")
        query = [q for q in query if q[0] != "idle"]  # one loop, one report
