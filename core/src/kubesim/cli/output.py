"""Writing results: atomically (temporary file, then rename), as JSON or YAML."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

__all__ = ["dump", "dump_json", "write_atomic"]


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when PyYAML was built with it
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), check_circular=False).encode


def dump(data: Any, path: str | Path) -> str:
    """Serialize for `path`: YAML for .yaml/.yml, JSON (indented, stable) otherwise."""
    if Path(path).suffix in (".yaml", ".yml"):
        return str(yaml.dump(data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True))
    return dump_json(data)


def dump_json(data: Any) -> str:
    """JSON with every object member on its own indented line and every list item on one line.

    A result's operations and timeline events thus take a line each. Items are written by
    the json module's C encoder: `json.dumps(indent=...)` runs the pure-Python encoder,
    about twenty times slower on a result of 100 MB.
    """
    out: list[str] = []
    _write(data, "", out)
    out.append("\n")
    return "".join(out)


def _write(value: Any, pad: str, out: list[str]) -> None:
    inner = pad + "  "
    if type(value) is dict and value:
        out.append("{")
        sep = "\n"
        for key, item in value.items():
            out.append(sep)
            out.append(inner)
            out.append(_COMPACT(key if type(key) is str else str(key)))
            out.append(": ")
            _write(item, inner, out)
            sep = ",\n"
        out.append("\n" + pad + "}")
    elif type(value) is list and value:
        out.append("[")
        sep = "\n" + inner
        for item in value:
            out.append(sep)
            out.append(_COMPACT(item))
            sep = ",\n" + inner
        out.append("\n" + pad + "]")
    else:
        out.append(_COMPACT(value))


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
