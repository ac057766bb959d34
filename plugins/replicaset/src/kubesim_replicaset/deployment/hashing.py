"""The pod-template-hash: how a Deployment names its ReplicaSets and tells templates apart.

Upstream (k8s.io/kubernetes pkg/controller/controller_utils.go ComputeHash) hashes the Go
struct dump (go-spew "%#v") of the v1.PodTemplateSpec with FNV-32a, adds the
collisionCount as 8 little-endian bytes, and encodes the decimal sum with
rand.SafeEncodeString. The Go struct dump cannot be reproduced from JSON (it prints every
field of every Go type, set or not), so kubesim feeds FNV-32a the canonical JSON of the
template instead (sorted keys, no whitespace, empty values and the hash label left out,
quantities normalised) and keeps the rest of the recipe. Hashes are therefore stable and
deterministic, look like upstream's (`web-7b9c6d4f8`), but differ from a real cluster's.

EqualIgnoreHash (pkg/controller/deployment/util/deployment_util.go) compares templates
the same canonical way, which stands in for apimachinery's semantic DeepEqual (nil and
empty are equal, quantities compare by value).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from typing import Any

from kubesim.k8s.quantity import parse_quantity

__all__ = [
    "DEFAULT_UNIQUE_LABEL_KEY",
    "canonical_template",
    "compute_hash",
    "equal_ignore_hash",
    "fnv32a",
    "safe_encode_string",
]

DEFAULT_UNIQUE_LABEL_KEY = "pod-template-hash"
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193
_QUANTITY_MAPS = frozenset(("requests", "limits", "overhead", "capacity"))


def fnv32a(data: bytes, h: int = _FNV_OFFSET) -> int:
    """32-bit FNV-1a of `data` (hash/fnv New32a), continuing from `h`."""
    for b in data:
        h = ((h ^ b) * _FNV_PRIME) & 0xFFFFFFFF
    return h


def safe_encode_string(s: str) -> str:
    """rand.SafeEncodeString: map every character onto the vowel-free alphabet."""
    return "".join(_ALPHANUMS[ord(c) % len(_ALPHANUMS)] for c in s)


def _normalise(value: Any, key: str = "") -> Any:
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if key in _QUANTITY_MAPS and isinstance(v, (str, int, float)) and not isinstance(v, bool):
                try:
                    out[k] = str(parse_quantity(v).normalize())
                    continue
                except ValueError:
                    pass
            n = _normalise(v, k)
            if n is not None:
                out[k] = n
        return out or None
    if isinstance(value, list):
        items = [_normalise(v) for v in value]
        return items or None
    return value


_cache: dict[int, tuple[Mapping[str, Any], str]] = {}
_CACHE_SIZE = 4096


def canonical_template(template: Mapping[str, Any] | None) -> str:
    """The template as canonical JSON without its hash label (what is hashed and compared).

    Results are cached per template object: controllers compare the same stored (never
    mutated) templates again and again; a cached entry keeps its object alive, so an id is
    never reused while cached. Do not mutate a template after passing it here.
    """
    if template is None:
        return "{}"
    hit = _cache.get(id(template))
    if hit is not None and hit[0] is template:
        return hit[1]
    t = dict(template)
    meta = dict(t.get("metadata") or {})
    labels = dict(meta.get("labels") or {})
    labels.pop(DEFAULT_UNIQUE_LABEL_KEY, None)
    meta["labels"] = labels
    t["metadata"] = meta
    text = json.dumps(_normalise(t) or {}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if len(_cache) >= _CACHE_SIZE:
        _cache.clear()
    _cache[id(template)] = (template, text)
    return text


def compute_hash(template: Mapping[str, Any] | None, collision_count: int | None) -> str:
    """ComputeHash: FNV-32a of the canonical template (+ collisionCount), SafeEncodeString'd."""
    h = fnv32a(canonical_template(template).encode())
    if collision_count is not None:
        h = fnv32a(struct.pack("<I", collision_count & 0xFFFFFFFF) + b"\x00" * 4, h)
    return safe_encode_string(str(h))


def equal_ignore_hash(t1: Mapping[str, Any] | None, t2: Mapping[str, Any] | None) -> bool:
    """EqualIgnoreHash: the templates are equal apart from their pod-template-hash labels."""
    return canonical_template(t1) == canonical_template(t2)
