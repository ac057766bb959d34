"""Properties of `kubesim validate` and `kubesim run` on generated scenarios, valid and mutated.

For every input: the command ends within a bound, exits 0/1/2, prints no traceback and no
Python internals, and the same input run twice gives the same bytes. A valid scenario
validates and runs with exit 0; `validate` and `run` agree on what is invalid input.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from command_runs import Outcome, check_clean, count, in_process
from documents import Document
from hostile_values import FAMILIES, mutated
from known_failures import enabled
from profiles import examples
from scenario_strategies import scenarios

valid_scenarios = st.builds(Document, scenarios(), fmt=st.sampled_from(("yaml", "json")))


def _run_twice(path: Path, work: Path, *extra: str) -> Outcome:
    """`run` twice into two files; same exit code, same stderr, byte-identical outputs."""
    outcomes = []
    for name in ("a", "b"):
        outcomes.append(in_process("run", path, "-q", "-o", work / f"{name}.json",
                                   "--export-cluster", work / f"{name}.yaml", *extra))
    first, second = outcomes
    check_clean(first)
    assert (second.code, second.stderr) == (first.code, first.stderr), \
        f"the same input gave different results:\n{first.describe()}\n---\n{second.describe()}"
    for suffix in ("json", "yaml"):
        a, b = work / f"a.{suffix}", work / f"b.{suffix}"
        assert a.exists() == b.exists(), f"only one run wrote its .{suffix} output:\n{first.describe()}"
        if a.exists():
            assert a.read_bytes() == b.read_bytes(), f"the same input gave different {suffix} files"
    return first


@settings(max_examples=examples(40))
@given(valid_scenarios)
def test_a_valid_scenario_validates_and_runs_the_same_twice(doc: Document) -> None:
    count("valid scenario: validate, run twice")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = doc.write(work)
        note(path.read_text(encoding="utf-8"))
        validated = in_process("validate", path)
        check_clean(validated, allowed=(0,))
        ran = _run_twice(path, work)
        assert ran.code == 0, ran.describe()
        assert (work / "a.json").exists(), ran.describe()


@pytest.mark.parametrize("family", enabled("scenario", FAMILIES))
@settings(max_examples=examples(25))
@given(data=st.data())
def test_a_mutated_scenario_ends_cleanly_and_the_same_twice(family: str, data: st.DataObject) -> None:
    doc = data.draw(mutated(valid_scenarios, family), label="document")
    count(f"mutated scenario: {family}")
    note(doc.note)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = doc.write(work)
        validated = in_process("validate", path)
        check_clean(validated, allowed=(0, 2))
        ran = _run_twice(path, work)
        if validated.code == 0:
            assert ran.code != 2, f"validate passed, run refused the input:\n{ran.describe()}"
        else:
            assert ran.code == 2, f"validate refused the input, run did not:\n{validated.describe()}\n{ran.describe()}"
