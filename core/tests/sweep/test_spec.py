"""The Sweep file's validation (every problem with its field path) and the paths into documents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kubesim.errors import InvalidInput
from kubesim.sweep import PathError, load_sweep, parse_metric, parse_sweep, set_path, uniform

SCENARIO = """\
apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: tiny}
spec:
  operations:
  - {id: done, step: 1, doneOperation: {}}
"""


def _sweep(spec: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"apiVersion": "kubesim.io/v1alpha1", "kind": "Sweep", "metadata": {"name": "s"}, "spec": spec, **top}


def _problems(data: Any, base: Path) -> list[str]:
    with pytest.raises(InvalidInput) as info:
        parse_sweep(data, file="sweep.yaml", base=base)
    return [str(p) for p in info.value.problems]


def test_a_valid_sweep_and_its_size(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "sweep.yaml").write_text("""\
apiVersion: kubesim.io/v1alpha1
kind: Sweep
metadata: {name: weights}
spec:
  scenarios: [s.yaml, {generator: uniform, parameters: {nodes: 2, pods: 3}}]
  configurations: [{name: default}]
  parameters:
  - {path: "profiles[0].plugins.score.enabled[name=NodeResourcesFit].weight", values: [1, 2, 3]}
  - {name: pct, path: percentageOfNodesToScore, values: [50, 100]}
  seeds: {start: 5, count: 2}
  metrics: [unscheduled, "pods.attempts:mean"]
""")
    sweep = load_sweep(tmp_path / "sweep.yaml")
    assert sweep.name == "weights"
    assert [s.name for s in sweep.scenarios] == ["s", "uniform"]
    assert [p.name for p in sweep.parameters] == ["weight", "pct"]
    assert sweep.seeds == (5, 6)
    assert sweep.cell_count == 2 * 1 * 3 * 2 * 2
    assert (sweep.rank_metric, sweep.rank_better) == ("unscheduled", "lower")


def test_every_problem_is_named_by_its_field_path(tmp_path: Path) -> None:
    problems = _problems(_sweep({
        "scenarios": [{"file": "missing.yaml"}, {"generator": "uniform", "file": "x.yaml"}],
        "configurations": [{"file": 3}],
        "parameters": [{"path": "profiles[0]..weight", "values": [1]},
                       {"path": "percentageOfNodesToScore", "values": []},
                       {"name": "seed", "path": "a", "values": [1, 1]}],
        "seeds": [0, -1],
        "metrics": ["unscheduled", "pods.nope:mean", "cluster.pending:median"],
        "rank": {"metric": "latency"},
        "colour": "blue",
    }, apiVersion="v1"), tmp_path)
    text = "\n".join(problems)
    for expected in (
        "sweep.yaml: apiVersion: expected kubesim.io/v1alpha1, got 'v1'",
        "sweep.yaml: spec.colour: unknown field",
        "sweep.yaml: spec.scenarios[0].file: scenario file",
        "sweep.yaml: spec.scenarios[1]: expected exactly one of file or generator",
        "sweep.yaml: spec.configurations[0].file: expected the path of a configuration file, got 3",
        "sweep.yaml: spec.parameters[0].path: cannot parse 'profiles[0]..weight'",
        "sweep.yaml: spec.parameters[1].values: expected a non-empty list of values",
        "sweep.yaml: spec.parameters[2].values: values repeat",
        "sweep.yaml: spec.parameters[2].name: 'seed' is a column of the results table",
        "sweep.yaml: spec.seeds[1]: expected an integer >= 0, got -1",
        "sweep.yaml: spec.metrics[1]: 'pods.nope:mean': table pods has no column 'nope'",
        "sweep.yaml: spec.metrics[2]: 'cluster.pending:median': expected an aggregation among",
        "sweep.yaml: spec.rank.metric: expected one of the metrics (unscheduled), got 'latency'",
    ):
        assert expected in text, f"{expected!r} not in:\n{text}"


def test_a_custom_metric_needs_a_direction_to_rank_by(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    problems = _problems(_sweep({"scenarios": ["s.yaml"], "metrics": ["cluster.pending:max"]}), tmp_path)
    assert problems == ["sweep.yaml: spec.rank.better: required for a metric kubesim does not know the direction "
                        "of; expected lower or higher, got None"]
    sweep = parse_sweep(_sweep({"scenarios": ["s.yaml"], "metrics": ["cluster.pending:max"],
                                "rank": {"better": "lower"}}), file="sweep.yaml", base=tmp_path)
    assert sweep.rank_metric == "cluster.pending:max"


def test_a_grid_too_large_is_refused(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    problems = _problems(_sweep({"scenarios": ["s.yaml"], "seeds": {"count": 10_000},
                                 "parameters": [{"path": "a", "values": list(range(11))}]}), tmp_path)
    assert problems == ["sweep.yaml: spec: the grid has 110000 cells; at most 100000 are allowed"]


def test_set_path_creates_what_is_missing_and_copies() -> None:
    config = {"profiles": [{"schedulerName": "default-scheduler",
                            "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "A"}}}]}]}
    out = set_path(config, "profiles[0].pluginConfig[name=NodeResourcesFit].args.scoringStrategy.type", "B")
    out = set_path(out, "profiles[0].plugins.score.enabled[name=ImageLocality].weight", 5)
    assert out["profiles"][0]["pluginConfig"][0]["args"]["scoringStrategy"]["type"] == "B"
    assert out["profiles"][0]["plugins"] == {"score": {"enabled": [{"name": "ImageLocality", "weight": 5}]}}
    assert config["profiles"][0]["pluginConfig"][0]["args"]["scoringStrategy"]["type"] == "A"  # not changed
    assert set_path(None, "profiles[0].schedulerName", "x") == {"profiles": [{"schedulerName": "x"}]}


@pytest.mark.parametrize(("doc", "path", "message"), [
    ({"a": 1}, "a.b", "a.b is not a field of a mapping (found int)"),
    ({"a": [1]}, "a[3]", "a[3]: the list has 1 elements"),
    ({"a": {}}, "a[0]", "a[0] selects from a list, found dict"),
    ({"a": [{"n": "x"}, {"n": "x"}]}, "a[n=x].w", "a[n=x] matches 2 elements"),
])
def test_set_path_errors_name_the_step(doc: dict[str, Any], path: str, message: str) -> None:
    with pytest.raises(PathError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")
                       .replace(")", r"\)")):
        set_path(doc, path, 1)


def test_metric_names() -> None:
    assert parse_metric("allocation").better == "higher"
    assert parse_metric("nodes.cpu_ratio:last").table == "nodes"
    with pytest.raises(ValueError, match="expected one of .*unscheduled.* or TABLE.COLUMN:AGG"):
        parse_metric("fast")


def test_uniform_generator_is_seeded_and_checks_parameters() -> None:
    params = {"nodes": 2, "pods": 20, "podCpu": ["100m", "1"], "steps": 2}
    a, b, c = uniform(params, 1), uniform(params, 1), uniform(params, 2)
    assert a == b and a != c
    ops = a["spec"]["operations"]
    assert [o["step"] for o in ops].count(0) == 2 and ops[-1] == {"id": "done", "step": 3, "doneOperation": {}}
    with pytest.raises(ValueError, match="nodes: expected an integer from 1 to"):
        uniform({"nodes": 0}, 0)
    with pytest.raises(ValueError, match="podCpu: expected a Kubernetes quantity"):
        uniform({"podCpu": ["1", "lots"]}, 0)
    with pytest.raises(ValueError, match="colour: unknown parameter"):
        uniform({"colour": 1}, 0)
