"""`kubesim explain RESULT POD`: why one pod went where it went, attempt by attempt.

Rich tables on a terminal; plain text (no colour, wrapped, never cut) when piped; `--json`
for machines. The model is kubesim.results.explain; this module only prints it.
"""

from __future__ import annotations

import difflib
import io
import json
import shutil
import sys
from typing import Any

import click
from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubesim.api import Scenario, ScenarioStep
from kubesim.cli.report import EXIT_INVALID, fail, load_selected, pick_one
from kubesim.results import iter_events
from kubesim.results.attempts import describe_reasons
from kubesim.results.explain import Attempt, PodExplanation, PodNotFound, explain_pod, explanation_data, is_extender

__all__ = ["DEFAULT_TOP", "explain_command", "render_explanation"]

DEFAULT_TOP = 10
PIPED_WIDTH = 120
_NUMERIC = frozenset(("#", "raw", "normalized", "weighted", "total", "priority", "nodes"))


def _step(step: ScenarioStep | None) -> str:
    """A step as major/minor (4/0), never as a decimal-looking 4.0."""
    return "" if step is None else f"{step.major}/{step.minor}"


class _Titled(Table):
    """A table whose title is printed as a line of its own (a table title wraps to the table's width)."""

    heading: str = ""

    def __rich_console__(self, console: Console, options: Any) -> Any:
        yield Text(self.heading, style="bold")
        yield from super().__rich_console__(console, options)


def _table(title: str, *columns: str, plain: bool) -> Table:
    table = _Titled(box=box.ASCII if plain else box.SIMPLE_HEAD, show_edge=not plain, expand=False)
    table.heading = title
    for col in columns:
        table.add_column(col, overflow="fold", justify="right" if col in _NUMERIC else "left")
    return table


def _attempts_table(pod: PodExplanation, plain: bool) -> Table:
    table = _table("Attempts", "#", "step", "profile", "outcome", "node", "detail", "message", plain=plain)
    for a in pod.attempts:
        where = a.node or (f"(nominated {a.nominated_node})" if a.nominated_node else "")
        table.add_row(str(a.number), _step(a.step), a.profile, a.outcome, where, a.detail, a.message or "")
    return table


def _filter_part(a: Attempt, plain: bool, node: str | None) -> list[RenderableType]:
    if a.filters:
        rejected = [f for f in a.filters if not f.passed]
        passed = [f.node for f in a.filters if f.passed]
        out: list[RenderableType] = []
        if rejected:
            table = _table("Filter: nodes rejected (the first plugin that rejected each node, as upstream's "
                           "per-node status; later plugins did not run)", "node", "plugin", "message", plain=plain)
            for f in rejected:
                name = f"{f.plugin} (extender)" if f.plugin and is_extender(f.plugin) else f.plugin or ""
                table.add_row(f.node, name, f.message or "")
            out.append(table)
        if passed:
            plugins = list(next(f for f in a.filters if f.passed).verdicts)
            out.append(Text(f"Filter: {len(passed)} node(s) passed all {len(plugins)} filter plugin(s) "
                            f"({', '.join(plugins)}): {', '.join(passed)}"))
        return out
    if a.reasons:
        table = _table("Filter: rejection reasons (nodes per reason; per-node verdicts not recorded)",
                       "reason", "nodes", plain=plain)
        for reason, n in sorted(a.reasons.items(), key=lambda kv: (-kv[1], kv[0])):
            table.add_row(reason, str(n))
        return [table]
    if node is not None and a.detail == "full":
        return [Text(f"Filter: node {node} is not among the nodes this attempt considered")]
    return []


def _score_part(a: Attempt, plain: bool, top: int) -> list[RenderableType]:
    if not a.scores:
        return []
    shown = a.scores if top <= 0 else a.scores[:top]
    if a.node is not None and a.node not in {s.node for s in shown}:
        shown = [*shown, *[s for s in a.scores if s.node == a.node]]
    total = len(a.scores)
    kept = f"{len(shown)} of {total} scored node(s)" + ("; --top 0 shows all" if len(shown) < total else "")
    if a.detail == "summary" and a.feasible_nodes and a.feasible_nodes > total:
        kept += f"; the result kept the best {total} of the {a.feasible_nodes} feasible nodes"
    kept += ", best first"
    table = _table(f"Scores ({kept}): raw -> normalized -> weighted (normalized x plugin weight); "
                   "total = sum of weighted", "node", "plugin", "raw", "normalized", "weighted", "total", plain=plain)
    for s in shown:
        mark = " (chosen)" if s.node == a.node else (" (tied)" if s.node in a.tied else "")
        for i, (plugin, v) in enumerate(s.plugins.items()):
            label = f"{plugin} (extender)" if is_extender(plugin) else plugin
            table.add_row(s.node + mark if i == 0 else "", label, str(v.raw_score), str(v.normalized_score),
                          str(v.final_score), "")
        table.add_row(s.node + mark if not s.plugins else "", "total", "", "", "", str(s.total),
                      end_section=True)
    return [table]


def _victims_part(a: Attempt, plain: bool) -> list[RenderableType]:
    if not a.victims:
        return []
    table = _table(f"Preemption: victims evicted (nominated node: {a.nominated_node or 'none'})",
                   "pod", "node", "priority", "step", plain=plain)
    for v in a.victims:
        table.add_row(f"{v.namespace}/{v.name}", v.node or "", str(v.priority), _step(v.step))
    return [table]


def _attempt_part(a: Attempt, plain: bool, top: int, node: str | None) -> list[RenderableType]:
    counts = []
    if a.candidate_nodes is not None:
        counts.append(f"{a.candidate_nodes} node(s) considered")
    if a.feasible_nodes is not None:
        counts.append(f"{a.feasible_nodes} feasible")
    head = Text(f"Attempt {a.number}: step {_step(a.step)}, profile {a.profile}, {a.outcome}"
                + (f" on {a.node}" if a.node else "") + f" ({a.detail} detail"
                + (f"; {', '.join(counts)}" if counts else "") + ")", style="bold")
    parts: list[RenderableType] = [Text(""), head]
    if a.message:
        parts.append(Text(f"  message: {a.message}"))
    parts.append(Text(f"  why: {a.why}"))
    if a.tied and len(a.tied) > 1:
        parts.append(Text(f"  tied at the best total: {', '.join(a.tied)}"))
    if a.extenders:
        parts.append(Text(f"  extenders: {', '.join(a.extenders)}"))
    if a.reasons and a.filters:
        parts.append(Text(f"  rejections by reason: {describe_reasons(a.reasons)}"))
    parts += _filter_part(a, plain, node) + _score_part(a, plain, top) + _victims_part(a, plain)
    parts += [Text(f"  note: {n}", style="italic") for n in a.notes]
    return parts


def render_explanation(pod: PodExplanation, *, plain: bool = False, top: int = DEFAULT_TOP,
                       node: str | None = None) -> Group:
    """The explanation of one pod as rich renderables (tables and lines)."""
    state = pod.state + (f" on {pod.node}" if pod.node and pod.state in ("bound", "preempted") else "")
    if pod.preempted_by:
        state += f", preempted by {pod.preempted_by} at step {_step(pod.preempted_at)}"
    parts: list[RenderableType] = [
        Text(f"Pod {pod.key}", style="bold underline"),
        Text(f"uid {pod.uid or '-'}, priority {pod.priority}, profile {pod.profile}, created at step "
             f"{_step(pod.created)}; state: {state}; {len(pod.attempts)} attempt(s) shown"),
    ]
    if not pod.attempts:
        parts.append(Text("The scheduler recorded no attempt for this pod (created bound, deleted before its "
                          "turn, or no scheduler ran)."))
    else:
        parts.append(_attempts_table(pod, plain))
    for a in pod.attempts:
        parts += _attempt_part(a, plain, top, node)
    return Group(*parts)


def _node_names(result: Scenario) -> set[str]:
    """Every node the result creates or patches."""
    return {e.target[3] for e in iter_events(result, kinds=("create", "patch", "delete")) if e.is_kind("v1", "Node")}


def explain_command() -> click.Command:
    """The `explain` command."""

    @click.command("explain")
    @click.argument("result", type=click.Path(dir_okay=False))
    @click.argument("pod")
    @click.option("--attempt", type=click.IntRange(min=1), help="Only this attempt (1 = the first).")
    @click.option("--node", help="Only this node in the filter and score tables.")
    @click.option("--top", type=click.IntRange(min=0), default=DEFAULT_TOP, show_default=True,
                  help="Score rows for the best N nodes (the chosen node is always shown); 0 for all.")
    @click.option("--scenario", help="The scenario of this name (a result file may hold several).")
    @click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
    def explain(result: str, pod: str, attempt: int | None, node: str | None, top: int, scenario: str | None,
                as_json: bool) -> None:
        """Explain why POD went where it went in RESULT (a file written by `kubesim run -o`).

        POD is a name or namespace/name. For every scheduling attempt: the step, profile and
        outcome; each node's filter verdict (the plugin that rejected it and its message); the
        score table per node and plugin (raw, normalized, weighted, total); the chosen node and
        why it won (ties: upstream selectHost's random pick, from the run's --seed); the
        preemption victims and nominated node. Results recorded with `--detail summary` keep
        reason counts and the best nodes' scores only: the output says so.

        \b
        Examples:
          kubesim run examples/preemption/scenario.yaml -o result.json
          kubesim explain result.json critical
          kubesim explain result.json default/too-big --attempt 1 --node node-1
          kubesim explain result.json critical --json
        """
        found = pick_one(result, load_selected(result), scenario)
        try:
            instances = explain_pod(found, pod)
        except PodNotFound as exc:
            hint = f"; did you mean: {', '.join(exc.close)}" if exc.close else ""
            fail(f"{result}: POD: {exc.message}{hint}", EXIT_INVALID)
        if node is not None and node not in _node_names(found):
            close = sorted(difflib.get_close_matches(node, sorted(_node_names(found)), n=5, cutoff=0.5))
            fail(f"{result}: --node: no node {node!r} in the result"
                 + (f"; did you mean: {', '.join(close)}" if close else ""), EXIT_INVALID)
        focused = [i.focus(attempt, node) for i in instances]
        if attempt is not None and not any(i.attempts for i in focused):
            most = max(len(i.attempts) for i in instances)
            fail(f"{result}: --attempt: expected 1 to {most}, the attempts of {instances[0].key}, got {attempt}"
                 if most else f"{result}: --attempt: {instances[0].key} has no scheduling attempt", EXIT_INVALID)
        if as_json:
            data = [explanation_data(i) for i in focused]
            click.echo(json.dumps(data[0] if len(data) == 1 else data, indent=2, ensure_ascii=False))
            return
        plain = not sys.stdout.isatty()
        parts: list[RenderableType] = []
        for i, explanation in enumerate(focused):
            if len(focused) > 1:
                parts.append(Text(f"instance {i + 1} of {len(focused)} (the pod was re-created under its name)",
                                  style="italic"))
            parts.append(render_explanation(explanation, plain=plain, top=top, node=node))
        if not plain:
            Console(highlight=False).print(*parts)
            return
        # plain text: at least PIPED_WIDTH columns, no colour, no trailing blanks (diff-friendly)
        width = max(PIPED_WIDTH, shutil.get_terminal_size((PIPED_WIDTH, 24)).columns)
        buf = io.StringIO()
        Console(file=buf, width=width, color_system=None, force_terminal=False, highlight=False).print(*parts)
        click.echo("\n".join(line.rstrip() for line in buf.getvalue().splitlines()))

    return explain
