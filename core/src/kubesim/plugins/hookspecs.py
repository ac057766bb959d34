"""Hook specifications: everything a kubesim plugin can provide.

Each hook is implemented by a plugin module function of the same name decorated
with `kubesim.hookimpl`. Hooks that return collections are called on every plugin
and the results are merged by the core (see `kubesim.plugins.manager.Hooks`);
duplicate names across plugins are errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kubesim.plugins.markers import hookspec

if TYPE_CHECKING:
    import click

    from kubesim.cluster import AdmissionRequest, AdmissionResponse
    from kubesim.controllers import ControllerFactory, ControllerWaiter, Runtime, StepGate
    from kubesim.simtime.submitters import Submitter

# --- scheduler -------------------------------------------------------------


@hookspec
def kubesim_scheduler_plugins() -> Mapping[str, type]:
    """Scheduler framework plugin classes by plugin name.

    The scheduler plugin (kubesim-scheduler) registers its default plugins through
    this hook too; a custom plugin class implements one or more extension points
    (PreFilter, Filter, PostFilter, PreScore, Score + NormalizeScore, Reserve,
    Permit, PreBind, Bind, PostBind) as documented in kubesim-scheduler.

    :return: mapping of plugin name to plugin class
    """


@hookspec
def kubesim_scheduler_extenders() -> Sequence[Any]:
    """In-process scheduler extenders (HTTP extenders come from the KubeSchedulerConfiguration).

    :return: extender objects as documented in kubesim-scheduler
    """


@hookspec(firstresult=True)
def kubesim_scheduling_simulator(
    objects: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any],
    plugins: Mapping[str, type],
    extenders: Sequence[Any],
    seed: int,
) -> Any:
    """A scheduler over a fixed cluster, to answer what-if questions (`kubesim capacity`).

    The result follows `kubesim.capacity.SchedulingSimulator`: nodes and pods are added and
    removed, and `schedule(pod)` runs one real scheduling attempt that binds the pod or
    says why not (upstream's FitError text), with no preemption. firstresult: the first
    non-None answer wins; kubesim-scheduler provides one.

    .. versionadded:: 0.3

    :param objects: the cluster's objects (Nodes, bound Pods, PDBs, PVCs, ...) as dicts
    :param options: the `kubesim run` options (`scheduler_config`, ...) by parameter name
    :param plugins: every scheduler plugin class by name (kubesim_scheduler_plugins merged)
    :param extenders: every in-process extender (kubesim_scheduler_extenders merged)
    :param seed: seed of the scheduler's tie-breaking
    :return: a SchedulingSimulator, or None when this plugin provides none
    """


# --- controllers -----------------------------------------------------------


@hookspec
def kubesim_controllers() -> Sequence[ControllerFactory]:
    """Controllers that run in-process, each with its ControllerWaiter.

    A controller factory is a `kubesim.Controller` subclass (or any callable with a
    `name` attribute) that is called with the scenario's `kubesim.Runtime` at the start
    of every scenario, so that each scenario gets fresh controller state. A controller
    class may declare capabilities it brings to the cluster in `provides`.

    :return: controller factories; their names must be unique
    """


@hookspec
def kubesim_controller_waiters() -> Sequence[ControllerWaiter]:
    """Waiters for controllers that run outside this process.

    The scenario engine waits for each waiter's condition the same way it waits
    for in-process PreSimulationControllers.

    :return: waiters; their names must be unique
    """


@hookspec(firstresult=True)
def kubesim_check_scenario_step_phase(controller_name: str, gate: StepGate) -> bool | None:
    """Called at the end of every loop iteration of a SimulationController.

    The core's own implementation pauses the controller when the scenario's step
    phase is ControllerPaused and it is the running SimulationController (KEP-140
    CheckScenarioStepPhase). firstresult: the first non-None answer wins.

    :param controller_name: the SimulationController that finished one loop
    :param gate: read access to the running scenario's step status
    :return: True to pause the controller, False to let it go on, None for no opinion
    """


@hookspec
def kubesim_submitters(runtime: Runtime) -> Sequence[Submitter]:
    """Submitters that create, update, delete and freeze pods as simulated time passes.

    Called once per scenario run. Every tick (each MajorStep) the engine calls each
    submitter's `submit(tick)` in the order of their names, after the scenario's operations
    of that step and before the scheduler runs; a submitter that returns a
    `TerminateSubmitterEvent` is not called again. Pods are written through the cluster API
    as actor `submitter:<name>` (see `kubesim.simtime.submitters` and docs/simulated-time.md).

    .. versionadded:: 0.4

    :param runtime: the scenario's runtime (reader, clock, seed, options)
    :return: submitters; their names must be unique
    """


# --- the embedded cluster --------------------------------------------------


@hookspec
def kubesim_admission(request: AdmissionRequest, runtime: Runtime | None) -> AdmissionResponse | None:
    """Mutating or validating admission of every write to the embedded cluster.

    Called twice per write: with `request.phase == "mutating"` (a response may carry
    a JSON patch for the object) and then `"validating"` (a response may only deny).
    Each plugin's implementation is called on its own, in pluggy's call order, so a
    mutating plugin sees the earlier ones' patches (chained webhooks). Decorate the
    implementation with `kubesim.cluster.admission_rules(kinds=..., operations=...,
    phases=..., subresources=...)` (under `@hookimpl`) to be called only on those writes,
    as a webhook's rules select its requests; without it, every write reaches it.

    :param request: the write: operation, resource, object, old object, actor
    :param runtime: the scenario's runtime, to read the cluster (`runtime.reader`) as a
        webhook reads it through its client; optional: declare it only if needed.
        None when no runtime hosts the cluster.

        .. versionadded:: 0.2
    :return: None to admit unchanged, or an AdmissionResponse that denies or patches
    """


@hookspec
def kubesim_custom_resources() -> Sequence[Mapping[str, Any]]:
    """CustomResourceDefinitions a plugin brings (apiextensions.k8s.io/v1 objects).

    They are registered in the embedded cluster before every scenario starts.

    :return: CRD objects as dicts
    """


# --- results ---------------------------------------------------------------


@hookspec
def kubesim_result_aggregators() -> Mapping[str, Any]:
    """Result aggregators by name, used by `kubesim.results` and `kubesim report`.

    An aggregator follows `kubesim.results.Aggregator`: `initial()`, `fold(acc, event,
    state)` over every timeline event, `table(acc)` -> `kubesim.results.Table`.

    :return: mapping of aggregator (table) name to aggregator object
    """


# --- sweeps ----------------------------------------------------------------


@hookspec
def kubesim_scenario_generators() -> Mapping[str, Any]:
    """Scenario generators by name, for a Sweep's `scenarios: [{generator: NAME, parameters: ...}]`.

    A generator is a callable `generate(parameters, seed) -> dict`: it gets the sweep's
    `parameters` mapping and the cell's seed and returns one Scenario document (the same
    inputs must give the same document). It raises ValueError with a message naming the
    parameter when `parameters` are wrong.

    :return: mapping of generator name to generator callable
    """


# --- command line ----------------------------------------------------------


@hookspec
def kubesim_run_options() -> Sequence[click.Option]:
    """Extra `kubesim run` options (e.g. --scheduler-config from kubesim-scheduler).

    Their values reach controllers as `runtime.options[<param name>]`.

    :return: click options; their names must be unique
    """
