"""A test plugin: a SimulationController "marker" and a PreSimulationController "copier".

marker (one write per loop): labels the first ConfigMap with state=new as state=marked.
copier (reconcile loop): gives every marked ConfigMap whose annotation depth is below
its data.maxDepth a copy "<name>-copy" with state=new and depth + 1.

Loaded with KUBESIM_PLUGINS=kubesim_testplugin; when KUBESIM_TESTPLUGIN_TRACE names a
file, every loop and every CheckScenarioStepPhase call appends a line
"<who> <what> <phase> <major>.<minor>" to it, so a test can check the step machine.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from typing import Any

from kubesim import Controller, ControllerWaiter, ReconcileController, StepGate, hookimpl
from kubesim.errors import NotFound


def _trace(line: str) -> None:
    path = os.environ.get("KUBESIM_TESTPLUGIN_TRACE")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def _where(gate: StepGate) -> str:
    phase = gate.phase.value if gate.phase else "-"
    return f"{phase} {gate.step.major}.{gate.step.minor}"


class Marker(Controller):
    """SimulationController under test."""

    name = "marker"

    def _new(self) -> list[dict[str, Any]]:
        return self.client.list("v1", "ConfigMap", label_selector="state=new")

    def run_once(self) -> bool:
        new = self._new()
        if not new:
            return False
        meta = new[0]["metadata"]
        _trace(f"marker loop {meta['name']} {_where(self.runtime.step_status)}")
        self.client.patch("v1", "ConfigMap", meta["name"], {"metadata": {"labels": {"state": "marked"}}},
                          namespace=meta["namespace"])
        return True

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: not self._new())


class Copier(ReconcileController):
    """PreSimulationController: reacts to the marker's writes."""

    name = "copier"
    watches = (("v1", "ConfigMap"),)

    @staticmethod
    def _wants_copy(cm: dict[str, Any]) -> bool:
        meta = cm["metadata"]
        depth = int(meta.get("annotations", {}).get("depth", "0"))
        return meta.get("labels", {}).get("state") == "marked" and depth < int(cm.get("data", {}).get("maxDepth", "0"))

    def reconcile(self, key: Hashable) -> None:
        namespace, name = key  # type: ignore[misc]
        _trace(f"copier reconcile {namespace}/{name} {_where(self.runtime.step_status)}")
        try:
            cm = self.client.get("v1", "ConfigMap", name, namespace)
        except NotFound:
            return
        if not self._wants_copy(cm):
            return
        try:
            self.client.get("v1", "ConfigMap", f"{name}-copy", namespace)
        except NotFound:
            depth = int(cm["metadata"].get("annotations", {}).get("depth", "0")) + 1
            self.client.create({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": f"{name}-copy", "namespace": namespace, "labels": {"state": "new"},
                             "annotations": {"depth": str(depth)}},
                "data": dict(cm.get("data", {})),
            })

    def settled(self) -> bool:
        names = {c["metadata"]["name"] for c in self.client.list("v1", "ConfigMap")}
        return all(f"{c['metadata']['name']}-copy" in names
                   for c in self.client.list("v1", "ConfigMap") if self._wants_copy(c))


@hookimpl
def kubesim_controllers() -> list[type[Controller]]:
    return [Marker, Copier]


@hookimpl
def kubesim_check_scenario_step_phase(controller_name: str, gate: StepGate) -> None:
    _trace(f"gate {controller_name} {_where(gate)}")
