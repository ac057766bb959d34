"""The StorageView shared by the volume plugins within one scheduling cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .objects import StorageView

if TYPE_CHECKING:
    from ...framework.cycle_state import CycleState
    from ...framework.handle import Handle

__all__ = ["storage_view"]

_KEY = "kubesim/volumes/StorageView"


def storage_view(state: CycleState, handle: Handle) -> StorageView:
    """The cycle's StorageView (created on first use, so that each object kind is listed once)."""
    view = state.get(_KEY)
    if not isinstance(view, StorageView):
        view = StorageView(handle)
        state.write(_KEY, view)
    return view
