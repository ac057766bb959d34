"""Read a KubeSchedulerConfiguration from YAML/JSON or a dict: decode, default, validate.

Mirrors what kube-scheduler does with --config (cmd/kube-scheduler/app/options:
strict decode, SetDefaults, ValidateKubeSchedulerConfiguration), but reports every
problem at once, each with the file and field path, as kubesim.errors.InvalidInput.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import yaml
from kubesim.duplicate_keys import yaml_duplicate_keys
from kubesim.errors import InvalidInput, Problem
from kubesim.input_limits import InputLimitError, SafeLoader, composed_documents, read_text, valid_unicode

from kubesim_scheduler.config.converter import FieldErrors, describe, structure
from kubesim_scheduler.config.defaults import set_defaults
from kubesim_scheduler.config.types import (
    API_VERSION,
    DEPLOYMENT_ONLY_FIELDS,
    EXTENSION_POINTS,
    KIND,
    KubeSchedulerConfiguration,
    Plugins,
    PluginSet,
)
from kubesim_scheduler.config.validation import validate

__all__ = ["decode", "load_config", "loads_config", "parse_yaml"]

Source = str | os.PathLike[str] | Mapping[str, Any]


def load_config(source: Source, *, file: str | None = None, dynamic_resource_allocation: bool = True) -> KubeSchedulerConfiguration:
    """Load, default and validate a configuration from a file path or an already parsed dict.

    Raises InvalidInput with every problem found; `file` names the source in problems
    (defaults to the path). `dynamic_resource_allocation` is that feature gate (the default
    plugins depend on it).
    """
    if isinstance(source, Mapping):
        data: Any = source
    else:
        file = file if file is not None else os.fspath(source)
        try:
            text = read_text(Path(source))
        except OSError as exc:
            raise InvalidInput([Problem("", f"cannot read the file: {exc.strerror or exc}", file)]) from None
        except InputLimitError as exc:
            raise InvalidInput([Problem("", str(exc), file)]) from None
        data = parse_yaml(text, file=file)
    return _checked(decode(data, file=file), file, dynamic_resource_allocation)


def loads_config(text: str, *, file: str | None = None) -> KubeSchedulerConfiguration:
    """Load, default and validate a configuration from YAML or JSON text."""
    return _checked(decode(parse_yaml(text, file=file), file=file), file)


def _checked(config: KubeSchedulerConfiguration, file: str | None,
             dynamic_resource_allocation: bool = True) -> KubeSchedulerConfiguration:
    config = set_defaults(config, dynamic_resource_allocation=dynamic_resource_allocation)
    problems = validate(config)
    if problems:
        raise InvalidInput([attrs.evolve(p, file=file) for p in problems])
    return config


def parse_yaml(text: str, *, file: str | None = None) -> Any:
    """Parse one YAML (or JSON) document; syntax errors become a Problem with line and column,
    a key written twice one at its path, nesting or aliases beyond kubesim.input_limits one
    naming the line."""
    loader = SafeLoader(text)
    try:
        docs = []
        for node in composed_documents(loader, text):
            duplicates = yaml_duplicate_keys(node)
            if duplicates:
                raise InvalidInput([d.problem(file) for d in duplicates])
            docs.append(loader.construct_document(node))
    except InputLimitError as exc:
        raise InvalidInput([Problem("", str(exc), file)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise InvalidInput([Problem("", f"invalid YAML: {where}{exc.problem}", file)]) from None
    except yaml.YAMLError as exc:
        raise InvalidInput([Problem("", f"invalid YAML: {exc}", file)]) from None
    finally:
        loader.dispose()
    if len(docs) > 1:
        raise InvalidInput([Problem("", f"expected one YAML document, found {len(docs)}", file)])
    return valid_unicode(text, docs[0]) if docs else None


def decode(data: Any, *, file: str | None = None) -> KubeSchedulerConfiguration:
    """Decode parsed data strictly into a KubeSchedulerConfiguration, without defaulting."""
    if not isinstance(data, Mapping):
        hint = " (is the file empty?)" if data is None else ""
        msg = f"expected a KubeSchedulerConfiguration mapping, got {describe(data)}{hint}"
        raise InvalidInput([Problem("", msg, file)])
    body = dict(data)
    problems = []
    api_version, kind = body.pop("apiVersion", None), body.pop("kind", None)
    if api_version is None:
        problems.append(Problem("apiVersion", f'required ("{API_VERSION}")', file))
    elif api_version != API_VERSION:
        problems.append(Problem("apiVersion", f'expected "{API_VERSION}", got {describe(api_version)}', file))
    if kind is None:
        problems.append(Problem("kind", f'required ("{KIND}")', file))
    elif kind != KIND:
        problems.append(Problem("kind", f'expected "{KIND}", got {describe(kind)}', file))
    ignored = tuple(k for k in DEPLOYMENT_ONLY_FIELDS if k in body)
    for k in ignored:
        del body[k]
    try:
        config = structure(body, KubeSchedulerConfiguration)
    except FieldErrors as exc:
        problems.extend(Problem(p, m, file) for p, m in exc.pairs)
    if problems:
        raise InvalidInput(problems)
    return attrs.evolve(_with_sources(config), ignored_fields=ignored)


def _with_sources(config: KubeSchedulerConfiguration) -> KubeSchedulerConfiguration:
    """Record on each Plugin where the user wrote it, so later problems can point there."""
    profiles = []
    for i, profile in enumerate(config.profiles):
        plugins = profile.plugins
        if plugins is not None:
            plugins = _plugins_with_sources(f"profiles[{i}].plugins", plugins)
        profiles.append(attrs.evolve(profile, plugins=plugins))
    return attrs.evolve(config, profiles=tuple(profiles))


def _plugins_with_sources(path: str, plugins: Plugins) -> Plugins:
    for point in ("multiPoint", *EXTENSION_POINTS):
        ps = plugins.point(point)  # type: ignore[arg-type]
        base = f"{path}.{point}"
        ps = PluginSet(
            enabled=tuple(attrs.evolve(p, source=f"{base}.enabled[{j}]") for j, p in enumerate(ps.enabled)),
            disabled=tuple(
                attrs.evolve(p, source=f"{base}.disabled[{j}]") for j, p in enumerate(ps.disabled)
            ),
        )
        plugins = plugins.with_point(point, ps)  # type: ignore[arg-type]
    return plugins
