"""Code shared by scheduler plugins: score normalisation, selectors, node affinity, taints,
and Go's sort.Slice (for plugins that must order ties as upstream does).

Like upstream's pkg/scheduler/framework/plugins/helper, for in-tree and third-party
plugins alike. The signatures here are stable and take Kubernetes objects in their JSON
(dict) form; the implementations behind them may move (e.g. into the core) without
plugins noticing.
"""

# upstream: pkg/scheduler/framework/plugins/helper/normalize_score.go (DefaultNormalizeScore),
# helper/shape_score.go (BuildBrokenLinearFunction), helper/taint.go
# (DoNotScheduleTaintsFilterFunc), component-helpers/scheduling/corev1/helpers.go
# (FindMatchingUntoleratedTaint), component-helpers/scheduling/corev1/nodeaffinity
# (GetRequiredNodeAffinity(pod).Match(node)), apimachinery labels (SelectorFromSet,
# LabelSelectorAsSelector), go/src/sort/slice.go (Slice)

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from kubesim.k8s.selectors import label_selector_as_selector as _label_selector_as_selector
from kubesim.k8s.selectors import selector_from_set as _selector_from_set

from .framework.interface import MAX_NODE_SCORE, NodeScore
from .framework.normalize import default_normalize, default_normalize_scores
from .framework.status import Status
from .gosort import sort_slice
from .plugins.noderesources.resource_allocation import broken_linear
from .plugins.nodeaffinity import RequiredNodeAffinity
from .taints import Toleration, do_not_schedule_taint, taint_of, toleration_of
from .taints import tolerations_tolerate_taint as _tolerate

__all__ = [
    "LabelSelector",
    "default_normalize_score",
    "default_normalize_score_array",
    "build_broken_linear_function",
    "selector_from_set",
    "label_selector_as_selector",
    "pod_matches_node_selector_and_affinity_terms",
    "do_not_schedule_taints_filter_func",
    "tolerations_tolerate_taint",
    "find_matching_untolerated_taint",
    "sort_slice",
]

# Kubernetes objects in JSON form: a Taint ({key, value, effect}), a Toleration, a node, a pod
_Obj = Mapping[str, Any]


class LabelSelector(Protocol):
    """A parsed label selector: `matches(labels)` says whether a label set is selected."""

    def matches(self, labels: Mapping[str, str] | None) -> bool: ...


# ------------------------------------------------------------------ scores
def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> Status | None:
    """DefaultNormalizeScore: scale scores in place to [0, max_priority] by the highest one.

    With `reverse`, a node's score becomes max_priority minus that; when every score is 0
    (or below) they stay as they are, or all become max_priority with `reverse`.
    """
    default_normalize_scores(scores, max_priority, reverse)
    return None


def default_normalize_score_array(
    scores: np.ndarray, max_priority: int = MAX_NODE_SCORE, reverse: bool = False,
) -> np.ndarray:
    """DefaultNormalizeScore on an int64 array (for `normalize_batch`); returns a new array."""
    return default_normalize(np.asarray(scores, dtype=np.int64), max_priority, reverse)


def build_broken_linear_function(shape: Sequence[tuple[int, int]]) -> Callable[[np.ndarray], np.ndarray]:
    """BuildBrokenLinearFunction: (utilization, score) points, increasing utilization, to a
    function of int64 arrays that interpolates between them with Go's integer division."""
    return broken_linear(shape)


# --------------------------------------------------------------- selectors
def selector_from_set(labels: Mapping[str, str] | None) -> LabelSelector:
    """labels.SelectorFromSet: every pair must be present (an empty set selects everything)."""
    return _selector_from_set(labels)


def label_selector_as_selector(selector: _Obj | None) -> LabelSelector:
    """metav1.LabelSelectorAsSelector on a LabelSelector dict (matchLabels, matchExpressions).

    None selects nothing, {} everything; an invalid operator, key or value raises ValueError.
    """
    return _label_selector_as_selector(selector)


def pod_matches_node_selector_and_affinity_terms(pod: _Obj, node: _Obj) -> bool:
    """Whether `node` satisfies the pod's spec.nodeSelector and its required node affinity."""
    return RequiredNodeAffinity(pod).match_node(node)


# ------------------------------------------------------------------ taints
def do_not_schedule_taints_filter_func() -> Callable[[_Obj], bool]:
    """DoNotScheduleTaintsFilterFunc: the taints that keep pods off a node (NoSchedule, NoExecute)."""
    return lambda taint: do_not_schedule_taint(taint_of(taint))


def tolerations_tolerate_taint(tolerations: Sequence[_Obj], taint: _Obj) -> bool:
    """TolerationsTolerateTaint: whether any of the tolerations tolerates `taint`."""
    return _tolerated([toleration_of(t) for t in tolerations], taint)


def find_matching_untolerated_taint(
    taints: Sequence[_Obj], tolerations: Sequence[_Obj], inclusion: Callable[[_Obj], bool] | None = None,
) -> _Obj | None:
    """FindMatchingUntoleratedTaint: the first taint passing `inclusion` that no toleration
    tolerates, or None."""
    tols = [toleration_of(t) for t in tolerations]
    for taint in taints:
        if inclusion is not None and not inclusion(taint):
            continue
        if not _tolerated(tols, taint):
            return taint
    return None


def _tolerated(tolerations: Sequence[Toleration], taint: _Obj) -> bool:
    return _tolerate(tolerations, taint_of(taint))
