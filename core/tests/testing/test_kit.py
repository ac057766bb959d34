"""kubesim.testing itself: builders the embedded cluster accepts, Scenario documents the
installed `kubesim` runs, run_kubesim's exit codes, traceback check and timeout, and SimEnv's
settle and steps."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Hashable
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from kubesim import ReconcileController
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Cluster
from kubesim.controllers import GRACEFUL_POD_DELETION, SettleLimits
from kubesim.errors import Forbidden
from kubesim.testing import (
    KubesimFailed,
    KubesimTimeout,
    SettleError,
    SimEnv,
    create,
    delete,
    deployment,
    done,
    namespace,
    node,
    patch,
    pod,
    priority_class,
    replicaset,
    run_kubesim,
    scenario,
    statefulset,
    taint,
    write_yaml,
)
from kubesim.testing.pytest_plugin import RunKubesim, SimEnvFactory

DATA = Path(__file__).parent / "data"


def test_builders_give_objects_the_embedded_cluster_accepts() -> None:
    cluster = Cluster(Clock(DEFAULT_EPOCH))
    objects = [
        namespace("team", labels={"tier": "gold"}),
        priority_class("high", 1000, preemption_policy="Never"),
        node(
            "n1",
            cpu=8,
            memory="32Gi",
            pods=50,
            labels={"zone": "a"},
            taints=["gpu=yes:NoSchedule"],
            resources={"nvidia.com/gpu": 2},
        ),
        pod(
            "p1",
            namespace="team",
            cpu="500m",
            memory="1Gi",
            node_name="n1",
            labels={"app": "x"},
            priority_class_name="high",
        ),
        deployment("web", 3, cpu="100m"),
        replicaset("rs", 2, labels={"app": "rs"}),
        statefulset("db", 1, service_name="db-headless"),
    ]
    stored = [cluster.create(obj) for obj in objects]
    n1 = cluster.get("v1", "Node", "n1")
    assert n1["status"]["allocatable"] == {"cpu": "8", "memory": "32Gi", "pods": "50", "nvidia.com/gpu": "2"}
    assert n1["spec"]["taints"] == [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    assert n1["metadata"]["labels"] == {"kubernetes.io/hostname": "n1", "zone": "a"}
    p1 = cluster.get("v1", "Pod", "p1", "team")
    assert p1["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "500m", "memory": "1Gi"}}
    assert p1["spec"]["priority"] == 1000  # admission resolved the builder's priorityClassName
    web = cluster.get("apps/v1", "Deployment", "web", "default")
    assert web["spec"]["selector"] == {"matchLabels": {"app": "web"}}
    assert web["spec"]["template"]["metadata"]["labels"] == {"app": "web"}
    assert cluster.get("apps/v1", "StatefulSet", "db", "default")["spec"]["serviceName"] == "db-headless"
    owned = cluster.create(pod("child", owner=stored[-1]))
    assert owned["metadata"]["ownerReferences"][0]["uid"] == stored[-1]["metadata"]["uid"]


def test_builders_return_fresh_objects_and_name_bad_taints() -> None:
    a, b = node("n"), node("n")
    a["metadata"]["labels"]["x"] = "y"
    assert "x" not in b["metadata"]["labels"]
    assert taint("dedicated:NoExecute") == {"key": "dedicated", "effect": "NoExecute"}
    with pytest.raises(ValueError, match="taint 'nope': expected key"):
        taint("nope")


def test_a_built_scenario_runs_through_the_installed_command(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    doc = scenario(
        "kit",
        {
            0: [create(namespace("team")), create(node("n1")), create(pod("p1", namespace="team", cpu="1"))],
            1: [patch(node("n1"), {"metadata": {"labels": {"zone": "b"}}}), create(deployment("web", 2))],
            2: [delete(pod("p1", namespace="team")), done()],
        },
        pre_simulation_controllers=[],
    )
    write_yaml(tmp_path / "s.yaml", doc)
    assert yaml.safe_load((tmp_path / "s.yaml").read_text())["spec"]["operations"][3]["step"] == 1
    run = run_kubesim("run", "s.yaml", "-o", "result.json", "--export-cluster", "state.json", plugins=())
    assert run.returncode == 0, run.stderr
    assert run.phase == "Succeeded"
    assert [sorted(set(e) - {"id", "step", "actor"})[0] for e in run.events()] == [
        "create",
        "create",
        "create",
        "patch",
        "create",
        "delete",
        "done",
    ]
    kinds = {(o["kind"], o["metadata"]["name"]) for o in run.exported}
    assert ("Deployment", "web") in kinds and ("Pod", "p1") not in kinds
    assert next(o for o in run.exported if o["kind"] == "Node")["metadata"]["labels"]["zone"] == "b"


def test_run_kubesim_reports_a_failed_scenario_and_a_rejected_file(
    run_kubesim: RunKubesim, tmp_path: Path
) -> None:
    write_yaml(tmp_path / "s.yaml", scenario("ok", {0: [create(node("n1"))]}))
    first = run_kubesim("run", "s.yaml", "-o", "result.json", plugins=())
    assert (first.returncode, first.phase) == (0, "Paused")
    write_yaml(tmp_path / "fails.yaml", scenario("fails", {0: [patch(node("ghost"), {"spec": {}})]}))
    failed = run_kubesim("run", "fails.yaml", "-o", "result.json", "--allow-unknown-targets", plugins=())
    assert failed.returncode == 1
    assert failed.phase == "Failed"
    assert 'nodes "ghost" not found' in (failed.message or "")
    write_yaml(tmp_path / "bad.yaml", scenario("bad", {0: [create(pod("p", cpu="lots"))]}))
    rejected = run_kubesim("run", "bad.yaml", "-o", "result.json", plugins=())
    assert rejected.returncode == 2
    assert "spec.containers[0].resources.requests[cpu]: quantities must match" in rejected.stderr
    assert rejected.results == []  # the earlier run's result.json is not taken for this run's
    with pytest.raises(KubesimFailed, match="wrote no result"):
        rejected.result


def test_run_kubesim_kills_a_run_that_does_not_end(tmp_path: Path) -> None:
    with pytest.raises(KubesimTimeout, match=r"kubesim plugins did not finish within 3s"):
        run_kubesim(
            "plugins", cwd=tmp_path, plugins=(), pythonpath=[DATA], modules=["kubesim_stalls"], timeout=3
        )


def test_run_kubesim_fails_on_a_traceback_unless_allowed(tmp_path: Path) -> None:
    noisy = {"plugins": (), "pythonpath": [DATA], "modules": ["kubesim_crashes_noisily"]}
    with pytest.raises(KubesimFailed, match="printed a traceback"):
        run_kubesim("plugins", cwd=tmp_path, **noisy)  # type: ignore[arg-type]
    run = run_kubesim("plugins", cwd=tmp_path, allow_traceback=True, **noisy)  # type: ignore[arg-type]
    assert run.returncode == 0 and "KeyError: 'missing'" in run.stderr


def test_run_kubesim_names_a_plugin_that_is_not_installed(tmp_path: Path) -> None:
    with pytest.raises(KubesimFailed, match="kubesim plugins not installed: no-such-plugin"):
        run_kubesim("plugins", cwd=tmp_path, plugins=("no-such-plugin",))


class Mirror(ReconcileController):
    """Test controller: gives every ConfigMap without `mirror` in its name a "<name>-mirror" copy."""

    name = "mirror"
    watches: ClassVar = [("v1", "ConfigMap")]

    def reconcile(self, key: Hashable) -> None:
        ns, name = key  # type: ignore[misc]
        if name.endswith("-mirror") or self.client.list(
            "v1", "ConfigMap", ns, field_selector=f"metadata.name={name}-mirror"
        ):
            return
        self.client.create(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-mirror", "namespace": ns}}
        )


class Stuck(ReconcileController):
    """Test controller whose waiter never holds."""

    name = "stuck"

    def reconcile(self, key: Hashable) -> None:
        return None

    def settled(self) -> bool:
        return False


def config_map(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


def test_sim_env_settles_steps_and_records_the_timeline(sim_env: SimEnvFactory) -> None:
    env = sim_env(controllers=[Mirror], objects=[config_map("a")])
    assert env.settle() == 2  # "a", then the event of the mirror it created
    assert [o["metadata"]["name"] for o in env.list("v1", "ConfigMap", "default")] == ["a", "a-mirror"]
    env.apply(config_map("b"))
    env.apply({**config_map("b"), "data": {"k": "v"}})  # replaces the stored one
    assert env.get("v1", "ConfigMap", "b", "default")["data"] == {"k": "v"}
    env.step()
    assert env.current_step.major == 1
    assert env.clock.now() == DEFAULT_EPOCH + env.step_duration
    assert env.exists("v1", "ConfigMap", "b-mirror", "default")
    created = [(e.step.major, e.actor) for e in env.events() if e.create is not None]
    assert created == [(0, "mirror"), (1, "mirror")]


def test_sim_env_names_a_controller_that_cannot_settle() -> None:
    with (
        SimEnv(controllers=[Stuck]) as env,
        pytest.raises(
            SettleError, match="PreSimulationController 'stuck' cannot settle: it has nothing left to do"
        ),
    ):
        env.settle()


class Busy(Stuck):
    """Test controller that reports work on every loop and never writes."""

    name = "busy"

    def run_once(self) -> bool:
        return True


def test_sim_env_stops_a_controller_that_loops_without_changing_the_cluster() -> None:
    """The engine's bound (kubesim.controllers.settle): idle loops in a row fail the step, naming it."""
    env = SimEnv(controllers=[Mirror, Busy], limits=SettleLimits(idle_loops=50, idle_loops_per_object=0))
    with pytest.raises(SettleError) as err:
        env.step()
    assert err.value.controllers == ("busy",)
    assert str(err.value) == (
        'step 1 did not settle: controller "busy" still reports work after 50 loops '
        "without changing the cluster"
    )


def test_sim_env_installs_plugins_admission_with_the_runtime_as_the_engine_does(
    sim_env: SimEnvFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(DATA))
    import kubesim_frozen_namespaces

    env = sim_env(plugins=[kubesim_frozen_namespaces], objects=[namespace("ice", labels={"frozen": "true"})])
    env.create(pod("ok"))
    with pytest.raises(Forbidden, match="namespace ice is frozen"):
        env.create(pod("p", namespace="ice"))
    seen: list[Any] = []

    def admit(request: Any, runtime: Any) -> None:
        seen.append(runtime)

    sim_env(admitters=[admit]).create(namespace("x"))
    assert seen and all(r is not None for r in seen)


class Kubelike(Stuck):
    name = "kubelike"
    provides = frozenset({GRACEFUL_POD_DELETION})


def test_sim_env_declares_the_controllers_capabilities(sim_env: SimEnvFactory) -> None:
    assert sim_env(controllers=[Kubelike]).runtime.capabilities.graceful_pod_deletion is True
    assert sim_env(controllers=[Stuck]).runtime.capabilities.graceful_pod_deletion is False


def test_loading_the_pytest_plugin_imports_nothing_of_the_engine() -> None:
    """pytest loads the plugin in every run where kubesim is installed: it must stay cheap."""
    code = ("import sys, kubesim.testing.pytest_plugin; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('kubesim'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["kubesim", "kubesim.lazy", "kubesim.testing", "kubesim.testing.pytest_plugin"]
