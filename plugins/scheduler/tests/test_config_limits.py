"""Hostile scheduler configurations (deep, alias bombs, binary, devices) end fast with exit 2 and
the file and line, before anything runs (kubesim.input_limits)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from kubesim.errors import InvalidInput
from kubesim_scheduler.config import load_config, loads_config

from kubesim_cli import run_kubesim

REPO = Path(__file__).resolve().parents[3]
QUICKSTART = REPO / "examples" / "quickstart" / "scenario.yaml"
HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
DEEP = "YAML nested deeper than 100 levels, the most kubesim reads"
BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")
)


def _deep(depth: int) -> str:
    return HEAD + "profiles:\n- schedulerName: x\n  pluginConfig:\n  - name: NodeResourcesFit\n    args: {x: " \
        + "[" * depth + "]" * depth + "}\n"


CASES: dict[str, tuple[str | bytes, str]] = {
    **{f"deep-{d}.yaml": (_deep(d), f"line 7 column 109: {DEEP}") for d in (400, 600, 3_000, 50_000, 1_000_000)},
    "deep-json.json": ('{"apiVersion": "kubescheduler.config.k8s.io/v1", "x": ' + "[" * 3000 + "]" * 3000 + "}",
                       f"line 1 column 154: {DEEP}"),
    "bomb.yaml": (BOMB + HEAD, "line 4: excessive YAML aliasing: the aliases expand the document beyond 1801 nodes"),
    "binary.yaml": (b"\x00\x01\x02", "NUL byte at byte 0: a binary file, not YAML or JSON"),
    "latin1.yaml": ((HEAD + "# caf\xe9\n").encode("latin-1"), "not valid UTF-8 at byte 81"),
    "bigint.yaml": (HEAD + "percentageOfNodesToScore: " + "9" * 5000 + "\n",
                    "line 3 column 27: an integer of 5000 digits, more than the 4300 kubesim reads"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_configurations_are_refused(tmp_path: Path, name: str) -> None:
    content, message = CASES[name]
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    start = time.perf_counter()
    with pytest.raises(InvalidInput) as info:
        load_config(path)
    assert time.perf_counter() - start < 5  # milliseconds, in fact
    assert [str(p) for p in info.value.problems] == [f"{path}: {message}"]


def test_loads_config_refuses_the_bomb_too() -> None:
    with pytest.raises(InvalidInput) as info:
        loads_config(BOMB + HEAD, file="inline")
    assert str(info.value) == "inline: line 4: excessive YAML aliasing: the aliases expand the document beyond 1801 nodes"


def test_a_device_is_refused() -> None:
    with pytest.raises(InvalidInput) as info:
        load_config("/dev/urandom")
    assert str(info.value) == "/dev/urandom: not a regular file (a character device)"


def test_anchors_within_the_budget_still_work() -> None:
    text = HEAD + "profiles:\n- schedulerName: a\n  plugins: &p {score: {disabled: [{name: ImageLocality}]}}\n" \
        "- schedulerName: b\n  plugins: *p\n"
    config = loads_config(text)
    assert [p.plugins == config.profiles[0].plugins for p in config.profiles] == [True, True]


@pytest.mark.parametrize("name", ["deep-50000.yaml", "bomb.yaml"])
def test_run_refuses_them_before_running(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(str(CASES[name][0]), encoding="utf-8")
    start = time.perf_counter()
    proc = run_kubesim("run", str(QUICKSTART), "--scheduler-config", name, "-o", "out.json", cwd=tmp_path)
    assert time.perf_counter() - start < 60
    assert proc.returncode == 2, proc.stderr
    assert f"{name}: {CASES[name][1]}" in proc.stderr
    assert not (tmp_path / "out.json").exists()
