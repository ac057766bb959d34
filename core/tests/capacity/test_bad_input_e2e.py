"""End-to-end: bad `kubesim capacity` input exits 2 with a clear message and no traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from kubesim.testing import KubesimRun

from .cases import node, pod, write, write_list

RunKubesim = Callable[..., KubesimRun]


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    return write_list(tmp_path / "cluster.json", [node("n1")])


def _bad(run_kubesim: RunKubesim, *args: str) -> str:
    run = run_kubesim("capacity", "--cluster", "cluster.json", *args)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert run.stdout == ""
    return run.stderr


def test_missing_pod_file(run_kubesim: RunKubesim, cluster: Path) -> None:
    assert "error: missing.yaml: cannot read file: No such file or directory" in _bad(run_kubesim, "--pod", "missing.yaml")


def test_missing_cluster_file(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    write(tmp_path / "pod.json", pod("web"))
    run = run_kubesim("capacity", "--cluster", "nowhere.json", "--pod", "pod.json")
    assert run.returncode == 2
    assert "error: nowhere.json: cannot read file: No such file or directory" in run.stderr


def test_pod_without_containers(run_kubesim: RunKubesim, cluster: Path, tmp_path: Path) -> None:
    write(tmp_path / "pod.json", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {}})
    err = _bad(run_kubesim, "--pod", "pod.json")
    # the API server's own words for the create
    assert "error: pod.json: Pod \"web\" is invalid: spec.containers: Required value" in err


def test_pod_file_holding_a_node(run_kubesim: RunKubesim, cluster: Path, tmp_path: Path) -> None:
    write(tmp_path / "pod.json", node("n9"))
    err = _bad(run_kubesim, "--pod", "pod.json")
    assert "error: pod.json: kind: expected apiVersion v1 and kind Pod, got 'v1' 'Node'" in err


@pytest.mark.parametrize("value", ["0", "-1"])
def test_max_must_be_positive(run_kubesim: RunKubesim, cluster: Path, tmp_path: Path, value: str) -> None:
    write(tmp_path / "pod.json", pod("web"))
    err = _bad(run_kubesim, "--pod", "pod.json", "--max", value)
    assert f"Invalid value for '--max': {value} is not in the range x>=1." in err


def test_no_question(run_kubesim: RunKubesim, cluster: Path) -> None:
    assert "error: give a question" in _bad(run_kubesim)


def test_template_that_is_not_a_node(run_kubesim: RunKubesim, cluster: Path, tmp_path: Path) -> None:
    write(tmp_path / "node.json", pod("web"))
    err = _bad(run_kubesim, "--add-nodes", "node.json")
    assert "error: node.json: kind: expected apiVersion v1 and kind Node, got 'v1' 'Pod'" in err


def test_template_without_allocatable(run_kubesim: RunKubesim, cluster: Path, tmp_path: Path) -> None:
    write(tmp_path / "node.json", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "t"}})
    err = _bad(run_kubesim, "--add-nodes", "node.json")
    assert "error: node.json: status.allocatable: required: the template's cpu, memory and pods" in err


def test_count_zero_and_mixed_questions(run_kubesim: RunKubesim, cluster: Path, tmp_path: Path) -> None:
    write(tmp_path / "node.json", node("t"))
    write(tmp_path / "pod.json", pod("web"))
    err = _bad(run_kubesim, "--add-nodes", "node.json", "--pod", "pod.json", "--count", "0")
    assert "Invalid value for '--count': 0 is not in the range x>=1." in err
    err = _bad(run_kubesim, "--remove-nodes", "--pod", "pod.json")
    assert "error: --remove-nodes is a question of its own: drop --pod and --add-nodes" in err
    assert "error: --count goes with --add-nodes" in _bad(run_kubesim, "--pod", "pod.json", "--count", "2")


def test_cluster_file_without_objects(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    write(tmp_path / "pod.json", pod("web"))
    write(tmp_path / "cluster.json", {"apiVersion": "v1", "kind": "List", "items": [{"name": "n1"}]})
    err = _bad(run_kubesim, "--pod", "pod.json")
    assert "error: cluster.json: items[0].kind: required" in err  # as kubesim import --from says it
