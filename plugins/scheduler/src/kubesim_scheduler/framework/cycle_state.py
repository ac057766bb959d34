"""Per-attempt scratch space shared by the plugins of one scheduling cycle."""

# upstream: pkg/scheduler/framework/cycle_state.go

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .pod_info import PodInfo

__all__ = ["CycleState", "StateNotFound"]


class StateNotFound(KeyError):
    """Read of a key no plugin wrote in this cycle."""


class CycleState:
    """Key/value store for one cycle, plus the skip sets the framework fills in.

    `pod_info` is the parsed pod being scheduled (kubesim addition: lets per-pod plugin
    methods that receive the plain pod dict reach the cached parse).
    """

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins", "skip_pre_bind_plugins", "pod_info")

    def __init__(self, pod_info: PodInfo | None = None) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        self.skip_pre_bind_plugins: set[str] = set()
        self.pod_info = pod_info

    def read(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise StateNotFound(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> CycleState:
        """Copy for what-if evaluation (preemption); values with a clone() method are cloned."""
        c = CycleState(self.pod_info)
        for k, v in self._data.items():
            c._data[k] = v.clone() if hasattr(v, "clone") else v
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        c.skip_pre_bind_plugins = set(self.skip_pre_bind_plugins)
        return c
