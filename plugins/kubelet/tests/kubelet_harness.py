"""The kubelet tests' world: kubesim.testing's SimEnv with the controllers under test, the
timeline read back as tuples, and node/pod builders with the kubelet's simSpec and grace period."""

from __future__ import annotations

from typing import Any

from kubesim import testing
from kubesim.controllers import ControllerFactory
from kubesim.testing import SimEnv


class Sim(SimEnv):
    """Controllers under test on a fresh cluster; writes by the test are the scenario's."""

    def __init__(self, *factories: ControllerFactory, seed: int = 0) -> None:
        super().__init__(factories, seed=seed)

    def timeline_writes(self) -> list[tuple[int, str, str, str, str]]:
        """(major step, actor, verb, kind, name) of every recorded create, patch and delete."""
        out = []
        for e in self.events():
            for verb in ("create", "patch", "delete"):
                result = getattr(e, verb)
                if result is None:
                    continue
                op = result.operation
                if verb == "create":
                    obj = result.result
                    kind, name = obj["kind"], obj["metadata"]["name"]
                else:
                    kind, name = op.type_meta.kind, op.object_meta.name
                out.append((e.step.major, str(e.actor), verb, kind, name))
        return out


def node(name: str, *, ready: str | None = None, cpu: str = "4", ip: str | None = None) -> dict[str, Any]:
    """A node with no Ready condition unless `ready` gives its status."""
    return testing.node(name, cpu=cpu, ready=ready, ip=ip)


def pod(name: str, node_name: str | None = None, *, sim_spec: str | None = None, grace: int | None = None,
        **spec: Any) -> dict[str, Any]:
    """A pod with one nginx container; `sim_spec` is its simSpec annotation, `grace` its termination grace."""
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return testing.pod(name, node_name=node_name, image="nginx:1.27", spec=spec,
                       annotations=None if sim_spec is None else {"simSpec": sim_spec})


def conditions(obj: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """type -> (status, reason) of an object's conditions."""
    return {c["type"]: (c["status"], c.get("reason")) for c in (obj.get("status") or {}).get("conditions") or ()}
