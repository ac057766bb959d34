"""Scheduler extenders: HTTP ones from the configuration, in-process ones from plugins.

An `Extender` is upstream's framework.Extender: it filters and prioritizes the nodes the
plugins left, binds, and narrows preemption candidates. Both kinds speak the same wire
format (extender_types): an HTTP extender gets the JSON body POSTed to
`<urlPrefix>/<verb>` (extender_http, within kubesim's bounds in extender_limits), an in-process extender gets the same data as Python objects in a
method call (filter / prioritize / bind / preempt) and answers with the same shapes.

In-process protocol (any object; only `name` and the verbs it serves are needed)::

    name: str                                  # results appear under this name
    weight: int = 1                            # multiplies prioritize scores
    node_cache_capable: bool = False           # args carry NodeNames instead of Nodes
    ignorable: bool = False                    # errors skip the extender instead of failing
    managed_resources: Sequence[str] = ()      # interested only in pods requesting one of them
    def is_interested(self, pod) -> bool       # optional; overrides managed_resources
    def filter(self, args) -> dict             # ExtenderArgs -> ExtenderFilterResult
    def prioritize(self, args) -> list         # ExtenderArgs -> HostPriorityList
    def bind(self, args) -> dict               # ExtenderBindingArgs -> ExtenderBindingResult
    def preempt(self, args) -> dict            # ExtenderPreemptionArgs -> ExtenderPreemptionResult

The args are read-only (pods and nodes are the scheduler's own objects). An exception
raised by a method is the extender's error, as a failed HTTP call would be.
"""

# upstream: pkg/scheduler/extender.go (HTTPExtender: Filter, Prioritize, Bind,
# ProcessPreemption, convertToVictims, convertPodUIDToPod, send, IsInterested),
# pkg/scheduler/framework/preemption/preemption.go (callExtenders)

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .extender_http import ExtenderError, HTTPTransport
from .extender_http import go_quote as _go_quote
from .extender_limits import DEFAULT_EXTENDER_TIMEOUT, WaitBudget
from .extender_types import (
    ExtenderDecodeError,
    FilterResult,
    binding_args,
    extender_args,
    parse_binding_result,
    parse_filter_result,
    parse_host_priority_list,
    parse_preemption_result,
    preemption_args,
)

if TYPE_CHECKING:
    from .config import Extender as ExtenderConfig
    from .framework.node_table import NodeTable
    from .framework.status import Status
    from .plugins.defaultpreemption.candidate import Candidate, Victims

__all__ = [
    "DEFAULT_EXTENDER_TIMEOUT", "Extender", "ExtenderError", "HTTPTransport", "InProcessTransport",
    "Transport", "build_extenders", "call_extenders_for_preemption",
]

# verb kinds: what a result is recorded under
FILTER, PRIORITIZE, BIND, PREEMPT = "filter", "prioritize", "bind", "preempt"


class Transport(Protocol):
    """Sends one request (verb, args) and returns the decoded response."""

    def send(self, verb: str, args: Any) -> Any: ...


# ------------------------------------------------------------ in-process


class InProcessTransport:
    """Calls the extender object's method named after the verb kind."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def send(self, verb: str, args: Any) -> Any:
        try:
            return getattr(self.obj, verb)(args)
        except Exception as e:
            raise ExtenderError(str(e) or type(e).__name__) from e


# --------------------------------------------------------------- Extender


class Extender:
    """One extender: which verbs it serves, its weight, and the calls (framework.Extender)."""

    def __init__(
        self,
        name: str,
        transport: Transport,
        *,
        filter_verb: str = "",
        prioritize_verb: str = "",
        bind_verb: str = "",
        preempt_verb: str = "",
        weight: int = 0,
        node_cache_capable: bool = False,
        managed_resources: Iterable[str] = (),
        ignorable: bool = False,
        interested: Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> None:
        self.name = name
        self.transport = transport
        self.filter_verb = filter_verb
        self.prioritize_verb = prioritize_verb
        self.bind_verb = bind_verb
        self.preempt_verb = preempt_verb
        self.weight = int(weight)
        self.node_cache_capable = node_cache_capable
        self.managed_resources = frozenset(managed_resources)
        self.ignorable = ignorable
        self._interested = interested

    @classmethod
    def from_config(cls, cfg: ExtenderConfig, budget: WaitBudget | None = None) -> Extender:
        """NewHTTPExtender from a KubeSchedulerConfiguration `extenders` entry; its calls wait
        at most what is left of `budget` (one per run, shared by the run's extenders)."""
        transport = HTTPTransport(cfg.url_prefix, cfg.http_timeout, enable_https=cfg.enable_https, tls=cfg.tls_config,
                                  budget=budget)
        return cls(
            cfg.url_prefix, transport,
            filter_verb=cfg.filter_verb, prioritize_verb=cfg.prioritize_verb, bind_verb=cfg.bind_verb,
            preempt_verb=cfg.preempt_verb, weight=cfg.weight, node_cache_capable=cfg.node_cache_capable,
            managed_resources=[r.name for r in cfg.managed_resources], ignorable=cfg.ignorable,
        )

    @classmethod
    def from_object(cls, obj: Any) -> Extender:
        """An in-process extender (see the module docstring); a class is instantiated first."""
        if isinstance(obj, Extender):
            return obj
        if isinstance(obj, type):
            obj = obj()
        name = getattr(obj, "name", None) or type(obj).__name__
        verbs = {v: v if callable(getattr(obj, v, None)) else "" for v in (FILTER, PRIORITIZE, BIND, PREEMPT)}
        weight = int(getattr(obj, "weight", 1))
        if verbs[PRIORITIZE] and weight <= 0:
            raise ValueError(f"extender {name!r}: weight must be positive, got {weight}")
        is_interested = getattr(obj, "is_interested", None)
        return cls(
            str(name), InProcessTransport(obj),
            filter_verb=verbs[FILTER], prioritize_verb=verbs[PRIORITIZE], bind_verb=verbs[BIND],
            preempt_verb=verbs[PREEMPT], weight=weight,
            node_cache_capable=bool(getattr(obj, "node_cache_capable", False)),
            managed_resources=tuple(getattr(obj, "managed_resources", ()) or ()),
            ignorable=bool(getattr(obj, "ignorable", False)),
            interested=is_interested if callable(is_interested) else None,
        )

    def __repr__(self) -> str:
        return f"Extender({self.name!r})"

    # what it does
    def is_filter(self) -> bool:
        return bool(self.filter_verb)

    def is_prioritizer(self) -> bool:
        return bool(self.prioritize_verb)

    def is_binder(self) -> bool:
        return bool(self.bind_verb)

    def supports_preemption(self) -> bool:
        return bool(self.preempt_verb)

    def is_ignorable(self) -> bool:
        return self.ignorable

    def is_interested(self, pod: Mapping[str, Any]) -> bool:
        """True without managed resources, or when a container or init container requests
        or limits one of them."""
        if self._interested is not None:
            return bool(self._interested(pod))
        if not self.managed_resources:
            return True
        spec = pod.get("spec") or {}
        for containers in (spec.get("containers"), spec.get("initContainers")):
            for c in containers or ():
                res = c.get("resources") or {}
                for part in ("requests", "limits"):
                    if any(r in self.managed_resources for r in res.get(part) or {}):
                        return True
        return False

    # calls
    def _send(self, verb: str, args: Any) -> Any:
        return self.transport.send(verb, args)

    def _args(self, pod: Mapping[str, Any], names: Sequence[str], nodes: Callable[[], Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        if self.node_cache_capable:
            return extender_args(pod, None, names)
        return extender_args(pod, nodes(), None)

    def filter(
        self, pod: Mapping[str, Any], names: Sequence[str], nodes: Callable[[], Sequence[Mapping[str, Any]]]
    ) -> FilterResult:
        """Filter: the extender's verdict on `names`; raises ExtenderError (call failed, its
        Error, or a kept node that was not sent)."""
        data = self._send(self.filter_verb, self._args(pod, names, nodes))
        try:
            res = parse_filter_result(data, self.node_cache_capable)
        except ExtenderDecodeError as e:
            raise ExtenderError(str(e)) from None
        if res.error:
            raise ExtenderError(res.error)
        if res.node_names:
            sent = set(names)
            for n in res.node_names:
                if n not in sent:
                    raise ExtenderError(
                        f"extender {_go_quote(self.name)} claims a filtered node {_go_quote(n)} "
                        "which is not found in the input node list"
                    )
        return res

    def prioritize(
        self, pod: Mapping[str, Any], names: Sequence[str], nodes: Callable[[], Sequence[Mapping[str, Any]]]
    ) -> tuple[list[tuple[str, int]], int]:
        """Prioritize: (host, score) pairs and this extender's weight."""
        if not self.prioritize_verb:
            return [(n, 0) for n in names], 0
        data = self._send(self.prioritize_verb, self._args(pod, names, nodes))
        try:
            return parse_host_priority_list(data), self.weight
        except ExtenderDecodeError as e:
            raise ExtenderError(str(e)) from None

    def bind(self, pod: Mapping[str, Any], node: str) -> Any:
        """Bind: delegate the binding; returns the response, raises ExtenderError on failure."""
        if not self.bind_verb:
            raise ExtenderError("unexpected empty bindVerb in extender")
        data = self._send(self.bind_verb, binding_args(pod, node))
        try:
            error = parse_binding_result(data)
        except ExtenderDecodeError as e:
            raise ExtenderError(str(e)) from None
        if error:
            raise ExtenderError(error)
        return data

    def process_preemption(
        self, pod: Mapping[str, Any], victims: Mapping[str, Victims], table: NodeTable
    ) -> tuple[dict[str, Victims | None], Any]:
        """ProcessPreemption: the extender's victims per node (resolved by UID on the
        scheduler's nodes) and the response as received."""
        from .plugins.defaultpreemption.candidate import Victims

        if not self.preempt_verb:
            raise ExtenderError(f"preempt verb is not defined for extender {self.name} but run into ProcessPreemption")
        data = self._send(self.preempt_verb, preemption_args(pod, victims, self.node_cache_capable))
        try:
            meta = parse_preemption_result(data)
        except ExtenderDecodeError as e:
            raise ExtenderError(str(e)) from None
        out: dict[str, Victims | None] = {}
        for node, mv in meta.items():
            row = table.row_of(node)
            if row is None:
                raise ExtenderError(f"nodeinfo not found for node name {_go_quote(node)}")
            if mv is None:
                out[node] = None
                continue
            by_uid = {p.uid: p for p in table.pods[row].values()}
            pods = []
            for uid in mv.pod_uids:
                pi = by_uid.get(uid)
                if pi is None:
                    raise ExtenderError(
                        f"extender: {self.name} claims to preempt pod (UID: &{{{uid}}}) on node: {node}, "
                        "but the pod is not found on that node"
                    )
                pods.append(pi)
            out[node] = Victims(pods, mv.num_pdb_violations)
        return out, data


def build_extenders(
    configured: Iterable[ExtenderConfig], in_process: Iterable[Any] = (), *, budget: WaitBudget | None = None
) -> list[Extender]:
    """The configuration's HTTP extenders, then the in-process ones, in that order. The HTTP
    ones share one wall-clock WaitBudget (a new one unless given): a run's total wait."""
    shared = budget if budget is not None else WaitBudget()
    return [*(Extender.from_config(c, shared) for c in configured), *(Extender.from_object(o) for o in in_process)]


# -------------------------------------------------------------- preemption


def call_extenders_for_preemption(
    extenders: Sequence[Extender],
    pod: Mapping[str, Any],
    candidates: Sequence[Candidate],
    victims_map: Callable[[Sequence[Candidate]], dict[str, Victims]],
    table: NodeTable,
    record: Callable[[str, Extender, Any], None] | None = None,
) -> tuple[list[Candidate], Status | None]:
    """callExtenders: let preempt-capable extenders interested in the pod narrow the
    candidates (and their victims); an error fails preemption unless the extender is ignorable."""
    from .framework.status import Status
    from .plugins.defaultpreemption.candidate import Candidate

    if not extenders:
        return list(candidates), None
    current: dict[str, Victims | None] = dict(victims_map(candidates))
    if not current:
        return list(candidates), None
    for ext in extenders:
        if not ext.supports_preemption() or not ext.is_interested(pod):
            continue
        try:
            result, raw = ext.process_preemption(pod, current, table)  # type: ignore[arg-type]
        except ExtenderError as e:
            if ext.is_ignorable():
                continue
            return [], Status.from_error(e)
        if record is not None:
            record(PREEMPT, ext, raw)
        for node in list(result):
            v = result[node]
            if v is None or not v.pods:
                if ext.is_ignorable():
                    del result[node]
                    continue
                return [], Status.from_error(f"expected at least one victim pod on node {_go_quote(node)}")
        current = result
        if not current:
            break
    return [Candidate(name, v) for name, v in current.items() if v is not None], None
