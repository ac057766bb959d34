"""An in-process world for the imperator plugins' tests: a cluster with the imperator CRDs and
admission, a clock, a timeline, and the controllers under test.

`Sim.settle()` runs the controllers round-robin until none has work, as the scenario engine
does between operations, and then checks that every waiter holds; `Sim.advance(seconds)`
moves simulated time on first, as a new MajorStep does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from datetime import timedelta
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import attrs
import pytest
from kubesim import Capabilities, Runtime, ScenarioStep
from kubesim.api import StepPhase
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Admitter, Cluster
from kubesim.controllers import Controller
from kubesim.plugins import load_plugins
from kubesim.scenario.recorder import TimelineRecorder
from kubesim_imperator_nodepool import MACHINE_NODE_POOL_CRD, admit_machine_node_pool


@attrs.define
class Gate:
    step: ScenarioStep = attrs.field(factory=lambda: ScenarioStep(0, 0))
    phase: StepPhase | None = None
    running_simulation_controller: str = ""


class Sim:
    """Controllers under test on a fresh cluster; writes made by the test are the scenario's."""

    def __init__(
        self,
        *factories: Callable[[Runtime], Controller],
        crds: Iterable[dict[str, Any]] = (),
        admitters: Iterable[Admitter] = (),
    ) -> None:
        self.clock = Clock(DEFAULT_EPOCH)
        self.cluster = Cluster(self.clock)
        self.gate = Gate()
        self.timeline = TimelineRecorder(lambda: self.gate.step)
        self.cluster.watch(self.timeline.observe)
        for crd in (MACHINE_NODE_POOL_CRD, *crds):
            self.cluster.registry.register_crd(crd)
        for admit in (admit_machine_node_pool, *admitters):
            self.cluster.add_admitter(admit, phase="mutating")
            self.cluster.add_admitter(admit, phase="validating")
        self.runtime = Runtime(
            self.cluster, self.clock, self.timeline, load_plugins(entry_points=False), self.gate,
            capabilities=Capabilities.of(c for f in factories for c in getattr(f, "provides", ())),
        )
        self.controllers: list[Controller] = []
        for factory in factories:
            self.controllers.append(factory(self.runtime))

    def close(self) -> None:
        for c in self.controllers:
            c.close()

    def settle(self, limit: int = 100_000) -> int:
        """Run until no controller has work; every waiter must hold then. Returns the loops run."""
        loops = 0
        while True:
            progress = False
            for c in self.controllers:
                if c.run_once():
                    progress = True
                    loops += 1
            if loops > limit:
                raise AssertionError(f"controllers did not settle within {limit} loops")
            if not progress:
                break
        for c in self.controllers:
            assert c.waiter().satisfied(), f"{c.name} is not settled: {getattr(c, 'last_blocker', '')}"
        return loops

    def advance(self, seconds: float = 10) -> None:
        """The next MajorStep: move the clock on, then settle."""
        self.clock.advance(timedelta(seconds=seconds))
        self.gate.step = ScenarioStep(self.gate.step.major + 1, 0)
        self.settle()

    # --- objects -----------------------------------------------------------------------

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.cluster.create(obj)

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        return self.cluster.get(api_version, kind, name, namespace)

    def node(self, name: str) -> dict[str, Any]:
        return self.cluster.get("v1", "Node", name)

    def exists(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> bool:
        return any(o["metadata"]["name"] == name for o in self.cluster.list(api_version, kind, namespace))


def new_node(name: str, **status: Any) -> dict[str, Any]:
    """A node as upstream's tests create it: a Ready condition and nothing else (newFakeNode)."""
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    node["status"].update(status)
    return node


def labels(obj: dict[str, Any]) -> dict[str, str]:
    return dict(obj["metadata"].get("labels") or {})


def annotations(obj: dict[str, Any]) -> dict[str, str]:
    return dict(obj["metadata"].get("annotations") or {})


def taints(node: dict[str, Any]) -> list[dict[str, Any]]:
    return list((node.get("spec") or {}).get("taints") or [])


def run_kubesim(scenario: str, workdir: Any, keep: tuple[str, ...]) -> tuple[int, str, dict[str, Any], list[Any]]:
    """`kubesim run` of a scenario (YAML text) with only the plugins in `keep`; skips when one is missing.

    Returns the exit code, stderr, the result and the exported cluster's items.
    """
    installed = {ep.name for ep in entry_points(group="kubesim")}
    missing = sorted(set(keep) - installed)
    if missing:
        pytest.skip(f"kubesim plugins not installed: {', '.join(missing)}")
    workdir = Path(workdir)
    (workdir / "scenario.yaml").write_text(scenario)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KUBESIM_", "IMPERATOR_"))}
    env["KUBESIM_DISABLED_PLUGINS"] = ",".join(sorted(installed - set(keep)))
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "kubesim"), "run", "scenario.yaml", "-o", "result.json",
         "--export-cluster", "state.json"],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=300, check=False)
    result = json.loads((workdir / "result.json").read_text()) if (workdir / "result.json").exists() else {}
    state = json.loads((workdir / "state.json").read_text())["items"] if (workdir / "state.json").exists() else []
    return proc.returncode, proc.stderr, result, state
