"""resource.k8s.io/v1 (Dynamic Resource Allocation) objects, as the API server validates them.

Ports the important checks of k8s.io/kubernetes pkg/apis/resource/validation/validation.go:
ValidateDeviceClass, ValidateResourceClaim (+ update: the spec is immutable),
ValidateResourceClaimTemplate, ValidateResourceSlice, and validateDeviceClaim's requests,
constraints and config, with upstream's size limits (pkg/apis/resource/types.go). CEL
selectors are checked for presence and length here; the scheduler plugin compiles them
(kubesim_scheduler's DRA admission) since the CEL library is its dependency. Defaults
(allocationMode ExactCount, count 1) follow pkg/apis/resource/v1/defaults.go.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kubesim.k8s.quantity import QuantityError, parse
from kubesim.k8s.validation import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    required,
)

from .affinity import validate_node_selector
from .values import as_int, as_list, as_map, not_supported

__all__ = [
    "CEL_SELECTOR_MAX_LENGTH",
    "default_device_claim",
    "device_selectors",
    "validate_device_class",
    "validate_pod_resource_claims",
    "validate_resource_claim",
    "validate_resource_claim_template",
    "validate_resource_claim_update",
    "validate_resource_slice",
]

CEL_SELECTOR_MAX_LENGTH = 10 * 1024
_SLICE_MAX_DEVICES = 128
_MAX_ATTRIBUTES_AND_CAPACITIES = 32
_REQUESTS_MAX = 32
_CONSTRAINTS_MAX = 32
_SELECTORS_MAX = 32
_CONFIG_MAX = 32
_FIRST_AVAILABLE_MAX = 8
_ALLOCATION_RESULTS_MAX = 32
_RESERVED_FOR_MAX = 256
_ATTRIBUTE_VALUE_MAX = 64
_ID_MAX = 32
_DRIVER_MAX = 63
_POD_CLAIMS_MAX = 128
_MODES = ("All", "ExactCount")


def default_device_claim(devices: Any) -> None:
    """SetDefaults_ExactDeviceRequest / DeviceSubRequest: allocationMode ExactCount, count 1 (in place)."""
    for request in as_list(as_map(devices).get("requests")):
        if not isinstance(request, dict):
            continue
        targets = [request.get("exactly")] + list(as_list(request.get("firstAvailable")))
        for target in targets:
            if isinstance(target, dict):
                if not target.get("allocationMode"):
                    target["allocationMode"] = "ExactCount"
                if target.get("allocationMode") == "ExactCount" and target.get("count") is None:
                    target["count"] = 1


def device_selectors(obj: Any) -> Iterator[tuple[str, str]]:
    """(field path, CEL expression) of every selector in a DeviceClass, claim or claim template."""
    kind = as_map(obj).get("kind")
    spec = as_map(as_map(obj).get("spec"))
    if kind == "DeviceClass":
        for i, sel in enumerate(as_list(spec.get("selectors"))):
            yield f"spec.selectors[{i}].cel.expression", str(as_map(as_map(sel).get("cel")).get("expression") or "")
        return
    path = "spec.spec.devices" if kind == "ResourceClaimTemplate" else "spec.devices"
    devices = as_map(as_map(spec.get("spec")).get("devices") if kind == "ResourceClaimTemplate" else spec.get("devices"))
    for i, request in enumerate(as_list(devices.get("requests"))):
        request = as_map(request)
        subs = [(f"{path}.requests[{i}].exactly", request.get("exactly"))] if request.get("exactly") else []
        subs += [(f"{path}.requests[{i}].firstAvailable[{j}]", s) for j, s in enumerate(as_list(request.get("firstAvailable")))]
        for p, sub in subs:
            for k, sel in enumerate(as_list(as_map(sub).get("selectors"))):
                yield f"{p}.selectors[{k}].cel.expression", str(as_map(as_map(sel).get("cel")).get("expression") or "")


def _too_many(path: str, n: int, limit: int) -> list[FieldError]:
    return [FieldError("Too many", path, n, f"must have at most {limit} items")] if n > limit else []


def _list(value: Any, path: str) -> tuple[list[Any], list[FieldError]]:
    if value is None:
        return [], []
    if not isinstance(value, list):
        return [], [invalid(path, value, "must be a list")]
    return value, []


def _selectors(value: Any, path: str) -> list[FieldError]:
    items, errs = _list(value, path)
    errs += _too_many(path, len(items), _SELECTORS_MAX)
    for i, sel in enumerate(items):
        cel = as_map(as_map(sel).get("cel"))
        expr = cel.get("expression")
        p = f"{path}[{i}].cel.expression"
        if not as_map(sel).get("cel"):
            errs.append(required(f"{path}[{i}].cel"))
        elif not isinstance(expr, str) or not expr.strip():
            errs.append(required(p))
        elif len(expr) > CEL_SELECTOR_MAX_LENGTH:
            errs.append(FieldError("Too long", p, "<value omitted>", f"may not be more than {CEL_SELECTOR_MAX_LENGTH} bytes"))
    return errs


def _driver_name(value: Any, path: str) -> list[FieldError]:
    if not value:
        return [required(path)]
    if not isinstance(value, str):
        return [invalid(path, value, "must be a string")]
    errs = [invalid(path, value, m) for m in is_dns1123_subdomain(value.lower())]
    if len(value) > _DRIVER_MAX:
        errs.append(FieldError("Too long", path, value, f"may not be more than {_DRIVER_MAX} bytes"))
    return errs


def _config(value: Any, path: str, request_names: set[str] | None) -> list[FieldError]:
    items, errs = _list(value, path)
    errs += _too_many(path, len(items), _CONFIG_MAX)
    for i, cfg in enumerate(items):
        cfg = as_map(cfg)
        p = f"{path}[{i}]"
        if request_names is not None:
            errs += _request_refs(cfg.get("requests"), f"{p}.requests", request_names)
        opaque = cfg.get("opaque")
        if not opaque:
            errs.append(required(f"{p}.opaque"))
            continue
        errs += _driver_name(as_map(opaque).get("driver"), f"{p}.opaque.driver")
        if as_map(opaque).get("parameters") is None:
            errs.append(required(f"{p}.opaque.parameters"))
    return errs


def _request_refs(value: Any, path: str, names: set[str]) -> list[FieldError]:
    items, errs = _list(value, path)
    seen: set[str] = set()
    for i, name in enumerate(items):
        base = str(name).split("/")[0]
        if not isinstance(name, str) or base not in names:
            errs.append(invalid(f"{path}[{i}]", name, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"))
        elif name in seen:
            errs.append(duplicate(f"{path}[{i}]", name))
        seen.add(str(name))
    return errs


def _exact(req: Any, path: str, *, sub: bool) -> list[FieldError]:
    req = as_map(req)
    errs: list[FieldError] = []
    cls = req.get("deviceClassName")
    if not cls:
        errs.append(required(f"{path}.deviceClassName"))
    elif not isinstance(cls, str):
        errs.append(invalid(f"{path}.deviceClassName", cls, "must be a string"))
    else:
        errs += [invalid(f"{path}.deviceClassName", cls, m) for m in is_dns1123_subdomain(cls)]
    errs += _selectors(req.get("selectors"), f"{path}.selectors")
    mode = req.get("allocationMode")
    count = req.get("count")
    if mode == "All":
        if count is not None:
            errs.append(invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'"))
    elif mode == "ExactCount":
        n = as_int(count)
        if n is None or n <= 0:
            errs.append(invalid(f"{path}.count", count, "must be greater than zero"))
    elif mode is None or mode == "":
        errs.append(required(f"{path}.allocationMode"))
    else:
        errs.append(not_supported(f"{path}.allocationMode", mode, _MODES))
    if sub and req.get("adminAccess") is not None:
        errs.append(forbidden(f"{path}.adminAccess", "not supported in a subrequest"))
    elif req.get("adminAccess") is not None and not isinstance(req.get("adminAccess"), bool):
        errs.append(invalid(f"{path}.adminAccess", req.get("adminAccess"), "must be a boolean"))
    return errs


def _unique_label(name: Any, path: str, names: set[str]) -> list[FieldError]:
    """A required DNS-1123 label not already in `names` (which it joins): request and claim names."""
    if not name:
        return [required(path)]
    errs = [invalid(path, name, m) for m in is_dns1123_label(str(name))]
    if str(name) in names:
        errs.append(duplicate(path, name))
    names.add(str(name))
    return errs


def _device_claim(devices: Any, path: str) -> list[FieldError]:
    """validateDeviceClaim: requests (exactly XOR firstAvailable), constraints, config."""
    devices = as_map(devices)
    requests, errs = _list(devices.get("requests"), f"{path}.requests")
    errs += _too_many(f"{path}.requests", len(requests), _REQUESTS_MAX)
    names: set[str] = set()
    for i, request in enumerate(requests):
        request = as_map(request)
        p = f"{path}.requests[{i}]"
        errs += _unique_label(request.get("name"), f"{p}.name", names)
        exactly, first = request.get("exactly"), request.get("firstAvailable")
        if exactly and first:
            errs.append(invalid(p, "{...}", "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
        elif exactly:
            errs += _exact(exactly, f"{p}.exactly", sub=False)
        elif first:
            subs, lerrs = _list(first, f"{p}.firstAvailable")
            errs += lerrs + _too_many(f"{p}.firstAvailable", len(subs), _FIRST_AVAILABLE_MAX)
            sub_names: set[str] = set()
            for j, sub in enumerate(subs):
                sp = f"{p}.firstAvailable[{j}]"
                sname = as_map(sub).get("name")
                if not sname:
                    errs.append(required(f"{sp}.name"))
                else:
                    errs += [invalid(f"{sp}.name", sname, m) for m in is_dns1123_label(str(sname))]
                    if sname in sub_names:
                        errs.append(duplicate(f"{sp}.name", sname))
                    sub_names.add(str(sname))
                errs += _exact(sub, sp, sub=True)
        else:
            errs.append(invalid(p, "{...}", "exactly one of `exactly` or `firstAvailable` is required"))
    constraints, lerrs = _list(devices.get("constraints"), f"{path}.constraints")
    errs += lerrs + _too_many(f"{path}.constraints", len(constraints), _CONSTRAINTS_MAX)
    for i, c in enumerate(constraints):
        c = as_map(c)
        p = f"{path}.constraints[{i}]"
        errs += _request_refs(c.get("requests"), f"{p}.requests", names)
        attr = c.get("matchAttribute")
        if not attr:
            errs.append(required(f"{p}.matchAttribute"))
        elif not isinstance(attr, str) or "/" not in attr:
            errs.append(invalid(f"{p}.matchAttribute", attr, "must include a domain"))
        else:
            domain, _, ident = attr.partition("/")
            errs += [invalid(f"{p}.matchAttribute", attr, m) for m in is_dns1123_subdomain(domain)]
            errs += [invalid(f"{p}.matchAttribute", attr, m) for m in _c_identifier(ident)]
    errs += _config(devices.get("config"), f"{path}.config", names)
    return errs


def _c_identifier(value: str) -> list[str]:
    ok = bool(value) and (value[0].isalpha() or value[0] == "_") and all(ch.isalnum() or ch == "_" for ch in value)
    if not ok:
        return ["a valid C identifier must start with alphabetic character or '_', followed by a string of "
                "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
                "validation is '[A-Za-z_][A-Za-z0-9_]*')"]
    if len(value) > _ID_MAX:
        return [f"must be no more than {_ID_MAX} characters"]
    return []


def _qualified_device_name(name: str, path: str) -> list[FieldError]:
    """validateQualifiedName of attribute and capacity names: optional `domain/` + C identifier."""
    domain, sep, ident = name.rpartition("/")
    errs = [invalid(path, name, m) for m in _c_identifier(ident)]
    if sep:
        if not domain:
            errs.append(required(path, "the domain must not be empty"))
        else:
            errs += [invalid(path, name, m) for m in is_dns1123_subdomain(domain)]
    return errs


def validate_device_class(dc: dict[str, Any]) -> list[FieldError]:
    """ValidateDeviceClass: selectors and config."""
    spec = as_map(dc.get("spec"))
    errs = _selectors(spec.get("selectors"), "spec.selectors")
    errs += _config(spec.get("config"), "spec.config", None)
    ext = spec.get("extendedResourceName")
    if ext is not None and (not isinstance(ext, str) or is_qualified_name(ext)):
        errs.append(invalid("spec.extendedResourceName", ext, "must be a valid extended resource name"))
    return errs


def _claim_status(status: Any) -> list[FieldError]:
    status = as_map(status)
    errs: list[FieldError] = []
    reserved, lerrs = _list(status.get("reservedFor"), "status.reservedFor")
    errs += lerrs + _too_many("status.reservedFor", len(reserved), _RESERVED_FOR_MAX)
    uids: set[str] = set()
    for i, ref in enumerate(reserved):
        ref = as_map(ref)
        for field in ("resource", "name", "uid"):
            if not ref.get(field):
                errs.append(required(f"status.reservedFor[{i}].{field}"))
        if ref.get("uid") in uids:
            errs.append(duplicate(f"status.reservedFor[{i}].uid", ref.get("uid")))
        uids.add(str(ref.get("uid")))
    alloc = as_map(status.get("allocation"))
    if reserved and not alloc:
        errs.append(forbidden("status.reservedFor", "may not be specified when `allocated` is not set"))
    results, lerrs = _list(as_map(alloc.get("devices")).get("results"), "status.allocation.devices.results")
    errs += lerrs + _too_many("status.allocation.devices.results", len(results), _ALLOCATION_RESULTS_MAX)
    for i, r in enumerate(results):
        for field in ("request", "driver", "pool", "device"):
            if not as_map(r).get(field):
                errs.append(required(f"status.allocation.devices.results[{i}].{field}"))
    if alloc.get("nodeSelector") is not None:
        errs += validate_node_selector(alloc.get("nodeSelector"), "status.allocation.nodeSelector")
    return errs


def validate_resource_claim(claim: dict[str, Any]) -> list[FieldError]:
    """ValidateResourceClaim: the device claim (status is checked on status writes)."""
    return _device_claim(as_map(claim.get("spec")).get("devices"), "spec.devices") + _claim_status(claim.get("status"))


def validate_resource_claim_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateResourceClaimUpdate: the spec is immutable."""
    if as_map(new.get("spec")) != as_map(old.get("spec")):
        return [invalid("spec", "{...}", "field is immutable")]
    return _claim_status(new.get("status"))


def validate_resource_claim_template(tpl: dict[str, Any]) -> list[FieldError]:
    """ValidateResourceClaimTemplate: spec.spec is a claim spec."""
    spec = as_map(tpl.get("spec"))
    return _device_claim(as_map(spec.get("spec")).get("devices"), "spec.spec.devices")


def _attribute(value: Any, path: str) -> list[FieldError]:
    value = as_map(value)
    set_fields = [f for f in ("int", "bool", "string", "version") if value.get(f) is not None]
    if len(set_fields) != 1:
        return [invalid(path, dict(value), "exactly one value must be specified")]
    field = set_fields[0]
    v = value[field]
    if field == "int" and (not isinstance(v, int) or isinstance(v, bool)):
        return [invalid(f"{path}.int", v, "must be an integer")]
    if field == "bool" and not isinstance(v, bool):
        return [invalid(f"{path}.bool", v, "must be a boolean")]
    if field in ("string", "version"):
        if not isinstance(v, str):
            return [invalid(f"{path}.{field}", v, "must be a string")]
        if len(v) > _ATTRIBUTE_VALUE_MAX:
            return [FieldError("Too long", f"{path}.{field}", v, f"may not be more than {_ATTRIBUTE_VALUE_MAX} bytes")]
        if field == "version" and not _is_semver(v):
            return [invalid(f"{path}.version", v, "must be a string compatible with semver.org spec 2.0.0")]
    return []


def _is_semver(v: str) -> bool:
    core = v.split("+", 1)[0].split("-", 1)[0]
    parts = core.split(".")
    return len(parts) == 3 and all(p.isdigit() and (p == "0" or not p.startswith("0")) for p in parts)


def _device(device: Any, path: str) -> list[FieldError]:
    device = as_map(device)
    errs: list[FieldError] = []
    name = device.get("name")
    if not name:
        errs.append(required(f"{path}.name"))
    else:
        errs += [invalid(f"{path}.name", name, m) for m in is_dns1123_label(str(name))]
    attrs, caps = as_map(device.get("attributes")), as_map(device.get("capacity"))
    for key in sorted(attrs):
        errs += _qualified_device_name(key, f"{path}.attributes[{key}]")
        errs += _attribute(attrs[key], f"{path}.attributes[{key}]")
    for key in sorted(caps):
        errs += _qualified_device_name(key, f"{path}.capacity[{key}]")
        try:
            parse(as_map(caps[key]).get("value"))
        except (QuantityError, TypeError, ValueError):
            errs.append(invalid(f"{path}.capacity[{key}].value", as_map(caps[key]).get("value"), "must be a quantity"))
    total = len(attrs) + len(caps)
    if total > _MAX_ATTRIBUTES_AND_CAPACITIES:
        errs.append(FieldError("Too many", path, total, f"the total number of attributes and capacities must not exceed {_MAX_ATTRIBUTES_AND_CAPACITIES}"))
    return errs


def _pool_name(name: Any, path: str) -> list[FieldError]:
    """validatePoolName: at most 253 characters, "/"-separated DNS subdomains."""
    if not name:
        return [required(path)]
    text = str(name)
    if len(text) > 253:
        return [FieldError("Too long", path, text, "may not be more than 253 bytes")]
    for segment in text.split("/"):
        problems = is_dns1123_subdomain(segment) if segment else ["segments must not be empty"]
        if problems:
            return [invalid(path, text, problems[0])]
    return []


def validate_resource_slice(rs: dict[str, Any]) -> list[FieldError]:
    """ValidateResourceSlice: driver, pool, exactly one node selection, devices."""
    spec = as_map(rs.get("spec"))
    errs = _driver_name(spec.get("driver"), "spec.driver")
    pool = as_map(spec.get("pool"))
    errs += _pool_name(pool.get("name"), "spec.pool.name")
    count = as_int(pool.get("resourceSliceCount"))
    if count is None or count <= 0:
        errs.append(invalid("spec.pool.resourceSliceCount", pool.get("resourceSliceCount"), "must be greater than zero"))
    gen = as_int(pool.get("generation") or 0)
    if gen is None or gen < 0:
        errs.append(invalid("spec.pool.generation", pool.get("generation"), "must be greater than or equal to 0"))
    chosen = [f for f in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection") if spec.get(f)]
    if len(chosen) != 1:
        msg = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
        errs.append(invalid("spec", "{...}", msg + (", but multiple fields are set" if chosen else "")))
    if spec.get("nodeName"):
        errs += [invalid("spec.nodeName", spec["nodeName"], m) for m in is_dns1123_subdomain(str(spec["nodeName"]))]
    if spec.get("nodeSelector"):
        errs += validate_node_selector(spec.get("nodeSelector"), "spec.nodeSelector")
        if len(as_list(as_map(spec.get("nodeSelector")).get("nodeSelectorTerms"))) != 1:
            errs.append(invalid("spec.nodeSelector.nodeSelectorTerms", "[...]", "must have exactly one node selector term"))
    devices, lerrs = _list(spec.get("devices"), "spec.devices")
    errs += lerrs + _too_many("spec.devices", len(devices), _SLICE_MAX_DEVICES)
    seen: set[str] = set()
    for i, device in enumerate(devices):
        errs += _device(device, f"spec.devices[{i}]")
        name = as_map(device).get("name")
        if name in seen:
            errs.append(duplicate(f"spec.devices[{i}].name", name))
        seen.add(str(name))
    return errs


def validate_pod_resource_claims(spec: dict[str, Any]) -> list[FieldError]:
    """validatePodResourceClaims and container resources.claims (pkg/apis/core/validation)."""
    claims, errs = _list(spec.get("resourceClaims"), "spec.resourceClaims")
    errs += _too_many("spec.resourceClaims", len(claims), _POD_CLAIMS_MAX)
    names: set[str] = set()
    for i, claim in enumerate(claims):
        claim = as_map(claim)
        p = f"spec.resourceClaims[{i}]"
        errs += _unique_label(claim.get("name"), f"{p}.name", names)
        sources = [f for f in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(f)]
        if len(sources) != 1:
            errs.append(invalid(p, dict(claim), "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        for f in sources:
            errs += [invalid(f"{p}.{f}", claim[f], m) for m in is_dns1123_subdomain(str(claim[f]))]
    for field in ("initContainers", "containers"):
        for i, c in enumerate(as_list(spec.get(field))):
            used: set[str] = set()
            for j, ref in enumerate(as_list(as_map(as_map(c).get("resources")).get("claims"))):
                p = f"spec.{field}[{i}].resources.claims[{j}]"
                name = as_map(ref).get("name")
                key = f"{name}/{as_map(ref).get('request') or ''}"
                if not name:
                    errs.append(required(f"{p}.name"))
                elif name not in names:
                    errs.append(FieldError("Not found", p, name, "must be one of the names in pod.spec.resourceClaims"
                                           + ("" if names else " which is empty")))
                elif key in used:
                    errs.append(duplicate(p, name))
                used.add(key)
    return errs

