"""Output files of `kubesim run`: only regular files are written, nothing is destroyed or lost."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kubesim.cli.output import OutputError, write_atomic
from kubesim.testing import KubesimRun, installed_plugins, kubesim_command, run_kubesim

KUBESIM = str(kubesim_command())
PLUGINS = Path(__file__).resolve().parents[1] / "data" / "plugins"
API = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"


def _scenario(path: Path, steps: int = 1) -> str:
    """A scenario that needs no plugin: a node, a ConfigMap per step, done."""
    ops = [{"step": 0, "createOperation": {"object": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}}}]
    ops += [{"step": s, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{s}", "namespace": "default"}}}}
        for s in range(1, steps + 1)]
    ops.append({"step": steps + 1, "doneOperation": {}})
    path.write_text(json.dumps({"apiVersion": API, "kind": "Scenario", "metadata": {"name": "plain"},
                                "spec": {"operations": ops}}))
    return path.name


def run(*args: str, cwd: Path, timeout: float = 120) -> KubesimRun:
    """`kubesim run SCENARIO ARGS` on a scenario that needs no plugin, with no plugin enabled."""
    scenario = _scenario(cwd / "plain.json")
    return run_kubesim("run", scenario, *args, cwd=cwd, timeout=timeout, plugins=())


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: os.mkfifo(d / "out"), "refusing to write out: it is a FIFO, not a regular file"),
    (lambda d: (d / "out").mkdir(), "Invalid value for '-o' / '--output': File 'out' is a directory"),
    (lambda d: None, None),
])
def test_non_regular_outputs_are_refused_before_the_run(tmp_path: Path, make, message) -> None:  # type: ignore[no-untyped-def]
    make(tmp_path)
    proc = run("-q", "-o", "out", cwd=tmp_path)
    if message is None:
        assert proc.returncode == 0 and json.loads((tmp_path / "out").read_text())["status"]["phase"] == "Succeeded"
    else:
        assert proc.returncode == 2 and message in proc.stderr
        assert "scenario started" not in proc.stderr  # nothing ran


def test_a_device_is_never_replaced(tmp_path: Path) -> None:
    proc = run("-q", "-o", "/dev/null", cwd=tmp_path)
    assert proc.returncode == 2
    assert "refusing to write /dev/null: it is a character device, not a regular file" in proc.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_missing_directory_and_same_file_fail_fast(tmp_path: Path) -> None:
    proc = run("-q", "-o", "no/such/dir/r.json", cwd=tmp_path)
    assert proc.returncode == 2 and "cannot write no/such/dir/r.json: directory" in proc.stderr
    proc = run("-q", "-o", "a.json", "--export-cluster", "./a.json", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--export-cluster ./a.json: the same file as --output a.json" in proc.stderr
    assert not (tmp_path / "a.json").exists()


def test_a_symlink_is_followed_and_the_mode_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o640)
    (tmp_path / "link.json").symlink_to("real.json")
    assert run("-q", "-o", "link.json", cwd=tmp_path).returncode == 0
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads(real.read_text())["metadata"]["name"] == "plain"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_a_new_file_honours_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        assert run("-q", "-o", "new.json", cwd=tmp_path).returncode == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "r.json"
    target.write_text("old result")

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OutputError, match=r"cannot write .*r.json: No space left on device"):
        write_atomic(target, "new result")
    assert target.read_text() == "old result"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left behind


def _popen(cwd: Path, scenario: str) -> subprocess.Popen[str]:
    """`kubesim run SCENARIO -o r.json` with only the slow test controller (20 ms a step) enabled."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBESIM_")}
    env.update(KUBESIM_PLUGINS="kubesim_slow", KUBESIM_DISABLED_PLUGINS=",".join(sorted(installed_plugins())),
               PYTHONPATH=os.pathsep.join(filter(None, [str(PLUGINS), env.get("PYTHONPATH")])))
    return subprocess.Popen([KUBESIM, "run", scenario, "-o", "r.json"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_during_the_run_writes_what_was_computed(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    proc = _popen(tmp_path, _scenario(tmp_path / "long.json", steps=3000))  # about a minute
    assert proc.stderr is not None
    started = proc.stderr.readline()  # the JSON log line "scenario started" (stderr is no terminal)
    assert "scenario started" in started, started
    time.sleep(1.0)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert proc.returncode == code, err
    assert f"error: interrupted ({sig.name})" in err
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["status"]["phase"] == "Failed"
    assert result["status"]["message"] == f"interrupted ({sig.name})"
    assert result["status"]["scenarioResult"]["timeline"]["1"]  # the steps done are kept


def _wait_for_kubesim_code(proc: subprocess.Popen[str]) -> None:
    """Wait until the process runs kubesim's launcher: it catches SIGTERM from its first line.

    The first few dozen milliseconds belong to the Python interpreter (site, the console
    script's own imports); an interrupt there prints Python's traceback whatever kubesim does.
    """
    status = Path(f"/proc/{proc.pid}/status")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        caught = next((line.split()[1] for line in status.read_text().splitlines() if line.startswith("SigCgt:")), "0")
        if int(caught, 16) & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.005)
    raise AssertionError("kubesim did not start within 60 s")


@pytest.mark.parametrize("delay", [0.0, 0.1, 0.3, 1.0])  # after kubesim's own code started
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_at_start_up_exits_without_a_traceback(
    tmp_path: Path, delay: float, sig: signal.Signals, code: int
) -> None:
    proc = _popen(tmp_path, _scenario(tmp_path / "short.json", steps=100))
    _wait_for_kubesim_code(proc)
    time.sleep(delay)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert proc.returncode in (0, code), err  # 0: it had finished before the signal
    if proc.returncode == code:
        assert f"error: interrupted ({sig.name})" in err


def test_operations_that_outgrow_the_object_limit_fail_the_scenario_with_the_result_so_far(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path / "grow.json", steps=8)  # a ConfigMap per step
    proc = run_kubesim("run", scenario, "-o", "r.json", "--max-objects", "8", cwd=tmp_path, plugins=())
    assert proc.returncode == 1, proc.stderr
    status = proc.result["status"]
    assert status["phase"] == "Failed"
    # 4 default namespaces, the node, the scenario: the third ConfigMap makes 9
    assert status["message"] == ("step 3: the scenario's operations leave more than 8 objects in the "
                                 "cluster (the limit, --max-objects)")
    assert sorted(proc.timeline, key=int) == ["0", "1", "2", "3"]


def test_an_interrupt_python_cannot_raise_is_delivered_again(tmp_path: Path) -> None:
    """An interrupt inside a weakref callback would be printed as "Exception ignored" and lost."""
    script = tmp_path / "lost.py"
    script.write_text(
        "import signal, sys, time, weakref\n"
        "from kubesim.interrupts import catch_interrupts, exit_code\n"
        "catch_interrupts()\n"
        "class T: pass\n"
        "t = T()\n"
        "r = weakref.ref(t, lambda _: signal.raise_signal(signal.SIGTERM))\n"
        "try:\n"
        "    del t\n"
        "    time.sleep(30)\n"
        "except KeyboardInterrupt as exc:\n"
        "    print('caught', type(exc).__name__)\n"
        "    sys.exit(exit_code(exc))\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert proc.stderr == ""
    assert proc.stdout == "caught Terminated\n"
    assert proc.returncode == 143
