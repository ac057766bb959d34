"""ImageLocality, ported from upstream's image_locality_test.go tables.

The scenarios are upstream's; the expected scores are worked out for v1.34's formula
(spread-scaled image sizes, max threshold = 1000MB x number of containers), with the
arithmetic in the comments.
"""

# upstream: pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go

from __future__ import annotations

import hashlib

import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

from kubesim_scheduler.framework import normalized_image_name

MB = 1024 * 1024
NODE_40_300_2000 = [(["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
                    (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
                    (["gcr.io/2000:latest"], 2000 * MB)]
NODE_250_10 = [(["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)]

CASES = [
    # machine1: 40MB * 1/2 = 20MB < 23MB -> 0; machine2: 250MB/2 = 125MB -> 100*(125-23)/(2000-23) = 5
    ("two images spread on two nodes, prefer the larger image one", ["gcr.io/40", "gcr.io/250"],
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], [0, 5]),
    # machine1: (40+300)/2 = 170MB -> 100*(170-23)/(2000-23) = 7
    ("two images on one node, prefer this node", ["gcr.io/40", "gcr.io/300"],
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], [7, 0]),
    # machine1: 2000/2 = 1000MB -> 100*(1000-23)/(2000-23) = 49; machine2: 10/2 < 23 -> 0
    ("if exceed limit, use limit", ["gcr.io/10", "gcr.io/2000"],
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], [49, 0]),
    # machine1: 2000/3 = 666.7MB -> 100*(666.7-23)/(2000-23) = 32
    ("if exceed limit, use limit (with node which has no images present)", ["gcr.io/10", "gcr.io/2000"],
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10), ("machine3", [])], [32, 0, 0]),
]


@pytest.mark.parametrize("name,images,nodes,want", CASES, ids=[c[0] for c in CASES])
def test_image_locality_priority(name, images, nodes, want):  # type: ignore[no-untyped-def]
    h = PluginHarness("ImageLocality", None, [make_node(n, images=imgs) for n, imgs in nodes])
    assert h.score(make_pod(images=images)) == want


def fake_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


NAMES = [
    ("add :latest postfix 1", "root", "root:latest"),
    ("add :latest postfix 2", "gcr.io:5000/root", "gcr.io:5000/root:latest"),
    ("keep it as is 1", "root:tag", "root:tag"),
    ("keep it as is 2", "root@" + fake_digest("root"), "root@" + fake_digest("root")),
]


@pytest.mark.parametrize("name,image,want", NAMES, ids=[c[0] for c in NAMES])
def test_normalized_image_name(name, image, want):  # type: ignore[no-untyped-def]
    assert normalized_image_name(image) == want
