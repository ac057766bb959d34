"""Checks of a scenario that go beyond its shape, done before anything runs.

Each check yields a `Problem` with the field path: exactly one operation per
entry, non-negative steps, unique ids, objects with apiVersion/kind/name, known
kinds, parseable patches of a known type, patch and delete targets that an
earlier operation created, known controllers, and one done operation that is last.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

import attrs
import yaml

from kubesim.api.operations import ScenarioOperation, TypeMeta
from kubesim.api.patch_shape import check_patch_shape, type_meta_changes
from kubesim.api.scenario import API_VERSION, KIND, Scenario
from kubesim.apiextensions import FIELD_VALIDATIONS, field_validation_error
from kubesim.cluster.patches import STRATEGIC_MERGE_PATCH, api_version_change_message, unsupported_patch_message
from kubesim.cluster.priority import SYSTEM_PRIORITY_CLASSES
from kubesim.duplicate_keys import DuplicateKeys, load_json, load_yaml
from kubesim.errors import Problem
from kubesim.input_limits import InputLimitError, SafeLoader
from kubesim.k8s.values import json_kind

__all__ = [
    "MAX_STEP",
    "PATCH_TYPES",
    "ScopeLookup",
    "assign_operation_ids",
    "parse_patch",
    "validate_scenario",
]

PATCH_TYPES = {
    "application/merge-patch+json": "merge",
    "application/json-patch+json": "json",
    "application/strategic-merge-patch+json": "strategic",
    "merge": "merge",
    "json": "json",
    "strategic": "strategic",
}

PROPAGATION_POLICIES = ("Background", "Foreground", "Orphan")

ScopeLookup = Callable[[str, str], "bool | None"]
"""(apiVersion, kind) -> True if namespaced, False if cluster-scoped, None if unknown."""

BuiltinLookup = Callable[[str, str], bool]
"""(apiVersion, kind) -> True for a kind compiled into the API server (not from a CRD)."""

_PRIORITY_CLASS_GROUP = "scheduling.k8s.io/"


@attrs.define
class _Known:
    """What the operations before the one being checked have created (in run order)."""

    objects: set[tuple[str, str, str, str]] = attrs.field(factory=set)
    scope: dict[tuple[str, str], bool] = attrs.field(factory=dict)
    """Kinds from CRDs that earlier operations create: (apiVersion, kind) -> namespaced."""
    priority_classes: set[str] = attrs.field(factory=set)
    unnamed_priority_classes: bool = False
    """A PriorityClass created with generateName: its name is known only at run time."""

    def track_priority_class(self, api_version: str, kind: str, name: str | None, created: bool) -> None:
        """Follow the PriorityClasses that operations create and delete, by name."""
        if kind != "PriorityClass" or not api_version.startswith(_PRIORITY_CLASS_GROUP):
            return
        if name is None:
            self.unnamed_priority_classes = True
        elif created:
            self.priority_classes.add(name)
        else:
            self.priority_classes.discard(name)


def assign_operation_ids(scenario: Scenario) -> Scenario:
    """Give every operation without an id a deterministic one (`operation-<index>`)."""
    ops = [
        op if op.id else attrs.evolve(op, id=f"operation-{i}")
        for i, op in enumerate(scenario.spec.operations)
    ]
    return attrs.evolve(scenario, spec=attrs.evolve(scenario.spec, operations=ops))


def parse_patch(text: str, patch_type: str, target: TypeMeta | None = None) -> Any:
    """Parse a patch body (JSON or YAML) and check its shape for the patch type (and, given
    the target's TypeMeta, that it keeps the target's kind); ValueError says what is wrong.
    A key written twice is an error (DuplicateKeys, a ValueError naming its path in the body)."""
    try:
        body = load_json(text)
    except (DuplicateKeys, InputLimitError):
        raise
    except ValueError:
        try:
            body = load_yaml(text, SafeLoader)
        except (DuplicateKeys, InputLimitError):
            raise
        except yaml.YAMLError as exc:
            raise ValueError(f"not valid JSON or YAML: {exc}") from None
    check_patch_shape(body, PATCH_TYPES[patch_type], target.api_version if target else "",
                      target.kind if target else "")
    return body


def _crd_scope(obj: dict[str, Any]) -> dict[tuple[str, str], bool]:
    """Kinds a CustomResourceDefinition object registers: (apiVersion, kind) -> namespaced."""
    spec = obj.get("spec")
    names = spec.get("names") if isinstance(spec, dict) else None
    if not (isinstance(spec, dict) and isinstance(names, dict) and isinstance(spec.get("versions"), list)):
        return {}  # an invalid CRD: the API server's validation (precheck) says why
    group, kind = spec.get("group", ""), names.get("kind", "")
    namespaced = spec.get("scope", "Namespaced") == "Namespaced"
    return {
        (f"{group}/{v.get('name')}", kind): namespaced
        for v in spec["versions"]
        if isinstance(v, dict)
    }


MAX_STEP = 2**31 - 1
"""The largest MajorStep: KEP-140's ScenarioOperation.MajorStep is an int32."""


def validate_scenario(
    scenario: Scenario,
    *,
    scope: ScopeLookup | None = None,
    controllers: Collection[str] | None = None,
    allow_unknown_targets: bool = False,
    file: str | None = None,
    builtin: BuiltinLookup | None = None,
) -> list[Problem]:
    """Return every problem of one scenario (empty when it can run).

    `builtin` tells kinds compiled into the API server from custom resources (strategic
    merge patch works only for the former); without it, that is checked at run time.
    """
    problems: list[Problem] = []

    def bad(path: str, message: str) -> None:
        problems.append(Problem(path, message, file))

    if scenario.api_version != API_VERSION:
        bad("apiVersion", f"expected {API_VERSION!r}, got {scenario.api_version!r}")
    if scenario.kind != KIND:
        bad("kind", f"expected {KIND!r}, got {scenario.kind!r}")
    if not isinstance(scenario.metadata.get("name"), str) or not scenario.metadata["name"]:
        bad("metadata.name", "required: a Scenario needs a name")

    _check_controllers(scenario, controllers, bad)
    if scenario.spec.simulated_time is not None:
        for field, message in scenario.spec.simulated_time.problems():
            bad(f"spec.simulatedTime.{field}", message)

    known = _Known()

    def namespaced(api_version: str, kind: str) -> bool | None:
        if (api_version, kind) in known.scope:
            return known.scope[(api_version, kind)]
        return scope(api_version, kind) if scope else True

    def is_builtin(api_version: str, kind: str) -> bool:
        if builtin is None:
            return True  # unknown without a lookup: left to the run
        return (api_version, kind) not in known.scope and builtin(api_version, kind)

    _check_ids(scenario.spec.operations, bad)
    done_steps: list[tuple[int, int]] = []
    # operations run step by step, and in list order within a step (a stable sort)
    order = sorted(range(len(scenario.spec.operations)), key=lambda i: scenario.spec.operations[i].step)
    for i in order:
        op = scenario.spec.operations[i]
        path = f"spec.operations[{i}]"
        if op.step < 0:
            bad(f"{path}.step", f"must be 0 or greater, got {op.step}")
        elif op.step > MAX_STEP:
            bad(f"{path}.step", f"must be at most {MAX_STEP} (MajorStep is an int32), got {op.step}")
        set_fields = op.kinds_set()
        if len(set_fields) != 1:
            found = ", ".join(set_fields) if set_fields else "none"
            bad(
                path,
                "exactly one of createOperation, patchOperation, deleteOperation, doneOperation "
                f"must be set (found {found})",
            )
            continue
        if op.done_operation is not None:
            done_steps.append((op.step, i))
            continue
        _check_operation(op, path, namespaced, is_builtin, known, allow_unknown_targets, bad)

    if len(done_steps) > 1:
        bad(f"spec.operations[{done_steps[1][1]}]", "only one doneOperation is allowed")
    if done_steps:
        done_step = done_steps[0][0]
        for i, op in enumerate(scenario.spec.operations):
            if op.step > done_step:
                bad(
                    f"spec.operations[{i}].step",
                    f"step {op.step} comes after the doneOperation at step {done_step} and would never run",
                )
    return problems


def _check_ids(operations: list[ScenarioOperation], bad: Callable[[str, str], None]) -> None:
    """Ids are unique, counting the `operation-<index>` ids that operations without one get."""
    generated = {f"operation-{i}": i for i, op in enumerate(operations) if op.id is None}
    seen: dict[str, int] = {}
    for i, op in enumerate(operations):
        if op.id is None:
            continue
        path = f"spec.operations[{i}].id"
        if op.id in seen:
            bad(path, f'duplicate id "{op.id}" (also spec.operations[{seen[op.id]}])')
        elif op.id in generated and generated[op.id] != i:
            bad(path, f'duplicate id "{op.id}": spec.operations[{generated[op.id]}] has no id and is '
                      "given this one (operation-<index>); choose another id")
        seen.setdefault(op.id, i)


def _check_controllers(
    scenario: Scenario,
    known: Collection[str] | None,
    bad: Callable[[str, str], None],
) -> None:
    ctl = scenario.spec.controllers
    sets = [("spec.controllers.simulationControllers", ctl.simulation_controllers)]
    if ctl.pre_simulation_controllers is not None:
        sets.append(("spec.controllers.preSimulationControllers", ctl.pre_simulation_controllers))
    for base, cset in sets:
        for field, entries in (("enabled", cset.enabled), ("disabled", cset.disabled)):
            names = [c.name for c in entries]
            for j, name in enumerate(names):
                where = f"{base}.{field}[{j}].name"
                if name == "*":
                    if field == "enabled":
                        bad(where, '"*" is only allowed in disabled')
                    continue
                if names.index(name) != j:
                    bad(where, f"duplicate controller {name!r}")
                if known is not None and name not in known:
                    listed = ", ".join(sorted(known)) or "none installed"
                    bad(where, f"unknown controller {name!r} (known: {listed})")


def _check_operation(
    op: ScenarioOperation,
    path: str,
    namespaced: Callable[[str, str], bool | None],
    is_builtin: BuiltinLookup,
    known: _Known,
    allow_unknown_targets: bool,
    bad: Callable[[str, str], None],
) -> None:
    existing = known.objects
    create_options = op.create_operation.create_options if op.create_operation else None
    patch_options = op.patch_operation.patch_options if op.patch_operation else None
    for field, options in (("createOperation.createOptions", create_options),
                           ("patchOperation.patchOptions", patch_options)):
        value = options.field_validation if options else None
        if value is not None and value not in FIELD_VALIDATIONS:
            error = field_validation_error(value)
            bad(f"{path}.{field}.{error.field}", str(error).split(": ", 1)[1])
    if op.create_operation is not None:
        obj = op.create_operation.object
        opath = f"{path}.createOperation.object"
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        meta = obj.get("metadata")
        for field, value in (("apiVersion", api_version), ("kind", kind)):
            if not isinstance(value, str) or not value:
                bad(f"{opath}.{field}", "required: a non-empty string")
        if not isinstance(meta, dict):
            bad(f"{opath}.metadata", "required: a mapping with name or generateName")
            return
        wrong = [f for f in ("name", "generateName", "namespace") if meta.get(f) is not None
                 and not isinstance(meta[f], str)]
        for f in wrong:
            bad(f"{opath}.metadata.{f}", f"expected a string, got {json_kind(meta[f])}")
        if wrong:
            return
        if not (meta.get("name") or meta.get("generateName")):
            bad(f"{opath}.metadata.name", "required: name or generateName")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return
        ns = namespaced(api_version, kind)
        if ns is None:
            bad(f"{opath}.kind", f'no matches for kind "{kind}" in version "{api_version}"')
            return
        if api_version == "v1" and kind == "Pod" and not allow_unknown_targets:
            _check_priority_class(obj, opath, known, bad)
        options = op.create_operation.create_options
        if options is not None and "All" in (options.dry_run or []):
            return  # a dry run creates nothing
        if kind == "CustomResourceDefinition":
            known.scope.update(_crd_scope(obj))
        if meta.get("name"):
            namespace = (meta.get("namespace") or "default") if ns else ""
            existing.add((api_version, kind, namespace, meta["name"]))
        known.track_priority_class(api_version, kind, meta.get("name") or None, created=True)
        return
    target = op.patch_operation or op.delete_operation
    assert target is not None
    field = "patchOperation" if op.patch_operation is not None else "deleteOperation"
    tpath = f"{path}.{field}"
    api_version, kind = target.type_meta.api_version, target.type_meta.kind
    ns = namespaced(api_version, kind)
    if ns is None:
        bad(f"{tpath}.typeMeta.kind", f'no matches for kind "{kind}" in version "{api_version}"')
        return
    namespace = (target.object_meta.namespace or "default") if ns else ""
    key = (api_version, kind, namespace, target.object_meta.name)
    if op.patch_operation is not None:
        p = op.patch_operation
        if p.subresource not in (None, "status"):
            bad(f"{tpath}.subresource", f"expected \"status\" or nothing, got {p.subresource!r}")
        if p.patch_type not in PATCH_TYPES:
            bad(
                f"{tpath}.patchType",
                f"unsupported patch type {p.patch_type!r} (expected one of "
                + ", ".join(k for k in PATCH_TYPES if "/" in k)
                + ")",
            )
        elif PATCH_TYPES[p.patch_type] == "strategic" and not is_builtin(api_version, kind):
            bad(f"{tpath}.patchType", unsupported_patch_message(STRATEGIC_MERGE_PATCH, builtin=False))
        else:
            try:
                body = parse_patch(p.patch, p.patch_type, p.type_meta)
            except ValueError as exc:
                bad(f"{tpath}.patch", str(exc))
            else:
                for name, value in type_meta_changes(body, PATCH_TYPES[p.patch_type]):
                    if name == "apiVersion" and value != api_version and (
                        not isinstance(value, str) or namespaced(value, kind) is None
                    ):
                        bad(f"{tpath}.patch", api_version_change_message(value, kind))
    elif op.delete_operation is not None and op.delete_operation.delete_options is not None:
        opts = op.delete_operation.delete_options
        if opts.propagation_policy is not None and opts.propagation_policy not in PROPAGATION_POLICIES:
            bad(
                f"{tpath}.deleteOptions.propagationPolicy",
                f"expected one of {', '.join(PROPAGATION_POLICIES)}, got {opts.propagation_policy!r}",
            )
        if opts.grace_period_seconds is not None and opts.grace_period_seconds < 0:
            bad(f"{tpath}.deleteOptions.gracePeriodSeconds", "must be 0 or greater")
    if key not in existing and not allow_unknown_targets:
        where = f"{namespace}/" if namespace else ""
        bad(
            f"{tpath}.objectMeta.name",
            f"{kind} {where}{target.object_meta.name} is not created by any earlier operation "
            "(if a controller creates it, run with --allow-unknown-targets)",
        )
    if op.delete_operation is not None:
        delete_options = op.delete_operation.delete_options
        if delete_options is not None and "All" in (delete_options.dry_run or []):
            return  # a dry run deletes nothing
        existing.discard(key)
        known.track_priority_class(api_version, kind, target.object_meta.name, created=False)


def _check_priority_class(
    pod: dict[str, Any], path: str, known: _Known, bad: Callable[[str, str], None]
) -> None:
    """A pod naming a PriorityClass that no earlier operation creates (nor a system class) is
    refused by the Priority admission plugin (plugin/pkg/admission/priority/admission.go)."""
    spec = pod.get("spec")
    name = spec.get("priorityClassName") if isinstance(spec, dict) else None
    if not isinstance(name, str) or not name or name in SYSTEM_PRIORITY_CLASSES:
        return
    if known.unnamed_priority_classes or name in known.priority_classes:
        return
    meta = pod.get("metadata") or {}
    pod_name = meta.get("name") or meta.get("generateName") or ""
    bad(f"{path}.spec.priorityClassName",
        f'pods "{pod_name}" is forbidden: no PriorityClass with name {name} was found '
        "(no earlier operation creates it; if a controller does, run with --allow-unknown-targets)")
