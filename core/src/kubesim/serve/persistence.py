"""`kubesim serve --state-dir DIR`: the served cluster and its Scenarios kept across restarts.

One JSON file, DIR/state.json, written atomically (kubesim.cli.output.write_atomic): every
stored object as it is (metadata included), the identity counters (resourceVersion, uid
serial, generated names) and the simulated time. Written at each scenario step's end (at most
every `min_interval` seconds), when the cluster changed and the server is idle, and on shutdown.
At start it is loaded silently; the scenario controller then fails Scenarios found Running.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from kubesim.clock import format_time, parse_time
from kubesim.cli.output import write_atomic
from kubesim.cluster import WatchEvent
from kubesim.cluster.registry import CRD_TYPE
from kubesim.errors import InvalidInput, Problem
from kubesim.serve.state import ServerState

__all__ = ["STATE_FILE", "StateDir"]

STATE_FILE = "state.json"
FORMAT = "kubesim.serve/state/v1"


class StateDir:
    """Saves and loads the served cluster in a directory."""

    def __init__(self, path: str | Path, state: ServerState, *, min_interval: float = 1.0) -> None:
        self.dir = Path(path)
        self.file = self.dir / STATE_FILE
        self.state = state
        self.min_interval = min_interval
        self._writes = 0
        self._saved_writes = -1
        self._saved_at = 0.0
        state.cluster.watch(self._count)

    def _count(self, _event: WatchEvent) -> None:
        self._writes += 1

    def prepare(self) -> None:
        """Create the directory; InvalidInput when it cannot be used."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidInput([Problem("--state-dir", f"{self.dir}: cannot create it: {exc.strerror or exc}")]) from exc
        if not self.dir.is_dir():
            raise InvalidInput([Problem("--state-dir", f"{self.dir}: not a directory")])

    def load(self) -> int:
        """Load the saved state, if any, into the (fresh) cluster; returns the number of objects."""
        if not self.file.exists():
            return 0
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {FORMAT!r}")
            objects: list[dict[str, Any]] = data["objects"]
            with self.state.locked() as cluster:
                crds = [o for o in objects if o.get("kind") == CRD_TYPE.kind and o.get("apiVersion") ==
                        f"{CRD_TYPE.group}/{CRD_TYPE.version}"]
                for crd in crds:
                    cluster.registry.register_crd(crd)
                cluster.restore(crds)
                cluster.restore(o for o in objects if not any(o is c for c in crds))
                cluster.restore_counters(data["counters"])
                cluster.clock.restart(parse_time(data["time"]))
                # the watch history starts at the restored resourceVersion (older ones: 410, as after a restart)
                self.state.event_log.reset(int(cluster.resource_version))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InvalidInput([Problem("--state-dir", f"{self.file}: cannot load it: {exc}")]) from exc
        self._saved_writes = self._writes
        return len(objects)

    def save(self, *, force: bool = False) -> bool:
        """Write the state when the cluster changed since the last save (and, unless `force`, at
        most every min_interval seconds). The caller may hold the lock; it is taken here."""
        now = time.monotonic()  # real time only paces the writes; it is not saved
        if self._writes == self._saved_writes or (not force and now - self._saved_at < self.min_interval):
            return False
        with self.state.locked() as cluster:
            data = {"format": FORMAT, "time": format_time(cluster.clock.now()),
                    "counters": cluster.counters(), "objects": cluster.objects()}
            text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
            writes = self._writes
        write_atomic(self.file, text)
        self._saved_writes, self._saved_at = writes, now
        return True
