"""NodeResourcesFit Filter, ported from upstream's fit_test.go tables (TestEnoughRequests,
TestNotEnoughRequests, TestStorageRequests, TestPreFilterDisabled).

Status codes follow v1.34: a request larger than the node's whole allocatable makes the
status UnschedulableAndUnresolvable.
"""

# upstream: pkg/scheduler/framework/plugins/noderesources/fit_test.go

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

from kubesim_scheduler.framework import Code, CycleState, PodInfo, Status
from kubesim_scheduler.plugins.noderesources.fit import fits_request

A = "example.com/aaa"
B = "example.com/bbb"
KA = "kubernetes.io/something"
KB = "subdomain.kubernetes.io/something"
HP = "hugepages-2Mi"
U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def alloc(cpu: int, mem: int, pods: int, ext_a: int, storage: int, hp: int) -> dict[str, str]:
    return {"cpu": f"{cpu}m", "memory": str(mem), "pods": str(pods), A: str(ext_a), "ephemeral-storage": str(storage), HP: str(hp)}


def r(cpu: int = 0, mem: int = 0, storage: int = 0, **scalars: int) -> dict[str, str]:
    out = {"cpu": f"{cpu}m", "memory": str(mem), "pods": "0", "ephemeral-storage": str(storage)}
    for k, v in scalars.items():
        out[{"A": A, "B": B, "KA": KA, "KB": KB, "HP": HP}[k]] = str(v)
    return out


def pod(*reqs: dict[str, str], init: tuple[dict[str, str], ...] = (), overhead: dict[str, str] | None = None) -> dict[str, Any]:
    return make_pod(reqs=list(reqs), init_reqs=list(init), overhead=overhead)


# (name, pod, existing usage, args, want status (code, reasons) or None, want insufficient [(name, reason, req, used, cap, unres)])
ENOUGH = [
    ("no resources requested always fits", make_pod(), r(10, 20), {}, None, []),
    ("too many resources fails", pod(r(1, 1)), r(10, 20), {}, (U, ["Insufficient cpu", "Insufficient memory"]),
     [("cpu", "Insufficient cpu", 1, 10, 10, False), ("memory", "Insufficient memory", 1, 20, 20, False)]),
    ("too many resources fails due to init container cpu", pod(r(1, 1), init=(r(3, 1),)), r(8, 19), {},
     (U, ["Insufficient cpu"]), [("cpu", "Insufficient cpu", 3, 8, 10, False)]),
    ("too many resources fails due to highest init container cpu", pod(r(1, 1), init=(r(3, 1), r(2, 1))), r(8, 19), {},
     (U, ["Insufficient cpu"]), [("cpu", "Insufficient cpu", 3, 8, 10, False)]),
    ("too many resources fails due to init container memory", pod(r(1, 1), init=(r(1, 3),)), r(9, 19), {},
     (U, ["Insufficient memory"]), [("memory", "Insufficient memory", 3, 19, 20, False)]),
    ("too many resources fails due to highest init container memory", pod(r(1, 1), init=(r(1, 3), r(1, 2))), r(9, 19), {},
     (U, ["Insufficient memory"]), [("memory", "Insufficient memory", 3, 19, 20, False)]),
    ("init container fits because it's the max, not sum, of containers and init containers", pod(r(1, 1), init=(r(1, 1),)), r(9, 19), {}, None, []),
    ("multiple init containers fit because it's the max, not sum, of containers and init containers",
     pod(r(1, 1), init=(r(1, 1), r(1, 1))), r(9, 19), {}, None, []),
    ("both resources fit", pod(r(1, 1)), r(5, 5), {}, None, []),
    ("one resource memory fits", pod(r(2, 1)), r(9, 5), {}, (U, ["Insufficient cpu"]), [("cpu", "Insufficient cpu", 2, 9, 10, False)]),
    ("one resource cpu fits", pod(r(1, 2)), r(5, 19), {}, (U, ["Insufficient memory"]), [("memory", "Insufficient memory", 2, 19, 20, False)]),
    ("equal edge case", pod(r(5, 1)), r(5, 19), {}, None, []),
    ("equal edge case for init container", pod(r(4, 1), init=(r(5, 1),)), r(5, 19), {}, None, []),
    ("extended resource fits", pod(r(A=1)), r(), {}, None, []),
    ("extended resource fits for init container", pod(r(), init=(r(A=1),)), r(), {}, None, []),
    ("extended resource capacity enforced", pod(r(1, 1, A=10)), r(0, 0, A=0), {}, (UU, [f"Insufficient {A}"]),
     [(A, f"Insufficient {A}", 10, 0, 5, True)]),
    ("extended resource capacity enforced for init container", pod(r(), init=(r(1, 1, A=10),)), r(0, 0, A=0), {},
     (UU, [f"Insufficient {A}"]), [(A, f"Insufficient {A}", 10, 0, 5, True)]),
    ("extended resource allocatable enforced", pod(r(1, 1, A=1)), r(0, 0, A=5), {}, (U, [f"Insufficient {A}"]),
     [(A, f"Insufficient {A}", 1, 5, 5, False)]),
    ("extended resource allocatable enforced for init container", pod(r(), init=(r(1, 1, A=1),)), r(0, 0, A=5), {},
     (U, [f"Insufficient {A}"]), [(A, f"Insufficient {A}", 1, 5, 5, False)]),
    ("extended resource allocatable enforced for multiple containers", pod(r(1, 1, A=3), r(1, 1, A=3)), r(0, 0, A=2), {},
     (UU, [f"Insufficient {A}"]), [(A, f"Insufficient {A}", 6, 2, 5, True)]),
    ("extended resource allocatable admits multiple init containers", pod(r(), init=(r(1, 1, A=3), r(1, 1, A=3))), r(0, 0, A=2), {}, None, []),
    ("extended resource allocatable enforced for multiple init containers", pod(r(), init=(r(1, 1, A=6), r(1, 1, A=3))), r(0, 0, A=2), {},
     (UU, [f"Insufficient {A}"]), [(A, f"Insufficient {A}", 6, 2, 5, True)]),
    ("extended resource allocatable enforced for unknown resource", pod(r(1, 1, B=1)), r(), {}, (UU, [f"Insufficient {B}"]),
     [(B, f"Insufficient {B}", 1, 0, 0, True)]),
    ("extended resource allocatable enforced for unknown resource for init container", pod(r(), init=(r(1, 1, B=1),)), r(), {},
     (UU, [f"Insufficient {B}"]), [(B, f"Insufficient {B}", 1, 0, 0, True)]),
    ("kubernetes.io resource capacity enforced", pod(r(1, 1, KA=10)), r(), {}, (UU, [f"Insufficient {KA}"]),
     [(KA, f"Insufficient {KA}", 10, 0, 0, True)]),
    ("kubernetes.io resource capacity enforced for init container", pod(r(), init=(r(1, 1, KB=10),)), r(), {},
     (UU, [f"Insufficient {KB}"]), [(KB, f"Insufficient {KB}", 10, 0, 0, True)]),
    ("hugepages resource capacity enforced", pod(r(1, 1, HP=10)), r(0, 0, HP=0), {}, (UU, [f"Insufficient {HP}"]),
     [(HP, f"Insufficient {HP}", 10, 0, 5, True)]),
    ("hugepages resource capacity enforced for init container", pod(r(), init=(r(1, 1, HP=10),)), r(0, 0, HP=0), {},
     (UU, [f"Insufficient {HP}"]), [(HP, f"Insufficient {HP}", 10, 0, 5, True)]),
    ("hugepages resource allocatable enforced for multiple containers", pod(r(1, 1, HP=3), r(1, 1, HP=3)), r(0, 0, HP=2), {},
     (UU, [f"Insufficient {HP}"]), [(HP, f"Insufficient {HP}", 6, 2, 5, True)]),
    ("skip checking ignored extended resource", pod(r(1, 1, B=1)), r(), {"ignoredResources": [B]}, None, []),
    ("resources + pod overhead fits", pod(r(1, 1), overhead={"cpu": "3m", "memory": "13"}), r(5, 5), {}, None, []),
    ("requests + overhead does not fit for memory", pod(r(1, 1), overhead={"cpu": "1m", "memory": "15"}), r(5, 5), {},
     (U, ["Insufficient memory"]), [("memory", "Insufficient memory", 16, 5, 20, False)]),
    ("skip checking ignored extended resource via resource groups", pod(r(1, 1, B=1, KA=1)), r(), {"ignoredResourceGroups": ["example.com"]},
     (UU, [f"Insufficient {KA}"]), [(KA, f"Insufficient {KA}", 1, 0, 0, True)]),
    ("skip checking extended resource request with quantity zero via resource groups", pod(r(1, 1, A=0)), r(0, 0, A=6), {}, None, []),
    ("skip checking resource request with quantity zero", make_pod(reqs=[{A: "1"}]), r(20, 30, A=1), {}, None, []),
]


def _harness(existing: dict[str, str], args: dict[str, Any], node_alloc: dict[str, str]) -> PluginHarness:
    return PluginHarness("NodeResourcesFit", args, [make_node("node1", node_alloc)], [make_pod(node="node1", reqs=[existing])])


def _want(status: tuple[Code, list[str]] | None) -> Status | None:
    return None if status is None else Status(status[0], *status[1])


@pytest.mark.parametrize("name,p,existing,args,want,insufficient", ENOUGH, ids=[c[0] for c in ENOUGH])
def test_enough_requests(name, p, existing, args, want, insufficient):  # type: ignore[no-untyped-def]
    h = _harness(existing, args, alloc(10, 20, 32, 5, 20, 5))
    assert h.filter(p) == [_want(want)]
    ni = h.table.get("node1")
    got = fits_request(PodInfo(p).fit_request, ni.allocatable, ni.requested, len(ni.pods),
                       frozenset(args.get("ignoredResources", ())), frozenset(args.get("ignoredResourceGroups", ())))
    assert got == insufficient


NOT_ENOUGH = [
    ("even without specified resources, predicate fails when there's no space for additional pod", make_pod(), r(10, 20)),
    ("even if both resources fit, predicate fails when there's no space for additional pod", pod(r(1, 1)), r(5, 5)),
    ("even for equal edge case, predicate fails when there's no space for additional pod", pod(r(5, 1)), r(5, 19)),
    ("even for equal edge case, predicate fails when there's no space for additional pod due to init container",
     pod(r(5, 1), init=(r(5, 1),)), r(5, 19)),
]


@pytest.mark.parametrize("name,p,existing", NOT_ENOUGH, ids=[c[0] for c in NOT_ENOUGH])
def test_not_enough_requests(name, p, existing):  # type: ignore[no-untyped-def]
    h = _harness(existing, {}, {"cpu": "10m", "memory": "20", "pods": "1", A: "0", "ephemeral-storage": "0", HP: "0"})
    assert h.filter(p) == [Status(U, "Too many pods")]


STORAGE = [
    ("empty storage requested, and pod fits", pod(r(1, 1)), r(2, 10), None),
    ("storage ephemeral local storage request exceeds allocatable", pod(r(storage=25)), r(2, 2),
     (UU, ["Insufficient ephemeral-storage"])),
    ("ephemeral local storage is sufficient", pod(r(storage=5)), r(2, 2, storage=10), None),
    ("pod fits", pod(r(storage=10)), r(2, 2), None),
]


@pytest.mark.parametrize("name,p,existing,want", STORAGE, ids=[c[0] for c in STORAGE])
def test_storage_requests(name, p, existing, want):  # type: ignore[no-untyped-def]
    h = _harness(existing, {}, alloc(10, 20, 32, 5, 20, 5))
    assert h.filter(p) == [_want(want)]


def test_pre_filter_disabled() -> None:
    h = _harness(r(), {}, alloc(10, 20, 32, 5, 20, 5))
    pl = h.fw.plugin("NodeResourcesFit")
    p = make_pod()
    pi = PodInfo(p)
    res = pl.filter_batch(CycleState(pi), pi, np.array([h.table.name_to_row["node1"]]))  # type: ignore[union-attr]
    st = res.status(0, h.table.name_to_row["node1"])
    assert st is not None and st.code == Code.ERROR
    assert st.reasons == ['error reading "PreFilterNodeResourcesFit" from cycleState: not found']
