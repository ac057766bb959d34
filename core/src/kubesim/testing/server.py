"""`kubesim serve` in a subprocess for tests: started on a free port, stopped with SIGTERM.

    with KubesimServer(tmp_path, controllers=["my-scheduler"]) as server:
        subprocess.run(["kubectl", "--kubeconfig", server.kubeconfig, "get", "pods"])
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType

from kubesim.testing.cli import KubesimFailed, _environment, kubesim_command

__all__ = ["KubesimServer"]

_LISTENING = re.compile(r"kubesim serve: listening on (\S+)")
START_TIMEOUT = 30.0


class KubesimServer:
    """A running `kubesim serve --port 0` in `workdir`; `url`, `kubeconfig`, `controller_kubeconfig(name)`."""

    def __init__(self, workdir: str | os.PathLike[str], *args: str, controllers: Sequence[str] = (),
                 plugins: Iterable[str] | None = None, env: Mapping[str, str] | None = None) -> None:
        self.workdir = Path(workdir)
        self.kubeconfig = self.workdir / "kubesim.kubeconfig"
        self.controllers = tuple(controllers)
        argv = [str(kubesim_command()), "serve", "--port", "0", "--kubeconfig-out", str(self.kubeconfig)]
        for name in self.controllers:
            argv += ["--controller", name]
        self._argv = [*argv, *args]
        self._env = _environment(plugins, (), (), env, ())
        self._proc: subprocess.Popen[str] | None = None
        self._lines: list[str] = []
        self.url = ""

    def controller_kubeconfig(self, name: str) -> Path:
        """The kubeconfig `kubesim serve --controller NAME` wrote."""
        return self.workdir / f"kubesim-{name}.kubeconfig"

    def start(self) -> KubesimServer:
        """Start the server and wait (at most START_TIMEOUT s) until it listens."""
        self._proc = subprocess.Popen(self._argv, cwd=self.workdir, env=self._env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        listening = threading.Event()

        def read(stream: Iterable[str]) -> None:
            for line in stream:
                self._lines.append(line)
                found = _LISTENING.search(line)
                if found:
                    self.url = found.group(1)
                    listening.set()
            listening.set()

        assert self._proc.stderr is not None
        threading.Thread(target=read, args=(self._proc.stderr,), daemon=True).start()
        if not listening.wait(START_TIMEOUT) or not self.url:
            self.stop()
            raise KubesimFailed(f"kubesim serve did not start within {START_TIMEOUT} s:\n{self.stderr}")
        return self

    @property
    def pid(self) -> int:
        """The server's process id (0 before start)."""
        return self._proc.pid if self._proc is not None else 0

    @property
    def stderr(self) -> str:
        """What the server printed so far."""
        return "".join(self._lines)

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, then SIGKILL after `timeout` s; the exit code. Fails on a traceback in stderr."""
        proc = self._proc
        if proc is None:
            return 0
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        time.sleep(0.05)  # the reader thread drains the last lines
        if "Traceback (most recent call last)" in self.stderr:
            raise KubesimFailed(f"kubesim serve printed a traceback:\n{self.stderr}")
        return proc.returncode

    def __enter__(self) -> KubesimServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
