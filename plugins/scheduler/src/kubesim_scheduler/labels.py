"""Label selectors and requirements with apimachinery's validation and matching rules."""

# upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go (NewRequirement,
# Requirement.Matches), pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector)

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

__all__ = [
    "SelectorError",
    "Requirement",
    "Selector",
    "EVERYTHING",
    "NOTHING",
    "selector_from_set",
    "label_selector_as_selector",
    "parse_go_int64",
]

_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_INT = re.compile(r"^[+-]?[0-9]+$")

IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT, EQUALS, NOT_EQUALS = (
    "in", "notin", "exists", "!", "gt", "lt", "=", "!=",
)
_OPS = {
    "In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST,
    "Gt": GT, "Lt": LT,
}


class SelectorError(ValueError):
    """An invalid selector requirement (bad operator, key, or values)."""


def parse_go_int64(s: str) -> int | None:
    """strconv.ParseInt(s, 10, 64), or None when it fails."""
    if not _INT.match(s):
        return None
    v = int(s)
    if v < -(2**63) or v > 2**63 - 1:
        return None
    return v


def _valid_key(key: str) -> bool:
    parts = key.split("/")
    if len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix):
            return False
    elif len(parts) == 1:
        name = parts[0]
    else:
        return False
    return 0 < len(name) <= 63 and _NAME_PART.match(name) is not None


@attrs.frozen(slots=True)
class Requirement:
    """One selector requirement: key, operator and a value set."""

    key: str
    op: str
    values: frozenset[str]

    @classmethod
    def new(cls, key: str, op: str, values: Sequence[str] = ()) -> Requirement:
        """labels.NewRequirement: validate and build."""
        if not _valid_key(key):
            raise SelectorError(f"invalid label key {key!r}")
        vals = list(values or ())
        if op in (IN, NOT_IN):
            if not vals:
                raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
        elif op in (EQUALS, NOT_EQUALS):
            if len(vals) != 1:
                raise SelectorError("exact-match compatibility requires one single value")
        elif op in (EXISTS, DOES_NOT_EXIST):
            if vals:
                raise SelectorError("values set must be empty for exists and does not exist")
        elif op in (GT, LT):
            if len(vals) != 1:
                raise SelectorError("for 'Gt', 'Lt' operators, exactly one value is required")
            if parse_go_int64(vals[0]) is None:
                raise SelectorError("for 'Gt', 'Lt' operators, the value must be an integer")
        else:
            raise SelectorError(f"operator {op!r} is not recognized")
        for v in vals:
            if len(v) > 63 or not _LABEL_VALUE.match(v):
                raise SelectorError(f"invalid label value: {v!r}")
        return cls(key, op, frozenset(vals))

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Requirement.Matches."""
        op = self.op
        if op in (IN, EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if op in (NOT_IN, NOT_EQUALS):
            return self.key not in labels or labels[self.key] not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        # Gt / Lt
        if self.key not in labels:
            return False
        lv = parse_go_int64(labels[self.key])
        if lv is None:
            return False
        rv = parse_go_int64(next(iter(self.values)))
        if rv is None:
            return False
        return lv > rv if op == GT else lv < rv

    def matches_value(self, present: bool, value: str | None) -> bool:
        """Match against one label slot (used to evaluate a requirement over a value vocabulary)."""
        return self.matches({self.key: value} if present and value is not None else {})


@attrs.frozen(slots=True)
class Selector:
    """A conjunction of requirements; `nothing` matches no label set."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.nothing:
            return False
        ls = labels or {}
        return all(r.matches(ls) for r in self.requirements)

    def empty(self) -> bool:
        """True for the selector that matches everything."""
        return not self.nothing and not self.requirements


EVERYTHING = Selector()
NOTHING = Selector(nothing=True)


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """labels.SelectorFromSet: equality on every pair (an empty set matches everything)."""
    if not labels:
        return EVERYTHING
    return Selector(tuple(Requirement(k, EQUALS, frozenset([v])) for k, v in sorted(labels.items())))


def requirements_from_expressions(exprs: Iterable[Mapping[str, Any]]) -> list[Requirement]:
    """Convert LabelSelectorRequirement / NodeSelectorRequirement dicts (In, NotIn, Exists, ...)."""
    out = []
    for e in exprs:
        op = _OPS.get(e.get("operator", ""))
        if op is None:
            raise SelectorError(f"{e.get('operator')!r} is not a valid label selector operator")
        out.append(Requirement.new(e.get("key", ""), op, e.get("values") or ()))
    return out


def label_selector_as_selector(ls: Mapping[str, Any] | None) -> Selector:
    """metav1.LabelSelectorAsSelector: nil matches nothing, empty matches everything."""
    if ls is None:
        return NOTHING
    ml = ls.get("matchLabels") or {}
    me = ls.get("matchExpressions") or []
    if not ml and not me:
        return EVERYTHING
    reqs = [Requirement.new(k, EQUALS, [v]) for k, v in ml.items()]
    for e in me:
        op = _OPS.get(e.get("operator", ""))
        if op is None or op in (GT, LT):
            raise SelectorError(f"{e.get('operator')!r} is not a valid label selector operator")
        reqs.append(Requirement.new(e.get("key", ""), op, e.get("values") or ()))
    reqs.sort(key=lambda r: r.key)
    return Selector(tuple(reqs))
