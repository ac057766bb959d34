"""Conformance: the 300 reference cases of kube-scheduler v1.34 (tests/data/conformance).

Each case runs through Scheduler.evaluate (default profile, percentageOfNodesToScore 100)
and must reproduce upstream's feasible set, first rejecting plugin and message per node,
every per-plugin final score and total, and pick a node among the best.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance_data import cases, expected
from kubesim_scheduler import Scheduler


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Evaluate one case and return it in expected.json's shape."""
    s = Scheduler(percentage_of_nodes_to_score=100, seed=1)
    for n in case["nodes"]:
        s.add_node(n)
    for p in case["existingPods"]:
        s.add_pod(p)
    a = s.evaluate(case["pod"])
    filt = {node: {st.plugin: st.format()} for node, st in a.filter_statuses().items()}
    feasible = a.feasible_nodes()
    totals = a.totals()
    best = None
    if totals:
        top = max(totals.values())
        best = sorted(n for n, v in totals.items() if v == top)
    return {
        "feasible": feasible or None,
        "filter": filt,
        "scores": a.final_scores(),
        "total": totals,
        "best": best,
        "chosen": a.node,
        "message": a.message(),
    }


def compare(got: dict[str, Any], exp: dict[str, Any]) -> list[str]:
    diffs = []
    if sorted(got["feasible"] or []) != sorted(exp["feasible"] or []):
        diffs.append(f"feasible: got {sorted(got['feasible'] or [])} want {sorted(exp['feasible'] or [])}")
    if got["filter"] != exp["filter"]:
        for node in sorted(set(got["filter"]) | set(exp["filter"])):
            if got["filter"].get(node) != exp["filter"].get(node):
                diffs.append(f"filter[{node}]: got {got['filter'].get(node)} want {exp['filter'].get(node)}")
    if got["scores"] != exp["scores"]:
        for node in sorted(set(got["scores"]) | set(exp["scores"])):
            if got["scores"].get(node) != exp["scores"].get(node):
                diffs.append(f"scores[{node}]: got {got['scores'].get(node)} want {exp['scores'].get(node)}")
    if got["total"] != exp["total"]:
        diffs.append(f"total: got {got['total']} want {exp['total']}")
    if exp["best"] and got["chosen"] not in exp["best"]:
        diffs.append(f"chosen {got['chosen']} not in best {exp['best']}")
    return diffs


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["name"])
def test_case(case: dict[str, Any]) -> None:
    exp = expected()[case["name"]]
    got = run_case(case)
    diffs = compare(got, exp)
    assert not diffs, "\n".join(diffs)


def test_all_300_cases_are_in_the_repository() -> None:
    """The reference data is complete: 300 cases, each with upstream's decision."""
    assert len(cases()) == 300
    assert sorted(c["name"] for c in cases()) == sorted(expected())
