"""structlog configuration, done once by the CLI: readable on a TTY, JSON otherwise."""

from __future__ import annotations

import logging
import sys

import structlog

__all__ = ["configure_logging"]


class _CurrentStderr:
    """Writes to whatever sys.stderr is at the time, so that log lines go through rich's
    redirection while a progress display is live (and appear above it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(verbosity: int, *, tty: bool | None = None) -> None:
    """Log to stderr at a level set by -v/-q (0 = info, 1 = debug, -1 = warning, -2 = error)."""
    level = {1: logging.DEBUG, 0: logging.INFO, -1: logging.WARNING}.get(
        max(-2, min(1, verbosity)), logging.ERROR
    )
    tty = sys.stderr.isatty() if tty is None else tty
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer(colors=True) if tty else structlog.processors.JSONRenderer(sort_keys=True)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.format_exc_info if not tty else structlog.dev.set_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )
