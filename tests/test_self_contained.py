"""A fresh clone is complete: no test module reads files outside the repository.

A cheap guard over the source of every test module and test helper: no `../shared` (the
steering directory the conformance data once came from), no KUBESIM_SHARED, no absolute
machine paths or home directory, and every `Path(__file__).parents[N]` / `.parent` chain
stays inside the clone.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# directories holding only tests, and the packages whose tests/ folders hold theirs
TEST_ROOTS = ("tests", "core/tests", "benchmarks/tests")
PACKAGE_ROOTS = ("plugins", "contrib", "examples", "docs")
FORBIDDEN = re.compile(r"\.\./shared|/ *[\"']shared[\"']|KUBESIM_SHARED|[\"']/work/|[\"']/home/|[\"']~/|expanduser\(|Path\.home\(\)")
CLIMB = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?(?:\.parents\[(\d+)\]|((?:\.parent\b)+))")


def modules() -> list[Path]:
    """Every Python file of a test directory."""
    found = {p for top in TEST_ROOTS for p in (ROOT / top).rglob("*.py")}
    found |= {p for top in PACKAGE_ROOTS for p in (ROOT / top).rglob("*.py") if "tests" in p.relative_to(ROOT).parts}
    return sorted(p for p in found if not {".venv", ".tox"} & set(p.relative_to(ROOT).parts))


def outside_references(path: Path, text: str) -> list[str]:
    """What `text`, the source of the module at `path` in the repository, reads outside it."""
    bad = [m.group(0) for m in FORBIDDEN.finditer(text)]
    for m in CLIMB.finditer(text):
        up = int(m.group(1)) + 1 if m.group(1) else m.group(2).count(".parent")
        target = path
        for _ in range(up):
            target = target.parent
        if target != ROOT and ROOT not in target.parents:
            bad.append(m.group(0))
    return bad


def test_no_test_module_reads_outside_the_repository() -> None:
    this = Path(__file__).resolve()  # this guard spells out the patterns it forbids
    offenders = {p.relative_to(ROOT).as_posix(): bad for p in modules() if p != this
                 for bad in [outside_references(p, p.read_text(encoding="utf-8"))] if bad}
    assert not offenders


def test_the_guard_covers_the_conformance_tests() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in modules()}
    assert {"plugins/scheduler/tests/test_conformance.py", "plugins/scheduler/tests/conformance_data.py",
            "core/tests/docs/test_docs.py", "benchmarks/tests/test_benchmark_scripts.py"} <= names
    data = ROOT / "plugins" / "scheduler" / "tests" / "data" / "conformance"
    assert {p.name for p in data.iterdir()} >= {"README.md", "cases.json", "expected.json"}


def test_the_guard_catches_what_the_old_conformance_tests_did() -> None:
    where = ROOT / "plugins" / "scheduler" / "tests" / "test_conformance.py"
    old = ('env = os.environ.get("KUBESIM_SHARED")\n'
           'DATA = Path(__file__).resolve().parents[4] / "shared"\n'
           'UP = Path(__file__).parent.parent.parent.parent.parent\n'
           'REL = Path("../shared/conformance")\n'
           'WALK = [base / "shared" / "conformance" for base in Path(__file__).parents]\n'
           'OK = Path(__file__).resolve().parents[3] / "docs"\n')
    assert outside_references(where, old) == [
        "KUBESIM_SHARED", '/ "shared"', "../shared", '/ "shared"',
        "Path(__file__).resolve().parents[4]", "Path(__file__).parent.parent.parent.parent.parent"]
