"""Plain-text renderings of capacity answers (stable: no terminal width, no colour)."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim.capacity.fit import FitReport

__all__ = ["fit_table", "text_table"]


def text_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Columns padded to their widest cell, like `kubectl get`."""
    cells = [list(header)] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return "".join("   ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n" for r in cells)


def fit_table(report: FitReport) -> str:
    """cluster-capacity's summary (report.go clusterCapacityReviewPrettyPrint), nodes as a table."""
    out = [f"The cluster can schedule {report.replicas} instance(s) of the pod {report.pod}.\n",
           f"\nTermination reason: {report.fail_type}: {report.fail_message}\n"]
    if report.replicas_on_nodes:
        out.append("\nPod distribution among nodes:\n")
        out.append(text_table(["NODE", "INSTANCES"], report.replicas_on_nodes))
    return "".join(out)
