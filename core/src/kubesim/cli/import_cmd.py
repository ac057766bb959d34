"""`kubesim import`: a live cluster (kubeconfig) or dump files as a Scenario.

Exit codes: 0 when the scenario was written, 1 when the cluster could not be read or the
output not written, 2 for invalid input (a file, a flag, the kubeconfig).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import click
import yaml
from click.core import ParameterSource
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from kubesim.cli.output import OutputError, check_output, dump, write_atomic
from kubesim.cli.report import EXIT_FAILED, EXIT_INVALID, fail, invalid
from kubesim.cluster import ResourceRegistry
from kubesim.errors import ApiError, InvalidInput
from kubesim.importing import (
    IMPORT_LIMITS,
    WORKLOAD_POD_MODES,
    KubeconfigError,
    LiveImportError,
    read_cluster,
    read_objects,
    scenario_from_objects,
    select_objects,
)
from kubesim.input_limits import Limits
from kubesim.plugins import Hooks
from kubesim.simtime.kcs_config import KcsConfig, kcs_config_in, simulated_time_spec

__all__ = ["import_command", "served_by_kubesim", "write_scenario"]

_stderr = Console(stderr=True)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def served_by_kubesim(hooks: Hooks) -> Callable[[dict[str, Any]], bool]:
    """Whether kubesim (with the installed plugins' CRDs) serves an object's kind."""
    registry = ResourceRegistry()
    for crd in hooks.custom_resources():
        registry.register_crd(dict(crd))

    def served(obj: dict[str, Any]) -> bool:
        try:
            registry.lookup(obj["apiVersion"], obj["kind"])
        except ApiError:
            return False
        return True

    return served


def _render(scenario: dict[str, Any], output: str | None) -> str:
    """JSON for a .json output, YAML otherwise (stdout too)."""
    if output and output.endswith(".json"):
        return dump(scenario, output)
    return str(yaml.dump(scenario, Dumper=_DUMPER, sort_keys=False, allow_unicode=True))


def write_scenario(scenario: dict[str, Any], output: str | None) -> None:
    """Write the Scenario to `output` (atomically; exit 1 when it cannot be) or to stdout."""
    text = _render(scenario, output)
    if output:
        try:
            write_atomic(output, text)
        except OutputError as exc:
            fail(str(exc), EXIT_FAILED)
    else:
        sys.stdout.write(text)


def _kcs_config(files: tuple[str, ...], max_bytes: int) -> KcsConfig | None:
    """The first k8s-cluster-simulator config among the --from files (its tick, clock and metrics tick)."""
    for path in files:
        config = kcs_config_in(path, Limits(max_bytes, IMPORT_LIMITS.max_depth))
        if config is not None:
            return config
    return None


def import_command(hooks: Hooks) -> click.Command:
    """The `import` command."""

    @click.command("import")
    @click.option("--from", "files", multiple=True, type=click.Path(dir_okay=False),
                  help="Read objects from FILE instead of a live cluster (repeatable): a kubectl List (yaml/json), "
                       "`kubesim run --export-cluster` output, a KWOK snapshot, a kube-scheduler-simulator export, "
                       "a k8s-cluster-simulator config (its nodes, and its tick as spec.simulatedTime).")
    @click.option("--kubeconfig", type=click.Path(dir_okay=False),
                  help="The kubeconfig of the live cluster (default: $KUBECONFIG or ~/.kube/config).")
    @click.option("--context", help="The kubeconfig context to use (default: its current-context).")
    @click.option("-n", "--namespace", "namespaces", multiple=True,
                  help="Import only this namespace's objects (repeatable; cluster-scoped objects are all imported).")
    @click.option("-l", "--selector", help="Label selector for namespaced objects (e.g. app=web,tier!=cache).")
    @click.option("-o", "--output", type=click.Path(dir_okay=False),
                  help="Write the Scenario here (.json: JSON, else YAML; default: stdout).")
    @click.option("--name", default="imported", show_default=True, help="The Scenario's name.")
    @click.option("--workload-pods", type=click.Choice(WORKLOAD_POD_MODES), default="keep", show_default=True,
                  help="keep: pods of ReplicaSets and StatefulSets stay on their nodes (Deployments paused); "
                       "controller: they are left to the workload's controller to create and schedule anew.")
    @click.option("--done/--no-done", default=True, show_default=True,
                  help="End the scenario with a doneOperation at step 2.")
    @click.option("--max-bytes", type=click.IntRange(min=1), default=IMPORT_LIMITS.max_bytes, show_default=True,
                  help="The largest --from file read, in bytes.")
    @click.option("-q", "--quiet", count=True, help="No progress bar or summary on stderr.")
    def import_(files: tuple[str, ...], kubeconfig: str | None, context: str | None, namespaces: tuple[str, ...],
                selector: str | None, output: str | None, name: str, workload_pods: str, done: bool,
                max_bytes: int, quiet: int) -> None:
        """Import a cluster's scheduling state as a Scenario: a live cluster through a kubeconfig,
        or the files given with --from.

        Step 0 creates namespaces, PriorityClasses, StorageClasses, CSIDrivers, PersistentVolumes,
        nodes, CSINodes, storage capacities, DRA objects, claims, PodDisruptionBudgets, bound pods and workloads; step 1
        the pending pods. Secrets and ConfigMaps are never imported.
        """
        if files and (kubeconfig or context or namespaces or selector):
            fail("--from reads files: --kubeconfig, --context, --namespace and --selector are for a live cluster",
                 EXIT_INVALID)
        if output:
            try:
                check_output(output)
            except OutputError as exc:
                fail(str(exc), EXIT_INVALID)
        show = _stderr.is_terminal and quiet == 0
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
                      console=_stderr, transient=True, disable=not show) as progress:
            task = progress.add_task("importing", total=None)
            try:
                if files:
                    raw = []
                    for i, path in enumerate(files):
                        progress.update(task, description=f"reading {path}", completed=i, total=len(files))
                        raw.extend(read_objects(path, Limits(max_bytes, IMPORT_LIMITS.max_depth)))
                else:
                    def on_page(kind: str, count: int) -> None:
                        progress.update(task, description=f"listing {kind}: {count}")

                    raw = read_cluster(kubeconfig, context, namespaces, selector or None, progress=on_page)
            except InvalidInput as exc:
                invalid(exc)
            except KubeconfigError as exc:
                fail(str(exc), EXIT_INVALID)
            except LiveImportError as exc:
                fail(str(exc), EXIT_FAILED)
            progress.update(task, description=f"cleaning {len(raw)} objects")
            selection = select_objects(raw)
            served = served_by_kubesim(hooks)
            unserved = Counter(f"{o['apiVersion']} {o['kind']} (not served by kubesim)"
                               for o in selection.objects if not served(o))
            objects = [o for o in selection.objects if served(o)]
            kcs = _kcs_config(files, max_bytes)
            if kcs is not None and click.get_current_context().get_parameter_source("done") != ParameterSource.COMMANDLINE:
                done = False  # a k8s-cluster-simulator config runs in simulated time until its work ends
            scenario = scenario_from_objects(objects, name=name, workload_pods=workload_pods, done=done)
            if kcs is not None:
                scenario["spec"]["simulatedTime"] = simulated_time_spec(kcs)
        write_scenario(scenario, output)
        if quiet == 0:
            ops = scenario["spec"]["operations"]
            kinds = Counter(op["createOperation"]["object"]["kind"] for op in ops if "createOperation" in op)
            pending = sum(1 for op in ops if op["step"] == 1)
            by_kind = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
            click.echo(f"imported {sum(kinds.values())} objects ({by_kind}); {pending} pending pods at step 1"
                       + (f"; wrote {output}" if output else ""), err=True)
            for reason, n in sorted({**selection.skipped, **unserved}.items()):
                click.echo(f"skipped {n} {reason}", err=True)

    return import_
