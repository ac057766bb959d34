"""The three patch types a PATCH request may use, applied to a copy of the stored object.

JSON merge patch is RFC 7386; JSON patch (RFC 6902) uses the jsonpatch library; strategic
merge patch is in `strategic`. Errors map to the statuses kube-apiserver returns
(staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go): a bad body is 400, a JSON
patch that fails to apply (including a failed "test") is 422, an unknown or unsupported
patch type is 415.
"""

from __future__ import annotations

from typing import Any

import jsonpatch

from kubesim.errors import ApiError, BadRequest, Invalid
from kubesim.k8s.values import show_value

from .jsontree import copy_tree, load_document
from .strategic import PatchSchema, strategic_merge_patch

__all__ = [
    "JSON_PATCH",
    "MERGE_PATCH",
    "SMP_ON_CUSTOM_RESOURCE",
    "STRATEGIC_MERGE_PATCH",
    "UnsupportedMediaType",
    "api_version_change_message",
    "apply_patch",
    "kind_change_message",
    "merge_patch",
    "patch_kind",
    "unsupported_patch_message",
]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
_SHORT_NAMES = {"json": JSON_PATCH, "merge": MERGE_PATCH, "strategic": STRATEGIC_MERGE_PATCH}


class UnsupportedMediaType(ApiError):
    """415: the patch type is unknown, or strategic merge patch on a custom resource."""

    code = 415
    reason = "UnsupportedMediaType"


def patch_kind(patch_type: str, builtin: bool) -> str:
    """The content type for `patch_type` (short names accepted); 415 when not supported here.

    Upstream's message (patch.go) also lists application/apply-patch+yaml; server-side apply
    is not modelled, so only what kubesim accepts is listed, and strategic merge patch on a
    custom resource says what to use instead.
    """
    content_type = _SHORT_NAMES.get(patch_type, patch_type)
    if content_type not in _accepted(builtin):
        raise UnsupportedMediaType(unsupported_patch_message(content_type, builtin))
    return content_type


def _accepted(builtin: bool) -> tuple[str, ...]:
    return (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH) if builtin else (JSON_PATCH, MERGE_PATCH)


def unsupported_patch_message(content_type: str, builtin: bool) -> str:
    """The 415 message for a patch type the target (built in or not) does not take."""
    message = "the body of the request was in an unknown format - accepted media types include: " + ", ".join(
        _accepted(builtin)
    )
    if content_type == STRATEGIC_MERGE_PATCH:
        message += f" ({SMP_ON_CUSTOM_RESOURCE})"
    return message


SMP_ON_CUSTOM_RESOURCE = (
    "strategic merge patch is not supported for custom resources; use a merge patch or a JSON patch"
)


def kind_change_message(value: Any, kind: str) -> str:
    """What the API server's decoding of a patched object of another kind amounts to."""
    return f"kind: Invalid value: {show_value(value)}: a patch cannot change the kind of the object ({kind})"


def api_version_change_message(value: Any, kind: str) -> str:
    """Upstream's decoding error for a patched object whose apiVersion does not serve its kind."""
    return f'apiVersion: Invalid value: {show_value(value)}: no kind "{kind}" is registered for version {show_value(value)}'


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch. `target` may be changed in place and the result may share
    parts of `patch`: pass copies (apply_patch does)."""
    if type(patch) is not dict:
        return patch
    if type(target) is not dict:
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = merge_patch(target.get(key), value)
    return target


def _body(patch: str | bytes | dict[str, Any] | list[Any]) -> Any:
    if isinstance(patch, (str, bytes)):
        return load_document(patch)
    return copy_tree(patch)


def apply_patch(
    obj: dict[str, Any],
    patch: str | bytes | dict[str, Any] | list[Any],
    content_type: str,
    schema: PatchSchema,
) -> dict[str, Any]:
    """Apply a patch body (text or parsed data) to `obj`, which is consumed; return the result."""
    body = _body(patch)
    if content_type == JSON_PATCH:
        if type(body) is not list:
            raise BadRequest(
                f"json: cannot unmarshal {_json_kind(body)} into Go value of type jsonpatch.Patch"
            )
        try:
            result = jsonpatch.JsonPatch(body).apply(obj, in_place=True)
        except jsonpatch.InvalidJsonPatch as exc:
            raise BadRequest(str(exc)) from None
        except (
            jsonpatch.JsonPatchException,
            jsonpatch.JsonPointerException,
            KeyError,
            IndexError,
            TypeError,
        ) as exc:
            raise Invalid(f"the server rejected our request due to an error in our request: {exc}") from None
    else:
        if type(body) is not dict:
            raise BadRequest(
                f"json: cannot unmarshal {_json_kind(body)} into Go value of type map[string]interface {{}}"
            )
        if content_type == MERGE_PATCH:
            result = merge_patch(obj, body)
        else:
            result = strategic_merge_patch(obj, body, schema)
    if type(result) is not dict:
        raise BadRequest("the patched object is not a JSON object")
    return result


def _json_kind(value: Any) -> str:
    if type(value) is list:
        return "array"
    if type(value) is dict:
        return "object"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if value is None:
        return "null"
    return "number"
