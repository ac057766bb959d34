"""apps/v1 defaulting of Deployments and ReplicaSets, as the API server decodes them.

Follows k8s.io/kubernetes pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment,
SetDefaults_ReplicaSet) plus SetDefaults_PodSpec on the pod template, done here by the
core's pod defaulting (kubesim.cluster.pods.default_pod) so that a template and the pods
made from it are defaulted alike.
"""

from __future__ import annotations

from typing import Any

from kubesim.cluster import copy_tree
from kubesim.cluster.pods import default_pod

__all__ = ["default_deployment", "default_replicaset", "default_template"]


def default_template(spec: dict[str, Any]) -> None:
    """Default spec.template.spec in place (when the template is an object)."""
    template = spec.get("template")
    if type(template) is not dict:
        return
    pod_spec = template.get("spec")
    if type(pod_spec) is not dict:
        return
    default_pod({"spec": pod_spec})


def default_replicaset(obj: dict[str, Any]) -> dict[str, Any]:
    """A defaulted copy of a ReplicaSet: replicas 1, template pod spec defaults."""
    obj = copy_tree(obj)
    spec = obj.get("spec")
    if type(spec) is not dict:
        return obj
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    default_template(spec)
    return obj


def default_deployment(obj: dict[str, Any]) -> dict[str, Any]:
    """A defaulted copy of a Deployment: replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10,
    progressDeadlineSeconds 600, template pod spec defaults."""
    obj = copy_tree(obj)
    spec = obj.get("spec")
    if type(spec) is not dict:
        return obj
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = spec.get("strategy")
    if type(strategy) is not dict:
        strategy = spec["strategy"] = {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if type(rolling) is not dict:
            rolling = strategy["rollingUpdate"] = {}
        if rolling.get("maxUnavailable") is None:
            rolling["maxUnavailable"] = "25%"
        if rolling.get("maxSurge") is None:
            rolling["maxSurge"] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = 600
    default_template(spec)
    return obj
