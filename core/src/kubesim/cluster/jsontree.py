"""JSON trees (the dicts and lists objects are made of): a fast copy and a lenient loader.

Stored objects are plain JSON trees; every write copies the caller's tree once, so the copy
must be cheap. `copy_tree` is about five times faster than `copy.deepcopy` on a pod.
"""

from __future__ import annotations

from typing import Any, TypeVar

import yaml

from kubesim.duplicate_keys import DuplicateKeys, load_json, load_yaml
from kubesim.errors import BadRequest

__all__ = ["FastStringTimestampLoader", "JSONObject", "StringTimestampLoader", "copy_tree", "load_document"]

JSONObject = dict[str, Any]
"""One Kubernetes object (or any JSON object) as Python data."""

_dict = dict
_list = list
T = TypeVar("T")


def copy_tree(value: T) -> T:
    """Copy a JSON tree: new dicts and lists, shared immutable leaves (str, int, float, bool, None)."""
    return _copy(value)  # type: ignore[no-any-return]


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is _dict:
        out = {}
        for k, v in value.items():
            tv = type(v)
            out[k] = _copy(v) if (tv is _dict or tv is _list) else v
        return out
    if kind is _list:
        return [_copy(v) if (type(v) is _dict or type(v) is _list) else v for v in value]
    return value


_NO_TIMESTAMPS = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class StringTimestampLoader(yaml.SafeLoader):  # type: ignore[misc]
    """YAML 1.1 safe loader that keeps timestamps as strings, as Kubernetes' YAML-to-JSON
    conversion (sigs.k8s.io/yaml) does: `date: 2025-01-01` is the string "2025-01-01"."""

    yaml_implicit_resolvers = _NO_TIMESTAMPS


_C_LOADER = getattr(yaml, "CSafeLoader", None)
FastStringTimestampLoader: Any = (
    type("FastStringTimestampLoader", (_C_LOADER,), {"yaml_implicit_resolvers": _NO_TIMESTAMPS})
    if _C_LOADER is not None
    else None
)
"""StringTimestampLoader on libyaml, when PyYAML was built with it (None otherwise)."""


def load_document(text: str | bytes) -> Any:
    """Parse a JSON or YAML document (JSON first: it is the fast, common case).

    Raises BadRequest with the parser's message when the text is neither, or naming the
    path of a key written twice.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        return load_json(text)
    except DuplicateKeys as exc:  # the API server's strict decoding: "duplicate field"
        raise BadRequest(f"invalid document: {exc}") from None
    except ValueError:
        pass
    try:
        return load_yaml(text, StringTimestampLoader)
    except DuplicateKeys as exc:
        raise BadRequest(f"invalid document: {exc}") from None
    except yaml.YAMLError as exc:
        raise BadRequest(f"invalid JSON or YAML document: {exc}") from None
