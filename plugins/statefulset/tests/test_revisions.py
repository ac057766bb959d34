"""ControllerRevision hashing and naming (pkg/controller/history)."""

from __future__ import annotations

from kubesim_statefulset.revisions import (
    apply_revision,
    data_bytes,
    equal_revision,
    fnv1_32,
    hash_revision,
    new_revision,
    next_revision,
    revision_name,
    safe_encode,
    sort_revisions,
)


def test_fnv1_32_matches_the_reference_vectors():
    # FNV-1 (multiply, then xor) 32-bit test vectors from the FNV reference implementation
    assert fnv1_32(b"") == 0x811C9DC5
    assert fnv1_32(b"a") == 0x050C5D7E
    assert fnv1_32(b"foobar") == 0x31F0B262


def test_safe_encode_maps_bytes_to_unambiguous_characters():
    # alphanums "bcdfghjklmnpqrstvwxz2456789" indexed by byte % 27: '0' (48) -> '4', '9' (57) -> 'd'
    assert safe_encode("0123456789") == "456789bcdf"


def test_hash_depends_on_data_and_collision_count():
    data = {"spec": {"template": {"metadata": {"labels": {"a": "b"}}, "$patch": "replace"}}}
    assert hash_revision(data, 0) == hash_revision(dict(data), 0)
    assert hash_revision(data, 0) != hash_revision(data, 1)
    other = {"spec": {"template": {"metadata": {"labels": {"a": "c"}}, "$patch": "replace"}}}
    assert hash_revision(data, 0) != hash_revision(other, 0)


def test_data_bytes_are_compact_sorted_and_html_escaped_like_go():
    assert data_bytes({"b": 1, "a": "<&>"}) == b'{"a":"\\u003c\\u0026\\u003e","b":1}'


def test_revision_names_are_cut_to_fit():
    assert revision_name("web", "abc") == "web-abc"
    assert revision_name("x" * 300, "h") == "x" * 223 + "-h"


def test_new_revision_and_apply_round_trip():
    sts = {"metadata": {"name": "web", "namespace": "ns", "uid": "u1", "annotations": {"note": "x"}},
           "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c"}]}}}}
    rev = new_revision(sts, 3, 0)
    assert rev["revision"] == 3
    assert rev["metadata"]["namespace"] == "ns"
    assert rev["metadata"]["annotations"] == {"note": "x"}
    assert rev["metadata"]["ownerReferences"][0]["uid"] == "u1"
    changed = {**sts, "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": []}}}}
    restored = apply_revision(changed, rev)
    assert restored["spec"]["template"] == sts["spec"]["template"]
    assert equal_revision(rev, new_revision(sts, 7, 4))
    assert not equal_revision(rev, new_revision(changed, 3, 0))


def test_sorting_and_next_revision():
    revs = [{"revision": 3, "metadata": {"name": "b"}}, {"revision": 1, "metadata": {"name": "a"}}]
    ordered = sort_revisions(revs)
    assert [r["revision"] for r in ordered] == [1, 3]
    assert next_revision(ordered) == 4
    assert next_revision([]) == 1
