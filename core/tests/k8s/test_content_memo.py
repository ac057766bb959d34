"""Content keys tell apart every value a check could tell apart; memoised checks give the same
answers (including errors) as before, for the same objects checked again."""

from __future__ import annotations

import copy
import datetime
from collections import OrderedDict
from typing import Any

from kubesim.cluster.validation.podspec import validate_pod
from kubesim.k8s.content_memo import ContentMemo, content_key
from kubesim.k8s.decoding import decoding_message


def test_keys_tell_types_and_order_apart() -> None:
    values: list[Any] = [1, 1.0, True, "1", [1], (1,), {"a": 1, "b": 2}, {"b": 2, "a": 1}, None, {"a": None}]
    keys = [content_key(v) for v in values]
    assert None not in keys
    assert len(set(keys)) == len(values)
    assert content_key({"a": [1, {"b": "c"}]}) == content_key(copy.deepcopy({"a": [1, {"b": "c"}]}))


def test_keys_do_not_depend_on_who_else_holds_the_tree() -> None:
    tree = {"spec": {"containers": [{"name": "c" * 3}]}, "kind": "Pod"}
    twin = copy.deepcopy(tree)
    held = [twin, twin["spec"], twin["spec"]["containers"]]  # more references to the twin's parts
    assert len(held) == 3
    assert content_key(tree) == content_key(twin)
    assert content_key(("", "v1", "Pod", tree)) == content_key(("", "v1", "Pod", twin))


def test_values_that_are_not_plain_are_not_keyed() -> None:
    assert content_key({"when": datetime.date(2024, 1, 1)}) is None
    assert content_key(OrderedDict(a=1)) is None
    memo: ContentMemo[int] = ContentMemo()
    memo.put(None, 1)
    assert len(memo) == 0 and memo.get(None) is None


def test_a_full_memo_starts_afresh() -> None:
    memo: ContentMemo[int] = ContentMemo(limit=2)
    for i in range(3):
        memo.put(content_key(i), i)
    assert len(memo) == 1 and memo.get(content_key(2)) == 2 and memo.get(content_key(0)) is None


def _pod(name: str, **container: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx", **container}]}}


def test_pod_validation_remembered_by_spec_gives_the_same_errors() -> None:
    bad = _pod("a", resources={"requests": {"cpu": "-1"}})
    first = validate_pod(bad)
    assert first and "resources.requests" in first[0].field
    again = validate_pod(_pod("b", resources={"requests": {"cpu": "-1"}}))
    assert [str(e) for e in again] == [str(e) for e in first]
    again.append(first[0])  # the caller may extend what it gets: the remembered answer is unchanged
    assert len(validate_pod(bad)) == len(first)
    defaulted = {"restartPolicy": "Always", "dnsPolicy": "ClusterFirst"}
    assert validate_pod({**_pod("c"), "spec": {**_pod("c")["spec"], **defaulted}}) == []
    assert validate_pod({**_pod("d"), "spec": {"containers": [], **defaulted}})  # another spec: checked anew


def test_decoding_remembered_only_for_objects_that_decode() -> None:
    good = _pod("a")
    assert decoding_message("", "v1", "Pod", good) is None
    assert decoding_message("", "v1", "Pod", copy.deepcopy(good)) is None
    bad = _pod("a", ports=[{"containerPort": "eighty"}])
    message = decoding_message("", "v1", "Pod", bad)
    assert message is not None and "containerPort" in message
    assert decoding_message("", "v1", "Pod", copy.deepcopy(bad)) == message
    unknown = _pod("a", unknownField=1)
    assert decoding_message("", "v1", "Pod", copy.deepcopy(unknown)) is not None  # strict: an error
    loose = copy.deepcopy(unknown)
    assert decoding_message("", "v1", "Pod", loose, strict=False) is None
    assert "unknownField" not in loose["spec"]["containers"][0]  # dropped, as before
    assert decoding_message("", "v1", "Pod", copy.deepcopy(unknown)) is not None  # still an error strictly
