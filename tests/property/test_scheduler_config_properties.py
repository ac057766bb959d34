"""Properties of `kubesim run --scheduler-config` on generated configurations, valid and mutated.

A valid KubeSchedulerConfiguration runs a valid scenario with exit 0, the same bytes twice;
a mutated one ends within the bound with 0/1/2 and a clean message, and the configuration
loader raises nothing but kubesim's InvalidInput.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from kubesim.errors import InvalidInput
from kubesim_scheduler.config.loader import load_config

from command_runs import check_clean, count, in_process
from documents import Document
from hostile_values import GENERIC_FAMILIES, mutated
from known_failures import enabled
from profiles import examples
from scenario_strategies import scenarios
from scheduler_config_strategies import scheduler_configs

valid_configs = st.builds(Document, scheduler_configs(), fmt=st.sampled_from(("yaml", "json")))
small_scenarios = st.builds(Document, scenarios(max_nodes=3, max_pods=3))


def _run_with(config: Document, scenario: Document, work: Path) -> tuple[int, int]:
    """Run `scenario` with `config` twice; (exit code, loader verdict) after checking both runs agree."""
    config_path = config.write(work, "config")
    scenario_path = scenario.write(work, "scenario")
    runs = [in_process("run", scenario_path, "-q", "--scheduler-config", config_path, "-o", work / f"{n}.json")
            for n in ("a", "b")]
    check_clean(runs[0])
    assert (runs[1].code, runs[1].stderr) == (runs[0].code, runs[0].stderr), \
        f"the same input gave different results:\n{runs[0].describe()}\n---\n{runs[1].describe()}"
    if (work / "a.json").exists():
        assert (work / "a.json").read_bytes() == (work / "b.json").read_bytes(), "different result files"
    try:
        load_config(config_path)
        loaded = 0
    except InvalidInput:
        loaded = 2
    return runs[0].code, loaded


@settings(max_examples=examples(30))
@given(valid_configs, small_scenarios)
def test_a_valid_config_runs_a_valid_scenario(config: Document, scenario: Document) -> None:
    count("valid scheduler config: run twice")
    with tempfile.TemporaryDirectory() as tmp:
        code, loaded = _run_with(config, scenario, Path(tmp))
        assert (code, loaded) == (0, 0), f"a valid configuration was refused:\n{config.text()}"


@pytest.mark.parametrize("family", enabled("scheduler-config", GENERIC_FAMILIES))
@settings(max_examples=examples(20))
@given(data=st.data())
def test_a_mutated_config_ends_cleanly(family: str, data: st.DataObject) -> None:
    config = data.draw(mutated(valid_configs, family), label="config")
    scenario = data.draw(small_scenarios, label="scenario")
    count(f"mutated scheduler config: {family}")
    note(config.note)
    with tempfile.TemporaryDirectory() as tmp:
        code, loaded = _run_with(config, scenario, Path(tmp))
        if loaded == 2:
            assert code == 2, "the loader refused the configuration, `run` did not exit 2"
