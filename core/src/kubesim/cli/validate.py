"""Loading and checking scenario files against the installed plugins, before anything runs."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from kubesim.api import Scenario
from kubesim.api.loader import load_scenarios
from kubesim.api.operations import ScenarioOperation
from kubesim.api.validation import PATCH_TYPES, parse_patch, validate_scenario
from kubesim.cluster import ResourceRegistry, check_new_object
from kubesim.cluster.precheck import metadata_accepted, name_free_key
from kubesim.cluster.registry import CRD_TYPE
from kubesim.errors import ApiError, InvalidInput, Problem
from kubesim.input_limits import INPUT_LIMITS
from kubesim.k8s.content_memo import ContentMemo
from kubesim.k8s.decoding import delete_options_message, patch_decoding_message
from kubesim.k8s.values import non_json_value
from kubesim.plugins import Hooks
from kubesim.scenario import SCENARIO_CRD, EngineOptions
from kubesim.scenario.engine import check_last_step_time, scenario_object

__all__ = ["check_step_times", "load_and_validate", "validate_scenarios"]


def _request_problem(op: ScenarioOperation, registry: ResourceRegistry) -> tuple[str, str] | None:
    """(field, message) for a patch or delete body the API server would not decode."""
    if op.delete_operation is not None:
        opts = op.delete_operation.delete_options
        if opts is None or opts.grace_period_seconds is None:
            return None
        message = delete_options_message({"gracePeriodSeconds": opts.grace_period_seconds})
        return None if message is None else ("deleteOperation.deleteOptions.gracePeriodSeconds", message)
    p = op.patch_operation
    if p is None or p.patch_type not in PATCH_TYPES:
        return None
    try:
        rt = registry.lookup(p.type_meta.api_version, p.type_meta.kind)
    except ApiError:
        return None
    if not registry.is_builtin(rt):
        return None
    try:
        patch = parse_patch(p.patch, p.patch_type)
    except ValueError:
        return None  # validate_scenario reports it
    message = patch_decoding_message(rt.group, rt.version, rt.kind, patch, json_patch=PATCH_TYPES[p.patch_type] == "json")
    return None if message is None else ("patchOperation.patch", message)


def _object_problems(scenario: Scenario, hooks: Hooks, file: str) -> list[Problem]:
    """Objects to create, patches and delete options that the API server would reject.

    CRDs the scenario creates are registered (in a registry of its own) as they pass, so that
    the custom resources of later operations are checked against their schemas too.
    """
    registry = _registry(hooks)
    out = []
    for i, op in enumerate(scenario.spec.operations):
        if op.create_operation is None:
            found = _request_problem(op, registry)
            if found is not None:
                out.append(Problem(f"spec.operations[{i}].{found[0]}", found[1], file))
            continue
        obj = op.create_operation.object
        options = op.create_operation.create_options
        field_validation = (options and options.field_validation) or "Strict"
        key = name_free_key(registry, obj, field_validation)
        if _PASSED.get(key) and metadata_accepted(registry, obj):
            continue  # the same object but for its name passed every check below
        bad_number = non_json_value(obj, f"spec.operations[{i}].createOperation.object")
        if bad_number:
            out.append(Problem("", bad_number, file))
            continue
        try:
            message = check_new_object(registry, obj, field_validation)
        except ApiError:
            continue  # an unknown kind: validate_scenario reports it unless a later CRD serves it
        if not message:
            _PASSED.put(key, True)
        if message:
            out.append(Problem(f"spec.operations[{i}].createOperation.object", message, file))
        elif obj.get("kind") == CRD_TYPE.kind and obj.get("apiVersion") == CRD_TYPE.api_version:
            try:
                registry.register_crd(obj)
            except ApiError as exc:
                out.append(Problem(f"spec.operations[{i}].createOperation.object", exc.message, file))
    return out


_PASSED: ContentMemo[bool] = ContentMemo(limit=100_000)
"""Objects (by `name_free_key`: a workload's pods, a cluster's nodes) that passed
non_json_value and check_new_object: of the next such object only the metadata is checked."""


def _scenario_object_problems(scenario: Scenario, registry: ResourceRegistry, file: str) -> list[Problem]:
    """The Scenario itself is an object the engine creates in the cluster: it must pass the API
    server's checks (its name a DNS subdomain of at most 253 characters, its CRD's schema)."""
    # The objects to create are the scenario's own (shared, as the engine's create has them):
    # the check changes only what it builds (metadata, status), as the Scenario schema keeps
    # embedded objects as written (nothing pruned or defaulted below them).
    obj = scenario_object(scenario, shared=True)
    # The create drops a status-subresource kind's status before validating (PrepareForCreate),
    # so this check does too: it then sees what the create sees (and validates it only once).
    obj.pop("status", None)
    message = check_new_object(registry, obj, copy=False)
    return [Problem("", message, file)] if message else []


def _registry(hooks: Hooks) -> ResourceRegistry:
    """The kinds served before a scenario starts: built-ins, Scenario, and the plugins' CRDs."""
    registry = ResourceRegistry()
    registry.register_crd(SCENARIO_CRD)
    for crd in hooks.custom_resources():
        registry.register_crd(dict(crd))
    return registry


def load_and_validate(
    files: Sequence[str], hooks: Hooks, *, allow_unknown_targets: bool = False, max_bytes: int | None = None,
) -> list[Scenario]:
    """Load every file, check every scenario; raise InvalidInput with all problems found.

    max_bytes: the largest file read (default `kubesim.input_limits.MAX_FILE_BYTES`, 64 MiB).
    """
    limits = INPUT_LIMITS if max_bytes is None else attrs.evolve(INPUT_LIMITS, max_bytes=max_bytes)
    loaded: list[tuple[str, Scenario]] = []
    problems: list[Problem] = []
    for file in files:
        try:
            scenarios = load_scenarios(file, limits)
        except InvalidInput as exc:
            problems.extend(exc.problems)
            continue
        for i, scenario in enumerate(scenarios):
            loaded.append((f"{file} [document {i}]" if len(scenarios) > 1 else file, scenario))
    return validate_scenarios(loaded, hooks, allow_unknown_targets=allow_unknown_targets, problems=problems)


def validate_scenarios(
    loaded: Sequence[tuple[str, Scenario]], hooks: Hooks, *, allow_unknown_targets: bool = False,
    problems: Sequence[Problem] = (),
) -> list[Scenario]:
    """Check parsed scenarios, each with the name its problems are reported under (a file);
    raise InvalidInput with all problems found (after `problems`, found earlier)."""
    registry = _registry(hooks)

    def scope(api_version: str, kind: str) -> bool | None:
        try:
            return registry.lookup(api_version, kind).namespaced
        except ApiError:
            return None

    def builtin(api_version: str, kind: str) -> bool:
        try:
            return registry.is_builtin(registry.lookup(api_version, kind))
        except ApiError:
            return True  # an unknown kind is reported on its own

    controllers = set(hooks.controllers()) | set(hooks.controller_waiters())
    scenarios: list[Scenario] = []
    found_problems: list[Problem] = list(problems)
    seen: dict[str, str] = {}
    for where, scenario in loaded:
        found = validate_scenario(scenario, scope=scope, controllers=controllers,
                                  allow_unknown_targets=allow_unknown_targets, file=where, builtin=builtin)
        found_problems.extend(found)
        if not found:
            # the Scenario object's schema repeats what the operations' checks say in detail
            found_problems.extend(_object_problems(scenario, hooks, where)
                                  or _scenario_object_problems(scenario, registry, where))
        name = scenario.name
        if name and name in seen:
            found_problems.append(Problem("metadata.name", f"duplicate scenario name {name!r} (also in {seen[name]})", where))
        seen.setdefault(name, where)
        scenarios.append(scenario)
    if found_problems:
        raise InvalidInput(found_problems)
    return scenarios


def check_step_times(options: EngineOptions, scenarios: Sequence[Scenario]) -> None:
    """Refuse scenarios whose last step would start after the latest representable time
    (InvalidInput, exit 2), before anything runs."""
    problems = [p for scenario in scenarios if (p := check_last_step_time(options, scenario))]
    if problems:
        raise InvalidInput(problems)
