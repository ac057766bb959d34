"""kubesim's bounds on HTTP extender calls: the URL, one call's time and size, a run's total wait.

Extender calls are the scheduler's only real I/O, so they are its only wall-clock waits.
Upstream (pkg/scheduler/extender.go) bounds a call by httpTimeout alone, with no size
limit and no limit per run; kubesim adds the bounds below (documented in docs/extender-limits.md)
so that no extender can make a run hang.
"""

from __future__ import annotations

import time
import urllib.parse

__all__ = [
    "DEFAULT_EXTENDER_TIMEOUT",
    "MAX_EXTENDER_TIMEOUT",
    "MAX_RESPONSE_BYTES",
    "RUN_WAIT_BUDGET",
    "WaitBudget",
    "url_prefix_problem",
]

#: extender.go DefaultExtenderTimeout, used when httpTimeout is 0.
DEFAULT_EXTENDER_TIMEOUT = 5.0
#: The largest httpTimeout kubesim accepts (seconds): one call never waits longer.
MAX_EXTENDER_TIMEOUT = 600.0
#: The largest response body kubesim reads from an extender (64 MiB).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
#: The wall-clock time a run may spend waiting on extenders in all (seconds).
RUN_WAIT_BUDGET = 1800.0


def url_prefix_problem(url: str) -> str:
    """Why `url` cannot be an extender's urlPrefix ("" when it can): it must be an http or
    https URL with a host, the only ones Go's http.Client can POST to."""
    if any(ch < " " or ch == "\x7f" for ch in url):
        return "must be an http or https URL with a host (kubesim check: it has a control character)"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError:
        return "must be an http or https URL with a host (kubesim check: it does not parse as a URL)"
    if parts.scheme not in ("http", "https"):
        return f'must be an http or https URL with a host (kubesim check: the scheme is "{parts.scheme}")'
    if not parts.hostname:
        return "must be an http or https URL with a host (kubesim check: it has no host)"
    return ""


class WaitBudget:
    """The wall-clock seconds left for extender calls in one run, shared by its extenders.

    Only a call's timeout comes from it (never a result), so runs stay deterministic as long
    as the extenders answer in time.
    """

    def __init__(self, seconds: float = RUN_WAIT_BUDGET) -> None:
        self.total = seconds
        self.spent = 0.0

    def left(self) -> float:
        """Seconds still available (never negative)."""
        return max(0.0, self.total - self.spent)

    def start(self) -> float:
        """A monotonic timestamp to pass to `charge` when the call ends."""
        return time.monotonic()

    def charge(self, started: float) -> None:
        """Count the time since `started` against the budget."""
        self.spent += max(0.0, time.monotonic() - started)
