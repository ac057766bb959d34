"""The report's pod drill-down data: bounded per attempt, names stored once, safe inside <script>."""

from __future__ import annotations

import json
from types import SimpleNamespace

from kubesim.api import Scenario
from kubesim.results.report_explain import HTML_MAX_REJECTED, HTML_TOP_SCORES, explain_data, explain_section


def _result(build: SimpleNamespace) -> Scenario:
    b = build
    nodes = [f"n{i:02d}" for i in range(60)]
    pod = b.pod("p", "1", "1Gi")
    bound = json.loads(json.dumps(pod))
    bound["spec"]["nodeName"] = "n59"
    message = "extender says </script><script>alert(1)</script>"
    failed = {"step": b.step(1, 1), "allCandidateNodes": nodes, "allFilteredNodes": [],
              "pluginResults": {"filter": {n: {"http://ext/filter": message} for n in nodes}}, "message": message}
    score = {n: {"NodeResourcesFit": {"rawScore": i, "normalizedScore": i, "finalScore": i}}
             for i, n in enumerate(nodes[:8])}
    score["n59"] = {"NodeResourcesFit": {"rawScore": 0, "normalizedScore": 0, "finalScore": 0}}  # chosen, last
    scored = {"step": b.step(1, 2), "pluginResults": {"score": score}, "candidateNodeCount": 60,
              "filteredNodeCount": 9, "filterReasonCounts": {"x": 51}}
    result: Scenario = b.result({"1": [
        b.create("p", b.step(1), pod),
        {"id": "e1", "step": b.step(1, 1), "actor": "scheduler", "podUnscheduled": {
            "pod": pod, "createdAt": b.step(1), "scheduleResult": [failed]}},
        {"id": "e2", "step": b.step(1, 2), "actor": "scheduler", "podScheduled": {
            "pod": bound, "createdAt": b.step(1), "boundTo": "n59", "boundAt": b.step(1, 2),
            "scheduleResult": [failed, scored]}},
    ]})
    return result


def test_drilldown_data_is_bounded_and_interned(build: SimpleNamespace) -> None:
    data = explain_data(_result(build))
    [instance] = data["pods"]["default/p"]
    failed, scored = instance["a"]
    assert (len(failed["x"]), failed["xn"]) == (HTML_MAX_REJECTED, 60)
    assert data["plugins"][failed["x"][0][1]] == "http://ext/filter" and data["extenders"][failed["x"][0][1]]
    assert len({row[2] for row in failed["x"]}) == 1  # the message is stored once
    # the best scores and the chosen node (scored last)
    names = [data["nodes"][s[0]] for s in scored["sc"]]
    assert names == ["n07", "n06", "n05", "n04", "n03", "n59"][: HTML_TOP_SCORES] + ["n59"]
    assert scored["sn"] == 9 and data["scoreRows"][scored["sc"][0][2]] == [[data["plugins"].index("NodeResourcesFit"), 7, 7, 7]]


def test_drilldown_section_cannot_end_its_script_early(build: SimpleNamespace) -> None:
    section = explain_section(_result(build), "s0")
    payload = section.split('id="s0-explain-data">')[1].split("</script>")[0]
    assert "<\\/script>" in payload and "alert(1)" in payload  # escaped, and kept whole
    assert json.loads(payload)["pods"]["default/p"][0]["st"] == "bound"
    assert explain_section(_result(build), "s0") == section  # deterministic
