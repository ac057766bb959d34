"""The gc policy of a run: full collections raised for its duration, then restored."""

from __future__ import annotations

import gc

import pytest
from kubesim.scenario.memory import FULL_COLLECTION_THRESHOLD, fewer_full_collections


def test_thresholds_are_raised_and_restored() -> None:
    before = gc.get_threshold()
    with fewer_full_collections():
        inside = gc.get_threshold()
    assert inside == (before[0], before[1], max(before[2], FULL_COLLECTION_THRESHOLD))
    assert gc.get_threshold() == before


def test_thresholds_are_restored_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_full_collections(5000):
        assert gc.get_threshold()[2] == max(before[2], 5000)
        raise RuntimeError("boom")
    assert gc.get_threshold() == before


def test_relax_for_the_process_only_raises() -> None:
    from kubesim.scenario.memory import relax_full_collections

    before = gc.get_threshold()
    try:
        relax_full_collections(2000)
        assert gc.get_threshold() == (before[0], before[1], max(before[2], 2000))
    finally:
        gc.set_threshold(*before)
