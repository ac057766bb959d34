"""Ports of pkg/scheduler/framework/runtime/framework_test.go (TestNewFrameworkMultiPointExpansion,
TestInitFrameworkWithScorePlugins, TestNewFrameworkErrors) and of the default v1 expansion
(apis/config/testing/defaults ExpandedPluginsV1, v1.34: DefaultPreemption is also a
PreEnqueue plugin), against `resolve`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pytest
from kubesim.errors import InvalidInput
from kubesim_scheduler.config import (
    API_VERSION,
    EXTENSION_POINTS,
    IN_TREE_PLUGINS,
    KIND,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    NodeResourcesFitArgs,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
    ResolvedProfile,
    load_config,
    loads_config,
    resolve,
    validate,
)

SCORE_WITH_NORMALIZE_1 = "score-with-normalize-plugin-1"
SCORE_WITH_NORMALIZE_2 = "score-with-normalize-plugin-2"
SCORE_1 = "score-plugin-1"
SCORE_2 = "score-plugin-2"
NOT_SCORE = "plugin-not-implementing-score"
DUPLICATE = "duplicate-plugin"
TEST = "test-plugin"
QUEUE_SORT = "no-op-queue-sort-plugin"
BIND = "bind-plugin"

#: framework_test.go's registry: each test plugin with the interfaces its type implements.
REGISTRY: Mapping[str, Collection[str]] = {
    SCORE_WITH_NORMALIZE_1: {"score"},
    SCORE_WITH_NORMALIZE_2: {"score"},
    SCORE_1: {"preScore", "score"},
    SCORE_2: {"preScore", "score"},
    NOT_SCORE: set(),
    DUPLICATE: {"preFilter"},
    TEST: set(EXTENSION_POINTS) - {"preEnqueue"},
    QUEUE_SORT: {"queueSort"},
    BIND: {"bind"},
    "test-close-error-plugin": set(),
}


def ps(*plugins: str | tuple[str, int], disabled: tuple[str, ...] = ()) -> PluginSet:
    """A PluginSet from names or (name, weight) pairs."""
    enabled = tuple(Plugin(p) if isinstance(p, str) else Plugin(*p) for p in plugins)
    return PluginSet(enabled=enabled, disabled=tuple(Plugin(n) for n in disabled))


def resolve_one(plugins: Plugins, registry: Mapping[str, Collection[str]] = REGISTRY) -> ResolvedProfile:
    """NewFramework on a profile (no defaulting), through resolve."""
    config = KubeSchedulerConfiguration(profiles=(KubeSchedulerProfile("test-profile", plugins=plugins),))
    (profile,) = resolve(config, registry)
    return profile


def expected(**points: list[str | tuple[str, int]]) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
    """ListPlugins output: names per point (camelCase keys) and score weights."""
    lists: dict[str, tuple[str, ...]] = {p: () for p in EXTENSION_POINTS}
    weights: dict[str, int] = {}
    for point, entries in points.items():
        names = []
        for entry in entries:
            name, weight = (entry, 0) if isinstance(entry, str) else entry
            names.append(name)
            if point == "score":
                weights[name] = weight
        lists[point] = tuple(names)
    return lists, weights


def all_points_test_plugin(
    **overrides: list[str | tuple[str, int]],
) -> dict[str, list[str | tuple[str, int]]]:
    """test-plugin at every point it implements, with per-point overrides."""
    base: dict[str, list[str | tuple[str, int]]] = {
        p: [TEST] for p in EXTENSION_POINTS if p not in ("preEnqueue", "score", "preScore")
    }
    base.update(preScore=[TEST], score=[(TEST, 1)])
    base.update(overrides)
    return base


MULTI_POINT_CASES = [
    pytest.param(
        Plugins(multi_point=ps((TEST, 5))),
        all_points_test_plugin(score=[(TEST, 5)]),
        id="plugin expansion",
    ),
    pytest.param(
        Plugins(multi_point=ps(TEST), pre_score=ps(disabled=(TEST,)), score=ps(disabled=(TEST,))),
        all_points_test_plugin(preScore=[], score=[]),
        id="disable MultiPoint plugin at some extension points",
    ),
    pytest.param(
        Plugins(multi_point=ps(TEST, SCORE_1)),
        all_points_test_plugin(preScore=[TEST, SCORE_1], score=[(TEST, 1), (SCORE_1, 1)]),
        id="Multiple MultiPoint plugins",
    ),
    pytest.param(
        Plugins(multi_point=ps(TEST, SCORE_1), pre_score=ps(disabled=("*",))),
        all_points_test_plugin(preScore=[], score=[(TEST, 1), (SCORE_1, 1)]),
        id="disable MultiPoint extension",
    ),
    pytest.param(
        Plugins(multi_point=ps(SCORE_WITH_NORMALIZE_1, TEST, SCORE_1), score=ps(SCORE_1, TEST)),
        all_points_test_plugin(
            preScore=[TEST, SCORE_1], score=[(SCORE_1, 1), (TEST, 1), (SCORE_WITH_NORMALIZE_1, 1)]
        ),
        id="Reorder MultiPoint plugins (specified extension takes precedence)",
    ),
    pytest.param(
        Plugins(multi_point=ps(TEST, SCORE_1), score=ps(SCORE_WITH_NORMALIZE_1, SCORE_1, TEST)),
        all_points_test_plugin(
            preScore=[TEST, SCORE_1], score=[(SCORE_1, 1), (TEST, 1), (SCORE_WITH_NORMALIZE_1, 1)]
        ),
        id="Reorder MultiPoint plugins (specified extension only takes precedence when it exists in MultiPoint)",
    ),
    pytest.param(
        Plugins(multi_point=ps(TEST, SCORE_1), score=ps((SCORE_1, 5), (TEST, 3))),
        all_points_test_plugin(preScore=[TEST, SCORE_1], score=[(SCORE_1, 5), (TEST, 3)]),
        id="Override MultiPoint plugins weights",
    ),
    pytest.param(
        Plugins(multi_point=ps(QUEUE_SORT, BIND, SCORE_1, disabled=("*",))),
        {"queueSort": [QUEUE_SORT], "preScore": [SCORE_1], "score": [(SCORE_1, 1)], "bind": [BIND]},
        id="disable and enable MultiPoint plugins with '*'",
    ),
    pytest.param(
        Plugins(multi_point=ps(BIND, QUEUE_SORT, SCORE_1, disabled=(SCORE_1,))),
        {"queueSort": [QUEUE_SORT], "preScore": [SCORE_1], "score": [(SCORE_1, 1)], "bind": [BIND]},
        id="disable and enable MultiPoint plugin by name",
    ),
    pytest.param(
        Plugins(multi_point=ps(TEST, SCORE_1), score=ps((SCORE_1, 5), (SCORE_2, 5), (TEST, 3))),
        all_points_test_plugin(preScore=[TEST, SCORE_1], score=[(SCORE_1, 5), (TEST, 3), (SCORE_2, 5)]),
        id="Override MultiPoint plugins weights and avoid a plugin being loaded multiple times",
    ),
]


@pytest.mark.parametrize(("plugins", "want"), MULTI_POINT_CASES)
def test_new_framework_multi_point_expansion(
    plugins: Plugins, want: dict[str, list[str | tuple[str, int]]]
) -> None:
    """TestNewFrameworkMultiPointExpansion."""
    got = resolve_one(plugins)
    want_lists, want_weights = expected(**want)
    assert dict(got.plugins) == want_lists
    assert dict(got.score_weights) == want_weights


def problems_of(
    config: KubeSchedulerConfiguration, registry: Mapping[str, Collection[str]] = REGISTRY
) -> list[str]:
    with pytest.raises(InvalidInput) as err:
        resolve(config, registry, file="s.yaml")
    return [str(p) for p in err.value.problems]


def one_profile(plugins: Plugins, name: str = "test-profile") -> KubeSchedulerConfiguration:
    return KubeSchedulerConfiguration(profiles=(KubeSchedulerProfile(name, plugins=plugins),))


def test_multi_point_already_registered() -> None:
    """TestNewFrameworkMultiPointExpansion, "Expect 'already registered' error"."""
    assert problems_of(one_profile(Plugins(multi_point=ps(TEST, TEST)))) == [
        (
            's.yaml: profiles[0].plugins.multiPoint.enabled[1].name: plugin "test-plugin" already registered as '
            '"PreFilterPlugin"'
        )
    ]


DEFAULT_WEIGHTS = {SCORE_WITH_NORMALIZE_1: 1, SCORE_WITH_NORMALIZE_2: 2, SCORE_1: 1}


def score_config(*names: str) -> Plugins:
    """buildScoreConfigDefaultWeights plus newFrameworkWithQueueSortAndBind."""
    return Plugins(
        queue_sort=ps(QUEUE_SORT),
        bind=ps(BIND),
        score=ps(*((n, DEFAULT_WEIGHTS.get(n, 0)) for n in names)),
    )


KNOWN = ", ".join(sorted(REGISTRY))


@pytest.mark.parametrize(
    ("plugins", "want"),
    [
        pytest.param(
            score_config("notExist"),
            [
                f's.yaml: profiles[0].plugins.score.enabled[0].name: plugin "notExist" is not registered (known: {KNOWN})'
            ],
            id="enabled Score plugin doesn't exist in registry",
        ),
        pytest.param(
            score_config(NOT_SCORE),
            [
                (
                    's.yaml: profiles[0].plugins.score.enabled[0].name: plugin "plugin-not-implementing-score" '
                    "does not extend ScorePlugin plugin"
                )
            ],
            id="enabled Score plugin doesn't extend the ScorePlugin interface",
        ),
        pytest.param(Plugins(queue_sort=ps(QUEUE_SORT), bind=ps(BIND)), [], id="Score plugins are nil"),
        pytest.param(score_config(), [], id="enabled Score plugin list is empty"),
        pytest.param(score_config(SCORE_1), [], id="enabled plugin only implements ScorePlugin interface"),
        pytest.param(
            score_config(SCORE_WITH_NORMALIZE_1),
            [],
            id="enabled plugin implements ScoreWithNormalizePlugin interface",
        ),
    ],
)
def test_init_framework_with_score_plugins(plugins: Plugins, want: list[str]) -> None:
    """TestInitFrameworkWithScorePlugins."""
    if want:
        assert problems_of(one_profile(plugins)) == want
    else:
        profile = resolve_one(plugins)
        assert profile.plugins["score"] == tuple(p.name for p in plugins.score.enabled)
        assert all(w >= 1 for w in profile.score_weights.values())


def test_new_framework_errors_duplicate_plugin_name() -> None:
    """TestNewFrameworkErrors, "duplicate plugin name"."""
    plugins = Plugins(pre_filter=ps((DUPLICATE, 1), (DUPLICATE, 1)))
    assert problems_of(one_profile(plugins)) == [
        (
            's.yaml: profiles[0].plugins.preFilter.enabled[1].name: plugin "duplicate-plugin" already registered as '
            '"PreFilterPlugin"'
        )
    ]


def test_new_framework_errors_duplicate_plugin_config() -> None:
    """TestNewFrameworkErrors, "duplicate plugin config": caught by validation first."""
    config = KubeSchedulerConfiguration(
        profiles=(
            KubeSchedulerProfile(
                "p",
                plugins=Plugins(pre_filter=ps((DUPLICATE, 1))),
                plugin_config=(PluginConfig(DUPLICATE), PluginConfig(DUPLICATE)),
            ),
        )
    )
    assert [(p.path, p.message) for p in validate(config)] == [
        ("profiles[0].pluginConfig[1]", 'Duplicate value: "duplicate-plugin"')
    ]


EXPANDED_V1 = {
    "preEnqueue": ("SchedulingGates", "DynamicResources", "DefaultPreemption"),
    "queueSort": ("PrioritySort",),
    "preFilter": (
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    ),
    "filter": (
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    ),
    "postFilter": ("DynamicResources", "DefaultPreemption"),
    "preScore": (
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "NodeResourcesBalancedAllocation",
    ),
    "score": (
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "NodeResourcesBalancedAllocation",
        "ImageLocality",
    ),
    "reserve": ("VolumeBinding", "DynamicResources"),
    "permit": (),
    "preBind": ("VolumeBinding", "DynamicResources"),
    "bind": ("DefaultBinder",),
    "postBind": (),
}

EXPANDED_V1_WEIGHTS = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}

HEADER = f"apiVersion: {API_VERSION}\nkind: {KIND}\n"


def test_default_profile_expansion() -> None:
    """The default v1 profile expanded (ExpandedPluginsV1, v1.34) with args for every plugin."""
    (profile,) = resolve(load_config({"apiVersion": API_VERSION, "kind": KIND}), IN_TREE_PLUGINS)
    assert profile.scheduler_name == "default-scheduler"
    assert profile.percentage_of_nodes_to_score == 0
    assert dict(profile.plugins) == EXPANDED_V1
    assert dict(profile.score_weights) == EXPANDED_V1_WEIGHTS
    assert profile.weighted_score_plugins()[0] == ("TaintToleration", 3)
    assert set(profile.args) == {p for names in EXPANDED_V1.values() for p in names}
    assert profile.args["NodeResourcesFit"] == NodeResourcesFitArgs()
    assert profile.args["PrioritySort"] is None


def test_user_plugins_merged_and_expanded() -> None:
    """A custom score weight, a disabled default and an explicit filter order, end to end."""
    config = loads_config(
        HEADER
        + """
percentageOfNodesToScore: 30
profiles:
- schedulerName: a
  plugins:
    multiPoint:
      enabled:
      - name: NodeResourcesFit
        weight: 5
      disabled:
      - name: ImageLocality
    filter:
      enabled:
      - name: NodeName
      - name: TaintToleration
    preScore:
      disabled:
      - name: "*"
- schedulerName: b
  percentageOfNodesToScore: 0
"""
    )
    a, b = resolve(config, IN_TREE_PLUGINS)
    assert a.percentage_of_nodes_to_score == 30
    assert b.percentage_of_nodes_to_score == 0
    assert a.plugins["filter"][:4] == ("NodeName", "TaintToleration", "NodeUnschedulable", "NodeAffinity")
    assert a.plugins["preScore"] == ()
    assert "ImageLocality" not in a.plugins["score"]
    assert a.score_weights["NodeResourcesFit"] == 5
    assert b.score_weights["NodeResourcesFit"] == 1


def test_unknown_plugins_point_at_the_users_entries() -> None:
    config = loads_config(
        HEADER
        + """
profiles:
- plugins:
    multiPoint:
      enabled:
      - name: Foo
    filter:
      enabled:
      - name: Bar
      - name: ImageLocality
""",
        file="sched.yaml",
    )
    with pytest.raises(InvalidInput) as err:
        resolve(config, IN_TREE_PLUGINS, file="sched.yaml")
    known = ", ".join(sorted(IN_TREE_PLUGINS))
    assert [str(p) for p in err.value.problems] == [
        f'sched.yaml: profiles[0].plugins.filter.enabled[0].name: plugin "Bar" is not registered (known: {known})',
        (
            'sched.yaml: profiles[0].plugins.filter.enabled[1].name: plugin "ImageLocality" does not extend '
            "FilterPlugin plugin"
        ),
        f'sched.yaml: profiles[0].plugins.multiPoint.enabled[0].name: plugin "Foo" is not registered (known: {known})',
    ]


def test_missing_default_plugin_is_named_as_default() -> None:
    registry = {k: v for k, v in IN_TREE_PLUGINS.items() if k != "VolumeZone"}
    config = load_config({"apiVersion": API_VERSION, "kind": KIND})
    problems = problems_of(config, registry)
    assert len(problems) == 1
    assert problems[0].startswith(
        's.yaml: profiles[0].plugins.multiPoint.enabled[11].name: default plugin "VolumeZone" is not registered'
    )


def test_queue_sort_and_bind_are_required() -> None:
    config = loads_config(
        HEADER
        + """
profiles:
- plugins:
    queueSort:
      disabled:
      - name: "*"
    bind:
      disabled:
      - name: DefaultBinder
"""
    )
    assert problems_of(config, IN_TREE_PLUGINS) == [
        (
            "s.yaml: profiles[0].plugins.queueSort: only one queue sort plugin required for profile with scheduler "
            'name "default-scheduler", but got 0'
        ),
        (
            "s.yaml: profiles[0].plugins.bind: at least one bind plugin is needed for profile with scheduler name "
            '"default-scheduler"'
        ),
    ]


def test_total_score_overflow() -> None:
    """getScoreWeights' overflow check (unreachable from YAML, whose weights are int32)."""
    plugins = Plugins(queue_sort=ps(QUEUE_SORT), bind=ps(BIND), score=ps((SCORE_1, 2**62), (SCORE_2, 2**62)))
    assert problems_of(one_profile(plugins)) == [
        "s.yaml: profiles[0].plugins.score: total score of Score plugins could overflow"
    ]


def test_negative_and_zero_weights_as_upstream() -> None:
    """Weight 0 (or unset) means 1; upstream accepts negative weights and so does kubesim."""
    plugins = Plugins(queue_sort=ps(QUEUE_SORT), bind=ps(BIND), score=ps((SCORE_1, 0), (SCORE_2, -2)))
    assert dict(resolve_one(plugins).score_weights) == {SCORE_1: 1, SCORE_2: -2}


def test_registry_with_unknown_extension_point() -> None:
    with pytest.raises(ValueError, match="unknown extension points"):
        resolve(KubeSchedulerConfiguration(), {"X": {"Filter"}})


def test_args_for_out_of_tree_plugins() -> None:
    config = loads_config(
        HEADER
        + """
profiles:
- plugins:
    multiPoint:
      enabled:
      - name: Custom
  pluginConfig:
  - name: Custom
    args:
      level: 3
"""
    )
    registry = {**IN_TREE_PLUGINS, "Custom": {"score"}}
    (profile,) = resolve(config, registry)
    assert profile.args["Custom"] == {"level": 3}
    assert profile.plugins["score"][-1] == "Custom"
    assert profile.score_weights["Custom"] == 1
