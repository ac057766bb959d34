"""DefaultPreemption: PostFilter that evicts lower-priority pods to make room for a pod.

SelectVictimsOnNode removes every lower-priority pod from a node (in the node table, put
back afterwards), checks the pod fits with the filter plugins, then reprieves victims,
PDB-violating ones first, most important first. With SchedulerAsyncPreemption (on in
v1.34) evictions run after the attempt and PreEnqueue holds the preemptor meanwhile.
"""

# upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...framework.cycle_state import CycleState
from ...framework.diagnosis import NodeToStatus
from ...framework.events import POD, ActionType, ClusterEvent, ClusterEventWithHint, QueueingHint
from ...framework.interface import EnqueueExtensions, PostFilterPlugin, PostFilterResult, PreEnqueuePlugin
from ...framework.node_info import NodeInfo
from ...framework.nominator import nominated_node_name
from ...framework.pod_info import PodInfo, pod_key
from ...framework.status import Code, Status
from ...framework.whatif import RowOverlay
from ...gosort import sort_slice
from .args import DefaultPreemptionArgs
from .candidate import Candidate, ScoreFunc, Victims
from .evaluator import MSG_NO_VICTIMS, Evaluator
from .pdb import PDB, filter_pods_with_pdb_violation
from .podutil import more_important_pod, pod_priority, pod_terminating_by_preemption

if TYPE_CHECKING:
    from ...framework.handle import Handle

__all__ = ["NAME", "DefaultPreemption", "IsEligiblePodFunc", "MoreImportantPodFunc"]

NAME = "DefaultPreemption"
MSG_WAITING = "waiting for the preemption for this pod to be finished"

# (node_info, victim, preemptor) -> may the victim be preempted (besides lower priority)?
IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Mapping[str, Any]], bool]
# (pod1, pod2) -> is pod1 more important (reprieved first, preempted last)?
MoreImportantPodFunc = Callable[[Mapping[str, Any], Mapping[str, Any]], bool]


class _VictimError(Exception):
    """An AddPod/RemovePod extension failed while selecting victims."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


class DefaultPreemption(PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions):
    """The default preemption plugin; `is_eligible_pod` and `more_important_pod` are overridable."""

    name = NAME

    def __init__(self, args: Mapping[str, Any] | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.dp_args = DefaultPreemptionArgs.from_dict(args)
        self.async_preemption = handle.feature("SchedulerAsyncPreemption")
        self.evaluator = Evaluator(NAME, handle, self, self.async_preemption)
        self.is_eligible_pod: IsEligiblePodFunc = lambda _ni, _victim, _preemptor: True
        self.more_important_pod: MoreImportantPodFunc | None = None  # None: util.MoreImportantPod
        # Int31n(n) of the offset; the scheduler's seeded RNG so that runs repeat
        self.offset_rand: Callable[[int], int] = lambda n: handle.rng.randrange(n)

    # ------------------------------------------------------------ extension points
    def post_filter(
        self, state: CycleState, pod: Mapping[str, Any], statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """Preempt, prefixing any message with 'preemption: '."""
        pi = state.pod_info if state.pod_info is not None and state.pod_info.pod is pod else PodInfo(pod)
        result, status = self.evaluator.preempt(state, pi, statuses)
        msg = status.message()
        if msg:
            return result, Status(status.code, "preemption: " + msg)
        return result, status

    def pre_enqueue(self, pod: Mapping[str, Any]) -> Status | None:
        """Hold a pod while its asynchronous preemption is still evicting victims."""
        if not self.async_preemption:
            return None
        if self.evaluator.is_pod_running_preemption(pod_key(pod)):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_WAITING)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Pod deletions may un-gate a preemptor; the other rejecting plugins decide (Skip)."""
        if not self.async_preemption:
            return []
        return [ClusterEventWithHint(ClusterEvent(POD, ActionType.DELETE), _skip)]

    # --------------------------------------------------------- preemption.Interface
    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random offset into the potential nodes and how many candidates to find."""
        return self.offset_rand(num_nodes), self.dp_args.num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, victims: Mapping[str, Victims]) -> list[ScoreFunc] | None:
        return None

    def pod_eligible_to_preempt_others(
        self, pod: Mapping[str, Any], nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        """Not with preemptionPolicy Never, nor while victims on the nominated node terminate."""
        if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return False, "not eligible due to preemptionPolicy=Never."
        nnn = nominated_node_name(pod)
        if nnn:
            # a nominated node the filters now call unresolvable: preempt again elsewhere
            if nominated_node_status is not None and nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            ni = self.handle.get_node_info(nnn)
            if ni is not None:
                for p in ni.pods:
                    if self.is_preemption_allowed(ni, p, pod) and pod_terminating_by_preemption(p.pod):
                        return False, "not eligible due to a terminating pod on the nominated node."
        return True, ""

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Mapping[str, Any]) -> bool:
        """Lower priority than the preemptor, and eligible by `is_eligible_pod`."""
        return victim.priority < pod_priority(preemptor) and self.is_eligible_pod(node_info, victim, preemptor)

    def no_victims_check(self) -> Callable[[int, int], bool] | None:
        """(preemptor priority, row) -> True when no pod on the row has a lower priority.

        select_victims_on_node answers such a row "No preemption victims found" before it
        touches the cycle state, so the dry run can answer it without cloning the state (most
        rows of a cluster whose pods share one priority). None when a subclass or the instance
        replaces the victim selection, whose answer the shortcut could not know.
        """
        own = vars(self)
        if ("select_victims_on_node" in own or "is_preemption_allowed" in own
                or type(self).select_victims_on_node is not DefaultPreemption.select_victims_on_node
                or type(self).is_preemption_allowed is not DefaultPreemption.is_preemption_allowed):
            return None
        pods = self.handle.node_table.pods

        def no_victims(priority: int, row: int) -> bool:
            return all(p.priority >= priority for p in pods[row].pod_list())

        return no_victims

    def select_victims_on_node(
        self, state: CycleState, pod_info: PodInfo, row: int, pdbs: Sequence[PDB]
    ) -> tuple[list[PodInfo], int, Status | None]:
        """The fewest pods to evict on the node in `row` for the pod to fit (state is a copy)."""
        fw = self.handle.framework
        if fw is None:
            return [], 0, Status.from_error("DefaultPreemption needs a framework handle")
        table = self.handle.node_table
        node_info = NodeInfo(table, row)
        with RowOverlay(table, row) as overlay:

            def remove(p: PodInfo) -> None:
                overlay.remove(p)
                s = fw.run_pre_filter_extension_remove_pod(state, pod_info, p, node_info)
                if s is not None and not s.is_success():
                    raise _VictimError(s)

            def add(p: PodInfo) -> None:
                overlay.add(p)
                s = fw.run_pre_filter_extension_add_pod(state, pod_info, p, node_info)
                if s is not None and not s.is_success():
                    raise _VictimError(s)

            try:
                potential: list[PodInfo] = []
                for p in node_info.pods:
                    if self.is_preemption_allowed(node_info, p, pod_info.pod):
                        potential.append(p)
                        remove(p)
                if not potential:
                    return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NO_VICTIMS)
                s = fw.run_filter_with_nominated_pods(state, pod_info, row)
                if s is not None and not s.is_success():
                    return [], 0, s
                self._sort_by_importance(potential)
                violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
                victims: list[PodInfo] = []
                num_violating = 0
                for group, violates in ((violating, 1), (non_violating, 0)):
                    for p in group:
                        add(p)
                        s = fw.run_filter_with_nominated_pods(state, pod_info, row)
                        if s is None or s.is_success():
                            continue  # reprieved
                        remove(p)
                        victims.append(p)
                        num_violating += violates
            except _VictimError as e:
                return [], 0, Status.from_error(e.status.message())
        if violating and non_violating:
            self._sort_by_importance(victims)
        return victims, num_violating, None

    # ------------------------------------------------------------------ helpers
    def _sort_by_importance(self, pods: list[PodInfo]) -> None:
        """sort.Slice by importance, most important first: Go's pdqsort, so ties (and pods
        without a start time) end up where upstream puts them."""
        sort_slice(pods, lambda a, b: self.more_important(a.pod, b.pod))

    def more_important(self, pod1: Mapping[str, Any], pod2: Mapping[str, Any]) -> bool:
        """The importance order in use (custom or util.MoreImportantPod, whose time.Now()
        for pods that have not started is the evaluator's ticking clock)."""
        if self.more_important_pod is not None:
            return self.more_important_pod(pod1, pod2)
        return more_important_pod(pod1, pod2, self.evaluator.clock)


def _skip(_pod: Mapping[str, Any], _old: Any, _new: Any) -> QueueingHint:
    """isPodSchedulableAfterPodDeletion: always Skip; the other rejectors requeue the pod."""
    return QueueingHint.QUEUE_SKIP
