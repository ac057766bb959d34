"""Limits on what kubesim reads: file size and type, text encoding, nesting depth, YAML aliases.

Every reader of a user file or document (scenarios, results, scheduler configurations,
patch bodies, the kubelet's sim spec) goes through these checks, so that hostile input ends
at once with a clear error instead of a hang, a RecursionError or a crash:

- `read_text`: a regular file or a pipe, at most MAX_FILE_BYTES, UTF-8 without NUL bytes.
- `json_loads` / `check_yaml_text`: at most MAX_DEPTH nested collections (YAML checked
  before a recursive composer, PyYAML's or libyaml's, sees the text); JSON numbers that
  Go's decoder would refuse (NaN, 1e999) or Python cannot convert (5,000 digits).
- `check_yaml_node`: aliases may not expand a document beyond yaml.v2's budget (what
  kube-apiserver and kube-scheduler decode YAML with), nor nest it deeper than MAX_DEPTH.

Go's decoders nest up to 10,000 levels (encoding/json and yaml.v3's "exceeded max depth");
kubesim's code is recursive Python, so its limit is lower (see MAX_DEPTH).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import yaml

__all__ = [
    "FastSafeLoader",
    "INPUT_LIMITS",
    "InputLimitError",
    "Limits",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_RESULT_BYTES",
    "MAX_RESULT_DEPTH",
    "RESULT_LIMITS",
    "SafeLoader",
    "check_yaml_node",
    "check_yaml_text",
    "json_key",
    "valid_unicode",
    "composed_documents",
    "json_loads",
    "may_hold_aliases",
    "read_text",
]

MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest file kubesim reads (64 MiB): a 10,000-pod scenario is about 8 MiB."""

MAX_DEPTH = 100
"""The deepest nesting of maps and lists in a document a user writes (the document itself is
level 1). Kubernetes objects nest about 15 levels, a scenario adds 6, a CRD schema two per
level of its custom resource; kubesim's recursive code (structuring, copies, validation,
results) works to about 480 levels, so 100 leaves room for every step that adds levels."""

MAX_RESULT_DEPTH = 2 * MAX_DEPTH
"""The deepest nesting in a result given to `kubesim report` or `compare`: a result holds the
scenario's objects a few levels deeper than the scenario did."""

MAX_RESULT_BYTES = 1024 * 1024 * 1024
"""The largest result kubesim reads (1 GiB): a 10,000-pod run writes about 75 MB."""


@attrs.frozen
class Limits:
    """How large (bytes) and how deep (nested maps and lists) a file kubesim reads may be."""

    max_bytes: int
    max_depth: int


INPUT_LIMITS = Limits(MAX_FILE_BYTES, MAX_DEPTH)
"""For what a user writes: scenarios, scheduler configurations."""

RESULT_LIMITS = Limits(MAX_RESULT_BYTES, MAX_RESULT_DEPTH)
"""For results (`kubesim run -o`) given to `kubesim report` and `compare`."""

# yaml.v2's alias budget (gopkg.in/yaml.v2 decode.go, allowedAliasRatio and unmarshal), the
# decoder kube-apiserver and kube-scheduler read YAML with: beyond 100 alias-made nodes and
# 1,000 nodes in all, at most 99% of a document may come from aliases, down to 10% for
# documents of 4,000,000 nodes.
_ALIAS_FLOOR = 100
_DECODE_FLOOR = 1000
_RATIO_LOW, _RATIO_HIGH = 400_000, 4_000_000


class InputLimitError(ValueError):
    """A file or document beyond one of kubesim's input limits: `where` (e.g. "line 3
    column 7", may be empty) and `reason`."""

    def __init__(self, where: str, reason: str) -> None:
        self.where = where
        self.reason = reason
        super().__init__(f"{where}: {reason}" if where else reason)


def _describe_mode(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory"
    kinds = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"))
    kind = next((name for test, name in kinds if test(mode)), "a special file")
    return f"not a regular file ({kind})"


def read_text(path: str | os.PathLike[str], *, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file or a pipe (`<(cmd)`, /dev/stdin), at most `max_bytes`.

    A device, directory or socket is refused before reading: /dev/urandom or /dev/zero would
    never end. Raises OSError when the file cannot be opened, InputLimitError otherwise.
    """
    mode = os.stat(path).st_mode  # follows symlinks, as open does
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise InputLimitError("", _describe_mode(mode))
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())  # the file opened, not a name swapped since
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise InputLimitError("", _describe_mode(st.st_mode))
        if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
            raise InputLimitError("", _too_large(max_bytes))
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputLimitError("", _too_large(max_bytes))
    nul = data.find(b"\0")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if 0 <= nul < exc.start:
            raise InputLimitError("", f"NUL byte at byte {nul}: a binary file, not YAML or JSON") from None
        raise InputLimitError("", f"not valid UTF-8 at byte {exc.start}") from None
    if nul >= 0:
        raise InputLimitError("", f"NUL byte at byte {nul}: a binary file, not YAML or JSON")
    return text


def _too_large(max_bytes: int) -> str:
    return f"larger than {_size(max_bytes)}, the most kubesim reads"


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n % (1024 * 1024) == 0 else f"{n} bytes"


def _position(text: str, pos: int) -> str:
    """`line L column C` (1-based) of offset `pos` in `text`."""
    line = text.count("\n", 0, pos) + 1
    return f"line {line} column {pos - text.rfind(chr(10), 0, pos)}"


def _too_deep(language: str, max_depth: int, where: str = "") -> InputLimitError:
    return InputLimitError(where, f"{language} nested deeper than {max_depth} levels, the most kubesim reads")


_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_ONE_BRACKET = bytes.maketrans(b"{}", b"[]")
_QUOTED = re.compile(rb'"[^"]*"')


def _json_depth(text: str, max_depth: int) -> int:
    """The nesting of valid JSON `text` when within `max_depth`, else max_depth + 1.

    Outside its strings, JSON's brackets are its nesting. Kept: brackets and quotes (escapes
    removed first), less every `""` (an empty string, or the gap between two strings) and
    the strings left; then, all brackets made square, the innermost pairs are removed once
    per level. All in C."""
    opening = text.count("[") + text.count("{")
    if opening <= max_depth:
        return opening  # an upper bound within the limit
    data = text.encode("utf-8")
    for escape in (b"\\\\", b'\\"'):  # in this order: an escaped backslash may precede a quote
        if escape in data:
            data = data.replace(escape, b"")
    skeleton = _QUOTED.sub(b"", data.translate(None, _NOT_STRUCTURE).replace(b'""', b""))
    skeleton = skeleton.translate(_ONE_BRACKET)
    depth = 0
    while skeleton and depth <= max_depth:
        skeleton = skeleton.replace(b"[]", b"")  # one scan: the pairs it makes wait for the next
        depth += 1
    return depth


def _too_deep_at(text: str, max_depth: int) -> InputLimitError:
    """The depth error naming where JSON `text` first opens level max_depth + 1."""
    depth = 0
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token in ("[", "{"):
            depth += 1
            if depth > max_depth:
                return _too_deep("JSON", max_depth, _position(text, m.start()))
        elif token in ("]", "}"):
            depth -= 1
    return _too_deep("JSON", max_depth)


_MAX_INT_DIGITS = 4300  # Python's own bound on int(str) (sys.get_int_max_str_digits' default)
_JSON_NUMBER = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|(-?(?:Infinity|NaN|[0-9][0-9.eE+-]*))')


class _BadNumber(Exception):
    def __init__(self, literal: str, reason: str) -> None:
        super().__init__(reason)
        self.literal, self.reason = literal, reason


def _json_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):  # Go: "cannot unmarshal number 1e999 into Go value of type float64"
        raise _BadNumber(literal, f"the number {_clip(literal)} is out of the range of a 64-bit float")
    return value


def _json_constant(literal: str) -> Any:
    raise _BadNumber(literal, f"{literal} is not a JSON value")  # Python's json accepts it; JSON does not


def _clip(literal: str) -> str:
    return literal if len(literal) <= 40 else f"{literal[:20]}...{literal[-10:]}"


_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _fixed(value: str) -> str:
    if _SURROGATE.search(value) is None:
        return value
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _fix_tree(value: Any) -> Any:
    if isinstance(value, str):
        return _fixed(value)
    if isinstance(value, dict):
        return {_fix_tree(k): _fix_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fix_tree(v) for v in value]
    return value


def valid_unicode(text: str, data: Any) -> Any:
    """`data` parsed from `text` with every lone UTF-16 surrogate ("\\ud864" escapes in JSON or
    YAML) replaced by U+FFFD, as Go's decoders do: such a string cannot be written as UTF-8.
    The tree is walked only when the text holds a surrogate escape."""
    if _SURROGATE_ESCAPE.search(text) is None:
        return data
    return _fix_tree(data)


def json_loads(text: str, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any],
               max_depth: int = MAX_DEPTH, *, fix_unicode: bool = True) -> Any:
    """json.loads within the limits: at most `max_depth` levels, no NaN or Infinity (not JSON),
    no float beyond float64, no integer beyond Python's int conversion. InputLimitError names
    the line and column; json.JSONDecodeError on a syntax error. With `fix_unicode` False the
    caller applies valid_unicode itself (the tree keeps what `object_pairs_hook` built).

    json's parser (C, or Python) raises RecursionError near 1,000 levels, so the depth is
    counted after parsing, on a text known to be JSON."""
    try:
        data = json.loads(text, object_pairs_hook=object_pairs_hook, parse_float=_json_float,
                          parse_constant=_json_constant)  # no parse_int: twice as slow
    except RecursionError:
        raise _too_deep_at(text, max_depth) from None
    except _BadNumber as exc:
        found = _first_literal(text, lambda s: s == exc.literal)
        raise InputLimitError(_position(text, found.start(1)) if found else "", exc.reason) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # int(): "Exceeds the limit (4300 digits) for integer string conversion"
        found = _first_literal(text, lambda s: _digits(s) > _MAX_INT_DIGITS)
        if found is None:
            raise
        raise InputLimitError(_position(text, found.start(1)), _too_many_digits(_digits(found.group(1)))) from None
    if _json_depth(text, max_depth) > max_depth:
        raise _too_deep_at(text, max_depth)
    return valid_unicode(text, data) if fix_unicode else data


def _digits(literal: str) -> int:
    return sum(c.isdigit() for c in literal)


def _too_many_digits(digits: int) -> str:
    return f"an integer of {digits} digits, more than the {_MAX_INT_DIGITS} kubesim reads"


def _first_literal(text: str, wanted: Callable[[str], bool]) -> re.Match[str] | None:
    """The first number or constant outside JSON strings that is `wanted` (group 1)."""
    return next((m for m in _JSON_NUMBER.finditer(text) if m.group(1) and wanted(m.group(1))), None)


_COLLECTION_START = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_COLLECTION_END = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


_EMPTY_FLOW = re.compile(r"\[\s*\]|\{\s*\}")


def _yaml_depth_bound(text: str) -> int:
    """An upper bound of the nesting of YAML `text`: a block collection nests at most one
    level per column (longest line + 1), a flow collection needs an opening bracket (an
    empty `[]` or `{}` adds one level at most, whatever else it is part of)."""
    bare = _EMPTY_FLOW.sub("", text)
    opening = bare.count("[") + bare.count("{")
    return max(map(len, text.splitlines()), default=0) + 1 + opening + 1


def check_yaml_text(text: str, loader_class: Any, max_depth: int = MAX_DEPTH) -> None:
    """InputLimitError naming the line where YAML `text` nests deeper than `max_depth`
    collections, before a composer recurses into it (PyYAML's raises RecursionError near 330
    levels, libyaml's crashes Python near a million).

    A cheap bound (`_yaml_depth_bound`) settles most files; only beyond the limit are the
    parser's events (an iterative scan, `loader_class`'s parser) counted."""
    if _yaml_depth_bound(text) <= max_depth:
        return
    parser = loader_class(text)
    try:
        depth = 0
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, _COLLECTION_START):
                depth += 1
                if depth > max_depth:
                    mark = event.start_mark
                    where = f"line {mark.line + 1} column {mark.column + 1}"
                    raise _too_deep("YAML", max_depth, where)
            elif isinstance(event, _COLLECTION_END):
                depth -= 1
    finally:
        parser.dispose()


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """PyYAML's int, but InputLimitError (not Python's ValueError) beyond its digit limit."""
    digits = sum(c.isdigit() for c in node.value) if len(node.value) > _MAX_INT_DIGITS else 0
    if digits > _MAX_INT_DIGITS:
        raise InputLimitError(_mark(node), _too_many_digits(digits))
    return loader.construct_yaml_int(node)


_NO_TIMESTAMPS = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
"""YAML 1.1's implicit types without timestamps: Kubernetes' YAML-to-JSON conversion
(sigs.k8s.io/yaml) reads `date: 2025-01-01` as the string "2025-01-01"."""


def json_key(key: Any) -> Any:
    """A YAML mapping key as JSON has it: sigs.k8s.io/yaml (kubectl, the API server) turns a key
    that is not a string (1, true, null) into its text, so `labels: {1: x}` is the label "1"."""
    if type(key) is str or isinstance(key, (list, tuple, dict)):
        return key  # unhashable keys are PyYAML's error
    return json.dumps(key) if isinstance(key, (bool, int, float)) or key is None else str(key)


def _construct_mapping(loader: Any, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    mapping = yaml.SafeLoader.construct_mapping(loader, node, deep)
    if all(type(k) is str for k in mapping):
        return mapping  # type: ignore[no-any-return]
    return {json_key(k): v for k, v in mapping.items()}


class SafeLoader(yaml.SafeLoader):  # type: ignore[misc]
    """PyYAML's SafeLoader with integers within Python's conversion limit, dates as strings and
    keys as JSON has them."""

    yaml_implicit_resolvers = _NO_TIMESTAMPS
    construct_mapping = _construct_mapping


SafeLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)

FastSafeLoader: Any = None
"""libyaml's CSafeLoader (about 20x faster) reading what SafeLoader reads, when PyYAML has libyaml."""
if getattr(yaml, "CSafeLoader", None) is not None:
    class _FastSafeLoader(yaml.CSafeLoader):  # type: ignore[misc]
        """libyaml's CSafeLoader reading what SafeLoader reads."""

        yaml_implicit_resolvers = _NO_TIMESTAMPS
        construct_mapping = _construct_mapping

    _FastSafeLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    FastSafeLoader = _FastSafeLoader


def _mark(node: yaml.Node) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _RATIO_LOW:
        return 0.99
    if decoded >= _RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _RATIO_LOW) / (_RATIO_HIGH - _RATIO_LOW)


def check_yaml_node(node: yaml.Node, max_depth: int = MAX_DEPTH) -> None:
    """InputLimitError when the composed document `node`, its aliases expanded, has excessive
    aliasing (yaml.v2's rule), nests deeper than `max_depth`, or holds an anchor that
    contains an alias to itself. Nodes are counted as yaml.v2 decodes them, so a billion-
    laughs document stops after a few thousand."""
    decoded = from_aliases = 0
    seen: set[int] = set()
    open_nodes: set[int] = set()
    # (node, depth, alias depth, the collection holding the outermost alias, leaving?)
    stack: list[tuple[yaml.Node, int, int, yaml.Node, bool]] = [(node, 1, 0, node, False)]
    while stack:
        current, depth, in_alias, holder, leaving = stack.pop()
        ident = id(current)
        if leaving:
            open_nodes.discard(ident)
            continue
        if ident in open_nodes:
            raise InputLimitError(_line(holder), "a YAML anchor contains an alias to itself")
        if ident in seen and in_alias == 0:
            in_alias = 1  # an alias: its nodes are decoded once more
        decoded += 1
        if in_alias:
            from_aliases += 1
        if (from_aliases > _ALIAS_FLOOR and decoded > _DECODE_FLOOR
                and from_aliases / decoded > _allowed_alias_ratio(decoded)):
            raise InputLimitError(
                _line(holder),
                f"excessive YAML aliasing: the aliases expand the document beyond {decoded} nodes",
            )
        seen.add(ident)
        if isinstance(current, yaml.ScalarNode):
            continue
        if depth > max_depth:
            raise _too_deep("YAML (with its aliases expanded)", max_depth, _line(holder if in_alias else current))
        open_nodes.add(ident)
        stack.append((current, depth, in_alias, holder, True))
        own = current if not in_alias else holder
        for child in reversed(list(_children(current))):
            stack.append((child, depth + 1, in_alias, own, False))


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value
    else:
        yield from node.value


def _line(node: yaml.Node) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1}" if mark is not None else ""


_ANCHOR = re.compile(r"(?:^|[\s\[{,])&[^\s\[\]{},]", re.MULTILINE)


def may_hold_aliases(text: str) -> bool:
    """False when YAML `text` defines no anchor, so no alias can expand it (an anchor `&a`
    follows a space, a line start or a flow indicator; `a&b` in a value is no anchor)."""
    return _ANCHOR.search(text) is not None


def composed_documents(loader: Any, text: str, max_depth: int = MAX_DEPTH) -> Iterator[yaml.Node]:
    """Each document of `text` composed by `loader` (made from `text`), within the limits:
    `check_yaml_text` before composing, `check_yaml_node` on documents that may hold aliases."""
    check_yaml_text(text, type(loader), max_depth)
    anchors = may_hold_aliases(text)
    while loader.check_node():
        node = loader.get_node()
        if anchors and node is not None:
            check_yaml_node(node, max_depth)
        yield node
