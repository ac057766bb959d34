"""PartialObjectMetadata responses: `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`
(…List for collections), what client-go's metadata informers ask for.

As k8s.io/apiserver pkg/endpoints/handlers/response.go transformObject: only the objects'
metadata, each as a meta.k8s.io PartialObjectMetadata; a list keeps its resourceVersion and continue.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.serve.negotiation import MediaRange, pick_as

__all__ = ["METADATA_VERSIONS", "partial_metadata_response"]

METADATA_VERSIONS = ("v1", "v1beta1")


def _partial(obj: Mapping[str, Any], api_version: str) -> dict[str, Any]:
    meta = obj.get("metadata")
    return {"kind": "PartialObjectMetadata", "apiVersion": api_version,
            "metadata": dict(meta) if isinstance(meta, Mapping) else {}}


def partial_metadata_response(body: Mapping[str, Any], request_accept: str | None) -> tuple[dict[str, Any], str] | None:
    """`body` (one object or a list body) as PartialObjectMetadata(List) and its Content-Type, when the
    Accept header asks for that; None: answer `body` itself."""
    items = body.get("items")
    is_list = isinstance(items, list)
    kind = "PartialObjectMetadataList" if is_list else "PartialObjectMetadata"
    wanted: MediaRange | None = pick_as(request_accept, "meta.k8s.io", kind, METADATA_VERSIONS)
    if wanted is None:
        return None
    api_version = f"meta.k8s.io/{wanted.params['v']}"
    if not isinstance(items, list):
        return _partial(body, api_version), wanted.header()
    list_meta = body.get("metadata") or {}
    meta = {k: list_meta[k] for k in ("resourceVersion", "continue", "remainingItemCount") if k in list_meta}
    return ({"kind": kind, "apiVersion": api_version, "metadata": meta,
             "items": [_partial(o, api_version) for o in items if isinstance(o, Mapping)]}, wanted.header())
