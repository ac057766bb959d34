"""The fast simSpec block reader gives exactly what YAML gives, and declines everything else."""

from __future__ import annotations

import random

import pytest
from kubesim.duplicate_keys import load_yaml
from kubesim.simtime.simspec import parse_sim_spec
from kubesim.simtime.simspec_block import read_block_phases

FORK = ("\n- seconds: 0\n  resourceUsage:\n    cpu: 5\n    memory: 1000000000\n"
        "\n- seconds: 120\n  resourceUsage:\n    cpu: 5\n    memory: 100\n")


def test_the_forks_format_reads_as_yaml_does() -> None:
    assert read_block_phases(FORK) == load_yaml(FORK)
    assert read_block_phases(FORK) == [{"seconds": 0, "resourceUsage": {"cpu": 5, "memory": 1000000000}},
                                       {"seconds": 120, "resourceUsage": {"cpu": 5, "memory": 100}}]


def test_random_block_specs_read_as_yaml_does() -> None:
    rng = random.Random(7)
    values = ["0", "5", "500m", "2Gi", "1.5Gi", "10M", "3k", "123456789012", "7Ei", "1n"]
    names = ["cpu", "memory", "nvidia.com/gpu", "ephemeral-storage", "example.com/foo_bar"]
    for _ in range(200):
        text = ""
        for _ in range(rng.randint(1, 6)):
            text += f"- seconds: {rng.choice(['0', '1', '60', '86400'])}\n"
            if rng.random() < 0.9:
                text += "  resourceUsage:\n"
                for name in rng.sample(names, rng.randint(1, len(names))):
                    text += f"    {name}: {rng.choice(values)}\n"
        assert read_block_phases(text) == load_yaml(text), text


@pytest.mark.parametrize("text", [
    "- seconds: 010\n",  # octal in YAML 1.1
    "- seconds: 1.5\n",
    "- seconds: 5\n  resourceUsage:\n    cpu: 0.5\n",  # a float in YAML
    "- seconds: 5\n  resourceUsage:\n    cpu: 1\n    cpu: 2\n",  # repeated key: YAML's error message
    "- seconds: 5\n  resourceUsage:\n    y: 1\n",  # a boolean key in YAML 1.1
    "- seconds: 5\n  resourceUsage:\n    cpu: 1 # comment\n",
    "- seconds: 5\n  resourceUsage: {cpu: 1}\n",
    "- resourceUsage:\n    cpu: 1\n  seconds: 5\n",
    "- seconds: 5\n  resourceUsage:\n",
    "seconds: 5\n",
    "",
])
def test_anything_else_goes_to_yaml(text: str) -> None:
    assert read_block_phases(text) is None


def test_parse_sim_spec_uses_it() -> None:
    spec = parse_sim_spec(FORK)
    assert [p.duration.total_seconds() for p in spec.phases] == [0, 120]
    assert spec.phases[0].usage == {"cpu": "5", "memory": "1000000000"}
