"""Hypothesis profiles of the property suite: "ci" (bounded, derandomized) and "long" (by hand).

KUBESIM_HYPOTHESIS=long selects the long profile: every property runs LONG_FACTOR times
its CI example count with fresh random seeds, e.g.
    KUBESIM_HYPOTHESIS=long python -m pytest -q tests/property
KUBESIM_HYPOTHESIS=quick is the CI profile without shrinking: a fast list of what fails.
KUBESIM_HYPOTHESIS_ALL=1 also runs the families awaiting a fix (known_failures.py).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

__all__ = ["LONG_FACTOR", "PROFILE", "examples", "load"]

LONG_FACTOR = 50
PROFILE = os.environ.get("KUBESIM_HYPOTHESIS", "ci")

_COMMON = {
    "deadline": None,  # commands are bounded by command_runs.BOUND_SECONDS instead
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    "print_blob": True,
}


def load() -> None:
    """Register both profiles and load the one KUBESIM_HYPOTHESIS names (default "ci")."""
    settings.register_profile("ci", derandomize=True, database=None, **_COMMON)
    settings.register_profile("long", derandomize=False, **_COMMON)
    settings.register_profile("quick", derandomize=True, database=None,
                              phases=[Phase.explicit, Phase.reuse, Phase.generate], **_COMMON)
    if PROFILE not in ("ci", "long", "quick"):
        raise ValueError(f"KUBESIM_HYPOTHESIS={PROFILE!r}: expected ci, long or quick")
    settings.load_profile(PROFILE)


def examples(ci: int) -> int:
    """The max_examples of a property that runs `ci` examples in CI."""
    return ci * LONG_FACTOR if PROFILE == "long" else ci
