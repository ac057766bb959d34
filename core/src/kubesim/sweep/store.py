"""The output directory's cell store: one `cells/<key>.json` per finished cell.

A record holds the cell's coordinates, status, error and metrics, and nothing that changes
between runs, so the same cell gives the same bytes on any executor. Its wall time is kept
beside it in `cells/<key>.time` (seconds, text) and only reaches `timings.csv`. Records are
written atomically as cells finish, so an interrupted sweep leaves whole records that
`--resume` picks up (a damaged or foreign record is simply run again).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from kubesim.cli.output import write_atomic
from kubesim.input_limits import InputLimitError, read_text
from kubesim.sweep.cell import CellResult
from kubesim.sweep.grid import Cell

__all__ = ["MANIFEST", "CellRecord", "Store", "is_sweep_output", "record_of"]

MANIFEST = "sweep.json"
"""The file that marks a directory as a sweep's output (the sweep's name and cell keys)."""
_MAX_RECORD_BYTES = 16 * 1024 * 1024


@attrs.frozen
class CellRecord:
    """A finished cell as stored."""

    key: str
    scenario: str
    configuration: str
    parameters: Mapping[str, Any]
    seed: int
    status: str
    error: str | None
    metrics: Mapping[str, float | None]

    def to_json(self) -> dict[str, Any]:
        """The record's JSON object (what `cells/<key>.json` holds)."""
        return {"key": self.key, "scenario": self.scenario, "configuration": self.configuration,
                "parameters": dict(self.parameters), "seed": self.seed, "status": self.status,
                "error": self.error, "metrics": dict(self.metrics)}


def record_of(cell: Cell, result: CellResult) -> CellRecord:
    """The record of `cell` from a worker's result (metrics in the sweep's order)."""
    metrics = {m: result.metrics.get(m) for m in cell.task.metrics}
    return CellRecord(cell.key, cell.scenario, cell.configuration, dict(cell.parameters), cell.seed,
                      result.status, result.error, metrics)


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False, allow_nan=False) + "\n"


class Store:
    """Cell records under `<out>/cells/`."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.cells = out / "cells"

    def prepare(self, name: str, cells: Iterable[Cell]) -> None:
        """Create the directories and write the manifest (the sweep's name and its cells in order)."""
        self.cells.mkdir(parents=True, exist_ok=True)
        manifest = {"kind": "SweepOutput", "name": name, "cells": [c.key for c in cells]}
        write_atomic(self.out / MANIFEST, _dumps(manifest))

    def save(self, record: CellRecord, wall_seconds: float) -> None:
        """Write a finished cell's record and its wall time."""
        data = record.to_json()
        data["metrics"] = {k: _finite(v) for k, v in data["metrics"].items()}
        write_atomic(self.cells / f"{record.key}.json", _dumps(data))
        write_atomic(self.cells / f"{record.key}.time", f"{wall_seconds:.3f}\n")

    def load(self, cell: Cell) -> CellRecord | None:
        """The stored record of `cell` when it is whole and belongs to it, else None."""
        path = self.cells / f"{cell.key}.json"
        try:
            data = json.loads(read_text(path, max_bytes=_MAX_RECORD_BYTES))
        except (OSError, InputLimitError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != cell.key or data.get("status") not in ("ok", "failed"):
            return None
        metrics = data.get("metrics")
        if not isinstance(metrics, dict) or set(metrics) != set(cell.task.metrics):
            return None
        return record_of(cell, CellResult(cell.key, data["status"], data.get("error"), metrics, 0.0))

    def wall_seconds(self, key: str) -> float | None:
        """A stored cell's wall time, when its `.time` file is readable."""
        try:
            return float((self.cells / f"{key}.time").read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None


def _finite(v: float | None) -> float | None:
    """JSON has no NaN or infinity: such a metric is stored as null."""
    if v is None or v != v or v in (float("inf"), float("-inf")):
        return None
    return v


def is_sweep_output(out: Path) -> bool:
    """True when `out` is missing, empty, or a sweep's output directory (it holds the manifest)."""
    if not out.exists():
        return True
    return out.is_dir() and (not any(os.scandir(out)) or (out / MANIFEST).is_file())

