"""Admitters that declare what they apply to (admission_rules) are called on those writes only;
admitters that declare nothing still see every write, in registration order."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.cluster import AdmissionRequest, AdmissionResponse, AdmissionRules, Cluster, admission_rules
from kubesim.errors import Forbidden


def _recorder(calls: list[tuple[str, str, str, str, str | None]], label: str) -> Any:
    def admit(request: AdmissionRequest) -> AdmissionResponse | None:
        calls.append((label, request.phase, request.resource.kind, request.operation, request.subresource))
        return None
    return admit


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}


def _writes(cluster: Cluster, build: Any) -> None:
    cluster.create(_node("n1"))
    cluster.create(build.pod("p"))
    cluster.bind("default", "p", "n1")
    pod = cluster.get("v1", "Pod", "p")
    pod["status"]["phase"] = "Running"
    cluster.update(pod, subresource="status")
    cluster.patch("v1", "Pod", "p", {"metadata": {"labels": {"a": "b"}}}, "merge")
    cluster.delete("v1", "Pod", "p", "default")


def test_rules_select_the_writes_an_admitter_sees(cluster: Cluster, build: Any) -> None:
    calls: list[tuple[str, str, str, str, str | None]] = []
    everything = _recorder(calls, "all")
    pods = admission_rules(kinds=[("", "Pod")], operations=["CREATE", "UPDATE"], phases=["mutating"],
                           subresources=[None])(_recorder(calls, "pods"))
    bindings = admission_rules(kinds=[("", "Pod")], subresources=["binding", "status"])(_recorder(calls, "sub"))
    for admitter in (everything, pods, bindings):
        cluster.add_admitter(admitter, phase="mutating")
        cluster.add_admitter(admitter, phase="validating")
    _writes(cluster, build)

    seen_by_all = [c[1:] for c in calls if c[0] == "all"]
    assert seen_by_all == [
        ("mutating", "Node", "CREATE", None), ("validating", "Node", "CREATE", None),
        ("mutating", "Pod", "CREATE", None), ("validating", "Pod", "CREATE", None),
        ("mutating", "Pod", "CREATE", "binding"), ("validating", "Pod", "CREATE", "binding"),
        ("mutating", "Pod", "UPDATE", "status"), ("validating", "Pod", "UPDATE", "status"),
        ("mutating", "Pod", "UPDATE", None), ("validating", "Pod", "UPDATE", None),
        ("mutating", "Pod", "DELETE", None), ("validating", "Pod", "DELETE", None),
    ]
    assert [c[1:] for c in calls if c[0] == "pods"] == [
        ("mutating", "Pod", "CREATE", None), ("mutating", "Pod", "UPDATE", None),
    ]
    assert [c[1:] for c in calls if c[0] == "sub"] == [
        ("mutating", "Pod", "CREATE", "binding"), ("validating", "Pod", "CREATE", "binding"),
        ("mutating", "Pod", "UPDATE", "status"), ("validating", "Pod", "UPDATE", "status"),
    ]
    # registration order is kept among the admitters a write reaches
    assert [c[0] for c in calls[:4]] == ["all", "all", "all", "pods"]


def test_a_scoped_denial_still_denies_and_admitters_added_later_are_seen(cluster: Cluster, build: Any) -> None:
    @admission_rules(kinds=[("", "Node")], phases=["validating"])
    def no_nodes(request: AdmissionRequest) -> AdmissionResponse | None:
        return AdmissionResponse(allowed=False, message="no nodes", name="no-nodes")

    cluster.create(_node("before"))  # the selection is worked out again when admitters change
    mark = cluster.admitters_mark()
    cluster.add_admitter(no_nodes, phase="validating")
    cluster.create(build.pod("p"))
    with pytest.raises(Forbidden, match='admission webhook "no-nodes" denied the request: no nodes'):
        cluster.create(_node("n1"))
    cluster.drop_admitters(mark)
    cluster.create(_node("n1"))


def test_rules_accept_any_iterables_and_match_unset_fields_as_anything() -> None:
    rules = AdmissionRules(kinds=[("apps", "Deployment")])
    assert rules.kinds == frozenset({("apps", "Deployment")})
    assert rules.matches("validating", "apps", "Deployment", "DELETE", "scale")
    assert not rules.matches("validating", "", "Pod", "CREATE", None)
