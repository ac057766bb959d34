"""The `simSpec` annotation: kept here for compatibility, it lives in `kubesim.simtime.simspec`.

The core's metrics (`kubesim.simtime.metrics`) evaluate simSpec usage too, so the parser and
the usage rules moved to the core; this module re-exports them.
"""

from kubesim.simtime.simspec import (
    SIM_SPEC_ANNOTATION,
    USAGE_ANNOTATION,
    SimPhase,
    SimSpec,
    SimSpecError,
    effective_time,
    parse_sim_spec,
    sim_spec_of,
    usage_annotation,
    usage_at,
)

__all__ = [
    "SIM_SPEC_ANNOTATION",
    "USAGE_ANNOTATION",
    "SimPhase",
    "SimSpec",
    "SimSpecError",
    "effective_time",
    "parse_sim_spec",
    "sim_spec_of",
    "usage_annotation",
    "usage_at",
]
