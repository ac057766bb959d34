"""Pods and pod templates, as the API server validates them on create and update.

Ports the scheduling-relevant part of k8s.io/kubernetes pkg/apis/core/validation/validation.go:
ValidatePodSpec (containers and their resources, restart and DNS policy, nodeSelector, affinity,
schedulingGates, topologySpreadConstraints, nodeName, activeDeadlineSeconds, tolerations,
priorityClassName, preemptionPolicy), ValidatePodCreate, ValidatePodUpdate (what a pod update
may change) and ValidatePodTemplateSpec. Volumes, security contexts, probes and the like are not
modelled by kubesim and are not checked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kubesim.k8s.content_memo import ContentMemo, content_key
from kubesim.k8s.validation import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    required,
    validate_labels,
)

from .affinity import validate_affinity
from .dra import validate_pod_resource_claims
from .resources import validate_resource_requirements
from .taints import validate_only_added_tolerations, validate_tolerations
from .topology import validate_topology_spread_constraints
from .values import as_int, as_list, as_map, in_range, not_a_list, not_supported

__all__ = ["validate_pod", "validate_pod_spec", "validate_pod_template", "validate_pod_update"]

_MAX_INT32 = 2**31 - 1
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_UPDATABLE = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)


def _containers(spec: dict[str, Any], field: str, seen: set[str]) -> list[FieldError]:
    """validateContainers / validateInitContainers: present (regular ones), named, unique, resources."""
    path = f"spec.{field}"
    containers = spec.get(field)
    if containers is None or containers == []:
        return [required(path)] if field == "containers" else []
    if not isinstance(containers, list):
        return [invalid(path, containers, "must be a list of containers")]
    errs: list[FieldError] = []
    for i, c in enumerate(containers):
        p = f"{path}[{i}]"
        if not isinstance(c, dict):
            errs.append(invalid(p, c, "must be a container object"))
            continue
        name = c.get("name")
        if not name:
            errs.append(required(f"{p}.name"))
        elif not isinstance(name, str):
            errs.append(invalid(f"{p}.name", name, "must be a string"))
        else:
            errs.extend(invalid(f"{p}.name", name, m) for m in is_dns1123_label(name))
            if name in seen:
                errs.append(duplicate(f"{p}.name", name))
            seen.add(name)
        errs.extend(validate_resource_requirements(c.get("resources"), f"{p}.resources"))
    return errs


def _enum(spec: dict[str, Any], field: str, allowed: tuple[str, ...]) -> list[FieldError]:
    """validateRestartPolicy / validateDNSPolicy / ValidatePreemptionPolicy: required and one of `allowed`."""
    value = spec.get(field)
    if value is None or value == "":
        return [required(f"spec.{field}")]
    return [] if value in allowed else [not_supported(f"spec.{field}", value, allowed)]


def _names(spec: dict[str, Any], field: str, check: Any) -> list[FieldError]:
    value = spec.get(field)
    if not value:
        return []
    if not isinstance(value, str):
        return [invalid(f"spec.{field}", value, "must be a string")]
    return [invalid(f"spec.{field}", value, m) for m in check(value)]


def _scheduling_gates(gates: Any, path: str) -> list[FieldError]:
    """validateSchedulingGates: qualified names, no duplicates."""
    errs = not_a_list(gates, path, "scheduling gates")
    seen: set[str] = set()
    for i, gate in enumerate(as_list(gates)):
        name = as_map(gate).get("name")
        text = name if isinstance(name, str) else ""
        errs.extend(invalid(f"{path}[{i}]", name, m) for m in is_qualified_name(text))
        if text in seen:
            errs.append(duplicate(f"{path}[{i}]", text))
        seen.add(text)
    return errs


def validate_pod_spec(spec: Any) -> list[FieldError]:
    """ValidatePodSpec for the fields kubesim models; paths start at `spec`."""
    if not isinstance(spec, dict):
        return [required("spec")]
    seen: set[str] = set()
    errs = _containers(spec, "containers", seen)
    errs.extend(_containers(spec, "initContainers", seen))
    errs.extend(_enum(spec, "restartPolicy", _RESTART_POLICIES))
    errs.extend(_enum(spec, "dnsPolicy", _DNS_POLICIES))
    selector = spec.get("nodeSelector")
    if selector is not None and not isinstance(selector, dict):
        errs.append(invalid("spec.nodeSelector", selector, "must be a map of label keys to values"))
    else:
        errs.extend(validate_labels(selector, "spec.nodeSelector"))
    errs.extend(validate_affinity(spec.get("affinity"), "spec.affinity"))
    errs.extend(_scheduling_gates(spec.get("schedulingGates"), "spec.schedulingGates"))
    errs.extend(validate_topology_spread_constraints(spec.get("topologySpreadConstraints"),
                                                     "spec.topologySpreadConstraints"))
    errs.extend(_names(spec, "serviceAccountName", is_dns1123_subdomain))
    errs.extend(_names(spec, "nodeName", is_dns1123_subdomain))
    if spec.get("activeDeadlineSeconds") is not None:
        errs.extend(in_range(spec["activeDeadlineSeconds"], "spec.activeDeadlineSeconds", 1, _MAX_INT32))
    errs.extend(_names(spec, "hostname", is_dns1123_label))
    errs.extend(_names(spec, "subdomain", is_dns1123_label))
    errs.extend(validate_tolerations(spec.get("tolerations"), "spec.tolerations"))
    errs.extend(_names(spec, "priorityClassName", is_dns1123_subdomain))
    if spec.get("preemptionPolicy") is not None:
        errs.extend(_enum(spec, "preemptionPolicy", _PREEMPTION_POLICIES))
    errs.extend(validate_pod_resource_claims(spec))
    return errs


_VALIDATED: ContentMemo[tuple[FieldError, ...]] = ContentMemo()
"""validate_pod's answers by spec content: a workload's pods share one spec, and `kubesim run`
validates every pod of a scenario before the run and again when the engine creates it."""


def validate_pod(pod: dict[str, Any]) -> list[FieldError]:
    """ValidatePodCreate (metadata aside): the spec, and no nodeName while scheduling gates remain.

    A pure function of pod["spec"]: answers are remembered by the spec's content (ContentMemo).
    """
    spec = pod.get("spec")
    key = content_key(spec)
    known = _VALIDATED.get(key)
    if known is not None:
        return list(known)
    errs = _validate_pod(spec)
    _VALIDATED.put(key, tuple(errs))
    return errs


def _validate_pod(spec: Any) -> list[FieldError]:
    errs = validate_pod_spec(spec)
    if isinstance(spec, dict):
        if spec.get("ephemeralContainers"):
            errs.append(forbidden("spec.ephemeralContainers", "cannot be set on create"))
        if spec.get("nodeName") and as_list(spec.get("schedulingGates")):
            errs.append(forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    return errs


def validate_pod_template(template: Any, path: str, *, with_spec: bool = True) -> list[FieldError]:
    """ValidatePodTemplateSpec: labels, annotation keys and (with_spec) the pod spec, under `path`.

    StatefulSets leave the spec out (upstream's ValidatePodTemplateSpecForStatefulSet does).
    """
    if not isinstance(template, dict):
        return [required(path)]
    meta = as_map(template.get("metadata"))
    labels = meta.get("labels")
    errs = validate_labels(labels if isinstance(labels, dict) else None, f"{path}.labels")
    for k in sorted(as_map(meta.get("annotations")), key=str):
        errs.extend(invalid(f"{path}.annotations", k, m) for m in is_qualified_name(str(k).lower()))
    spec = template.get("spec")
    if not with_spec:
        return errs
    errs.extend(FieldError(e.type, f"{path}.{e.field}", e.value, e.detail) for e in validate_pod_spec(spec))
    if isinstance(spec, dict) and spec.get("ephemeralContainers"):
        errs.append(forbidden(f"{path}.spec.ephemeralContainers", "ephemeral containers not allowed in pod template"))
    return errs


def _container_updates(new: Sequence[Any], old: Sequence[Any], path: str) -> tuple[list[FieldError], bool]:
    """ValidateContainerUpdates: same number of containers, each with an image."""
    if len(new) != len(old):
        return [forbidden(path, "pod updates may not add or remove containers")], True
    errs: list[FieldError] = []
    for i, c in enumerate(new):
        image = as_map(c).get("image")
        if not image:
            errs.append(required(f"{path}[{i}].image"))
        elif isinstance(image, str) and image.strip() != image:
            errs.append(invalid(f"{path}[{i}].image", image, "must not have leading or trailing whitespace"))
    return errs, False


def _deadline_update(new: Any, old: Any) -> list[FieldError]:
    path = "spec.activeDeadlineSeconds"
    if new is not None:
        value = as_int(new)
        if value is None or not 0 <= value <= _MAX_INT32:
            return [invalid(path, new, f"must be between 0 and {_MAX_INT32}, inclusive")]
        old_value = as_int(old)
        if old_value is not None and old_value < value:
            return [invalid(path, value, "must be less than or equal to previous value")]
    elif old is not None:
        return [invalid(path, None, "must not update from a positive integer to nil value")]
    return []


def _only_deleted_gates(new: Any, old: Any, path: str) -> list[FieldError]:
    """validateOnlyDeletedSchedulingGates."""
    old_names = {str(as_map(g).get("name")) for g in as_list(old)}
    added: dict[str, int] = {}
    for i, gate in enumerate(as_list(new)):
        added[str(as_map(gate).get("name"))] = i
    return [
        forbidden(f"{path}[{i}].name", f"only deletion is allowed, but found new scheduling gate '{name}'")
        for name, i in sorted(added.items(), key=lambda item: item[1])
        if name not in old_names
    ]


def _munged(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> dict[str, Any]:
    """The new spec with the fields an update may change set back to the old values."""
    munged = dict(new_spec)
    for field in ("containers", "initContainers"):
        olds = as_list(old_spec.get(field))
        news = as_list(new_spec.get(field))
        if field in new_spec:
            munged[field] = [
                {**as_map(c), "image": as_map(olds[i]).get("image")} if i < len(olds) and isinstance(c, dict) else c
                for i, c in enumerate(news)
            ]
    for field in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if field in old_spec:
            munged[field] = old_spec[field]
        else:
            munged.pop(field, None)
    old_grace = as_int(old_spec.get("terminationGracePeriodSeconds"))
    if old_grace is not None and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_spec["terminationGracePeriodSeconds"]
    if as_list(old_spec.get("schedulingGates")):
        # a gated pod may gain nodeSelector entries and node affinity (upstream checks that these
        # only narrow the constraints; kubesim accepts any change while the pod is gated)
        for field in ("nodeSelector",):
            if field in old_spec:
                munged[field] = old_spec[field]
            else:
                munged.pop(field, None)
        affinity = dict(as_map(munged.get("affinity")))
        old_node_affinity = as_map(old_spec.get("affinity")).get("nodeAffinity")
        affinity.pop("nodeAffinity", None)
        if old_node_affinity is not None:
            affinity["nodeAffinity"] = old_node_affinity
        if affinity or "affinity" in old_spec:
            munged["affinity"] = affinity
        else:
            munged.pop("affinity", None)
    return munged


def _difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """The spec fields that differ, one per line (upstream prints a cmp.Diff here)."""
    lines = []
    for key in sorted(old.keys() | new.keys()):
        if old.get(key) != new.get(key):
            lines.append(f"  spec.{key}: {_json(old.get(key))} -> {_json(new.get(key))}")
    return "\n".join(lines)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def validate_pod_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidatePodUpdate (metadata aside): a valid spec, changed only where an update may change it."""
    errs = validate_pod_spec(new.get("spec"))
    new_spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    for field in ("containers", "initContainers"):
        found, stop = _container_updates(as_list(new_spec.get(field)), as_list(old_spec.get(field)), f"spec.{field}")
        errs.extend(found)
        if stop:
            return errs
    deadline = _deadline_update(new_spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds"))
    if deadline:
        return errs + deadline
    errs.extend(validate_only_added_tolerations(new_spec.get("tolerations"), old_spec.get("tolerations"),
                                                "spec.tolerations"))
    errs.extend(_only_deleted_gates(new_spec.get("schedulingGates"), old_spec.get("schedulingGates"),
                                    "spec.schedulingGates"))
    if new_spec == old_spec:
        return errs
    munged = _munged(dict(new_spec), dict(old_spec))
    if munged != old_spec:
        errs.append(forbidden(
            "spec",
            f"pod updates may not change fields other than {','.join(_UPDATABLE)}\n{_difference(dict(old_spec), munged)}",
        ))
    return errs
