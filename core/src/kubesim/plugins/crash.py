"""Naming a plugin that raised: which plugin, which exception, and where in its own code.

Plugin code (a scheduler plugin, a controller, an admission hook, a result aggregator)
that raises ends the run with one line such as
`scheduler plugin "Crash" (Filter) raised KeyError: 'x' at badplug.py:12`; the location is
the innermost traceback frame in the plugin's own package, so a failure inside a library
the plugin called still points at the plugin's line that called it.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType

__all__ = ["PluginCrashed", "crash_message", "raised_at"]


def _package_base(module: str) -> str | None:
    """The directory holding `module`'s top-level package (or the module file itself)."""
    root = sys.modules.get(module.partition(".")[0])
    path: str | None = getattr(root, "__file__", None) if root is not None else None
    if not path:
        return None
    base = os.path.dirname(os.path.abspath(path))
    if os.path.basename(path).startswith("__init__."):
        base = os.path.dirname(base)
    return base


def _in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def raised_at(exc: BaseException, module: str | None = None) -> str:
    """`file:line` of the innermost frame of `exc`'s traceback in `module`'s top-level package.

    Without a frame there (or without `module`), the innermost frame of all. The file is
    shown relative to the directory that holds the package, else by its base name.
    """
    frames: list[tuple[str, int, str]] = []
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        frames.append((frame.f_code.co_filename, tb.tb_lineno, str(frame.f_globals.get("__name__", ""))))
        tb = tb.tb_next
    if not frames:
        return ""
    chosen = frames[-1]
    package = module.partition(".")[0] if module else ""
    if package:
        own = [f for f in frames if _in_package(f[2], package)]
        if own:
            chosen = own[-1]
    filename, line, _ = chosen
    base = _package_base(module) if module else None
    shown = os.path.basename(filename)
    if base is not None:
        full = os.path.abspath(filename)
        if full.startswith(base + os.sep):
            shown = os.path.relpath(full, base).replace(os.sep, "/")
    return f"{shown}:{line}"


def crash_message(what: str, exc: BaseException, module: str | None = None) -> str:
    """`<what> raised <Type>: <message> at <file:line>`: one line naming who raised what, where."""
    text = str(exc)
    described = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    where = raised_at(exc, module)
    return f"{what} raised {described}" + (f" at {where}" if where else "")


class PluginCrashed(Exception):
    """Plugin code raised; the scenario (or command) ends with `message`, without a traceback.

    `what` names the plugin (e.g. `scheduler plugin "Crash" (Filter)`), `error` is the
    exception it raised and `location` the `file:line` in the plugin's own code.
    """

    def __init__(self, what: str, error: BaseException, module: str | None = None) -> None:
        self.what = what
        self.error = error
        self.location = raised_at(error, module)
        self.message = crash_message(what, error, module)
        super().__init__(self.message)
