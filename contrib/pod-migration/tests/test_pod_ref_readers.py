"""A replay whose job waits for a node writes compact podUnscheduled events (`podRef`); the
installed `kubesim report`, `explain` and `compare` read such a result and the same result in
the full form (every event with its pod, as kubesim wrote before) alike."""

from __future__ import annotations

import json
from pathlib import Path

from kubesim.api.pod_ref import resolve_pod_refs
from kubesim.testing.pytest_plugin import RunKubesim

DATA = Path(__file__).parent / "data"
KEEP = ("scheduler", "kubelet", "pod-migration")


def test_report_explain_and_compare_read_both_forms(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # jobs.csv plus d (10 cpu): it waits on zone1 (12 cpu) until a has moved away and b has ended
    trace = (DATA / "jobs.csv").read_text(encoding="utf-8") + "d,0,120,10,,0:1G\n"
    (tmp_path / "jobs.csv").write_text(trace, encoding="utf-8")
    proc = run_kubesim("run", "--kcs-config", DATA / "config.yaml", "--job-trace", "jobs.csv", "--migrate",
                       "--migration-policy", "max", "-o", "new.json", "-q", plugins=KEEP, timeout=120)
    assert proc.returncode == 0, proc.stderr
    new = json.loads((tmp_path / "new.json").read_text(encoding="utf-8"))
    waits = [e["podUnscheduled"] for evs in new["status"]["scenarioResult"]["timeline"].values() for e in evs
             if "podUnscheduled" in e]
    assert len(waits) > 4
    assert waits[0]["pod"]["metadata"]["name"] == "d"
    refs = [w["podRef"] for w in waits if "podRef" in w]
    assert refs and all("pod" not in w for w in waits if "podRef" in w)
    assert refs[0]["name"] == "d" and refs[0]["uid"] == waits[0]["pod"]["metadata"]["uid"]
    full = json.loads((tmp_path / "new.json").read_text(encoding="utf-8"))
    assert resolve_pod_refs(full) == []
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "r.json").write_text(json.dumps(full, indent=2), encoding="utf-8")
    assert (tmp_path / "old" / "r.json").stat().st_size > (tmp_path / "new.json").stat().st_size
    (tmp_path / "new").mkdir()
    (tmp_path / "new.json").rename(tmp_path / "new" / "r.json")

    outputs = {}
    for form in ("old", "new"):
        result = tmp_path / form / "r.json"
        report = run_kubesim("report", result, "-o", tmp_path / form / "report.html", "--title", "r",
                             "--tables", tmp_path / form / "tables", "--format", "json", plugins=KEEP, timeout=120)
        assert report.returncode == 0, report.stderr
        explain = run_kubesim("explain", result, "d", "--json", plugins=KEEP, timeout=60)
        assert explain.returncode == 0, explain.stderr
        tables = {p.name: p.read_bytes() for p in sorted((tmp_path / form / "tables").iterdir())}
        outputs[form] = ((tmp_path / form / "report.html").read_bytes(), explain.stdout, tables)
    assert outputs["new"] == outputs["old"]
    assert "migrations.json" in outputs["new"][2]
    assert len(json.loads(outputs["new"][1])["attempts"]) == len(waits) + 1  # every wait and the bind

    compare = run_kubesim("compare", tmp_path / "old" / "r.json", tmp_path / "new" / "r.json", "--json",
                          "--fail-if-worse", "pending", "--fail-if-worse", "attempts", plugins=KEEP, timeout=120)
    assert compare.returncode == 0, compare.stderr + compare.stdout
    compared = json.loads(compare.stdout)
    assert compared["placementsDiffer"] == 0 and compared["pods"] == []
    assert compared["steps"] and all(row["pending_a"] == row["pending_b"] for row in compared["steps"])
