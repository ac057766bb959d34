"""Mutation families whose properties fail on main today, each with its FINDINGS entry.

Their parametrized cases are left out so that the suite stays green; remove an entry
once its fix is merged (or set KUBESIM_HYPOTHESIS_ALL=1 to run them all by hand).
/work/wt/props.FINDINGS.md holds the reproducers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["AWAITING_FIX", "enabled"]

# (property, family) -> the finding that keeps it out
AWAITING_FIX: dict[tuple[str, str], str] = {
    ("scenario", "quantities"): "#1 node quantity past int64: internal OverflowError at run time (loaders)",
    ("scenario", "nesting"): "#2 nesting ~600 deep: RecursionError traceback in the YAML loader (loaders)",
    ("scenario", "unknown_field"): "#3 label value null / annotations a list: AttributeError traceback (schema)",
    ("scenario", "alias_bomb"): "#4 YAML alias bomb: validate hangs, 1 GB (loaders)",
    ("scenario", "key_types"): "#6/#13 a null/int/bool mapping key: TypeError/AttributeError tracebacks (loaders, schema)",
    ("installed", "deep_nesting"): "#5 nesting 50,000 deep: segfault (YAML), RecursionError (JSON) (loaders)",
    ("scheduler-config", "nesting"): "#7 scheduler config 600-3000 deep: RecursionError traceback (loaders)",
    ("scheduler-config", "strings"): "#8 lone surrogates in a scheduler config: UnicodeEncodeError (loaders)",
    ("scheduler-config", "key_types"): "#13 an int key in a profile: message with 'int' object (messages)",
    ("loader", "nesting"): "#2 nesting ~600 deep: RecursionError in the YAML loader (loaders)",
    ("loader", "unknown_field"): "#3 label value null / annotations a list: AttributeError (schema)",
    ("loader", "alias_bomb"): "#4 YAML alias bomb: hangs, 1 GB (loaders)",
    ("result", "nesting"): "#10 result file 3000 deep: RecursionError in report/compare (loaders)",
    ("result", "alias_bomb"): "#11 a result field of the wrong type: message with 'list' object (messages)",
    ("installed", "nesting"): "#2/#12 scenario 600 deep: RecursionError traceback (loaders)",
    ("cluster", "wrong_type"): "#9 metadata.name an int, metadata null: AttributeError (schema)",
    ("cluster", "numbers"): "#9 metadata.name a number: AttributeError (schema)",
    ("cluster", "unknown_field"): "#9 a label value that is a mapping: AttributeError (schema)",
}


def enabled(prop: str, families: Iterable[str]) -> list[str]:
    """The families of property `prop` to run: all but those awaiting a fix."""
    if os.environ.get("KUBESIM_HYPOTHESIS_ALL") == "1":
        return list(families)
    return [f for f in families if (prop, f) not in AWAITING_FIX]
