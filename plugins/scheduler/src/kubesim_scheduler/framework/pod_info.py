"""PodInfo: a pod dict parsed once (requests, ports, tolerations, affinity terms, images)."""

# upstream: pkg/scheduler/framework/types.go (PodInfo, AffinityTerm, CalculateResource,
# getNonMissingContainerRequests), pkg/scheduler/util/utils.go (GetHostPorts),
# plugins/imagelocality/image_locality.go (normalizedImageName)

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kubesim.k8s.keys import pod_key
from kubesim.k8s.podrequests import NON_ZERO_DEFAULTS, non_zero_pod_requests, pod_requests
from kubesim.k8s.selectors import LabelSelector as Selector
from kubesim.k8s.selectors import SelectorError, label_selector_as_selector

from ..resources import Resource, max_resource_from_list, nano_to_milli, nano_to_value, resource_from_list
from ..taints import Toleration, toleration_of

__all__ = [
    "PodInfo", "AffinityTerm", "WeightedAffinityTerm", "HostPort", "pod_key", "normalized_image_name",
    "status_requests_view", "parses_alike",
]

# (hostIP, protocol, hostPort)
HostPort = tuple[str, str, int]


def normalized_image_name(name: str) -> str:
    """Append ':latest' when the image reference has no tag."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


@attrs.frozen(slots=True)
class AffinityTerm:
    """A parsed PodAffinityTerm: namespaces, label selector, topology key, namespace selector."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector

    def matches(self, pod_namespace: str, pod_labels: Mapping[str, str], ns_labels: Mapping[str, str] | None) -> bool:
        """AffinityTerm.Matches."""
        if pod_namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod_labels)
        return False


@attrs.frozen(slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


def _affinity_term(namespace: str, t: Mapping[str, Any]) -> AffinityTerm:
    namespaces = t.get("namespaces") or []
    ns_sel = t.get("namespaceSelector")
    if not namespaces and ns_sel is None:
        nss = frozenset([namespace])
    else:
        nss = frozenset(namespaces)
    return AffinityTerm(
        namespaces=nss,
        selector=label_selector_as_selector(t.get("labelSelector")),
        topology_key=t.get("topologyKey", ""),
        namespace_selector=label_selector_as_selector(ns_sel),
    )


RequestsKey = tuple[tuple[tuple[str, type, Any], ...], ...]
_SHARED_MAX = 4096
# requests key -> (PodRequests with status, CalculateResource's non-zero requests, PodRequests
# without status, PodRequests with the non-zero defaults); read-only, shared between pods
_SHARED: dict[RequestsKey, tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, int]]] = {}


def _requests_key(pod: Mapping[str, Any]) -> RequestsKey | None:
    """What every PodRequests variant reads of a pod whose requests are its containers'
    alone (no init containers, overhead, pod-level resources or container statuses), as a
    key: replicas of one workload parse their quantities once. None for any other pod."""
    spec = pod.get("spec") or {}
    if spec.get("initContainers") or spec.get("overhead") or spec.get("resources"):
        return None
    status = pod.get("status") or {}
    if not isinstance(status, Mapping) or status.get("containerStatuses") or status.get("initContainerStatuses"):
        return None
    key = []
    for c in spec.get("containers") or ():
        if not isinstance(c, Mapping):
            return None
        req = (c.get("resources") or {}).get("requests") if isinstance(c.get("resources") or {}, Mapping) else None
        if req and not isinstance(req, Mapping):
            return None
        key.append(tuple((k, type(v), v) for k, v in (req or {}).items()))
    out = tuple(key)
    try:
        hash(out)
    except TypeError:
        return None
    return out


def _shared_requests(pod: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, int]] | None:
    key = _requests_key(pod)
    if key is None:
        return None
    hit = _SHARED.get(key)
    if hit is None:
        reqs = pod_requests(pod, use_status=True)
        hit = (reqs, non_zero_pod_requests(pod, reqs, use_status=True), pod_requests(pod),
               pod_requests(pod, non_missing=NON_ZERO_DEFAULTS, use_status=True))
        if len(_SHARED) >= _SHARED_MAX:
            _SHARED.clear()
        _SHARED[key] = hit
    return hit


class PodInfo:
    """A pod with everything the scheduler derives from it, computed once.

    `cache` is a per-pod memo that plugins may use for their own parsed forms (string keys
    starting with the plugin's name); a PodInfo is rebuilt whenever the pod object changes.
    """

    __slots__ = (
        "pod", "key", "name", "namespace", "uid", "labels", "priority", "scheduler_name",
        "node_name", "requests", "non0_cpu", "non0_mem", "host_ports", "tolerations",
        "images", "num_containers", "required_affinity_terms", "required_anti_affinity_terms",
        "preferred_affinity_terms", "preferred_anti_affinity_terms", "parse_error",
        "has_affinity", "has_required_anti_affinity", "scheduling_gates", "cache",
        "_fit_request", "_score_requests", "_score_request_lists",
    )

    def __init__(self, pod: Mapping[str, Any]) -> None:
        md = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        self.pod = pod
        self.key = pod_key(pod)
        self.name: str = md.get("name", "")
        self.namespace: str = md.get("namespace") or "default"
        self.uid: str = md.get("uid") or ""
        self.labels: Mapping[str, str] = md.get("labels") or {}
        self.priority: int = int(spec.get("priority") or 0)
        self.scheduler_name: str = spec.get("schedulerName") or "default-scheduler"
        self.node_name: str = spec.get("nodeName") or ""
        self.scheduling_gates: list[str] = [g.get("name", "") for g in spec.get("schedulingGates") or ()]
        self.cache: dict[str, Any] = {}
        self._fit_request: Resource | None = None
        self._score_requests: dict[tuple[str, bool], int] = {}
        # PodRequests per use_requested, for score_request; kept out of `cache`, which is the
        # plugins' memo keyed by plugin name
        self._score_request_lists: dict[bool, dict[str, int]] = {}

        # CalculateResource: requests (with status resources, pod-level requests) + non-zero.
        shared = _shared_requests(pod)
        if shared is not None:
            reqs, non0, plain, non_missing = shared
            self._fit_request = max_resource_from_list(plain)
            self._score_request_lists = {True: reqs, False: non_missing}
        else:
            reqs = pod_requests(pod, use_status=True)
            non0 = non_zero_pod_requests(pod, reqs, use_status=True)
        self.requests = resource_from_list(reqs)
        self.non0_cpu = nano_to_milli(non0.get("cpu", 0))
        self.non0_mem = nano_to_value(non0.get("memory", 0))

        ports: list[HostPort] = []
        for c in spec.get("initContainers") or ():
            if c.get("restartPolicy") != "Always":
                continue
            ports.extend(_host_ports(c))
        for c in spec.get("containers") or ():
            ports.extend(_host_ports(c))
        self.host_ports = ports

        self.tolerations: tuple[Toleration, ...] = tuple(toleration_of(t) for t in spec.get("tolerations") or ())
        inits = spec.get("initContainers") or ()
        conts = spec.get("containers") or ()
        self.images = [normalized_image_name(c.get("image", "")) for c in (*inits, *conts)]
        self.num_containers = len(inits) + len(conts)

        aff = spec.get("affinity") or {}
        pa = aff.get("podAffinity")
        paa = aff.get("podAntiAffinity")
        self.has_affinity = pa is not None or paa is not None
        self.has_required_anti_affinity = bool(paa and paa.get("requiredDuringSchedulingIgnoredDuringExecution"))
        self.parse_error: str | None = None
        self.required_affinity_terms: list[AffinityTerm] = []
        self.required_anti_affinity_terms: list[AffinityTerm] = []
        self.preferred_affinity_terms: list[WeightedAffinityTerm] = []
        self.preferred_anti_affinity_terms: list[WeightedAffinityTerm] = []
        errs = []
        for attr, src, weighted in (
            ("required_affinity_terms", (pa or {}).get("requiredDuringSchedulingIgnoredDuringExecution"), False),
            ("required_anti_affinity_terms", (paa or {}).get("requiredDuringSchedulingIgnoredDuringExecution"), False),
            ("preferred_affinity_terms", (pa or {}).get("preferredDuringSchedulingIgnoredDuringExecution"), True),
            ("preferred_anti_affinity_terms", (paa or {}).get("preferredDuringSchedulingIgnoredDuringExecution"), True),
        ):
            if not src:
                continue
            try:
                if weighted:
                    terms: list[Any] = [
                        WeightedAffinityTerm(_affinity_term(self.namespace, w.get("podAffinityTerm") or {}), int(w.get("weight") or 0))
                        for w in src
                    ]
                else:
                    terms = [_affinity_term(self.namespace, t) for t in src]
            except SelectorError as e:
                errs.append(f"{attr}: {e}")
                continue
            setattr(self, attr, terms)
        if errs:
            self.parse_error = "; ".join(errs)

    @property
    def fit_request(self) -> Resource:
        """NodeResourcesFit's PreFilter request (no status resources, pod-level honoured)."""
        if self._fit_request is None:
            self._fit_request = max_resource_from_list(pod_requests(self.pod))
        return self._fit_request

    def score_request(self, resource: str, use_requested: bool) -> int:
        """resourceAllocationScorer.calculatePodResourceRequest for one resource name.

        With use_requested False the per-container non-zero defaults apply (100m, 200Mi).
        """
        k = (resource, use_requested)
        v = self._score_requests.get(k)
        if v is None:
            nm = None if use_requested else NON_ZERO_DEFAULTS
            reqs = self._score_request_lists.get(use_requested)
            if reqs is None:
                reqs = pod_requests(self.pod, non_missing=nm, use_status=True)
                self._score_request_lists[use_requested] = reqs
            q = reqs.get(resource, 0)
            v = nano_to_milli(q) if resource == "cpu" else nano_to_value(q)
            self._score_requests[k] = v
        return v

    def assigned_to(self, node_name: str) -> PodInfo:
        """A copy for the same pod with spec.nodeName set (the assumed pod); parses are shared."""
        pod = dict(self.pod)
        pod["spec"] = dict(self.pod.get("spec") or {}, nodeName=node_name)
        c = self.with_pod(pod)
        c.node_name = node_name
        return c

    def with_pod(self, pod: Mapping[str, Any]) -> PodInfo:
        """A copy holding `pod`, a new object of the same pod that parses alike (see
        `parses_alike`): what PodInfo(pod) would build, without parsing it again."""
        # attribute by attribute: a loop over __slots__ with getattr/setattr costs 3x as much
        c = object.__new__(PodInfo)
        c.pod = pod
        c.key, c.name, c.namespace, c.uid = self.key, self.name, self.namespace, self.uid
        c.labels, c.priority, c.scheduler_name = self.labels, self.priority, self.scheduler_name
        c.node_name, c.requests, c.non0_cpu, c.non0_mem = self.node_name, self.requests, self.non0_cpu, self.non0_mem
        c.host_ports, c.tolerations, c.images = self.host_ports, self.tolerations, self.images
        c.num_containers, c.parse_error = self.num_containers, self.parse_error
        c.required_affinity_terms = self.required_affinity_terms
        c.required_anti_affinity_terms = self.required_anti_affinity_terms
        c.preferred_affinity_terms = self.preferred_affinity_terms
        c.preferred_anti_affinity_terms = self.preferred_anti_affinity_terms
        c.has_affinity, c.has_required_anti_affinity = self.has_affinity, self.has_required_anti_affinity
        c.scheduling_gates, c.cache = self.scheduling_gates, self.cache
        c._fit_request, c._score_requests = self._fit_request, self._score_requests
        c._score_request_lists = self._score_request_lists
        return c

    def __repr__(self) -> str:
        return f"PodInfo({self.namespace}/{self.name})"


def status_requests_view(pod: Mapping[str, Any]) -> dict[str, Any]:
    """What PodRequests with UseStatusResources reads of a pod's status: the resources of
    each container status that has them (by name, an init container's status winning as in
    `pod_requests`), and then the PodResizePending condition's reason. Equal views and equal
    specs give equal requests."""
    status = pod.get("status") or {}
    if not status.get("containerStatuses") and not status.get("initContainerStatuses"):
        return {}
    statuses: dict[str, Mapping[str, Any]] = {}
    for cs in (*(status.get("containerStatuses") or ()), *(status.get("initContainerStatuses") or ())):
        statuses[cs.get("name", "")] = cs
    view: dict[str, Any] = {
        name: (cs.get("resources"), cs.get("allocatedResources"))
        for name, cs in statuses.items() if cs.get("resources") is not None
    }
    if view:
        view[""] = [c for c in status.get("conditions") or () if c.get("type") == "PodResizePending"]
    return view


def parses_alike(pod_info: PodInfo, pod: Mapping[str, Any]) -> bool:
    """True when PodInfo(pod) would hold what `pod_info` holds: the same spec, metadata equal
    but for resourceVersion, and the same status resources (a status-only write such as
    the kubelet's). Plugins' memos in `cache` read only spec and metadata, so they stay valid.
    """
    mine = pod_info.pod
    spec, my_spec = pod.get("spec"), mine.get("spec")
    meta, my_meta = pod.get("metadata"), mine.get("metadata")
    # a spec or metadata shared with the parsed object may have been changed in place (a
    # caller breaking the informer's read-only contract): nothing to compare it with
    if spec is my_spec or meta is my_meta or not isinstance(spec, Mapping) or not isinstance(meta, Mapping):
        return False
    if spec != my_spec or not isinstance(my_meta, Mapping):
        return False
    if len(meta.keys() - {"resourceVersion"}) != len(my_meta.keys() - {"resourceVersion"}) or any(
        k != "resourceVersion" and (k not in my_meta or my_meta[k] != v) for k, v in meta.items()
    ):
        return False
    return status_requests_view(pod) == status_requests_view(mine)


def _host_ports(container: Mapping[str, Any]) -> Sequence[HostPort]:
    out = []
    for p in container.get("ports") or ():
        hp = int(p.get("hostPort") or 0)
        if hp > 0:
            out.append((p.get("hostIP") or "", p.get("protocol") or "", hp))
    return out
