"""kubesim.testing: what a plugin's tests need, shipped with the core.

- builders: `node`, `pod`, `namespace`, `priority_class`, `deployment`, `replicaset`,
  `statefulset` return Kubernetes objects as plain dicts; `scenario` with `create`,
  `patch`, `delete`, `done` builds a Scenario document, `write_yaml` writes it;
- `SimEnv`: controllers under test on a cluster without the engine, settled and stepped
  the engine's way (`env.apply`, `env.settle`, `env.step`, `env.get`, `env.list`);
- `run_kubesim`: the installed `kubesim` command in a subprocess, with a timeout.

Installed with kubesim, the pytest plugin (entry point pytest11) offers the fixtures
`run_kubesim` (runs in the test's tmp_path) and `sim_env` (closes what it built).
"""

from kubesim.testing.builders import (
    deployment,
    namespace,
    node,
    owner_reference,
    pod,
    pod_template,
    priority_class,
    replicaset,
    statefulset,
    taint,
)
from kubesim.testing.cli import (
    KubesimFailed,
    KubesimRun,
    KubesimTimeout,
    installed_plugins,
    kubesim_command,
    run_kubesim,
)
from kubesim.testing.env import SettleError, SimEnv
from kubesim.testing.scenarios import create, delete, done, patch, scenario, to_yaml, write_yaml

__all__ = [
    "KubesimFailed",
    "KubesimRun",
    "KubesimTimeout",
    "SettleError",
    "SimEnv",
    "create",
    "delete",
    "deployment",
    "done",
    "installed_plugins",
    "kubesim_command",
    "namespace",
    "node",
    "owner_reference",
    "patch",
    "pod",
    "pod_template",
    "priority_class",
    "replicaset",
    "run_kubesim",
    "scenario",
    "statefulset",
    "taint",
    "to_yaml",
    "write_yaml",
]
