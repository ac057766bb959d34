"""Ports of pkg/scheduler/apis/config/validation/validation_test.go (v1.34), with the
upstream messages checked in full (upstream compares type and field only).

Not ported: the leaderElection cases (bad-resource-name-not-set,
bad-resource-namespace-not-set, bad-resource-lock-not-leases); kubesim ignores
leaderElection. The valid config gets an extender urlPrefix, which kubesim requires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest
from kubesim_scheduler.config import (
    DefaultPreemptionArgs,
    Extender,
    ExtenderManagedResource,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
    validate,
)

URL = "http://127.0.0.1:8081/extender"

VALID = KubeSchedulerConfiguration(
    parallelism=8,
    pod_initial_backoff_seconds=1,
    pod_max_backoff_seconds=1,
    profiles=(
        KubeSchedulerProfile(
            scheduler_name="me",
            percentage_of_nodes_to_score=35,
            plugins=Plugins(
                queue_sort=PluginSet(enabled=(Plugin("CustomSort"),)),
                score=PluginSet(disabled=(Plugin("*"),)),
            ),
            plugin_config=(PluginConfig("DefaultPreemption", DefaultPreemptionArgs(10, 100)),),
        ),
        KubeSchedulerProfile(
            scheduler_name="other",
            percentage_of_nodes_to_score=35,
            plugins=Plugins(
                queue_sort=PluginSet(enabled=(Plugin("CustomSort"),)),
                bind=PluginSet(enabled=(Plugin("CustomBind"),)),
            ),
        ),
    ),
    extenders=(Extender(url_prefix=URL, prioritize_verb="prioritize", weight=1),),
)

Edit = Callable[[KubeSchedulerConfiguration], KubeSchedulerConfiguration]


def profile(i: int, **changes: Any) -> Edit:
    """An edit of profiles[i]."""

    def edit(c: KubeSchedulerConfiguration) -> KubeSchedulerConfiguration:
        profiles = list(c.profiles)
        profiles[i] = attrs.evolve(profiles[i], **changes)
        return attrs.evolve(c, profiles=tuple(profiles))

    return edit


def top(**changes: Any) -> Edit:
    """An edit of top-level fields."""
    return lambda c: attrs.evolve(c, **changes)


def extender0(**changes: Any) -> Edit:
    """An edit of extenders[0]."""
    return lambda c: attrs.evolve(c, extenders=(attrs.evolve(c.extenders[0], **changes), *c.extenders[1:]))


QUEUE_SORT_OTHER = '{"enabled":[{"name":"AnotherSort"}]}'
QUEUE_SORT_CUSTOM = '{"enabled":[{"name":"CustomSort"}]}'

SCENARIOS = [
    pytest.param(top(), [], id="good"),
    pytest.param(
        top(parallelism=0),
        [("parallelism", "Invalid value: 0: should be an integer value greater than zero")],
        id="bad-parallelism-invalid-value",
    ),
    pytest.param(
        top(percentage_of_nodes_to_score=101),
        [("percentageOfNodesToScore", "Invalid value: 101: not in valid range [0-100]")],
        id="bad-percentage-of-nodes-to-score",
    ),
    pytest.param(
        top(percentage_of_nodes_to_score=-1),
        [("percentageOfNodesToScore", "Invalid value: -1: not in valid range [0-100]")],
        id="negative-percentage-of-nodes-to-score",
    ),
    pytest.param(
        profile(1, scheduler_name=""),
        [("profiles[1].schedulerName", "Required value")],
        id="scheduler-name-not-set",
    ),
    pytest.param(
        profile(0, scheduler_name="other"),
        [("profiles[1].schedulerName", 'Duplicate value: "other"')],
        id="repeated-scheduler-name",
    ),
    pytest.param(
        profile(1, percentage_of_nodes_to_score=101),
        [("profiles[1].percentageOfNodesToScore", "Invalid value: 101: not in valid range [0-100]")],
        id="greater-than-100-profile-percentage-of-nodes-to-score",
    ),
    pytest.param(
        profile(1, percentage_of_nodes_to_score=-1),
        [("profiles[1].percentageOfNodesToScore", "Invalid value: -1: not in valid range [0-100]")],
        id="negative-profile-percentage-of-nodes-to-score",
    ),
    pytest.param(
        profile(
            1,
            plugins=Plugins(
                queue_sort=PluginSet(enabled=(Plugin("AnotherSort"),)),
                bind=PluginSet(enabled=(Plugin("CustomBind"),)),
            ),
        ),
        [
            (
                "profiles[1].plugins.queueSort",
                f"Invalid value: {QUEUE_SORT_OTHER}: must be the same for all profiles",
            )
        ],
        id="different-queue-sort",
    ),
    pytest.param(
        profile(0, plugins=None),
        [
            (
                "profiles[1].plugins.queueSort",
                f"Invalid value: {QUEUE_SORT_CUSTOM}: must be the same for all profiles",
            )
        ],
        id="one-empty-queue-sort",
    ),
    pytest.param(
        extender0(weight=-1),
        [("extenders[0].weight", "Invalid value: -1: must have a positive weight applied to it")],
        id="extender-negative-weight",
    ),
    pytest.param(
        extender0(
            managed_resources=(
                ExtenderManagedResource("example.com/foo"),
                ExtenderManagedResource("example.com/foo"),
            )
        ),
        [
            (
                "extenders[0].managedResources[1].name",
                'Invalid value: "example.com/foo": duplicate extender managed resource name',
            )
        ],
        id="extender-duplicate-managed-resources",
    ),
    pytest.param(
        lambda c: attrs.evolve(
            c,
            extenders=(
                attrs.evolve(c.extenders[0], bind_verb="foo"),
                Extender(url_prefix=URL, prioritize_verb="prioritize", bind_verb="bar", weight=1),
            ),
        ),
        [
            (
                "extenders",
                'Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
            )
        ],
        id="extender-duplicate-bind",
    ),
    pytest.param(
        profile(0, plugin_config=(PluginConfig("DefaultPreemption", DefaultPreemptionArgs(200, 100)),)),
        [
            (
                "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage",
                "Invalid value: 200: not in valid range [0, 100]",
            )
        ],
        id="invalid-node-percentage",
    ),
    pytest.param(
        profile(0, plugin_config=(PluginConfig("DefaultPreemption", InterPodAffinityArgs()),)),
        [
            (
                "profiles[0].pluginConfig[0].args",
                'Invalid value: {"hardPodAffinityWeight":1}: has to match plugin args',
            )
        ],
        id="invalid-plugin-args",
    ),
    pytest.param(
        profile(0, plugin_config=(PluginConfig("config"), PluginConfig("config"))),
        [("profiles[0].pluginConfig[1]", 'Duplicate value: "config"')],
        id="duplicated-plugin-config",
    ),
    pytest.param(
        top(
            profiles=(
                KubeSchedulerProfile(
                    scheduler_name="me",
                    plugins=Plugins(queue_sort=PluginSet(enabled=(Plugin("PrioritySort"),))),
                    plugin_config=(PluginConfig("PrioritySort"),),
                ),
                KubeSchedulerProfile(
                    scheduler_name="other",
                    plugins=Plugins(queue_sort=PluginSet(enabled=(Plugin("CustomSort"),))),
                    plugin_config=(PluginConfig("CustomSort"),),
                ),
            )
        ),
        [
            (
                "profiles[1].plugins.queueSort",
                f"Invalid value: {QUEUE_SORT_CUSTOM}: must be the same for all profiles",
            )
        ],
        id="mismatch-queue-sort",
    ),
    pytest.param(
        profile(
            0,
            plugins=Plugins(
                queue_sort=PluginSet(enabled=(Plugin("CustomSort"),)),
                score=PluginSet(enabled=(Plugin("PodTopologySpread", 2),), disabled=(Plugin("*"),)),
            ),
        ),
        [],
        id="valid-plugins",
    ),
    # Cases from earlier upstream revisions of this table and of TestValidatePolicy.
    pytest.param(
        profile(
            0,
            plugins=Plugins(
                queue_sort=PluginSet(enabled=(Plugin("CustomSort"),)),
                filter=PluginSet(enabled=(Plugin("NodeName"), Plugin("EBSLimits"))),
            ),
            plugin_config=(
                PluginConfig("DefaultPreemption", DefaultPreemptionArgs()),
                PluginConfig("GCEPDLimits"),
            ),
        ),
        [
            (
                "profiles[0].plugins.filter.enabled[1]",
                (
                    'Invalid value: "EBSLimits": was invalid in version "kubescheduler.config.k8s.io/v1" '
                    '(KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")'
                ),
            ),
            (
                "profiles[0].pluginConfig[1]",
                (
                    'Invalid value: "GCEPDLimits": was invalid in version "kubescheduler.config.k8s.io/v1" '
                    '(KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")'
                ),
            ),
        ],
        id="bad-removed-plugins",
    ),
    pytest.param(
        top(
            extenders=(
                Extender(url_prefix=URL, managed_resources=(ExtenderManagedResource("foo.com/bar"),)),
                Extender(
                    url_prefix="http://127.0.0.1:8082/extender",
                    bind_verb="bind",
                    managed_resources=(ExtenderManagedResource("foo.com/bar"),),
                ),
            )
        ),
        [
            (
                "extenders[1].managedResources[0].name",
                'Invalid value: "foo.com/bar": duplicate extender managed resource name',
            )
        ],
        id="invalid duplicate extender resource name",
    ),
    pytest.param(
        top(
            extenders=(
                Extender(url_prefix=URL, managed_resources=(ExtenderManagedResource("kubernetes.io/foo"),)),
            )
        ),
        [
            (
                "extenders[0].managedResources[0].name",
                'Invalid value: "kubernetes.io/foo": is an invalid extended resource name',
            )
        ],
        id="invalid extended resource name",
    ),
    pytest.param(
        top(
            extenders=(
                Extender(url_prefix=URL, filter_verb="filter"),
                Extender(url_prefix=URL, preempt_verb="p"),
            )
        ),
        [],
        id="valid filter and preempt verbs",
    ),
    # kubesim additions.
    pytest.param(
        extender0(url_prefix=""),
        [("extenders[0].urlPrefix", "Required value: kubesim sends the extender's requests there")],
        id="extender-url-prefix-required",
    ),
    pytest.param(
        top(pod_initial_backoff_seconds=0, pod_max_backoff_seconds=0),
        [("podInitialBackoffSeconds", "Invalid value: 0: must be greater than 0")],
        id="initial-backoff-zero",
    ),
    pytest.param(
        top(pod_initial_backoff_seconds=5, pod_max_backoff_seconds=1),
        [
            (
                "podMaxBackoffSeconds",
                "Invalid value: 1: must be greater than or equal to PodInitialBackoffSeconds",
            )
        ],
        id="max-backoff-below-initial",
    ),
    pytest.param(top(profiles=()), [("profiles", "Required value")], id="no-profiles"),
    pytest.param(
        profile(0, plugins=Plugins(queue_sort=PluginSet(enabled=(Plugin("CustomSort"), Plugin("Other"))))),
        [
            (
                "profiles[0].plugins.queueSort.enabled",
                "Invalid value: 2: only one queue sort plugin can be enabled",
            ),
            (
                "profiles[1].plugins.queueSort",
                f"Invalid value: {QUEUE_SORT_CUSTOM}: must be the same for all profiles",
            ),
        ],
        id="two-queue-sort-plugins",
    ),
    pytest.param(
        lambda c: attrs.evolve(
            c,
            profiles=(
                attrs.evolve(c.profiles[0], plugin_config=(PluginConfig("CustomSort", {"a": 1}),)),
                attrs.evolve(c.profiles[1], plugin_config=(PluginConfig("CustomSort", {"a": 2}),)),
            ),
        ),
        [
            (
                "profiles[1].pluginConfig.args",
                'Invalid value: {"a":2}: queueSort must be the same for all profiles',
            )
        ],
        id="queue-sort-args-differ",
    ),
    pytest.param(
        top(
            profiles=(
                attrs.evolve(VALID.profiles[0], scheduler_name=None),
                attrs.evolve(VALID.profiles[1], scheduler_name=None),
            )
        ),
        [
            ("profiles[0].schedulerName", "Required value"),
            ("profiles[1].schedulerName", "Required value"),
            ("profiles[1].schedulerName", 'Duplicate value: ""'),
        ],
        id="two-unnamed-profiles",
    ),
]


@pytest.mark.parametrize(("edit", "want"), SCENARIOS)
def test_validate_kube_scheduler_configuration_v1(edit: Edit, want: list[tuple[str, str]]) -> None:
    """TestValidateKubeSchedulerConfigurationV1."""
    assert [(p.path, p.message) for p in validate(edit(VALID))] == want
