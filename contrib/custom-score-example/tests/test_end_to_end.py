"""The installed `kubesim run` with the example scenario, with and without the plugin's config.

Placements and scores are the ones worked out in README.md ("What changes in the
example"). Only the scheduler and this package are enabled, so other installed plugins
cannot change the outcome.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubesim.testing.pytest_plugin import RunKubesim

EXAMPLES = Path(__file__).parents[1] / "examples"
KEEP = ("scheduler", "custom-score-example")


def run(run_kubesim: RunKubesim, config: Path | None) -> dict[str, Any]:
    args = ["run", str(EXAMPLES / "scenario.yaml"), "-o", "result.json", "-q"]
    if config is not None:
        args += ["--scheduler-config", str(config)]
    proc = run_kubesim(*args, plugins=KEEP)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = proc.result
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    return result


def placements(result: dict[str, Any]) -> dict[str, str]:
    timeline = result["status"]["scenarioResult"]["timeline"]
    return {
        e["podScheduled"]["pod"]["metadata"]["name"]: e["podScheduled"]["boundTo"]
        for step in timeline.values() for e in step if "podScheduled" in e
    }


def scores(result: dict[str, Any], pod: str) -> dict[str, dict[str, Any]]:
    for step in result["status"]["scenarioResult"]["timeline"].values():
        for e in step:
            if "podScheduled" in e and e["podScheduled"]["pod"]["metadata"]["name"] == pod:
                return e["podScheduled"]["scheduleResult"][0]["pluginResults"]["score"]  # type: ignore[no-any-return]
    raise AssertionError(f"{pod} was not scheduled")


def test_the_plugin_is_installed(run_kubesim: RunKubesim) -> None:
    proc = run_kubesim("plugins", "--json", plugins=KEEP)
    assert proc.returncode == 0, proc.stderr
    [info] = [p for p in json.loads(proc.stdout) if p["name"] == "custom-score-example"]
    assert info["distribution"] == "kubesim-custom-score-example"
    assert info["hooks"] == ["kubesim_scheduler_plugins"]


def test_default_profile_packs_the_biggest_node(run_kubesim: RunKubesim) -> None:
    result = run(run_kubesim, None)
    assert placements(result) == {f"web-{i}": "node-a" for i in range(1, 6)}
    fit = {n: s["NodeResourcesFit"]["finalScore"] for n, s in scores(result, "web-1").items()}
    assert fit == {"node-a": 96, "node-b": 75, "node-c": 75, "node-d": 75}
    assert "NodeCost" not in scores(result, "web-1")["node-a"]


@pytest.mark.parametrize("plugin", ["NodeCost", "NodeCostBatch"])
def test_node_cost_prefers_the_cheapest_node_until_it_is_full(run_kubesim: RunKubesim, tmp_path: Path,
                                                              plugin: str) -> None:
    config = yaml.safe_load((EXAMPLES / "scheduler-config.yaml").read_text(encoding="utf-8"))
    profile = config["profiles"][0]
    profile["plugins"]["multiPoint"]["enabled"][0]["name"] = plugin
    profile["pluginConfig"][0]["name"] = plugin
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    result = run(run_kubesim, path)
    assert placements(result) == {
        "web-1": "node-b", "web-2": "node-b", "web-3": "node-b", "web-4": "node-b", "web-5": "node-c",
    }
    first = scores(result, "web-1")
    assert {n: s[plugin] for n, s in first.items()} == {
        "node-a": {"rawScore": 30, "normalizedScore": 40, "finalScore": 200},
        "node-b": {"rawScore": 10, "normalizedScore": 80, "finalScore": 400},
        "node-c": {"rawScore": 20, "normalizedScore": 60, "finalScore": 300},
        "node-d": {"rawScore": 50, "normalizedScore": 0, "finalScore": 0},
    }
    totals = {n: sum(p["finalScore"] for p in s.values()) for n, s in first.items()}
    assert totals == {"node-a": 696, "node-b": 875, "node-c": 775, "node-d": 475}
    last = scores(result, "web-5")
    assert sorted(last) == ["node-a", "node-c", "node-d"]  # node-b is full


def test_bad_args_fail_the_run_naming_the_field(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    config = yaml.safe_load((EXAMPLES / "scheduler-config.yaml").read_text(encoding="utf-8"))
    config["profiles"][0]["pluginConfig"][0]["args"]["defaultCost"] = -5
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    proc = run_kubesim("run", str(EXAMPLES / "scenario.yaml"), "-o", "result.json", "--scheduler-config",
                       str(path), plugins=KEEP)
    assert proc.returncode == 1
    assert proc.phase == "Failed"
    assert "initializing plugin 'NodeCost': defaultCost: Invalid value: -5" in (proc.message or "")
