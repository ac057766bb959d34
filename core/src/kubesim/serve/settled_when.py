"""`--settled-when NAME=EXPR`: a condition on cluster state that says an outside controller is idle.

For controllers that cannot report idle themselves (see controllers.py). The language is small:

    EXPR   := CLAUSE (";" CLAUSE)*                  every clause must hold
    CLAUSE := "no" RESOURCE ["where" TEST ("and" TEST)*]
    TEST   := PATH "=" VALUE | PATH "!=" VALUE
    PATH   := a dotted field path (spec.nodeName, metadata.labels.app; a key with dots in
              brackets: metadata.annotations[example.com/done]) or condition[TYPE] (the status
              of the object's status.conditions entry of that type)

A missing field, or a missing condition, reads as the empty string. RESOURCE is a kind or its
plural (Pod, pods, configmaps). Example, "every pod is bound or marked unschedulable":

    no pods where spec.nodeName= and condition[PodScheduled]!=False
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from kubesim.cluster import Cluster
from kubesim.cluster.registry import ResourceRegistry, ResourceType

__all__ = ["SettledWhen", "Test", "parse_settled_when"]

_TEST = re.compile(r"^\s*(condition\[[A-Za-z0-9_.-]+\]|[A-Za-z0-9_./\[\]-]+)\s*(!=|=)\s*(.*?)\s*$")


@attrs.frozen
class Test:
    """One PATH=VALUE or PATH!=VALUE test on an object."""

    path: str
    equal: bool
    value: str

    def holds(self, obj: Mapping[str, Any]) -> bool:
        return (read_path(obj, self.path) == self.value) == self.equal


@attrs.frozen
class Clause:
    """"no RESOURCE where TESTS": no object of the type passes every test."""

    rt: ResourceType
    tests: tuple[Test, ...]

    def holds(self, cluster: Cluster) -> bool:
        return not any(all(t.holds(o) for t in self.tests)
                       for o in cluster.list(self.rt.api_version, self.rt.kind))


@attrs.frozen
class SettledWhen:
    """A parsed expression; `holds(cluster)` evaluates it (call it under the server's lock)."""

    text: str
    clauses: tuple[Clause, ...]

    def holds(self, cluster: Cluster) -> bool:
        return all(c.holds(cluster) for c in self.clauses)


_SEGMENT = re.compile(r"\[([^\]]+)\]|([^.\[\]]+)")


def _segments(path: str) -> list[str]:
    """a.b[c.d/e].f -> ["a", "b", "c.d/e", "f"]: brackets hold keys with dots (annotations)."""
    return [m.group(1) or m.group(2) for m in _SEGMENT.finditer(path)]


def read_path(obj: Mapping[str, Any], path: str) -> str:
    """The value at a dotted path (or condition[TYPE]'s status) as a string; "" when missing."""
    if path.startswith("condition[") and path.endswith("]"):
        kind = path[len("condition["):-1]
        for cond in (obj.get("status") or {}).get("conditions") or ():
            if isinstance(cond, Mapping) and cond.get("type") == kind:
                return str(cond.get("status", ""))
        return ""
    value: Any = obj
    for part in _segments(path):
        if not isinstance(value, Mapping) or part not in value:
            return ""
        value = value[part]
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def _resource(registry: ResourceRegistry, name: str) -> ResourceType:
    found = [rt for rt in registry.types() if name in (rt.kind, rt.plural, rt.group_resource)]
    if len(found) != 1:
        known = "unknown" if not found else "ambiguous (use plural.group)"
        raise ValueError(f"resource {name!r} is {known}")
    return found[0]


def parse_settled_when(text: str, registry: ResourceRegistry) -> SettledWhen:
    """Parse EXPR (see the module docstring); ValueError with a message naming the problem."""
    clauses = []
    for raw in text.split(";"):
        words = raw.strip()
        if not words:
            continue
        head, _, tail = words.partition(" where ")
        parts = head.split()
        if len(parts) != 2 or parts[0] != "no":
            raise ValueError(f"{raw.strip()!r}: expected 'no RESOURCE [where PATH=VALUE and ...]'")
        tests = []
        if tail.strip():
            for test in re.split(r"\s+and\s+", tail.strip()):
                m = _TEST.match(test)
                if m is None:
                    raise ValueError(f"{test!r}: expected PATH=VALUE or PATH!=VALUE")
                tests.append(Test(m.group(1), m.group(2) == "=", m.group(3)))
        clauses.append(Clause(_resource(registry, parts[1]), tuple(tests)))
    if not clauses:
        raise ValueError("empty expression: expected 'no RESOURCE [where PATH=VALUE and ...]'")
    return SettledWhen(text, tuple(clauses))
