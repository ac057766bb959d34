"""Properties of `kubesim report` and `kubesim compare` on result files that `kubesim run -o` wrote.

A produced result is reported (exit 0, the same page twice) and compared with itself and
with another run (exit 0); a mutated result file ends within the bound with 0/1/2 and a
clean message, for both commands.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from command_runs import check_clean, count, in_process
from documents import Document
from hostile_values import GENERIC_FAMILIES, mutated
from known_failures import enabled
from profiles import examples
from scenario_strategies import scenarios

# The result of a run is what these properties start from: run a valid scenario once.


def _produce(scenario: Document, work: Path, name: str, *extra: str) -> Path:
    out = work / f"{name}.json"
    ran = in_process("run", scenario.write(work, f"{name}-scenario"), "-q", "-o", out, *extra)
    assert ran.code == 0 and out.exists(), ran.describe()
    return out


@settings(max_examples=examples(8))
@given(st.builds(Document, scenarios(max_nodes=3, max_pods=4)))
def test_a_result_is_reported_and_compared(scenario: Document) -> None:
    count("produced result: report twice, compare")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        result = _produce(scenario, work, "a")
        pages = []
        for n in ("1", "2"):
            reported = in_process("report", result, "-o", work / f"report{n}.html", "--tables", work / f"tables{n}")
            check_clean(reported, allowed=(0,))
            pages.append((work / f"report{n}.html").read_bytes())
        assert pages[0] == pages[1], "the same result gave two different reports"
        other = _produce(scenario, work, "b", "--seed", "7")
        compared = in_process("compare", result, other)
        check_clean(compared, allowed=(0,))
        assert compared.stdout == in_process("compare", result, other).stdout


@st.composite
def _results(draw: st.DrawFn) -> Document:
    """A result file, as data: the scenario's run, read back (one run per distinct scenario)."""
    scenario = draw(st.builds(Document, scenarios(max_nodes=2, max_pods=3)))
    with tempfile.TemporaryDirectory() as tmp:
        data = json.loads(_produce(scenario, Path(tmp), "r").read_text(encoding="utf-8"))
    return Document(data, fmt="json")


@pytest.mark.parametrize("family", enabled("result", GENERIC_FAMILIES))
@settings(max_examples=examples(10))
@given(data=st.data())
def test_a_mutated_result_ends_cleanly(family: str, data: st.DataObject) -> None:
    doc = data.draw(mutated(_results(), family), label="result")
    count(f"mutated result: {family}")
    note(doc.note)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = doc.write(work, "result")
        check_clean(in_process("report", path, "-o", work / "report.html"))
        check_clean(in_process("compare", path, path))
