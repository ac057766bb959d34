"""k8s-cluster-simulator's metrics formatters (JSON, humanReadable, table) on a hand-made record.

Expected text is written from the Go format verbs of pkg/metrics/*_formatter.go: Quantity.Value()
rounds up (500m cpu -> 1), memory is Value() / 2^20.
"""

from __future__ import annotations

from typing import Any

from kubesim.simtime.formats import FORMATS, format_human, format_json, format_table, formatter

RECORD: dict[str, Any] = {
    "Clock": "2019-01-01T00:01:10+09:00",
    "Nodes": {"node-0": {
        "Allocatable": {"cpu": "4", "memory": "8Gi", "pods": "2"}, "RunningPodsNum": 1, "TerminatingPodsNum": 0,
        "FailedPodsNum": 0, "TotalResourceRequest": {"cpu": "1500m", "memory": "1536Mi"},
        "TotalResourceUsage": {"cpu": "500m", "memory": "512Mi"}}},
    "Pods": {"default/a": {
        "ResourceRequest": {"cpu": "1500m", "memory": "1536Mi"}, "ResourceLimit": {},
        "ResourceUsage": {"cpu": "500m", "memory": "512Mi"}, "BoundAt": "2019-01-01T00:00:50+09:00",
        "Node": "node-0", "ExecutedSeconds": 20, "Priority": 5, "Status": "Ok"}},
    "Queue": {"PendingPodsNum": 3},
}


def test_json_is_one_compact_line_in_go_order() -> None:
    line = format_json(RECORD)
    assert "\n" not in line
    assert line.startswith('{"Clock":"2019-01-01T00:01:10+09:00","Nodes":{"node-0":{"Allocatable":{"cpu":"4",')
    assert line.endswith('"Priority":5,"Status":"Ok"}},"Queue":{"PendingPodsNum":3}}')


def test_human_readable() -> None:
    assert format_human(RECORD) == (
        "Metrics 2019-01-01T00:01:10+09:00\n"
        "  Nodes\n"
        "    node-0: Pods 1(0)/2, cpu 1/2/4, memMB 512/1536/8192, Failed 0\n"
        "  Pods\n"
        "    default/a: prio 5, bound at 2019-01-01T00:00:50+09:00 on node-0, status Ok, elapsed 20 s, "
        "cpu 1/2/0, memMB 512/1536/0\n"
        "  Queue\n"
        "    PendingPods 3\n"
    )


def test_table() -> None:
    node_row = "%-16s %-6d %-6d %-6d %-6d " % ("node-0", 1, 0, 0, 2) + "%-8d %-8d %-11d " % (1, 2, 4) \
        + "%-8d %-8d %-11d " % (512, 1536, 8192)
    pod_row = "%-20s %-12s %-8d %-8s %-25s %-8d " % ("default/a", "Ok", 5, "node-0", "2019-01-01T00:00:50+09:00", 20) \
        + "%-8d %-8d %-8d " % (1, 2, 0) + "%-8d %-8d %-8d " % (512, 1536, 0)
    expected = (
        "2019-01-01T00:01:10+09:00\n\n"
        "Node             Pods   Termi- Failed Capa-  " + "%-29s " % "cpu" + "memory (MB)                   \n"
        "                        nating        city   " + "Usage    Request  Allocatable " * 2 + "\n"
        + "-" * 105 + "\n" + node_row + "\n\n"
        "Pod                  Status       Priority Node     BoundAt                   Executed "
        + "%-26s " % "cpu" + "memory (MB)                \n"
        + " " * 78 + "Seconds  " + "Usage    Request  Limit    " * 2 + "\n"
        + "-" * 141 + "\n" + pod_row + "\n\n"
        "      PendingPods \n------------------\nQueue 3        \n\n"
    )
    assert format_table(RECORD) == expected


def test_formatters_by_either_name() -> None:
    assert formatter("JSON") is FORMATS["json"] is formatter("json")
    assert formatter("humanReadable") is format_human
    assert formatter("table") is format_table
