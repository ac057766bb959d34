"""kubesim.sweep: many scenarios, configurations, parameter values and seeds at once, ranked.

```python
from kubesim.plugins import load_plugins
from kubesim.sweep import check_sweep, expand, load_sweep, run_sweep, versions

hooks = load_plugins()
sweep = load_sweep("sweep.yaml")                  # the Sweep file, validated with field paths
settings = check_sweep(sweep, hooks, out)         # every configuration and scenario variant checked
cells = expand(sweep, settings, versions(hooks))  # the grid, each cell keyed by a content hash
outcome = run_sweep(sweep, cells, out, jobs=4)    # results.parquet, results.csv, index.html, cells/
```

The command is `kubesim sweep` (kubesim.cli.sweep); see docs/sweeps.md.
"""

from kubesim.sweep.cell import CONFIG_OPTION, CellResult, CellTask, run_cell
from kubesim.sweep.generators import BUILTIN_GENERATORS, uniform
from kubesim.sweep.grid import Cell, RunSettings, expand
from kubesim.sweep.metrics import AGGREGATIONS, MetricSpec, compute_metrics, parse_metric
from kubesim.sweep.paths import PathError, parse_path, set_path
from kubesim.sweep.plan import check_sweep, run_settings, versions
from kubesim.sweep.ranking import Candidate, rank
from kubesim.sweep.runner import SweepOutcome, run_sweep
from kubesim.sweep.spec import API_VERSION, KIND, Sweep, load_sweep, parse_sweep
from kubesim.sweep.store import CellRecord, Store, is_sweep_output

__all__ = [
    "AGGREGATIONS",
    "API_VERSION",
    "BUILTIN_GENERATORS",
    "CONFIG_OPTION",
    "KIND",
    "Candidate",
    "Cell",
    "CellRecord",
    "CellResult",
    "CellTask",
    "MetricSpec",
    "PathError",
    "RunSettings",
    "Store",
    "Sweep",
    "SweepOutcome",
    "check_sweep",
    "compute_metrics",
    "expand",
    "is_sweep_output",
    "load_sweep",
    "parse_metric",
    "parse_path",
    "parse_sweep",
    "rank",
    "run_cell",
    "run_settings",
    "run_sweep",
    "set_path",
    "uniform",
    "versions",
]
