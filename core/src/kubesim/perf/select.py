"""Choosing which workloads of a scheduler_perf file run: labels, test-case and workload names."""

# upstream: test/integration/scheduler_perf/scheduler_perf.go (enabled: a comma-separated
# filter; each label, or +label, must be present, each -label must be absent)

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kubesim.perf.config import TestCase, Workload

__all__ = ["label_filter_matches", "select_workloads"]


def label_filter_matches(filters: Iterable[str], labels: Iterable[str]) -> bool:
    """Whether `labels` pass every filter ("performance", "+fast", "-integration-test"; a filter
    may hold several comma-separated labels)."""
    have = set(labels)
    for text in filters:
        for label in (part.strip() for part in text.split(",")):
            if not label:
                continue
            if label.startswith("-"):
                if label[1:] in have:
                    return False
            elif label.lstrip("+") not in have:
                return False
    return True


def select_workloads(cases: Sequence[TestCase], *, labels: Sequence[str] = (), workloads: Sequence[str] = (),
                     test_cases: Sequence[str] = ()) -> list[tuple[TestCase, Workload]]:
    """The (testCase, workload) pairs that pass the label filters (on the testCase's and the
    workload's labels together), whose testCase is one of `test_cases` and whose workload name
    (or testCase/workload) is one of `workloads` (empty: any), in file order."""
    out = []
    for case in cases:
        if test_cases and case.name not in test_cases:
            continue
        for w in case.workloads:
            if workloads and w.name not in workloads and f"{case.name}/{w.name}" not in workloads:
                continue
            if label_filter_matches(labels, (*case.labels, *w.labels)):
                out.append((case, w))
    return out
