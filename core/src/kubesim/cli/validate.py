"""Loading and checking scenario files against the installed plugins, before anything runs."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim.api import Scenario
from kubesim.api.loader import load_scenarios
from kubesim.api.operations import ScenarioOperation
from kubesim.api.validation import PATCH_TYPES, parse_patch, validate_scenario
from kubesim.cluster import ResourceRegistry, check_new_object
from kubesim.cluster.registry import CRD_TYPE
from kubesim.errors import ApiError, InvalidInput, Problem
from kubesim.k8s.decoding import delete_options_message, patch_decoding_message
from kubesim.plugins import Hooks
from kubesim.scenario import SCENARIO_CRD

__all__ = ["load_and_validate"]


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
        try:
            options = op.create_operation.create_options
            message = check_new_object(registry, obj, (options and options.field_validation) or "Strict")
        except ApiError:
            continue  # an unknown kind: validate_scenario reports it unless a later CRD serves it
        if message:
            out.append(Problem(f"spec.operations[{i}].createOperation.object", message, file))
        elif obj.get("kind") == CRD_TYPE.kind and obj.get("apiVersion") == CRD_TYPE.api_version:
            try:
                registry.register_crd(obj)
            except ApiError as exc:
                out.append(Problem(f"spec.operations[{i}].createOperation.object", exc.message, file))
    return out


def _registry(hooks: Hooks) -> ResourceRegistry:
    """The kinds served before a scenario starts: built-ins, Scenario, and the plugins' CRDs."""
    registry = ResourceRegistry()
    registry.register_crd(SCENARIO_CRD)
    for crd in hooks.custom_resources():
        registry.register_crd(dict(crd))
    return registry


def load_and_validate(
    files: Sequence[str], hooks: Hooks, *, allow_unknown_targets: bool = False
) -> list[Scenario]:
    """Load every file, check every scenario; raise InvalidInput with all problems found."""
    registry = _registry(hooks)

    def scope(api_version: str, kind: str) -> bool | None:
        try:
            return registry.lookup(api_version, kind).namespaced
        except ApiError:
            return None

    controllers = set(hooks.controllers()) | set(hooks.controller_waiters())
    scenarios: list[Scenario] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for file in files:
        try:
            loaded = load_scenarios(file)
        except InvalidInput as exc:
            problems.extend(exc.problems)
            continue
        for i, scenario in enumerate(loaded):
            where = f"{file} [document {i}]" if len(loaded) > 1 else file
            found = validate_scenario(scenario, scope=scope, controllers=controllers,
                                      allow_unknown_targets=allow_unknown_targets, file=where)
            problems.extend(found)
            if not found:
                problems.extend(_object_problems(scenario, hooks, where))
            name = scenario.name
            if name and name in seen:
                problems.append(Problem("metadata.name", f"duplicate scenario name {name!r} (also in {seen[name]})", where))
            seen.setdefault(name, where)
            scenarios.append(scenario)
    if problems:
        raise InvalidInput(problems)
    return scenarios
