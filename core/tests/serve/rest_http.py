"""Raw HTTP calls to a `kubesim serve` for the REST tests (urllib, bounded timeouts)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from kubernetes import client, config

from kubesim.testing import KubesimServer

__all__ = ["api_client", "call"]

TIMEOUT = 20.0


def api_client(server: KubesimServer) -> client.ApiClient:
    """The official client configured from the server's kubeconfig."""
    return config.new_client_from_config(config_file=str(server.kubeconfig))


def call(server: KubesimServer, method: str, path: str, body: Any = None,
         content_type: str = "application/json", raw: bytes | None = None) -> tuple[int, Any]:
    """(HTTP status, decoded JSON body) of one request (loopback: no token needed)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    headers = {"Content-Type": content_type} if data is not None else {}
    request = urllib.request.Request(server.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())
