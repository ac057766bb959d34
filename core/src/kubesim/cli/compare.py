"""`kubesim compare`: two runs of one scenario (or two result files) side by side.

`kubesim compare scenario.yaml --scheduler-config a.yaml --scheduler-config b.yaml`
runs the scenario twice: every option a plugin adds to `kubesim run` may be given up to
twice, the first value for run A (the baseline) and the second for run B; given once,
it applies to both; an empty value (`--scheduler-config=`) leaves it unset for that
run. The other run flags (--seed, ...) apply to both.
`kubesim compare a.json b.json` compares two results that `kubesim run -o` wrote.
`kubesim compare --recorded result.json` compares a replay of a `kubesim record` scenario
with what the recorded cluster's scheduler did (kubesim.cli.compare_recorded).

Two result files must be of the same scenario (equal status.scenarioResult.scenarioHash,
the hash of the spec, kubesim.api.digest): else compare exits 2 unless `--force`.

Exit codes: 0; 1 when `--fail-if-worse METRIC` finds B worse than A on METRIC, or a
run failed; 2 for invalid input (results of different scenarios without --force).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table as RichTable

from kubesim.api import Scenario, ScenarioPhase, unstructure
from kubesim.api.digest import spec_hash
from kubesim.api.loader import load_documents
from kubesim.input_limits import RESULT_LIMITS
from kubesim.cli import consoles
from kubesim.cli.compare_recorded import compare_with_recording
from kubesim.cli.logconfig import configure_logging
from kubesim.cli.output import dump, write_atomic
from kubesim.cli.params import DURATION, TIME
from kubesim.cli.report import EXIT_FAILED, EXIT_INVALID, fail, invalid, pick_one
from kubesim.cli.validate import check_step_times, load_and_validate
from kubesim.clock import DEFAULT_EPOCH
from kubesim.controllers.settle import MAX_OBJECTS, SettleLimits
from kubesim.errors import InvalidInput
from kubesim.plugins import Hooks
from kubesim.results import AggregatorError, ResultTables, analyze, is_result_document, parse_results
from kubesim.results.compare import METRICS, Comparison, compare
from kubesim.results.gcpause import paused_gc
from kubesim.scenario import EngineOptions, Simulator

__all__ = ["check_same_scenario", "compare_command", "paired_option", "render_comparison"]

DEFAULT_ROWS = 30

_UNSET: object = None
try:  # click >= 8.3 gives options without a default this sentinel as their default
    from click._utils import UNSET as _UNSET
except ImportError:  # pragma: no cover - older click returns None
    pass


def paired_option(option: click.Option) -> click.Option:
    """A copy of a `kubesim run` option that may be given twice (A's value, then B's)."""
    if option.is_flag or option.count:
        return option  # a flag applies to both runs
    original = option.callback

    def check(ctx: click.Context, param: click.Parameter, given: Any) -> tuple[Any, ...]:
        values: tuple[Any, ...] = tuple(given or ())
        if len(values) > 2:
            raise click.BadParameter(f"given {len(values)} times; give it once (both runs) or twice (A, then B)",
                                     ctx=ctx, param=param)
        # an empty value leaves the option unset for that run (e.g. the default scheduler profile)
        values = tuple(None if v == "" else v for v in values)
        if original is not None:
            values = tuple(v if v is None else original(ctx, param, v) for v in values)
        return values

    help_text = (option.help or "").rstrip(".")
    flag = max(option.opts, key=len)
    return click.Option(
        option.opts, type=option.type, multiple=True, callback=check, metavar=option.metavar,
        help=f"{help_text}. Give twice: first for run A, second for run B ({flag}= leaves it unset).",
    )


def _split(option: click.Option, values: tuple[Any, ...]) -> tuple[Any, Any]:
    """(A's value, B's value): the option's default when not given, the one value when given once."""
    default = option.get_default(click.get_current_context())
    if default is _UNSET:
        default = None  # what the option's value is in `kubesim run` when not given
    if not values:
        return default, default
    return values[0], values[-1]


def _describe(option: click.Option, value: Any) -> str:
    flag = max(option.opts, key=len)
    return f"{flag} {Path(str(value)).name if value is not None else '(default)'}"


def _load_pair(files: Sequence[str], scenario: str | None) -> list[Scenario] | None:
    """Both results when FILES are two result files; None when FILES is one scenario file."""
    with paused_gc():
        docs_per_file = []
        for f in files:
            try:
                docs_per_file.append(load_documents(f, RESULT_LIMITS))
            except InvalidInput as exc:
                invalid(exc)
        if len(files) == 1:
            if all(is_result_document(d) for d in docs_per_file[0]):
                fail(f"{files[0]} is a result: give two result files, or one scenario file to run twice",
                     EXIT_INVALID)
            return None
        picked = []
        for f, docs in zip(files, docs_per_file):
            try:
                results = parse_results(docs, f)  # names the field that shows a file is not a result
            except InvalidInput as exc:
                invalid(exc)
            picked.append(pick_one(f, results, scenario))
        return picked


def _scenario_hash(file: str, result: Scenario) -> str:
    """The result's stored scenario hash; for a result of an older kubesim (none stored), the
    hash of the spec it holds, with a warning that says so."""
    stored = result.status.scenario_result.scenario_hash if result.status.scenario_result else None
    if stored is not None:
        return stored
    click.echo(f"warning: {file}: scenario hash unknown (a result of an older kubesim): "
               "comparing the specs the results hold instead", err=True)
    return spec_hash(unstructure(result.spec))


def check_same_scenario(files: Sequence[str], results: Sequence[Scenario], *, force: bool) -> None:
    """Exit 2 when two results are of different scenarios (their scenario hashes differ),
    unless `force`, which only warns."""
    (fa, a), (fb, b) = zip(files, results)
    ha, hb = _scenario_hash(fa, a), _scenario_hash(fb, b)
    if ha == hb:
        return
    what = (f"{fa} (scenario {a.name}, {ha[:19]}) and {fb} (scenario {b.name}, {hb[:19]}) are results "
            "of different scenarios")
    if not force:
        fail(f"{what}: compare two runs of the same scenario, or give --force", EXIT_INVALID)
    click.echo(f"warning: {what} (--force: compared anyway)", err=True)


def _fmt(v: Any, pct: bool = False) -> str:
    if v is None:
        return "-"
    if pct:
        return f"{v:.1%}"
    if isinstance(v, float):
        return f"{v:.3g}" if not v.is_integer() else str(int(v))
    return str(v)


def render_comparison(c: Comparison, console: Console, *, rows: int = DEFAULT_ROWS) -> None:
    """Print the comparison as tables: metrics, per step, pods placed or scored differently."""
    console.print(f"[bold]A[/bold] (baseline): {c.a}\n[bold]B[/bold] (candidate): {c.b}")
    t = RichTable(title="Summary", title_justify="left")
    for col in ("metric", "A", "B", "B vs A", "better is"):
        t.add_column(col)
    for m in c.metrics.values():
        pct = m.name in ("allocation", "fragmentation")
        verdict = "[red]worse[/red]" if m.worse else "[green]better[/green]" if m.improved else "same"
        t.add_row(f"{m.name}: {m.description}", _fmt(m.a, pct), _fmt(m.b, pct), verdict, m.better)
    console.print(t)
    s = RichTable(title="Per step (A | B)", title_justify="left")
    for col in ("step", "pending", "scheduled", "unschedulable", "preempted", "allocation", "fragmentation"):
        s.add_column(col, justify="right", no_wrap=True)
    for r in c.steps:
        cells = [str(r["step"])]
        for f in ("pending", "scheduled", "unschedulable", "preempted", "allocation", "fragmentation"):
            pct = f in ("allocation", "fragmentation")
            a, b = _fmt(r[f"{f}_a"], pct), _fmt(r[f"{f}_b"], pct)
            cells.append(a if a == b else f"[yellow]{a} | {b}[/yellow]")
        s.add_row(*cells)
    console.print(s)
    placements = c.placements
    p = RichTable(title=f"Pods placed or scored differently ({len(c.pods)}; {len(placements)} on another node)",
                  title_justify="left")
    for col in ("pod", "node A", "node B", "score A", "score B", "score B-A"):
        p.add_column(col)
    for r in c.pods[:rows]:
        moved = r["node_a"] != r["node_b"]
        style = "bold" if moved else ""
        p.add_row(f"{r['namespace']}/{r['name']}", _fmt(r["node_a"] or r["state_a"]), _fmt(r["node_b"] or r["state_b"]),
                  _fmt(r["score_a"]), _fmt(r["score_b"]), _fmt(r["score_delta"]), style=style)
    if len(c.pods) > rows:
        p.caption = f"first {rows} of {len(c.pods)} (--rows N for more, --json for all)"
    console.print(p)


def _run_both(files: Sequence[str], hooks: Hooks, paired: dict[str, tuple[click.Option, tuple[Any, ...]]],
              shared: dict[str, Any], common: dict[str, Any], scenario: str | None,
              keep: str | None) -> tuple[list[Scenario], tuple[str, str]]:
    """Run the scenario as A and as B; returns both results and their labels."""
    runs = []
    labels = []
    for side in (0, 1):
        plugin_options = dict(shared)
        differs = []
        for name, (option, values) in paired.items():
            value = _split(option, values)[side]
            plugin_options[name] = value
            if len(set(map(str, values))) > 1:
                differs.append(_describe(option, value))
        try:
            scenarios = load_and_validate(files, hooks, allow_unknown_targets=common["allow_unknown_targets"])
            options = EngineOptions(plugin_options=plugin_options, **common)
        except InvalidInput as exc:
            invalid(exc)
        if scenario is not None:
            scenarios = [s for s in scenarios if s.name == scenario]
        picked = pick_one(files[0], scenarios, scenario)
        try:
            check_step_times(options, [picked])
        except InvalidInput as exc:
            invalid(exc)
        [result] = Simulator(hooks, options).run([picked])
        if result.status.phase == ScenarioPhase.FAILED:
            click.echo(f"error: run {'AB'[side]} failed: {result.status.message}", err=True)
        runs.append(result)
        labels.append(f"{Path(files[0]).name}" + (f" with {', '.join(differs)}" if differs else ""))
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            target = Path(keep) / f"result-{'ab'[side]}.json"
            write_atomic(target, dump(unstructure(result), target))
    return runs, (labels[0], labels[1])


def compare_command(hooks: Hooks) -> click.Command:
    """The `compare` command, with the plugins' run options made pairable."""
    originals = hooks.run_options()
    paired_options = [paired_option(o) for o in originals]
    pairable = {o.name: o for o in originals if o.name is not None and not (o.is_flag or o.count)}

    @click.command("compare")
    @click.argument("files", nargs=-1, required=True)
    @click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False),
                  help="Write the output to this file instead of stdout (JSON with --json or a .json name).")
    @click.option("--fail-if-worse", "fail_if_worse", type=click.Choice(list(METRICS)), multiple=True,
                  help="Exit 1 when B is worse than A on this metric (may be given several times).")
    @click.option("--rows", type=int, default=DEFAULT_ROWS, show_default=True,
                  help="Pods listed in the terminal table.")
    @click.option("--scenario", help="The scenario of this name (files may hold several).")
    @click.option("--force", is_flag=True,
                  help="Compare two result files even when they are of different scenarios.")
    @click.option("--recorded", is_flag=True,
                  help="FILES is one result of replaying a `kubesim record` scenario: compare its placements "
                       "with the recorded cluster's scheduler's.")
    @click.option("--keep-results", type=click.Path(file_okay=False),
                  help="Scenario mode: write the two results to this directory (result-a.json, result-b.json).")
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed for both runs.")
    @click.option("--step-duration", type=DURATION, default="10s", show_default=True,
                  help="Simulated time between MajorSteps.")
    @click.option("--start-time", type=TIME, default=DEFAULT_EPOCH.strftime("%Y-%m-%dT%H:%M:%SZ"),
                  show_default=True, help="Simulated time of step 0.")
    @click.option("--allow-unknown-targets", is_flag=True,
                  help="Allow patch/delete of objects no earlier operation creates.")
    @click.option("--max-objects", type=click.IntRange(min=1), default=MAX_OBJECTS, show_default=True,
                  help="Fail a run whose cluster grows past this many objects.")
    @click.option("-v", "--verbose", count=True, help="Log the runs (info; -vv for debug); warnings only by default.")
    def compare_cmd(files: tuple[str, ...], as_json: bool, output: str | None, fail_if_worse: tuple[str, ...],
                    rows: int, scenario: str | None, force: bool, recorded: bool, keep_results: str | None,
                    seed: int,
                    step_duration: timedelta, start_time: datetime, allow_unknown_targets: bool,
                    max_objects: int, verbose: int,
                    **plugin_values: Any) -> None:
        """Compare run B against run A: FILES is one scenario (run twice) or two result files.

        Shows pods placed differently, allocation, fragmentation, pending pods and
        preemptions per step, and per-pod score differences. Fragmentation is the share of
        free cpu/memory on nodes that cannot fit the median pending pod (see
        kubesim.results.fragmentation).
        """
        configure_logging(verbose - 1)
        if recorded:
            if len(files) != 1 or fail_if_worse or keep_results:
                fail("--recorded takes one result file (of `kubesim run` on a recorded scenario), "
                     "without --fail-if-worse or --keep-results", EXIT_INVALID)
            compare_with_recording(files[0], scenario, as_json=as_json, output=output, rows=rows)
            return
        if len(files) > 2:
            fail("compare takes one scenario file or two result files", EXIT_INVALID)
        loaded = _load_pair(files, scenario)
        failed = False
        if loaded is not None:
            given = [name for name, values in plugin_values.items() if name in pairable and values]
            if given or keep_results:
                what = ", ".join(f"--{n.replace('_', '-')}" for n in given) or "--keep-results"
                fail(f"{what} can only be used when comparing runs of a scenario file", EXIT_INVALID)
            check_same_scenario(files, loaded, force=force)
            runs, labels = loaded, (files[0], files[1])
        else:
            paired = {name: (pairable[name], tuple(v)) for name, v in plugin_values.items() if name in pairable}
            common = {"seed": seed, "step_duration": step_duration, "start_time": start_time,
                      "allow_unknown_targets": allow_unknown_targets,
                      "settle_limits": SettleLimits(max_objects=max_objects)}
            shared = {name: v for name, v in plugin_values.items() if name not in pairable}
            runs, labels = _run_both(files, hooks, paired, shared, common, scenario, keep_results)
            failed = any(r.status.phase == ScenarioPhase.FAILED for r in runs)
        try:
            tables: list[ResultTables] = [analyze(r, hooks=hooks) for r in runs]
        except AggregatorError as exc:
            fail(str(exc), EXIT_FAILED)
        comparison = compare(tables[0], tables[1], labels=labels)
        _emit(comparison, as_json=as_json, output=output, rows=rows)
        worse = [m for m in fail_if_worse if comparison.worse(m)]
        for m in worse:
            mc = comparison.metrics[m]
            click.echo(f"B is worse than A on {m}: {mc.b:.6g} vs {mc.a:.6g} ({mc.better} is better)", err=True)
        if worse or failed:
            sys.exit(EXIT_FAILED)

    compare_cmd.params.extend(paired_options)
    return compare_cmd


def _emit(comparison: Comparison, *, as_json: bool, output: str | None, rows: int) -> None:
    to_json = as_json or (output is not None and output.endswith(".json"))
    if to_json:
        text = json.dumps(comparison.to_data(), indent=2, ensure_ascii=False) + "\n"
    elif output is not None:
        buf = io.StringIO()
        render_comparison(comparison, Console(file=buf, width=140, color_system=None, force_terminal=False), rows=rows)
        text = buf.getvalue()
    else:
        render_comparison(comparison, consoles.console(), rows=rows)
        return
    if output is not None:
        write_atomic(output, text)
    else:
        click.echo(text, nl=False)

