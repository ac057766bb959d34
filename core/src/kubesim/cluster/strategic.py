"""Strategic merge patch: apply a patch the way kubectl's default patch type works.

Follows k8s.io/apimachinery pkg/util/strategicpatch/patch.go (StrategicMergeMapPatch with
MergeParallelList and IgnoreUnmatchedNulls, the options the API server applies patches with):
merge lists by key, merge primitive lists as sets, the `$patch: replace|delete|merge`,
`$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` and `$retainKeys` directives,
and element order (patch order first, server-only items interleaved by their old positions).

Where the Go struct tags say how to merge, we have a `PatchSchema`: field name -> PatchField.
A field missing from the schema merges as JSON does (maps recursively, lists replaced).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from kubesim.errors import BadRequest, Invalid

__all__ = ["PatchField", "PatchSchema", "strategic_merge_patch"]

_DIRECTIVE = "$patch"
_DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
_SET_ELEMENT_ORDER = "$setElementOrder"
_RETAIN_KEYS = "$retainKeys"


@attrs.frozen(eq=False)
class PatchField:
    """How to patch one field: its patchStrategy ("merge", "replace", "retainKeys",
    "merge,retainKeys" or "" for none), its patchMergeKey, and the schema of its items."""

    strategy: str = ""
    merge_key: str = ""
    schema: PatchSchema | None = None


PatchSchema = Mapping[str, PatchField]
"""The patch metadata of one struct type: JSON field name -> PatchField."""

_EMPTY: PatchSchema = {}


def _go(value: Any) -> str:
    """Roughly how Go's %v prints a JSON value, for messages."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go(v)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _no_merge_key(item: Any, key: str) -> BadRequest:
    return BadRequest(f"map: {_go(item)} does not contain declared merge key: {key}")


def _strategy(field: PatchField | None) -> str:
    """The merge strategy without retainKeys (extractRetainKeysPatchStrategy)."""
    if field is None or not field.strategy:
        return ""
    parts = field.strategy.split(",")
    if len(parts) == 1:
        return "" if parts[0] == "retainKeys" else parts[0]
    if len(parts) == 2 and "retainKeys" in parts:
        return parts[0] if parts[1] == "retainKeys" else parts[1]
    raise BadRequest(f"unexpected patch strategy: {field.strategy}")


def strategic_merge_patch(
    original: dict[str, Any], patch: dict[str, Any], schema: PatchSchema
) -> dict[str, Any]:
    """Apply `patch` to `original` and return the result.

    Both arguments are consumed: the caller passes copies it does not need any more.
    Raises BadRequest (or Invalid for lists of lists) for a malformed patch.
    """
    return _merge_map(original, patch, schema)


def _merge_map(original: dict[str, Any] | None, patch: dict[str, Any], schema: PatchSchema) -> dict[str, Any]:
    if _DIRECTIVE in patch:
        directive = patch[_DIRECTIVE]
        if directive == "replace":
            del patch[_DIRECTIVE]
            return _strip(patch)
        if directive == "delete":
            return {}
        raise BadRequest(f"unknown patch type: {directive} in map: {_go(patch)}")
    if original is None:
        original = {}
    _apply_retain_keys(original, patch)
    _merge_ordered_lists(original, patch, schema)
    for key, patch_value in list(patch.items()):
        is_delete_list = False
        if key.startswith(_DELETE_FROM_PRIMITIVE_LIST):
            key = _extract_key(key, _DELETE_FROM_PRIMITIVE_LIST)
            is_delete_list = True
        if patch_value is None:
            original.pop(key, None)
            continue
        current = original.get(key, _MISSING)
        both_maps = type(current) is dict and type(patch_value) is dict
        both_lists = type(current) is list and type(patch_value) is list
        if not (both_maps or both_lists):
            if is_delete_list:
                continue
            _discard_nulls(patch_value)
            kept, keep = _remove_directives(patch_value)
            if keep:
                original[key] = kept
            else:
                original.pop(key, None)
            continue
        field = schema.get(key)
        sub = field.schema if field is not None and field.schema is not None else _EMPTY
        strategy = _strategy(field)
        if both_maps:
            original[key] = (
                _strip(patch_value) if strategy == "replace" else _merge_map(current, patch_value, sub)
            )
        else:
            merge_key = field.merge_key if field is not None else ""
            original[key] = _merge_list_field(current, patch_value, sub, strategy, merge_key, is_delete_list)
    return original


_MISSING = object()


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    return type(value).__name__


def _extract_key(key: str, prefix: str) -> str:
    head, sep, rest = key.partition("/")
    if not sep or head != prefix:
        if prefix == _DELETE_FROM_PRIMITIVE_LIST:
            raise BadRequest("invalid patch format of primitive list")
        raise BadRequest("invalid patch format of setElementOrder list")
    return rest


def _discard_nulls(value: Any) -> None:
    if type(value) is dict:
        for k in [k for k, v in value.items() if v is None]:
            del value[k]
        for v in value.values():
            _discard_nulls(v)
    elif type(value) is list:
        for v in value:
            _discard_nulls(v)


def _remove_directives(value: Any) -> tuple[Any, bool]:
    """Drop directive markers from a value taken as is; False when the value itself is one.

    Unlike upstream (which decodes into Go structs afterwards and so loses unknown keys), we
    store unstructured data, so every `$...` directive key is removed here too.
    """
    if type(value) is dict:
        if _DIRECTIVE in value:
            return None, False
        for k in list(value):
            if k.startswith("$"):
                del value[k]
                continue
            kept, keep = _remove_directives(value[k])
            if keep:
                value[k] = kept
            else:
                del value[k]
        return value, True
    if type(value) is list:
        out = []
        for v in value:
            kept, keep = _remove_directives(v)
            if keep:
                out.append(kept)
        return out, True
    return value, True


def _strip(value: dict[str, Any]) -> dict[str, Any]:
    stripped, _ = _remove_directives(value)
    result: dict[str, Any] = stripped
    return result


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    if _RETAIN_KEYS not in patch:
        return
    retain = patch.pop(_RETAIN_KEYS)
    if type(retain) is not list:
        raise BadRequest("invalid patch format of retainKeys")
    keep = {k for k in retain if isinstance(k, str)}
    for k, v in patch.items():
        if v is None or k.startswith((_DELETE_FROM_PRIMITIVE_LIST, _SET_ELEMENT_ORDER)):
            continue
        if k not in keep:
            raise BadRequest("invalid patch format of retainKeys")
    for k in [k for k in original if k not in keep]:
        del original[k]


def _merge_list_field(
    current: list[Any],
    patch_value: list[Any],
    schema: PatchSchema,
    strategy: str,
    merge_key: str,
    is_delete_list: bool,
) -> list[Any]:
    """Merge or replace a list field by its strategy; `current` may be rewritten (see _merge_list)."""
    if strategy == "merge" or is_delete_list:
        return _merge_list(current, patch_value, schema, merge_key, is_delete_list)
    kept, _ = _remove_directives(patch_value)
    result: list[Any] = kept
    return result


def _element_type(*lists: list[Any]) -> str:
    """The JSON type shared by every element (sliceElementType); errors when mixed or empty."""
    found = ""
    for items in lists:
        for v in items:
            t = _json_type(v)
            if not found:
                if t == "list":
                    raise Invalid("lists of lists are not supported")
                found = t
            elif t != found:
                raise BadRequest(f"list element types are not identical: {_go(list(lists))}")
    if not found:
        raise BadRequest("no elements in any of the given slices")
    return found


def _merge_list(
    original: list[Any], patch: list[Any], schema: PatchSchema, merge_key: str, is_delete_list: bool
) -> list[Any]:
    """Merge two lists (mergeSlice).

    For lists of maps, `original` is treated like the Go slice it is upstream: deleting items
    shifts the rest left in place and appended items land in the freed slots. Callers that
    keep looking at `original` (the `$setElementOrder` ordering does) see what Go code sees.
    """
    if not original and not patch:
        return original
    kind = _element_type(original, patch)
    if kind != "dict":
        if is_delete_list:
            return _delete_from_list(original, patch)
        merged = _dedup_scalars(original + patch)
        server_order = original
    else:
        if not merge_key:
            raise BadRequest("cannot merge lists without merge key")
        server_order, patch, aliased = _apply_list_directives(original, patch, merge_key)
        merged = _merge_by_key(server_order, patch, schema, merge_key, original if aliased else None)
    patch_items, server_only = _partition(merged, patch, merge_key)
    return _normalize_order(patch_items, server_only, patch, server_order, merge_key)


def _scalar_key(value: Any) -> tuple[str, Any]:
    return (_json_type(value), value)


def _dedup_scalars(items: list[Any]) -> list[Any]:
    # patch.go deduplicateScalars: remove later duplicates by moving the last item into their place
    items = list(items)
    last = len(items) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if _scalar_key(items[i]) == _scalar_key(items[j]):
                items[j] = items[last]
                del items[last]
                last -= 1
                j -= 1
            j += 1
        i += 1
    return items


def _delete_from_list(current: list[Any], to_delete: list[Any]) -> list[Any]:
    gone = {_scalar_key(v) for v in to_delete}
    return [v for v in current if _scalar_key(v) not in gone]


def _apply_list_directives(
    backing: list[Any], patch: list[Any], merge_key: str
) -> tuple[list[Any], list[Any], bool]:
    """Handle `$patch` items: delete matching items (shifting `backing` in place, as Go's
    append(s[:i], s[i+1:]...) does), or replace the whole list.

    Returns the remaining original items, the plain patch items, and whether later appends
    still write into `backing` (they do unless the list was replaced).
    """
    length = len(backing)
    plain: list[Any] = []
    replace = False
    for item in patch:
        if _DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[_DIRECTIVE]
        if directive == "delete":
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            while (i := _find(backing[:length], merge_key, item[merge_key])) >= 0:
                backing[i : length - 1] = backing[i + 1 : length]
                length -= 1
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise BadRequest("merging lists cannot yet be specified in the patch")
        else:
            raise BadRequest(f"unknown patch type: {directive} in map: {_go(item)}")
    if replace:
        return [_strip(p) for p in plain], [], False
    return backing[:length], plain, True


def _find(items: list[Any], merge_key: str, value: Any) -> int:
    for i, item in enumerate(items):
        if type(item) is not dict:
            raise BadRequest(f"value for key {i} is not a map")
        if item.get(merge_key, _MISSING) == value:
            return i
    return -1


def _merge_by_key(
    original: list[Any], patch: list[Any], schema: PatchSchema, merge_key: str, backing: list[Any] | None
) -> list[Any]:
    """Merge patch items into the items with the same key; append the others.

    Appends also fill `backing` while it has room (Go's append reusing the array's capacity).
    """
    merged = list(original)
    for item in patch:
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        i = _find(merged, merge_key, item[merge_key])
        if i >= 0:
            merged[i] = _merge_map(merged[i], item, schema)
            if backing is not None:
                backing[i] = merged[i]
        else:
            merged.append(_strip(item))
            if backing is not None:
                if len(merged) <= len(backing):
                    backing[len(merged) - 1] = merged[-1]
                else:
                    backing = None  # the array grew: Go moved it, the old one no longer changes
    return merged


def _identity(item: Any, merge_key: str) -> Any:
    if merge_key:
        return item.get(merge_key) if type(item) is dict else None
    return _scalar_key(item)


def _partition(merged: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """Split items into those present in `by` (patch items) and the rest (server-only)."""
    if merge_key:
        for item in merged:
            if type(item) is not dict:
                raise BadRequest(f"expected a map, but received a {_json_type(item)}")
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
    present = {_hashable(_identity(v, merge_key)) for v in by}
    inside: list[Any] = []
    outside: list[Any] = []
    for item in merged:
        (inside if _hashable(_identity(item, merge_key)) in present else outside).append(item)
    return inside, outside


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def _index(order: list[Any], item: Any, merge_key: str) -> int:
    wanted = _identity(item, merge_key)
    for i, v in enumerate(order):
        if _identity(v, merge_key) == wanted:
            return i
    return -1


def _sort_by(items: list[Any], order: list[Any], merge_key: str) -> list[Any]:
    """normalizeSliceOrder: order `items` as in `order`; `$patch: delete` items go last."""
    if merge_key:
        for v in list(items) + list(order):
            if type(v) is not dict or merge_key not in v:
                raise _no_merge_key(v, merge_key)
        keep = [v for v in items if v.get(_DIRECTIVE) != "delete"]
        deleted = [v for v in items if v.get(_DIRECTIVE) == "delete"]
    else:
        keep, deleted = list(items), []
    positions = [_index(order, v, merge_key) for v in keep]
    unknown = len(order)
    ranked = sorted(range(len(keep)), key=lambda i: positions[i] if positions[i] >= 0 else unknown)
    return [keep[i] for i in ranked] + deleted


def _normalize_order(
    patch_items: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
) -> list[Any]:
    """Patch items in patch order; server-only items slotted in by their old positions."""
    right = _sort_by(patch_items, patch_order, merge_key)
    left = _sort_by(server_only, server_order, merge_key)
    out: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li = _index(server_order, left[i], merge_key)
            ri = _index(server_order, right[j], merge_key)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _validate_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """The patch list must follow the relative order of its `$setElementOrder` list."""
    if not order or not patch_list:
        return
    if merge_key:
        for v in patch_list:
            if type(v) is not dict:
                raise BadRequest(f"expected a map, but received a {_json_type(v)}")
        items = [v for v in patch_list if v.get(_DIRECTIVE) != "delete"]
    else:
        items = list(patch_list)
    p = s = 0
    while p < len(items) and s < len(order):
        if type(items[p]) is dict and _DIRECTIVE in items[p]:
            p += 1
            continue
        if merge_key:
            if type(order[s]) is not dict or merge_key not in order[s]:
                raise _no_merge_key(order[s], merge_key)
            if merge_key not in items[p]:
                raise _no_merge_key(items[p], merge_key)
            equal = items[p][merge_key] == order[s][merge_key]
        else:
            equal = _scalar_key(items[p]) == _scalar_key(order[s])
        if equal:
            p += 1
        s += 1
    if p < len(items) and s >= len(order):
        raise BadRequest(
            f"The order in patch list:\n{_go(patch_list)}\n doesn't match {_SET_ELEMENT_ORDER} list:\n{_go(order)}\n"
        )


def _merge_ordered_lists(original: dict[str, Any], patch: dict[str, Any], schema: PatchSchema) -> None:
    """Apply every `$setElementOrder/<field>` directive together with its list (mergePatchIntoOriginal)."""
    for key in [k for k in patch if k.startswith(_SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        if type(order) is not list:
            raise BadRequest(f"expected a []interface {{}}, but received a {_json_type(order)}")
        field_name = _extract_key(key, _SET_ELEMENT_ORDER)
        has_current, has_patch = field_name in original, field_name in patch
        current: Any = original[field_name] if has_current else []
        patched: Any = patch[field_name] if has_patch else []
        for value in (current, patched):
            if type(value) is not list:
                raise BadRequest(f"expected a []interface {{}}, but received a {_json_type(value)}")
        field = schema.get(field_name)
        sub = field.schema if field is not None and field.schema is not None else _EMPTY
        merge_key = field.merge_key if field is not None else ""
        strategy = _strategy(field)
        _validate_order(patched, order, merge_key)
        if not has_current and not has_patch:
            continue
        current_list = list(current)
        merged: list[Any]
        if not has_patch:
            merged = current_list
        elif not has_current:
            merged, _ = _remove_directives(patched)
        else:
            merged = _merge_list_field(current_list, patched, sub, strategy, merge_key, False)
        _element_type(current_list, patched)
        patch_items, server_only = _partition(merged, order, merge_key)
        original[field_name] = _normalize_order(patch_items, server_only, order, current_list, merge_key)
        patch.pop(field_name, None)
