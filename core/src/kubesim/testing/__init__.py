"""kubesim.testing: what a plugin's tests need, shipped with the core.

- builders: `node`, `pod`, `namespace`, `priority_class`, `deployment`, `replicaset`,
  `statefulset` return Kubernetes objects as plain dicts; `scenario` with `create`,
  `patch`, `delete`, `done` builds a Scenario document, `write_yaml` writes it;
- `SimEnv`: controllers under test on a cluster without the engine, settled and stepped
  the engine's way (`env.apply`, `env.settle`, `env.step`, `env.get`, `env.list`);
- `run_kubesim`: the installed `kubesim` command in a subprocess, with a timeout;
- `chromium`, `headless`: headless Chromium to look at a report page (kubesim.testing.browser).

Installed with kubesim, the pytest plugin (entry point pytest11) offers the fixtures
`run_kubesim` (runs in the test's tmp_path) and `sim_env` (closes what it built).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesim.lazy import lazy_getattr

if TYPE_CHECKING:
    from kubesim.testing.browser import chromium, headless
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
    from kubesim.testing.server import KubesimServer
    from kubesim.testing.scenarios import create, delete, done, patch, scenario, to_yaml, write_yaml

# Imported on first use: the pytest plugin (kubesim.testing.pytest_plugin) loads this package
# in every pytest run where kubesim is installed, which must stay cheap.
_LAZY = {
    "KubesimFailed": "kubesim.testing.cli",
    "KubesimServer": "kubesim.testing.server",
    "KubesimRun": "kubesim.testing.cli",
    "KubesimTimeout": "kubesim.testing.cli",
    "SettleError": "kubesim.testing.env",
    "SimEnv": "kubesim.testing.env",
    "chromium": "kubesim.testing.browser",
    "create": "kubesim.testing.scenarios",
    "delete": "kubesim.testing.scenarios",
    "deployment": "kubesim.testing.builders",
    "done": "kubesim.testing.scenarios",
    "headless": "kubesim.testing.browser",
    "installed_plugins": "kubesim.testing.cli",
    "kubesim_command": "kubesim.testing.cli",
    "namespace": "kubesim.testing.builders",
    "node": "kubesim.testing.builders",
    "owner_reference": "kubesim.testing.builders",
    "patch": "kubesim.testing.scenarios",
    "pod": "kubesim.testing.builders",
    "pod_template": "kubesim.testing.builders",
    "priority_class": "kubesim.testing.builders",
    "replicaset": "kubesim.testing.builders",
    "run_kubesim": "kubesim.testing.cli",
    "scenario": "kubesim.testing.scenarios",
    "statefulset": "kubesim.testing.builders",
    "taint": "kubesim.testing.builders",
    "to_yaml": "kubesim.testing.scenarios",
    "write_yaml": "kubesim.testing.scenarios",
}


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)


__all__ = [
    "KubesimFailed",
    "KubesimRun",
    "KubesimServer",
    "KubesimTimeout",
    "SettleError",
    "SimEnv",
    "chromium",
    "create",
    "delete",
    "deployment",
    "done",
    "headless",
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
