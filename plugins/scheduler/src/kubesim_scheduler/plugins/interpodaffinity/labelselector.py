"""Label selectors with apimachinery semantics: parsing, validation messages, matching.

upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go,
staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector),
staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (label key/value checks).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "EVERYTHING",
    "NOTHING",
    "Requirement",
    "Selector",
    "SelectorError",
    "aggregate_message",
    "go_quote",
    "selector_from_label_selector",
    "selector_from_set",
]

_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_RE = re.compile("^" + _QNAME_FMT + "$")
_LABEL_VALUE_FMT = "(" + _QNAME_FMT + ")?"
_LABEL_VALUE_RE = re.compile("^" + _LABEL_VALUE_FMT + "$")
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_RE = re.compile("^" + _DNS1123_SUBDOMAIN_FMT + "$")
_QNAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)


class SelectorError(ValueError):
    """A label selector that apimachinery would refuse to convert; str() is Go's message."""


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    msg += " (e.g. " + " or ".join(f"'{e}', " for e in examples)
    return msg + f"regex used for validation is '{fmt}')"


def _max_len_error(n: int) -> str:
    return f"must be no more than {n} characters"


def go_quote(s: str) -> str:
    """Go's %q for a string (ASCII-oriented approximation of strconv.Quote)."""
    out = ['"']
    for ch in s:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _field_invalid(path: str, value: Any, detail: str) -> str:
    """field.Invalid(path, value, detail).Error()."""
    if isinstance(value, str):
        shown = go_quote(value)
    elif isinstance(value, bool):
        shown = "true" if value else "false"
    elif isinstance(value, (int, float)):
        shown = str(value)
    else:
        shown = json.dumps(value, separators=(",", ":"))
    body = f"Invalid value: {shown}"
    if detail:
        body += f": {detail}"
    return f"{path}: {body}"


def _qualified_name_errors(value: str) -> list[str]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                errs.append("prefix part " + _max_len_error(253))
            if not _DNS1123_SUBDOMAIN_RE.match(prefix):
                errs.append(
                    "prefix part "
                    + _regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com")
                )
    else:
        return [
            "a qualified name "
            + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + _max_len_error(63))
    if not _QNAME_RE.match(name):
        errs.append("name part " + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def _label_value_errors(value: str) -> list[str]:
    errs: list[str] = []
    if len(value) > 63:
        errs.append(_max_len_error(63))
    if not _LABEL_VALUE_RE.match(value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def aggregate_message(msgs: list[str]) -> str:
    """utilerrors.NewAggregate(errs).Error(): one message as is, several deduplicated in brackets."""
    seen: list[str] = []
    for m in msgs:
        if m not in seen:
            seen.append(m)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


# Operators (selection.Operator values).
IN, NOT_IN, EXISTS, DOES_NOT_EXIST, EQUALS, GT, LT = "in", "notin", "exists", "!", "=", "gt", "lt"


class Requirement:
    """One selector requirement: key, operator and values."""

    __slots__ = ("_num", "key", "op", "values")

    def __init__(self, key: str, op: str, values: Iterable[str] = ()) -> None:
        self.key = key
        self.op = op
        self.values: frozenset[str] = frozenset(values)
        self._num = int(next(iter(self.values))) if op in (GT, LT) else 0

    def matches(self, labels: Mapping[str, str]) -> bool:
        """labels.Requirement.Matches."""
        op = self.op
        if op == IN or op == EQUALS:
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op == NOT_IN:
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        v = labels.get(self.key)
        if v is None:
            return False
        try:
            n = int(v, 10)
        except ValueError:
            return False
        if not -(2**63) <= n < 2**63:
            return False
        return n > self._num if op == GT else n < self._num

    def sig(self) -> tuple[str, str, tuple[str, ...]]:
        """Hashable identity."""
        return (self.key, self.op, tuple(sorted(self.values)))


def new_requirement(key: str, op: str, values: list[str]) -> Requirement:
    """labels.NewRequirement: validate and build; raise SelectorError with Go's message."""
    errs: list[str] = []
    key_errs = _qualified_name_errors(key)
    if key_errs:
        errs.append(_field_invalid("key", key, "; ".join(key_errs)))
    if op in (IN, NOT_IN):
        if not values:
            errs.append(
                _field_invalid("values", values, "for 'in', 'notin' operators, values set can't be empty")
            )
    elif op == EQUALS:
        if len(values) != 1:
            errs.append(
                _field_invalid("values", values, "exact-match compatibility requires one single value")
            )
    elif op in (EXISTS, DOES_NOT_EXIST):
        if values:
            errs.append(
                _field_invalid("values", values, "values set must be empty for exists and does not exist")
            )
    elif op in (GT, LT):
        if len(values) != 1:
            errs.append(
                _field_invalid("values", values, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, v in enumerate(values):
            try:
                n = int(v, 10)
                if not -(2**63) <= n < 2**63:
                    raise ValueError(v)
            except ValueError:
                errs.append(
                    _field_invalid(
                        f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                )
    for i, v in enumerate(values):
        val_errs = _label_value_errors(v)
        if val_errs:
            errs.append(_field_invalid(f"values[{i}][{key}]", v, "; ".join(val_errs)))
    if errs:
        raise SelectorError(aggregate_message(errs))
    return Requirement(key, op, values)


class Selector:
    """labels.Selector: a conjunction of requirements, or the special Nothing selector."""

    __slots__ = ("_sig", "nothing", "requirements")

    def __init__(self, requirements: Iterable[Requirement] = (), nothing: bool = False) -> None:
        self.requirements: tuple[Requirement, ...] = tuple(requirements)
        self.nothing = nothing
        self._sig: Any = None

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Selector.Matches."""
        if self.nothing:
            return False
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    def empty(self) -> bool:
        """Selector.Empty(): True for Everything, False for Nothing."""
        return not self.nothing and not self.requirements

    def add(self, reqs: Iterable[Requirement]) -> Selector:
        """Selector.Add: Nothing absorbs additions."""
        if self.nothing:
            return self
        return Selector(self.requirements + tuple(reqs))

    def sig(self) -> Any:
        """Hashable identity (order-insensitive)."""
        if self._sig is None:
            self._sig = ("nothing",) if self.nothing else tuple(sorted(r.sig() for r in self.requirements))
        return self._sig

    def __repr__(self) -> str:
        if self.nothing:
            return "Selector(<nothing>)"
        return f"Selector({[r.sig() for r in self.requirements]})"


EVERYTHING = Selector()
NOTHING = Selector(nothing=True)

_OPS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}


def selector_from_label_selector(ls: Mapping[str, Any] | None) -> Selector:
    """metav1.LabelSelectorAsSelector: None -> Nothing, {} -> Everything."""
    if ls is None:
        return NOTHING
    match_labels = ls.get("matchLabels") or {}
    exprs = ls.get("matchExpressions") or []
    if not match_labels and not exprs:
        return EVERYTHING
    reqs: list[Requirement] = []
    for k in sorted(match_labels):
        reqs.append(new_requirement(k, EQUALS, [match_labels[k]]))
    for e in exprs:
        op = _OPS.get(e.get("operator", ""))
        if op is None:
            raise SelectorError(f"{go_quote(e.get('operator', ''))} is not a valid label selector operator")
        reqs.append(new_requirement(e.get("key", ""), op, list(e.get("values") or [])))
    return Selector(reqs)


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """labels.SelectorFromSet (no validation); an empty set selects everything."""
    if not labels:
        return EVERYTHING
    return Selector(Requirement(k, EQUALS, [labels[k]]) for k in sorted(labels))
