"""Label selectors and field selectors, parsed once and matched many times.

The label selector grammar, error messages and `String()` form follow
k8s.io/apimachinery pkg/labels/selector.go (NewRequirement, Requirement.Matches, Parse,
SelectorFromSet); metav1.LabelSelector conversion follows pkg/apis/meta/v1/helpers.go
(LabelSelectorAsSelector); field selectors follow pkg/fields/selector.go. Invalid selectors
raise SelectorError, a BadRequest (what a list request answers) that is also a ValueError.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

import attrs

from kubesim.errors import BadRequest

from .validation import FieldError, aggregate, invalid, is_label_value, is_qualified_name
from .values import show_value

__all__ = [
    "DOES_NOT_EXIST",
    "DOUBLE_EQUALS",
    "EQUALS",
    "EVERYTHING",
    "EXISTS",
    "GREATER_THAN",
    "IN",
    "LESS_THAN",
    "NOTHING",
    "NOT_EQUALS",
    "NOT_IN",
    "FieldSelector",
    "LabelSelector",
    "Requirement",
    "SelectorError",
    "label_selector_as_selector",
    "node_selector_requirements",
    "parse_int64",
    "selector_from_set",
]

# selection.Operator values
IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "in", "notin", "=", "==", "!="
EXISTS, DOES_NOT_EXIST, GREATER_THAN, LESS_THAN = "exists", "!", "gt", "lt"
_BINARY = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_ALL_OPERATORS = _BINARY + (EXISTS, DOES_NOT_EXIST)
_POSITIVE = frozenset((EQUALS, DOUBLE_EQUALS, IN))
_NEGATIVE = frozenset((NOT_EQUALS, NOT_IN))
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class SelectorError(BadRequest, ValueError):
    """An invalid selector; the message is apimachinery's (a BadRequest to API callers)."""


def parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), or None when it fails."""
    if not text or text != text.strip() or "_" in text:
        return None
    try:
        value = int(text, 10)
    except ValueError:
        return None
    return value if _INT64_MIN <= value <= _INT64_MAX else None


class Requirement:
    """One `key <operator> values` term of a label selector (labels.Requirement).

    The constructor does not validate (like building the struct directly); `new` validates
    as labels.NewRequirement does.
    """

    __slots__ = ("_num", "key", "op", "values")

    def __init__(self, key: str, op: str, values: Iterable[str] = ()) -> None:
        self.key = key
        self.op = op
        self.values: frozenset[str] = frozenset(values)
        num = parse_int64(next(iter(self.values))) if op in (GREATER_THAN, LESS_THAN) and len(self.values) == 1 else None
        self._num = num

    @classmethod
    def new(cls, key: str, op: str, values: Sequence[str] = ()) -> Requirement:
        """labels.NewRequirement: validate and build; SelectorError carries Go's message."""
        errs: list[FieldError] = []
        key_problems = is_qualified_name(key)
        if key_problems:
            errs.append(invalid("key", key, "; ".join(key_problems)))
        vals = list(values)
        if op in (IN, NOT_IN):
            if not vals:
                errs.append(invalid("values", vals, "for 'in', 'notin' operators, values set can't be empty"))
        elif op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
            if len(vals) != 1:
                errs.append(invalid("values", vals, "exact-match compatibility requires one single value"))
        elif op in (EXISTS, DOES_NOT_EXIST):
            if vals:
                errs.append(invalid("values", vals, "values set must be empty for exists and does not exist"))
        elif op in (GREATER_THAN, LESS_THAN):
            if len(vals) != 1:
                errs.append(invalid("values", vals, "for 'Gt', 'Lt' operators, exactly one value is required"))
            for i, v in enumerate(vals):
                if parse_int64(v) is None:
                    errs.append(invalid(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"))
        else:
            supported = ", ".join(f'"{o}"' for o in _ALL_OPERATORS)
            errs.append(FieldError("Unsupported value", "operator", op, f"supported values: {supported}"))
        for i, v in enumerate(vals):
            problems = is_label_value(v)
            if problems:
                errs.append(invalid(f"values[{i}][{key}]", v, "; ".join(problems)))
        if errs:
            raise SelectorError(aggregate(errs))
        return cls(key, op, vals)

    checked = new

    @property
    def operator(self) -> str:
        """The selection.Operator ("in", "notin", "=", "==", "!=", "exists", "!", "gt", "lt")."""
        return self.op

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Requirement.Matches: whether a label set satisfies this requirement."""
        op = self.op
        if op in _POSITIVE:
            value = labels.get(self.key)
            return value is not None and value in self.values
        if op in _NEGATIVE:
            value = labels.get(self.key)
            return value is None or value not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        value = labels.get(self.key)
        if value is None or self._num is None:
            return False
        have = parse_int64(value)
        if have is None:
            return False
        return have > self._num if op == GREATER_THAN else have < self._num

    def sig(self) -> tuple[str, str, tuple[str, ...]]:
        """Hashable identity: key, operator and the sorted values."""
        return (self.key, self.op, tuple(sorted(self.values)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return self.key == other.key and self.op == other.op and self.values == other.values

    def __hash__(self) -> int:
        return hash((self.key, self.op, self.values))

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.op!r}, {sorted(self.values)!r})"

    def __str__(self) -> str:
        op = self.op
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        values = ",".join(sorted(self.values))
        if op in (IN, NOT_IN):
            return f"{self.key} {op} ({values})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(op, op)
        return f"{self.key}{symbol}{values}"


def _by_key(reqs: Iterable[Requirement]) -> tuple[Requirement, ...]:
    return tuple(sorted(reqs, key=lambda r: r.key))


class LabelSelector:
    """A parsed label selector (labels.Selector); `matches(labels)` is the hot path.

    Requirements are kept sorted by key, as internalSelector.Add keeps them. EVERYTHING
    matches every label set, NOTHING none (what a nil metav1.LabelSelector means).
    """

    __slots__ = ("_sig", "nothing", "requirements")

    def __init__(self, requirements: Iterable[Requirement] = (), nothing: bool = False) -> None:
        self.requirements: tuple[Requirement, ...] = tuple(requirements)
        self.nothing = nothing
        self._sig: tuple[Any, ...] | None = None

    @classmethod
    def everything(cls) -> LabelSelector:
        """The selector that matches every object."""
        return EVERYTHING

    @classmethod
    def parse(cls, text: str) -> LabelSelector:
        """Parse the string form, e.g. `a=b,c!=d,e in (x,y),!f,g` (SelectorError when invalid)."""
        return _parse_cached(text)

    @classmethod
    def from_set(cls, labels: Mapping[str, str] | None) -> LabelSelector:
        """labels.SelectorFromSet: equality on every pair (not validated); {} selects everything."""
        return selector_from_set(labels)

    @classmethod
    def from_dict(cls, selector: Mapping[str, Any] | None) -> LabelSelector:
        """Convert a metav1.LabelSelector given by a user; unknown fields are refused too."""
        if isinstance(selector, Mapping):
            for field in selector:
                if field not in ("matchLabels", "matchExpressions"):
                    raise SelectorError(
                        f'unknown field "{field}" in a label selector (it has matchLabels and '
                        "matchExpressions; use LabelSelector.from_set for a plain label set)"
                    )
        return label_selector_as_selector(selector)

    @classmethod
    def of(cls, selector: str | Mapping[str, Any] | LabelSelector) -> LabelSelector:
        """Accept any form: a string, a metav1.LabelSelector dict or an already parsed selector."""
        if isinstance(selector, LabelSelector):
            return selector
        if isinstance(selector, str):
            return cls.parse(selector)
        return cls.from_dict(selector)

    @property
    def empty(self) -> bool:
        """Selector.Empty(): no requirements (matches everything); False for NOTHING."""
        return not self.requirements and not self.nothing

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Selector.Matches: whether a label set (None: no labels) satisfies every requirement."""
        if self.nothing:
            return False
        if labels is None:
            labels = _NO_LABELS
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    def add(self, reqs: Iterable[Requirement]) -> LabelSelector:
        """Selector.Add: a new selector with more requirements (NOTHING absorbs them)."""
        if self.nothing:
            return self
        return LabelSelector(_by_key((*self.requirements, *reqs)))

    def requires_exact_match(self, key: str) -> str | None:
        """The single value `key` must have, if the selector pins it (RequiresExactMatch)."""
        for r in self.requirements:
            if r.key == key:
                if r.op in _POSITIVE and len(r.values) == 1:
                    return next(iter(r.values))
                return None
        return None

    def sig(self) -> tuple[Any, ...]:
        """Hashable identity, independent of requirement order."""
        sig = self._sig
        if sig is None:
            sig = ("nothing",) if self.nothing else tuple(sorted(r.sig() for r in self.requirements))
            self._sig = sig
        return sig

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return self.sig() == other.sig()

    def __hash__(self) -> int:
        return hash(self.sig())

    def __repr__(self) -> str:
        return "LabelSelector(<nothing>)" if self.nothing else f"LabelSelector({str(self)!r})"

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


_NO_LABELS: Mapping[str, str] = {}
EVERYTHING = LabelSelector()
NOTHING = LabelSelector(nothing=True)
_EXPRESSION_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}
_NODE_OPERATORS = {**_EXPRESSION_OPERATORS, "Gt": GREATER_THAN, "Lt": LESS_THAN}


def _go_quote(value: Any) -> str:
    """Go's %q for a string (other values as JSON)."""
    return json.dumps(value if isinstance(value, str) else str(value), ensure_ascii=False)


def _label_string(value: Any) -> str:
    if not isinstance(value, str):
        raise SelectorError(f"label selector values must be strings, not {show_value(value)}")
    return value


def selector_from_set(labels: Mapping[str, str] | None) -> LabelSelector:
    """labels.SelectorFromSet: equality on every pair, sorted by key; {} selects everything."""
    if not labels:
        return EVERYTHING
    return LabelSelector(Requirement(k, EQUALS, (labels[k],)) for k in sorted(labels))


def label_selector_as_selector(selector: Mapping[str, Any] | None) -> LabelSelector:
    """metav1.LabelSelectorAsSelector: None -> NOTHING, {} -> EVERYTHING; SelectorError otherwise."""
    if selector is None:
        return NOTHING
    if not isinstance(selector, Mapping):
        raise SelectorError(f"a label selector must be an object, not {type(selector).__name__}")
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not match_labels and not expressions:
        return EVERYTHING
    reqs = [Requirement.new(str(k), EQUALS, [_label_string(match_labels[k])]) for k in sorted(match_labels)]
    for expr in expressions:
        if not isinstance(expr, Mapping):
            raise SelectorError("matchExpressions items must be objects")
        op = _EXPRESSION_OPERATORS.get(expr.get("operator"))  # type: ignore[arg-type]
        if op is None:
            raise SelectorError(f"{_go_quote(expr.get('operator', ''))} is not a valid label selector operator")
        values = [_label_string(v) for v in expr.get("values") or ()]
        reqs.append(Requirement.new(str(expr.get("key", "")), op, values))
    return LabelSelector(_by_key(reqs))


def node_selector_requirements(expressions: Iterable[Mapping[str, Any]]) -> list[Requirement]:
    """NodeSelectorRequirements as label requirements (In, NotIn, Exists, DoesNotExist, Gt, Lt).

    upstream: component-helpers/scheduling/corev1/nodeaffinity (nodeSelectorRequirementsAsSelector).
    """
    out = []
    for expr in expressions:
        op = _NODE_OPERATORS.get(expr.get("operator", ""))
        if op is None:
            raise SelectorError(f"{_go_quote(expr.get('operator', ''))} is not a valid label selector operator")
        out.append(Requirement.new(expr.get("key", ""), op, list(expr.get("values") or ())))
    return out


# --- the string grammar: a lexer and a recursive-descent parser -------------------------

_ERROR, _END, _CLOSE, _COMMA, _NOT, _DEQ, _EQ, _GT, _ID, _IN, _LT, _NEQ, _NOTIN, _OPEN = range(14)
_TOKENS = {
    ")": _CLOSE,
    ",": _COMMA,
    "!": _NOT,
    "==": _DEQ,
    "=": _EQ,
    ">": _GT,
    "in": _IN,
    "<": _LT,
    "!=": _NEQ,
    "notin": _NOTIN,
    "(": _OPEN,
}
_SPECIAL = frozenset("=!(),><")
_SPACE = frozenset(" \t\r\n")


def _lex(text: str) -> Iterator[tuple[int, str]]:
    """Yield (token, literal) pairs, ending with the end-of-string token."""
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _SPACE:
            i += 1
        if i >= n:
            yield _END, ""
            return
        if text[i] in _SPECIAL:
            # the longest run of special characters that is still a token
            j, best = i, None
            while j < n and text[j] in _SPECIAL:
                tok = _TOKENS.get(text[i : j + 1])
                if tok is not None:
                    best = (tok, text[i : j + 1])
                elif best is not None:
                    break
                j += 1
            if best is None:
                yield _ERROR, f"error expected: keyword found '{text[i:j]}'"
                i = j
            else:
                yield best
                i += len(best[1])
            continue
        j = i
        while j < n and text[j] not in _SPECIAL and text[j] not in _SPACE:
            j += 1
        word = text[i:j]
        yield _TOKENS.get(word, _ID), word
        i = j


class _Parser:
    def __init__(self, text: str) -> None:
        self.items = list(_lex(text))
        self.pos = 0

    def peek(self) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        return (_ID, lit) if tok in (_IN, _NOTIN) else (tok, lit)

    def take(self, values: bool = True) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        self.pos += 1
        return (_ID, lit) if values and tok in (_IN, _NOTIN) else (tok, lit)

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            tok, lit = self.peek()
            if tok == _END:
                return reqs
            if tok not in (_ID, _NOT):
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")
            try:
                reqs.append(self.requirement())
            except SelectorError as exc:
                raise SelectorError(f"unable to parse requirement: {exc.message}") from None
            tok, lit = self.take()
            if tok == _END:
                return reqs
            if tok != _COMMA:
                raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
            tok, lit = self.peek()
            if tok not in (_ID, _NOT):
                raise SelectorError(f"found '{lit}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        operator = ""
        tok, key = self.take()
        if tok == _NOT:
            operator = DOES_NOT_EXIST
            tok, key = self.take()
        if tok != _ID:
            raise SelectorError(f"found '{key}', expected: identifier")
        problems = is_qualified_name(key)
        if problems:
            raise SelectorError(aggregate(invalid("key", key, m) for m in problems))
        if operator == DOES_NOT_EXIST or self.peek()[0] in (_END, _COMMA):
            return Requirement.checked(key, operator or EXISTS, [])
        tok, lit = self.take(values=False)
        op = _OPERATOR_TOKENS.get(tok)
        if op is None:
            raise SelectorError(f"found '{lit}', expected: " + ", ".join(_BINARY_SPELLING))
        values = self.set_values() if op in (IN, NOT_IN) else self.exact_value()
        return Requirement.checked(key, op, sorted(values))

    def set_values(self) -> set[str]:
        tok, lit = self.take()
        if tok != _OPEN:
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self.peek()
        if tok == _CLOSE:
            self.take()
            return {""}
        if tok not in (_ID, _COMMA):
            raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")
        values = self.identifiers()
        if self.take()[0] != _CLOSE:
            raise SelectorError(f"found '{lit}', expected: ')'")
        return values

    def identifiers(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self.take()
            if tok == _ID:
                values.add(lit)
                tok2, lit2 = self.peek()
                if tok2 == _COMMA:
                    continue
                if tok2 == _CLOSE:
                    return values
                raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _COMMA:  # "(," ",," and ",)" each stand for an empty value
                if not values:
                    values.add("")
                if self.peek()[0] == _CLOSE:
                    values.add("")
                    return values
                if self.peek()[0] == _COMMA:
                    values.add("")
                continue
            raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        tok, _ = self.peek()
        if tok in (_END, _COMMA):
            return {""}
        tok, lit = self.take()
        if tok == _ID:
            return {lit}
        raise SelectorError(f"found '{lit}', expected: identifier")


_OPERATOR_TOKENS = {
    _IN: IN,
    _EQ: EQUALS,
    _DEQ: DOUBLE_EQUALS,
    _GT: GREATER_THAN,
    _LT: LESS_THAN,
    _NOTIN: NOT_IN,
    _NEQ: NOT_EQUALS,
}
_BINARY_SPELLING = ("in", "notin", "=", "==", "!=", "gt", "lt")


@lru_cache(maxsize=512)
def _parse_cached(text: str) -> LabelSelector:
    reqs = _Parser(text).parse()
    return LabelSelector(tuple(sorted(reqs, key=lambda r: r.key)))


# --- field selectors ----------------------------------------------------------------------


@attrs.frozen
class FieldSelector:
    """A parsed field selector: `path=value`, `path==value`, `path!=value` terms joined by ','.

    A path is a dotted field path (`spec.nodeName`, `status.phase`, `metadata.name`); a missing
    field compares as "" and booleans as "true"/"false", as the API server's field sets do.
    """

    terms: tuple[tuple[tuple[str, ...], bool, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> FieldSelector:
        """Parse the string form (SelectorError when invalid)."""
        return _parse_fields_cached(text)

    @classmethod
    def equals(cls, path: str, value: str) -> FieldSelector:
        """The selector `path=value`, without parsing or escaping (`equals("spec.nodeName", n)`,
        what the kubelet lists once per pod: one selector per node would not stay cached)."""
        return cls(((tuple(path.split(".")), True, value),))

    @property
    def empty(self) -> bool:
        """True when there are no terms."""
        return not self.terms

    def matches(self, obj: Mapping[str, Any]) -> bool:
        """Whether an object satisfies every term."""
        for path, equal, want in self.terms:
            value: Any = obj
            for part in path:
                value = value.get(part) if isinstance(value, dict) else None
            have = _field_string(value)
            if (have == want) is not equal:
                return False
        return True

    def __str__(self) -> str:
        return ",".join(f"{'.'.join(p)}{'=' if eq else '!='}{_escape(v)}" for p, eq, v in self.terms)


def _field_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _split_terms(text: str) -> list[str]:
    terms, start, escaped = [], 0, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _unescape(text: str, selector: str) -> str:
    out, escaped = [], False
    for ch in text:
        if escaped:
            if ch not in "\\,=":
                raise SelectorError(f"invalid field selector: '{selector}': invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            raise SelectorError(f"invalid field selector: '{selector}': unescaped {ch} in value")
        else:
            out.append(ch)
    if escaped:
        raise SelectorError(f"invalid field selector: '{selector}': trailing backslash")
    return "".join(out)


@lru_cache(maxsize=512)
def _parse_fields_cached(text: str) -> FieldSelector:
    terms = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        for i in range(len(part)):
            op = next((o for o in ("!=", "==", "=") if part.startswith(o, i)), None)
            if op is not None:
                lhs, rhs = part[:i], part[i + len(op) :]
                break
        else:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        if not lhs:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        terms.append((tuple(lhs.split(".")), op != "!=", _unescape(rhs, text)))
    return FieldSelector(tuple(terms))
