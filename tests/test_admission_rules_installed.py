"""Every in-tree plugin's admitter declares its admission rules, and the plugin manager hands
them on, so that the cluster calls each admitter only on the writes it cares about."""

from __future__ import annotations

from kubesim.cluster.admission import rules_of
from kubesim.plugins import load_plugins


def test_installed_admitters_carry_their_rules() -> None:
    hooks = load_plugins()
    admitters = hooks.admitters(None)
    assert len(admitters) >= 3  # scheduler (DRA selectors), imperator-machine, pod-injector
    rules = [rules_of(a) for a in admitters]
    assert all(r is not None for r in rules), "an in-tree admitter without admission_rules"
    kinds = set().union(*(r.kinds or () for r in rules if r is not None))
    assert {("", "Pod"), ("imperator.tenzen-y.io", "Machine"), ("resource.k8s.io", "ResourceClaim")} <= kinds
