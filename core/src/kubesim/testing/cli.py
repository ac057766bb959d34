"""Run the installed `kubesim` command as a user does, for end-to-end tests.

`run_kubesim(*args, cwd=...)` runs it in a subprocess with a timeout (a hung run fails the
test instead of hanging it), with only the chosen plugins enabled, and returns the exit
code, the output and, when `-o FILE` was given, the parsed result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import attrs
import yaml

from kubesim.api.pod_ref import expand_pod_refs

__all__ = [
    "DEFAULT_TIMEOUT",
    "KubesimFailed",
    "KubesimRun",
    "KubesimTimeout",
    "installed_plugins",
    "kubesim_command",
    "run_kubesim",
]

DEFAULT_TIMEOUT = 300.0
"""Seconds a run may take before it is killed and the test fails."""


class KubesimFailed(AssertionError):
    """The run broke a rule the test relies on (a traceback, a missing plugin)."""


class KubesimTimeout(KubesimFailed):
    """The run did not end within its timeout; it was killed."""


def installed_plugins() -> set[str]:
    """Names of the kubesim plugins installed as entry points (group "kubesim")."""
    return {ep.name for ep in entry_points(group="kubesim")}


def kubesim_command() -> Path:
    """The `kubesim` script installed next to the running Python."""
    return Path(sys.executable).parent / ("kubesim.exe" if os.name == "nt" else "kubesim")


def _load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else json.loads(text)


def _option(args: Sequence[str], *names: str) -> str | None:
    """The value of the last of `names` in `args` ("-o X", "--output X" or "--output=X")."""
    value = None
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            value = args[i + 1]
        for name in names:
            if name.startswith("--") and arg.startswith(name + "="):
                value = arg[len(name) + 1 :]
    return value


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, mtime) of an existing file, to tell whether a run rewrote it."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


@attrs.frozen
class KubesimRun:
    """A finished `kubesim` run: exit code, output, and the files it wrote."""

    args: tuple[str, ...]
    cwd: Path
    returncode: int
    stdout: str
    stderr: str
    output: Path | None = None
    """The `-o` file, when this run wrote it."""
    export: Path | None = None
    """The `--export-cluster` file, when this run wrote it."""

    @property
    def results(self) -> list[dict[str, Any]]:
        """Every Scenario of the `-o` file with its status ([] without -o or when none was written),
        in the full form: each podUnscheduled event carries its pod (podRefs resolved)."""
        if self.output is None or not self.output.exists():
            return []
        data = _load(self.output)
        return [expand_pod_refs(d) for d in (data if isinstance(data, list) else [data])]

    @property
    def result(self) -> dict[str, Any]:
        """The (first) Scenario of the `-o` file; fails the test when there is none."""
        results = self.results
        if not results:
            raise KubesimFailed(
                f"kubesim {' '.join(self.args)} wrote no result (exit {self.returncode}):\n{self.stderr}"
            )
        return results[0]

    @property
    def phase(self) -> str | None:
        """status.phase of the (first) scenario: Succeeded, Paused or Failed."""
        return (self.result.get("status") or {}).get("phase")

    @property
    def message(self) -> str | None:
        """status.message of the (first) scenario (why it failed)."""
        return (self.result.get("status") or {}).get("message")

    @property
    def timeline(self) -> dict[str, list[dict[str, Any]]]:
        """status.scenarioResult.timeline of the (first) scenario: MajorStep -> events."""
        return dict(((self.result.get("status") or {}).get("scenarioResult") or {}).get("timeline") or {})

    def events(self) -> list[dict[str, Any]]:
        """Every timeline event of the (first) scenario in order (MajorSteps ascending)."""
        timeline = self.timeline
        return [e for major in sorted(timeline, key=int) for e in timeline[major]]

    @property
    def exported(self) -> list[dict[str, Any]]:
        """The items of the `--export-cluster` file ([] when it was not written)."""
        if self.export is None or not self.export.exists():
            return []
        return list((_load(self.export) or {}).get("items") or [])


def _environment(
    plugins: Iterable[str] | None,
    modules: Sequence[str],
    pythonpath: Sequence[str | os.PathLike[str]],
    env: Mapping[str, str] | None,
    drop_env: Sequence[str],
) -> dict[str, str]:
    prefixes = ("KUBESIM_", *drop_env)
    full = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    if pythonpath:
        full["PYTHONPATH"] = os.pathsep.join(
            [*(os.fspath(p) for p in pythonpath), *filter(None, [full.get("PYTHONPATH")])]
        )
    if modules:
        full["KUBESIM_PLUGINS"] = ",".join(modules)
    if plugins is not None:
        wanted = set(plugins)
        installed = installed_plugins()
        missing = sorted(wanted - installed)
        if missing:
            raise KubesimFailed(
                f"kubesim plugins not installed: {', '.join(missing)} "
                f"(installed: {', '.join(sorted(installed)) or 'none'})"
            )
        full["KUBESIM_DISABLED_PLUGINS"] = ",".join(sorted(installed - wanted))
    full.update(env or {})
    return full


def run_kubesim(
    *args: str | os.PathLike[str],
    cwd: str | os.PathLike[str],
    plugins: Iterable[str] | None = None,
    modules: Sequence[str] = (),
    pythonpath: Sequence[str | os.PathLike[str]] = (),
    env: Mapping[str, str] | None = None,
    drop_env: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    allow_traceback: bool = False,
    stdin: str | None = None,
) -> KubesimRun:
    """Run `kubesim ARGS` in `cwd` and wait for it, at most `timeout` seconds.

    `plugins` names the installed plugins to enable (None: all; a missing one fails the
    test); `modules` are plugin modules loaded through KUBESIM_PLUGINS, found on `pythonpath`
    too. The environment is this one without KUBESIM_* (and `drop_env` prefixes), plus `env`.
    Raises KubesimTimeout when the run is killed for taking too long and KubesimFailed when
    stderr holds a Python traceback, unless `allow_traceback`. An `-o` or `--export-cluster`
    file this run did not (re)write is not read: it is an older run's.
    """
    argv = tuple(os.fspath(a) for a in args)
    where = Path(cwd)
    full_env = _environment(plugins, modules, pythonpath, env, drop_env)
    output, export = _option(argv, "-o", "--output"), _option(argv, "--export-cluster")
    before = {name: _stamp(where / name) for name in filter(None, (output, export))}
    try:
        proc = subprocess.run(
            [str(kubesim_command()), *argv],
            cwd=where,
            env=full_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        raise KubesimTimeout(
            f"kubesim {' '.join(argv)} did not finish within {timeout:g}s and was killed; "
            f"stderr so far:\n{err[-4000:]}"
        ) from None
    written = {name for name, stamp in before.items() if stamp is None or _stamp(where / name) != stamp}
    run = KubesimRun(
        argv,
        where,
        proc.returncode,
        proc.stdout,
        proc.stderr,
        output=where / output if output in written else None,
        export=where / export if export in written else None,
    )
    if not allow_traceback and "Traceback (most recent call last)" in proc.stderr:
        raise KubesimFailed(
            f"kubesim {' '.join(argv)} printed a traceback (exit {proc.returncode}):\n{proc.stderr}"
        )
    return run
