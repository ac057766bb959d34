"""Port of upstream's structured allocator table (staging/src/k8s.io/dynamic-resource-allocation/
structured/internal/allocatortesting/allocator_testing.go, TestAllocator): 63 cases.

Results are compared as upstream does (device results and node-selector requirements in any
order). Expectations follow the v1.34 allocator (vendored in cluster-capacity v1.34.1): a
class's config carries no request names, and a pool with duplicate device names fails as
"pool ... is invalid". Cases of alpha features (partitionable devices, device taints,
binding conditions, consumable capacity) and of later releases are not ported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
import pytest
from kubesim_scheduler.plugins.dynamicresources import AllocationError, Allocator

REGION1, REGION2 = "region-1", "region-2"
NODE1, NODE2 = "node-1", "node-2"
CLASS_A, CLASS_B = "class-a", "class-b"
DRIVER_A, DRIVER_B = "driver-a", "driver-b"
POOL1, POOL2, POOL3, POOL4 = "pool-1", "pool-2", "pool-3", "pool-4"
REQ0, REQ1, REQ2 = "req-0", "req-1", "req-2"
CLAIM0, CLAIM1 = "claim-0", "claim-1"
SLICE1, SLICE2 = "slice-1", "slice-2"
DEVICE0, DEVICE1, DEVICE2, DEVICE3 = "device-0", "device-1", "device-2", "device-3"
ALL_NODES = "nodeSelectionAll"
MAX_RESULTS = 32

INT_ATTR = f"{DRIVER_A}/numa"
VERSION_ATTR = f"{DRIVER_A}/driverVersion"
STRING_ATTR = f"{DRIVER_A}/stringAttribute"
BOOL_ATTR = f"{DRIVER_A}/boolAttribute"
MISSING_ATTR = f"{DRIVER_A}/NonExistentAttribute"

Obj = dict[str, Any]


# ------------------------------------------------------------------- builders (upstream's helpers)
def node(name: str, region: str) -> Obj:
    return {"metadata": {"name": name, "labels": {"region": region, "planet": "earth"}}}


def klass(name: str, driver: str, config_attr: str = "") -> Obj:
    spec: Obj = {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}
    if config_attr:
        spec["config"] = [{"opaque": device_config(driver, config_attr)}]
    return {"metadata": {"name": name}, "spec": spec}


def device_config(driver: str, attribute: str) -> Obj:
    return {"driver": driver, "parameters": {attribute: attribute + "Value"}}


def request(name: str, cls: str, count: int = 1, *selectors: str, mode: str = "ExactCount", admin: bool = False) -> Obj:
    body: Obj = {"deviceClassName": cls, "allocationMode": mode}
    if mode == "ExactCount":
        body["count"] = count
    if selectors:
        body["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    if admin:
        body["adminAccess"] = True
    return {"name": name, "exactly": body}


def sub_request(name: str, cls: str, count: int = 1, mode: str = "ExactCount") -> Obj:
    body: Obj = {"name": name, "deviceClassName": cls, "allocationMode": mode}
    if mode == "ExactCount":
        body["count"] = count
    return body


def claim(name: str, *requests: Obj, constraints: Sequence[Obj] = (), config: Sequence[Obj] = ()) -> Obj:
    devices: Obj = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = list(constraints)
    if config:
        devices["config"] = list(config)
    return {"metadata": {"name": name}, "spec": {"devices": devices}}


def device(name: str, capacity: Mapping[str, str] | None = None, **attributes: Any) -> Obj:
    out: Obj = {"name": name}
    if capacity:
        out["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    if attributes:
        attrs_: Obj = {}
        for k, v in attributes.items():
            kind = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else (
                "version" if k == "driverVersion" else "string")
            attrs_[k] = {kind: v}
        out["attributes"] = attrs_
    return out


def a_slice(name: str, selection: Any, pool: str, driver: str, *devices: Obj, count: int = 1, generation: int = 1) -> Obj:
    spec: Obj = {"driver": driver, "pool": {"name": pool, "resourceSliceCount": count, "generation": generation},
                 "devices": list(devices)}
    if isinstance(selection, dict):
        spec["nodeSelector"] = selection
    elif selection == ALL_NODES:
        spec["allNodes"] = True
    else:
        spec["nodeName"] = selection
    return {"metadata": {"name": name}, "spec": spec}


def one_device(name: str, selection: Any, pool: str, driver: str) -> Obj:
    return a_slice(name, selection, pool, driver, device(DEVICE1))


def label_selector(key: str, *values: str) -> Obj:
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]}


def local(node_name: str) -> Obj:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def result(req: str, driver: str, pool: str, dev: str, admin: bool = False) -> Obj:
    out: Obj = {"request": req, "driver": driver, "pool": pool, "device": dev}
    if admin:
        out["adminAccess"] = True
    return out


def alloc(selector: Obj | None, *results: Obj, config: Sequence[Obj] = ()) -> Obj:
    out: Obj = {"devices": {"results": list(results)}}
    if config:
        out["devices"]["config"] = list(config)
    if selector is not None:
        out["nodeSelector"] = selector
    return out


def cel_memory(size: str) -> str:
    return f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{size}")) >= 0'


# --------------------------------------------------------------------------- the harness
@attrs.define
class Case:
    claims: Sequence[Obj] = ()
    classes: Sequence[Obj] = ()
    slices: Sequence[Obj] = ()
    node: Obj | None = None
    allocated: Iterable[tuple[str, str, str]] = ()
    admin_access: bool = False
    prioritized_list: bool = False
    expect: Sequence[Obj] | None = None
    error: str = ""


def _norm_selector(sel: Obj | None) -> Any:
    if sel is None:
        return None
    terms = []
    for term in sel.get("nodeSelectorTerms") or ():
        terms.append(tuple(sorted(
            (kind, r["key"], r["operator"], tuple(sorted(r.get("values") or ())))
            for kind in ("matchExpressions", "matchFields") for r in term.get(kind) or ())))
    return sorted(terms)


def _norm(allocation: Obj) -> Any:
    devices = allocation["devices"]
    return (sorted(tuple(sorted(r.items())) for r in devices["results"]), devices.get("config"),
            _norm_selector(allocation.get("nodeSelector")))


def run_case(case: Case) -> None:
    classes = {c["metadata"]["name"]: c for c in case.classes}
    allocator = Allocator(classes.get, list(case.slices), set(case.allocated),
                          admin_access=case.admin_access, prioritized_list=case.prioritized_list)
    if case.error:
        with pytest.raises(AllocationError) as e:
            allocator.allocate(case.node, list(case.claims))
        assert case.error in str(e.value)
        return
    got = allocator.allocate(case.node, list(case.claims))
    if not case.expect:
        assert got is None or (not case.claims and got == [])
        return
    assert got is not None
    assert [_norm(a) for a in got] == [_norm(a) for a in case.expect]


ALL_A = request(REQ0, CLASS_A, mode="All")
N1 = node(NODE1, REGION1)
A = klass(CLASS_A, DRIVER_A)
B = klass(CLASS_B, DRIVER_B)
TWO_DEVICES = a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
SMALL_LARGE = claim(CLAIM0, request(REQ0, CLASS_A, 1, cel_memory("1Gi")), request(REQ1, CLASS_A, 1, cel_memory("2Gi")))
PRIORITIZED_ALL = claim(CLAIM0, {"name": REQ0, "firstAvailable": [sub_request("subReq-0", CLASS_A, mode="All"),
                                                                  sub_request("subReq-1", CLASS_B)]})

CASES: dict[str, Case] = {
    "empty": Case(),
    "simple": Case([claim(CLAIM0, request(REQ0, CLASS_A))], [A], [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                   expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1))]),
    "other-node": Case([claim(CLAIM0, request(REQ0, CLASS_A))], [A],
                       [one_device(SLICE1, NODE1, POOL1, DRIVER_B), one_device(SLICE2, NODE2, POOL2, DRIVER_A)],
                       node(NODE2, REGION2), expect=[alloc(local(NODE2), result(REQ0, DRIVER_A, POOL2, DEVICE1))]),
    "small-and-large": Case([SMALL_LARGE], [A], [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {"memory": "1Gi"}),
                                                         device(DEVICE2, {"memory": "2Gi"}))], N1,
                            expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1),
                                          result(REQ1, DRIVER_A, POOL1, DEVICE2))]),
    "small-and-large-backtrack-requests": Case(
        [SMALL_LARGE], [A], [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE2, {"memory": "2Gi"}),
                                     device(DEVICE1, {"memory": "1Gi"}))], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1), result(REQ1, DRIVER_A, POOL1, DEVICE2))]),
    "small-and-large-backtrack-claims": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, cel_memory("1Gi"))), claim(CLAIM1, request(REQ1, CLASS_A, 1, cel_memory("2Gi")))],
        [A], [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE2, {"memory": "2Gi"}), device(DEVICE1, {"memory": "1Gi"}))], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1)),
                alloc(local(NODE1), result(REQ1, DRIVER_A, POOL1, DEVICE2))]),
    "devices-split-across-different-slices": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2))], [A],
        [one_device(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE2, NODE1, POOL2, DRIVER_A)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1), result(REQ0, DRIVER_A, POOL2, DEVICE1))]),
    "duplicate-slice": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [A],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), count=2),
         a_slice(SLICE1 + "-2", NODE1, POOL1, DRIVER_A, device(DEVICE1), count=2)], N1,
        error="pool pool-1 is invalid: duplicate device name device-1"),
    "no-slices": Case([claim(CLAIM0, request(REQ0, CLASS_A))], [A], [], N1),
    "not-enough-suitable-devices": Case([claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM0, request(REQ1, CLASS_A))], [A],
                                        [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1),
    "no-classes": Case([claim(CLAIM0, request(REQ0, CLASS_A))], [], [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                       error="could not retrieve device class class-a"),
    "unknown-class": Case([claim(CLAIM0, request(REQ0, "unknown-class"))], [A], [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                          error="could not retrieve device class unknown-class"),
    "empty-class": Case([claim(CLAIM0, request(REQ0, ""))], [A], [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                        error="claim claim-0, request req-0: missing device class name (unsupported request type?)"),
    "no-claims-to-allocate": Case([], [A], [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1),
    "all-devices-single": Case([claim(CLAIM0, ALL_A)], [A], [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                               expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1))]),
    "all-devices-many": Case([claim(CLAIM0, ALL_A)], [A],
                             [one_device(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE1, NODE1, POOL2, DRIVER_A)], N1,
                             expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1),
                                           result(REQ0, DRIVER_A, POOL2, DEVICE1))]),
    "all-devices-of-the-incomplete-pool": Case(
        [claim(CLAIM0, ALL_A)], [A], [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), count=2)], N1,
        error="claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated"),
    "all-devices-plus-another": Case(
        [claim(CLAIM0, ALL_A), claim(CLAIM1, request(REQ0, CLASS_B))], [A, B],
        [one_device(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE1, NODE1, POOL1, DRIVER_B)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1)),
                alloc(local(NODE1), result(REQ0, DRIVER_B, POOL1, DEVICE1))]),
    "all-devices-plus-another-reversed": Case(
        [claim(CLAIM1, request(REQ0, CLASS_B)), claim(CLAIM0, ALL_A)], [A, B],
        [one_device(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE1, NODE1, POOL1, DRIVER_B)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_B, POOL1, DEVICE1)),
                alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1))]),
    "all-devices-many-plus-another": Case(
        [claim(CLAIM0, ALL_A), claim(CLAIM1, request(REQ0, CLASS_B))], [A, B],
        [TWO_DEVICES, one_device(SLICE1, NODE1, POOL1, DRIVER_B)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1), result(REQ0, DRIVER_A, POOL1, DEVICE2)),
                alloc(local(NODE1), result(REQ0, DRIVER_B, POOL1, DEVICE1))]),
    "all-devices-many-plus-another-reversed": Case(
        [claim(CLAIM1, request(REQ0, CLASS_B)), claim(CLAIM0, ALL_A)], [A, B],
        [TWO_DEVICES, one_device(SLICE1, NODE1, POOL1, DRIVER_B)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_B, POOL1, DEVICE1)),
                alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1), result(REQ0, DRIVER_A, POOL1, DEVICE2))]),
    "all-devices-no-solution": Case([claim(CLAIM1, request(REQ0, CLASS_A)), claim(CLAIM0, ALL_A)], [A],
                                    [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1),
    "all-devices-no-solution-reversed": Case([claim(CLAIM0, ALL_A), claim(CLAIM1, request(REQ0, CLASS_A))], [A],
                                             [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1),
    "all-devices-slice-without-devices": Case([claim(CLAIM0, ALL_A)], [A], [a_slice(SLICE1, NODE1, POOL1, DRIVER_A)], N1),
    "all-devices-no-slices": Case([claim(CLAIM0, ALL_A)], [A], [], N1),
    "all-devices-some-allocated": Case([claim(CLAIM0, ALL_A)], [A], [TWO_DEVICES], N1,
                                       allocated=[(DRIVER_A, POOL1, DEVICE1)]),
    "all-devices-some-allocated-admin-access": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All", admin=True))], [A], [TWO_DEVICES], N1,
        allocated=[(DRIVER_A, POOL1, DEVICE1)], admin_access=True,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1, True), result(REQ0, DRIVER_A, POOL1, DEVICE2, True))]),
    "all-devices-some-allocating-admin-access": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, admin=True), request(REQ1, CLASS_A, mode="All", admin=True))], [A],
        [TWO_DEVICES], N1, admin_access=True),
    "count-devices-some-allocated-admin-access": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2, admin=True))], [A], [TWO_DEVICES], N1,
        allocated=[(DRIVER_A, POOL1, DEVICE1)], admin_access=True,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1, True), result(REQ0, DRIVER_A, POOL1, DEVICE2, True))]),
    "separate-claims-share-device-admin-access": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, admin=True)), claim(CLAIM1, request(REQ0, CLASS_A, admin=True))], [A],
        [TWO_DEVICES], N1, admin_access=True,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1, True)),
                alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1, True))]),
    "admin-access-claims-device-allocating-for-non-admin-access": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A, admin=True))], [A],
        [TWO_DEVICES], N1, admin_access=True,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1)),
                alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1, True))]),
    "all-devices-slice-without-devices-prioritized-list": Case(
        [PRIORITIZED_ALL], [A, B], [a_slice(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE2, NODE1, POOL2, DRIVER_B)], N1,
        prioritized_list=True, expect=[alloc(local(NODE1), result("req-0/subReq-1", DRIVER_B, POOL2, DEVICE1))]),
    "all-devices-no-slices-prioritized-list": Case(
        [PRIORITIZED_ALL], [A, B], [one_device(SLICE2, NODE1, POOL2, DRIVER_B)], N1, prioritized_list=True,
        expect=[alloc(local(NODE1), result("req-0/subReq-1", DRIVER_B, POOL2, DEVICE1))]),
    "all-devices-some-allocated-prioritized-list": Case(
        [PRIORITIZED_ALL], [A, B], [TWO_DEVICES, one_device(SLICE2, NODE1, POOL2, DRIVER_B)], N1,
        allocated=[(DRIVER_A, POOL1, DEVICE1)], prioritized_list=True,
        expect=[alloc(local(NODE1), result("req-0/subReq-1", DRIVER_B, POOL2, DEVICE1))]),
    "network-attached-device": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [A], [one_device(SLICE1, label_selector("region", REGION1), POOL1, DRIVER_A)],
        N1, expect=[alloc(label_selector("region", REGION1), result(REQ0, DRIVER_A, POOL1, DEVICE1))]),
    "unsuccessful-allocation-network-attached-device": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [A], [one_device(SLICE1, label_selector("region", REGION1), POOL1, DRIVER_A)],
        node(NODE2, REGION2)),
    "many-network-attached-devices": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 4))], [A],
        [one_device(SLICE1, label_selector("region", REGION1), POOL1, DRIVER_A), one_device(SLICE1, ALL_NODES, POOL2, DRIVER_A),
         one_device(SLICE1, label_selector("planet", "earth"), POOL3, DRIVER_A), one_device(SLICE1, local(NODE1), POOL4, DRIVER_A)],
        N1, expect=[alloc({"nodeSelectorTerms": [{
            "matchExpressions": [{"key": "region", "operator": "In", "values": [REGION1]},
                                 {"key": "planet", "operator": "In", "values": ["earth"]}],
            "matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE1]}]}]},
            *(result(REQ0, DRIVER_A, p, DEVICE1) for p in (POOL1, POOL2, POOL3, POOL4)))]),
    "local-and-network-attached-devices": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2))], [A],
        [one_device(SLICE1, label_selector("region", REGION1), POOL1, DRIVER_A), one_device(SLICE1, NODE1, POOL2, DRIVER_A)],
        N1, expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1), result(REQ0, DRIVER_A, POOL2, DEVICE1))]),
    "several-different-drivers": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM0, request(REQ0, CLASS_B))], [A, B],
        [TWO_DEVICES, one_device(SLICE1, NODE1, POOL1, DRIVER_B)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1)),
                alloc(local(NODE1), result(REQ0, DRIVER_B, POOL1, DEVICE1))]),
    "already-allocated-devices": Case([claim(CLAIM0, request(REQ0, CLASS_A))], [A], [one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
                                      N1, allocated=[(DRIVER_A, POOL1, DEVICE1), (DRIVER_A, POOL1, DEVICE2)]),
    "admin-access-disabled": Case([claim(CLAIM0, request(REQ0, CLASS_A, admin=True))], [A],
                                  [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                                  error="claim claim-0, request req-0: admin access is requested, but the feature is disabled"),
    "admin-access-enabled": Case([claim(CLAIM0, request(REQ0, CLASS_A, admin=True))], [A],
                                 [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                                 allocated=[(DRIVER_A, POOL1, DEVICE1), (DRIVER_A, POOL1, DEVICE2)], admin_access=True,
                                 expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1, True))]),
    "with-constraint": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A),
               constraints=[{"matchAttribute": a} for a in (INT_ATTR, VERSION_ATTR, STRING_ATTR, BOOL_ATTR)])], [A],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, *(device(d, driverVersion="1.0.0", numa=1, stringAttribute="stringAttributeValue",
                                                          boolAttribute=True) for d in (DEVICE1, DEVICE2)))], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1), result(REQ1, DRIVER_A, POOL1, DEVICE2))]),
    "with-constraint-non-existent-attribute": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A), constraints=[{"matchAttribute": MISSING_ATTR}])], [A],
        [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1),
    "with-constraint-not-matching-int-attribute": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": INT_ATTR}])], [A, B],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, numa=1), device(DEVICE2, numa=2))], N1),
    "with-constraint-not-matching-int-attribute-all-devices": Case(
        [claim(CLAIM0, ALL_A, constraints=[{"matchAttribute": INT_ATTR}])], [A, B],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, numa=1), device(DEVICE2, numa=2))], N1,
        error="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint "
              "would not be satisfied"),
    "with-constraint-not-matching-string-attribute": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": STRING_ATTR}])], [A, B],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, stringAttribute="stringAttributeValue"),
                 device(DEVICE2, stringAttribute="stringAttributeValue2"))], N1),
    "with-constraint-not-matching-bool-attribute": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": BOOL_ATTR}])], [A, B],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, boolAttribute=True), device(DEVICE2, boolAttribute=False))], N1),
    "with-constraint-not-matching-version-attribute": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": VERSION_ATTR}])], [A, B],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, driverVersion="1.0.0"),
                 device(DEVICE2, driverVersion="2.0.0"))], N1),
    "with-constraint-for-request": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A),
               constraints=[{"requests": [REQ0], "matchAttribute": VERSION_ATTR}])], [A, B],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, driverVersion="1.0.0"),
                 device(DEVICE2, driverVersion="2.0.0"))], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1), result(REQ1, DRIVER_A, POOL1, DEVICE2))]),
    "with-constraint-for-request-retry": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A),
               constraints=[{"requests": [REQ0], "matchAttribute": VERSION_ATTR}, {"matchAttribute": STRING_ATTR}])], [A, B],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, driverVersion="1.0.0", stringAttribute="a"),
                 device(DEVICE2, driverVersion="2.0.0", stringAttribute="b"),
                 device(DEVICE3, driverVersion="3.0.0", stringAttribute="b"))], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE2), result(REQ1, DRIVER_A, POOL1, DEVICE3))]),
    "with-class-device-config": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [klass(CLASS_A, DRIVER_A, "classAttribute")],
        [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1),
                      config=[{"source": "FromClass", "opaque": device_config(DRIVER_A, "classAttribute")}])]),
    "with-class-device-config-with-multiple-request-and-configs": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A), request(REQ2, CLASS_B))],
        [klass(CLASS_A, DRIVER_A, "classAttribute-A"), klass(CLASS_B, DRIVER_B, "classAttribute-B")],
        [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE0), device(DEVICE1)), one_device(SLICE2, NODE1, POOL1, DRIVER_B)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE0), result(REQ1, DRIVER_A, POOL1, DEVICE1),
                      result(REQ2, DRIVER_B, POOL1, DEVICE1),
                      config=[{"source": "FromClass", "opaque": device_config(DRIVER_A, "classAttribute-A")},
                              {"source": "FromClass", "opaque": device_config(DRIVER_A, "classAttribute-A")},
                              {"source": "FromClass", "opaque": device_config(DRIVER_B, "classAttribute-B")}])]),
    "claim-with-device-config": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A), config=[{"opaque": device_config(DRIVER_A, "deviceAttribute")}])], [A],
        [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
        expect=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEVICE1),
                      config=[{"source": "FromClaim", "opaque": device_config(DRIVER_A, "deviceAttribute")}])]),
    "unknown-selector": Case([claim(CLAIM0, {"name": REQ0, "exactly": {"deviceClassName": CLASS_A, "allocationMode": "ExactCount",
                                                                        "count": 1, "selectors": [{}]}})], [A],
                             [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                             error="CEL expression empty (unsupported selector type?)"),
    "unknown-allocation-mode": Case([claim(CLAIM0, {"name": REQ0, "exactly": {"deviceClassName": CLASS_A,
                                                                               "allocationMode": "future-mode"}})], [A],
                                    [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                                    error="unsupported count mode future-mode"),
    "unknown-constraint": Case([claim(CLAIM0, request(REQ0, CLASS_A), constraints=[{}])], [A],
                               [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1,
                               error="empty constraint (unsupported constraint type?)"),
    "invalid-CEL-one-device": Case([claim(CLAIM0, request(REQ0, CLASS_A, 1, "noSuchVar"))], [A],
                                   [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1, error="undeclared reference"),
    "invalid-CEL-one-device-class": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A))],
        [{"metadata": {"name": CLASS_A}, "spec": {"selectors": [{"cel": {"expression": "noSuchVar"}}]}}],
        [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1, error="undeclared reference"),
    "invalid-CEL-all-devices": Case([claim(CLAIM0, request(REQ0, CLASS_A, 1, "noSuchVar", mode="All"))], [A],
                                    [one_device(SLICE1, NODE1, POOL1, DRIVER_A)], N1, error="undeclared reference"),
    "too-many-devices-single-request": Case([claim(CLAIM0, request(REQ0, CLASS_A, 500))], [A], error="exceeds the claim limit"),
    "many-devices-okay": Case([claim(CLAIM0, request(REQ0, CLASS_A, MAX_RESULTS))], [A]),
    "too-many-devices-total": Case([claim(CLAIM0, request(REQ0, CLASS_A, MAX_RESULTS), request(REQ1, CLASS_A))], [A],
                                   [a_slice(SLICE1, NODE1, POOL1, DRIVER_A, *(device(f"device-{i}") for i in range(MAX_RESULTS + 1)))],
                                   N1, error="exceeds the claim limit"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator(name: str) -> None:
    run_case(CASES[name])


def test_ported_case_count() -> None:
    """The closing note reports this count."""
    assert len(CASES) == 63
