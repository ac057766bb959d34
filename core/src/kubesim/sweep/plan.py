"""Checking a whole sweep before any cell runs: options, generators, every configuration
and every scenario variant the grid makes, each problem named by its place in the Sweep file.

Configurations are checked by the option that takes them (kubesim-scheduler's
`--scheduler-config`), from a copy written to the output directory's `configs/`; those
copies stay, so any cell can be re-run alone with `kubesim run --scheduler-config`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click
import yaml

from kubesim.api.loader import parse_scenarios
from kubesim.cli.output import write_atomic
from kubesim.cli.params import parse_duration
from kubesim.cli.validate import validate_scenarios
from kubesim.controllers.settle import MAX_OBJECTS
from kubesim.errors import InvalidInput, Problem
from kubesim.plugins import Hooks
from kubesim.results import BUILTIN_TABLES
from kubesim.sweep.cell import CONFIG_OPTION, CellTask, build_scenario
from kubesim.sweep.generators import BUILTIN_GENERATORS
from kubesim.sweep.grid import RunSettings, configuration_for, short_hash
from kubesim.sweep.paths import PathError
from kubesim.sweep.spec import Sweep

__all__ = ["check_sweep", "config_file_name", "run_settings", "versions"]

_ENGINE_OPTIONS = ("stepDuration", "maxObjects", "allowUnknownTargets")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower().replace("-", "_")


def run_settings(sweep: Sweep, hooks: Hooks) -> RunSettings:
    """The shared options of every cell: engine options and the plugins' `kubesim run` options."""
    problems: list[Problem] = []
    file = sweep.file

    def bad(key: str, message: str) -> None:
        problems.append(Problem(f"spec.options.{key}", message, file))

    step, max_objects, allow = 10.0, MAX_OBJECTS, False
    options = dict(sweep.options)
    if "stepDuration" in options:
        value = options.pop("stepDuration")
        try:
            step = parse_duration(str(value)).total_seconds()
        except ValueError as exc:
            bad("stepDuration", str(exc))
    if "maxObjects" in options:
        value = options.pop("maxObjects")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            bad("maxObjects", f"expected an integer >= 1, got {value!r}")
        else:
            max_objects = value
    if "allowUnknownTargets" in options:
        value = options.pop("allowUnknownTargets")
        if not isinstance(value, bool):
            bad("allowUnknownTargets", f"expected true or false, got {value!r}")
        allow = value is True
    run_options = {o.name: o for o in hooks.run_options() if o.name}
    plugin_options: dict[str, Any] = {}
    ctx = click.Context(click.Command("sweep"))
    for key, value in options.items():
        name = _snake(str(key))
        if name == CONFIG_OPTION:
            bad(str(key), "give configurations in spec.configurations")
            continue
        option = run_options.get(name)
        if option is None:
            known = sorted({*_ENGINE_OPTIONS, *(_camel(n) for n in run_options if n != CONFIG_OPTION)})
            bad(str(key), f"unknown option (expected one of {', '.join(known)})")
            continue
        try:
            converted = option.type_cast_value(ctx, value)
            if option.callback is not None:
                converted = option.callback(ctx, option, converted)
        except click.BadParameter as exc:
            bad(str(key), exc.message)
            continue
        except InvalidInput as exc:  # a plugin's option that reads a file checks it so
            for p in exc.problems:
                bad(str(key), str(p))
            continue
        plugin_options[name] = converted
    for option in run_options.values():  # the defaults `kubesim run` would use
        if option.name and option.name not in plugin_options and option.name != CONFIG_OPTION:
            default = option.get_default(ctx)
            plugin_options[option.name] = default if isinstance(default, (str, int, float, bool)) else None
    if problems:
        raise InvalidInput(problems)
    return RunSettings(step_duration_seconds=step, max_objects=max_objects, allow_unknown_targets=allow,
                       plugin_options=dict(sorted(plugin_options.items())))


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(p.title() for p in rest)


def versions(hooks: Hooks) -> dict[str, str]:
    """kubesim's version and every installed plugin's distribution and version (part of each cell's key)."""
    from kubesim.scenario.engine import simulator_version

    out = {"kubesim": simulator_version()}
    for info in hooks.plugin_infos():
        out[info.name] = f"{info.distribution or info.module} {info.version or '-'}"
    return out


def config_file_name(name: str, configuration: Mapping[str, Any] | None) -> str:
    """Where a configuration's copy lives in the output directory (`configs/<name>-<hash>.yaml`)."""
    return f"configs/{name}-{short_hash(configuration)[:12]}.yaml"


def _label(values: Sequence[tuple[str, Any]]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in values)


def _check_configurations(sweep: Sweep, hooks: Hooks, out: Path) -> list[Problem]:
    problems: list[Problem] = []
    config_params = [p for p in sweep.parameters if p.target == "configuration"]
    needs_option = config_params or any(c.document is not None for c in sweep.configurations)
    option = next((o for o in hooks.run_options() if o.name == CONFIG_OPTION), None)
    if needs_option and option is None:
        return [Problem("spec.configurations", "no installed plugin takes a scheduler configuration "
                        "(--scheduler-config): install kubesim-scheduler", sweep.file)]
    ctx = click.Context(click.Command("sweep"))
    for c_index, config in enumerate(sweep.configurations):
        for point in itertools.product(*(p.values for p in config_params)):
            values = list(zip(config_params, point))
            where = f"spec.configurations[{c_index}]" + (f" with {_label([(p.name, v) for p, v in values])}"
                                                        if values else "")
            try:
                doc = configuration_for(config, values)
            except PathError as exc:
                problems.append(Problem(where, str(exc), sweep.file))
                continue
            if doc is None or option is None:
                continue
            target = out / config_file_name(config.name, doc)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, yaml.safe_dump(doc, sort_keys=True))
            try:
                assert option.callback is not None
                option.callback(ctx, option, str(target))
            except InvalidInput as exc:
                problems.extend(Problem(where, str(p), sweep.file) for p in exc.problems)
            except click.BadParameter as exc:
                problems.append(Problem(where, exc.format_message(), sweep.file))
    return problems


def _check_scenarios(sweep: Sweep, hooks: Hooks, settings: RunSettings) -> list[Problem]:
    problems: list[Problem] = []
    generators = hooks.scenario_generators()
    for name in generators:
        if name in BUILTIN_GENERATORS:
            problems.append(Problem("", f"plugin scenario generator {name!r} clashes with kubesim's own", None))
    scenario_params = [p for p in sweep.parameters if p.target == "scenario"]
    for s_index, source in enumerate(sweep.scenarios):
        path = f"spec.scenarios[{s_index}]"
        if source.generator is not None and source.generator not in BUILTIN_GENERATORS \
                and source.generator not in generators:
            known = ", ".join(sorted({*BUILTIN_GENERATORS, *generators}))
            problems.append(Problem(f"{path}.generator",
                                    f"no scenario generator {source.generator!r} is installed (known: {known})",
                                    sweep.file))
            continue
        for point in itertools.product(*(p.values for p in scenario_params)):
            values = list(zip(scenario_params, point))
            where = path + (f" with {_label([(p.name, v) for p, v in values])}" if values else "")
            task = CellTask(key="", scenario=source.name, document=source.document, generator=source.generator,
                            generator_parameters=source.parameters,
                            overrides=tuple((p.path, v) for p, v in values), configuration=None,
                            seed=sweep.seeds[0], step_duration_seconds=settings.step_duration_seconds)
            try:
                doc = build_scenario(task, hooks)
                [scenario] = parse_scenarios([doc], file=None)
                validate_scenarios([("", scenario)], hooks, allow_unknown_targets=settings.allow_unknown_targets)
            except InvalidInput as exc:
                problems.extend(Problem(where, str(p).lstrip(": "), sweep.file) for p in exc.problems)
            except (PathError, ValueError) as exc:
                what = "generator parameters: " if source.generator and not isinstance(exc, PathError) else ""
                problems.append(Problem(where, f"{what}{exc}", sweep.file))
            except Exception as exc:  # a generator plugin's crash
                problems.append(Problem(where, f"{type(exc).__name__}: {exc}", sweep.file))
    return problems


def _check_metrics(sweep: Sweep, hooks: Hooks) -> list[Problem]:
    """Every TABLE of a TABLE.COLUMN:AGG metric is built in or made by an installed plugin."""
    tables = sorted({*BUILTIN_TABLES, *hooks.result_aggregators()})
    return [Problem(f"spec.metrics[{i}]", f"{m.column!r}: no table {m.table!r} (tables: {', '.join(tables)}; "
                                          "a plugin's result aggregator adds its own)", sweep.file)
            for i, m in enumerate(sweep.metrics) if m.table is not None and m.table not in tables]


def check_sweep(sweep: Sweep, hooks: Hooks, out: Path) -> RunSettings:
    """The shared run settings; InvalidInput with every problem of options, configurations and scenarios."""
    problems: list[Problem] = []
    try:
        settings = run_settings(sweep, hooks)
    except InvalidInput as exc:
        problems.extend(exc.problems)
        settings = RunSettings(step_duration_seconds=10.0, max_objects=MAX_OBJECTS, allow_unknown_targets=False,
                               plugin_options={})
    problems += _check_metrics(sweep, hooks) + _check_scenarios(sweep, hooks, settings)
    problems += _check_configurations(sweep, hooks, out)
    if problems:
        raise InvalidInput(problems)
    return settings
