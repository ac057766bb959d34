"""structlog setup: JSON off a TTY, console on one, and always to the current sys.stderr."""

from __future__ import annotations

import io
import json

import pytest
import structlog

from kubesim.cli.logconfig import configure_logging


def test_json_lines_go_to_the_stderr_of_the_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    configure_logging(0, tty=False)
    later = io.StringIO()
    monkeypatch.setattr("sys.stderr", later)  # what rich's progress display does while it is live
    structlog.get_logger().info("scenario started", scenario="s")
    assert json.loads(later.getvalue()) == {"event": "scenario started", "level": "info", "scenario": "s"}


@pytest.mark.parametrize(("verbosity", "shown"), [(-1, ["warning"]), (0, ["info", "warning"]), (1, ["debug", "info", "warning"])])
def test_verbosity_sets_the_level(monkeypatch: pytest.MonkeyPatch, verbosity: int, shown: list[str]) -> None:
    configure_logging(verbosity, tty=False)
    out = io.StringIO()
    monkeypatch.setattr("sys.stderr", out)
    log = structlog.get_logger()
    log.debug("d")
    log.info("i")
    log.warning("w")
    assert [json.loads(line)["level"] for line in out.getvalue().splitlines()] == shown


def test_console_renderer_on_a_tty(monkeypatch: pytest.MonkeyPatch) -> None:
    configure_logging(0, tty=True)
    out = io.StringIO()
    monkeypatch.setattr("sys.stderr", out)
    structlog.get_logger().info("hello", n=1)
    assert "hello" in out.getvalue() and "n" in out.getvalue() and not out.getvalue().startswith("{")
