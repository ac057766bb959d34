"""The structured-parameters allocator: which devices of which ResourceSlices a node's claims get.

A port of k8s.io/dynamic-resource-allocation/structured (the "incubating" allocator that
v1.34 uses with its default gates): pools gathered from the slices that reach the node
(nodeName, nodeSelector, allNodes, perDeviceNodeSelection), complete and valid pools only
for "All" requests, then an
exhaustive depth-first search claim by claim, request by request, device by device, that
takes the first full solution. Requests are ExactCount or All, exactly or with
firstAvailable subrequests (DRAPrioritizedList, beta and on in v1.34); devices must match
the class's and the request's CEL selectors; matchAttribute constraints; adminAccess
requests may use devices already in use. Partitionable devices, binding conditions and
consumable capacity (alpha in v1.34, off by default) are not modelled: such devices are
skipped, as upstream does with those gates off. Device taints count only with DRADeviceTaints
(alpha, off): then a tainted device needs a matching toleration in the request.

Determinism: upstream iterates pools in Go map order (random); here pools are sorted by
(driver, pool name), slices keep the lister's order, devices their order in the slice.
The search is bounded (`max_steps`), like upstream's filter timeout (DRASchedulerFilterTimeout).
"""

# upstream: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/
# allocator_incubating.go (chosen by NewAllocator for v1.34's default gates: DRAAdminAccess and
# DRAPrioritizedList are beta and on; its logic is the stable allocator's plus the max-size
# handling of firstAvailable) and stable/allocator_stable.go (Allocate, validateDeviceRequest,
# allocateOne, isSelectable, selectorsMatch, allocateDevice, createNodeSelector,
# matchAttributeConstraint), pools_stable.go (GatherPools, addSlice, poolIsInvalid)

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..nodeaffinity import NodeSelector
from .cel import CelError, compile_selector, device_activation

__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "AllocationError",
    "AllocationTimeout",
    "Allocator",
    "DeviceID",
    "Pool",
    "gather_pools",
]

ALLOCATION_RESULTS_MAX_SIZE = 32
DEFAULT_MAX_STEPS = 200_000

Obj = Mapping[str, Any]
DeviceID = tuple[str, str, str]  # (driver, pool, device)


class AllocationError(ValueError):
    """Something is wrong with a claim or class (upstream returns an error status: scheduling aborts)."""


class _MaxSizeExceeded(Exception):
    """errAllocationResultMaxSizeExceeded: this branch of the search needs more than 32 results."""


class AllocationTimeout(RuntimeError):
    """The search took more steps than allowed (upstream: the Filter timeout)."""


@attrs.define
class Pool:
    """The slices of one (driver, pool) that reach the node, at the newest generation."""

    driver: str
    name: str
    slices: list[Obj]
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"


def _node_matches(node: Obj | None, node_name: str, all_nodes: bool, selector: Obj | None) -> bool:
    if node_name:
        return node is not None and (node.get("metadata") or {}).get("name") == node_name
    if all_nodes:
        return True
    if selector is not None:
        return node is not None and NodeSelector(selector).match_node(node)
    return False


def gather_pools(slices: Sequence[Obj], node: Obj | None, *, partitionable_devices: bool = False) -> list[Pool]:
    """GatherPools: pools with devices reachable from `node`, sorted by (driver, pool); slices
    with perDeviceNodeSelection need DRAPartitionableDevices (alpha, off)."""
    pools: dict[tuple[str, str], Pool] = {}
    for s in slices:
        spec = s.get("spec") or {}
        if not partitionable_devices and spec.get("perDeviceNodeSelection") is not None:
            continue
        if spec.get("nodeName") or spec.get("allNodes") or spec.get("nodeSelector") is not None:
            match = _node_matches(node, str(spec.get("nodeName") or ""), bool(spec.get("allNodes")), spec.get("nodeSelector"))
        elif spec.get("perDeviceNodeSelection"):
            match = any(_node_matches(node, str(d.get("nodeName") or ""), bool(d.get("allNodes")), d.get("nodeSelector"))
                        for d in spec.get("devices") or ())
        else:
            continue
        if match:
            _add_slice(pools, s)
    out = []
    for key in sorted(pools):
        pool = pools[key]
        first = pool.slices[0].get("spec", {}).get("pool") or {}
        pool.incomplete = len(pool.slices) != int(first.get("resourceSliceCount") or 0)
        seen: set[str] = set()
        for sl in pool.slices:
            for d in (sl.get("spec") or {}).get("devices") or ():
                if d.get("name") in seen and not pool.invalid:
                    pool.invalid, pool.invalid_reason = True, f"duplicate device name {d.get('name')}"
                seen.add(d.get("name"))
        out.append(pool)
    return out


def _add_slice(pools: dict[tuple[str, str], Pool], s: Obj) -> None:
    spec = s.get("spec") or {}
    pool_spec = spec.get("pool") or {}
    key = (str(spec.get("driver") or ""), str(pool_spec.get("name") or ""))
    gen = int(pool_spec.get("generation") or 0)
    pool = pools.get(key)
    if pool is None:
        pools[key] = Pool(key[0], key[1], [s])
        return
    current = int(((pool.slices[0].get("spec") or {}).get("pool") or {}).get("generation") or 0)
    if gen < current:
        return
    if gen > current:
        pool.slices = []
    pool.slices.append(s)


@attrs.define
class _Request:
    """requestData: one request or subrequest, with its class and how many devices it needs."""

    name: str
    spec: Obj
    class_: Obj
    parent: str = ""  # the request's name when this is a subrequest
    num_devices: int = 0
    all_devices: list[tuple[DeviceID, Obj, Obj]] = attrs.field(factory=list)

    @property
    def admin_access(self) -> bool:
        return bool(self.spec.get("adminAccess"))

    @property
    def mode(self) -> str:
        return str(self.spec.get("allocationMode") or "ExactCount")


class _MatchAttribute:
    """matchAttributeConstraint: every device of the named requests has the same attribute value."""

    def __init__(self, requests: Sequence[str], attribute: str) -> None:
        self.requests = set(requests)
        self.attribute = attribute
        self.value: tuple[str, Any] | None = None
        self.count = 0

    def _applies(self, request: str, sub: str) -> bool:
        if not self.requests:
            return True
        return request in self.requests or (bool(sub) and f"{request}/{sub}" in self.requests)

    def add(self, request: str, sub: str, device: Obj, device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        value = _lookup_attribute(device, device_id, self.attribute)
        if value is None:
            return False
        if self.count == 0:
            self.value = value
            self.count = 1
            return True
        if self.value != value:
            return False
        self.count += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.count -= 1


def _tolerated(taint: Obj, tolerations: Sequence[Obj]) -> bool:
    """taintTolerated / resourceclaim.ToleratesTaint: some toleration of the request matches."""
    for t in tolerations:
        if t.get("effect") and t.get("effect") != taint.get("effect"):
            continue
        if t.get("key") and t.get("key") != taint.get("key"):
            continue
        op = t.get("operator") or "Equal"
        if op == "Exists" or (op == "Equal" and (t.get("value") or "") == (taint.get("value") or "")):
            return True
    return False


def _lookup_attribute(device: Obj, device_id: DeviceID, name: str) -> tuple[str, Any] | None:
    attrs_ = device.get("attributes") or {}
    value = attrs_.get(name)
    if value is None:
        domain, sep, ident = name.partition("/")
        if not sep or domain != device_id[0]:
            return None
        value = attrs_.get(ident)
    if not value:
        return None
    for kind in ("string", "int", "bool", "version"):
        if kind in value:
            return kind, value[kind]
    return None


class Allocator:
    """One scheduling cycle's allocator: classes, slices and the devices already in use.

    `allocate(node, claims)` returns one allocation result per claim (the claim's
    status.allocation) or None when the node cannot satisfy them; AllocationError when a
    claim or class is broken, AllocationTimeout when the search exceeded `max_steps`.
    """

    def __init__(
        self,
        classes: Callable[[str], Obj | None],
        slices: Sequence[Obj],
        allocated: set[DeviceID],
        *,
        admin_access: bool = True,
        prioritized_list: bool = True,
        device_taints: bool = False,
        partitionable_devices: bool = False,
        max_steps: int = DEFAULT_MAX_STEPS,
    ) -> None:
        self._classes = classes
        self._slices = list(slices)
        self._allocated = allocated
        self.admin_access = admin_access
        self.prioritized_list = prioritized_list
        self.device_taints = device_taints
        self.partitionable_devices = partitionable_devices
        self.max_steps = max_steps

    def allocate(self, node: Obj | None, claims: Sequence[Obj]) -> list[dict[str, Any]] | None:
        return _Run(self, node, claims).run()


class _Run:
    """The state of one Allocate call (upstream's `allocator`)."""

    def __init__(self, a: Allocator, node: Obj | None, claims: Sequence[Obj]) -> None:
        self.a = a
        self.node = node
        self.claims = list(claims)
        self.pools: list[Pool] = []
        self.requests: dict[tuple[int, int, int], _Request] = {}
        self.selected_sub: dict[tuple[int, int], int] = {}
        self.constraints: list[list[_MatchAttribute]] = []
        self.allocating: dict[DeviceID, set[int]] = {}
        self.results: list[list[tuple[_Request, DeviceID, Obj, Obj]]] = [[] for _ in self.claims]
        self.matches: dict[tuple[DeviceID, tuple[int, int, int]], bool] = {}
        self.steps = 0

    def _claim_name(self, i: int) -> str:
        """klog.KObj: namespace/name, or the name alone for an object without a namespace."""
        meta = self.claims[i].get("metadata") or {}
        ns = meta.get("namespace") or ""
        return f"{ns}/{meta.get('name', '')}" if ns else str(meta.get("name", ""))

    def run(self) -> list[dict[str, Any]] | None:
        self.pools = gather_pools(self.a._slices, self.node, partitionable_devices=self.a.partitionable_devices)
        for ci, claim in enumerate(self.claims):
            devices = (claim.get("spec") or {}).get("devices") or {}
            min_devices = 0
            for ri, request in enumerate(devices.get("requests") or ()):
                subs = request.get("firstAvailable") or ()
                if subs:
                    if not self.a.prioritized_list:
                        raise AllocationError(f"claim {self._claim_name(ci)}, request {request.get('name')}: has subrequests, but the DRAPrioritizedList feature is disabled")
                    least = None
                    for si, sub in enumerate(subs):
                        rd = self._validate(ci, (ci, ri, si), sub, str(sub.get("name") or ""), parent=str(request.get("name") or ""))
                        self.requests[(ci, ri, si)] = rd
                        least = rd.num_devices if least is None else min(least, rd.num_devices)
                    min_devices += least or 0
                else:
                    rd = self._validate(ci, (ci, ri, 0), request.get("exactly") or {}, str(request.get("name") or ""))
                    self.requests[(ci, ri, 0)] = rd
                    min_devices += rd.num_devices
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(f"claim {self._claim_name(ci)}: number of requested devices {min_devices} exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}")
            cons = []
            for k, c in enumerate(devices.get("constraints") or ()):
                if not c.get("matchAttribute"):
                    raise AllocationError(f"claim {self._claim_name(ci)}, constraint #{k}: empty constraint (unsupported constraint type?)")
                cons.append(_MatchAttribute(c.get("requests") or (), str(c["matchAttribute"])))
            self.constraints.append(cons)
        try:
            done = self._allocate_one(0, 0, 0, 0, False)
        except _MaxSizeExceeded:
            raise AllocationError("allocation max size exceeded") from None
        if not done:
            return None
        return [self._result(ci) for ci in range(len(self.claims))]

    # --- validateDeviceRequest
    def _validate(self, ci: int, key: tuple[int, int, int], spec: Obj, name: str, parent: str = "") -> _Request:
        label = name if not parent else f"{parent}/{name}"
        for i, sel in enumerate(spec.get("selectors") or ()):
            if not (sel.get("cel") or {}).get("expression"):
                raise AllocationError(f"claim {self._claim_name(ci)}, request {label}, selector #{i}: CEL expression empty (unsupported selector type?)")
        if spec.get("adminAccess") and not self.a.admin_access:
            raise AllocationError(f"claim {self._claim_name(ci)}, request {label}: admin access is requested, but the feature is disabled")
        class_name = spec.get("deviceClassName")
        if not class_name:
            raise AllocationError(f"claim {self._claim_name(ci)}, request {label}: missing device class name (unsupported request type?)")
        cls = self.a._classes(str(class_name))
        if cls is None:
            raise AllocationError(f'claim {self._claim_name(ci)}, request {label}: could not retrieve device class {class_name}: deviceclass.resource.k8s.io "{class_name}" not found')
        rd = _Request(name, spec, cls, parent)
        mode = rd.mode
        if mode == "ExactCount":
            rd.num_devices = int(spec.get("count") or 1)
        elif mode == "All":
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocationError(f"claim {self._claim_name(ci)}, request {label}: asks for all devices, but resource pool {pool.pool_id} is currently being updated")
                if pool.invalid:
                    raise AllocationError(f"claim {self._claim_name(ci)}, request {label}: asks for all devices, but resource pool {pool.pool_id} is currently invalid")
                for sl in pool.slices:
                    for device in (sl.get("spec") or {}).get("devices") or ():
                        did = (pool.driver, pool.name, str(device.get("name")))
                        if self._selectable(key, rd, sl, device, did):
                            rd.all_devices.append((did, device, sl))
            rd.num_devices = len(rd.all_devices)
        else:
            raise AllocationError(f"claim {self._claim_name(ci)}, request {label}: unsupported count mode {mode}")
        return rd

    # --- allocateOne
    def _allocate_one(self, ci: int, ri: int, si: int, di: int, in_sub: bool) -> bool:
        """allocateOne (the incubating allocator v1.34 uses with its default gates): _MaxSizeExceeded
        tells a firstAvailable alternative that it cannot fit 32 results, so the next one is tried."""
        self.steps += 1
        if self.steps > self.a.max_steps:
            raise AllocationTimeout("timed out trying to allocate devices")
        if ci >= len(self.claims):
            return True
        requests = ((self.claims[ci].get("spec") or {}).get("devices") or {}).get("requests") or ()
        if ri >= len(requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                return False
        rd = self.requests[(ci, ri, si)]
        if not in_sub and rd.parent:
            sub = 0
            all_exceeded = True
            while (ci, ri, sub) in self.requests:
                try:
                    ok = self._allocate_one(ci, ri, sub, 0, True)
                except _MaxSizeExceeded:
                    sub += 1
                    continue
                all_exceeded = False
                if ok:
                    self.selected_sub[(ci, ri)] = sub
                    return True
                sub += 1
            if all_exceeded:
                raise _MaxSizeExceeded()
            return False
        if rd.mode == "All" and not rd.all_devices:
            return False
        if di >= rd.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False)
        if len(self.results[ci]) + rd.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded()
        if rd.mode == "All":
            did, device, sl = rd.all_devices[di]
            undo = self._allocate_device(ci, rd, did, device, sl, must=True)
            if undo is None:
                return False
            try:
                done = self._allocate_one(ci, ri, si, di + 1, in_sub)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done
        for pool in self.pools:
            if pool.invalid:
                raise AllocationError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            for sl in pool.slices:
                for device in (sl.get("spec") or {}).get("devices") or ():
                    did = (pool.driver, pool.name, str(device.get("name")))
                    if rd.admin_access:
                        if ci in self.allocating.get(did, ()):
                            continue
                    elif did in self.a._allocated or self.allocating.get(did):
                        continue
                    if not self._selectable((ci, ri, si), rd, sl, device, did):
                        continue
                    undo = self._allocate_device(ci, rd, did, device, sl, must=False)
                    if undo is None:
                        continue
                    try:
                        done = self._allocate_one(ci, ri, si, di + 1, in_sub)
                    except BaseException:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    # --- isSelectable / selectorsMatch
    def _selectable(self, key: tuple[int, int, int], rd: _Request, sl: Obj, device: Obj, did: DeviceID) -> bool:
        if device.get("bindingConditions") or device.get("consumesCounters"):
            return False  # DRADeviceBindingConditions, DRAPartitionableDevices: alpha, off
        mk = (did, key)
        cached = self.matches.get(mk)
        if cached is not None:
            return cached
        ok = (self._selectors_match(key[0], did, device, rd.class_, (rd.class_.get("spec") or {}).get("selectors") or ())
              and self._selectors_match(key[0], did, device, None, rd.spec.get("selectors") or ()))
        if ok and (sl.get("spec") or {}).get("perDeviceNodeSelection"):
            ok = _node_matches(self.node, str(device.get("nodeName") or ""), bool(device.get("allNodes")), device.get("nodeSelector"))
        self.matches[mk] = ok
        return ok

    def _selectors_match(self, ci: int, did: DeviceID, device: Obj, cls: Obj | None, selectors: Sequence[Obj]) -> bool:
        owner = f"class {(cls.get('metadata') or {}).get('name', '')}" if cls is not None else f"claim {self._claim_name(ci)}"
        for i, sel in enumerate(selectors):
            expr = str((sel.get("cel") or {}).get("expression") or "")
            try:
                compiled = compile_selector(expr)
            except CelError as e:
                raise AllocationError(f"{owner}: selector #{i}: CEL compile error: {e}") from e
            try:
                if not compiled.matches(device_activation(did[0], device)):
                    return False
            except CelError as e:
                raise AllocationError(f"{owner}: selector #{i}: CEL runtime error: {e}") from e
        return True

    # --- allocateDevice
    def _allocate_device(self, ci: int, rd: _Request, did: DeviceID, device: Obj, sl: Obj, *, must: bool) -> Callable[[], None] | None:
        if rd.admin_access:
            if ci in self.allocating.get(did, ()):
                return None
        elif did in self.a._allocated or self.allocating.get(did):
            return None
        tolerations = rd.spec.get("tolerations") or ()
        if self.a.device_taints and not all(_tolerated(t, tolerations) for t in device.get("taints") or ()):
            return None
        base, sub = (rd.parent, rd.name) if rd.parent else (rd.name, "")
        cons = self.constraints[ci]
        for i, c in enumerate(cons):
            if not c.add(base, sub, device, did):
                if must:
                    raise AllocationError(f"claim {self._claim_name(ci)}, request {rd.name}: cannot add device {'/'.join(did)} because a claim constraint would not be satisfied")
                for e in range(i):
                    cons[e].remove(base, sub)
                return None
        self.allocating.setdefault(did, set()).add(ci)
        n = len(self.results[ci])
        self.results[ci].append((rd, did, device, sl))

        def undo() -> None:
            for c in cons:
                c.remove(base, sub)
            self.allocating[did].discard(ci)
            del self.results[ci][n:]

        return undo

    # --- the AllocationResult of one claim
    def _result(self, ci: int) -> dict[str, Any]:
        claim = self.claims[ci]
        devices = (claim.get("spec") or {}).get("devices") or {}
        results = []
        for rd, did, _device, _sl in self.results[ci]:
            r: dict[str, Any] = {"request": f"{rd.parent}/{rd.name}" if rd.parent else rd.name,
                                 "driver": did[0], "pool": did[1], "device": did[2]}
            if rd.admin_access:
                r["adminAccess"] = True
            results.append(r)
        config: list[dict[str, Any]] = []
        for ri, _request in enumerate(devices.get("requests") or ()):
            chosen = self.requests.get((ci, ri, self.selected_sub.get((ci, ri), 0)))
            if chosen is None:
                continue
            for cfg in (chosen.class_.get("spec") or {}).get("config") or ():
                config.append({"source": "FromClass", **{k: copy.deepcopy(v) for k, v in cfg.items() if k != "requests"}})
        requests = devices.get("requests") or ()
        for cfg in devices.get("config") or ():
            wanted = cfg.get("requests") or []
            body = {k: copy.deepcopy(v) for k, v in cfg.items()}
            if not wanted:
                config.append({"source": "FromClaim", **body})
                continue
            for ri, request in enumerate(requests):
                name = str(request.get("name") or "")
                if name in wanted:
                    config.append({"source": "FromClaim", **body})
                    continue
                chosen = self.requests.get((ci, ri, self.selected_sub.get((ci, ri), 0)))
                if chosen is not None and chosen.parent and f"{name}/{chosen.name}" in wanted:
                    config.append({"source": "FromClaim", **body})
        out: dict[str, Any] = {"devices": {"results": results}}
        if config:
            out["devices"]["config"] = config
        selector = self._node_selector(ci)
        if selector is not None:
            out["nodeSelector"] = selector
        return out

    def _node_selector(self, ci: int) -> dict[str, Any] | None:
        """createNodeSelector: the node when a device is local to one, else merged slice selectors."""
        fields: list[Obj] = []
        exprs: list[Obj] = []
        for _rd, _did, device, sl in self.results[ci]:
            spec = sl.get("spec") or {}
            src = device if spec.get("perDeviceNodeSelection") else spec
            if src.get("nodeName"):
                return {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [src["nodeName"]]}]}]}
            terms = (src.get("nodeSelector") or {}).get("nodeSelectorTerms") or []
            if len(terms) > 1:
                raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
            if terms:
                fields += [r for r in terms[0].get("matchFields") or () if r not in fields]
                exprs += [r for r in terms[0].get("matchExpressions") or () if r not in exprs]
        if not fields and not exprs:
            return None
        term: dict[str, Any] = {}
        if exprs:
            term["matchExpressions"] = [dict(r) for r in exprs]
        if fields:
            term["matchFields"] = [dict(r) for r in fields]
        return {"nodeSelectorTerms": [term]}
