"""The plugin manager and the typed facade the core calls hooks through.

Load order (after tox's plugin manager): block the names in
`KUBESIM_DISABLED_PLUGINS`, load entry points of the group "kubesim" sorted by
name (so that hook call order never depends on the file system), load modules
named in `KUBESIM_PLUGINS` (a way to use a plugin without installing it), register
the core's built-ins, then `check_pending()` so that a misspelt hook fails loudly.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import attrs
import pluggy

from kubesim.errors import ApiError
from kubesim.plugins import hookspecs
from kubesim.plugins.crash import PluginCrashed
from kubesim.plugins.markers import PROJECT

if TYPE_CHECKING:
    import click

    from kubesim.cluster import AdmissionRequest, AdmissionResponse
    from kubesim.controllers import ControllerFactory, ControllerWaiter, Runtime, StepGate
    from kubesim.simtime.submitters import Submitter

__all__ = ["ENTRY_POINT_GROUP", "Hooks", "PluginError", "PluginInfo", "hook_names", "load_plugins"]

ENTRY_POINT_GROUP = "kubesim"
DISABLED_ENV = "KUBESIM_DISABLED_PLUGINS"
EXTRA_ENV = "KUBESIM_PLUGINS"
_GATE = "kubesim.scenario.gate"


class PluginError(Exception):
    """A plugin could not be loaded or its hooks conflict with another plugin's."""


@attrs.frozen
class PluginInfo:
    """What `kubesim plugins` shows for one registered plugin."""

    name: str
    module: str
    distribution: str | None
    version: str | None
    hooks: tuple[str, ...]


def _split_env(name: str) -> list[str]:
    return [p.strip() for p in os.environ.get(name, "").split(",") if p.strip()]


def load_plugins(
    *, builtins: Iterable[ModuleType] = (), extra: Iterable[ModuleType] = (), entry_points: bool = True
) -> Hooks:
    """Build the plugin manager from entry points, KUBESIM_PLUGINS, `extra` and built-ins.

    The core's CheckScenarioStepPhase (`kubesim.scenario.gate`) is always registered, last,
    so every caller runs the same step semantics.

    `entry_points=False` leaves installed plugins out (tests that need a known set).
    """
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in _split_env(DISABLED_ENV):
        if name != _GATE:  # the KEP's pause rule is the engine's own: it cannot be disabled
            pm.set_blocked(name)
    dists: dict[str, tuple[str | None, str | None]] = {}
    found = metadata.entry_points(group=ENTRY_POINT_GROUP) if entry_points else ()
    eps = sorted(found, key=lambda ep: (ep.name, ep.value))
    for ep in eps:
        if pm.is_blocked(ep.name) or pm.get_plugin(ep.name) is not None:
            continue
        try:
            module = ep.load()
        except Exception as exc:  # a broken third-party plugin must not crash with a traceback
            raise PluginError(f"plugin {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
        _register(pm, module, ep.name)
        dist = ep.dist
        dists[ep.name] = (dist.metadata["Name"] if dist else None, dist.version if dist else None)
    for modname in _split_env(EXTRA_ENV):
        if pm.is_blocked(modname) or pm.get_plugin(modname) is not None:
            continue
        try:
            module = importlib.import_module(modname)
        except ImportError as exc:
            raise PluginError(f"{EXTRA_ENV}: cannot import plugin module {modname!r}: {exc}") from exc
        _register(pm, module, modname)
    for module in extra:
        _register(pm, module, None)
    for module in builtins:
        if not pm.is_blocked(module.__name__):
            _register(pm, module, module.__name__)
    from kubesim.scenario import gate

    _register(pm, gate, _GATE)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(str(exc)) from exc
    return Hooks(pm, dists)


def _register(pm: pluggy.PluginManager, module: object, name: str | None) -> None:
    """Register a plugin; a hook with wrong arguments is a PluginError naming it."""
    try:
        pm.register(module, name=name)
    except pluggy.PluginValidationError as exc:
        raise PluginError(str(exc)) from exc


def _merge_named(label: str, results: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for plugin, mapping in results:
        for name, value in (mapping or {}).items():
            if name in merged:
                raise PluginError(
                    f"{label} {name!r} is registered by both {owner[name]!r} and {plugin!r}"
                )
            merged[name] = value
            owner[name] = plugin
    return dict(sorted(merged.items()))


class Hooks:
    """Typed access to every hook; the only place the core calls `pm.hook`."""

    def __init__(self, pm: pluggy.PluginManager, dists: Mapping[str, tuple[str | None, str | None]]):
        self.pm = pm
        self._dists = dict(dists)

    def _impls(self, hook_name: str) -> list[Any]:
        """The hook's non-wrapper implementations in pluggy's call order (tryfirst/trylast, then LIFO)."""
        caller = getattr(self.pm.hook, hook_name)
        return [i for i in reversed(caller.get_hookimpls()) if not (i.hookwrapper or i.wrapper)]

    def _caller_for(self, hook_name: str, impl: Any) -> Callable[..., list[Any]]:
        """A pluggy call of `hook_name` with `impl` as its only plain implementation, every wrapper kept.

        The implementations are chosen once, and each call runs pluggy's own hook execution
        (wrappers, call monitoring), which costs no more than a direct call on hot paths
        such as admission.
        """
        caller = getattr(self.pm.hook, hook_name)
        impls = [i for i in caller.get_hookimpls() if i is impl or i.hookwrapper or i.wrapper]
        hookexec = self.pm._hookexec

        def call(**kwargs: Any) -> list[Any]:
            return cast("list[Any]", hookexec(hook_name, impls, kwargs, False))

        return call

    def _per_plugin(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call a hook through pluggy once per implementing plugin, keeping who answered.

        Each call goes through pluggy with that plugin's implementation alone, so wrappers
        (`wrapper=True`) wrap every plugin's answer and tryfirst/trylast decide the order.
        """
        out = []
        for impl in self._impls(hook_name):
            name = self.pm.get_name(impl.plugin) or impl.plugin_name
            results = self._caller_for(hook_name, impl)(**kwargs)
            out.append((name, results[0] if results else None))
        return out

    # --- scheduler ---
    def scheduler_plugins(self) -> dict[str, type]:
        """All scheduler framework plugin classes by name; duplicate names are an error."""
        return _merge_named("scheduler plugin", self._per_plugin("kubesim_scheduler_plugins"))

    def scheduler_extenders(self) -> list[Any]:
        """All in-process scheduler extenders, in plugin load order."""
        return [e for _, result in self._per_plugin("kubesim_scheduler_extenders") for e in result or ()]

    def scheduling_simulator(self, objects: Sequence[Mapping[str, Any]], options: Mapping[str, Any],
                             seed: int = 0) -> Any:
        """A what-if scheduler over `objects` (kubesim_scheduling_simulator), None if no plugin has one."""
        return self.pm.hook.kubesim_scheduling_simulator(
            objects=objects, options=options, plugins=self.scheduler_plugins(),
            extenders=self.scheduler_extenders(), seed=seed)

    # --- controllers ---
    def controllers(self) -> dict[str, ControllerFactory]:
        """All in-process controller factories by name; duplicate names are an error."""
        pairs = [
            (plugin, {getattr(f, "name"): f for f in result or ()})
            for plugin, result in self._per_plugin("kubesim_controllers")
        ]
        return _merge_named("controller", pairs)

    def controller_waiters(self) -> dict[str, ControllerWaiter]:
        """Waiters of out-of-process controllers by name."""
        pairs = [
            (plugin, {w.name: w for w in result or ()})
            for plugin, result in self._per_plugin("kubesim_controller_waiters")
        ]
        return _merge_named("controller waiter", pairs)

    def submitters(self, runtime: Runtime) -> list[Submitter]:
        """Every plugin's submitters for one scenario run, sorted by name; duplicate names are an error."""
        pairs = [
            (plugin, {s.name: s for s in result or ()})
            for plugin, result in self._per_plugin("kubesim_submitters", runtime=runtime)
        ]
        return list(_merge_named("submitter", pairs).values())

    def check_scenario_step_phase(self, controller_name: str, gate: StepGate) -> bool:
        """True when the SimulationController must pause at the end of this loop."""
        return bool(self.pm.hook.kubesim_check_scenario_step_phase(controller_name=controller_name, gate=gate))

    # --- cluster ---
    def admitters(self, runtime: Runtime | None = None) -> list[Callable[[AdmissionRequest], AdmissionResponse | None]]:
        """One admission function per plugin implementing kubesim_admission, in pluggy's call order.

        Each plugin is called separately (through pluggy) so that a mutating plugin sees the
        previous ones' patches, as chained admission webhooks do; a denial names the plugin.
        Implementations that declare a `runtime` argument get the scenario's runtime.
        """
        from kubesim.cluster.admission import RULES_ATTRIBUTE, rules_of

        out: list[Callable[[AdmissionRequest], AdmissionResponse | None]] = []
        for impl in self._impls("kubesim_admission"):
            plugin_name = self.pm.get_name(impl.plugin) or impl.plugin_name
            caller = self._caller_for("kubesim_admission", impl)

            def admit(request: AdmissionRequest, _call: Callable[..., list[Any]] = caller,
                      _name: str = plugin_name, _module: str = impl.function.__module__) -> AdmissionResponse | None:
                try:
                    results = _call(request=request, runtime=runtime)
                except (ApiError, PluginCrashed):
                    raise  # a write the hook made failed, or a plugin it reached raised
                except Exception as exc:
                    raise PluginCrashed(f'admission plugin "{_name}"', exc, _module) from exc
                response: AdmissionResponse | None = results[0] if results else None
                if response is not None and not response.name:
                    response = attrs.evolve(response, name=_name)
                return response

            rules = rules_of(impl.function)
            if rules is not None:  # declared with admission_rules: the chain calls it on those writes only
                setattr(admit, RULES_ATTRIBUTE, rules)
            out.append(admit)
        return out

    def custom_resources(self) -> list[Mapping[str, Any]]:
        """All CRDs plugins bring, in plugin load order."""
        return [crd for _, result in self._per_plugin("kubesim_custom_resources") for crd in result or ()]

    # --- results ---
    def result_aggregators(self) -> dict[str, Any]:
        """All result aggregators by name; duplicate names are an error."""
        return _merge_named("result aggregator", self._per_plugin("kubesim_result_aggregators"))

    # --- sweeps ---
    def scenario_generators(self) -> dict[str, Any]:
        """All scenario generators by name; duplicate names are an error."""
        return _merge_named("scenario generator", self._per_plugin("kubesim_scenario_generators"))

    # --- command line ---
    def run_options(self) -> list[click.Option]:
        """Extra `kubesim run` options from plugins; duplicate option names are an error."""
        pairs = [
            (plugin, {o.name: o for o in result or ()})
            for plugin, result in self._per_plugin("kubesim_run_options")
        ]
        return list(_merge_named("run option", pairs).values())

    # --- introspection ---
    def plugin_infos(self) -> list[PluginInfo]:
        """Every registered plugin with its distribution, version and implemented hooks."""
        infos = []
        for name, plugin in self.pm.list_name_plugin():
            if plugin is None or plugin is hookspecs:
                continue
            hooks = tuple(sorted(c.name for c in self.pm.get_hookcallers(plugin) or ()))
            dist, version = self._dists.get(name, (None, None))
            infos.append(PluginInfo(name, getattr(plugin, "__name__", repr(plugin)), dist, version, hooks))
        return sorted(infos, key=lambda i: i.name)


def hook_names() -> Sequence[str]:
    """Names of every hook specification (used by the docs test)."""
    return sorted(n for n in dir(hookspecs) if n.startswith("kubesim_"))
