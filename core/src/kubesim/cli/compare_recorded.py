"""`kubesim compare --recorded RESULT`: a replay of a `kubesim record` scenario against the
recorded cluster's own scheduler (kubesim.results.recorded)."""

from __future__ import annotations

import io
import json

import click
from rich.console import Console
from rich.table import Table as RichTable

from kubesim.cli import consoles
from kubesim.cli.output import write_atomic
from kubesim.cli.report import invalid, load_selected, pick_one
from kubesim.errors import InvalidInput
from kubesim.results.recorded import RecordedComparison, compare_recorded

__all__ = ["compare_with_recording", "render_recorded"]


def render_recorded(c: RecordedComparison, console: Console, *, rows: int) -> None:
    """Summary, the workloads' pods per node (recorded | replay), and the pods placed differently."""
    s = c.summary()
    console.print(f"[bold]Recorded cluster[/bold] vs [bold]kubesim[/bold] (scenario {c.scenario})")
    console.print(f"Pods the recorded scheduler bound during the recording: {s['pods']}: "
                  f"{s['same_node']} on the same node, {s['another_node']} on another node, "
                  f"{s['never_bound']} never bound by kubesim")
    console.print(f"Pods running at the end: recorded {s['running_recorded']}, kubesim {s['running_simulated']}; "
                  f"{s['running_on_same_node']} on the same node as their workload's recorded pods")
    differing = [r for r in c.workloads.records() if r["recorded"] != r["simulated"]]
    w = RichTable(title=f"Workloads with other pod counts per node ({len(differing)} of {len(c.workloads)} rows)",
                  title_justify="left")
    for col, justify in (("workload", "left"), ("node", "left"), ("recorded", "right"), ("kubesim", "right")):
        w.add_column(col, justify=justify)  # type: ignore[arg-type]
    for r in differing[:rows]:
        w.add_row(r["workload"], r["node"], str(r["recorded"]), str(r["simulated"]))
    if len(differing) > rows:
        w.caption = f"first {rows} of {len(differing)} (--rows N for more, --json for all)"
    console.print(w)
    moved = [r for r in c.pods.records() if r["outcome"] != "same node"]
    p = RichTable(title=f"Pods kubesim placed differently ({len(moved)} of {len(c.pods)})", title_justify="left")
    for col in ("pod", "recorded node", "kubesim node", "outcome"):
        p.add_column(col)
    for r in moved[:rows]:
        p.add_row(f"{r['namespace']}/{r['name']}", r["recorded_node"], r["simulated_node"] or "-",
                  r["outcome"] + (" (deleted later)" if r["deleted"] else ""))
    if len(moved) > rows:
        p.caption = f"first {rows} of {len(moved)} (--rows N for more, --json for all)"
    console.print(p)


def compare_with_recording(path: str, scenario: str | None, *, as_json: bool, output: str | None, rows: int) -> None:
    """Load the replay's result, compare it with the recording it replays, print or write it."""
    result = pick_one(path, load_selected(path), scenario)
    try:
        comparison = compare_recorded(result, path)
    except InvalidInput as exc:
        invalid(exc)
    if as_json or (output is not None and output.endswith(".json")):
        text = json.dumps(comparison.to_data(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    elif output is not None:
        buf = io.StringIO()
        render_recorded(comparison, Console(file=buf, width=140, color_system=None, force_terminal=False), rows=rows)
        text = buf.getvalue()
    else:
        render_recorded(comparison, consoles.console(), rows=rows)
        return
    if output is not None:
        write_atomic(output, text)
    else:
        click.echo(text, nl=False)
