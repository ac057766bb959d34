"""`kubesim capacity`: capacity questions on a cluster, answered by the real scheduler."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from kubesim.capacity import (
    MAX_COPIES,
    MAX_NODES,
    SchedulingSimulator,
    cluster_objects,
    count_copies,
    find_removable_nodes,
    load_node_template,
    load_pod_template,
    nodes_to_add,
    pending_pods,
    pod_copies,
)
from kubesim.capacity.copies import pod_key
from kubesim.capacity.report import addition_table, fit_table, removal_table
from kubesim.cli.logconfig import configure_logging
from kubesim.cli.report import EXIT_FAILED, EXIT_INVALID, fail
from kubesim.errors import InvalidInput, Problem
from kubesim.plugins import Hooks

__all__ = ["capacity_command"]



def _fail(problems: Sequence[Problem | str]) -> None:
    for problem in problems:
        click.echo(f"error: {problem}", err=True)
    sys.exit(EXIT_INVALID)


def _scenario_cluster(hooks: Hooks, seed: int, plugin_options: Mapping[str, Any]) -> Callable[[str], list[dict[str, Any]]]:
    """Run a scenario file as `kubesim run` would and return its final cluster's objects."""

    def run(path: str) -> list[dict[str, Any]]:
        from kubesim.api import ScenarioPhase
        from kubesim.cli.validate import check_step_times, load_and_validate
        from kubesim.scenario import EngineOptions, Simulator

        scenarios = load_and_validate([path], hooks)
        options = EngineOptions(seed=seed, plugin_options=dict(plugin_options))
        check_step_times(options, scenarios)
        simulator = Simulator(hooks, options)
        simulator.run(scenarios)
        last = simulator.runs[-1]
        if last.scenario.status.phase == ScenarioPhase.FAILED:
            raise InvalidInput([Problem("", f"scenario {last.scenario.name!r} failed: {last.scenario.status.message}", path)])
        return [o for o in last.cluster.objects() if o.get("kind") != "Scenario"]

    return run


def capacity_command(hooks: Hooks) -> click.Command:
    """The `capacity` command, with the scheduler's `run` options (--scheduler-config ...)."""

    @click.command()
    @click.option("--cluster", "cluster_file", type=click.Path(dir_okay=False),
                  help="The cluster: a scenario file (its final state, as `kubesim run` leaves it) or a "
                       "kubectl-style List (e.g. `kubesim run --export-cluster` output).")
    @click.option("--kubeconfig", type=click.Path(dir_okay=False),
                  help="Or a live cluster, read through this kubeconfig as `kubesim import` reads it "
                       "(default with --context: $KUBECONFIG or ~/.kube/config).")
    @click.option("--context", help="The kubeconfig context of the live cluster (default: its current-context).")
    @click.option("--pod", "pod_file", type=click.Path(dir_okay=False),
                  help="How many more copies of this pod fit (with --add-nodes: --count copies to place too).")
    @click.option("--max", "max_copies", type=click.IntRange(min=1), default=None,
                  help=f"Stop after this many copies of --pod fit [default: {MAX_COPIES}].")
    @click.option("--add-nodes", "node_file", type=click.Path(dir_okay=False),
                  help="The fewest nodes like this Node to add so that every pending pod schedules.")
    @click.option("--count", type=click.IntRange(min=1), default=1, show_default=True,
                  help="With --add-nodes and --pod: copies of the pod to place besides the pending pods.")
    @click.option("--max-nodes", type=click.IntRange(min=1), default=MAX_NODES, show_default=True,
                  help="With --add-nodes: the most nodes to try.")
    @click.option("--remove-nodes", is_flag=True,
                  help="Which nodes can be drained with every pod rescheduled elsewhere (least utilised first).")
    @click.option("-o", "--output", "output", type=click.Choice(["table", "json"]), default="table",
                  show_default=True, help="Output format.")
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed of the scheduler's tie-breaking.")
    @click.pass_context
    def capacity(ctx: click.Context, /, cluster_file: str | None, kubeconfig: str | None, context: str | None,
                 pod_file: str | None, max_copies: int | None,
                 node_file: str | None, count: int, max_nodes: int, remove_nodes: bool, output: str, seed: int,
                 **plugin_options: Any) -> None:
        """Answer a capacity question with the real scheduler, on the cluster in --cluster or a live
        cluster (--kubeconfig/--context): --pod (how many more copies fit), --add-nodes (how many
        nodes to add) or --remove-nodes (which nodes can be drained)."""
        configure_logging(-1)
        _check_question(ctx, pod_file, node_file, remove_nodes)
        if (cluster_file is None) == (kubeconfig is None and context is None):
            _fail(["give the cluster: --cluster FILE, or --kubeconfig/--context for a live cluster (not both)"])
        try:
            if cluster_file is not None:
                objects = cluster_objects(cluster_file, _scenario_cluster(hooks, seed, plugin_options))
            else:
                objects = _live_objects(kubeconfig, context)
            template = load_pod_template(pod_file) if pod_file else None
            node_template = load_node_template(node_file) if node_file else None
        except InvalidInput as exc:
            _fail(exc.problems)
        make = _simulator(hooks, plugin_options, seed)
        taken = {pod_key(o) for o in objects if o.get("kind") == "Pod"}
        data: Any
        if node_template is not None:
            pods = list(pending_pods(objects))
            if template is not None:
                copies = pod_copies(template, taken)
                pods.extend(next(copies) for _ in range(count))
            addition = nodes_to_add(make, objects, node_template, pods, max_nodes)
            data, text = addition.to_json(), addition_table(addition)
        elif remove_nodes:
            removal = find_removable_nodes(make(objects), objects)
            data, text = removal.to_json(), removal_table(removal)
        else:
            assert template is not None
            fit = count_copies(make(objects), template, sorted(taken), max_copies or MAX_COPIES)
            data, text = fit.to_json(), fit_table(fit)
        if output == "json":
            click.echo(json.dumps(data, indent=2, sort_keys=True))
        else:
            click.echo(text, nl=False)

    for option in hooks.run_options():
        capacity.params.append(option)
    return capacity


def _live_objects(kubeconfig: str | None, context: str | None) -> list[dict[str, Any]]:
    """The live cluster's objects as the server returns them (not cleaned: the drain rules read
    ownerReferences), through `kubesim import`'s reader."""
    from kubesim.importing import KubeconfigError, LiveImportError, read_cluster

    try:
        return read_cluster(kubeconfig, context)
    except KubeconfigError as exc:
        fail(str(exc), EXIT_INVALID)
    except LiveImportError as exc:
        fail(str(exc), EXIT_FAILED)


def _check_question(ctx: click.Context, pod_file: str | None, node_file: str | None, remove_nodes: bool) -> None:
    """Exactly one question: --pod, --add-nodes (with --pod optional) or --remove-nodes."""
    given = {name for name in ("max_copies", "count", "max_nodes")
             if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE}
    if remove_nodes and (pod_file or node_file):
        _fail(["--remove-nodes is a question of its own: drop --pod and --add-nodes"])
    if not (pod_file or node_file or remove_nodes):
        _fail(["give a question: --pod FILE, --add-nodes FILE or --remove-nodes"])
    if node_file and "max_copies" in given:
        _fail(["--max counts copies for --pod alone; with --add-nodes use --count"])
    if not node_file and given & {"count", "max_nodes"}:
        _fail([f"--{sorted(given & {'count', 'max_nodes'})[0].replace('_', '-')} goes with --add-nodes"])


def _simulator(hooks: Hooks, options: Mapping[str, Any],
               seed: int) -> Callable[[Sequence[Mapping[str, Any]]], SchedulingSimulator]:
    """A factory of fresh what-if schedulers over given objects (the plugin's, through the hook)."""
    if hooks.scheduling_simulator([], options, seed) is None:
        _fail(["no installed plugin provides a scheduler (install kubesim-scheduler)"])

    def make(objects: Sequence[Mapping[str, Any]]) -> SchedulingSimulator:
        return hooks.scheduling_simulator(objects, options, seed)  # type: ignore[no-any-return]

    return make
