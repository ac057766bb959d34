"""Where cells run: in this process, in a local process pool, or on a Dask distributed cluster.

Every executor takes the same `CellTask`s and calls `run_cell` on them, so a cell's result
does not depend on where it ran. Results come back as cells finish (`on_result` is called
in this process for each), with at most `2 x workers` cells in flight so that a large
sweep does not ship every scenario at once. A worker that dies fails the cells it held;
the others go on.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from kubesim.cli.logconfig import configure_logging
from kubesim.plugins import Hooks
from kubesim.sweep.cell import CellResult, CellTask, run_cell

__all__ = ["DASK_CONNECT_TIMEOUT", "DaskUnavailable", "default_jobs", "run_dask", "run_local", "setup_worker"]

OnResult = Callable[[CellResult], None]
DASK_CONNECT_TIMEOUT = 30
"""Seconds to wait for a Dask scheduler to answer before giving up."""
_POLL_SECONDS = 1.0


class DaskUnavailable(Exception):
    """dask[distributed] is not installed, or its scheduler cannot be reached."""


def default_jobs() -> int:
    """The default of `-j`: one worker per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS and Windows have no sched_getaffinity
        return max(1, os.cpu_count() or 1)


def _failed(task: CellTask, why: str) -> CellResult:
    return CellResult(task.key, "failed", why, {}, 0.0)


def setup_worker(verbosity: int) -> None:
    """A worker process logs like the command that started it (warnings only by default)."""
    configure_logging(verbosity)


def run_local(tasks: Sequence[CellTask], jobs: int, on_result: OnResult, *, hooks: Hooks | None = None,
              verbosity: int = -1) -> None:
    """Run the tasks here (jobs 1, with `hooks`) or in `jobs` spawned worker processes.

    A worker that dies (out of memory, killed) breaks a process pool: the cells in flight
    then fail, and the rest run on a new pool.
    """
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            on_result(run_cell(task, hooks))
        return
    context = multiprocessing.get_context("spawn")  # no fork of a process that holds threads
    remaining = deque(tasks)
    while remaining:
        pool = ProcessPoolExecutor(max_workers=min(jobs, len(remaining)), mp_context=context,
                                   initializer=setup_worker, initargs=(verbosity,))
        try:
            _drain(remaining, 2 * jobs, lambda t: pool.submit(run_cell, t), on_result)
        except BaseException:
            # interrupted: the cells still running are abandoned, not waited for
            processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
            for process in list(processes.values()):
                process.terminate()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _drain(remaining: deque[CellTask], window: int, submit: Callable[[CellTask], Future[CellResult]],
           on_result: OnResult) -> None:
    """Submit from `remaining` (keeping `window` in flight) until it is empty or the pool breaks."""
    running: dict[Future[CellResult], CellTask] = {}
    broken = False
    while running or (remaining and not broken):
        while not broken and remaining and len(running) < window:
            task = remaining.popleft()
            try:
                running[submit(task)] = task
            except BrokenProcessPool:
                broken = True
                if running:
                    remaining.appendleft(task)
                else:  # no worker could start: fail a cell, so that every new pool gets further
                    on_result(_failed(task, "no worker process could be started"))
        if not running:
            break
        done, _ = wait(running, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
        for future in done:
            task = running.pop(future)
            try:
                result = future.result()
            except BrokenProcessPool:
                broken = True
                result = _failed(task, "a worker process died while this cell ran (out of memory or killed; "
                                       "--resume runs it again)")
            on_result(result)


def _dask() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise DaskUnavailable("--dask needs dask.distributed: pip install 'kubesim[sweep]'") from exc
    return distributed


def _as_completed(distributed: Any, client: Any, tasks: Sequence[CellTask], window: int) -> Iterator[CellResult]:
    pending = iter(tasks)
    futures = {}
    queue = distributed.as_completed()
    for task in pending:
        future = client.submit(run_cell, task, pure=False, key=f"cell-{task.key}")
        futures[future.key] = task
        queue.add(future)
        if len(futures) >= window:
            break
    for future in queue:
        task = futures.pop(future.key)
        try:
            result: CellResult = future.result()
        except Exception as exc:  # a worker lost, or the cell could not be shipped
            result = _failed(task, f"dask: {type(exc).__name__}: {exc}")
        future.release()
        yield result
        nxt = next(pending, None)
        if nxt is not None:
            f = client.submit(run_cell, nxt, pure=False, key=f"cell-{nxt.key}")
            futures[f.key] = nxt
            queue.add(f)


def run_dask(tasks: Sequence[CellTask], address: str, jobs: int, on_result: OnResult, *,
             verbosity: int = -1) -> None:
    """Run the tasks on the Dask scheduler at `address`, or on a LocalCluster of `jobs` worker
    processes (one thread each) when `address` is "local"."""
    distributed = _dask()
    cluster = None
    try:
        if address == "local":
            cluster = distributed.LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=40)
            client = distributed.Client(cluster, timeout=DASK_CONNECT_TIMEOUT)
        else:
            client = distributed.Client(address, timeout=DASK_CONNECT_TIMEOUT)
    except Exception as exc:  # unreachable, refused, or not an address distributed understands
        if cluster is not None:
            cluster.close()
        what = "cannot start a LocalCluster" if address == "local" else "cannot reach the scheduler"
        raise DaskUnavailable(f"--dask {address}: {what}: {exc}") from exc
    try:
        client.run(setup_worker, verbosity)
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        for result in _as_completed(distributed, client, tasks, 2 * max(workers, jobs)):
            on_result(result)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

