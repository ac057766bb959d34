"""The plugin manager: loading, blocking, merging registries, validation of hook names."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesim import hookimpl
from kubesim.controllers import ControllerWaiter
from kubesim.plugins import PluginError, load_plugins


def module(name: str, **functions: Any) -> types.ModuleType:
    m = types.ModuleType(name)
    for fname, fn in functions.items():
        fn.__name__ = fname
        setattr(m, fname, hookimpl(fn))
    return m


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("kubesim_testmod_")]:
        del sys.modules[name]


def test_registries_merge_across_plugins_sorted_by_name() -> None:
    a = module("a", kubesim_scheduler_plugins=lambda: {"Zeta": int, "Alpha": str})
    b = module("b", kubesim_scheduler_plugins=lambda: {"Mid": float})
    hooks = load_plugins(extra=[a, b], entry_points=False)
    assert list(hooks.scheduler_plugins()) == ["Alpha", "Mid", "Zeta"]


def test_duplicate_names_name_both_plugins() -> None:
    a = module("plugin_a", kubesim_result_aggregators=lambda: {"alloc": 1})
    b = module("plugin_b", kubesim_result_aggregators=lambda: {"alloc": 2})
    hooks = load_plugins(extra=[a, b], entry_points=False)
    with pytest.raises(PluginError, match="result aggregator 'alloc' is registered by both"):
        hooks.result_aggregators()


def test_misspelt_hook_fails_loudly() -> None:
    bad = module("bad", kubesim_controlers=lambda: [])
    with pytest.raises(PluginError, match="kubesim_controlers"):
        load_plugins(extra=[bad], entry_points=False)


def test_wrong_hook_arguments_fail_loudly() -> None:
    bad = module("bad", kubesim_admission=lambda req, extra: None)
    with pytest.raises(PluginError, match="kubesim_admission"):
        load_plugins(extra=[bad], entry_points=False)


def test_env_var_loads_uninstalled_modules_and_blocks_names(plugin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (plugin_dir / "kubesim_testmod_one.py").write_text(
        "from kubesim import hookimpl\n"
        "from kubesim.controllers import ControllerWaiter\n"
        "@hookimpl\n"
        "def kubesim_controller_waiters():\n"
        "    return [ControllerWaiter('outside', lambda: True)]\n"
    )
    monkeypatch.setenv("KUBESIM_PLUGINS", "kubesim_testmod_one")
    hooks = load_plugins(entry_points=False)
    assert list(hooks.controller_waiters()) == ["outside"]
    info = {i.name: i for i in hooks.plugin_infos()}["kubesim_testmod_one"]
    assert info.hooks == ("kubesim_controller_waiters",)
    monkeypatch.setenv("KUBESIM_DISABLED_PLUGINS", "kubesim_testmod_one")
    assert load_plugins(entry_points=False).controller_waiters() == {}


def test_unimportable_env_plugin_is_a_plugin_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBESIM_PLUGINS", "no_such_module_kubesim")
    with pytest.raises(PluginError, match="cannot import plugin module 'no_such_module_kubesim'"):
        load_plugins()


def test_admitters_are_called_per_plugin_in_pluggy_order_and_named() -> None:
    from kubesim.cluster import AdmissionResponse

    calls: list[str] = []

    def deny(request: Any) -> Any:
        calls.append("deny")
        return AdmissionResponse(allowed=False, message="no")

    def watch(request: Any) -> Any:
        calls.append("watch")
        return None

    hooks = load_plugins(extra=[module("first", kubesim_admission=watch), module("second", kubesim_admission=deny)], entry_points=False)
    admitters = hooks.admitters()
    results = [admit(object()) for admit in admitters]  # type: ignore[arg-type]
    assert calls == ["deny", "watch"]  # pluggy calls the plugin registered last first
    assert results[0].name == "second" and not results[0].allowed
    assert results[1] is None


def test_admitters_get_the_runtime_when_they_ask_for_it() -> None:
    seen: list[Any] = []
    runtime = object()
    hooks = load_plugins(extra=[
        module("old", kubesim_admission=lambda request: seen.append(("old", request))),
        module("new", kubesim_admission=lambda request, runtime: seen.append(("new", runtime))),
    ], entry_points=False)
    for admit in hooks.admitters(runtime):  # type: ignore[arg-type]
        admit("req")  # type: ignore[arg-type]
    assert seen == [("new", runtime), ("old", "req")]


def test_hooks_go_through_pluggy_tryfirst_and_wrappers() -> None:
    """tryfirst orders the per-plugin calls; a wrapper=True implementation wraps each plugin's answer."""
    from kubesim.plugins import hookimpl as impl

    order: list[str] = []

    class Early:
        @staticmethod
        @impl(tryfirst=True)
        def kubesim_scheduler_extenders() -> list[str]:
            order.append("early")
            return ["early"]

    class Late:
        @staticmethod
        @impl
        def kubesim_scheduler_extenders() -> list[str]:
            order.append("late")
            return ["late"]

    class Wrap:
        @staticmethod
        @impl(wrapper=True)
        def kubesim_scheduler_extenders() -> Any:
            result = yield
            return [[f"wrapped-{e}" for e in r] for r in result]

    hooks = load_plugins(extra=[Early, Late, Wrap], entry_points=False)
    assert hooks.scheduler_extenders() == ["wrapped-early", "wrapped-late"]
    assert order == ["early", "late"]  # Late was registered after Early, but Early is tryfirst


def test_a_wrapper_sees_every_plugins_registry() -> None:
    from kubesim.plugins import hookimpl as impl

    class Plugins:
        @staticmethod
        @impl
        def kubesim_scheduler_plugins() -> dict[str, type]:
            return {"A": int}

    class Rename:
        @staticmethod
        @impl(wrapper=True)
        def kubesim_scheduler_plugins() -> Any:
            result = yield
            return [{f"x{k}": v for k, v in r.items()} for r in result]

    assert load_plugins(extra=[Plugins, Rename], entry_points=False).scheduler_plugins() == {"xA": int}


def test_the_step_phase_gate_is_always_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The KEP's pause rule is the engine's: no caller and no environment can leave it out."""
    from kubesim.scenario import gate

    assert load_plugins(entry_points=False).pm.is_registered(gate)
    monkeypatch.setenv("KUBESIM_DISABLED_PLUGINS", gate.__name__)
    assert load_plugins(entry_points=False).pm.get_plugin(gate.__name__) is gate


def test_step_phase_gate_lets_plugins_answer_first() -> None:
    from kubesim.api import ScenarioStepStatus, StepPhase
    from kubesim.scenario import gate

    status = ScenarioStepStatus(phase=StepPhase.CONTROLLER_PAUSED, running_simulation_controller="scheduler")
    hooks = load_plugins(entry_points=False)
    assert hooks.check_scenario_step_phase("scheduler", status) is True
    assert hooks.check_scenario_step_phase("other", status) is False
    never = module("never", kubesim_check_scenario_step_phase=lambda controller_name, gate: False)
    assert load_plugins(extra=[never], entry_points=False).check_scenario_step_phase("scheduler", status) is False


def test_controllers_are_keyed_by_their_name() -> None:
    class Fake:
        name = "fake"

    hooks = load_plugins(extra=[module("m", kubesim_controllers=lambda: [Fake])], entry_points=False)
    assert hooks.controllers() == {"fake": Fake}
    assert ControllerWaiter("w", lambda: True).satisfied()
