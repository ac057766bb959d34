"""In-tree scheduler plugins (kube-scheduler v1.34 semantics)."""

from .registry import in_tree_registry

__all__ = ["in_tree_registry"]
