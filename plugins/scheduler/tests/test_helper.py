"""kubesim_scheduler.helper: the code plugins share, checked against upstream's tables."""

# upstream: pkg/scheduler/framework/plugins/helper/normalize_score_test.go, taint_test.go,
# shape_score_test.go

from __future__ import annotations

import numpy as np
import pytest
from scheduler_harness import make_node, make_pod

from kubesim_scheduler import helper
from kubesim_scheduler.api import MAX_NODE_SCORE, NodeScore

NORMALIZE_CASES = [
    (False, [1, 2, 3, 4], [25, 50, 75, 100]),
    (True, [1, 2, 3, 4], [75, 50, 25, 0]),
    (False, [1000, 10, 20, 30], [100, 1, 2, 3]),
    (True, [1000, 10, 20, 30], [0, 99, 98, 97]),
    (False, [1, 1, 1, 1], [100, 100, 100, 100]),
    (False, [1000, 1, 1, 1], [100, 0, 0, 0]),
    (True, [0, 1, 1, 1], [100, 0, 0, 0]),
    # kubesim additions: all zero leaves the scores (or makes them max with reverse)
    (False, [0, 0], [0, 0]),
    (True, [0, 0], [100, 100]),
]


@pytest.mark.parametrize(("reverse", "scores", "want"), NORMALIZE_CASES)
def test_default_normalize_score(reverse: bool, scores: list[int], want: list[int]) -> None:
    node_scores = [NodeScore(f"n{i}", s) for i, s in enumerate(scores)]
    assert helper.default_normalize_score(MAX_NODE_SCORE, reverse, node_scores) is None
    assert [s.score for s in node_scores] == want
    arr = np.array(scores, dtype=np.int64)
    assert helper.default_normalize_score_array(arr, MAX_NODE_SCORE, reverse).tolist() == want
    assert arr.tolist() == scores  # the array form returns a new array


def test_build_broken_linear_function() -> None:
    # flat before the first and after the last point; Go truncation: 5 + (2-5)*(50-30)/40 = 4
    f = helper.build_broken_linear_function([(10, 1), (30, 5), (70, 2)])
    p = np.array([0, 10, 15, 30, 50, 70, 90], dtype=np.int64)
    assert f(p).tolist() == [1, 1, 2, 5, 4, 2, 2]


def test_selectors() -> None:
    sel = helper.selector_from_set({"app": "web"})
    assert sel.matches({"app": "web", "x": "y"}) and not sel.matches({"app": "db"})
    assert helper.selector_from_set({}).matches({})
    ls = helper.label_selector_as_selector(
        {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]})
    assert ls.matches({"app": "web", "tier": "b"}) and not ls.matches({"app": "web"})
    assert not helper.label_selector_as_selector(None).matches({})
    assert helper.label_selector_as_selector({}).matches({"any": "thing"})
    with pytest.raises(ValueError, match="'Gt' is not a valid label selector operator"):
        helper.label_selector_as_selector({"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1"]}]})


def test_pod_matches_node_selector_and_affinity_terms() -> None:
    node = make_node("n", labels={"zone": "z1", "disk": "ssd"})
    assert helper.pod_matches_node_selector_and_affinity_terms(make_pod(), node)
    assert helper.pod_matches_node_selector_and_affinity_terms(make_pod(node_selector={"zone": "z1"}), node)
    assert not helper.pod_matches_node_selector_and_affinity_terms(make_pod(node_selector={"zone": "z2"}), node)
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["hdd"]}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]},
    ]}}}
    assert helper.pod_matches_node_selector_and_affinity_terms(make_pod(affinity=affinity), node)
    assert not helper.pod_matches_node_selector_and_affinity_terms(
        make_pod(node_selector={"zone": "z2"}, affinity=affinity), node)


def test_taint_helpers() -> None:
    no_schedule = {"key": "a", "value": "1", "effect": "NoSchedule"}
    prefer = {"key": "b", "effect": "PreferNoSchedule"}
    no_execute = {"key": "c", "effect": "NoExecute"}
    taints = [prefer, no_schedule, no_execute]
    keep = helper.do_not_schedule_taints_filter_func()
    assert [keep(t) for t in taints] == [False, True, True]
    tolerate_a = [{"key": "a", "operator": "Equal", "value": "1", "effect": "NoSchedule"}]
    assert helper.tolerations_tolerate_taint(tolerate_a, no_schedule)
    assert not helper.tolerations_tolerate_taint(tolerate_a, no_execute)
    assert helper.find_matching_untolerated_taint(taints, tolerate_a, keep) is no_execute
    assert helper.find_matching_untolerated_taint(taints, [], None) is prefer
    assert helper.find_matching_untolerated_taint(taints, [{"operator": "Exists"}], keep) is None
