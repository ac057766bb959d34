"""List chunking: `limit` and `continue`, as the API server's storage layer pages a list.

The continue token is upstream's (k8s.io/apiserver pkg/storage/continue.go): base64 (URL
alphabet) of {"v":"meta.k8s.io/v1","rv":RV,"start":KEY} where KEY is the last returned
object's key ("namespace/name" or "name") plus "\\x00", so the next page starts right after
it. kubesim keeps no history: a continuation lists the current state from that key (the
order is deterministic: namespace, then name). A token whose resourceVersion is newer than
the cluster's (the cluster was reset since) is 410 Expired, as a compacted one is upstream.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kubesim.errors import ApiError, BadRequest, Expired
from kubesim.k8s.validation import FieldError, invalid_error

__all__ = ["Page", "check_list_options", "decode_continue", "encode_continue", "page"]

_VERSION = "meta.k8s.io/v1"
_EXPIRED = ("The provided continue parameter is too old to display a consistent list result. You can start "
            "a new list without the continue parameter.")
"""pkg/storage/etcd3/store.go compactedContinue's wording when it offers no inconsistent continuation."""


@attrs.frozen
class Page:
    """One chunk of a list: its items, the token for the next one ("" when last), what remains."""

    items: list[dict[str, Any]]
    continue_token: str = ""
    remaining: int | None = None


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj["metadata"]
    namespace = meta.get("namespace")
    return f"{namespace}/{meta['name']}" if namespace else str(meta["name"])


def _pair(obj: Mapping[str, Any]) -> tuple[str, str]:
    meta = obj["metadata"]
    return meta.get("namespace") or "", meta["name"]


def encode_continue(resource_version: int, last_key: str) -> str:
    """The continue token after `last_key` in a list at `resource_version` (storage.EncodeContinue)."""
    data = json.dumps({"v": _VERSION, "rv": resource_version, "start": last_key + "\x00"},
                      separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, str]:
    """(resourceVersion, start key) of a continue token; 400 as upstream for a malformed one."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
    except (binascii.Error, ValueError):
        raise BadRequest("invalid continue token: continue key is not valid: illegal base64 data") from None
    if type(data) is not dict or data.get("v") != _VERSION:
        raise BadRequest(f"invalid continue token: continue key is not valid: server does not recognize "
                         f"this encoded version {data.get('v') if type(data) is dict else ''!r}")
    rv, start = data.get("rv"), data.get("start")
    if type(rv) is not int or rv <= 0:
        raise BadRequest("invalid continue token: continue key is not valid: incorrect encoded start "
                         "resourceVersion (version meta.k8s.io/v1)")
    if type(start) is not str or not start:
        raise BadRequest("invalid continue token: continue key is not valid: encoded start key empty "
                         "(version meta.k8s.io/v1)")
    return rv, start


def page(items: Sequence[dict[str, Any]], *, limit: int, token: str | None, resource_version: int,
         count_remaining: bool) -> Page:
    """The chunk of `items` (sorted by key) a request with `limit` (0: all) and `continue` gets.

    `count_remaining`: set remainingItemCount (upstream does only without a selector).
    """
    start = 0
    if token:
        rv, start_key = decode_continue(token)
        if rv > resource_version:
            raise Expired(_EXPIRED)
        # the first item after the last one returned; items are sorted by (namespace, name)
        namespace, _, name = start_key.rstrip("\x00").rpartition("/")
        after = (namespace, name)
        lo, hi = 0, len(items)
        while lo < hi:
            mid = (lo + hi) // 2
            if _pair(items[mid]) <= after:
                lo = mid + 1
            else:
                hi = mid
        start = lo
        resource_version = rv
    if limit <= 0 or start + limit >= len(items):
        return Page(list(items[start:]))
    end = start + limit
    chosen = list(items[start:end])
    remaining = len(items) - end
    return Page(chosen, encode_continue(resource_version, _key(chosen[-1])),
                remaining if count_remaining else None)


class _TooLargeResourceVersion(ApiError):
    """storage.NewTooLargeResourceVersionError: a list at a resourceVersion the server has not reached."""

    code = 504
    reason = "Timeout"


def _forbidden(detail: str) -> FieldError:
    return FieldError("Forbidden", "resourceVersionMatch", detail=detail)


def check_list_options(query: Mapping[str, str], current: int) -> None:
    """ValidateListOptions (apimachinery pkg/apis/meta/internalversion/validation), then what a list
    at `resourceVersion` can be served from: kubesim keeps no history, so resourceVersionMatch=Exact
    works for the current resourceVersion only (410 for older ones), and a resourceVersion newer
    than the cluster's is the 504 "Too large resource version" kube-apiserver gives after waiting."""
    rv, match = query.get("resourceVersion") or "", query.get("resourceVersionMatch") or ""
    path = "resourceVersionMatch"
    errors: list[FieldError] = []
    if match:
        if not rv:
            errors.append(_forbidden(f"{path} is forbidden unless resourceVersion is provided"))
        if query.get("continue"):
            errors.append(_forbidden(f"{path} is forbidden when continue is provided"))
        if match not in ("Exact", "NotOlderThan"):
            errors.append(FieldError("Unsupported value", path, match,
                                     'supported values: "Exact", "NotOlderThan", ""'))
        if match == "Exact" and rv == "0":
            errors.append(_forbidden(f'{path} "exact" is forbidden for resourceVersion "0"'))
    if errors:
        raise invalid_error("ListOptions.meta.k8s.io", "", errors)
    if not rv or query.get("continue"):
        return
    if not rv.isdigit():
        raise BadRequest(f'resourceVersion: Invalid value: "{rv}": must be a number (a resourceVersion the '
                         "server returned)")
    wanted = int(rv)
    if wanted > current:
        cause = {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
        raise _TooLargeResourceVersion(f"Too large resource version: {wanted}, current: {current}",
                                       details={"causes": [cause], "retryAfterSeconds": 1})
    if match == "Exact" and wanted != current:
        raise Expired("The resourceVersion for the provided list is too old.")
