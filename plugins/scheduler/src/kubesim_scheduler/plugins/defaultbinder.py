"""DefaultBinder: bind the pod to the chosen node through the handle's binder."""

# upstream: pkg/scheduler/framework/plugins/defaultbinder/default_binder.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.plugins.crash import PluginCrashed

from ..framework.cycle_state import CycleState
from ..framework.interface import BindPlugin
from ..framework.status import Status

__all__ = ["DefaultBinder"]


class DefaultBinder(BindPlugin):
    name = "DefaultBinder"

    def bind(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        try:
            self.handle.bind(pod, node_name)
        except PluginCrashed:
            raise  # an admission hook raised: ends the run
        except Exception as e:  # noqa: BLE001 - a failed binding is an Error status
            return Status.from_error(e)
        return None
