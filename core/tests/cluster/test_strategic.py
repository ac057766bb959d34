"""Strategic merge patch: upstream cases (data/strategic_merge_cases.yaml) and built-in kinds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubesim.cluster import PatchField, strategic_merge_patch
from kubesim.cluster.jsontree import copy_tree
from kubesim.cluster.strategic_tables import schema_for
from kubesim.errors import ApiError, BadRequest

# The patch tags of apimachinery's test struct MergeItem (strategicpatch/patch_test.go).
MERGE_ITEM: dict[str, PatchField] = {}
RETAIN_KEYS_ITEM: dict[str, PatchField] = {
    "mergingIntList": PatchField("merge"),
    "mergingList": PatchField("merge", "name", MERGE_ITEM),
    "nonMergingList": PatchField("", "", MERGE_ITEM),
}
MERGE_ITEM.update(
    {
        "mergingList": PatchField("merge", "name", MERGE_ITEM),
        "nonMergingList": PatchField("", "", MERGE_ITEM),
        "mergingIntList": PatchField("merge"),
        "mergeItemPtr": PatchField("merge", "name", MERGE_ITEM),
        "replacingItem": PatchField("replace"),
        "retainKeysMap": PatchField("retainKeys", "", RETAIN_KEYS_ITEM),
        "retainKeysMergingList": PatchField("merge,retainKeys", "name", MERGE_ITEM),
    }
)

CASES = yaml.safe_load((Path(__file__).parent / "data" / "strategic_merge_cases.yaml").read_text())


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_sorted(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


@pytest.mark.parametrize("case", CASES, ids=[c["description"] for c in CASES])
def test_upstream_cases(case: dict[str, Any]) -> None:
    original, patch = copy_tree(case["original"] or {}), copy_tree(case["patch"] or {})
    if "error" in case:
        with pytest.raises(ApiError) as info:
            strategic_merge_patch(original, patch, MERGE_ITEM)
        assert case["error"] in info.value.message
        return
    result = strategic_merge_patch(original, patch, MERGE_ITEM)
    expected = case["expected"] or {}
    if case.get("unordered"):
        assert _sorted(result) == _sorted(expected)
    else:
        assert result == expected


POD = schema_for("", "Pod")


def _pod(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p", "finalizers": ["a"]}, "spec": spec}


def test_containers_merge_by_name_and_env_by_name() -> None:
    pod = _pod(
        containers=[
            {"name": "a", "image": "a:1", "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "2"}]},
            {"name": "b", "image": "b:1"},
        ]
    )
    patch = {
        "spec": {
            "containers": [{"name": "a", "env": [{"name": "Y", "value": "3"}, {"name": "Z", "value": "4"}]}]
        }
    }
    result = strategic_merge_patch(pod, patch, POD)
    assert result["spec"]["containers"] == [
        {
            "name": "a",
            "image": "a:1",
            "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "3"}, {"name": "Z", "value": "4"}],
        },
        {"name": "b", "image": "b:1"},
    ]


def test_delete_directive_removes_a_container() -> None:
    pod = _pod(containers=[{"name": "a"}, {"name": "b"}])
    result = strategic_merge_patch(pod, {"spec": {"containers": [{"name": "a", "$patch": "delete"}]}}, POD)
    assert result["spec"]["containers"] == [{"name": "b"}]


def test_replace_directive_replaces_the_list() -> None:
    pod = _pod(containers=[{"name": "a"}, {"name": "b"}])
    patch = {"spec": {"containers": [{"name": "c"}, {"$patch": "replace"}]}}
    assert strategic_merge_patch(pod, patch, POD)["spec"]["containers"] == [{"name": "c"}]


def test_tolerations_and_node_selector_terms_are_atomic() -> None:
    pod = _pod(
        tolerations=[{"key": "a", "operator": "Exists"}],
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": "z", "operator": "Exists"}]}]
                }
            }
        },
    )
    patch = {
        "spec": {
            "tolerations": [{"key": "b", "operator": "Exists"}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchFields": []}]
                    }
                }
            },
        }
    }
    result = strategic_merge_patch(pod, patch, POD)
    assert result["spec"]["tolerations"] == [{"key": "b", "operator": "Exists"}]
    terms = result["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms == {"nodeSelectorTerms": [{"matchFields": []}]}


def test_finalizers_merge_as_a_set_and_delete_from_primitive_list() -> None:
    result = strategic_merge_patch(_pod(), {"metadata": {"finalizers": ["b", "a"]}}, POD)
    assert result["metadata"]["finalizers"] == ["b", "a"]
    result = strategic_merge_patch(result, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}, POD)
    assert result["metadata"]["finalizers"] == ["b"]


def test_maps_merge_and_null_deletes() -> None:
    pod = {"metadata": {"labels": {"a": "1", "b": "2"}}}
    result = strategic_merge_patch(pod, {"metadata": {"labels": {"a": None, "c": "3"}}}, POD)
    assert result == {"metadata": {"labels": {"b": "2", "c": "3"}}}


def test_node_status_addresses_and_conditions_merge_by_type() -> None:
    node = {
        "status": {
            "conditions": [{"type": "Ready", "status": "True"}, {"type": "DiskPressure", "status": "False"}],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
        }
    }
    patch = {
        "status": {
            "conditions": [{"type": "Ready", "status": "False"}],
            "addresses": [{"type": "Hostname", "address": "n1"}],
        }
    }
    result = strategic_merge_patch(node, patch, schema_for("", "Node"))
    assert result["status"]["conditions"] == [
        {"type": "Ready", "status": "False"},
        {"type": "DiskPressure", "status": "False"},
    ]
    assert result["status"]["addresses"] == [
        {"type": "Hostname", "address": "n1"},
        {"type": "InternalIP", "address": "10.0.0.1"},
    ]


def test_deployment_template_and_retain_keys_strategy() -> None:
    deployment = {
        "spec": {
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
            "template": {"spec": {"containers": [{"name": "a", "image": "a:1"}]}},
        }
    }
    patch = {
        "spec": {
            "strategy": {"$retainKeys": ["type"], "type": "Recreate"},
            "template": {"spec": {"containers": [{"name": "a", "image": "a:2"}]}},
        }
    }
    result = strategic_merge_patch(deployment, patch, schema_for("apps", "Deployment"))
    assert result["spec"]["strategy"] == {"type": "Recreate"}
    assert result["spec"]["template"]["spec"]["containers"] == [{"name": "a", "image": "a:2"}]


def test_new_items_lose_their_directives() -> None:
    pod = _pod(containers=[{"name": "a"}])
    patch = {
        "spec": {"containers": [{"name": "b", "env": [{"name": "X"}, {"name": "Y", "$patch": "delete"}]}]}
    }
    # patch items come first, server-only items after them (upstream ordering)
    assert strategic_merge_patch(pod, patch, POD)["spec"]["containers"] == [
        {"name": "b", "env": [{"name": "X"}]},
        {"name": "a"},
    ]


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"spec": {"$patch": "explode"}}, "unknown patch type: explode"),
        (
            {"spec": {"containers": [{"name": "a", "$patch": "merge"}]}},
            "merging lists cannot yet be specified",
        ),
        (
            {"metadata": {"$deleteFromPrimitiveListfinalizers": ["a"]}},
            "invalid patch format of primitive list",
        ),
        ({"spec": {"$retainKeys": ["x"], "y": 1}}, "invalid patch format of retainKeys"),
    ],
)
def test_malformed_patches(patch: dict[str, Any], message: str) -> None:
    with pytest.raises(BadRequest) as info:
        strategic_merge_patch(_pod(containers=[{"name": "a"}]), patch, POD)
    assert message in info.value.message
