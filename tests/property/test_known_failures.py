"""The families left out while awaiting a fix name real properties and families (no stale entries)."""

from __future__ import annotations

from hostile_values import FAMILIES, GENERIC_FAMILIES
from known_failures import AWAITING_FIX
from test_installed_command_properties import SUBPROCESS_FAMILIES
from test_loader_properties import DATA_FAMILIES, FILE_CONTENTS

PROPERTY_FAMILIES = {
    "scenario": set(FAMILIES),
    "scheduler-config": set(GENERIC_FAMILIES),
    "result": set(GENERIC_FAMILIES),
    "loader": set(FAMILIES) | set(FILE_CONTENTS),
    "cluster": set(DATA_FAMILIES),
    "installed": set(SUBPROCESS_FAMILIES),
}


def test_every_family_awaiting_a_fix_exists_and_cites_a_finding() -> None:
    for (prop, family), reason in AWAITING_FIX.items():
        assert family in PROPERTY_FAMILIES[prop], f"{prop}/{family}: no such property family"
        assert reason.startswith("#"), f"{prop}/{family}: cite the FINDINGS entry"
