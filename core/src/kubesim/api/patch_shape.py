"""What a patch body must look like for its patch type, checked before anything runs.

`kubesim validate` and the engine both call `check_patch_shape`, so a patch the API server
would refuse on its body alone fails validation with the same message as a run:

- JSON patch (RFC 6902, as evanphx/json-patch decodes it for kube-apiserver): a list of
  objects, each with a known `op`, a `path` that is a JSON pointer (RFC 6901), a `value` for
  add/replace/test and a `from` pointer for move/copy;
- JSON merge patch and strategic merge patch: an object; `metadata` an object, its labels
  and annotations strings (or null to remove one);
- strategic merge patch directives (k8s.io/apimachinery/pkg/util/strategicpatch/patch.go):
  `$patch` is replace, merge or delete, `$retainKeys` a list of strings,
  `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` lists;
- no patch changes `kind` (the API server cannot decode the patched object into the
  target's type); `apiVersion` changes are checked where the served versions are known.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from kubesim.cluster.patches import kind_change_message
from kubesim.k8s.values import json_kind, non_json_value

__all__ = [
    "JSON_PATCH_OPS",
    "check_patch_shape",
    "type_meta_changes",
]

JSON_PATCH_OPS = ("add", "remove", "replace", "move", "copy", "test")
_NEEDS_VALUE = ("add", "replace", "test")
_NEEDS_FROM = ("move", "copy")
_POINTER = re.compile(r"(/([^~/]|~[01])*)*")
_SMP_PATCH_VALUES = ("replace", "merge", "delete")


def check_patch_shape(body: Any, kind: str, target_api_version: str, target_kind: str) -> None:
    """Raise ValueError naming the first thing wrong with a parsed patch body of `kind`
    ("json", "merge" or "strategic") meant for an object of `target_api_version`/`target_kind`."""
    problems = _json_patch(body) if kind == "json" else _object_patch(body, kind)
    for problem in problems:
        raise ValueError(problem)
    bad_number = non_json_value(body, "patch")
    if bad_number:
        raise ValueError(bad_number.removeprefix("patch.").removeprefix("patch"))
    for field, value in type_meta_changes(body, kind):
        if field == "kind" and target_kind and value != target_kind:
            raise ValueError(kind_change_message(value, target_kind))


def _json_patch(body: Any) -> Iterator[str]:
    if not isinstance(body, list):
        yield f"a JSON patch must be a list of operations, not {json_kind(body)}"
        return
    for i, op in enumerate(body):
        where = f"[{i}]"
        if not isinstance(op, dict):
            yield f"{where}: an operation must be an object with op and path, not {json_kind(op)}"
            continue
        name = op.get("op")
        if not isinstance(name, str):
            yield f"{where}.op: required: one of {', '.join(JSON_PATCH_OPS)}"
            continue
        if name not in JSON_PATCH_OPS:
            yield f'{where}.op: Unsupported value: "{name}": supported values: {", ".join(JSON_PATCH_OPS)}'
            continue
        for field in ("path",) + (("from",) if name in _NEEDS_FROM else ()):
            pointer = op.get(field)
            if not isinstance(pointer, str):
                yield f"{where}.{field}: required: a JSON pointer such as /metadata/labels"
            elif not _POINTER.fullmatch(pointer):
                yield (f'{where}.{field}: Invalid value: "{pointer}": a JSON pointer is empty or starts '
                       "with /, and ~ is followed by 0 or 1")
        if name in _NEEDS_VALUE and "value" not in op:
            yield f"{where}.value: required: {name} needs a value"


def _object_patch(body: Any, kind: str) -> Iterator[str]:
    if not isinstance(body, dict):
        yield f"a {kind} merge patch must be an object, not {json_kind(body)}"
        return
    meta = body.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        yield f"metadata must be an object, not {json_kind(meta)}"
    elif isinstance(meta, dict):
        for field in ("labels", "annotations"):
            values = meta.get(field)
            if values is not None and not (
                isinstance(values, dict)
                and all(isinstance(v, str) or v is None for v in values.values())
            ):
                yield f"metadata.{field} must map strings to strings"
    if kind == "strategic":
        yield from _directives(body, "")


def _directives(value: Any, path: str) -> Iterator[str]:
    """Strategic merge patch directives anywhere in the body, with their field paths."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from _directives(item, f"{path}[{i}]")
        return
    if not isinstance(value, dict):
        return
    prefix = f"{path}." if path else ""
    for key, item in value.items():
        where = f"{prefix}{key}"
        if key == "$patch":
            if item not in _SMP_PATCH_VALUES:
                shown = f'"{item}"' if isinstance(item, str) else json_kind(item)
                yield f"{where}: Unsupported value: {shown}: supported values: {', '.join(_SMP_PATCH_VALUES)}"
        elif key == "$retainKeys":
            if not isinstance(item, list) or not all(isinstance(k, str) for k in item):
                yield f"{where}: must be a list of field names"
        elif isinstance(key, str) and key.startswith(("$deleteFromPrimitiveList/", "$setElementOrder/")):
            if not isinstance(item, list):
                yield f"{where}: must be a list, not {json_kind(item)}"
        else:
            yield from _directives(item, where)


def type_meta_changes(body: Any, kind: str) -> Iterator[tuple[str, Any]]:
    """(field, new value) for every kind/apiVersion a parsed patch body of `kind` sets."""
    if kind == "json":
        if isinstance(body, list):
            for op in body:
                if isinstance(op, dict) and op.get("op") in ("add", "replace") and "value" in op:
                    path = op.get("path")
                    if path in ("/kind", "/apiVersion"):
                        yield str(path)[1:], op["value"]
        return
    if isinstance(body, dict):
        for field in ("kind", "apiVersion"):
            if body.get(field) is not None:
                yield field, body[field]
