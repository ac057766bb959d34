"""Topology spread constraints: parsing, matchLabelKeys, system/list defaults, default selectors.

upstream: pkg/scheduler/framework/plugins/podtopologyspread/common.go, plugin.go (getConstraints,
systemDefaultConstraints), pkg/scheduler/framework/plugins/helper/spread.go (DefaultSelector),
pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_PodTopologySpreadArgs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from kubesim.k8s.selectors import LabelSelector as Selector, SelectorError, label_selector_as_selector, selector_from_set


__all__ = [
    "DO_NOT_SCHEDULE",
    "HONOR",
    "IGNORE",
    "LABEL_HOSTNAME",
    "LABEL_ZONE",
    "SCHEDULE_ANYWAY",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "OwnerLookup",
    "PodTopologySpreadArgs",
    "SpreadConstraint",
    "StaticOwners",
    "build_default_constraints",
    "default_selector",
    "filter_constraints",
    "get_constraints",
]

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"

SYSTEM_DEFAULT_CONSTRAINTS: tuple[dict[str, Any], ...] = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)


@dataclass(frozen=True)
class SpreadConstraint:
    """topologySpreadConstraint: the internal form with a parsed selector and defaults applied."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE


@dataclass(frozen=True)
class PodTopologySpreadArgs:
    """PodTopologySpreadArgs: defaultingType System (the v1 default) or List with defaultConstraints."""

    default_constraints: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    defaulting_type: str = "System"

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None) -> PodTopologySpreadArgs:
        """Parse the args object of a pluginConfig entry."""
        raw = raw or {}
        dt = raw.get("defaultingType") or "System"
        if dt not in ("System", "List"):
            raise ValueError(f'defaultingType: Unsupported value: "{dt}": supported values: "List", "System"')
        constraints = tuple(raw.get("defaultConstraints") or ())
        if dt == "System" and constraints:
            raise ValueError('defaultConstraints: Invalid value: when .defaultingType is "System"')
        return cls(constraints, dt)

    @property
    def system_defaulted(self) -> bool:
        """Whether the system default constraints are in force."""
        return self.defaulting_type == "System"

    def effective_defaults(self) -> Sequence[Mapping[str, Any]]:
        """The default constraints the plugin applies to pods without their own."""
        return SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else self.default_constraints


class OwnerLookup(Protocol):
    """Read access to the objects that yield a pod's default spreading selector."""

    def services(self, namespace: str) -> Iterable[Mapping[str, Any]]:
        """Services in a namespace."""
        ...

    def get(self, kind: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        """A ReplicationController, ReplicaSet or StatefulSet by kind, namespace and name."""
        ...


class StaticOwners:
    """An OwnerLookup over a fixed list of Service/ReplicationController/ReplicaSet/StatefulSet dicts."""

    def __init__(self, objects: Iterable[Mapping[str, Any]] = ()) -> None:
        self._services: dict[str, list[Mapping[str, Any]]] = {}
        self._by_name: dict[tuple[str, str, str], Mapping[str, Any]] = {}
        for o in objects:
            meta = o.get("metadata") or {}
            ns = meta.get("namespace", "") or ""
            kind = o.get("kind", "")
            if kind == "Service":
                self._services.setdefault(ns, []).append(o)
            else:
                self._by_name[(kind, ns, meta.get("name", ""))] = o

    def services(self, namespace: str) -> Iterable[Mapping[str, Any]]:
        return self._services.get(namespace, [])

    def get(self, kind: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self._by_name.get((kind, namespace, name))


_CONTROLLER_KINDS = {
    ("", "v1", "ReplicationController"): "ReplicationController",
    ("apps", "v1", "ReplicaSet"): "ReplicaSet",
    ("apps", "v1", "StatefulSet"): "StatefulSet",
}


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    if api_version in ("", "/"):
        return ("", "")
    parts = api_version.split("/")
    if len(parts) == 1:
        return ("", parts[0])
    if len(parts) == 2:
        return (parts[0], parts[1])
    return None


def default_selector(pod: Mapping[str, Any], owners: OwnerLookup | None) -> Selector:
    """helper.DefaultSelector: merge selectors of matching services and the controlling owner."""
    if owners is None:
        return selector_from_set(None)
    meta = pod.get("metadata") or {}
    ns = meta.get("namespace", "") or ""
    pod_labels = meta.get("labels") or {}
    label_set: dict[str, str] = {}
    for svc in owners.services(ns):
        sel = (svc.get("spec") or {}).get("selector")
        if sel is None:
            continue
        if selector_from_set(sel).matches(pod_labels):
            label_set.update(sel)
    selector = selector_from_set(label_set)
    owner = next((r for r in meta.get("ownerReferences") or [] if r.get("controller") is True), None)
    if owner is None:
        return selector
    gv = _parse_group_version(owner.get("apiVersion", "") or "")
    if gv is None:
        return selector
    kind = _CONTROLLER_KINDS.get((gv[0], gv[1], owner.get("kind", "")))
    if kind is None:
        return selector
    obj = owners.get(kind, ns, owner.get("name", ""))
    if obj is None:
        return selector
    spec_sel = (obj.get("spec") or {}).get("selector")
    if kind == "ReplicationController":
        label_set.update(spec_sel or {})
        return selector_from_set(label_set)
    try:
        other = label_selector_as_selector(spec_sel)
    except SelectorError:
        return selector
    if other.nothing:
        return selector
    return selector.add(other.requirements)


def _merge_label_set(match_labels: Mapping[str, str], s: Selector) -> Selector:
    """mergeLabelSetWithSelector."""
    if s.nothing:
        return s
    return selector_from_set(match_labels).add(s.requirements)


def filter_constraints(
    constraints: Sequence[Mapping[str, Any]], pod_labels: Mapping[str, str], action: str,
    *, match_label_keys: bool = True,
) -> list[SpreadConstraint]:
    """filterTopologySpreadConstraints: keep one whenUnsatisfiable action; raises SelectorError.

    `match_label_keys` is the MatchLabelKeysInPodTopologySpread gate: when off, the
    constraints' matchLabelKeys are ignored."""
    out: list[SpreadConstraint] = []
    for c in constraints:
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = label_selector_as_selector(c.get("labelSelector"))
        keys = (c.get("matchLabelKeys") or []) if match_label_keys else []
        if keys:
            match = {k: pod_labels[k] for k in keys if k in pod_labels}
            if match:
                selector = _merge_label_set(match, selector)
        min_domains = c.get("minDomains")
        out.append(
            SpreadConstraint(
                max_skew=int(c.get("maxSkew", 0) or 0),
                topology_key=c.get("topologyKey", "") or "",
                selector=selector,
                min_domains=1 if min_domains is None else int(min_domains),
                node_affinity_policy=c.get("nodeAffinityPolicy") or HONOR,
                node_taints_policy=c.get("nodeTaintsPolicy") or IGNORE,
            )
        )
    return out


# (id(args), action) -> (args, parsed default constraints): parsed once per plugin config
# when no default constraint has matchLabelKeys (the only part that reads the pod)
_PARSED_DEFAULTS: dict[tuple[int, str], tuple[PodTopologySpreadArgs, list[SpreadConstraint]]] = {}


def _default_constraints(
    args: PodTopologySpreadArgs, labels: Mapping[str, str], action: str, match_label_keys: bool = True
) -> list[SpreadConstraint]:
    defaults = args.effective_defaults()
    if any(c.get("matchLabelKeys") for c in defaults):
        return filter_constraints(defaults, labels, action, match_label_keys=match_label_keys)
    hit = _PARSED_DEFAULTS.get((id(args), action))
    if hit is None or hit[0] is not args:
        if len(_PARSED_DEFAULTS) > 64:
            _PARSED_DEFAULTS.clear()
        hit = _PARSED_DEFAULTS[(id(args), action)] = (args, filter_constraints(defaults, {}, action))
    return list(hit[1])


def build_default_constraints(
    pod: Mapping[str, Any], action: str, args: PodTopologySpreadArgs, owners: OwnerLookup | None,
    *, match_label_keys: bool = True,
) -> list[SpreadConstraint]:
    """buildDefaultConstraints: the defaults with the selector derived from the pod's owners."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    constraints = _default_constraints(args, labels, action, match_label_keys)
    if not constraints:
        return []
    selector = default_selector(pod, owners)
    if selector.empty:
        return []
    return [replace(c, selector=selector) for c in constraints]


# (ids of the pod's constraints and labels, action, gate) -> (constraints, labels, parsed)
_PARSED_OWN: dict[tuple[int, int, str, bool], tuple[Any, Any, list[SpreadConstraint]]] = {}
_PARSED_OWN_MAX = 4096


def get_constraints(
    pod: Mapping[str, Any], action: str, args: PodTopologySpreadArgs, owners: OwnerLookup | None,
    *, match_label_keys: bool = True,
) -> list[SpreadConstraint]:
    """The pod's own constraints for `action`, else the defaults; raises SelectorError.

    `match_label_keys`: the MatchLabelKeysInPodTopologySpread feature gate."""
    spec = pod.get("spec") or {}
    own = spec.get("topologySpreadConstraints") or []
    if own:
        labels = (pod.get("metadata") or {}).get("labels") or {}
        # parsed once per pod object and action: PreFilter, Filter's plugin and PreScore each ask
        key = (id(own), id(labels), action, match_label_keys)
        hit = _PARSED_OWN.get(key)
        if hit is None or hit[0] is not own or hit[1] is not labels:
            if len(_PARSED_OWN) >= _PARSED_OWN_MAX:
                _PARSED_OWN.clear()
            # the objects are kept with the result, so their ids cannot be reused meanwhile
            hit = _PARSED_OWN[key] = (
                own, labels, filter_constraints(own, labels, action, match_label_keys=match_label_keys)
            )
        return list(hit[2])
    return build_default_constraints(pod, action, args, owners, match_label_keys=match_label_keys)
