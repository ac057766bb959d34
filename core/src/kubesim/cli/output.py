"""Writing results: atomically (temporary file, then rename), as JSON or YAML.

Only regular files are written: a symlink is followed to its target (as `cp` does), a device,
FIFO or directory is refused, the mode of a file replaced is kept (a new file gets the
umask's), and a failed write (a full disk) leaves the old file as it was.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import click
import yaml

__all__ = ["OutputError", "check_output", "check_outputs", "dump", "dump_json", "write_atomic", "write_data", "write_json"]


class OutputError(Exception):
    """An output path that cannot be written, with the path and the reason."""


_BASE_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when PyYAML was built with it


class _DUMPER(_BASE_DUMPER):  # type: ignore[misc]
    """Writes a value shared by several places (results share objects) in full at each place,
    never as a YAML anchor and alias (which kubesim's own loader refuses)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True
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
    _write(data, "", out, None)
    out.append("\n")
    return "".join(out)


_FLUSH_PARTS = 4096
"""Parts of text gathered before they are written (streamed output: a few hundred KB at most)."""


def write_json(data: Any, fh: TextIO) -> None:
    """Write `dump_json(data)` to `fh` piece by piece: the same text, never built as one string
    (a result of 10^5 pods is about a GB of text)."""
    out: list[str] = []

    def flush() -> None:
        fh.write("".join(out))
        out.clear()

    _write(data, "", out, flush)
    out.append("\n")
    flush()


def _write(value: Any, pad: str, out: list[str], flush: Callable[[], None] | None) -> None:
    inner = pad + "  "
    if type(value) is dict and value:
        out.append("{")
        sep = "\n"
        for key, item in value.items():
            out.append(sep)
            out.append(inner)
            out.append(_COMPACT(key if type(key) is str else str(key)))
            out.append(": ")
            _write(item, inner, out, flush)
            sep = ",\n"
        out.append("\n" + pad + "}")
    elif type(value) is list and value:
        out.append("[")
        sep = "\n" + inner
        for item in value:
            out.append(sep)
            out.append(_COMPACT(item))
            sep = ",\n" + inner
            if flush is not None and len(out) >= _FLUSH_PARTS:
                flush()
        out.append("\n" + pad + "]")
    else:
        out.append(_COMPACT(value))


def write_data(path: str | Path, data: Any) -> None:
    """Write `data` to `path` atomically as `dump(data, path)` would serialize it, streamed to the
    file instead of built as one string first."""
    if Path(path).suffix in (".yaml", ".yml"):
        def write(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8") as fh:
                yaml.dump(data, fh, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)
    else:
        def write(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8") as fh:
                write_json(data, fh)

    replace_atomic(path, write)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_output(path: str | Path) -> Path:
    """The regular file `path` names (symlinks followed); OutputError when it cannot be written.

    Called before a run so that a bad output path fails in a second, not after the run.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from exc
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputError(f"refusing to write {path}: it is {_kind(mode)}, not a regular file")
    parent = target.parent
    if not parent.is_dir():
        raise OutputError(f"cannot write {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {path}: directory {parent} is not writable")
    return target


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` so that readers see the old file or the whole new one, never a part.

    OutputError names the path and the reason (no space left, permission denied, ...).
    """

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    replace_atomic(path, write)


def replace_atomic(path: str | Path, write: Callable[[str], None]) -> None:
    """Let `write` fill a temporary file beside `path`, then rename it over `path` (keeping the
    old file's mode, or the umask's); the temporary file is removed when anything fails."""
    target = check_output(path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from exc
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_outputs(**paths: str | None) -> None:
    """Refuse output paths (option name -> path) that cannot be written before anything runs (exit 2)."""
    seen: dict[Any, str] = {}
    problems = []
    for option, path in paths.items():
        if not path:
            continue
        try:
            target = check_output(path)
        except OutputError as exc:
            problems.append(str(exc))
            continue
        if target in seen:
            problems.append(f"{option} {path}: the same file as {seen[target]}")
        seen[target] = f"{option} {path}"
    for problem in problems:
        click.echo(f"error: {problem}", err=True)
    if problems:
        sys.exit(2)
