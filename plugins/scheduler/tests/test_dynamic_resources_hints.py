"""Ports of upstream's TestIsSchedulableAfterClaimChange (9 cases) and
TestIsSchedulableAfterPodChange (5 cases): which ResourceClaim and Pod events requeue a pod
that DynamicResources rejected. Upstream answers an object of the wrong type with an error,
which the queue treats as Queue; here the hint is Queue directly."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from kubesim_scheduler.framework.events import QueueingHint
from kubesim_scheduler.scheduler import Scheduler, default_profile

from dra_builders import FakeApi
from test_dynamic_resources_table import (
    ALLOCATED,
    CLAIM,
    OTHER_ALLOCATED,
    PENDING,
    POD_WITH_CLAIM_NAME,
    POD_WITH_CLAIM_TEMPLATE,
    POD_WITH_CLAIM_TEMPLATE_IN_STATUS,
    POD_UID,
    RESOURCE,
    make_pod,
)

Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def plugin(*claims: dict[str, Any]) -> Any:
    api = FakeApi(*claims)
    s = Scheduler([default_profile()], lister=api.list, writer=api, seed=0)
    return s.frameworks["default-scheduler"].plugins["DynamicResources"]


def changed(obj: dict[str, Any], **edits: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    for path, value in edits.items():
        *parents, last = path.split("__")
        node = out
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value
    return out


WRONG_OWNER = copy.deepcopy(ALLOCATED)
WRONG_OWNER["metadata"]["ownerReferences"][0]["uid"] = POD_UID + "123"
UNRELATED = changed(ALLOCATED, metadata__name=CLAIM + "-foo", metadata__uid="uid-" + CLAIM + "-123")
DEALLOCATED = changed(OTHER_ALLOCATED, status={})

CLAIM_CASES: dict[str, tuple[dict[str, Any], list[dict[str, Any]], Any, Any, QueueingHint]] = {
    # name: (pod, claims in the API, old, new, hint)
    "skip-deletes": (POD_WITH_CLAIM_TEMPLATE, [], ALLOCATED, None, SKIP),
    "backoff-wrong-new-object": (POD_WITH_CLAIM_TEMPLATE, [], None, "not-a-claim", Q),
    "skip-wrong-claim": (POD_WITH_CLAIM_TEMPLATE, [], None, WRONG_OWNER, SKIP),
    "skip-unrelated-claim": (POD_WITH_CLAIM_TEMPLATE, [ALLOCATED], None, UNRELATED, SKIP),
    "queue-on-add": (POD_WITH_CLAIM_NAME, [PENDING], None, PENDING, Q),
    "backoff-wrong-old-object": (POD_WITH_CLAIM_NAME, [PENDING], "not-a-claim", PENDING, Q),
    "skip-adding-finalizer": (POD_WITH_CLAIM_NAME, [PENDING], PENDING, changed(PENDING, metadata__finalizers=["foo"]), SKIP),
    "queue-on-status-change": (POD_WITH_CLAIM_NAME, [PENDING], PENDING, changed(PENDING, status__allocation={"devices": {}}), Q),
    "claim-deallocate": (POD_WITH_CLAIM_NAME, [PENDING, OTHER_ALLOCATED], OTHER_ALLOCATED, DEALLOCATED, Q),
}


@pytest.mark.parametrize("name", sorted(CLAIM_CASES))
def test_is_schedulable_after_claim_change(name: str) -> None:
    pod, claims, old, new, want = CLAIM_CASES[name]
    # the API holds the claim as the event delivered it (upstream writes it through the client first)
    api_claims = [new] if isinstance(new, dict) and old is None and not claims else claims
    if isinstance(new, dict) and old is not None:
        api_claims = [new if c["metadata"]["name"] == new["metadata"]["name"] else c for c in claims]
    assert plugin(*api_claims)._after_claim_change(pod, old, new) == want


TWO_TEMPLATES = make_pod({"name": RESOURCE, "resourceClaimTemplateName": CLAIM},
                         {"name": RESOURCE + "-2", "resourceClaimTemplateName": CLAIM})
OTHER_POD = changed(POD_WITH_CLAIM_TEMPLATE, metadata__name="my-pod2", metadata__uid=POD_UID + "2")
ONE_OF_TWO = changed(TWO_TEMPLATES, status__resourceClaimStatuses=[{"name": RESOURCE, "resourceClaimName": CLAIM}])

POD_CASES: dict[str, tuple[list[dict[str, Any]], dict[str, Any], Any, QueueingHint]] = {
    # name: (claims in the API, the rejected pod, the updated pod, hint)
    "backoff-wrong-new-object": ([], POD_WITH_CLAIM_TEMPLATE, "not-a-claim", Q),
    "complete": ([PENDING], POD_WITH_CLAIM_TEMPLATE, POD_WITH_CLAIM_TEMPLATE_IN_STATUS, Q),
    "wrong-pod": ([PENDING], OTHER_POD, POD_WITH_CLAIM_TEMPLATE_IN_STATUS, SKIP),
    "missing-claim": ([], POD_WITH_CLAIM_TEMPLATE, POD_WITH_CLAIM_TEMPLATE_IN_STATUS, SKIP),
    "incomplete": ([PENDING], TWO_TEMPLATES, ONE_OF_TWO, SKIP),
}


@pytest.mark.parametrize("name", sorted(POD_CASES))
def test_is_schedulable_after_pod_change(name: str) -> None:
    claims, pod, new, want = POD_CASES[name]
    assert plugin(*claims)._after_pod_change(pod, None, new) == want


def test_ported_case_counts() -> None:
    assert (len(CLAIM_CASES), len(POD_CASES)) == (9, 5)
