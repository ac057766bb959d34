"""DynamicResources: cases ported from upstream's dynamicresources_test.go (TestPlugin) and
structured/internal/allocatortesting (TestAllocator), run through the real Scheduler with an
in-memory API for claims, slices and classes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from kubesim_scheduler.framework.status import Code
from kubesim_scheduler.plugins.dynamicresources import (
    AllocationError,
    Allocator,
    CelError,
    compile_selector,
    device_matches,
)
from kubesim_scheduler.scheduler import Scheduler

from dra_builders import (
    DRIVER,
    FakeApi,
    allocation_on,
    claim,
    device,
    device_class,
    dra_reasons,
    in_use,
    node,
    pod,
    request,
    resource_slice,
    schedule,
)

GOOD_SLICES = (resource_slice("worker", device("instance-1"), device("instance-2")),)
WORKERS = (node("worker"), node("worker-2"))


# --------------------------------------------------------------------------- TestPlugin


def test_empty_pod_without_claims_is_skipped() -> None:
    """"empty": the plugin has nothing to do (PreFilter Skip), the pod binds."""
    p = pod()
    p["spec"].pop("resourceClaims")
    p["spec"]["containers"][0]["resources"] = {}
    s, (a,) = schedule(FakeApi(), WORKERS, p)
    assert a.node is not None and dra_reasons(a) == {}


def test_missing_claim_waits_in_pre_enqueue() -> None:
    """"missing-claim": PreEnqueue rejects with the API's not-found message."""
    s, attempts = schedule(FakeApi(device_class()), WORKERS, pod())
    assert attempts == []
    plugin = s.frameworks["default-scheduler"].plugins["DynamicResources"]
    st = plugin.pre_enqueue(pod())  # type: ignore[attr-defined]
    assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert st.message() == 'resourceclaim.resource.k8s.io "my-claim" not found'


def test_waiting_for_template_claim() -> None:
    """"waiting-for-template": ResourceClaim not created yet."""
    s, _ = schedule(FakeApi(device_class()), WORKERS, pod(template="tmpl"))
    st = s.frameworks["default-scheduler"].plugins["DynamicResources"].pre_enqueue(pod(template="tmpl"))  # type: ignore[attr-defined]
    assert st.message() == 'pod "default/my-pod": ResourceClaim not created yet'


def test_deleted_claim() -> None:
    """"deleted-claim": a claim being deleted blocks the pod."""
    s, _ = schedule(FakeApi(device_class(), claim(deleting=True)), WORKERS, pod())
    st = s.frameworks["default-scheduler"].plugins["DynamicResources"].pre_enqueue(pod())  # type: ignore[attr-defined]
    assert st.message() == 'resourceclaim "my-claim" is being deleted'


def test_generated_claim_not_owned_by_pod() -> None:
    """"claim-template" with a claim the pod does not control."""
    api = FakeApi(device_class(), claim("my-pod-my-pod-claim"))
    p = pod(template="tmpl", generated="my-pod-my-pod-claim")
    s, _ = schedule(api, WORKERS, p)
    st = s.frameworks["default-scheduler"].plugins["DynamicResources"].pre_enqueue(p)  # type: ignore[attr-defined]
    assert st.message() == "ResourceClaim default/my-pod-my-pod-claim was not created for pod default/my-pod (pod is not owner)"


def test_missing_device_class() -> None:
    """"missing class": PreFilter is unschedulable until the class exists."""
    _, (a,) = schedule(FakeApi(claim(), *GOOD_SLICES), WORKERS, pod())
    assert a.node is None
    assert "request req-1: device class class does not exist" in a.message()


def test_structured_no_resources() -> None:
    """"structured-no-resources": no slices, every node rejected."""
    _, (a,) = schedule(FakeApi(device_class(), claim()), WORKERS, pod())
    assert a.node is None
    assert dra_reasons(a) == {"worker": "cannot allocate all claims", "worker-2": "cannot allocate all claims"}
    assert "no new claims to deallocate" not in a.message()  # the pod has a claim: still not schedulable
    assert "still not schedulable" in a.message()


def test_structured_with_resources_allocates_and_reserves() -> None:
    """"structured-with-resources": allocated on the node with devices, reserved, finalizer added."""
    api = FakeApi(device_class(), claim(), *GOOD_SLICES)
    p = pod()
    _, (a,) = schedule(api, WORKERS, p)
    assert a.node == "worker"
    assert dra_reasons(a) == {"worker-2": "cannot allocate all claims"}
    c = api.claim("my-claim")
    assert c["status"]["allocation"] == allocation_on("worker", "instance-1")
    assert c["status"]["reservedFor"] == [in_use(p)]
    assert c["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]


def test_allocated_claim_is_shared_on_its_node() -> None:
    """"claim-reference" with an allocation: a second pod joins reservedFor on the claim's node."""
    first = pod("first")
    api = FakeApi(device_class(), claim(allocation=allocation_on("worker-2", "instance-1"), reserved_for=[in_use(first)]))
    second = pod("second")
    _, (a,) = schedule(api, WORKERS, second)
    assert a.node == "worker-2"
    assert dra_reasons(a) == {"worker": "resourceclaim not available on the node"}
    assert api.claim("my-claim")["status"]["reservedFor"] == [in_use(first), in_use(second)]


def test_wrong_topology_deallocates_unused_claim_in_post_filter() -> None:
    """"wrong-topology": the allocated node is gone; PostFilter deallocates the unused claim."""
    api = FakeApi(device_class(), claim(allocation=allocation_on("gone", "instance-1")))
    _, (a, *_rest) = schedule(api, WORKERS, pod())
    assert a.node is None
    assert dra_reasons(a) == {"worker": "resourceclaim not available on the node",
                              "worker-2": "resourceclaim not available on the node"}
    assert "deallocation of ResourceClaim completed" in a.message()
    assert "allocation" not in api.claim("my-claim")["status"]


def test_devices_in_use_are_not_allocated_twice() -> None:
    """Two claims, two devices, three pods: the third pod does not fit."""
    api = FakeApi(device_class(), *GOOD_SLICES, *(claim(f"c{i}") for i in range(3)))
    s = Scheduler(lister=api.list, writer=api, seed=0)
    for n in WORKERS:
        s.add_node(n)
    for i in range(3):
        s.add_pod(pod(f"p{i}", claim_name=f"c{i}"))
    attempts = s.run(max_attempts=6)
    bound = sorted(a.pod["metadata"]["name"] for a in attempts if a.node)
    assert bound == ["p0", "p1"]
    devices = sorted(api.claim(f"c{i}")["status"]["allocation"]["devices"]["results"][0]["device"] for i in range(2))
    assert devices == ["instance-1", "instance-2"]


def test_cel_runtime_error_is_an_error_status() -> None:
    """"CEL-runtime-error": a selector that fails at run time aborts the attempt with an Error."""
    api = FakeApi(device_class("class", 'device.attributes["%s"].nope == "x"' % DRIVER), claim(), *GOOD_SLICES)
    _, (a,) = schedule(api, WORKERS, pod())
    assert a.node is None and a.status.code == Code.ERROR
    assert "class class: selector #0: CEL runtime error: no such key: nope" in a.message()


def test_cel_compile_error_names_the_claim() -> None:
    api = FakeApi(device_class(), claim("my-claim", request(selectors=["device.driver =="])), *GOOD_SLICES)
    _, (a,) = schedule(api, WORKERS, pod())
    assert a.status.code == Code.ERROR
    assert "claim default/my-claim: selector #0: CEL compile error: compilation failed" in a.message()


def test_feature_gate_off_ignores_claims() -> None:
    """DynamicResourceAllocation off: DynamicResources is not in the default profile
    (applyFeatureGates), so claims are not looked at."""
    api = FakeApi(device_class(), claim())
    s = Scheduler(lister=api.list, writer=api, seed=0, feature_gates={"DynamicResourceAllocation": False})
    assert "DynamicResources" not in s.frameworks["default-scheduler"].plugins
    for n in WORKERS:
        s.add_node(n)
    s.add_pod(pod())
    (a,) = s.run(max_attempts=2)
    assert a.node is not None and "allocation" not in api.claim("my-claim")["status"]
    assert "no new claims to deallocate" not in a.message()


def test_configuration_defaults_follow_the_gate() -> None:
    """load_settings: the default plugins have DynamicResources only with the gate on."""
    from kubesim_scheduler.plugins.registry import in_tree_registry
    from kubesim_scheduler.profiles import load_settings
    reg = in_tree_registry()
    on = load_settings(None, reg).profiles[0]
    off = load_settings(None, reg, {"DynamicResourceAllocation": False}).profiles[0]
    assert "DynamicResources" in on.plugins["preFilter"] and "DynamicResources" in on.plugin_args
    assert all("DynamicResources" not in names for names in off.plugins.values())
    assert "DynamicResources" not in off.plugin_args


# ------------------------------------------------------------------------- TestAllocator


def allocate(claims: list[dict[str, Any]], slices: Iterable[Mapping[str, Any]], classes: Iterable[Mapping[str, Any]] = (device_class(),),
             node_name: str = "worker", allocated: set[tuple[str, str, str]] | None = None, **kw: Any) -> list[dict[str, Any]] | None:
    by_name = {c["metadata"]["name"]: c for c in classes}
    return Allocator(by_name.get, list(slices), allocated or set(), **kw).allocate(node(node_name), claims)


def results(out: list[dict[str, Any]] | None) -> list[list[str]] | None:
    return None if out is None else [[r["device"] for r in a["devices"]["results"]] for a in out]


def test_allocator_exact_count_and_in_use() -> None:
    sl = [resource_slice("worker", device("d1"), device("d2"), device("d3"))]
    assert results(allocate([claim("c", request(count=2))], sl)) == [["d1", "d2"]]
    assert results(allocate([claim("c", request(count=2))], sl, allocated={(DRIVER, "worker", "d1")})) == [["d2", "d3"]]
    assert allocate([claim("c", request(count=4))], sl) is None


def test_allocator_all_mode_and_incomplete_pool() -> None:
    sl = [resource_slice("worker", device("d1"), device("d2"))]
    assert results(allocate([claim("c", request(mode="All"))], sl)) == [["d1", "d2"]]
    incomplete = [resource_slice("worker", device("d1"), count=2)]
    with pytest.raises(AllocationError, match="asks for all devices, but resource pool some-driver/worker is currently being updated"):
        allocate([claim("c", request(mode="All"))], incomplete)


def test_allocator_match_attribute_backtracks() -> None:
    """matchAttribute: the first device is dropped when its partner cannot match."""
    sl = [resource_slice("worker", device("a", model="x"), device("b", model="y"), device("c", model="y"))]
    cons = [{"requests": [], "matchAttribute": f"{DRIVER}/model"}]
    out = allocate([claim("c", request("r1"), request("r2"), constraints=cons)], sl)
    assert results(out) == [["b", "c"]]
    assert allocate([claim("c", request("r1", count=3), constraints=cons)], sl) is None


def test_allocator_selectors_of_class_and_request() -> None:
    sl = [resource_slice("worker", device("small", size=1), device("big", size=8))]
    cls = device_class("class", f'device.driver == "{DRIVER}"')
    out = allocate([claim("c", request(selectors=[f'device.attributes["{DRIVER}"].size > 4']))], sl, classes=[cls])
    assert results(out) == [["big"]]
    other = device_class("class", 'device.driver == "other"')
    assert allocate([claim("c", request())], sl, classes=[other]) is None


def test_allocator_admin_access_uses_devices_in_use() -> None:
    sl = [resource_slice("worker", device("d1"))]
    out = allocate([claim("c", request(admin=True))], sl, allocated={(DRIVER, "worker", "d1")})
    assert out is not None and out[0]["devices"]["results"][0] == {"request": "req-1", "driver": DRIVER, "pool": "worker", "device": "d1", "adminAccess": True}
    with pytest.raises(AllocationError, match="admin access is requested, but the feature is disabled"):
        allocate([claim("c", request(admin=True))], sl, admin_access=False)


def test_allocator_first_available_picks_first_subrequest_that_fits() -> None:
    sl = [resource_slice("worker", device("d1"), device("d2"))]
    req = {"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "class", "allocationMode": "ExactCount", "count": 3},
        {"name": "small", "deviceClassName": "class", "allocationMode": "ExactCount", "count": 2}]}
    out = allocate([claim("c", req)], sl)
    assert out is not None and [r["request"] for r in out[0]["devices"]["results"]] == ["gpu/small", "gpu/small"]


def test_allocator_pools_other_nodes_and_generations() -> None:
    """Slices of other nodes are ignored; an old generation of a pool is replaced by the newer one."""
    sl = [resource_slice("other", device("x")), resource_slice("worker", device("old"), generation=1, name="a"),
          resource_slice("worker", device("new"), generation=2, name="b")]
    assert results(allocate([claim("c", request())], sl)) == [["new"]]


def test_allocator_device_taints_need_tolerations_when_the_gate_is_on() -> None:
    """DRADeviceTaints: a tainted device is skipped unless the request tolerates the taint."""
    taint = {"key": "maintenance", "value": "yes", "effect": "NoSchedule"}
    sl = [resource_slice("worker", {**device("d1"), "taints": [taint]}, device("d2"))]
    assert results(allocate([claim("c", request())], sl, device_taints=True)) == [["d2"]]
    assert results(allocate([claim("c", request())], sl)) == [["d1"]]  # gate off: taints ignored
    tolerant = request()
    tolerant["exactly"]["tolerations"] = [{"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}]
    assert results(allocate([claim("c", tolerant)], sl, device_taints=True)) == [["d1"]]
    tolerant["exactly"]["tolerations"] = [{"key": "maintenance", "operator": "Equal", "value": "no"}]
    assert results(allocate([claim("c", tolerant, request("r2"))], sl, device_taints=True)) is None


def test_allocator_per_device_node_selection_needs_partitionable_devices() -> None:
    """GatherPools skips perDeviceNodeSelection slices while DRAPartitionableDevices is off."""
    sl = resource_slice("worker", {**device("d1"), "nodeName": "worker"})
    del sl["spec"]["nodeName"]
    sl["spec"]["perDeviceNodeSelection"] = True
    assert allocate([claim("c", request())], [sl]) is None
    out = allocate([claim("c", request())], [sl], partitionable_devices=True)
    assert results(out) == [["d1"]] and out is not None
    assert out[0]["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["worker"]


def test_allocator_step_budget() -> None:
    from kubesim_scheduler.plugins.dynamicresources import AllocationTimeout
    """Upstream bounds Filter with a timeout; here the search's steps are bounded."""
    sl = [resource_slice("worker", *(device(f"d{i}", model=f"m{i % 2}") for i in range(12)))]
    cons = [{"requests": [], "matchAttribute": f"{DRIVER}/model"}]
    assert results(allocate([claim("c", request(count=6), constraints=cons)], sl)) == [[f"d{i}" for i in range(0, 12, 2)]]
    with pytest.raises(AllocationTimeout):
        allocate([claim("c", request(count=6), constraints=cons)], sl, max_steps=5)


# ------------------------------------------------------------------------------ CEL


@pytest.mark.parametrize(("expr", "want"), [
    ('device.driver == "some-driver"', True),
    ('device.attributes["some-driver"].model == "a100"', True),
    ('device.attributes["some-driver"].index >= 2', False),
    ('device.capacity["some-driver"].memory.compareTo(quantity("16Gi")) == 0', True),
    ('device.capacity["some-driver"].memory.isGreaterThan(quantity("8Gi"))', True),
    ('"other.example.com" in device.attributes', False),
    ('device.attributes["some-driver"].version.isGreaterThan(semver("1.2.0"))', True),
])
def test_cel_environment(expr: str, want: bool) -> None:
    dev = {"name": "d", "attributes": {"model": {"string": "a100"}, "index": {"int": 1}, "version": {"version": "1.10.0"}},
           "capacity": {"memory": {"value": "16Gi"}}}
    assert device_matches(expr, DRIVER, dev) is want


def test_cel_errors_are_clear() -> None:
    with pytest.raises(CelError, match="compilation failed"):
        compile_selector("device.driver ==")
    with pytest.raises(CelError, match="longer than 10240 bytes"):
        compile_selector("true && " * 2000 + "true")
    with pytest.raises(CelError, match="nested deeper"):
        compile_selector("(" * 100 + "true" + ")" * 100)
    with pytest.raises(CelError, match="could not be converted to bool"):
        device_matches("1 + 1", DRIVER, {"name": "d"})


def test_capacity_what_if_allocates_devices_in_memory() -> None:
    """kubesim capacity's scheduler: claims are written to its own objects, so devices run out."""
    from kubesim_scheduler.plugins.registry import in_tree_registry
    from kubesim_scheduler.whatif import WhatIfScheduler
    objects = [node("worker"), device_class(), resource_slice("worker", device("d1")), claim("c1"), claim("c2")]
    sim = WhatIfScheduler(objects, {}, in_tree_registry(), [], 0)
    assert sim.schedule(pod("p1", claim_name="c1")).node == "worker"
    failed = sim.schedule(pod("p2", claim_name="c2"))
    assert failed.node is None
    assert failed.message.startswith("0/1 nodes are available: 1 cannot allocate all claims.")
