"""Decoding a built-in object as the API server does: the request body into its Go struct.

The API server decodes every body with sigs.k8s.io/json (case-sensitive encoding/json) in
strict mode (kubectl's default --validate=strict) before anything else looks at it, so a
wrong type is a 400 BadRequest naming the Go struct field and type, and unknown fields are
listed. This module walks a decoded YAML/JSON value against the vendored OpenAPI definition
of its kind, with the Go type names of its fields, and produces the same message:

    Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal
    string into Go struct field DeploymentSpec.spec.replicas of type int32

Checkers are compiled once per definition; an update skips subtrees it shares (by identity)
with the stored object, which was checked when it was written.
"""

# upstream: sigs.k8s.io/json internal/golang/encoding/json/decode.go (object, array,
# literalStore, addErrorContext, saveError), kubernetes_patch.go (saveStrictError: deduped,
# at most 100); apimachinery pkg/runtime/serializer/json/json.go (UnmarshalStrict),
# pkg/runtime/error.go (strictDecodingError), apiserver pkg/endpoints/handlers/rest.go
# (transformDecodeError); api/resource/quantity.go, util/intstr/intstr.go and
# apis/meta/v1/time.go (UnmarshalJSON); Go's time.Parse and encoding/base64 for the formats.

from __future__ import annotations

import datetime
import math
import re
from decimal import Decimal
from functools import cache
from typing import Any

from kubesim.errors import BadRequest
from kubesim.k8s import openapi
from kubesim.k8s.content_memo import ContentMemo, content_key
from kubesim.k8s.quantity import QuantityError
from kubesim.k8s.quantity import parse as parse_quantity
from kubesim.k8s.rfc3339 import parse_error

__all__ = [
    "MAX_DEPTH",
    "decode_error",
    "decoding_message",
    "delete_options_message",
    "metadata_decoding_message",
    "patch_decoding_message",
]

MAX_DEPTH = 200
"""Nesting levels (objects and arrays) a body may have; deeper ones are refused."""

_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
_MICRO_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
_ANYTHING = frozenset(  # UnmarshalJSON keeps the raw JSON, or decodes it leniently
    {
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
    }
)
_INT_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_MAX_STRICT_ERRORS = 100

_Stack = tuple[Any, str] | None
"""A path as a linked list (parent, piece), joined only when an error needs it."""


class _Abort(Exception):
    """An error an UnmarshalJSON method returns: decoding stops at once."""


class _Walk:
    """What one decode has found: the first type error and the strict (unknown field) errors."""

    __slots__ = ("dropped", "ordered", "report_unknown", "seen", "strict", "type_error")

    def __init__(self, ordered: bool, report_unknown: bool = True) -> None:
        self.ordered = ordered  # keys in JSON order (sorted, as kubectl sends them), for the exact first error
        self.report_unknown = report_unknown  # fieldValidation=Strict (kubectl's default)
        self.type_error: str | None = None
        self.strict: list[str] = []
        self.seen: set[str] = set()
        self.dropped: list[tuple[dict[Any, Any], Any]] = []  # unknown fields the decoder leaves out

    def mismatch(self, value: str, go_type: str, struct: str, fields: _Stack) -> None:
        """saveError(UnmarshalTypeError) with the error context: only the first one counts."""
        if self.type_error is None:
            self.type_error = _type_error(value, go_type, struct, fields)

    def unknown(self, path: _Stack, key: str) -> None:
        """saveStrictError(unknown field): deduplicated, at most 100."""
        if not self.report_unknown or len(self.strict) >= _MAX_STRICT_ERRORS:
            return
        message = f"unknown field {_go_quote(_joined(path, '.' + key)[1:])}"
        if message not in self.seen:
            self.seen.add(message)
            self.strict.append(message)


def _type_error(value: str, go_type: str, struct: str, fields: _Stack) -> str:
    if struct or fields is not None:
        return f"json: cannot unmarshal {value} into Go struct field {struct}.{_joined(fields, '')[1:]} of type {go_type}"
    return f"json: cannot unmarshal {value} into Go value of type {go_type}"


def _joined(path: _Stack, tail: str) -> str:
    """A strict-decoding path: map keys joined with dots, as sigs.k8s.io/json writes them."""
    pieces = [tail]
    while path is not None:
        path, piece = path
        pieces.append("." + piece[1:] if piece[:1] == _KEY else piece)
    return "".join(reversed(pieces))


def _field_path(path: _Stack) -> str:
    """A field.Path as validation errors write it: spec.containers[0].resources.requests[cpu]."""
    pieces = []
    while path is not None:
        path, piece = path
        pieces.append(f"[{piece[1:]}]" if piece[:1] == _KEY else piece)
    return "".join(reversed(pieces))[1:]


def _located(path: _Stack, error: str) -> str:
    """An error an UnmarshalJSON method returns without naming the field, prefixed with it
    (upstream's text is kept; kubesim adds where it happened)."""
    return f"{_field_path(path)}: {error}" if path is not None else error


_KEY = "\x00"  # marks a map key in a path, printed ".key" (strict errors) or "[key]" (field paths)


def _go_quote(text: str) -> str:
    """strconv.Quote for the printable text field paths hold (%q)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif not ch.isprintable():
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x80 else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _go_float(f: float) -> str:
    """The JSON literal Go's encoder writes for a float64 (kubectl sends numbers this way)."""
    if f == int(f) and abs(f) < 1e21:
        return str(int(f))
    a = abs(f)
    if a < 1e-6 or a >= 1e21:
        text = repr(f)
        mantissa, _, exp = text.partition("e")
        sign, digits = exp[0], exp[1:].lstrip("0") or "0"
        if sign == "-" and len(digits) == 1:
            return f"{mantissa}e-{digits}"
        return f"{mantissa}e{sign}{digits.zfill(2)}"
    return format(Decimal(repr(f)), "f")


def _literal(v: Any) -> tuple[str, str]:
    """(what encoding/json calls the JSON value, its literal text for numbers)."""
    if v is True or v is False:
        return "bool", ""
    t = type(v)
    if t is int:
        return "number", str(v)
    if t is float:
        if not math.isfinite(v):
            raise _Abort(f"json: unsupported value: {_go_nonfinite(v)}")
        return "number", _go_float(v)
    if t is str:
        return "string", ""
    if t is dict:
        return "object", ""
    if t is list:
        return "array", ""
    if isinstance(v, bool):
        return "bool", ""
    if isinstance(v, int):
        return "number", str(int(v))
    if isinstance(v, (float, Decimal)):
        return _literal(float(v))
    if isinstance(v, dict):
        return "object", ""
    if isinstance(v, (list, tuple)):
        return "array", ""
    return "string", ""  # YAML timestamps and the like reach the server as strings


def _go_nonfinite(f: float) -> str:
    return "NaN" if math.isnan(f) else ("+Inf" if f > 0 else "-Inf")


# --- compiled checkers ---------------------------------------------------------------------


class _Node:
    """A compiled checker for one Go type."""

    __slots__ = ("go",)

    def __init__(self, go: str) -> None:
        self.go = go

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        """Decode `v` (not None); `old` is the stored value at the same place, or a sentinel."""
        raise NotImplementedError


class _Anything(_Node):
    """RawExtension, apiextensions JSON and the like: their UnmarshalJSON takes any JSON value."""

    __slots__ = ()

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        return


class _Scalar(_Node):
    """string, bool, int32, int64 and float64 fields, under their Go type names."""

    __slots__ = ("kind",)

    def __init__(self, go: str, kind: str) -> None:
        super().__init__(go)
        self.kind = kind

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        kind = self.kind
        t = type(v)
        if kind == "string":
            if t is str:
                return
            what, _ = _literal(v)
            if what != "string":
                w.mismatch(what, self.go, struct, fields)
            else:
                _not_a_timestamp(v, path)
            return
        if kind == "bool":
            if v is True or v is False:
                return
            w.mismatch(_literal(v)[0], self.go, struct, fields)
            return
        if t is int and kind in _INT_BOUNDS:  # the common case: a plain int, checked by value
            low, high = _INT_BOUNDS[kind]
            if low <= v <= high:
                return
        what, text = _literal(v)
        if what != "number":
            w.mismatch(what, self.go, struct, fields)
        elif kind == "float64":
            if t is int or isinstance(v, int):
                try:
                    float(v)
                except OverflowError:
                    w.mismatch(f"number {text}", self.go, struct, fields)
        elif not _fits_int(text, kind):
            w.mismatch(f"number {text}", self.go, struct, fields)


def _fits_int(text: str, kind: str) -> bool:
    """strconv.ParseInt(text, 10, 64) succeeds and the value fits the Go integer type."""
    if not text.lstrip("-").isdigit():
        return False
    low, high = _INT_BOUNDS[kind]
    return low <= int(text) <= high


class _Bytes(_Node):
    """[]byte: a base64 string (StdEncoding, padded), as encoding/json decodes it."""

    __slots__ = ()

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        if type(v) is not str:
            what, _ = _literal(v)
            if what != "string":
                w.mismatch(what, self.go, struct, fields)
            return
        bad = _base64_error(v)
        if bad is not None and w.type_error is None:
            w.type_error = _located(path, f"illegal base64 data at input byte {bad}")


def _base64_error(text: str) -> int | None:
    """The offset base64.StdEncoding.Decode reports (CorruptInputError), or None when valid."""
    src = text.encode("utf-8")
    if _binascii_ok(src):
        return None
    si, n = 0, len(src)
    while True:  # decodeQuantum, one 4-character quantum at a time
        j = 0
        while j < 4:
            if si == n:
                return None if j == 0 else si - j
            c = src[si]
            si += 1
            if c in (10, 13):
                continue
            if c == 61:  # "="
                if j < 2:
                    return si - 1
                if j == 2:
                    while si < n and src[si] in (10, 13):
                        si += 1
                    if si == n:
                        return n
                    if src[si] != 61:
                        return si - 1
                    si += 1
                while si < n and src[si] in (10, 13):
                    si += 1
                return si if si < n else None
            if c not in _BASE64_ALPHABET:
                return si - 1
            j += 1


_BASE64_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


_WELL_FORMED_BASE64 = re.compile(rb"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _binascii_ok(src: bytes) -> bool:
    """A quick accept for well-formed padded base64 (newlines aside), the usual case."""
    return _WELL_FORMED_BASE64.fullmatch(src.replace(b"\r", b"").replace(b"\n", b"")) is not None


class _Array(_Node):
    __slots__ = ("elem",)

    def __init__(self, go: str, elem: _Node) -> None:
        super().__init__(go)
        self.elem = elem

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        if type(v) is not list:
            w.mismatch(_literal(v)[0], self.go, struct, fields)
            return
        if depth >= MAX_DEPTH:
            raise _Abort(f"json: nesting deeper than {MAX_DEPTH} levels")
        elem = self.elem
        olds = old if type(old) is list else _NO_ITEMS
        for i, item in enumerate(v):
            prior = olds[i] if i < len(olds) else _NOTHING
            if item is None or prior is item:
                continue
            elem.check(item, prior, w, struct, fields, (path, f"[{i}]"), depth + 1)


class _Map(_Node):
    __slots__ = ("elem",)

    def __init__(self, go: str, elem: _Node) -> None:
        super().__init__(go)
        self.elem = elem

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        if type(v) is not dict:
            w.mismatch(_literal(v)[0], self.go, struct, fields)
            return
        if depth >= MAX_DEPTH:
            raise _Abort(f"json: nesting deeper than {MAX_DEPTH} levels")
        elem = self.elem
        if not w.ordered and all(type(key) is str and type(value) is str for key, value in v.items()):
            if isinstance(elem, _Scalar) and elem.kind == "string":  # labels, annotations: the hot cases
                return
            if type(elem) is _Quantity:  # resource lists
                try:
                    for value in v.values():
                        parse_quantity(value)  # cached per string
                except QuantityError:
                    pass
                else:
                    return
        olds = old if type(old) is dict else _EMPTY
        for key in sorted(v, key=str) if w.ordered else v:
            if type(key) is not str:
                raise _Abort(_key_error(path, key))
            item = v[key]
            prior = olds.get(key, _NOTHING)
            if item is None or prior is item:
                continue
            elem.check(item, prior, w, struct, fields, (path, _KEY + key), depth + 1)


def _key_error(path: _Stack, key: Any) -> str:
    """A map key YAML read as a number or boolean: kubectl would send it as a string, kubesim
    (which keeps objects as they were read) needs it written as one."""
    text = "true" if key is True else "false" if key is False else "null" if key is None else str(key)
    return f"{_joined(path, '')[1:]}: the key {text} must be a string (quote it: {_go_quote(text)})"


class _Struct(_Node):
    """A Go struct: known fields by json name (compiled on first use), the rest unknown."""

    __slots__ = ("definition", "fields", "name")

    def __init__(self, go: str, definition: str) -> None:
        super().__init__(go)
        self.definition = definition
        self.name = go.rsplit(".", 1)[-1]
        self.fields: dict[str, tuple[_Node, str, str, type | None]] | None = None

    def compiled(self) -> dict[str, tuple[_Node, str, str, type | None]]:
        """json name -> (checker, error-context piece, strict-path piece, a Python type always fine)."""
        if self.fields is None:
            schema = openapi.definition(self.definition)
            go = openapi.go_types(self.definition) or {}
            fields: dict[str, tuple[_Node, str, str, type | None]] = {}
            for name, prop in (schema.get("properties") or {}).items():
                embedded, names = go.get(name, ["", None])
                piece = f".{embedded}.{name}" if embedded else f".{name}"
                node = _node(prop, names)
                fields[name] = (node, piece, f".{name}", _ALWAYS_FINE.get(node.kind) if isinstance(node, _Scalar) else None)
            self.fields = fields
        return self.fields

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        if type(v) is not dict:
            w.mismatch(_literal(v)[0], self.go, struct, fields)
            return
        if depth >= MAX_DEPTH:
            raise _Abort(f"json: nesting deeper than {MAX_DEPTH} levels")
        known = self.fields if self.fields is not None else self.compiled()
        olds = old if type(old) is dict else _EMPTY
        name = self.name
        for key in sorted(v, key=str) if w.ordered else v:
            item = v[key]
            entry = known.get(key)
            if entry is None:
                w.unknown(path, key if type(key) is str else str(key))
                w.dropped.append((v, key))
                continue
            node, piece, spath, fine = entry
            if item is None or type(item) is fine:
                continue
            prior = olds.get(key, _NOTHING)
            if prior is not item:
                node.check(item, prior, w, name, (fields, piece), (path, spath), depth + 1)


class _Quantity(_Node):
    """resource.Quantity: a string or a number, parsed by ParseQuantity (errors end decoding)."""

    __slots__ = ()

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        if type(v) is str:
            try:
                parse_quantity(v)  # cached per string
            except QuantityError:
                pass
            else:
                return
        what, text = _literal(v)
        if what == "string":
            text = v if type(v) is str else str(v)
        elif what != "number":
            raise _Abort(_located(path, _FORMAT_WRONG))
        try:
            parse_quantity(text)
        except QuantityError as exc:
            message = str(exc)
            reason = message.rsplit(": ", 1)[-1]
            upstream = "must match" in reason or "suffix" in reason
            raise _Abort(_located(path, reason if upstream else message)) from None


_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


class _IntOrString(_Node):
    """intstr.IntOrString: a string, else json.Unmarshal into its int32 (errors end decoding)."""

    __slots__ = ()

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        if type(v) is str:
            return
        what, text = _literal(v)
        if what == "string":
            _not_a_timestamp(v, path)
            return
        if what != "number":
            raise _Abort(_type_error(what, "int32", struct, fields))
        if not _fits_int(text, "int32"):
            raise _Abort(_type_error(f"number {text}", "int32", struct, fields))


class _Time(_Node):
    """metav1.Time / MicroTime: a string time.Parse accepts with RFC 3339 (errors end decoding)."""

    __slots__ = ("micro",)

    def __init__(self, go: str, micro: bool) -> None:
        super().__init__(go)
        self.micro = micro

    def check(self, v: Any, old: Any, w: _Walk, struct: str, fields: _Stack, path: _Stack, depth: int) -> None:
        if type(v) is not str:  # a plain string (every status write's times) is only parsed
            what, _ = _literal(v)
            if what != "string":
                raise _Abort(_type_error(what, "string", struct, fields))
            _not_a_timestamp(v, path)
        problem = parse_error(str(v), micro=self.micro)
        if problem is not None:
            raise _Abort(_located(path, problem))


_ALWAYS_FINE: dict[str | None, type] = {"string": str, "bool": bool}
def _not_a_timestamp(v: Any, path: _Stack) -> None:
    """kubectl sends an unquoted YAML timestamp as the string it was written as; kubesim keeps
    what its YAML loader made of it (a date), which it cannot use where a string belongs."""
    if isinstance(v, datetime.date):
        raise _Abort(_located(path, f"YAML read {v.isoformat()} as a timestamp: quote it to make it a string"))


_NOTHING: Any = object()
_EMPTY: dict[str, Any] = {}
_NO_ITEMS: list[Any] = []


def _go_name(schema: dict[str, Any]) -> str:
    """The Go type name implied by a schema when the Go sources did not give one."""
    ref = schema.get("$ref")
    if ref:
        return ".".join(ref.rsplit("/", 1)[-1].split(".")[-2:])
    kind, fmt = schema.get("type"), schema.get("format")
    if kind == "array":
        return "[]" + _go_name(schema.get("items") or {})
    if kind == "object":
        return "map[string]" + _go_name(schema.get("additionalProperties") or {})
    if kind == "integer":
        return "int64" if fmt == "int64" else "int32"
    if kind == "number":
        return "float64"
    if kind == "boolean":
        return "bool"
    if kind == "string" and fmt == "byte":
        return "[]uint8"
    return "string" if kind == "string" else "interface {}"


def _node(schema: dict[str, Any], names: list[str] | None) -> _Node:
    go = names[0] if names else _go_name(schema)
    rest = names[1:] if names else None
    ref = schema.get("$ref")
    if ref:
        return _definition_node(ref.rsplit("/", 1)[-1])
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return _Anything(go)
    kind = schema.get("type")
    if kind == "array":
        return _Array(go, _node(schema.get("items") or {}, rest))
    if kind == "object":
        extra = schema.get("additionalProperties")
        return _Map(go, _node(extra, rest)) if isinstance(extra, dict) else _Anything(go)
    if kind == "string":
        return _Bytes(go) if schema.get("format") == "byte" else _Scalar(go, "string")
    if kind == "integer":
        return _Scalar(go, "int64" if schema.get("format") == "int64" else "int32")
    if kind == "number":
        return _Scalar(go, "float64")
    if kind == "boolean":
        return _Scalar(go, "bool")
    return _Anything(go)


@cache
def _definition_node(name: str) -> _Node:
    go = ".".join(name.split(".")[-2:])
    if name == _QUANTITY:
        return _Quantity(go)
    if name == _INT_OR_STRING:
        return _IntOrString(go)
    if name in (_TIME, _MICRO_TIME):
        return _Time(go, name == _MICRO_TIME)
    if name in _ANYTHING:
        return _Anything(go)
    return _Struct(go, name)


# --- entry points ----------------------------------------------------------------------------


def decoding_message(
    group: str, version: str, kind: str, obj: Any, old: Any = None, *, strict: bool = True
) -> str | None:
    """The BadRequest message decoding `obj` as group/version kind gets, or None when it decodes.

    `old` is the stored object an update replaces: subtrees it shares with `obj` are skipped.
    strict=False (fieldValidation Ignore or Warn) lets unknown fields pass, and removes them from
    `obj` (in place) as decoding into Go structs leaves them out. Kinds the vendored
    definitions do not know decode as anything.
    """
    name = openapi.definition_for(group, version, kind)
    if name is None:
        return None
    key = None
    if strict and old is None:  # a new object, decoded strictly: a pure check, remembered when it passes
        key = content_key((group, version, kind, _nameless(obj)))
        if _DECODED.get(key):
            return None
    node = _definition_node(name)
    error = _walk(node, obj, old, ordered=False, strict=strict)
    if error is None:
        _DECODED.put(key, True)
        return None
    error = _walk(node, obj, old, ordered=True, strict=strict)  # again in JSON order: upstream's first error
    return f'{kind} in version "{version}" cannot be handled as a {kind}: {error}'


def _walk(node: _Node, obj: Any, old: Any, *, ordered: bool, strict: bool = True) -> str | None:
    """The error decoding `obj` into `node` gives (json: ... or strict decoding error: ...)."""
    w = _Walk(ordered, strict)
    try:
        if type(obj) is dict and isinstance(node, _Struct):
            node.check(obj, old if type(old) is dict else _NOTHING, w, "", None, None, 0)
        elif obj is not None:
            node.check(obj, _NOTHING, w, "", None, None, 0)
    except _Abort as exc:
        return str(exc)
    if w.type_error is not None:
        return w.type_error
    if w.strict:
        return "strict decoding error: " + ", ".join(w.strict)
    for container, key in w.dropped:
        del container[key]
    return None


_DECODED: ContentMemo[bool] = ContentMemo()
"""New objects that decoded strictly without an error: `kubesim run` checks every object of a
scenario before the run and the cluster decodes it again when the engine creates it. Keyed
without metadata.name (a string decodes the same whatever it says), so a workload's pods,
or a cluster's nodes, that differ only in their names are decoded once."""


def _nameless(obj: Any) -> Any:
    """`obj` for the decoding memo's key: a string metadata.name blanked (shallow copies)."""
    if type(obj) is dict:
        meta = obj.get("metadata")
        if type(meta) is dict and type(meta.get("name")) is str:
            return {**obj, "metadata": {**meta, "name": ""}}
    return obj

_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"


def delete_options_message(options: dict[str, Any]) -> str | None:
    """The error decoding a DELETE body (metav1.DeleteOptions) gives, unwrapped as the handler
    returns it, e.g. for a gracePeriodSeconds beyond int64; None when it decodes."""
    return _walk(_definition_node(_DELETE_OPTIONS), options, None, ordered=True)


def patch_decoding_message(group: str, version: str, kind: str, patch: Any, *, json_patch: bool = False) -> str | None:
    """decoding_message for what a patch puts into an object, known before anything runs.

    Every non-null value of a merge or strategic merge patch lands at the same place in the
    patched object, and the rest of that object decoded when it was stored, so the patch
    alone shows the errors decoding the result will give. Strategic-merge directives
    ("$patch", "$setElementOrder/...", ...) are not fields and are left out. For a JSON
    patch (json_patch=True), the values of its add and replace operations are put where
    their paths say (an append, "-", whose index is not known yet, is left to run time).
    """
    body = _json_patch_values(patch) if json_patch else _without_directives(patch)
    return decoding_message(group, version, kind, body)


_MAX_PATCH_INDEX = 10_000


def _json_patch_values(operations: Any) -> dict[str, Any]:
    """One object holding the values JSON patch add/replace operations write, at their paths."""
    merged: dict[str, Any] = {}
    for op in operations if type(operations) is list else ():
        if type(op) is not dict or op.get("op") not in ("add", "replace") or type(op.get("path")) is not str:
            continue
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]]
        if not tokens or "-" in tokens or any(t.isdigit() and int(t) > _MAX_PATCH_INDEX for t in tokens):
            continue
        _put(merged, tokens, op.get("value"))
    return merged


def _put(container: Any, tokens: list[str], value: Any) -> None:
    """Set `value` at `tokens` under `container`, making objects and (null-padded) arrays on the way."""
    for i, token in enumerate(tokens):
        last = i == len(tokens) - 1
        nxt: Any = value if last else ([] if tokens[i + 1].isdigit() else {})
        if type(container) is list and token.isdigit():
            index = int(token)
            container.extend([None] * (index + 1 - len(container)))
            if last or container[index] is None:
                container[index] = nxt
            container = container[index]
        elif type(container) is dict:
            if last or type(container.get(token)) is not type(nxt):
                container[token] = nxt
            container = container[token]
        else:
            return


def _without_directives(value: Any, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        return value
    if type(value) is dict:
        return {k: _without_directives(v, depth + 1) for k, v in value.items() if not str(k).startswith("$")}
    if type(value) is list:
        return [_without_directives(v, depth + 1) for v in value]
    return value


def metadata_decoding_message(version: str, kind: str, obj: Any, old: Any = None) -> str | None:
    """decoding_message for the metadata of `obj` alone (as ObjectMeta), for custom resources."""
    meta = obj.get("metadata") if type(obj) is dict else None
    if meta is None:
        return None
    prior = old.get("metadata", _NOTHING) if type(old) is dict else _NOTHING
    if prior is meta:
        return None
    node = _definition_node(_OBJECT_META)
    for ordered in (False, True):
        w = _Walk(ordered)
        try:
            node.check(meta, prior, w, kind, (None, ".metadata"), (None, ".metadata"), 1)
        except _Abort as exc:
            error: str | None = str(exc)
        else:
            error = w.type_error or ("strict decoding error: " + ", ".join(w.strict) if w.strict else None)
        if error is None:
            return None
    return f'{kind} in version "{version}" cannot be handled as a {kind}: {error}'


def decode_error(
    group: str, version: str, kind: str, obj: Any, old: Any = None, *, strict: bool = True
) -> BadRequest | None:
    """decoding_message as the API error a request gets (400 BadRequest), or None."""
    message = decoding_message(group, version, kind, obj, old, strict=strict)
    return None if message is None else BadRequest(message)
