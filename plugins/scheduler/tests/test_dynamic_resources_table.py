"""Port of upstream's TestPlugin table (pkg/scheduler/framework/plugins/dynamicresources/
dynamicresources_test.go): 32 cases, each run through the plugin's extension points in
upstream's order (PreEnqueue, PreFilter, Filter per node, Reserve on the first feasible node,
then PreBind, or Unreserve before PreBind, or Unreserve after a failed bind; PostFilter when
no node is feasible), checking statuses and the ResourceClaims in the API afterwards.

Expected statuses follow the v1.34 plugin (vendored in cluster-capacity v1.34.1); the cases of
later releases' scoring, of the alpha extended-resource and binding-condition features, and
of the Filter context cancellation are not ported. Where the v1.34 code differs from the newer
table (allocator errors are an Error status, a missing class is UnschedulableAndUnresolvable,
the "resource claim ..." prefix of the prioritized-list message) the v1.34 code wins.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import pytest
from kubesim_scheduler.framework import CycleState, NodeToStatus, Status
from kubesim_scheduler.framework.status import Code
from kubesim_scheduler.scheduler import Scheduler, default_profile

from dra_builders import FakeApi

NODE, NODE2 = "worker", "worker-2"
DRIVER = "some-driver"
POD, POD_UID = "my-pod", "1234"
RESOURCE = "my-resource"
CLAIM, CLAIM2 = f"{POD}-{RESOURCE}", f"{POD}-{RESOURCE}-2"
CLASS = "my-resource-class"
NS = "default"
ATTR = "healthy"  # a device attribute only the non-default node has
FINALIZERS = ["resource.kubernetes.io/delete-protection"]
BROKEN = f'device.attributes["{DRIVER}"].{ATTR}'

Obj = dict[str, Any]


# --------------------------------------------------------------------------- builders
def make_node(name: str) -> Obj:
    cap = {"cpu": "8", "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": cap, "allocatable": cap}}


def make_pod(*entries: Obj, uid: str = POD_UID, statuses: Sequence[Obj] = ()) -> Obj:
    status: Obj = {"phase": "Pending"}
    if statuses:
        status["resourceClaimStatuses"] = [dict(s) for s in statuses]
    spec: Obj = {"containers": [{"name": "c", "image": "i"}], "schedulerName": "default-scheduler"}
    if entries:
        spec["resourceClaims"] = [dict(e) for e in entries]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": POD, "namespace": NS, "uid": uid}, "spec": spec,
            "status": status}


POD_WITH_CLAIM_NAME = make_pod({"name": RESOURCE, "resourceClaimName": CLAIM})
POD_WITH_CLAIM_TEMPLATE = make_pod({"name": RESOURCE, "resourceClaimTemplateName": CLAIM})
POD_WITH_CLAIM_TEMPLATE_IN_STATUS = make_pod({"name": RESOURCE, "resourceClaimTemplateName": CLAIM},
                                             statuses=[{"name": RESOURCE, "resourceClaimName": CLAIM}])
POD_WITH_TWO_CLAIM_NAMES = make_pod({"name": RESOURCE, "resourceClaimName": CLAIM},
                                    {"name": f"{RESOURCE}-2", "resourceClaimName": CLAIM2})
EMPTY_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo", "namespace": NS, "uid": "foo"},
             "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {"phase": "Pending"}}


def device_class(*selectors: str, name: str = CLASS) -> Obj:
    spec: Obj = {}
    if selectors:
        spec["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def make_slice(node: str, *devices: Obj, driver: str = DRIVER) -> Obj:
    """st.MakeResourceSlice(node, driver): pool named after the node, one slice."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-{driver}"},
            "spec": {"driver": driver, "nodeName": node, "pool": {"name": node, "resourceSliceCount": 1},
                     "devices": [dict(d) for d in devices]}}


def dev(name: str, **attrs_: Any) -> Obj:
    out: Obj = {"name": name}
    if attrs_:
        out["attributes"] = {k: {"bool": v} for k, v in attrs_.items()}
    return out


WORKER_SLICE = make_slice(NODE, dev("instance-1"))
LARGE_WORKER_SLICE = make_slice(NODE, *(dev(f"instance-{i}") for i in range(1, 5)))
WORKER2_SLICE = make_slice(NODE2, dev("instance-1", healthy=True))


def exact(name: str = "req-1", count: int = 1, selectors: Sequence[str] = (), admin: bool = False, cls: str = CLASS) -> Obj:
    body: Obj = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    if selectors:
        body["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    if admin:
        body["adminAccess"] = True
    return {"name": name, "exactly": body}


def make_claim(name: str = CLAIM, *requests: Obj, owned: bool = False) -> Obj:
    """st.MakeResourceClaim().Name(name).Request(className) (requests req-1, req-2, ...)."""
    meta: Obj = {"name": name, "namespace": NS, "uid": f"uid-{name}"}
    if owned:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": POD, "uid": POD_UID, "controller": True}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": {"requests": [dict(r) for r in (requests or (exact(),))]}}, "status": {}}


def allocation(*devices: str, request: str = "req-1", node_selector: Obj | None = None, driver: str = DRIVER) -> Obj:
    return {"devices": {"results": [{"request": request, "driver": driver, "pool": NODE, "device": d} for d in devices]},
            "nodeSelector": node_selector if node_selector is not None else {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [NODE]}]}]}}


def allocated(c: Obj, alloc: Obj | None = None) -> Obj:
    """st.FromResourceClaim(c).Allocation(...): the finalizer and status.allocation set."""
    c = copy.deepcopy(c)
    c["metadata"]["finalizers"] = list(FINALIZERS)
    c["status"]["allocation"] = alloc if alloc is not None else allocation("instance-1")
    return c


def reserved(c: Obj, uid: str = POD_UID) -> Obj:
    c = copy.deepcopy(c)
    c["status"]["reservedFor"] = [*c["status"].get("reservedFor", ()), {"resource": "pods", "name": POD, "uid": uid}]
    return c


def admin(c: Obj) -> Obj:
    c = copy.deepcopy(c)
    for r in c["spec"]["devices"]["requests"]:
        r["exactly"]["adminAccess"] = True
    for r in (c["status"].get("allocation") or {}).get("devices", {}).get("results", ()):
        r["adminAccess"] = True
    return c


def with_selector(c: Obj, expr: str) -> Obj:
    c = copy.deepcopy(c)
    for r in c["spec"]["devices"]["requests"]:
        r["exactly"]["selectors"] = [{"cel": {"expression": expr}}]
    return c


def deleting(c: Obj) -> Obj:
    c = copy.deepcopy(c)
    c["metadata"]["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    return c


def class_name(c: Obj, name: str) -> Obj:
    c = copy.deepcopy(c)
    for r in c["spec"]["devices"]["requests"]:
        for body in [r.get("exactly")] + list(r.get("firstAvailable") or ()):
            if body:
                body["deviceClassName"] = name
    return c


CLAIM_OBJ = make_claim()
PENDING = make_claim(owned=True)
ALLOCATED = allocated(PENDING)
IN_USE = reserved(ALLOCATED)
OTHER = make_claim("not-my-claim")
OTHER_ALLOCATED = allocated(OTHER)
WRONG_TOPOLOGY = allocated(PENDING, {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "no-such-label", "operator": "In", "values": ["no-such-value"]}]}]}})
GOOD_TOPOLOGY = allocated(PENDING, {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "kubernetes.io/hostname", "operator": "In", "values": [NODE]}]}]}})
PRIORITIZED = make_claim(CLAIM, {"name": "req-1", "firstAvailable": [
    {"name": "subreq-1", "deviceClassName": CLASS, "allocationMode": "ExactCount", "count": 1}]}, owned=True)
LARGE = make_claim(CLAIM, *(exact(f"req-{i}") for i in range(1, 6)))


# --------------------------------------------------------------------------- the harness
S = tuple[str, str]  # (status code name, message); ("Success", "") for nil


def st(code: Code, msg: str = "") -> S:
    return (code.name, msg)


OK: S = ("SUCCESS", "")


def norm(s: Status | None) -> S:
    if s is None or s.is_success():
        return OK
    return (s.code.name, s.message())


@attrs.define
class Case:
    pod: Obj
    claims: Sequence[Obj] = ()
    classes: Sequence[Obj] = ()
    slices: Sequence[Obj] = ()
    nodes: Sequence[str] = (NODE,)
    gates: Mapping[str, bool] = attrs.field(factory=dict)
    args: Mapping[str, Any] | None = None
    # expectations: only what is given is checked
    preenqueue: S = OK
    prefilter: S = OK
    filter: Mapping[str, S] = attrs.field(factory=dict)
    postfilter: S | None = None
    reserve: S = OK
    in_flight: Sequence[str] | None = None
    prebind: S = OK
    prebind_pre_flight: S | None = None
    claims_after: Mapping[str, Callable[[Obj], Obj]] | None = None  # name -> change applied to the claim before
    unreserve_before_prebind: bool = False
    unreserve_after_bind: bool = False
    claims_after_unreserve: Mapping[str, Callable[[Obj], Obj]] | None = None


def run_case(case: Case) -> None:
    api = FakeApi(*case.claims, *case.classes, *case.slices)
    gates = {"DRAAdminAccess": False, "DRAPrioritizedList": False, **case.gates}  # upstream's test defaults
    # the plugin is built even with DynamicResourceAllocation off, as upstream's test builds it
    profile = default_profile()
    if case.args is not None:
        profile = attrs.evolve(profile, plugin_args={**profile.plugin_args, "DynamicResources": dict(case.args)})
    s = Scheduler([profile], lister=api.list, writer=api, seed=0, feature_gates=gates)
    for n in case.nodes:
        s.add_node(make_node(n))
    pl: Any = s.frameworks["default-scheduler"].plugins["DynamicResources"]
    handle = s.handle
    pod = case.pod
    before = {k: copy.deepcopy(v) for k, v in api.objects.items()}

    def check_claims(changes: Mapping[str, Callable[[Obj], Obj]] | None, reference: Mapping[Any, Obj]) -> None:
        want = {}
        for key, obj in reference.items():
            if key[0] != "ResourceClaim":
                continue
            fn = (changes or {}).get(key[2])
            want[key[2]] = fn(copy.deepcopy(obj)) if fn else obj
        got = {k[2]: v for k, v in api.objects.items() if k[0] == "ResourceClaim"}
        assert got == want

    assert norm(pl.pre_enqueue(pod)) == case.preenqueue
    if case.preenqueue != OK:
        return
    state = CycleState(handle.pod_info(pod))
    _, status = pl.pre_filter(state, pod, handle.snapshot_nodes())
    assert norm(status) == case.prefilter
    if case.prebind_pre_flight is not None:
        assert norm(pl.pre_bind_pre_flight(state, pod, NODE)) == case.prebind_pre_flight
    unschedulable = status is not None and status.is_rejected()
    feasible: list[str] = []
    if not unschedulable:
        for name in case.nodes:
            got = norm(pl.filter(state, pod, handle.get_node_info(name)))
            assert got == case.filter.get(name, OK), name
            if got == OK:
                feasible.append(name)
            if got[0] == "ERROR":
                return  # an error aborts scheduling
        unschedulable = not feasible
    if unschedulable:
        _, pf = pl.post_filter(state, pod, NodeToStatus())
        if case.postfilter is not None:
            assert norm(pf) == case.postfilter
        check_claims(case.claims_after, before)
        return
    chosen = feasible[0]
    assert norm(pl.reserve(state, pod, chosen)) == case.reserve
    if case.in_flight is not None:
        assert sorted(c["metadata"]["name"] for c in pl._in_flight.values()) == sorted(case.in_flight)
    if case.unreserve_before_prebind:
        pl.unreserve(state, pod, chosen)
        assert pl._in_flight == {}
        check_claims(None, before)
        return
    assert norm(pl.pre_bind(state, pod, chosen)) == case.prebind
    assert pl._in_flight == {}
    check_claims(case.claims_after, before)
    if case.unreserve_after_bind:
        after_bind = {k: copy.deepcopy(v) for k, v in api.objects.items()}
        pl.unreserve(state, pod, chosen)
        check_claims(case.claims_after_unreserve, after_bind)


def becomes(obj: Obj) -> Callable[[Obj], Obj]:
    return lambda _old: copy.deepcopy(obj)


UAU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
NO_CLAIMS_TO_DEALLOCATE = st(Code.UNSCHEDULABLE, "no new claims to deallocate")
STILL_NOT_SCHEDULABLE = st(Code.UNSCHEDULABLE, "still not schedulable")

CASES: dict[str, Case] = {
    "empty": Case(EMPTY_POD, prefilter=st(Code.SKIP), prebind_pre_flight=st(Code.SKIP)),
    "claim-reference": Case(POD_WITH_CLAIM_NAME, claims=[ALLOCATED, OTHER],
                            claims_after={CLAIM: becomes(IN_USE)}),
    "claim-template": Case(POD_WITH_CLAIM_TEMPLATE_IN_STATUS, claims=[ALLOCATED, OTHER],
                           claims_after={CLAIM: becomes(IN_USE)}),
    "missing-claim": Case(POD_WITH_CLAIM_TEMPLATE, claims=[ALLOCATED, OTHER],
                          preenqueue=st(UAU, 'pod "default/my-pod": ResourceClaim not created yet')),
    "deleted-claim": Case(POD_WITH_CLAIM_TEMPLATE_IN_STATUS, claims=[deleting(ALLOCATED)],
                          preenqueue=st(UAU, 'resourceclaim "my-pod-my-resource" is being deleted')),
    "wrong-claim": Case(POD_WITH_CLAIM_TEMPLATE_IN_STATUS,
                        claims=[{**ALLOCATED, "metadata": {**ALLOCATED["metadata"], "ownerReferences": [
                            {**ALLOCATED["metadata"]["ownerReferences"][0], "uid": POD_UID + "123"}]}}],
                        preenqueue=st(UAU, "ResourceClaim default/my-pod-my-resource was not created for pod "
                                           "default/my-pod (pod is not owner)")),
    "no-resources": Case(POD_WITH_CLAIM_NAME, claims=[PENDING], classes=[device_class()],
                         filter={NODE: st(UAU, "cannot allocate all claims")}, postfilter=STILL_NOT_SCHEDULABLE),
    "with-resources": Case(POD_WITH_CLAIM_NAME, claims=[PENDING], classes=[device_class()], slices=[WORKER_SLICE],
                           in_flight=[CLAIM], claims_after={CLAIM: becomes(IN_USE)}),
    "with-resources-has-finalizer": Case(
        POD_WITH_CLAIM_NAME, claims=[{**PENDING, "metadata": {**PENDING["metadata"], "finalizers": FINALIZERS}}],
        classes=[device_class()], slices=[WORKER_SLICE], in_flight=[CLAIM], claims_after={CLAIM: becomes(IN_USE)}),
    "skip-bind": Case(POD_WITH_CLAIM_NAME, claims=[PENDING], classes=[device_class()], slices=[WORKER_SLICE],
                      in_flight=[CLAIM], unreserve_before_prebind=True),
    "exhausted-resources": Case(POD_WITH_CLAIM_NAME, claims=[PENDING, OTHER_ALLOCATED], classes=[device_class()],
                                slices=[WORKER_SLICE], filter={NODE: st(UAU, "cannot allocate all claims")},
                                postfilter=STILL_NOT_SCHEDULABLE),
    "tainted-device-disabled": Case(
        POD_WITH_CLAIM_NAME, claims=[PENDING], classes=[device_class()],
        slices=[make_slice(NODE, {**dev("instance-1"), "taints": [{"key": "taint-key", "value": "taint-value",
                                                                     "effect": "NoSchedule"}]})],
        in_flight=[CLAIM], claims_after={CLAIM: becomes(IN_USE)}),
    "tainted-device-enabled": Case(
        POD_WITH_CLAIM_NAME, claims=[PENDING], classes=[device_class()], gates={"DRADeviceTaints": True},
        slices=[make_slice(NODE, {**dev("instance-1"), "taints": [{"key": "taint-key", "value": "taint-value",
                                                                     "effect": "NoSchedule"}]})],
        filter={NODE: st(UAU, "cannot allocate all claims")}, postfilter=STILL_NOT_SCHEDULABLE),
    "request-admin-access-with-DRAAdminAccess-featuregate": Case(
        POD_WITH_CLAIM_NAME, claims=[admin(PENDING), OTHER_ALLOCATED], classes=[device_class()], slices=[WORKER_SLICE],
        gates={"DRAAdminAccess": True}, in_flight=[CLAIM], claims_after={CLAIM: becomes(admin(IN_USE))}),
    "request-admin-access-without-DRAAdminAccess-featuregate": Case(
        POD_WITH_CLAIM_NAME, claims=[admin(PENDING), OTHER_ALLOCATED], classes=[device_class()], slices=[WORKER_SLICE],
        filter={NODE: st(Code.ERROR, "claim default/my-pod-my-resource, request req-1: admin access is requested, "
                                     "but the feature is disabled")}),
    "structured-ignore-allocated-admin-access": Case(
        POD_WITH_CLAIM_NAME, claims=[PENDING, admin(OTHER_ALLOCATED)], classes=[device_class()], slices=[WORKER_SLICE],
        in_flight=[CLAIM], claims_after={CLAIM: becomes(IN_USE)}),
    "claim-parameters-CEL-runtime-error": Case(
        POD_WITH_CLAIM_NAME, claims=[with_selector(PENDING, BROKEN)], classes=[device_class()], slices=[WORKER_SLICE],
        filter={NODE: st(Code.ERROR, f"claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: {ATTR}")}),
    "class-parameters-CEL-runtime-error": Case(
        POD_WITH_CLAIM_NAME, claims=[PENDING], classes=[device_class(BROKEN)], slices=[WORKER_SLICE],
        filter={NODE: st(Code.ERROR, f"class my-resource-class: selector #0: CEL runtime error: no such key: {ATTR}")}),
    "CEL-runtime-error-for-one-of-two-nodes": Case(
        POD_WITH_CLAIM_NAME, nodes=(NODE, NODE2), claims=[with_selector(PENDING, BROKEN)], classes=[device_class()],
        slices=[WORKER_SLICE, WORKER2_SLICE],
        filter={NODE: st(Code.ERROR, f"claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: {ATTR}")}),
    "missing-class": Case(POD_WITH_CLAIM_NAME, claims=[PENDING],
                          prefilter=st(UAU, "request req-1: device class my-resource-class does not exist"),
                          postfilter=NO_CLAIMS_TO_DEALLOCATE),
    "wrong-topology": Case(POD_WITH_CLAIM_NAME, claims=[WRONG_TOPOLOGY],
                           filter={NODE: st(UAU, "resourceclaim not available on the node")},
                           postfilter=st(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed"),
                           claims_after={CLAIM: lambda c: {**c, "status": {}}}),
    "good-topology": Case(POD_WITH_CLAIM_NAME, claims=[GOOD_TOPOLOGY], claims_after={CLAIM: reserved}),
    "bind-failure": Case(POD_WITH_CLAIM_NAME, claims=[GOOD_TOPOLOGY], claims_after={CLAIM: reserved},
                         unreserve_after_bind=True,
                         claims_after_unreserve={CLAIM: lambda c: {**c, "status": {**c["status"], "reservedFor": []}}}),
    "reserved-okay": Case(POD_WITH_CLAIM_NAME, claims=[IN_USE]),
    "DRA-disabled": Case(POD_WITH_CLAIM_NAME, claims=[IN_USE], gates={"DynamicResourceAllocation": False},
                         prefilter=st(Code.SKIP), prebind_pre_flight=st(Code.SKIP)),
    "claim-with-request-with-unknown-device-class": Case(
        POD_WITH_CLAIM_NAME, claims=[class_name(CLAIM_OBJ, "does-not-exist")],
        prefilter=st(UAU, "request req-1: device class does-not-exist does not exist"),
        postfilter=NO_CLAIMS_TO_DEALLOCATE),
    "claim-with-prioritized-list-feature-disabled": Case(
        POD_WITH_CLAIM_NAME, claims=[PRIORITIZED], classes=[device_class()],
        prefilter=st(UAU, "resource claim default/my-pod-my-resource, request req-1: has subrequests, "
                          "but the DRAPrioritizedList feature is disabled"),
        postfilter=NO_CLAIMS_TO_DEALLOCATE),
    "claim-with-prioritized-list-unknown-device-class": Case(
        POD_WITH_CLAIM_NAME, claims=[class_name(PRIORITIZED, "does-not-exist")], gates={"DRAPrioritizedList": True},
        prefilter=st(UAU, "request req-1/subreq-1: device class does-not-exist does not exist"),
        postfilter=NO_CLAIMS_TO_DEALLOCATE),
    "claim-with-prioritized-list": Case(
        POD_WITH_CLAIM_NAME, claims=[PRIORITIZED], classes=[device_class()], slices=[WORKER_SLICE],
        gates={"DRAPrioritizedList": True}, in_flight=[CLAIM],
        claims_after={CLAIM: becomes(reserved(allocated(PRIORITIZED, allocation("instance-1", request="req-1/subreq-1"))))}),
    "timeout": Case(POD_WITH_CLAIM_NAME, claims=[LARGE], classes=[device_class()], slices=[LARGE_WORKER_SLICE],
                    args={"filterTimeout": 1e-9},
                    filter={NODE: st(UAU, "timed out trying to allocate devices")}, postfilter=STILL_NOT_SCHEDULABLE),
    "timeout_disabled": Case(POD_WITH_CLAIM_NAME, claims=[PENDING], classes=[device_class()], slices=[WORKER_SLICE],
                             args={"filterTimeout": 1e-9}, gates={"DRASchedulerFilterTimeout": False},
                             in_flight=[CLAIM], claims_after={CLAIM: becomes(IN_USE)}),
    "timeout_zero": Case(POD_WITH_CLAIM_NAME, claims=[PENDING], classes=[device_class()], slices=[WORKER_SLICE],
                         args={"filterTimeout": 0}, in_flight=[CLAIM], claims_after={CLAIM: becomes(IN_USE)}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_plugin(name: str) -> None:
    run_case(CASES[name])


def test_ported_case_count() -> None:
    """The closing note reports this count."""
    assert len(CASES) == 32


def test_large_claim_without_timeout_cannot_allocate() -> None:
    """"timeout"'s claim (5 requests, 4 devices) fails as "cannot allocate all claims" once the search is allowed to finish."""
    run_case(attrs.evolve(CASES["timeout"], args=None, filter={NODE: st(UAU, "cannot allocate all claims")}))
