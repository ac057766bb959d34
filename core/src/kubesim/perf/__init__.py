"""`kubesim perf`: upstream scheduler_perf test-case files run on the embedded cluster.

kubesim.perf.config reads the files, kubesim.perf.compile turns a workload into a Scenario,
kubesim.perf.runner runs it and kubesim.perf.dataitems writes scheduler_perf's DataItems.
See docs/perf.md.
"""

from kubesim.perf.config import TestCase, Workload, load_test_cases, parse_test_cases
from kubesim.perf.select import label_filter_matches, select_workloads

__all__ = ["TestCase", "Workload", "label_filter_matches", "load_test_cases", "parse_test_cases", "select_workloads"]
