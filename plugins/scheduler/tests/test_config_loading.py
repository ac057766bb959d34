"""Reading configurations: files, YAML/JSON, strict decoding, and the problems reported."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from kubesim.errors import InvalidInput
from kubesim_scheduler.config import (
    API_VERSION,
    KIND,
    DefaultPreemptionArgs,
    ExtenderManagedResource,
    NodeResourcesFitArgs,
    Plugin,
    ResourceSpec,
    ScoringStrategy,
    decode,
    load_config,
    loads_config,
    to_dict,
)
from kubesim_scheduler.config.durations import format_duration, parse_duration

DATA = Path(__file__).parent / "data" / "config"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test data copied to a temporary working directory, so problems name short relative paths."""
    shutil.copytree(DATA, tmp_path / "config")
    monkeypatch.chdir(tmp_path)
    return Path("config")


def problems(source: Any, **kw: Any) -> list[str]:
    with pytest.raises(InvalidInput) as err:
        if isinstance(source, str) and "\n" in source:
            loads_config(source, **kw)
        else:
            load_config(source, **kw)
    return [str(p) for p in err.value.problems]


def test_valid_yaml(data: Path) -> None:
    config = load_config(data / "valid.yaml")
    assert config.ignored_fields == ("leaderElection", "clientConnection", "enableProfiling")
    assert (config.parallelism, config.percentage_of_nodes_to_score) == (8, 50)
    assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (2, 20)
    first, second = config.profiles
    assert first.plugins is not None and second.plugins is not None
    assert first.plugins.score.enabled == (Plugin("NodeResourcesFit", 3),)
    assert first.plugins.score.enabled[0].source == "profiles[0].plugins.score.enabled[0]"
    assert first.plugin_config[0].args == NodeResourcesFitArgs(
        scoring_strategy=ScoringStrategy("MostAllocated", (ResourceSpec("cpu", 2), ResourceSpec("memory", 1)))
    )
    assert second.percentage_of_nodes_to_score == 100
    assert "ImageLocality" not in [p.name for p in second.plugins.multi_point.enabled]
    (extender,) = config.extenders
    assert extender.http_timeout == 90.0
    assert extender.managed_resources == (ExtenderManagedResource("example.com/gpu", True),)
    assert (extender.weight, extender.node_cache_capable, extender.ignorable) == (5, True, True)


def test_round_trip_through_to_dict(data: Path) -> None:
    config = load_config(data / "valid.yaml")
    written = to_dict(config)
    assert written["apiVersion"] == API_VERSION
    assert written["extenders"][0]["httpTimeout"] == "1m30s"
    assert written["profiles"][0]["pluginConfig"][0]["args"]["kind"] == "NodeResourcesFitArgs"
    assert load_config(written) == config


def test_valid_json(data: Path) -> None:
    config = load_config(data / "valid.json")
    (profile,) = config.profiles
    assert profile.scheduler_name == "json-scheduler"
    assert profile.plugin_config[0].args == DefaultPreemptionArgs(10, 10)


def test_bad_types(data: Path) -> None:
    f = "config/bad-types.yaml"
    assert problems(data / "bad-types.yaml") == [
        f"{f}: parallelism: expected an integer, got the string '8'",
        f"{f}: profiles[0].schedulerName: expected a string, got the number 7",
        f"{f}: profiles[0].percentageOfNodesToScore: 3000000000 does not fit in a 32-bit integer",
        f"{f}: profiles[0].plugins.score.enabled[1].weight: expected an integer, got the string '3'",
        f"{f}: profiles[0].plugins.bind.enabled[0].name: required",
        f"{f}: profiles[0].plugins.Filter: unknown field",
        f"{f}: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: expected an integer, got the number 1.5",
        f"{f}: profiles[0].pluginConfig[0].args.foo: unknown field",
        (
            f"{f}: profiles[0].pluginConfig[1].args.defaultConstraints[0].labelSelector.matchLabels[app]: "
            "expected a string, got the number 1"
        ),
        f"{f}: profiles[0].pluginConfig[2].args: expected a mapping, got a list",
        (
            f'{f}: profiles[0].pluginConfig[3].args.filterTimeout: expected a duration string such as "30s", '
            "got the number 10"
        ),
        f"{f}: profiles[0].pluginConfig[4].name: required",
        f"{f}: extenders[0].enableHTTPS: expected a boolean, got the string 'true'",
        f'{f}: extenders[0].httpTimeout: time: unknown unit " seconds" in duration "5 seconds"',
        f"{f}: extenders[0].managedResources: expected a list, got the string 'example.com/gpu'",
        f"{f}: profile: unknown field",
    ]


def test_bad_values(data: Path) -> None:
    f = "config/bad-values.yaml"
    assert problems(data / "bad-values.yaml") == [
        f"{f}: parallelism: Invalid value: 0: should be an integer value greater than zero",
        (
            f"{f}: profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: "
            "cannot be zero at the same time as minCandidateNodesAbsolute"
        ),
        (
            f"{f}: profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: Invalid value: 0: "
            "cannot be zero at the same time as minCandidateNodesPercentage"
        ),
        (
            f"{f}: profiles[0].pluginConfig[1].args.hardPodAffinityWeight: Invalid value: 101: "
            "not in valid range [0, 100]"
        ),
        f'{f}: profiles[0].pluginConfig[2]: Duplicate value: "InterPodAffinity"',
        f"{f}: profiles[1].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]",
        f'{f}: profiles[1].schedulerName: Duplicate value: "a"',
        f"{f}: profiles[1].plugins.queueSort: Invalid value: {{}}: must be the same for all profiles",
        f"{f}: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
        f"{f}: podMaxBackoffSeconds: Invalid value: 1: must be greater than or equal to PodInitialBackoffSeconds",
        f"{f}: extenders[0].urlPrefix: Required value: kubesim sends the extender's requests there",
        f"{f}: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it",
        f'{f}: extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
    ]


@pytest.mark.parametrize(
    ("name", "want"),
    [
        (
            "bad-syntax.yaml",
            "invalid YAML: line 6, column 1: expected the node content, but found '<stream end>'",
        ),
        ("duplicate-key.yaml", "profiles[0].schedulerName: duplicate key (lines 4 and 5)"),
        ("empty.yaml", "expected a KubeSchedulerConfiguration mapping, got null (is the file empty?)"),
        ("missing.yaml", "cannot read the file: No such file or directory"),
    ],
)
def test_unreadable_files(data: Path, name: str, want: str) -> None:
    assert problems(data / name) == [f"config/{name}: {want}"]


def test_file_label_overrides_path(data: Path) -> None:
    assert problems(data / "empty.yaml", file="scheduler config")[0].startswith("scheduler config: ")


HEADER = f"apiVersion: {API_VERSION}\nkind: {KIND}\n"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        pytest.param(
            "kind: KubeSchedulerConfiguration\nfoo: 1\n",
            ['apiVersion: required ("kubescheduler.config.k8s.io/v1")', "foo: unknown field"],
            id="missing apiVersion",
        ),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: Policy\n",
            [
                (
                    'apiVersion: expected "kubescheduler.config.k8s.io/v1", got the string '
                    "'kubescheduler.config.k8s.io/v1beta3'"
                ),
                "kind: expected \"KubeSchedulerConfiguration\", got the string 'Policy'",
            ],
            id="wrong version and kind",
        ),
        pytest.param(
            "- a\n- b\n", ["expected a KubeSchedulerConfiguration mapping, got a list"], id="a list"
        ),
        pytest.param(HEADER + "---\n" + HEADER, ["expected one YAML document, found 2"], id="two documents"),
        pytest.param(
            HEADER
            + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: X\n        weight: 2147483648\n",
            ["profiles[0].plugins.score.enabled[0].weight: 2147483648 does not fit in a 32-bit integer"],
            id="weight overflows int32",
        ),
        pytest.param(
            HEADER
            + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: X\n        source: here\n",
            ["profiles[0].plugins.score.enabled[0].source: unknown field"],
            id="internal fields are not input",
        ),
        pytest.param(
            HEADER + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      apiVersion: v1\n",
            [
                (
                    "profiles[0].pluginConfig[0].args.apiVersion: expected 'kubescheduler.config.k8s.io/v1', "
                    "got the string 'v1'"
                )
            ],
            id="args apiVersion",
        ),
        pytest.param(
            HEADER + "profiles:\n- pluginConfig:\n  - name: X\n    weight: 1\n",
            ["profiles[0].pluginConfig[0].weight: unknown field"],
            id="pluginConfig unknown field",
        ),
    ],
)
def test_decode_problems(text: str, want: list[str]) -> None:
    assert problems(text, file="t.yaml") == [f"t.yaml: {w}" for w in want]


def test_null_means_absent() -> None:
    """Go's decoder treats null like an absent field, so upstream defaults apply."""
    config = loads_config(
        HEADER + "parallelism: null\nprofiles:\n- schedulerName: null\n  pluginConfig: null\n"
    )
    assert config.parallelism == 16
    assert config.profiles[0].scheduler_name == "default-scheduler"


def test_dict_problems_have_no_file_unless_given() -> None:
    with pytest.raises(InvalidInput) as err:
        load_config({"apiVersion": API_VERSION, "kind": KIND, "parallelism": 0})
    assert [str(p) for p in err.value.problems] == [
        "parallelism: Invalid value: 0: should be an integer value greater than zero"
    ]


def test_decode_does_not_default() -> None:
    config = decode({"apiVersion": API_VERSION, "kind": KIND})
    assert config.profiles == ()


@pytest.mark.parametrize(
    ("text", "seconds", "back"),
    [
        ("30s", 30.0, "30s"),
        ("1m30s", 90.0, "1m30s"),
        ("1.5h", 5400.0, "1h30m0s"),
        ("300ms", 0.3, "300ms"),
        ("0", 0.0, "0s"),
        ("-2s", -2.0, "-2s"),
        ("1h0m0.5s", 3600.5, "1h0m0.5s"),
        ("2us", 2e-06, "2\u00b5s"),
        ("10ns", 1e-08, "10ns"),
        ("2562047h", 9223369200.0, "2562047h0m0s"),
        ("0000000000000000000000001s", 1.0, "1s"),  # leading zeros never overflow
        ("-9223372036854775808ns", -9223372036.854775808, "-2562047h47m16.854775808s"),
        (".5s", 0.5, "500ms"),
        ("1.s", 1.0, "1s"),
    ],
)
def test_go_durations(text: str, seconds: float, back: str) -> None:
    assert parse_duration(text) == pytest.approx(seconds)
    assert format_duration(seconds) == back


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("1", 'time: missing unit in duration "1"'),
        ("abc", 'time: invalid duration "abc"'),
        (".s", 'time: invalid duration ".s"'),
        ("1x", 'time: unknown unit "x" in duration "1x"'),
        # past Go's int64 nanoseconds: time.ParseDuration's overflow errors
        ("100000000h", 'time: invalid duration "100000000h"'),
        ("2562048h", 'time: invalid duration "2562048h"'),
        ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
        ("2562047h47m16.854775808s", 'time: invalid duration "2562047h47m16.854775808s"'),
        ("99999999999999999999s", 'time: invalid duration "99999999999999999999s"'),
        ("1" * 5000 + "s", f'time: invalid duration "{"1" * 5000}s"'),
        # ASCII digits only; non-ASCII and control bytes quoted as Go's time.quote does
        ("\u0661s", 'time: invalid duration "\\xd9\\xa1s"'),
        ("1s\t", 'time: unknown unit "s\\x09" in duration "1s\\x09"'),
    ],
)
def test_bad_go_durations(text: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_duration(text)
    assert str(err.value) == message
