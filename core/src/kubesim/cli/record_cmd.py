"""`kubesim record`: a live cluster's changes over a while, as a Scenario to replay.

Exit codes: 0 when the recording was written, 1 when it ended early (the partial recording is
written) or the cluster could not be read, 2 for invalid input (a flag, the kubeconfig).
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from datetime import timedelta

import click

from kubesim.cli.import_cmd import served_by_kubesim, write_scenario
from kubesim.cli.output import OutputError, check_output
from kubesim.cli.params import DURATION
from kubesim.cli.report import EXIT_FAILED, EXIT_INVALID, fail
from kubesim.importing import WORKLOAD_POD_MODES, KubeconfigError, LiveImportError
from kubesim.importing.live_watch import MAX_CHANGES, RecordingStopped, record_cluster
from kubesim.plugins import Hooks

__all__ = ["record_command"]

MAX_DURATION = timedelta(days=7)


def record_command(hooks: Hooks) -> click.Command:
    """The `record` command."""

    @click.command("record")
    @click.option("--kubeconfig", type=click.Path(dir_okay=False), help="The kubeconfig of the live cluster (default: $KUBECONFIG or ~/.kube/config).")
    @click.option("--context", help="The kubeconfig context to use (default: its current-context).")
    @click.option("-n", "--namespace", "namespaces", multiple=True, help="Record only this namespace's objects (repeatable; cluster-scoped objects are all recorded).")
    @click.option("-l", "--selector", help="Label selector for namespaced objects.")
    @click.option("--duration", type=DURATION, required=True, help="How long to record (e.g. 10m, 24h; at most 168h). Ctrl-C ends it early and keeps what was recorded.")
    @click.option("--step-duration", type=DURATION, default="10s", show_default=True, help="The wall time each step of the scenario covers.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the Scenario here (.json: JSON, else YAML; default: stdout).")
    @click.option("--name", default="recorded", show_default=True, help="The Scenario's name.")
    @click.option("--workload-pods", type=click.Choice(WORKLOAD_POD_MODES), default="keep", show_default=True,
                  help="For the initial state, as `kubesim import --workload-pods`.")
    @click.option("--max-changes", type=click.IntRange(min=1), default=MAX_CHANGES, show_default=True,
                  help="Stop (and write what was recorded) after this many changes.")
    @click.option("-q", "--quiet", count=True, help="No summary on stderr.")
    def record(kubeconfig: str | None, context: str | None, namespaces: tuple[str, ...], selector: str | None,
               duration: timedelta, step_duration: timedelta, output: str | None, name: str, workload_pods: str,
               max_changes: int, quiet: int) -> None:
        """Record a live cluster's changes for --duration as a Scenario: its state at the start
        (step 0, as `kubesim import`), then each change on the step of its wall time.

        Pods the cluster's scheduler bound are recorded pending, with the node it chose in the
        record.kubesim.io/node annotation: replayed with `kubesim run`, the simulated scheduler
        decides (with any --scheduler-config) and the annotation shows where they differ.
        """
        if not timedelta(0) < duration <= MAX_DURATION:
            fail(f"--duration: must be more than 0s and at most {MAX_DURATION.days * 24}h", EXIT_INVALID)
        if step_duration <= timedelta(0):
            fail("--step-duration: must be more than 0s", EXIT_INVALID)
        if output:
            try:
                check_output(output)
            except OutputError as exc:
                fail(str(exc), EXIT_INVALID)
        stop = threading.Event()
        code = 0
        try:
            def started(objects: int) -> None:
                if quiet == 0:
                    click.echo(f"recording: {objects} objects at the start; watching for {duration} "
                               f"(Ctrl-C ends it early)", err=True)

            recording = record_cluster(kubeconfig, context, namespaces, selector or None, duration.total_seconds(),
                                       step_duration.total_seconds(), max_changes, stop=stop, keep=served_by_kubesim(hooks),
                                       started=started)
        except KeyboardInterrupt:  # Ctrl-C: the recording so far is not available here; nothing to keep
            fail("interrupted before the recording started", EXIT_FAILED)
        except RecordingStopped as exc:
            click.echo(f"error: {exc}", err=True)
            recording, code = exc.recording, EXIT_FAILED
        except KubeconfigError as exc:
            fail(str(exc), EXIT_INVALID)
        except LiveImportError as exc:
            fail(str(exc), EXIT_FAILED)
        scenario = recording.scenario(name=name, workload_pods=workload_pods)
        write_scenario(scenario, output)
        if quiet == 0:
            ops = scenario["spec"]["operations"]
            later = Counter(next(k for k in op if k.endswith("Operation")) for op in ops if op["step"] > 0)
            click.echo(f"recorded {recording.seconds:.0f}s: {sum(1 for op in ops if op['step'] == 0)} objects at "
                       f"step 0, then {', '.join(f'{n} {k}' for k, n in sorted(later.items())) or 'no changes'}"
                       + (f"; wrote {output}" if output else ""), err=True)
        sys.exit(code)

    return record
