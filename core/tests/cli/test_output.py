"""Result files: the JSON layout (members indented, list items one per line) and its round trip."""

from __future__ import annotations

import json
import random
from typing import Any

from kubesim.cli.output import dump, dump_json


def _value(rng: random.Random, depth: int) -> Any:
    if depth > 4 or rng.random() < 0.3:
        return rng.choice([0, -7, 2.5, 10**20, "é\"\\\n\t", "", None, True, False, [], {}])
    if rng.random() < 0.5:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}ü": _value(rng, depth + 1) for i in range(rng.randrange(4))}


def test_round_trip_of_random_trees() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        value = _value(rng, 0)
        assert json.loads(dump_json(value)) == value


def test_layout() -> None:
    data = {"a": 1, "b": {"c": [1, {"d": "é"}], "e": {}}, "f": []}
    assert dump(data, "r.json") == (
        '{\n  "a": 1,\n  "b": {\n    "c": [\n      1,\n      {"d": "é"}\n    ],\n'
        '    "e": {}\n  },\n  "f": []\n}\n'
    )


def test_yaml_output_reads_back() -> None:
    data = {"kind": "List", "items": [{"metadata": {"name": "a", "labels": {"x": "1"}}}], "n": None}
    import yaml

    assert yaml.safe_load(dump(data, "state.yaml")) == data


def test_streamed_json_is_the_same_text(monkeypatch: Any) -> None:
    import io

    from kubesim.cli import output

    monkeypatch.setattr(output, "_FLUSH_PARTS", 3)  # a flush inside nearly every list
    rng = random.Random(9)
    for _ in range(500):
        value = _value(rng, 0)
        fh = io.StringIO()
        output.write_json(value, fh)
        assert fh.getvalue() == dump_json(value)


def test_write_data_writes_what_dump_serializes(tmp_path: Any) -> None:
    from kubesim.cli.output import write_data

    data = {"a": [1, {"b": "é"}], "c": {"d": None}, "e": []}
    for name in ("r.json", "r.yaml"):
        write_data(tmp_path / name, data)
        assert (tmp_path / name).read_text(encoding="utf-8") == dump(data, name)


def test_yaml_writes_shared_values_in_full(tmp_path: Any) -> None:
    from kubesim.cli.output import write_data

    shared = {"metadata": {"name": "p"}}
    data = {"spec": {"object": shared}, "timeline": [{"create": {"operation": {"object": shared}}}]}
    text = dump(data, "r.yaml")
    assert "&" not in text and "*" not in text  # no anchors or aliases: kubesim's loader refuses them
    write_data(tmp_path / "r.yaml", data)
    assert (tmp_path / "r.yaml").read_text(encoding="utf-8") == text
