"""Client and reader reads without a copy (copy=False) and copy-on-write status writes."""

from __future__ import annotations

import copy

import pytest
from kubesim.controllers import Runtime


def _pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}


def test_get_without_copy_returns_the_stored_object_and_a_status_write_shares_the_rest() -> None:
    runtime = Runtime.standalone()
    client = runtime.client("tester")
    client.create(_pod("p"))
    stored = client.get("v1", "Pod", "p", copy=False)
    assert stored is runtime.reader.get("v1", "Pod", "p", copy=False)
    copied = client.get("v1", "Pod", "p")
    assert copied == stored and copied is not stored and copied["spec"] is not stored["spec"]
    before = copy.deepcopy(stored)

    new = {**stored, "metadata": dict(stored["metadata"]), "status": {**stored["status"], "phase": "Running"}}
    after = client.update_status(new, copy=False)
    assert after is client.get("v1", "Pod", "p", copy=False)
    assert after["status"]["phase"] == "Running"
    assert after["spec"] is stored["spec"]  # not copied: shared with the previous version
    assert stored == before  # the previous version is unchanged
    assert int(after["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])


def test_handing_over_the_stored_object_itself_is_refused() -> None:
    runtime = Runtime.standalone()
    client = runtime.client("tester")
    client.create(_pod("p"))
    stored = client.get("v1", "Pod", "p", copy=False)
    with pytest.raises(ValueError, match="stored object itself"):
        client.update_status(stored, copy=False)
