"""Label selectors and field selectors, parsed once and matched many times.

The label selector grammar, error messages and `String()` form follow
k8s.io/apimachinery pkg/labels/selector.go; metav1.LabelSelector conversion follows
pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector); field selectors follow
pkg/fields/selector.go. Invalid selectors raise BadRequest, as a list request would.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

import attrs

from kubesim.errors import BadRequest

from .validation import FieldError, aggregate, invalid, is_label_value, is_qualified_name

__all__ = ["FieldSelector", "LabelSelector", "Requirement"]

IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "in", "notin", "=", "==", "!="
EXISTS, DOES_NOT_EXIST, GREATER_THAN, LESS_THAN = "exists", "!", "gt", "lt"
_BINARY = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_ALL_OPERATORS = _BINARY + (EXISTS, DOES_NOT_EXIST)
_POSITIVE = frozenset((EQUALS, DOUBLE_EQUALS, IN))
_NEGATIVE = frozenset((NOT_EQUALS, NOT_IN))


@attrs.frozen
class Requirement:
    """One `key <operator> values` term of a label selector."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    _value_set: frozenset[str] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_value_set", frozenset(self.values))

    @classmethod
    def checked(cls, key: str, operator: str, values: Sequence[str]) -> Requirement:
        """Build a requirement, validating it as labels.NewRequirement does (BadRequest)."""
        errs: list[FieldError] = [invalid("key", key, m) for m in is_qualified_name(key)]
        vals = list(values)
        if operator in (IN, NOT_IN):
            if not vals:
                errs.append(invalid("values", vals, "for 'in', 'notin' operators, values set can't be empty"))
        elif operator in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
            if len(vals) != 1:
                errs.append(invalid("values", vals, "exact-match compatibility requires one single value"))
        elif operator in (EXISTS, DOES_NOT_EXIST):
            if vals:
                errs.append(invalid("values", vals, "values set must be empty for exists and does not exist"))
        elif operator in (GREATER_THAN, LESS_THAN):
            if len(vals) != 1:
                errs.append(
                    invalid("values", vals, "for 'Gt', 'Lt' operators, exactly one value is required")
                )
            for i, v in enumerate(vals):
                if _int64(v) is None:
                    errs.append(
                        invalid(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")
                    )
        else:
            supported = ", ".join(f'"{o}"' for o in _ALL_OPERATORS)
            errs.append(
                FieldError("Unsupported value", "operator", operator, f"supported values: {supported}")
            )
        for i, v in enumerate(vals):
            errs.extend(invalid(f"values[{i}][{key}]", v, m) for m in is_label_value(v))
        if errs:
            raise BadRequest(aggregate(errs))
        return cls(key, operator, tuple(vals))

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether a label set satisfies this requirement."""
        op = self.operator
        if op in _POSITIVE:
            value = labels.get(self.key)
            return value is not None and value in self._value_set
        if op in _NEGATIVE:
            value = labels.get(self.key)
            return value is None or value not in self._value_set
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        value = labels.get(self.key)
        if value is None or len(self.values) != 1:
            return False
        have, want = _int64(value), _int64(self.values[0])
        if have is None or want is None:
            return False
        return have > want if op == GREATER_THAN else have < want

    def __str__(self) -> str:
        op = self.operator
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in (IN, NOT_IN):
            return f"{self.key} {op} ({values})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(op, op)
        return f"{self.key}{symbol}{values}"


def _int64(text: str) -> int | None:
    try:
        value = int(text, 10)
    except ValueError:
        return None
    if text != text.strip() or "_" in text or not -(2**63) <= value < 2**63:
        return None
    return value


@attrs.frozen
class LabelSelector:
    """A parsed label selector; `matches(labels)` is the hot path (no parsing there).

    `everything()` matches all label sets, `nothing()` none (a nil metav1.LabelSelector).
    """

    requirements: tuple[Requirement, ...] = ()
    match_nothing: bool = False

    @classmethod
    def everything(cls) -> LabelSelector:
        """The selector that matches every object."""
        return _EVERYTHING

    @classmethod
    def nothing(cls) -> LabelSelector:
        """The selector that matches no object (what a nil metav1.LabelSelector means)."""
        return _NOTHING

    @classmethod
    def parse(cls, text: str) -> LabelSelector:
        """Parse the string form, e.g. `a=b,c!=d,e in (x,y),!f,g` (BadRequest when invalid)."""
        return _parse_cached(text)

    @classmethod
    def from_set(cls, labels: Mapping[str, str]) -> LabelSelector:
        """The selector requiring every label in `labels` (like labels.SelectorFromSet)."""
        reqs = [Requirement(k, EQUALS, (v,)) for k, v in labels.items()]
        return cls(tuple(sorted(reqs, key=lambda r: r.key)))

    @classmethod
    def from_dict(cls, selector: Mapping[str, Any] | None) -> LabelSelector:
        """Convert a metav1.LabelSelector (matchLabels, matchExpressions); None matches nothing."""
        if selector is None:
            return _NOTHING
        if not isinstance(selector, Mapping):
            raise BadRequest(f"a label selector must be an object, not {type(selector).__name__}")
        for field in selector:
            if field not in ("matchLabels", "matchExpressions"):
                raise BadRequest(
                    f'unknown field "{field}" in a label selector (it has matchLabels and '
                    "matchExpressions; use LabelSelector.from_set for a plain label set)"
                )
        match_labels = selector.get("matchLabels") or {}
        expressions = selector.get("matchExpressions") or []
        reqs = [Requirement.checked(str(k), EQUALS, [_label_string(v)]) for k, v in match_labels.items()]
        for expr in expressions:
            if not isinstance(expr, Mapping):
                raise BadRequest("matchExpressions items must be objects")
            op = _EXPRESSION_OPERATORS.get(expr.get("operator"))  # type: ignore[arg-type]
            if op is None:
                raise BadRequest(f'"{expr.get("operator")}" is not a valid label selector operator')
            values = [_label_string(v) for v in expr.get("values") or []]
            reqs.append(Requirement.checked(str(expr.get("key", "")), op, values))
        return cls(tuple(sorted(reqs, key=lambda r: r.key)))

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
        """True when the selector has no requirements (and so matches everything)."""
        return not self.requirements and not self.match_nothing

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether a label set (None means no labels) satisfies every requirement."""
        if self.match_nothing:
            return False
        if labels is None:
            labels = _NO_LABELS
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    def requires_exact_match(self, key: str) -> str | None:
        """The single value `key` must have, if the selector pins it (RequiresExactMatch)."""
        for r in self.requirements:
            if r.key == key:
                if r.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(r.values) == 1:
                    return r.values[0]
                return None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


_NO_LABELS: Mapping[str, str] = {}
_EVERYTHING = LabelSelector()
_NOTHING = LabelSelector(match_nothing=True)
_EXPRESSION_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}


def _label_string(value: Any) -> str:
    if not isinstance(value, str):
        raise BadRequest(f"label selector values must be strings, not {value!r}")
    return value


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
                raise BadRequest(f"found '{lit}', expected: !, identifier, or 'end of string'")
            try:
                reqs.append(self.requirement())
            except BadRequest as exc:
                raise BadRequest(f"unable to parse requirement: {exc.message}") from None
            tok, lit = self.take()
            if tok == _END:
                return reqs
            if tok != _COMMA:
                raise BadRequest(f"found '{lit}', expected: ',' or 'end of string'")
            tok, lit = self.peek()
            if tok not in (_ID, _NOT):
                raise BadRequest(f"found '{lit}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        operator = ""
        tok, key = self.take()
        if tok == _NOT:
            operator = DOES_NOT_EXIST
            tok, key = self.take()
        if tok != _ID:
            raise BadRequest(f"found '{key}', expected: identifier")
        problems = is_qualified_name(key)
        if problems:
            raise BadRequest(aggregate(invalid("key", key, m) for m in problems))
        if operator == DOES_NOT_EXIST or self.peek()[0] in (_END, _COMMA):
            return Requirement.checked(key, operator or EXISTS, [])
        tok, lit = self.take(values=False)
        op = _OPERATOR_TOKENS.get(tok)
        if op is None:
            raise BadRequest(f"found '{lit}', expected: " + ", ".join(_BINARY_SPELLING))
        values = self.set_values() if op in (IN, NOT_IN) else self.exact_value()
        return Requirement.checked(key, op, sorted(values))

    def set_values(self) -> set[str]:
        tok, lit = self.take()
        if tok != _OPEN:
            raise BadRequest(f"found '{lit}' expected: '('")
        tok, lit = self.peek()
        if tok == _CLOSE:
            self.take()
            return {""}
        if tok not in (_ID, _COMMA):
            raise BadRequest(f"found '{lit}', expected: ',', ')' or identifier")
        values = self.identifiers()
        if self.take()[0] != _CLOSE:
            raise BadRequest(f"found '{lit}', expected: ')'")
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
                raise BadRequest(f"found '{lit2}', expected: ',' or ')'")
            if tok == _COMMA:  # "(," ",," and ",)" each stand for an empty value
                if not values:
                    values.add("")
                if self.peek()[0] == _CLOSE:
                    values.add("")
                    return values
                if self.peek()[0] == _COMMA:
                    values.add("")
                continue
            raise BadRequest(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        tok, _ = self.peek()
        if tok in (_END, _COMMA):
            return {""}
        tok, lit = self.take()
        if tok == _ID:
            return {lit}
        raise BadRequest(f"found '{lit}', expected: identifier")


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
        """Parse the string form (BadRequest when invalid)."""
        return _parse_fields_cached(text)

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
                raise BadRequest(f"invalid field selector: '{selector}': invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            raise BadRequest(f"invalid field selector: '{selector}': unescaped {ch} in value")
        else:
            out.append(ch)
    if escaped:
        raise BadRequest(f"invalid field selector: '{selector}': trailing backslash")
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
            raise BadRequest(f"invalid selector: '{text}'; can't understand '{part}'")
        if not lhs:
            raise BadRequest(f"invalid selector: '{text}'; can't understand '{part}'")
        terms.append((tuple(lhs.split(".")), op != "!=", _unescape(rhs, text)))
    return FieldSelector(tuple(terms))
