"""Handle: what plugins may reach besides their arguments (node table, pods, objects, binding)."""

# upstream: pkg/scheduler/framework/interface.go (Handle, PodNominator, PodActivator),
# framework/listers.go

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from kubesim.feature_gates import KUBE_SCHEDULER_V1_34

from .node_columns import NodeColumns
from .node_info import NodeInfo, NodeInfoList
from .node_table import NodeTable
from .nominator import Nominator
from .pod_info import PodInfo, pod_key
from .waiting_pods import WaitingPod, WaitingPodsMap

if TYPE_CHECKING:
    from .runtime import Framework

__all__ = ["Handle", "FrameworkHandle", "ObjectLister", "ObjectGetter", "ObjectWriter", "ObjectUpdater", "Binder",
           "PreemptPod", "PatchNominatedNode", "DEFAULT_FEATURES"]

#: Feature gates plugins may ask about, at their kube-scheduler v1.34 defaults.
DEFAULT_FEATURES: Mapping[str, bool] = {name: spec.default for name, spec in KUBE_SCHEDULER_V1_34.items()}

# (kind, namespace or None) -> objects as dicts, e.g. ("Service", "default"), ("Namespace", None)
ObjectLister = Callable[[str, "str | None"], Iterable[Mapping[str, Any]]]
# (kind, namespace or None, name) -> the object or None: a keyed read (the lister scans)
ObjectGetter = Callable[[str, "str | None", str], "Mapping[str, Any] | None"]
# (pod, node name) -> None; raises on failure
Binder = Callable[[Mapping[str, Any], str], None]
# (victim, preemptor, node name) -> False when the victim was already gone; raises on failure
PreemptPod = Callable[[Mapping[str, Any], Mapping[str, Any], str], "bool | None"]
# (pod, nominated node name or "") -> None: patch status.nominatedNodeName
PatchNominatedNode = Callable[[Mapping[str, Any], str], None]
# (object) -> the stored object: replace an API object (PreBind's PV/PVC updates); raises on failure
ObjectUpdater = Callable[[dict[str, Any]], Mapping[str, Any]]


class ObjectWriter(Protocol):
    """Writes to API objects other than pods (a plugin's clientset, e.g. DynamicResources' claims)."""

    def update(self, obj: Mapping[str, Any]) -> Mapping[str, Any]:
        """Update an object (metadata and spec); returns the stored object; raises ApiError."""

    def update_status(self, obj: Mapping[str, Any]) -> Mapping[str, Any]:
        """Update an object's status subresource; returns the stored object; raises ApiError."""


def _no_objects(_kind: str, _ns: str | None) -> Iterable[Mapping[str, Any]]:
    return ()


class Handle:
    """Shared by all plugins of a scheduler; reads always see the current node table."""

    def __init__(
        self,
        node_table: NodeTable,
        *,
        lister: ObjectLister | None = None,
        binder: Binder | None = None,
        now: Callable[[], float] | None = None,
        pod_lookup: Callable[[str], Mapping[str, Any] | None] | None = None,
        preempt_pod: PreemptPod | None = None,
        patch_nominated_node: PatchNominatedNode | None = None,
        activate: Callable[[Sequence[str]], None] | None = None,
        rng: random.Random | None = None,
        features: Mapping[str, bool] | None = None,
        time_origin: float = 0.0,
        writer: ObjectWriter | None = None,
        getter: ObjectGetter | None = None,
        update_object: ObjectUpdater | None = None,
    ) -> None:
        self.node_table = node_table
        self._update_object = update_object
        self._node_columns = NodeColumns(node_table)
        self._lister = lister or _no_objects
        self._binder = binder
        self._now = now or (lambda: 0.0)
        self._pod_infos: dict[str, PodInfo] = {}
        self._pod_lookup = pod_lookup
        self._preempt_pod = preempt_pod
        self._patch_nominated_node = patch_nominated_node
        self._activate = activate
        self.nominator = Nominator(pod_lookup)
        self.rng = rng if rng is not None else random.Random(0)
        self.features = {**DEFAULT_FEATURES, **(features or {})}
        self.time_origin = time_origin
        self.writer = writer
        self._getter = getter
        self.after_cycle: list[Callable[[], None]] = []
        self.framework: Framework | None = None
        # scheduler extenders (kubesim_scheduler.extender.Extender), for preemption's callExtenders
        self.extenders: list[Any] = []
        # (verb, extender, response): where the scheduler records extender responses
        self.extender_recorder: Callable[[str, Any, Any], None] | None = None
        # pods held at Permit, shared by every profile as upstream's scheduler does
        self.waiting_pods = WaitingPodsMap()

    def for_framework(self, framework: Framework) -> FrameworkHandle:
        """The handle a profile's plugins get: this one plus that profile's framework."""
        return FrameworkHandle(self, framework)

    # nodes
    @property
    def node_columns(self) -> NodeColumns:
        """Read-only per-row node data for batch plugins (names, resources, labels)."""
        return self._node_columns

    def snapshot_nodes(self) -> NodeInfoList:
        """All nodes, in the node-tree order the scheduler iterates."""
        return NodeInfoList(self.node_table, self.node_table.order)

    def get_node_info(self, name: str) -> NodeInfo | None:
        return self.node_table.get(name)

    def num_nodes(self) -> int:
        return self.node_table.num_nodes

    # pods
    def pod_info(self, pod: Mapping[str, Any]) -> PodInfo:
        """The PodInfo of a pod dict (parsed once per object identity)."""
        key = pod_key(pod)
        pi = self.node_table.pod_info(key) or self._pod_infos.get(key)
        if pi is None or pi.pod is not pod:
            pi = PodInfo(pod)
            self._pod_infos[key] = pi
        return pi

    def forget_pod_info(self, key: str) -> None:
        self._pod_infos.pop(key, None)

    def assigned_pods(self) -> Iterable[PodInfo]:
        """Pods bound or assumed on nodes."""
        return self.node_table.all_pods()

    def get_pod(self, key: str) -> Mapping[str, Any] | None:
        """The pod lister: the latest known version of a pod (None when it is gone)."""
        if self._pod_lookup is None:
            pi = self.node_table.pod_info(key) or self._pod_infos.get(key)
            return None if pi is None else pi.pod
        return self._pod_lookup(key)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """PodNominator.NominatedPodsForNode."""
        return self.nominator.pods_for_node(node_name)

    # other API objects
    def list_objects(self, kind: str, namespace: str | None = None) -> list[Mapping[str, Any]]:
        return list(self._lister(kind, namespace))

    def get_object(self, kind: str, namespace: str | None, name: str) -> Mapping[str, Any] | None:
        if self._getter is not None:
            return self._getter(kind, namespace, name)
        for o in self._lister(kind, namespace):
            if (o.get("metadata") or {}).get("name") == name:
                return o
        return None

    def namespace_labels(self, namespace: str) -> Mapping[str, str]:
        ns = self.get_object("Namespace", None, namespace)
        return ((ns or {}).get("metadata") or {}).get("labels") or {}

    # actions
    def bind(self, pod: Mapping[str, Any], node_name: str) -> None:
        """Write the binding (DefaultBinder); raises when it fails."""
        if self._binder is None:
            raise RuntimeError("no binder configured")
        self._binder(pod, node_name)

    def update_object(self, obj: Mapping[str, Any], *, status: bool = False) -> Mapping[str, Any]:
        """Replace an API object (clientset Update), or its status subresource with `status`
        (UpdateStatus); raises when the write fails. Without a writer the object is returned
        as is (a scheduler with no API behind it)."""
        if self.writer is not None:
            return self.writer.update_status(obj) if status else self.writer.update(obj)
        if self._update_object is not None and not status:
            return self._update_object(dict(obj))
        return obj

    def now(self) -> float:
        return self._now()

    def wall_time(self) -> float:
        """Epoch seconds of now() (time_origin + now()); compared with pods' status.startTime."""
        return self.time_origin + self._now()

    def feature(self, name: str) -> bool:
        """Whether a feature gate is on (unknown gates are off)."""
        return bool(self.features.get(name, False))

    def preempt_pod(self, victim: Mapping[str, Any], preemptor: Mapping[str, Any], node_name: str) -> bool:
        """Evict a preemption victim (DisruptionTarget condition + delete); False if it was gone."""
        if self._preempt_pod is None:
            raise RuntimeError("no pod preemptor configured")
        return self._preempt_pod(victim, preemptor, node_name) is not False

    def patch_nominated_node(self, pod: Mapping[str, Any], node_name: str) -> None:
        """Patch a pod's status.nominatedNodeName ('' clears it)."""
        if self._patch_nominated_node is not None:
            self._patch_nominated_node(pod, node_name)

    def activate(self, keys: Sequence[str]) -> None:
        """PodActivator.Activate: move pods to the active queue."""
        if self._activate is not None:
            self._activate(keys)

    # waiting pods (upstream: Handle.IterateOverWaitingPods, GetWaitingPod, RejectWaitingPod)
    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None:
        """Call `callback` with every pod waiting at Permit, in the order they started waiting."""
        self.waiting_pods.iterate(callback)

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        """The waiting pod with this metadata.uid (namespace/name for a pod without one), or None."""
        return self.waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        """Reject a waiting pod (as its deletion does); False when no such pod is waiting."""
        wp = self.waiting_pods.get(uid)
        if wp is None:
            return False
        wp.reject("", "removed")
        return True

    def record_extender_result(self, verb: str, extender: Any, response: Any) -> None:
        """Hand an extender's response to the scheduler's attempt record (if any)."""
        if self.extender_recorder is not None:
            self.extender_recorder(verb, extender, response)

    def run_after_cycle(self, fn: Callable[[], None]) -> None:
        """Run `fn` once the current scheduling cycle is over (upstream: a goroutine)."""
        self.after_cycle.append(fn)

    def drain_after_cycle(self) -> None:
        """Run the work queued with run_after_cycle, in order."""
        while self.after_cycle:
            self.after_cycle.pop(0)()


class FrameworkHandle(Handle):
    """A Handle bound to one profile's Framework; everything else is the shared handle's."""

    def __init__(self, parent: Handle, framework: Framework) -> None:  # no super(): state is the parent's
        object.__setattr__(self, "_parent", parent)
        object.__setattr__(self, "framework", framework)

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_parent"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_parent"), name, value)
