"""kubesim.results: turn a scenario result into tables, reports and comparisons.

```python
from kubesim.results import load_results, analyze

[result] = load_results("result.json")          # what `kubesim run -o` wrote
tables = analyze(result)                          # pods, nodes, cluster, plugins, filter_reasons
tables["cluster"].to_csv("cluster.csv")
df = tables["pods"].to_pandas()                   # with the optional extra kubesim[pandas]
```

Custom aggregates: walk `iter_events(result, step_ends=True)` yourself, or write an
`Aggregator` (initial / fold / table) and pass it to `analyze(aggregators=...)` or
register it from a plugin with the `kubesim_result_aggregators` hook.
"""

from kubesim.results.aggregator import Aggregator, AggregatorError, aggregate, check_aggregator
from kubesim.results.analysis import BUILTIN_TABLES, ResultTables, analyze, builtin_aggregators, plugin_aggregators
from kubesim.results.cluster_table import CLUSTER_COLUMNS, ClusterStepTable
from kubesim.results.events import EVENT_KINDS, EventKind, TimelineEvent, iter_events, step_range
from kubesim.results.fragmentation import fragmentation, reference_pod
from kubesim.results.load import is_result_document, load_results, parse_results
from kubesim.results.node_table import NODE_COLUMNS, NodeStepTable
from kubesim.results.plugin_table import FILTER_REASON_COLUMNS, PLUGIN_COLUMNS, FilterReasonTable, PluginTable
from kubesim.results.pod_table import POD_COLUMNS, PodTable
from kubesim.results.resources import USAGE_ANNOTATION, node_allocatable, pod_requests, pod_usage
from kubesim.results.state import ClusterState, NodeState, PodState, pod_key
from kubesim.results.table import Column, ColumnType, Table

__all__ = [
    "BUILTIN_TABLES",
    "CLUSTER_COLUMNS",
    "EVENT_KINDS",
    "FILTER_REASON_COLUMNS",
    "NODE_COLUMNS",
    "PLUGIN_COLUMNS",
    "POD_COLUMNS",
    "USAGE_ANNOTATION",
    "Aggregator",
    "AggregatorError",
    "ClusterState",
    "ClusterStepTable",
    "Column",
    "ColumnType",
    "EventKind",
    "FilterReasonTable",
    "NodeState",
    "NodeStepTable",
    "PluginTable",
    "PodState",
    "PodTable",
    "ResultTables",
    "Table",
    "TimelineEvent",
    "aggregate",
    "analyze",
    "builtin_aggregators",
    "check_aggregator",
    "fragmentation",
    "is_result_document",
    "iter_events",
    "load_results",
    "node_allocatable",
    "parse_results",
    "plugin_aggregators",
    "pod_key",
    "pod_requests",
    "pod_usage",
    "reference_pod",
    "step_range",
]
