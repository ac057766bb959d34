"""Watches of a running `kubesim serve`: the official client, raw HTTP streams and kubectl -w."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from typing import Any

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from kubesim.testing import KubesimServer
from kubesim.testing.watchstream import WatchStream, connection, request_json


def _pod(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}


def _create(server: KubesimServer, name: str, namespace: str = "default", **labels: str) -> dict[str, Any]:
    status, body = request_json(server.url, "POST", f"/api/v1/namespaces/{namespace}/pods", _pod(name, labels))
    assert status == 201, body
    return body  # type: ignore[no-any-return]


def _core(server: KubesimServer) -> client.CoreV1Api:
    return client.CoreV1Api(config.new_client_from_config(config_file=str(server.kubeconfig)))


def _summary(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["type"], e["object"]["metadata"].get("name", "")) for e in events]


def test_python_client_streams_and_resumes_from_a_resource_version(server: KubesimServer) -> None:
    core = _core(server)
    first = _create(server, "a")
    _create(server, "b")
    w = watch.Watch()
    seen = []
    for event in w.stream(core.list_namespaced_pod, "default", resource_version=first["metadata"]["resourceVersion"],
                          timeout_seconds=5, _request_timeout=10):
        seen.append((event["type"], event["object"].metadata.name, event["object"].metadata.resource_version))
        w.stop()
    assert seen[0][:2] == ("ADDED", "b")  # resourceVersion is exclusive: "a" is not sent again
    # resume after "b": only what happens next
    core.delete_namespaced_pod("a", "default", _request_timeout=10)
    for event in w.stream(core.list_namespaced_pod, "default", resource_version=seen[0][2], timeout_seconds=5,
                          _request_timeout=10):
        assert (event["type"], event["object"].metadata.name) == ("DELETED", "a")
        assert int(event["object"].metadata.resource_version) > int(seen[0][2])
        w.stop()
        break
    else:
        pytest.fail("the watch ended without the DELETED event")


def test_python_client_receives_bookmarks(server: KubesimServer) -> None:
    core = _core(server)
    created = _create(server, "a")
    w = watch.Watch()
    kinds = []
    for event in w.stream(core.list_namespaced_pod, "default", resource_version=created["metadata"]["resourceVersion"],
                          allow_watch_bookmarks=True, timeout_seconds=3, _request_timeout=10):
        kinds.append(event["type"])
        if event["type"] == "BOOKMARK":
            assert event["raw_object"]["metadata"] == {"resourceVersion": created["metadata"]["resourceVersion"]}
            w.stop()
    assert kinds == ["BOOKMARK"]


def test_python_client_gets_410_for_a_compacted_version_and_relists(server: KubesimServer) -> None:
    core = _core(server)
    _create(server, "a")
    with pytest.raises(ApiException) as info:  # the client raises on an ERROR event with code 410
        for _ in watch.Watch().stream(core.list_namespaced_pod, "default", resource_version="1", timeout_seconds=5,
                                      _request_timeout=10):
            pass
    assert info.value.status == 410
    # the reflector's answer: relist, then watch from the list's resourceVersion
    listed = core.list_namespaced_pod("default", _request_timeout=10)
    _create(server, "b")
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_pod, "default", resource_version=listed.metadata.resource_version,
                          timeout_seconds=5, _request_timeout=10):
        assert (event["type"], event["object"].metadata.name) == ("ADDED", "b")
        w.stop()


def test_raw_stream_is_chunked_json_lines_with_initial_state_and_timeout(server: KubesimServer) -> None:
    _create(server, "a")
    start = time.monotonic()
    with WatchStream(server.url, "/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=2") as stream:
        assert stream.status == 200
        assert stream.response.getheader("Content-Type") == "application/json"
        assert stream.response.getheader("Transfer-Encoding") == "chunked"
        assert _summary(stream.read(count=1)) == [("ADDED", "a")]
        _create(server, "b")
        events = stream.read(timeout=10)  # the server ends the stream after timeoutSeconds
    assert _summary(events) == [("ADDED", "b")]
    assert 1.5 < time.monotonic() - start < 8


def test_too_old_resource_version_is_an_error_event_with_410(server: KubesimServer) -> None:
    _create(server, "a")
    with WatchStream(server.url, "/api/v1/pods?watch=1&resourceVersion=2") as stream:
        events = stream.read(timeout=10)
    assert stream.status == 200
    assert len(events) == 1 and events[0]["type"] == "ERROR"
    status = events[0]["object"]
    assert (status["kind"], status["code"], status["reason"]) == ("Status", 410, "Expired")
    assert status["message"].startswith("too old resource version: 2 (")


def test_bookmarks_carry_only_the_resource_version(server: KubesimServer) -> None:
    created = _create(server, "a")
    rv = created["metadata"]["resourceVersion"]
    # a bookmark is due 2 s before the watch's timeout (cache_watcher.go)
    with WatchStream(server.url, f"/api/v1/pods?watch=1&resourceVersion={rv}&allowWatchBookmarks=true"
                                 f"&timeoutSeconds=3") as stream:
        events = stream.read(until=lambda e: e["type"] == "BOOKMARK", timeout=10)
    assert events[-1]["object"] == {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": rv}}


def test_send_initial_events_ends_with_an_annotated_bookmark(server: KubesimServer) -> None:
    _create(server, "a")
    _create(server, "b")
    with WatchStream(server.url, "/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true"
                                 "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
                                 "&timeoutSeconds=5") as stream:
        events = stream.read(until=lambda e: e["type"] == "BOOKMARK", timeout=10)
        _create(server, "c")
        after = stream.read(count=1, timeout=10)
    assert _summary(events[:2]) == [("ADDED", "a"), ("ADDED", "b")]
    end = events[2]["object"]["metadata"]
    assert end["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert int(end["resourceVersion"]) >= 2
    assert _summary(after) == [("ADDED", "c")]
    status, body = request_json(server.url, "GET", "/api/v1/pods?watch=1&sendInitialEvents=true")
    assert status == 422 and "resourceVersionMatch to NotOlderThan" in body["message"]


def test_selectors_turn_changes_into_added_and_deleted(server: KubesimServer) -> None:
    a = _create(server, "a", app="web")
    rv = a["metadata"]["resourceVersion"]
    _create(server, "other", app="db")
    with WatchStream(server.url, f"/api/v1/pods?watch=1&resourceVersion={rv}&labelSelector=app%3Dweb"
                                 f"&timeoutSeconds=10") as stream:
        path = "/api/v1/namespaces/default/pods/"
        for labels in ({"app": "db"}, {"app": "web"}, {"app": "web", "tier": "1"}):
            status, body = request_json(server.url, "PUT", path + "a", _pod("a", labels))
            assert status == 200, body
        request_json(server.url, "DELETE", path + "other")
        request_json(server.url, "DELETE", path + "a")
        events = stream.read(count=4, timeout=10)
    # leaves the selection: DELETED (old object, new rv); enters it: ADDED; stays: MODIFIED
    assert [e["type"] for e in events] == ["DELETED", "ADDED", "MODIFIED", "DELETED"]
    assert events[0]["object"]["metadata"]["labels"] == {"app": "web"}
    assert int(events[0]["object"]["metadata"]["resourceVersion"]) > int(rv)
    assert {e["object"]["metadata"]["name"] for e in events} == {"a"}


def test_namespace_scope_and_watch_of_one_object(server: KubesimServer) -> None:
    request_json(server.url, "POST", "/api/v1/namespaces", {"metadata": {"name": "team"}})
    with WatchStream(server.url, "/api/v1/namespaces/team/pods?watch=1&timeoutSeconds=10") as in_team, \
            WatchStream(server.url, "/api/v1/watch/namespaces/default/pods/b?timeoutSeconds=10") as only_b, \
            WatchStream(server.url, "/api/v1/namespaces/default/pods?watch=1&fieldSelector=metadata.name%3Da"
                                    "&timeoutSeconds=10") as only_a:
        _create(server, "a")
        _create(server, "b")
        _create(server, "t", namespace="team")
        assert _summary(in_team.read(count=1)) == [("ADDED", "t")]
        assert _summary(only_b.read(count=1)) == [("ADDED", "b")]
        assert _summary(only_a.read(count=1)) == [("ADDED", "a")]


def test_kubectl_get_pods_watch_prints_a_created_pod(server: KubesimServer, kubectl: str) -> None:
    _create(server, "before")
    proc = subprocess.Popen([kubectl, "--kubeconfig", str(server.kubeconfig), "get", "pods", "-w",
                             "--request-timeout=60s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while not any(line.startswith("before") for line in lines):  # kubectl listed
            assert time.monotonic() < deadline and proc.poll() is None, (lines, proc.poll())
            time.sleep(0.05)
        _create(server, "during")  # kubectl watches from its list's resourceVersion
        while not any(line.startswith("during") for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, (lines, proc.poll())
            time.sleep(0.05)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    # the watch events are one-row Tables (Accept as=Table), printed in the list's columns, no new header
    assert lines[0].split()[:3] == ["NAME", "READY", "STATUS"], (lines, err)
    during = next(line for line in lines if line.startswith("during")).split()
    assert during[1:3] == ["0/1", "Pending"], (lines, err)
    assert sum(line.startswith("NAME") for line in lines) == 1, lines


def test_slow_reader_does_not_stall_writers(server: KubesimServer) -> None:
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(server.url)
    # a raw socket with a tiny receive buffer that sends a watch request and never reads
    slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.settimeout(10)
    slow.connect((parts.hostname, parts.port))
    slow.sendall(b"GET /api/v1/pods?watch=1&resourceVersion=0 HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        conn = connection(server.url)
        labels = {"padding": "x" * 60}
        start = time.monotonic()
        for i in range(1000):
            status, body = request_json(server.url, "POST", "/api/v1/namespaces/default/pods",
                                        _pod(f"p{i}", labels), via=conn)
            assert status == 201, body
        elapsed = time.monotonic() - start
        conn.close()
        # a fast watcher still sees everything, from the start
        with WatchStream(server.url, "/api/v1/pods?watch=1&resourceVersion=0&timeoutSeconds=30") as fast:
            events = fast.read(count=1000, timeout=30)
        assert len(events) == 1000
        assert elapsed < 30, elapsed
    finally:
        slow.close()


def test_table_watch_sends_column_definitions_once(server: KubesimServer) -> None:
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    _create(server, "a")
    _create(server, "b")
    conn = connection(server.url)
    conn.request("GET", "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=2", headers={"Accept": accept})
    response = conn.getresponse()
    assert response.getheader("Content-Type") == "application/json;as=Table;v=v1;g=meta.k8s.io"
    events = [json.loads(line) for line in response.read().splitlines() if line.strip()]
    conn.close()
    assert [(e["type"], e["object"]["kind"]) for e in events] == [("ADDED", "Table"), ("ADDED", "Table")]
    assert [c["name"] for c in events[0]["object"]["columnDefinitions"]][:3] == ["Name", "Ready", "Status"]
    assert events[1]["object"]["columnDefinitions"] is None  # handlers/watch.go: null after the first
    assert [e["object"]["rows"][0]["cells"][0] for e in events] == ["a", "b"]


def test_metadata_watch_sends_partial_object_metadata(server: KubesimServer) -> None:
    created = _create(server, "a", app="web")
    accept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
    conn = connection(server.url)
    conn.request("GET", "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=3&allowWatchBookmarks=true",
                 headers={"Accept": accept})
    response = conn.getresponse()
    assert response.getheader("Content-Type") == "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
    events = [json.loads(line) for line in response.read().splitlines() if line.strip()]
    conn.close()
    assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]
    obj = events[0]["object"]
    assert (obj["kind"], obj["apiVersion"]) == ("PartialObjectMetadata", "meta.k8s.io/v1")
    assert obj["metadata"]["labels"] == {"app": "web"} and "spec" not in obj
    assert obj["metadata"]["uid"] == created["metadata"]["uid"]
    assert events[1]["object"]["kind"] == "PartialObjectMetadata"


def test_bad_watch_parameters_are_400_status(server: KubesimServer) -> None:
    for query, words in [("labelSelector=a%20in%20(", "unable to parse requirement"),
                         ("resourceVersion=abc", "invalid resource version"),
                         ("allowWatchBookmarks=maybe", "strconv.ParseBool"),
                         ("fieldSelector=spec.color%3Dred", "field label not supported: spec.color")]:
        status, body = request_json(server.url, "GET", f"/api/v1/pods?watch=1&{query}")
        assert (status, body["kind"], body["reason"]) == (400, "Status", "BadRequest"), body
        assert words in body["message"], body
