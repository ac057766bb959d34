"""ControllerRevisions of a StatefulSet: what a revision holds, its name and how they compare.

Upstream: pkg/controller/statefulset/stateful_set_utils.go (getPatch, newRevision,
ApplyRevision, nextRevision) and pkg/controller/history/controller_history.go
(NewControllerRevision, HashControllerRevision, ControllerRevisionName, EqualRevision,
SortControllerRevisions).

The hash is computed as upstream does it, FNV-1 (32 bit) over the revision's data bytes and
the decimal collision count, written with rand.SafeEncodeString, but over kubesim's bytes:
the patch `{"spec":{"template":{...,"$patch":"replace"}}}` as compact JSON with sorted keys
of the template as stored (the API server's v1 defaulting of every template field is not
repeated). Names are therefore stable and deterministic, but not bit-for-bit those of a
real cluster.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kubesim.cluster import copy_tree

from .identity import controller_ref

__all__ = [
    "HASH_LABEL",
    "apply_revision",
    "equal_revision",
    "fnv1_32",
    "hash_revision",
    "new_revision",
    "next_revision",
    "revision_data",
    "revision_name",
    "safe_encode",
    "sort_revisions",
]

HASH_LABEL = "controller.kubernetes.io/hash"
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand
_NAME_PREFIX_MAX = 223  # history.ControllerRevisionName: 253 minus room for the hash
_FNV_OFFSET, _FNV_PRIME = 2166136261, 16777619


def revision_data(sts: Mapping[str, Any]) -> dict[str, Any]:
    """The revision's data: a strategic merge patch that restores the set's pod template."""
    template = copy_tree(dict((sts.get("spec") or {}).get("template") or {}))
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def data_bytes(data: Mapping[str, Any]) -> bytes:
    """The revision data as Go's json.Marshal writes maps: compact, sorted keys, HTML escaped."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text.encode()


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: each byte mapped to a consonant or digit that cannot spell words."""
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in text.encode())


def fnv1_32(payload: bytes) -> int:
    """FNV-1 (not 1a), 32 bit, as Go's hash/fnv New32."""
    h = _FNV_OFFSET
    for b in payload:
        h = (h * _FNV_PRIME) & 0xFFFFFFFF
        h ^= b
    return h


def hash_revision(data: Mapping[str, Any], collision_count: int | None) -> str:
    """HashControllerRevision: FNV-1 32-bit of the data (and collision count), safe-encoded."""
    payload = data_bytes(data)
    if collision_count is not None:
        payload += str(collision_count).encode()
    return safe_encode(str(fnv1_32(payload)))


def revision_name(set_name: str, hash_: str) -> str:
    """ControllerRevisionName: `<set>-<hash>`, the set's name cut to 223 characters."""
    return f"{set_name[:_NAME_PREFIX_MAX]}-{hash_}"


def new_revision(sts: Mapping[str, Any], revision: int, collision_count: int) -> dict[str, Any]:
    """A ControllerRevision for the set's current template (newRevision + NewControllerRevision)."""
    meta = sts.get("metadata") or {}
    template_labels = (((sts.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
    data = revision_data(sts)
    hash_ = hash_revision(data, collision_count)
    rev_meta: dict[str, Any] = {
        "name": revision_name(str(meta.get("name", "")), hash_),
        "namespace": meta.get("namespace", "default"),
        "labels": {**template_labels, HASH_LABEL: hash_},
        "ownerReferences": [controller_ref(sts)],
    }
    if meta.get("annotations"):
        rev_meta["annotations"] = dict(meta["annotations"])
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": rev_meta,
        "data": data,
        "revision": revision,
    }


def equal_revision(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """history.EqualRevision: the same data."""
    if a is None or b is None:
        return a is b
    return data_bytes(a.get("data") or {}) == data_bytes(b.get("data") or {})


def sort_revisions(revisions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """history.SortControllerRevisions: by revision number, then creation time, then name."""
    def key(r: Mapping[str, Any]) -> tuple[int, str, str]:
        meta = r.get("metadata") or {}
        return int(r.get("revision") or 0), str(meta.get("creationTimestamp") or ""), str(meta.get("name", ""))

    return sorted(revisions, key=key)


def next_revision(revisions: Sequence[Mapping[str, Any]]) -> int:
    """One more than the highest revision number (1 for the first); `revisions` sorted."""
    return int(revisions[-1].get("revision") or 0) + 1 if revisions else 1


def apply_revision(sts: Mapping[str, Any], revision: Mapping[str, Any]) -> dict[str, Any]:
    """The set as it was at `revision`: its pod template replaced by the revision's."""
    out = copy_tree(dict(sts))
    template = copy_tree(dict(((revision.get("data") or {}).get("spec") or {}).get("template") or {}))
    template.pop("$patch", None)
    out.setdefault("spec", {})["template"] = template
    return out
