"""Mutation families whose properties fail on main today (93aae5a merged), each with its FINDINGS entry.

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
    ("loader", "alias_bomb"): "#14 a list where a namespace belongs: TypeError unhashable type in api/validation.py",
    ("cluster", "wrong_type"): "#9 metadata null: AttributeError in cluster/precheck.py (schema)",
    ("cluster", "quantities"): "#15 a huge negative binary quantity: KeyError in k8s/quantity.py canonical (loaders)",
    ("result", "wrong_type"): "#16 a result's pod metadata/spec of the wrong type: AttributeError in results/state.py",
    ("result", "alias_bomb"): "#16 a result's pod metadata a list: AttributeError in results/state.py",
    ("scheduler-config", "strings"): "#8 lone surrogates in a scheduler config: UnicodeEncodeError (loaders)",
    ("scheduler-config", "key_types"): "#13 an int key in a profile: message with 'int' object (messages)",
}


def enabled(prop: str, families: Iterable[str]) -> list[str]:
    """The families of property `prop` to run: all but those awaiting a fix."""
    if os.environ.get("KUBESIM_HYPOTHESIS_ALL") == "1":
        return list(families)
    return [f for f in families if (prop, f) not in AWAITING_FIX]
