"""Plain-text renderings of capacity answers (stable: no terminal width, no colour)."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim.capacity.addition import AdditionReport
from kubesim.capacity.fit import FitReport
from kubesim.capacity.removal import RemovalReport

__all__ = ["addition_table", "fit_table", "removal_table", "text_table"]


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


def addition_table(report: AdditionReport) -> str:
    """The answer to --add-nodes, the simulations run, and where pods went or why not."""
    if report.nodes_needed is not None:
        out = [f"{report.nodes_needed} node(s) like {report.template} must be added for all "
               f"{report.pods} pending pod(s) to schedule.\n"]
    else:
        out = [f"No number of nodes like {report.template} (up to {report.max_nodes}) lets all "
               f"{report.pods} pending pod(s) schedule.\n"]
    if report.trials:
        out.append("\nSimulations:\n")
        out.append(text_table(["NODES ADDED", "PODS PENDING"], report.trials))
    if report.unschedulable:
        out.append("\nUnschedulable pods:\n")
        out.append(text_table(["POD", "REASON"], report.unschedulable))
    elif report.placements:
        out.append("\nPlacements:\n")
        out.append(text_table(["POD", "NODE"], report.placements))
    return "".join(out)


def removal_table(report: RemovalReport) -> str:
    """Removable nodes with where their pods go, then the others with the reason."""
    out = [f"{len(report.removable)} node(s) can be removed, checked least utilised first.\n"]
    if report.removable:
        out.append("\nRemovable nodes:\n")
        rows = [(n, u, ", ".join(f"{p} -> {t}" for p, t in moved) or "-") for n, u, moved in report.removable]
        out.append(text_table(["NODE", "UTILIZATION", "PODS MOVED"], rows))
    if report.unremovable:
        out.append("\nNodes that stay:\n")
        out.append(text_table(["NODE", "UTILIZATION", "REASON"], report.unremovable))
    return "".join(out)
