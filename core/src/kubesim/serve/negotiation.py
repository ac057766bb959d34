"""Accept-header negotiation: which of kube-apiserver's alternative representations a client asks for.

Clients name a representation with media-type parameters, as
k8s.io/apimachinery pkg/runtime/serializer and k8s.io/apiserver pkg/endpoints/handlers/negotiation
read them: `application/json;as=Table;v=v1;g=meta.k8s.io` or
`application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`. kubesim answers JSON
only, so a protobuf range is skipped (the client's later JSON range is taken instead).
"""

from __future__ import annotations

import attrs

__all__ = ["MediaRange", "media_ranges", "pick_as"]

_JSON_TYPES = frozenset({"application/json", "application/*", "*/*"})


@attrs.frozen
class MediaRange:
    """One entry of an Accept header: type/subtype and its parameters (lower-case names)."""

    media_type: str
    params: dict[str, str] = attrs.field(eq=False)

    @property
    def json(self) -> bool:
        return self.media_type in _JSON_TYPES

    def header(self) -> str:
        """The Content-Type that answers this range: JSON with its g, v and as, in the client's order
        (kubectl reads back "application/json;as=Table;v=v1;g=meta.k8s.io" as it sent it)."""
        return ";".join(["application/json"] + [f"{k}={v}" for k, v in self.params.items() if k in ("g", "v", "as")])


def media_ranges(accept: str | None) -> list[MediaRange]:
    """The ranges of an Accept header in the client's order (q-values are not used by Kubernetes clients)."""
    found: list[MediaRange] = []
    for entry in (accept or "").split(",")[:32]:
        fields = [f.strip() for f in entry.split(";")]
        if not fields[0]:
            continue
        params: dict[str, str] = {}
        for field in fields[1:]:
            name, _, value = field.partition("=")
            params[name.strip().lower()] = value.strip().strip('"')
        found.append(MediaRange(fields[0].lower(), params))
    return found


def pick_as(accept: str | None, group: str, kind: str, versions: tuple[str, ...]) -> MediaRange | None:
    """The first JSON range asking for `kind` of `group` in one of `versions`, if it comes before any
    plain JSON range (then the client prefers the plain representation); None: answer the plain one."""
    for entry in media_ranges(accept):
        if not entry.json:
            continue
        wanted = entry.params.get("as")
        if wanted is None:
            return None
        if wanted == kind and entry.params.get("g") == group and entry.params.get("v") in versions:
            return entry
    return None
