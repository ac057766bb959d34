"""ImageLocality: favour nodes that already hold the pod's images, scaled by how widely they spread."""

# upstream: pkg/scheduler/framework/plugins/imagelocality/image_locality.go

from __future__ import annotations

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.interface import MAX_NODE_SCORE, BatchScorePlugin
from ..framework.normalize import go_div
from ..framework.pod_info import PodInfo

__all__ = ["ImageLocality", "MIN_THRESHOLD", "MAX_CONTAINER_THRESHOLD", "calculate_priority"]

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def calculate_priority(sum_scores: np.ndarray, num_containers: int) -> np.ndarray:
    """Clamp the summed image scores to [23MB, 1000MB * containers] and scale to 0..100."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    s = np.where(sum_scores < MIN_THRESHOLD, MIN_THRESHOLD, np.where(sum_scores > max_threshold, max_threshold, sum_scores))
    return go_div(MAX_NODE_SCORE * (s - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


class ImageLocality(BatchScorePlugin):
    name = "ImageLocality"

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        t = self.handle.node_table
        total = t.num_nodes
        acc: np.ndarray | None = None
        for image in pod_info.images:
            nodes = t.image_nodes.get(image)
            if not nodes:
                continue
            if acc is None:
                acc = np.zeros(t.capacity, dtype=np.int64)
            spread = float(len(nodes)) / float(total)
            acc[t.image_rows(image)] += int(float(t.image_size[image]) * spread)
        if acc is None:  # no node holds any of the images: every sum is below the threshold
            return np.zeros(len(rows), dtype=np.int64)
        return calculate_priority(acc[rows], pod_info.num_containers)
