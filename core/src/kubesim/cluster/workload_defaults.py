"""Defaulting of workload objects (apps/v1 and batch/v1) as the API server decodes them.

Follows k8s.io/kubernetes pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment,
SetDefaults_ReplicaSet, SetDefaults_StatefulSet with the MaxUnavailableStatefulSet gate off as in
v1.34, SetDefaults_DaemonSet) and pkg/apis/batch/v1/defaults.go (SetDefaults_Job), plus
SetDefaults_PodSpec on every pod template through the pod defaulting (kubesim.cluster.pods), so
that a template and the pods made from it are defaulted alike. All functions work in place.
"""

from __future__ import annotations

from typing import Any

from .pods import default_pod

__all__ = [
    "JOB_CONTROLLER_UID_LABELS",
    "JOB_NAME_LABELS",
    "default_daemonset",
    "default_deployment",
    "default_job",
    "default_replicaset",
    "default_statefulset",
    "default_template",
    "generate_job_selector",
]

JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
JOB_CONTROLLER_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


def default_template(spec: dict[str, Any]) -> None:
    """An absent template becomes an empty one (a struct in Go), and its pod spec is defaulted."""
    template = spec.get("template")
    if template is None:
        template = spec["template"] = {}
    if type(template) is not dict:
        return
    if template.get("spec") is None:
        template["spec"] = {}
    if type(template["spec"]) is dict:
        default_pod({"spec": template["spec"]})


def _spec(obj: dict[str, Any]) -> dict[str, Any] | None:
    spec = obj.get("spec")
    if spec is None:
        spec = obj["spec"] = {}
    return spec if type(spec) is dict else None


def default_replicaset(obj: dict[str, Any]) -> None:
    """SetDefaults_ReplicaSet: replicas 1, template pod spec defaults."""
    spec = _spec(obj)
    if spec is None:
        return
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    default_template(spec)


def default_deployment(obj: dict[str, Any]) -> None:
    """SetDefaults_Deployment: replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10,
    progressDeadlineSeconds 600, template pod spec defaults."""
    spec = _spec(obj)
    if spec is None:
        return
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = spec.get("strategy")
    if strategy is None:
        strategy = spec["strategy"] = {}
    if type(strategy) is dict:
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.get("rollingUpdate")
            if rolling is None:
                rolling = strategy["rollingUpdate"] = {}
            if type(rolling) is dict:
                if rolling.get("maxUnavailable") is None:
                    rolling["maxUnavailable"] = "25%"
                if rolling.get("maxSurge") is None:
                    rolling["maxSurge"] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = 600
    default_template(spec)


def default_statefulset(obj: dict[str, Any]) -> None:
    """SetDefaults_StatefulSet, the template's pod defaults and the claim templates' defaults."""
    spec = _spec(obj)
    if spec is None:
        return
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec.get("updateStrategy")
    if strategy is None:
        strategy = spec["updateStrategy"] = {}
    if type(strategy) is dict:
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
    if policy is None:
        policy = spec["persistentVolumeClaimRetentionPolicy"] = {}
    if type(policy) is dict:
        policy["whenDeleted"] = policy.get("whenDeleted") or "Retain"
        policy["whenScaled"] = policy.get("whenScaled") or "Retain"
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    default_template(spec)
    claims = spec.get("volumeClaimTemplates")
    for claim in claims if type(claims) is list else ():
        if type(claim) is not dict:
            continue
        claim.setdefault("apiVersion", "v1")
        claim.setdefault("kind", "PersistentVolumeClaim")
        claim_spec = claim.get("spec")
        if type(claim_spec) is dict and not claim_spec.get("volumeMode"):
            claim_spec["volumeMode"] = "Filesystem"


def default_daemonset(obj: dict[str, Any]) -> None:
    """SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10."""
    spec = _spec(obj)
    if spec is None:
        return
    strategy = spec.get("updateStrategy")
    if strategy is None:
        strategy = spec["updateStrategy"] = {}
    if type(strategy) is dict:
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.get("rollingUpdate")
            if rolling is None:
                rolling = strategy["rollingUpdate"] = {}
            if type(rolling) is dict:
                if rolling.get("maxUnavailable") is None:
                    rolling["maxUnavailable"] = 1
                if rolling.get("maxSurge") is None:
                    rolling["maxSurge"] = 0
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    default_template(spec)


def default_job(obj: dict[str, Any]) -> None:
    """SetDefaults_Job: completions and parallelism 1 when both are unset, backoffLimit 6,
    completionMode NonIndexed, suspend false, the template's labels as the Job's when it has none."""
    spec = _spec(obj)
    if spec is None:
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = 2**31 - 1 if spec.get("backoffLimitPerIndex") is not None else 6
    if spec.get("completionMode") is None:
        spec["completionMode"] = "NonIndexed"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    default_template(spec)
    template = spec.get("template")
    tmeta = template.get("metadata") if type(template) is dict else None
    labels = tmeta.get("labels") if type(tmeta) is dict else None
    meta = obj.get("metadata")
    if type(labels) is dict and labels and type(meta) is dict and not meta.get("labels") and all(
        type(v) is str for v in labels.values()
    ):
        meta["labels"] = dict(labels)


def generate_job_selector(job: dict[str, Any]) -> None:
    """jobStrategy.PrepareForCreate's generateSelector, unless spec.manualSelector is true.

    The template gets the job-name and controller-uid labels (a label the user set is kept, and
    validation refuses it if it differs) and the selector matches the controller-uid label.
    Needs metadata.name and metadata.uid; objects of the wrong shape are left to validation.
    """
    spec, meta = job.get("spec"), job.get("metadata")
    if type(spec) is not dict or type(meta) is not dict or spec.get("manualSelector") is True:
        return
    template = spec.get("template")
    if type(template) is not dict:
        return
    tmeta = template.get("metadata")
    if tmeta is None:
        tmeta = template["metadata"] = {}
    labels = tmeta.get("labels") if type(tmeta) is dict else None
    if type(tmeta) is dict and labels is None:
        labels = tmeta["labels"] = {}
    selector = spec.get("selector")
    if selector is None:
        selector = spec["selector"] = {}
    match = selector.get("matchLabels") if type(selector) is dict else None
    if type(selector) is dict and match is None:
        match = selector["matchLabels"] = {}
    if type(labels) is not dict or type(match) is not dict:
        return
    name, uid = str(meta.get("name") or ""), str(meta.get("uid") or "")
    for key in JOB_NAME_LABELS:
        labels.setdefault(key, name)
    for key in JOB_CONTROLLER_UID_LABELS:
        labels.setdefault(key, uid)
    match.setdefault(JOB_CONTROLLER_UID_LABELS[1], uid)
