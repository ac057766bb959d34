"""What the API server's validation says about creating an object, without cluster state.

`kubesim validate` and `kubesim run` use it to reject a scenario whose objects the API
server would refuse (a pod without containers, a bad name) before anything runs.
Checks that need cluster state (the namespace exists, admission plugins) stay at run time.
"""

from __future__ import annotations

from typing import Any

from kubesim.errors import ApiError, BadRequest
from kubesim.k8s.content_memo import content_key
from kubesim.k8s.decoding import decoding_message, metadata_decoding_message
from kubesim.k8s.validation import invalid_error, name_check_for, validate_object_meta

from .jsontree import copy_tree
from .registry import ResourceRegistry
from .strategies import apply_defaults, prepare_for_validation, validate_kind

__all__ = ["check_new_object", "metadata_accepted", "name_free_key"]

_PLACEHOLDER_SUFFIX = "zzzzz"  # stands in for the 5 characters generateName adds
_PLACEHOLDER_UID = "00000000-0000-0000-0000-000000000000"  # the uid the create would assign


def check_new_object(
    registry: ResourceRegistry, obj: dict[str, Any], field_validation: str = "Strict", *, copy: bool = True
) -> str | None:
    """The BadRequest (400, decoding) or Invalid (422) message creating `obj` would get, or None.

    Raises NotFound when the kind is not registered. copy=False checks `obj` itself, which
    it changes (defaults): for a caller that built `obj` for this check only.
    """
    rt = registry.lookup(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    original = obj.get("metadata")
    name = original.get("name") if isinstance(original, dict) else None
    candidate = copy_tree(obj) if copy else obj
    if registry.is_builtin(rt):
        decoding = decoding_message(rt.group, rt.version, rt.kind, candidate, strict=field_validation == "Strict")
    else:
        decoding = metadata_decoding_message(rt.version, rt.kind, candidate)
    if decoding is not None:
        return decoding
    meta = candidate.get("metadata")
    if not isinstance(meta, dict):
        meta = candidate["metadata"] = {}
    if not meta.get("name") and isinstance(meta.get("generateName"), str) and meta["generateName"]:
        meta["name"] = meta["generateName"] + _PLACEHOLDER_SUFFIX
    try:
        apply_defaults(rt, candidate, field_validation)
    except BadRequest as exc:  # a custom resource with fields its schema does not declare
        return exc.message
    meta["uid"] = _PLACEHOLDER_UID
    prepare_for_validation(rt, candidate)
    errors = validate_object_meta(meta, name_check_for(rt.group, rt.kind))
    errors.extend(validate_kind(rt, candidate))
    if not errors:
        return None
    return invalid_error(rt.group_kind, str(name or ""), errors).message


_NAME_FREE_KINDS = frozenset({("", "Pod"), ("", "Node")})
"""Kinds whose check depends on metadata.name only through validate_object_meta: decoding
takes any string, and neither defaulting nor the kind's validation reads the name."""


def name_free_key(registry: ResourceRegistry, obj: dict[str, Any], field_validation: str) -> bytes | None:
    """A content key of `obj` without its metadata.name, for remembering that a check of such an
    object found nothing (then only `metadata_accepted` is left to ask); None when the kind's
    check depends on more than that, or the name is not a string."""
    meta = obj.get("metadata")
    if type(meta) is not dict or type(meta.get("name", "")) is not str:
        return None
    try:
        rt = registry.lookup(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    except ApiError:
        return None
    if (rt.group, rt.kind) not in _NAME_FREE_KINDS or not registry.is_builtin(rt):
        return None
    return content_key((rt.group, rt.version, rt.kind, field_validation, "name" in meta,
                        {**obj, "metadata": {k: v for k, v in meta.items() if k != "name"}}))


def metadata_accepted(registry: ResourceRegistry, obj: dict[str, Any]) -> bool:
    """Whether validate_object_meta finds nothing in `obj`'s metadata as check_new_object sees it
    (generateName's placeholder suffix, a uid): what is left to check of an object whose
    `name_free_key` passed before."""
    rt = registry.lookup(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    meta = dict(obj["metadata"])
    if not meta.get("name") and isinstance(meta.get("generateName"), str) and meta["generateName"]:
        meta["name"] = meta["generateName"] + _PLACEHOLDER_SUFFIX
    meta["uid"] = _PLACEHOLDER_UID
    return not validate_object_meta(meta, name_check_for(rt.group, rt.kind))
