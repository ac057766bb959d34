"""Ports of pkg/scheduler/apis/config/v1/default_plugins_test.go (v1.34)."""

from __future__ import annotations

import pytest
from kubesim_scheduler.config import Plugin, Plugins, PluginSet, default_plugins, merge_plugins


def names(*plugins: str | tuple[str, int]) -> tuple[Plugin, ...]:
    """Plugins from names or (name, weight) pairs."""
    return tuple(Plugin(p) if isinstance(p, str) else Plugin(*p) for p in plugins)


V134_MULTI_POINT = (
    "SchedulingGates",
    "PrioritySort",
    "NodeUnschedulable",
    "NodeName",
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    "NodePorts",
    ("NodeResourcesFit", 1),
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    "DynamicResources",
    "DefaultPreemption",
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    "DefaultBinder",
)


def test_default_plugins_dynamic_resource_allocation_on() -> None:
    """getDefaultPlugins with DynamicResourceAllocation on (GA, the v1.34 default): DynamicResources
    comes right before DefaultPreemption (applyDynamicResources)."""
    assert default_plugins() == Plugins(multi_point=PluginSet(enabled=names(*V134_MULTI_POINT)))


def test_default_plugins_dynamic_resource_allocation_off() -> None:
    """TestApplyFeatureGates, "Feature gate DynamicResourceAllocation disabled" (v1.34 list)."""
    want = names(*(p for p in V134_MULTI_POINT if p != "DynamicResources"))
    assert default_plugins(dynamic_resource_allocation=False) == Plugins(multi_point=PluginSet(enabled=want))


MERGE_CASES = [
    pytest.param(
        Plugins(filter=PluginSet(enabled=names("CustomPlugin"))),
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2"))),
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"))),
        id="AppendCustomPlugin",
    ),
    pytest.param(
        Plugins(
            filter=PluginSet(
                enabled=names("CustomPlugin", "DefaultPlugin2"), disabled=names("DefaultPlugin2")
            )
        ),
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2"))),
        Plugins(
            filter=PluginSet(
                enabled=names("DefaultPlugin1", "CustomPlugin", "DefaultPlugin2"),
                disabled=names("DefaultPlugin2"),
            )
        ),
        id="InsertAfterDefaultPlugins2",
    ),
    pytest.param(
        Plugins(
            filter=PluginSet(
                enabled=names("CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"), disabled=names("*")
            )
        ),
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2"))),
        Plugins(
            filter=PluginSet(
                enabled=names("CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"), disabled=names("*")
            )
        ),
        id="InsertBeforeAllPlugins",
    ),
    pytest.param(
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin2", "DefaultPlugin1"), disabled=names("*"))),
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2"))),
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin2", "DefaultPlugin1"), disabled=names("*"))),
        id="ReorderDefaultPlugins",
    ),
    pytest.param(
        None,
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2"))),
        Plugins(filter=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2"))),
        id="ApplyNilCustomPlugin",
    ),
    pytest.param(
        Plugins(filter=PluginSet(enabled=names(("Plugin1", 2), ("Plugin3", 3)))),
        Plugins(filter=PluginSet(enabled=names("Plugin1", "Plugin2", "Plugin3"))),
        Plugins(filter=PluginSet(enabled=names(("Plugin1", 2), "Plugin2", ("Plugin3", 3)))),
        id="CustomPluginOverrideDefaultPlugin",
    ),
    pytest.param(
        Plugins(filter=PluginSet(enabled=names(("Plugin2", 2), ("Plugin1", 1)))),
        Plugins(filter=PluginSet(enabled=names("Plugin1", "Plugin2", "Plugin3"))),
        Plugins(filter=PluginSet(enabled=names(("Plugin1", 1), ("Plugin2", 2), "Plugin3"))),
        id="OrderPreserveAfterOverride",
    ),
    pytest.param(
        Plugins(filter=PluginSet(enabled=names("Plugin1", ("Plugin2", 2), "Plugin3", ("Plugin2", 4)))),
        Plugins(filter=PluginSet(enabled=names("Plugin1", "Plugin2", "Plugin3"))),
        Plugins(filter=PluginSet(enabled=names("Plugin1", ("Plugin2", 4), "Plugin3", ("Plugin2", 2)))),
        id="RepeatedCustomPlugin",
    ),
    pytest.param(
        Plugins(multi_point=PluginSet(enabled=names("CustomPlugin"))),
        Plugins(multi_point=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2"))),
        Plugins(multi_point=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"))),
        id="Append custom MultiPoint plugin",
    ),
    pytest.param(
        Plugins(
            multi_point=PluginSet(
                enabled=names("CustomPlugin", "CustomPlugin2"), disabled=names("DefaultPlugin2")
            ),
            score=PluginSet(disabled=names("CustomPlugin2")),
        ),
        Plugins(multi_point=PluginSet(enabled=names("DefaultPlugin1", "DefaultPlugin2"))),
        Plugins(
            multi_point=PluginSet(
                enabled=names("DefaultPlugin1", "CustomPlugin", "CustomPlugin2"),
                disabled=names("DefaultPlugin2"),
            ),
            score=PluginSet(disabled=names("CustomPlugin2")),
        ),
        id="Append disabled Multipoint plugins",
    ),
    pytest.param(
        Plugins(multi_point=PluginSet(enabled=names(("DefaultPlugin", 5)))),
        Plugins(multi_point=PluginSet(enabled=names("DefaultPlugin"))),
        Plugins(multi_point=PluginSet(enabled=names(("DefaultPlugin", 5)))),
        id="override default MultiPoint plugins with custom value",
    ),
    pytest.param(
        Plugins(multi_point=PluginSet(enabled=names("CustomPlugin"))),
        Plugins(multi_point=PluginSet(enabled=names("DefaultPlugin"), disabled=names("DefaultPlugin2"))),
        Plugins(
            multi_point=PluginSet(
                enabled=names("DefaultPlugin", "CustomPlugin"), disabled=names("DefaultPlugin2")
            )
        ),
        id="disabled MultiPoint plugin in default set",
    ),
    pytest.param(
        Plugins(multi_point=PluginSet(enabled=names("CustomPlugin"))),
        Plugins(
            multi_point=PluginSet(enabled=names("DefaultPlugin")),
            score=PluginSet(disabled=names("DefaultPlugin2")),
        ),
        Plugins(
            multi_point=PluginSet(enabled=names("DefaultPlugin", "CustomPlugin")),
            score=PluginSet(disabled=names("DefaultPlugin2")),
        ),
        id="disabled MultiPoint plugin in default set for specific extension point",
    ),
    pytest.param(
        Plugins(multi_point=PluginSet(disabled=names("DefaultPlugin"))),
        Plugins(multi_point=PluginSet(enabled=names("DefaultPlugin"))),
        Plugins(multi_point=PluginSet(disabled=names("DefaultPlugin"))),
        id="multipoint with only disabled gets merged",
    ),
]


@pytest.mark.parametrize(("custom", "defaults", "want"), MERGE_CASES)
def test_merge_plugins(custom: Plugins | None, defaults: Plugins, want: Plugins) -> None:
    """TestMergePlugins."""
    assert merge_plugins(defaults, custom) == want


def test_merge_keeps_disabled_weightless() -> None:
    """mergePluginSet copies only the name of a disabled plugin."""
    merged = merge_plugins(Plugins(), Plugins(score=PluginSet(disabled=(Plugin("X", 5),))))
    assert merged.score.disabled == (Plugin("X"),)
    assert merged.score.disabled[0].weight is None
