"""The same properties through the installed `kubesim` command (a subprocess), for a smaller sample.

The in-process runs cannot see what only a process shows: the exit status the shell gets
(a crash of the interpreter, a segfault in a C extension), and what reaches the real stderr.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from command_runs import check_clean, count, installed
from documents import Document, placeholder
from hostile_values import FAMILIES, mutated
from known_failures import enabled
from profiles import examples
from scenario_strategies import scenarios

# What only a subprocess can take: nesting far past Python's recursion limit (issue 11: a
# segfault in validate at 50,000).
DEEP_NESTING = 50_000


@st.composite
def _deeply_nested(draw: st.DrawFn) -> Document:
    doc = draw(st.builds(Document, scenarios(max_nodes=1, max_pods=1), fmt=st.sampled_from(("yaml", "json"))))
    ops = doc.data["spec"]["operations"]
    creates = [i for i, op in enumerate(ops) if "createOperation" in op]
    index = draw(st.sampled_from(creates))
    ops[index]["createOperation"]["object"]["metadata"]["annotations"] = placeholder(0)
    fragment = "[" * DEEP_NESTING + "]" * DEEP_NESTING
    return doc.with_change(doc.data, f"nesting {DEEP_NESTING} deep in operation {index}", raw=(fragment,))


SUBPROCESS_FAMILIES = (*FAMILIES, "deep_nesting")


def _documents(family: str) -> st.SearchStrategy[Document]:
    if family == "deep_nesting":
        return _deeply_nested()
    return mutated(st.builds(Document, scenarios(max_nodes=2, max_pods=3)), family, rounds=1)


@pytest.mark.parametrize("family", enabled("installed", SUBPROCESS_FAMILIES))
@settings(max_examples=examples(2))
@given(data=st.data())
def test_the_installed_command_ends_cleanly(family: str, data: st.DataObject) -> None:
    doc = data.draw(_documents(family), label="document")
    count(f"installed command: {family}")
    note(doc.note)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = doc.write(work)
        validated = installed("validate", path.name, cwd=work)
        check_clean(validated, allowed=(0, 2))
        ran = installed("run", path.name, "-q", "-o", "result.json", cwd=work)
        check_clean(ran)
        assert (ran.code == 2) == (validated.code == 2), f"validate and run disagree:\n{validated.describe()}\n{ran.describe()}"
