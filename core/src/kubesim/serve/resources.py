"""Resource URLs: which registered kind, namespace, name and subresource a request path names.

Follows k8s.io/apiserver pkg/endpoints/request/requestinfo.go: /api/v1/... for the core
group, /apis/GROUP/VERSION/... for the others; `namespaces/NS/` before a namespaced
resource; NAME and one SUBRESOURCE after it; the old `watch/` prefix is a watch request.
"""

from __future__ import annotations

import attrs

from kubesim.cluster.registry import ResourceRegistry, ResourceType
from kubesim.errors import NotFound

__all__ = ["RequestInfo", "parse_path", "resolve", "served_versions"]


@attrs.frozen
class RequestInfo:
    """A resource request's parts (requestinfo.go's RequestInfo, less the verb)."""

    group: str
    version: str
    resource: str
    namespace: str | None = None
    name: str | None = None
    subresource: str | None = None
    watch_prefix: bool = False

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def parse_path(path: str) -> RequestInfo | None:
    """The resource request a URL path names; None for non-resource paths (discovery, /version...)."""
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 3 and parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif len(parts) >= 4 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    watch = False
    if rest[0] == "watch":
        watch, rest = True, rest[1:]
        if not rest:
            return None
    namespace = None
    # namespaces/NS/RESOURCE...: a namespaced resource; namespaces[/NAME[/SUB]]: the Namespace kind
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    if len(rest) > 3:
        return None
    resource = rest[0]
    name = rest[1] if len(rest) >= 2 else None
    sub = rest[2] if len(rest) == 3 else None
    return RequestInfo(group, version, resource, namespace, name, sub, watch)


def served_versions(registry: ResourceRegistry, rt: ResourceType) -> list[str]:
    """The versions in which `rt` is served (a CRD may serve several), storage version first."""
    versions = [rt.version]
    custom = rt.custom
    if custom is not None:
        for version in sorted(custom.schemas):
            if version not in versions:
                versions.append(version)
    return versions


def resolve(registry: ResourceRegistry, info: RequestInfo) -> ResourceType:
    """The registered type a request's group, version and resource name; NotFound as kube-apiserver's 404."""
    for rt in registry.types():
        if rt.group == info.group and rt.plural == info.resource:
            try:
                if registry.lookup(info.api_version, rt.kind) is rt:
                    return rt
            except NotFound:
                break
    raise NotFound("the server could not find the requested resource")
