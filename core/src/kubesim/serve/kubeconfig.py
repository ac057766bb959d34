"""The kubeconfig files `kubesim serve` writes: one for the user, one per outside controller."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

__all__ = ["controller_kubeconfig_path", "dump_kubeconfig", "kubeconfig"]


def kubeconfig(server: str, token: str, user: str, *, context: str = "kubesim") -> dict[str, Any]:
    """A kubeconfig with one cluster (`server`), one user (bearer `token`) and one current context."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": context, "cluster": {"server": server}}],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": user, "namespace": "default"}}],
        "current-context": context,
        "preferences": {},
    }


def dump_kubeconfig(config: dict[str, Any]) -> str:
    """kubeconfig YAML text."""
    return str(yaml.safe_dump(config, sort_keys=False))


def controller_kubeconfig_path(user_path: str | Path, name: str) -> Path:
    """Where controller `name`'s kubeconfig goes: beside the user's, e.g. kubeconfig-NAME.yaml."""
    path = Path(user_path)
    return path.with_name(f"{path.stem}-{name}{path.suffix}")
