"""Subresources: pods/binding, pods/eviction, */scale, */status.

Follows k8s.io/kubernetes pkg/registry/core/pod/storage/storage.go (BindingREST),
pkg/registry/core/pod/storage/eviction.go (EvictionREST: PodDisruptionBudget check and
decrement, then the pod's deletion), pkg/registry/apps/deployment/storage/storage.go and its
replicaset, statefulset, replicationcontroller siblings (ScaleREST: autoscaling/v1 Scale), and
the status strategies (PUT/PATCH change the status only; cluster/writes.py does that).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubesim.cluster.jsontree import copy_tree
from kubesim.cluster.patches import apply_patch, patch_kind
from kubesim.cluster.registry import ResourceType
from kubesim.cluster.strategic_tables import schema_for
from kubesim.errors import ApiError, BadRequest, Forbidden, MethodNotSupported, NotFound, TooManyRequests
from kubesim.k8s.selectors import LabelSelector
from kubesim.k8s.validation import invalid, invalid_error
from kubesim.serve import rest

__all__ = ["serve"]

_NO_RESOURCE = "the server could not find the requested resource"
_SCALABLE = frozenset({("apps", "Deployment"), ("apps", "ReplicaSet"), ("apps", "StatefulSet"),
                       ("", "ReplicationController")})
_PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
_MAX_DISRUPTED_PODS = 2000
"""MaxDisruptedPodSize (eviction.go): more unconfirmed evictions than this are refused."""


def _scalable(req: rest.Request) -> bool:
    rt = req.rt
    return (rt.group, rt.kind) in _SCALABLE or req.state.call(lambda c: c.registry.custom_scale(rt)) is not None


class InternalError(ApiError):
    code = 500
    reason = "InternalError"


def serve(
    req: rest.Request, method: str, body: Any, raw: bytes, content_type: str
) -> tuple[int, dict[str, Any]]:
    """Answer a request for NAME/SUBRESOURCE (body decoded for POST/PUT, raw for PATCH)."""
    sub, rt = req.info.subresource, req.rt
    if sub == "status" and rt.status_subresource:
        verbs: Mapping[str, Callable[[], tuple[int, dict[str, Any]]]] = {
            "GET": lambda: rest.get(req), "PUT": lambda: rest.update(req, body),
            "PATCH": lambda: rest.patch(req, raw, content_type)}
    elif sub == "scale" and _scalable(req):
        verbs = {"GET": lambda: get_scale(req), "PUT": lambda: update_scale(req, body),
                 "PATCH": lambda: patch_scale(req, raw, content_type)}
    elif sub == "binding" and (rt.group, rt.kind) == ("", "Pod"):
        verbs = {"POST": lambda: bind(req, body)}
    elif sub == "eviction" and (rt.group, rt.kind) == ("", "Pod"):
        verbs = {"POST": lambda: evict(req, body)}
    else:
        raise NotFound(_NO_RESOURCE)
    handler = verbs.get(method)
    if handler is None:
        raise MethodNotSupported(rest.NOT_ALLOWED)
    return handler()


def _body(kind: str, api_versions: tuple[str, ...], body: Any) -> dict[str, Any]:
    if type(body) is not dict:
        raise BadRequest(f"the request body must be a {kind} object")
    if body.get("kind") not in (None, kind) or body.get("apiVersion") not in (None, *api_versions):
        raise BadRequest(f"the request body must be a {kind} ({' or '.join(api_versions)}), not "
                         f"{body.get('kind')} ({body.get('apiVersion')})")
    meta = body.get("metadata")
    if meta is not None and type(meta) is not dict:
        raise BadRequest("metadata must be an object")
    return body


def _check_name(req: rest.Request, body: Mapping[str, Any], kind: str) -> None:
    name = (body.get("metadata") or {}).get("name")
    if name not in (None, "", req.name()):
        raise BadRequest(f"name in URL does not match name in {kind} object")


# --- binding ------------------------------------------------------------------------


def bind(req: rest.Request, body: Any) -> tuple[int, dict[str, Any]]:
    """POST pods/NAME/binding: assign the pod to target.name (BindingREST.Create); 201 Success."""
    binding = _body("Binding", ("v1",), body)
    _check_name(req, binding, "Binding")
    target = binding.get("target")
    node = target.get("name") if type(target) is dict else None
    errors = []
    if type(target) is dict and target.get("kind") not in (None, "", "Node"):
        errors.append(invalid("target.kind", target.get("kind"), "must be empty or 'Node'"))
    if not isinstance(node, str) or not node:
        errors.append(invalid("target.name", node if node is not None else "", "must not be empty"))
    if errors:  # ValidatePodBinding
        raise invalid_error("Binding", req.name(), errors)
    assert isinstance(node, str)
    dry_run = req.dry_run()
    with req.state.locked() as cluster:
        cluster.bind(req.namespace or "default", req.name(), node, actor=req.who.actor, dry_run=dry_run)
    return 201, rest.success_status(req, 201)


# --- eviction -----------------------------------------------------------------------


def evict(req: rest.Request, body: Any) -> tuple[int, dict[str, Any]]:
    """POST pods/NAME/eviction (EvictionREST.Create): a pod the disruption budget may not lose
    is refused with 429; otherwise the budget's disruptionsAllowed goes down and the pod is deleted."""
    eviction = _body("Eviction", ("policy/v1", "policy/v1beta1"), body)
    _check_name(req, eviction, "Eviction")
    options = eviction.get("deleteOptions") or {}
    if type(options) is not dict:
        raise BadRequest("deleteOptions must be an object")
    dry_run = req.dry_run(options)
    with req.state.locked() as cluster:
        pod = cluster.get("v1", "Pod", req.name(), req.namespace)
        phase = (pod.get("status") or {}).get("phase")
        # canIgnorePDB: terminal, pending or already deleting pods are simply deleted
        if not (pod["metadata"].get("deletionTimestamp") or phase in ("Succeeded", "Failed", "Pending")):
            _use_disruption_budget(req, pod, dry_run)
        options = {"preconditions": {"uid": pod["metadata"]["uid"]}, **options}
        rest._delete_one(req, req.name(), req.namespace, options, dry_run)
    return 201, rest.success_status(req, 201)


def _use_disruption_budget(req: rest.Request, pod: dict[str, Any], dry_run: bool) -> None:
    """checkAndDecrement: the one matching PodDisruptionBudget must allow a disruption."""
    cluster = req.state.cluster
    labels = pod["metadata"].get("labels")
    pdbs = [p for p in cluster.list("policy/v1", "PodDisruptionBudget", pod["metadata"]["namespace"])
            if LabelSelector.from_dict((p.get("spec") or {}).get("selector")).matches(labels)]
    if not pdbs:
        return
    if len(pdbs) > 1:
        raise InternalError("This pod has more than one PodDisruptionBudget, which the eviction subresource "
                            "does not support.")
    pdb = pdbs[0]
    name, status = pdb["metadata"]["name"], pdb.get("status") or {}
    if status.get("observedGeneration", 0) < pdb["metadata"].get("generation", 0):
        raise _too_many(f"The disruption budget {name} is still being processed by the server.")
    allowed = status.get("disruptionsAllowed", 0)
    if allowed < 0:
        raise Forbidden("pdb disruptions allowed is negative")
    disrupted = dict(status.get("disruptedPods") or {})
    if len(disrupted) > _MAX_DISRUPTED_PODS:
        raise Forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller")
    if allowed == 0:
        raise _too_many(f"The disruption budget {name} needs {status.get('desiredHealthy', 0)} healthy pods "
                        f"and has {status.get('currentHealthy', 0)} currently")
    disrupted[pod["metadata"]["name"]] = cluster.clock.timestamp()
    updated = copy_tree(pdb)
    updated["status"] = {**status, "disruptionsAllowed": allowed - 1, "disruptedPods": disrupted}
    cluster.update(updated, actor=req.who.actor, subresource="status", dry_run=dry_run)


def _too_many(cause: str) -> TooManyRequests:
    """NewTooManyRequests(..., 10) with the DisruptionBudget cause (eviction.go)."""
    causes = [{"reason": "DisruptionBudget", "message": cause}]
    return TooManyRequests(_PDB_VIOLATION, details={"causes": causes, "retryAfterSeconds": 10})


# --- scale --------------------------------------------------------------------------


def _path(text: Any) -> tuple[str, ...]:
    """A CRD's JSON path (".spec.replicas") as keys."""
    return tuple(p for p in str(text or "").split(".") if p)


def _nested(obj: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = obj
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _scale_of(req: rest.Request, obj: dict[str, Any]) -> dict[str, Any]:
    """The autoscaling/v1 Scale of a workload (scaleFromDeployment and its siblings) or of a
    custom resource (apiextensions-apiserver customresource/etcd.go scaleFromCustomResource)."""
    meta = obj["metadata"]
    custom = req.state.cluster.registry.custom_scale(req.rt)
    if custom is not None:
        spec_replicas = _nested(obj, _path(custom.get("specReplicasPath")))
        status_replicas = _nested(obj, _path(custom.get("statusReplicasPath")))
        label_path = _path(custom.get("labelSelectorPath"))
        selector = _nested(obj, label_path) if label_path else ""
        replicas = spec_replicas if type(spec_replicas) is int else 0
        current = status_replicas if type(status_replicas) is int else 0
        selector = selector if isinstance(selector, str) else ""
    else:
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        raw = spec.get("selector")
        if req.rt.kind == "ReplicationController":
            selector = str(LabelSelector.from_set(raw)) if raw else ""
        else:
            selector = str(LabelSelector.from_dict(raw)) if raw is not None else ""
        replicas, current = spec.get("replicas", 1), status.get("replicas", 0)
    scale_meta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                  if k in meta}
    return {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": scale_meta,
            "spec": {"replicas": replicas}, "status": {"replicas": current, "selector": selector}}


def _with_replicas(req: rest.Request, obj: dict[str, Any], replicas: int) -> dict[str, Any]:
    """`obj` (a copy the caller owns) with its desired replicas set."""
    custom = req.state.cluster.registry.custom_scale(req.rt)
    path = _path(custom.get("specReplicasPath")) if custom is not None else ("spec", "replicas")
    if not path:
        raise BadRequest(f"the scale subresource of {req.rt.group_resource} has no specReplicasPath")
    holder = obj
    for key in path[:-1]:
        child = holder.get(key)
        holder[key] = child = dict(child) if isinstance(child, dict) else {}
        holder = child
    holder[path[-1]] = replicas
    return obj


def get_scale(req: rest.Request) -> tuple[int, dict[str, Any]]:
    """GET NAME/scale."""
    with req.state.locked() as cluster:
        obj = cluster.get(req.rt.api_version, req.rt.kind, req.name(), req.namespace)
        return 200, _scale_of(req, obj)


def _write_scale(req: rest.Request, scale: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Set the workload's replicas from a Scale (ValidateScale, then the workload's update)."""
    spec = scale.get("spec")
    if spec is not None and type(spec) is not dict:
        raise BadRequest("spec must be an object (ScaleSpec)")
    replicas = (spec or {}).get("replicas", 0)
    if type(replicas) is not int:
        raise BadRequest(f"spec.replicas: Invalid value: {replicas!r}: must be an integer")
    if replicas < 0:
        raise invalid_error("Scale.autoscaling", req.name(),
                            [invalid("spec.replicas", replicas, "must be greater than or equal to 0")])
    dry_run = req.dry_run()
    with req.state.locked() as cluster:
        obj = _with_replicas(req, cluster.get(req.rt.api_version, req.rt.kind, req.name(), req.namespace),
                             replicas)
        rv = (scale.get("metadata") or {}).get("resourceVersion")
        if rv:
            obj["metadata"]["resourceVersion"] = rv
        updated = cluster.update(obj, actor=req.who.actor, dry_run=dry_run)
        return 200, _scale_of(req, updated)


def update_scale(req: rest.Request, body: Any) -> tuple[int, dict[str, Any]]:
    """PUT NAME/scale with an autoscaling/v1 Scale."""
    scale = _body("Scale", ("autoscaling/v1",), body)
    _check_name(req, scale, "Scale")
    return _write_scale(req, scale)


def patch_scale(req: rest.Request, raw: bytes, content_type: str) -> tuple[int, dict[str, Any]]:
    """PATCH NAME/scale (what `kubectl scale` sends): the patch applies to the current Scale."""
    rest.check_patch_type(content_type, True)
    with req.state.locked():  # re-entrant: the read and the write are one step
        _, current = get_scale(req)
        schema = schema_for("autoscaling", "Scale")
        patched = apply_patch(current, raw, patch_kind(content_type, True), schema)
        _check_name(req, patched, "Scale")
        return _write_scale(req, patched)
