"""The content hash of a Scenario's spec: what tells results of the same scenario apart from others.

`kubesim run` stores it in status.scenarioResult.scenarioHash; `kubesim compare` refuses
two results whose hashes differ. It covers the spec only (operations and controllers),
not the scenario's name nor run options (--seed, --scheduler-config), which are what a
comparison varies.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["HASH_PREFIX", "spec_hash"]

HASH_PREFIX = "sha256:"


def spec_hash(spec: Any) -> str:
    """`sha256:<hex>` of the spec's JSON form (keys sorted, no spaces): equal for equal content,
    whatever the key order or formatting of the file it came from."""
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return HASH_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()
