"""What the API server fills in on a StatefulSet before validating it.

Upstream: pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet (with the
MaxUnavailableStatefulSet gate off, as in v1.34, so rollingUpdate.maxUnavailable is dropped),
the pod defaults of the template (core v1 SetDefaults_PodSpec, as kubesim's cluster applies
them to pods) and the claim templates' apiVersion/kind and volumeMode.
"""

from __future__ import annotations

from typing import Any

from kubesim.cluster.pods import default_pod

__all__ = ["default_statefulset"]


def default_statefulset(sts: dict[str, Any]) -> None:
    """Fill in the defaults of a decoded apps/v1 StatefulSet (in place)."""
    spec = sts.get("spec")
    if type(spec) is not dict:
        return
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec.get("updateStrategy")
    if type(strategy) is not dict:
        strategy = spec["updateStrategy"] = {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
        if strategy.get("rollingUpdate") is None:
            strategy["rollingUpdate"] = {}
    rolling = strategy.get("rollingUpdate")
    if strategy["type"] == "RollingUpdate" and type(rolling) is dict:
        if rolling.get("partition") is None:
            rolling["partition"] = 0
        rolling.pop("maxUnavailable", None)  # dropped: the MaxUnavailableStatefulSet gate is off
    policy = spec.get("persistentVolumeClaimRetentionPolicy")
    if type(policy) is not dict:
        policy = spec["persistentVolumeClaimRetentionPolicy"] = {}
    policy["whenDeleted"] = policy.get("whenDeleted") or "Retain"
    policy["whenScaled"] = policy.get("whenScaled") or "Retain"
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    template = spec.get("template")
    if template is None:
        template = spec["template"] = {}
    if type(template) is dict:
        if template.get("spec") is None:
            template["spec"] = {}
        if type(template["spec"]) is dict:
            default_pod({"spec": template["spec"]})
    for claim in spec.get("volumeClaimTemplates") or ():
        if type(claim) is not dict:
            continue
        claim.setdefault("apiVersion", "v1")
        claim.setdefault("kind", "PersistentVolumeClaim")
        claim_spec = claim.get("spec")
        if type(claim_spec) is dict and not claim_spec.get("volumeMode"):
            claim_spec["volumeMode"] = "Filesystem"
