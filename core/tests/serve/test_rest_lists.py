"""Lists: label and field selectors, limit/continue paging, list resourceVersion."""

from __future__ import annotations

import base64
import json
import urllib.parse
from typing import Any

from kubernetes import client

from kubesim.testing import KubesimServer

from .rest_http import api_client, call

_CMS = "/api/v1/namespaces/default/configmaps"


def _pod(name: str, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace,
                                                           "labels": {"n": name}},
            "spec": {"containers": [{"name": "c", "image": "x"}], **spec}}


def _names(body: dict[str, Any]) -> list[str]:
    return [i["metadata"]["name"] for i in body["items"]]


def test_field_and_label_selectors(server: KubesimServer) -> None:
    core = client.CoreV1Api(api_client(server))
    core.create_namespace({"metadata": {"name": "other"}}, _request_timeout=20)
    core.create_namespaced_pod("default", _pod("a", nodeName="n1"), _request_timeout=20)
    core.create_namespaced_pod("default", _pod("b", schedulerName="mine", restartPolicy="Never"),
                               _request_timeout=20)
    core.create_namespaced_pod("other", _pod("c", "other", nodeName="n1"), _request_timeout=20)
    on_n1 = core.list_pod_for_all_namespaces(field_selector="spec.nodeName=n1", _request_timeout=20)
    assert [p.metadata.name for p in on_n1.items] == ["a", "c"]
    unbound = core.list_pod_for_all_namespaces(field_selector="spec.nodeName=", _request_timeout=20)
    assert [p.metadata.name for p in unbound.items] == ["b"]
    mine = core.list_namespaced_pod("default", field_selector="spec.schedulerName=mine,spec.restartPolicy=Never",
                                    _request_timeout=20)
    assert [p.metadata.name for p in mine.items] == ["b"]
    in_other = core.list_pod_for_all_namespaces(field_selector="metadata.namespace!=default", _request_timeout=20)
    assert [p.metadata.name for p in in_other.items] == ["c"]
    both = core.list_pod_for_all_namespaces(label_selector="n in (a,c)", field_selector="metadata.name!=c",
                                            _request_timeout=20)
    assert [p.metadata.name for p in both.items] == ["a"]
    code, body = call(server, "GET", "/api/v1/pods?fieldSelector=spec.containers%3Dx")
    assert (code, body["reason"], body["message"]) == (400, "BadRequest", "field label not supported: spec.containers")
    code, body = call(server, "GET", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse")
    assert code == 200 and body["kind"] == "NodeList"
    code, body = call(server, "GET", f"{_CMS}?fieldSelector=data.k%3Dv")
    assert code == 400 and body["message"] == "field label not supported: data.k"
    code, body = call(server, "GET", "/api/v1/pods?labelSelector=" + urllib.parse.quote("a in (b"))
    assert code == 400 and body["reason"] == "BadRequest"
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"}, "reason": "Started",
             "involvedObject": {"kind": "Pod", "name": "a", "namespace": "default"}}
    assert call(server, "POST", "/api/v1/namespaces/default/events", event)[0] == 201
    code, body = call(server, "GET", "/api/v1/events?fieldSelector=involvedObject.name%3Da,reason%3DStarted")
    assert code == 200 and _names(body) == ["e1"]


def test_paging_through_1000_objects_with_limit_7(server: KubesimServer) -> None:
    for i in range(1000):
        code, _ = call(server, "POST", _CMS, {"apiVersion": "v1", "kind": "ConfigMap",
                                              "metadata": {"name": f"cm-{i:04d}", "labels": {"odd": str(i % 2)}}})
        assert code == 201
    rv = call(server, "GET", _CMS)[1]["metadata"]["resourceVersion"]
    seen: list[str] = []
    token = ""
    for _ in range(200):  # bounded: 143 pages expected
        query = "limit=7" + (f"&continue={urllib.parse.quote(token)}" if token else "")
        code, body = call(server, "GET", f"{_CMS}?{query}")
        assert code == 200 and body["metadata"]["resourceVersion"] == rv
        seen += _names(body)
        token = body["metadata"].get("continue", "")
        if not token:
            assert "remainingItemCount" not in body["metadata"]
            break
        assert body["metadata"]["remainingItemCount"] == 1000 - len(seen)
        decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        assert decoded == {"v": "meta.k8s.io/v1", "rv": int(rv), "start": f"default/{seen[-1]}\x00"}
    assert seen == [f"cm-{i:04d}" for i in range(1000)]
    # the official client pages with a label selector (no remainingItemCount then)
    core = client.CoreV1Api(api_client(server))
    first = core.list_namespaced_config_map("default", label_selector="odd=1", limit=7, _request_timeout=20)
    assert [c.metadata.name for c in first.items] == [f"cm-{i:04d}" for i in range(1, 15, 2)]
    assert first.metadata.remaining_item_count is None
    second = core.list_namespaced_config_map("default", label_selector="odd=1", limit=7,
                                             _continue=first.metadata._continue, _request_timeout=20)
    assert [c.metadata.name for c in second.items] == [f"cm-{i:04d}" for i in range(15, 29, 2)]


def test_bad_and_expired_continue_tokens(server: KubesimServer) -> None:
    code, body = call(server, "GET", f"{_CMS}?limit=1&continue=not-a-token")
    assert code == 400 and body["message"].startswith("invalid continue token: continue key is not valid")
    future = base64.urlsafe_b64encode(json.dumps({"v": "meta.k8s.io/v1", "rv": 10**9, "start": "default/a\x00"})
                                      .encode()).decode()
    code, body = call(server, "GET", f"{_CMS}?limit=1&continue={future}")
    assert (code, body["reason"]) == (410, "Expired")
    assert body["message"].startswith("The provided continue parameter is too old")
    code, body = call(server, "GET", f"{_CMS}?limit=x")
    assert code == 400


def test_list_resource_version_options(server: KubesimServer) -> None:
    rv = int(call(server, "GET", _CMS)[1]["metadata"]["resourceVersion"])
    code, body = call(server, "GET", f"{_CMS}?resourceVersionMatch=Exact")
    assert (code, body["reason"]) == (422, "Invalid")
    assert body["message"] == ('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                               "resourceVersionMatch is forbidden unless resourceVersion is provided")
    code, body = call(server, "GET", f"{_CMS}?resourceVersion=0&resourceVersionMatch=Sideways")
    assert code == 422 and 'Unsupported value: "Sideways"' in body["message"]
    # what informers send: resourceVersion=0 (any), or NotOlderThan / Exact the current one
    for query in ("resourceVersion=0&limit=500", f"resourceVersion={rv}&resourceVersionMatch=NotOlderThan",
                  f"resourceVersion={rv}&resourceVersionMatch=Exact"):
        code, body = call(server, "GET", f"{_CMS}?{query}")
        assert (code, body["metadata"]["resourceVersion"]) == (200, str(rv)), query
    call(server, "POST", _CMS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "later"}})
    code, body = call(server, "GET", f"{_CMS}?resourceVersion={rv}&resourceVersionMatch=Exact")
    assert (code, body["reason"]) == (410, "Expired")
    code, body = call(server, "GET", f"{_CMS}?resourceVersion={rv + 100}")
    assert (code, body["reason"], body["details"]["causes"][0]["reason"]) == (504, "Timeout", "ResourceVersionTooLarge")
