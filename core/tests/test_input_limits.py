"""kubesim.input_limits: file size and type, UTF-8, nesting depth, numbers and YAML aliases."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
import yaml
from kubesim.api import loader
from kubesim.duplicate_keys import load_json, load_yaml
from kubesim.input_limits import (
    MAX_DEPTH,
    FastSafeLoader,
    InputLimitError,
    SafeLoader,
    _yaml_depth_bound,
    check_yaml_node,
    check_yaml_text,
    json_loads,
    read_text,
)

# the classic "billion laughs": 9 levels of 9 aliases, 9**9 strings once expanded
BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")
)


def _depth(value: object) -> int:
    """Nested maps and lists, the document itself being level 1 (as the limits count)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


# --- files --------------------------------------------------------------------------


def test_read_text_reads_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "f.yaml").write_text("a: é\n", encoding="utf-8")
    assert read_text(tmp_path / "f.yaml") == "a: é\n"


@pytest.mark.parametrize(("path", "message"), [
    ("/dev/urandom", "not a regular file (a character device)"),
    ("/dev/zero", "not a regular file (a character device)"),
    ("/dev/null", "not a regular file (a character device)"),
])
def test_devices_are_refused_before_reading(path: str, message: str) -> None:
    with pytest.raises(InputLimitError) as info:
        read_text(path)
    assert str(info.value) == message


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputLimitError, match="^is a directory$"):
        read_text(tmp_path)


def test_a_pipe_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write("kind: Scenario\n")

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read_text(fifo) == "kind: Scenario\n"
    finally:
        writer.join()


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:
        fh.truncate(64 * 1024 * 1024 + 1)  # sparse: nothing is written or read
    with pytest.raises(InputLimitError, match="^larger than 64 MiB, the most kubesim reads$"):
        read_text(big)
    with pytest.raises(InputLimitError, match="^larger than 10 bytes, the most kubesim reads$"):
        read_text(big, max_bytes=10)


def test_a_pipe_over_the_limit_is_refused_after_the_limit(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as fh:
            try:
                fh.write(b"x" * 100)
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with pytest.raises(InputLimitError, match="^larger than 10 bytes"):
            read_text(fifo, max_bytes=10)
    finally:
        writer.join()


@pytest.mark.parametrize(("data", "message"), [
    (b"a: \xff\n", "not valid UTF-8 at byte 3"),
    (b"a: b\n\xc3", "not valid UTF-8 at byte 5"),
    (b"a: b\x00c\n", "NUL byte at byte 4: a binary file, not YAML or JSON"),
    (b"\x00\xff", "NUL byte at byte 0: a binary file, not YAML or JSON"),
    (b"\x7fELF\x02\x01\x01\x00\x00", "NUL byte at byte 7: a binary file, not YAML or JSON"),
])
def test_binary_content_is_refused_with_its_offset(tmp_path: Path, data: bytes, message: str) -> None:
    (tmp_path / "f.yaml").write_bytes(data)
    with pytest.raises(InputLimitError) as info:
        read_text(tmp_path / "f.yaml")
    assert str(info.value) == message


# --- JSON ---------------------------------------------------------------------------


def test_json_at_the_limit_loads_and_one_deeper_is_refused_where_it_opens() -> None:
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert _depth(json_loads(ok, dict)) == MAX_DEPTH
    with pytest.raises(InputLimitError) as info:
        json_loads('{"a":\n ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}", dict)
    assert str(info.value) == f"line 2 column {MAX_DEPTH + 1}: JSON nested deeper than 100 levels, the most kubesim reads"


@pytest.mark.parametrize("depth", [101, 400, 600, 3_000, 50_000, 1_000_000])
def test_deep_json_is_refused_quickly(depth: int) -> None:
    start = time.perf_counter()
    with pytest.raises(InputLimitError, match="^line 1 column 101: JSON nested deeper than 100 levels"):
        load_json("[" * depth + "]" * depth)
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("text", [
    '{"a": "[[[[[[", "b": "]]]]]]]]]"}',
    '["\\\\", "]]]", "\\"[[["]',
    # brackets in strings cannot hide levels: 90 real, a string of closers, 20 more real
    "[" * 90 + '"' + "]" * 30 + '", ' + "[" * 20 + "]" * 20 + "]" * 90,
    json.dumps([{"k": "[" * 200, "v": ["}" * 300, {"x": [[1]]}]}] * 50),
])
def test_json_depth_counts_brackets_outside_strings_only(text: str) -> None:
    depth = _depth(json.loads(text))
    if depth <= MAX_DEPTH:
        assert json_loads(text, dict) == json.loads(text)
    else:
        with pytest.raises(InputLimitError, match="JSON nested deeper than 100 levels"):
            json_loads(text, dict)


@pytest.mark.parametrize(("text", "message"), [
    ('{"cpu": NaN}', "line 1 column 9: NaN is not a JSON value"),
    ('{"a": "NaN",\n "cpu": -Infinity}', "line 2 column 9: -Infinity is not a JSON value"),
    ('{"cpu": 1e999999}', "line 1 column 9: the number 1e999999 is out of the range of a 64-bit float"),
    ('{"n": "1", "cpu": ' + "9" * 5000 + "}",
     "line 1 column 19: an integer of 5000 digits, more than the 4300 kubesim reads"),
])
def test_json_numbers_python_would_mangle_are_refused(text: str, message: str) -> None:
    with pytest.raises(InputLimitError) as info:
        load_json(text)
    assert str(info.value) == message


def test_large_but_finite_json_numbers_load_as_they_are() -> None:
    assert load_json(f'{{"a": {2**70}, "b": 1e308, "c": {"9" * 4300}}}') == {"a": 2**70, "b": 1e308, "c": int("9" * 4300)}


# --- YAML ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "a: 1\n",
    "- - - - x\n",
    "a:\n- b:\n  - c:\n    - d: [[{e: [f]}]]\n",
    "? a\n: [b, [c, {d: e}]]\n",
    "a: {b: [], c: {}, d: [[], {}], e: '[[[['}\n",
    "a: x[0]]]]\nb: [[[1]]]\n",
    "--- [a]\n--- {a: [1]}\n",
    "a: |\n  [[[[\n  ]]]]\nb: [1, [2, [3]]]\n",
    "# [[[[\nk:\n        - [  ]\n",
])
def test_the_cheap_yaml_bound_is_never_below_the_depth(text: str) -> None:
    depth = max(_depth(d) for d in yaml.safe_load_all(text))
    assert _yaml_depth_bound(text) >= depth


@pytest.mark.parametrize("loader_class", [SafeLoader, FastSafeLoader])
@pytest.mark.parametrize(("text", "where"), [
    ("a: " + "[" * 150 + "]" * 150 + "\n", "line 1 column 103"),
    ("x:\n" + "- " * 5_000 + "x\n", "line 2 column 199"),
    ("x:\n" + "".join(" " * i + "a:\n" for i in range(150)) + " " * 150 + "b\n", "line 102 column 101"),
    ("a: 1\n---\n" + "{a: " * 1_000_000 + "}" * 1_000_000 + "\n", "line 3 column 401"),
])
def test_deep_yaml_is_refused_before_composing(loader_class: type, text: str, where: str) -> None:
    start = time.perf_counter()
    with pytest.raises(InputLimitError) as info:
        check_yaml_text(text, loader_class)
    assert str(info.value) == f"{where}: YAML nested deeper than 100 levels, the most kubesim reads"
    assert time.perf_counter() - start < 5


def _node(text: str) -> yaml.Node:
    return yaml.compose(text, Loader=yaml.SafeLoader)


def test_a_billion_laughs_is_refused_in_milliseconds() -> None:
    start = time.perf_counter()
    with pytest.raises(InputLimitError) as info:
        check_yaml_node(_node(BOMB))
    assert time.perf_counter() - start < 5  # about a millisecond: a few thousand nodes are counted
    assert str(info.value) == "line 4: excessive YAML aliasing: the aliases expand the document beyond 1801 nodes"


def test_ordinary_anchors_are_kept() -> None:
    template = "tmpl: &pod {apiVersion: v1, kind: Pod, spec: {containers: [{name: c, image: i}]}}\n"
    text = template + "pods:\n" + "".join(f"- {{<<: *pod, metadata: {{name: p{i}}}}}\n" for i in range(500))
    check_yaml_node(_node(text))
    assert len(load_yaml(text)["pods"]) == 500


def test_an_anchor_holding_itself_is_refused() -> None:
    with pytest.raises(InputLimitError, match="^line 2: a YAML anchor contains an alias to itself$"):
        check_yaml_node(_node("a: 1\nb: &x {c: [1, *x]}\n"))


def test_aliases_may_not_nest_a_document_deeper_than_the_limit() -> None:
    # each anchor is 20 levels deep and holds the previous one: 10 of them are 200 levels
    lines = ["l0: &l0 " + "[" * 20 + "]" * 20]
    lines += [f"l{i}: &l{i} " + "[" * 19 + f"*l{i - 1}" + "]" * 19 for i in range(1, 10)]
    text = "\n".join(lines) + "\n"
    check_yaml_text(text, SafeLoader)  # as written, 21 levels
    with pytest.raises(InputLimitError, match=r"^line \d+: YAML \(with its aliases expanded\) nested deeper than 100"):
        check_yaml_node(_node(text))


@pytest.mark.parametrize("loader_class", [SafeLoader, FastSafeLoader])
def test_integers_beyond_python_conversion_name_their_line(loader_class: type) -> None:
    with pytest.raises(InputLimitError) as info:
        yaml.load("a: 1\nb: " + "9" * 5000 + "\n", Loader=loader_class)
    assert str(info.value) == "line 2 column 4: an integer of 5000 digits, more than the 4300 kubesim reads"
    assert yaml.load(f"a: {2**70}\nb: 0x1f\nc: 1_000\n", Loader=loader_class) == {"a": 2**70, "b": 31, "c": 1000}


# --- the scenario loader ------------------------------------------------------------


@pytest.mark.parametrize("fast", [True, False])
def test_the_scenario_loader_refuses_the_bomb_with_or_without_libyaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    if not fast:
        monkeypatch.setattr(loader, "_FAST_LOADER", None)
    (tmp_path / "f.yaml").write_text(BOMB, encoding="utf-8")
    with pytest.raises(Exception) as info:
        loader.load_documents(tmp_path / "f.yaml")
    assert str(info.value) == (
        f"{tmp_path / 'f.yaml'}: line 4: excessive YAML aliasing: the aliases expand the document beyond 1801 nodes"
    )


def test_a_usage_annotation_nested_too_deep_is_ignored_like_any_unreadable_one() -> None:
    from kubesim.results.resources import USAGE_ANNOTATION, pod_usage

    def pod(text: str) -> dict[str, object]:
        return {"metadata": {"annotations": {USAGE_ANNOTATION: text}}}

    assert pod_usage(pod('{"cpu": "100m"}')) == {"cpu": 100}
    assert pod_usage(pod("[" * 100_000 + "]" * 100_000)) is None


def test_the_documented_limits_are_the_limits() -> None:
    from kubesim import input_limits as limits

    reference = (Path(__file__).resolve().parents[2] / "docs" / "scenario-reference.md").read_text(encoding="utf-8")
    section = reference.split("## What kubesim reads", 1)[1].split("\n## ", 1)[0]
    assert f"| {limits.MAX_FILE_BYTES // 2**20} MiB " in section
    assert f"| {limits.MAX_RESULT_BYTES // 2**30} GiB " in section
    assert f"| {limits.MAX_DEPTH} levels of maps and lists" in section
    assert f"| {limits.MAX_RESULT_DEPTH} levels |" in section


@pytest.mark.parametrize(("text", "anchored"), [
    ("a: &x 1\nb: *x\n", True),
    ("- &x {a: 1}\n- *x\n", True),
    ("[&x 1, *x]\n", True),
    ("{a: &x 1, b: *x}\n", True),
    ("&x a: 1\n", True),
    ("url: http://h/?a=1&b=2\nc: a&b\n", False),
    ("a: 'x & y'\n", False),
])
def test_only_texts_with_an_anchor_get_the_alias_walk(text: str, anchored: bool) -> None:
    from kubesim.input_limits import may_hold_aliases

    assert may_hold_aliases(text) is anchored
