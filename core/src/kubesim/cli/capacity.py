"""`kubesim capacity`: capacity questions on a cluster, answered by the real scheduler."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from kubesim.capacity import (
    MAX_COPIES,
    SchedulingSimulator,
    cluster_objects,
    count_copies,
    load_pod_template,
)
from kubesim.capacity.copies import pod_key
from kubesim.capacity.report import fit_table
from kubesim.cli.logconfig import configure_logging
from kubesim.errors import InvalidInput, Problem
from kubesim.plugins import Hooks

__all__ = ["capacity_command"]

EXIT_INVALID = 2


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
    @click.option("--cluster", "cluster_file", required=True, type=click.Path(dir_okay=False),
                  help="The cluster: a scenario file (its final state, as `kubesim run` leaves it) or a "
                       "kubectl-style List (e.g. `kubesim run --export-cluster` output).")
    @click.option("--pod", "pod_file", type=click.Path(dir_okay=False),
                  help="How many more copies of this pod fit (with --add-nodes: pods to place too).")
    @click.option("--max", "max_copies", type=click.IntRange(min=1), default=None,
                  help=f"Stop after this many copies of --pod fit [default: {MAX_COPIES}].")
    @click.option("-o", "--output", "output", type=click.Choice(["table", "json"]), default="table",
                  show_default=True, help="Output format.")
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed of the scheduler's tie-breaking.")
    def capacity(cluster_file: str, pod_file: str | None, max_copies: int | None, output: str, seed: int,
                 **plugin_options: Any) -> None:
        """Answer a capacity question on the cluster in --cluster with the real scheduler."""
        configure_logging(-1)
        if pod_file is None:
            _fail(["give a question: --pod FILE"])
        try:
            objects = cluster_objects(cluster_file, _scenario_cluster(hooks, seed, plugin_options))
            template = load_pod_template(str(pod_file))
        except InvalidInput as exc:
            _fail(exc.problems)
        sim = _simulator(hooks, objects, plugin_options, seed)
        taken = [pod_key(o) for o in objects if o.get("kind") == "Pod"]
        report = count_copies(sim(), template, taken, max_copies or MAX_COPIES)
        if output == "json":
            click.echo(json.dumps(report.to_json(), indent=2, sort_keys=True))
        else:
            click.echo(fit_table(report), nl=False)

    for option in hooks.run_options():
        capacity.params.append(option)
    return capacity


def _simulator(hooks: Hooks, objects: Sequence[Mapping[str, Any]], options: Mapping[str, Any],
               seed: int) -> Callable[[], SchedulingSimulator]:
    """A factory of fresh what-if schedulers over `objects` (the plugin's, through the hook)."""
    if hooks.scheduling_simulator([], options, seed) is None:
        _fail(["no installed plugin provides a scheduler (install kubesim-scheduler)"])

    def make() -> SchedulingSimulator:
        return hooks.scheduling_simulator(objects, options, seed)  # type: ignore[no-any-return]

    return make
