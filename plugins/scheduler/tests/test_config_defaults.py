"""Ports of pkg/scheduler/apis/config/v1/defaults_test.go and of the v1 cases of
pkg/scheduler/apis/config/scheme/scheme_test.go (TestCodecsDecodePluginConfig), v1.34.

The leaderElection/clientConnection/profiling defaults of upstream are not ported:
kubesim ignores those fields.
"""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.errors import InvalidInput
from kubesim_scheduler.config import (
    API_VERSION,
    KIND,
    DefaultPreemptionArgs,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    Plugin,
    DynamicResourcesArgs,
    PluginConfig,
    Plugins,
    PluginSet,
    PodTopologySpreadArgs,
    ResourceSpec,
    ScoringStrategy,
    VolumeBindingArgs,
    decode,
    default_args,
    default_plugins,
    loads_config,
    parse_yaml,
    set_defaults,
)

CPU_MEM = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))

#: defaults_test.go pluginConfigs (DynamicResourceAllocation on, as in v1.34), sorted by plugin name.
PLUGIN_CONFIGS = (
    PluginConfig("DefaultPreemption", DefaultPreemptionArgs(10, 100)),
    PluginConfig("DynamicResources", DynamicResourcesArgs(filter_timeout=10.0)),
    PluginConfig("InterPodAffinity", InterPodAffinityArgs(hard_pod_affinity_weight=1)),
    PluginConfig("NodeAffinity", NodeAffinityArgs()),
    PluginConfig("NodeResourcesBalancedAllocation", NodeResourcesBalancedAllocationArgs(CPU_MEM)),
    PluginConfig(
        "NodeResourcesFit", NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", CPU_MEM))
    ),
    PluginConfig("PodTopologySpread", PodTopologySpreadArgs(defaulting_type="System")),
    PluginConfig("VolumeBinding", VolumeBindingArgs(bind_timeout_seconds=600)),
)


def defaulted(*profiles: KubeSchedulerProfile, **top: Any) -> KubeSchedulerConfiguration:
    """Upstream's expected object: parallelism 16, percentage 0, backoffs 1/10 unless given."""
    return KubeSchedulerConfiguration(profiles=profiles, **top)


DEFAULT_PROFILE = KubeSchedulerProfile(
    scheduler_name="default-scheduler", plugins=default_plugins(), plugin_config=PLUGIN_CONFIGS
)

SCHEDULER_DEFAULTS_CASES = [
    pytest.param(KubeSchedulerConfiguration(), defaulted(DEFAULT_PROFILE), id="empty config"),
    pytest.param(
        KubeSchedulerConfiguration(profiles=(KubeSchedulerProfile(),)),
        defaulted(DEFAULT_PROFILE),
        id="no scheduler name",
    ),
    pytest.param(
        KubeSchedulerConfiguration(
            parallelism=16,
            profiles=(
                KubeSchedulerProfile(plugin_config=(PluginConfig("FooPlugin"),)),
                KubeSchedulerProfile(
                    scheduler_name="custom-scheduler",
                    plugins=Plugins(
                        bind=PluginSet(enabled=(Plugin("BarPlugin"),), disabled=(Plugin("DefaultBinder"),))
                    ),
                ),
            ),
        ),
        defaulted(
            KubeSchedulerProfile(
                plugins=default_plugins(), plugin_config=(PluginConfig("FooPlugin"), *PLUGIN_CONFIGS)
            ),
            KubeSchedulerProfile(
                scheduler_name="custom-scheduler",
                plugins=Plugins(
                    multi_point=default_plugins().multi_point,
                    bind=PluginSet(enabled=(Plugin("BarPlugin"),), disabled=(Plugin("DefaultBinder"),)),
                ),
                plugin_config=PLUGIN_CONFIGS,
            ),
        ),
        id="two profiles",
    ),
    pytest.param(
        KubeSchedulerConfiguration(parallelism=16), defaulted(DEFAULT_PROFILE), id="Prallelism with no port"
    ),
    pytest.param(
        KubeSchedulerConfiguration(parallelism=8),
        defaulted(DEFAULT_PROFILE, parallelism=8),
        id="set non default parallelism",
    ),
    pytest.param(
        KubeSchedulerConfiguration(percentage_of_nodes_to_score=50),
        defaulted(DEFAULT_PROFILE, percentage_of_nodes_to_score=50),
        id="set non default global percentageOfNodesToScore",
    ),
    pytest.param(
        KubeSchedulerConfiguration(profiles=(KubeSchedulerProfile(percentage_of_nodes_to_score=50),)),
        defaulted(
            KubeSchedulerProfile(
                scheduler_name="default-scheduler",
                percentage_of_nodes_to_score=50,
                plugins=default_plugins(),
                plugin_config=PLUGIN_CONFIGS,
            )
        ),
        id="set non default profile percentageOfNodesToScore",
    ),
    pytest.param(
        KubeSchedulerConfiguration(
            percentage_of_nodes_to_score=10, profiles=(KubeSchedulerProfile(percentage_of_nodes_to_score=50),)
        ),
        defaulted(
            KubeSchedulerProfile(
                scheduler_name="default-scheduler",
                percentage_of_nodes_to_score=50,
                plugins=default_plugins(),
                plugin_config=PLUGIN_CONFIGS,
            ),
            percentage_of_nodes_to_score=10,
        ),
        id="set non default global and profile percentageOfNodesToScore",
    ),
    pytest.param(
        # Upstream's runtime.Unknown args: kubesim keeps any non-typed args value untouched.
        KubeSchedulerConfiguration(
            profiles=(
                KubeSchedulerProfile(
                    plugin_config=(PluginConfig("DefaultPreemption", {"raw": True}), *PLUGIN_CONFIGS[1:])
                ),
            )
        ),
        defaulted(
            KubeSchedulerProfile(
                scheduler_name="default-scheduler",
                plugins=default_plugins(),
                plugin_config=(PluginConfig("DefaultPreemption", {"raw": True}), *PLUGIN_CONFIGS[1:]),
            )
        ),
        id="unknown plugin config",
    ),
]


@pytest.mark.parametrize(("config", "want"), SCHEDULER_DEFAULTS_CASES)
def test_scheduler_defaults(config: KubeSchedulerConfiguration, want: KubeSchedulerConfiguration) -> None:
    """TestSchedulerDefaults."""
    assert set_defaults(config) == want


def test_set_defaults_is_idempotent() -> None:
    once = set_defaults(KubeSchedulerConfiguration())
    assert set_defaults(once) == once


def test_delay_cache_until_active_is_ignored() -> None:
    """ "set non default delayCacheUntilActive": accepted, ignored, noted."""
    config = loads_config(f"apiVersion: {API_VERSION}\nkind: {KIND}\ndelayCacheUntilActive: true\n")
    assert config.ignored_fields == ("delayCacheUntilActive",)
    assert config == defaulted(DEFAULT_PROFILE)


PLUGIN_ARGS_DEFAULTS_CASES = [
    pytest.param(DefaultPreemptionArgs(), DefaultPreemptionArgs(10, 100), id="DefaultPreemptionArgs empty"),
    pytest.param(
        {"minCandidateNodesPercentage": 50},
        DefaultPreemptionArgs(50, 100),
        id="DefaultPreemptionArgs with value",
    ),
    pytest.param(InterPodAffinityArgs(), InterPodAffinityArgs(1), id="InterPodAffinityArgs empty"),
    pytest.param({"hardPodAffinityWeight": 0}, InterPodAffinityArgs(0), id="InterPodAffinityArgs explicit 0"),
    pytest.param({"hardPodAffinityWeight": 5}, InterPodAffinityArgs(5), id="InterPodAffinityArgs with value"),
    pytest.param(
        {"resources": []},
        NodeResourcesBalancedAllocationArgs(CPU_MEM),
        id="NodeResourcesBalancedAllocationArgs resources empty",
    ),
    pytest.param(
        {"resources": [{"name": "scalar.io/scalar1", "weight": 1}]},
        NodeResourcesBalancedAllocationArgs((ResourceSpec("scalar.io/scalar1", 1),)),
        id="NodeResourcesBalancedAllocationArgs with scalar resource",
    ),
    pytest.param(
        {"resources": [{"name": "cpu", "weight": 1}, {"name": "scalar.io/scalar1", "weight": 1}]},
        NodeResourcesBalancedAllocationArgs((ResourceSpec("cpu", 1), ResourceSpec("scalar.io/scalar1", 1))),
        id="NodeResourcesBalancedAllocationArgs with mixed resources",
    ),
    pytest.param(
        {
            "resources": [
                {"name": "cpu"},
                {"name": "scalar.io/scalar0"},
                {"name": "scalar.io/scalar1", "weight": 1},
            ]
        },
        NodeResourcesBalancedAllocationArgs(
            (
                ResourceSpec("cpu", 1),
                ResourceSpec("scalar.io/scalar0", 1),
                ResourceSpec("scalar.io/scalar1", 1),
            )
        ),
        id="NodeResourcesBalancedAllocationArgs have resource no weight",
    ),
    pytest.param(
        {}, PodTopologySpreadArgs(defaulting_type="System"), id="PodTopologySpreadArgs resources empty"
    ),
    pytest.param(
        {
            "defaultConstraints": [
                {"topologyKey": "planet", "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 2}
            ]
        },
        PodTopologySpreadArgs(
            default_constraints=(
                {"topologyKey": "planet", "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 2},
            ),
            defaulting_type="System",
        ),
        id="PodTopologySpreadArgs resources with value",
    ),
    pytest.param(
        {"defaultingType": ""},
        PodTopologySpreadArgs(defaulting_type="System"),
        id="PodTopologySpreadArgs empty type",
    ),
    pytest.param(
        {},
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", CPU_MEM)),
        id="NodeResourcesFitArgs not set",
    ),
    pytest.param(
        {"scoringStrategy": {"type": "MostAllocated"}},
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("MostAllocated", CPU_MEM)),
        id="NodeResourcesFitArgs Resources empty",
    ),
    pytest.param(
        {},
        VolumeBindingArgs(bind_timeout_seconds=600),
        id="VolumeBindingArgs empty, StorageCapacityScoring disabled",
    ),
]

_ARGS_PLUGIN = {
    DefaultPreemptionArgs: "DefaultPreemption",
    InterPodAffinityArgs: "InterPodAffinity",
    NodeResourcesBalancedAllocationArgs: "NodeResourcesBalancedAllocation",
    PodTopologySpreadArgs: "PodTopologySpread",
    NodeResourcesFitArgs: "NodeResourcesFit",
    VolumeBindingArgs: "VolumeBinding",
}


@pytest.mark.parametrize(("given", "want"), PLUGIN_ARGS_DEFAULTS_CASES)
def test_plugin_args_defaults(given: Any, want: Any) -> None:
    """TestPluginArgsDefaults: args decoded from JSON (or built empty) and defaulted."""
    if isinstance(given, dict):
        data = {
            "apiVersion": API_VERSION,
            "kind": KIND,
            "profiles": [{"pluginConfig": [{"name": _ARGS_PLUGIN[type(want)], "args": given}]}],
        }
        given = decode(data).profiles[0].plugin_config[0].args
    assert default_args(given) == want


def _profiles(yaml_text: str) -> tuple[KubeSchedulerProfile, ...]:
    """Decode and default, without validating (as the upstream codec test does)."""
    return set_defaults(decode(parse_yaml(f"apiVersion: {API_VERSION}\nkind: {KIND}\n" + yaml_text))).profiles


def _only(configs: tuple[PluginConfig, ...], *first: PluginConfig) -> tuple[PluginConfig, ...]:
    """`first`, then the default configs not named in it (the order upstream appends them)."""
    given = {pc.name for pc in first}
    return (*first, *(pc for pc in PLUGIN_CONFIGS if pc.name not in given))


DECODE_CASES = [
    pytest.param(
        """
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 50
      minCandidateNodesAbsolute: 500
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 5
  - name: NodeResourcesFit
    args:
      ignoredResources: ["foo"]
  - name: PodTopologySpread
    args:
      defaultConstraints:
      - maxSkew: 1
        topologyKey: zone
        whenUnsatisfiable: ScheduleAnyway
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: 300
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: foo
              operator: In
              values: ["bar"]
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
        - name: cpu       # default weight(1) will be set.
        - name: memory    # weight 0 will be replaced by 1.
          weight: 0
        - name: scalar0
          weight: 1
        - name: scalar1   # default weight(1) will be set for scalar1
        - name: scalar2   # weight 0 will be replaced by 1.
          weight: 0
        - name: scalar3
          weight: 2
""",
        (
            PluginConfig("DefaultPreemption", DefaultPreemptionArgs(50, 500)),
            PluginConfig("InterPodAffinity", InterPodAffinityArgs(5)),
            PluginConfig(
                "NodeResourcesFit",
                NodeResourcesFitArgs(
                    ignored_resources=("foo",), scoring_strategy=ScoringStrategy("LeastAllocated", CPU_MEM)
                ),
            ),
            PluginConfig(
                "PodTopologySpread",
                PodTopologySpreadArgs(
                    default_constraints=(
                        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
                    ),
                    defaulting_type="System",
                ),
            ),
            PluginConfig("VolumeBinding", VolumeBindingArgs(300)),
            PluginConfig(
                "NodeAffinity",
                NodeAffinityArgs(
                    {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}
                            ]
                        }
                    }
                ),
            ),
            PluginConfig(
                "NodeResourcesBalancedAllocation",
                NodeResourcesBalancedAllocationArgs(
                    (
                        ResourceSpec("cpu", 1),
                        ResourceSpec("memory", 1),
                        ResourceSpec("scalar0", 1),
                        ResourceSpec("scalar1", 1),
                        ResourceSpec("scalar2", 1),
                        ResourceSpec("scalar3", 2),
                    )
                ),
            ),
            PLUGIN_CONFIGS[1],  # DynamicResources: not configured, so defaulted last
        ),
        id="v1 all plugin args in default profile",
    ),
    pytest.param(
        """
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: DefaultPreemptionArgs
      minCandidateNodesPercentage: 50
""",
        _only(PLUGIN_CONFIGS, PluginConfig("DefaultPreemption", DefaultPreemptionArgs(50, 100))),
        id="v1 plugins can include version and kind",
    ),
    pytest.param(
        """
profiles:
- pluginConfig:
  - name: OutOfTreePlugin
    args:
      foo: bar
""",
        (PluginConfig("OutOfTreePlugin", {"foo": "bar"}), *PLUGIN_CONFIGS),
        id="out-of-tree plugin args",
    ),
    pytest.param(
        """
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
  - name: InterPodAffinity
    args:
  - name: NodeResourcesFit
  - name: OutOfTreePlugin
    args:
  - name: VolumeBinding
    args:
  - name: PodTopologySpread
  - name: NodeAffinity
  - name: NodeResourcesBalancedAllocation
""",
        (
            PLUGIN_CONFIGS[0],
            PLUGIN_CONFIGS[2],
            PLUGIN_CONFIGS[5],
            PluginConfig("OutOfTreePlugin"),
            PLUGIN_CONFIGS[7],
            PLUGIN_CONFIGS[6],
            PLUGIN_CONFIGS[3],
            PLUGIN_CONFIGS[4],
            PLUGIN_CONFIGS[1],
        ),
        id="empty and no plugin args",
    ),
    pytest.param(
        """
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args:
      ignorePreferredTermsOfExistingPods: true
""",
        _only(PLUGIN_CONFIGS, PluginConfig("InterPodAffinity", InterPodAffinityArgs(1, True))),
        id="ignorePreferredTermsOfExistingPods is enabled",
    ),
]


@pytest.mark.parametrize(("yaml_text", "want_configs"), DECODE_CASES)
def test_codecs_decode_plugin_config(yaml_text: str, want_configs: tuple[PluginConfig, ...]) -> None:
    """TestCodecsDecodePluginConfig (v1 cases that decode)."""
    (profile,) = _profiles(yaml_text)
    assert profile == KubeSchedulerProfile("default-scheduler", None, default_plugins(), want_configs)


def test_all_plugin_args_case_is_invalid() -> None:
    """The first codec case decodes, but validation rejects two of its args."""
    with pytest.raises(InvalidInput) as err:
        loads_config(
            f"apiVersion: {API_VERSION}\nkind: {KIND}\n" + str(DECODE_CASES[0].values[0]), file="c.yaml"
        )
    assert [str(p) for p in err.value.problems] == [
        (
            'c.yaml: profiles[0].pluginConfig[3].args.defaultingType: Invalid value: "System": '
            "when .defaultConstraints are not empty"
        ),
        "c.yaml: profiles[0].pluginConfig[6].args.resources[5].weight: Invalid value: 2: must be 1",
    ]


@pytest.mark.parametrize(
    ("yaml_text", "percentages"),
    [
        pytest.param(
            "percentageOfNodesToScore: 10\n",
            (10, None),
            id="v1 with non-default global percentageOfNodesToScore",
        ),
        pytest.param(
            "percentageOfNodesToScore: 10\nprofiles:\n- percentageOfNodesToScore: 20\n",
            (10, 20),
            id="v1 with non-default global and profile percentageOfNodesToScore",
        ),
    ],
)
def test_codecs_decode_percentage(yaml_text: str, percentages: tuple[int, int | None]) -> None:
    """TestCodecsDecodePluginConfig, the percentageOfNodesToScore cases."""
    config = loads_config(f"apiVersion: {API_VERSION}\nkind: {KIND}\n" + yaml_text)
    assert (
        config.percentage_of_nodes_to_score,
        config.profiles[0].percentage_of_nodes_to_score,
    ) == percentages
    assert config.profiles[0].plugin_config == PLUGIN_CONFIGS


DECODE_ERROR_CASES = [
    pytest.param(
        """
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: InterPodAffinityArgs
""",
        [
            (
                "profiles[0].pluginConfig[0].args",
                (
                    "args for plugin DefaultPreemption were not of type DefaultPreemptionArgs.kubescheduler.config.k8s.io, "
                    "got InterPodAffinityArgs.kubescheduler.config.k8s.io"
                ),
            )
        ],
        id="plugin group and kind should match the type",
    ),
    pytest.param(
        """
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        requestedToCapacityRatio:
          shape:
          - Score: 2
            Utilization: 1
""",
        [
            (
                "profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].Score",
                "unknown field",
            ),
            (
                "profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].Utilization",
                "unknown field",
            ),
        ],
        id="v1 NodResourcesFitArgs shape encoding is strict",
    ),
    pytest.param(
        """
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        resources:
        - Name: cpu
          Weight: 1
""",
        [
            ("profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].name", "required"),
            ("profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].Name", "unknown field"),
            ("profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].Weight", "unknown field"),
        ],
        id="v1 NodeResourcesFitArgs resources encoding is strict",
    ),
]


@pytest.mark.parametrize(("yaml_text", "want"), DECODE_ERROR_CASES)
def test_codecs_decode_plugin_config_errors(yaml_text: str, want: list[tuple[str, str]]) -> None:
    """TestCodecsDecodePluginConfig (v1 cases that fail), as field-path problems."""
    with pytest.raises(InvalidInput) as err:
        _profiles(yaml_text)
    assert [(p.path, p.message) for p in err.value.problems] == want
