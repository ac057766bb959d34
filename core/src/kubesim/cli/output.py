"""Writing results: atomically (temporary file, then rename), as JSON or YAML."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

__all__ = ["dump", "write_atomic"]


def dump(data: Any, path: str | Path) -> str:
    """Serialize for `path`: YAML for .yaml/.yml, JSON (indented, stable) otherwise."""
    if Path(path).suffix in (".yaml", ".yml"):
        return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` so that readers see the old file or the whole new one, never a part."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
