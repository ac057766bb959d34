"""The plugin system: hook markers, specifications and the plugin manager."""

from kubesim.plugins.manager import (
    ENTRY_POINT_GROUP,
    Hooks,
    PluginError,
    PluginInfo,
    hook_names,
    load_plugins,
)
from kubesim.plugins.markers import hookimpl, hookspec

__all__ = [
    "ENTRY_POINT_GROUP",
    "Hooks",
    "PluginError",
    "PluginInfo",
    "hook_names",
    "hookimpl",
    "hookspec",
    "load_plugins",
]
