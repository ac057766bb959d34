"""kubesim.cli.profiling: the cProfile file and the readable top list."""

from __future__ import annotations

import pstats
from pathlib import Path

import pytest
from kubesim.cli.profiling import profiled


def _work() -> int:
    return sum(i * i for i in range(20000))


def test_stats_file_is_readable_by_pstats(tmp_path: Path) -> None:
    path = tmp_path / "run.prof"
    with profiled(str(path), None):
        _work()
    stats = pstats.Stats(str(path))
    assert any(func[2] == "_work" for func in stats.stats)  # type: ignore[attr-defined]


def test_txt_file_and_top_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "top.txt"
    with profiled(str(path), 5):
        _work()
    text = path.read_text()
    assert "cumulative" in text and "_work" in text
    assert "_work" in capsys.readouterr().err


def test_nothing_written_without_options(tmp_path: Path) -> None:
    with profiled(None, None):
        _work()
    assert list(tmp_path.iterdir()) == []
