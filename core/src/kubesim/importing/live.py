"""Reading a live cluster's objects through the official `kubernetes` client.

Lists are read in pages (limit and continue, as kubectl and client-go's pager do:
k8s.io/client-go/tools/pager/pager.go, 500 items a page), each request with a timeout. API
groups the server does not serve (discovery, GET /apis) are skipped without a word: the DRA
group resource.k8s.io exists only on recent clusters.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from typing import Any

from .kinds import IMPORTED_KINDS, KindSpec
from .selection import select_objects

__all__ = ["KubeconfigError", "LiveImportError", "MAX_LIVE_OBJECTS", "PAGE_SIZE", "REQUEST_TIMEOUT",
           "objects_from_cluster", "read_cluster"]

PAGE_SIZE = 500
REQUEST_TIMEOUT = 60.0
"""Seconds one request (a page of a list) may take."""
MAX_LIVE_OBJECTS = 2_000_000
"""At most this many objects are read from a cluster (a bound on memory and time)."""
_MAX_PAGES = MAX_LIVE_OBJECTS // PAGE_SIZE + 100

Progress = Callable[[str, int], None]
"""Called with a kind and the number of its objects read so far."""


class LiveImportError(Exception):
    """The cluster could not be read: the connection failed or the server refused a request."""


class KubeconfigError(LiveImportError):
    """The kubeconfig (or its context) is missing or invalid."""


def _connect(kubeconfig: str | None, context: str | None) -> Any:
    from kubernetes import config  # imported on use: only `kubesim import` needs the client
    from kubernetes.config.config_exception import ConfigException

    try:
        connect: Any = config.new_client_from_config  # untyped in some client versions, typed in others
        return connect(config_file=kubeconfig, context=context, persist_config=False)
    except ConfigException as exc:
        raise KubeconfigError(f"kubeconfig {kubeconfig or '(default)'}: {exc}") from None
    except OSError as exc:
        raise KubeconfigError(f"kubeconfig {kubeconfig or '(default)'}: {exc.strerror or exc}") from None


def _served_versions(client: Any) -> dict[str, list[str]]:
    """Group name -> served versions, preferred first (GET /apis)."""
    from kubernetes import client as k8s

    response: Any = k8s.ApisApi(client).get_api_versions(_preload_content=False, _request_timeout=REQUEST_TIMEOUT)
    groups = json.loads(response.data).get("groups") or []
    out: dict[str, list[str]] = {"": ["v1"]}
    for group in groups:
        preferred = (group.get("preferredVersion") or {}).get("version")
        versions = [v.get("version") for v in group.get("versions") or [] if v.get("version")]
        out[group.get("name", "")] = sorted(versions, key=lambda v: v != preferred)
    return out


def list_function(client: Any, spec: KindSpec, version: str, namespace: str | None) -> Callable[..., Any]:
    """The official client's list call for a kind (in a namespace, or all): called with list
    options (limit, label_selector, watch, ...) and `_preload_content=False`, it returns the
    raw response, whatever the client's version."""
    from kubernetes import client as k8s

    if spec.group == "":
        core = k8s.CoreV1Api(client)
        name = {"Namespace": "namespace", "Node": "node", "PersistentVolume": "persistent_volume",
                "PersistentVolumeClaim": "persistent_volume_claim", "Pod": "pod"}[spec.kind]
        if namespace is not None:
            return functools.partial(getattr(core, f"list_namespaced_{name}"), namespace)
        if spec.namespaced:
            return getattr(core, f"list_{name}_for_all_namespaces")  # type: ignore[no-any-return]
        return getattr(core, f"list_{name}")  # type: ignore[no-any-return]
    custom = k8s.CustomObjectsApi(client)
    if namespace is not None:
        return functools.partial(custom.list_namespaced_custom_object, spec.group, version, namespace, spec.plural)
    return functools.partial(custom.list_cluster_custom_object, spec.group, version, spec.plural)


def _pages(client: Any, spec: KindSpec, version: str, namespace: str | None, selector: str | None) -> Any:
    """One kind's list responses (decoded JSON), page after page."""
    list_call = list_function(client, spec, version, namespace)
    token: str | None = None
    for _ in range(_MAX_PAGES):
        kwargs: dict[str, Any] = {"limit": PAGE_SIZE, "_preload_content": False, "_request_timeout": REQUEST_TIMEOUT}
        if token:
            kwargs["_continue"] = token
        if selector and spec.namespaced:
            kwargs["label_selector"] = selector
        page = json.loads(list_call(**kwargs).data)
        yield page
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return
    raise LiveImportError(f"listing {spec.plural} did not end after {_MAX_PAGES} pages")


def _api_message(exc: Any) -> str:
    """"status reason: message" of an ApiException (the Status object's message when it has one)."""
    try:
        message = json.loads(exc.body or "{}").get("message")
    except (ValueError, AttributeError):
        message = None
    return f"{exc.status} {exc.reason}" + (f": {message}" if message else "")


def _skip_not_found(pages: Any) -> Any:
    """The pages, or none when the server does not serve the resource (404)."""
    from kubernetes.client.exceptions import ApiException

    try:
        yield from pages
    except ApiException as exc:
        if exc.status != 404:
            raise


def read_cluster(kubeconfig: str | None = None, context: str | None = None, namespaces: Sequence[str] = (),
                 selector: str | None = None, progress: Progress | None = None) -> list[dict[str, Any]]:
    """Every object of the imported kinds, as the server returns them (not cleaned).

    `namespaces` limits namespaced kinds (and Namespaces) to those named; `selector` is a
    label selector for namespaced kinds. Raises LiveImportError when the cluster cannot be read.
    """
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    client = _connect(kubeconfig, context)
    out: list[dict[str, Any]] = []
    try:
        try:
            served = _served_versions(client)
            for spec in IMPORTED_KINDS:
                version = next((v for v in served.get(spec.group, []) if v in spec.versions), None)
                if version is None:
                    continue  # the server does not have this group (or no version kubesim reads)
                api_version = f"{spec.group}/{version}" if spec.group else version
                scopes: Sequence[str | None] = sorted(set(namespaces)) if namespaces and spec.namespaced else [None]
                count = 0
                for namespace in scopes:
                    for page in _skip_not_found(_pages(client, spec, version, namespace, selector)):
                        for item in page.get("items") or []:
                            if spec.kind == "Namespace" and namespaces and \
                                    (item.get("metadata") or {}).get("name") not in namespaces:
                                continue
                            out.append({"apiVersion": api_version, "kind": spec.kind, **item})
                            count += 1
                        if len(out) > MAX_LIVE_OBJECTS:
                            raise LiveImportError(f"the cluster has more than {MAX_LIVE_OBJECTS} objects to import")
                        if progress is not None:
                            progress(spec.kind, count)
        finally:
            client.close()
    except ApiException as exc:
        raise LiveImportError(f"the API server refused a request: {_api_message(exc)}") from None
    except (HTTPError, OSError) as exc:
        raise LiveImportError(f"cannot reach the API server: {exc}") from None
    return out


def objects_from_cluster(kubeconfig: str | None = None, context: str | None = None,
                         namespaces: Sequence[str] = (), selector: str | None = None) -> list[dict[str, Any]]:
    """The imported objects of a live cluster, cleaned, in creation order (kinds.IMPORTED_KINDS);
    LiveImportError (KubeconfigError for the kubeconfig) when it cannot be read."""
    return select_objects(read_cluster(kubeconfig, context, namespaces, selector)).objects
