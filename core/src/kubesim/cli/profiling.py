"""`--profile FILE` and `--profile-top N` of `kubesim run` and `kubesim perf`: a cProfile of the run.

FILE gets cProfile's stats (read them with `python -m pstats FILE` or snakeviz), or, when it
ends in `.txt`, the readable list of the most expensive functions by cumulative time.
`--profile-top N` prints that list (N entries) on stderr. Only the file named is written.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

import click

from kubesim.cli.output import write_atomic

if TYPE_CHECKING:
    import cProfile

__all__ = ["DEFAULT_TOP", "profile_options", "profiled", "top_list"]

#: entries of the readable list when FILE ends in .txt and --profile-top is not given
DEFAULT_TOP = 40


def top_list(profiler: cProfile.Profile, top: int) -> str:
    """The `top` functions with the most cumulative time, as pstats prints them."""
    import pstats  # imported when profiling: `kubesim run` does not pay for it otherwise

    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats(pstats.SortKey.CUMULATIVE, pstats.SortKey.NAME).print_stats(top)
    return out.getvalue()


@contextmanager
def profiled(path: str | None, top: int | None, *, stderr: TextIO | None = None) -> Iterator[None]:
    """Profile the block when `path` or `top` is given; then write `path` and print the top list."""
    if not path and not top:
        yield
        return
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        yield
    finally:
        profiler.disable()
        if path:
            if path.endswith(".txt"):
                write_atomic(path, top_list(profiler, top or DEFAULT_TOP))
            else:
                profiler.dump_stats(path)
        if top:
            print(top_list(profiler, top), file=stderr or sys.stderr)


def profile_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add --profile and --profile-top to a command."""
    f = click.option("--profile-top", type=click.IntRange(min=1), default=None, metavar="N",
                     help="Print the N functions with the most cumulative time (cProfile) on stderr.")(f)
    return click.option("--profile", "profile_path", type=click.Path(dir_okay=False), default=None,
                        help="Write a cProfile of the run to FILE (python -m pstats FILE, snakeviz FILE); "
                             "a .txt FILE gets the readable top list by cumulative time.")(f)
