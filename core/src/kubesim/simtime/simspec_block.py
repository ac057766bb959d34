"""A fast reader for the common block form of simSpec, so long traces need no YAML parser.

Memory traces become simSpecs of hundreds of phases (the pod-migration fork writes one phase per
telemetry sample, `pkg/jobparser/pod.go`), and a pure-Python YAML parse of 240 phases takes
about half a second. Text strictly of this form::

    - seconds: 120
      resourceUsage:
        cpu: 5
        memory: 1000000000

(integers without leading zeros, quantities such as 2Gi or 500m, resource names starting with
a letter, no comments, no repeated keys) is read here into exactly what YAML would give;
anything else returns None and goes through the YAML parser with its error messages.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["read_block_phases"]

_SECONDS = re.compile(r"- seconds: (0|[1-9][0-9]*)")
_USAGE_ITEM = re.compile(r"    ([A-Za-z][A-Za-z0-9./_-]*): (?:(0|[1-9][0-9]*)|((?:0|[1-9][0-9]*)(?:\.[0-9]+)?"
                         r"(?:Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m|n|u)))")
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def read_block_phases(text: str) -> list[dict[str, Any]] | None:
    """The phases of a simSpec in the plain block form, as YAML would load them; None otherwise."""
    phases: list[dict[str, Any]] = []
    usage: dict[str, Any] | None = None
    for line in text.split("\n"):
        if not line:
            continue
        m = _SECONDS.fullmatch(line)
        if m is not None:
            usage = None
            phases.append({"seconds": int(m.group(1))})
            continue
        if line == "  resourceUsage:":
            if not phases or "resourceUsage" in phases[-1]:
                return None
            usage = phases[-1]["resourceUsage"] = {}
            continue
        m = _USAGE_ITEM.fullmatch(line)
        if m is None or usage is None:
            return None
        name = m.group(1)
        if name in usage or name.lower() in _YAML_WORDS:
            return None
        usage[name] = int(m.group(2)) if m.group(2) is not None else m.group(3)
    for phase in phases:
        if phase.get("resourceUsage") == {}:
            return None  # "resourceUsage:" with nothing under it is null in YAML
    return phases or None
