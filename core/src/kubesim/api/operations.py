"""Scenario operations (KEP-140): create, patch, delete and done on numbered steps."""

from __future__ import annotations

from typing import Any

import attrs

__all__ = [
    "CreateOperation",
    "CreateOptions",
    "DeleteOperation",
    "DeleteOptions",
    "DoneOperation",
    "ObjectMeta",
    "PatchOperation",
    "PatchOptions",
    "Preconditions",
    "ScenarioOperation",
    "ScenarioStep",
    "TypeMeta",
]


@attrs.frozen(order=True)
class ScenarioStep:
    """Simulated time: Major advances per scenario step, Minor per SimulationController write."""

    major: int = 0
    minor: int = 0

    def __str__(self) -> str:
        """`4/0`: how every kubesim output writes a step (`4.0` would read as a decimal)."""
        return f"{self.major}/{self.minor}"


@attrs.frozen
class TypeMeta:
    """apiVersion and kind of an operation's target."""

    api_version: str
    kind: str


@attrs.frozen
class ObjectMeta:
    """The target object's identity in patch and delete operations."""

    name: str
    namespace: str | None = None
    uid: str | None = None


@attrs.frozen
class CreateOptions:
    """metav1.CreateOptions; only dryRun changes what the embedded cluster does."""

    dry_run: list[str] | None = None
    field_manager: str | None = None
    field_validation: str | None = None


@attrs.frozen
class PatchOptions:
    """metav1.PatchOptions."""

    dry_run: list[str] | None = None
    force: bool | None = None
    field_manager: str | None = None
    field_validation: str | None = None


@attrs.frozen
class Preconditions:
    """metav1.Preconditions: delete only if uid/resourceVersion match."""

    uid: str | None = None
    resource_version: str | None = None


@attrs.frozen
class DeleteOptions:
    """metav1.DeleteOptions."""

    grace_period_seconds: int | None = None
    propagation_policy: str | None = None
    preconditions: Preconditions | None = None
    dry_run: list[str] | None = None


@attrs.frozen
class CreateOperation:
    """Create `object` (an unstructured Kubernetes object)."""

    object: dict[str, Any]
    create_options: CreateOptions | None = None


@attrs.frozen
class PatchOperation:
    """Patch the object named by type_meta/object_meta with `patch` of `patch_type`."""

    type_meta: TypeMeta
    object_meta: ObjectMeta
    patch: str
    patch_type: str = "application/strategic-merge-patch+json"
    patch_options: PatchOptions | None = None
    # kubesim extension, like `kubectl patch --subresource=status`: "status" patches the
    # status subresource (e.g. a node's conditions), which a main-resource patch ignores.
    subresource: str | None = None


@attrs.frozen
class DeleteOperation:
    """Delete the object named by type_meta/object_meta."""

    type_meta: TypeMeta
    object_meta: ObjectMeta
    delete_options: DeleteOptions | None = None


@attrs.frozen
class DoneOperation:
    """Mark the scenario Succeeded once its step has finished."""


@attrs.frozen
class ScenarioOperation:
    """One operation on MajorStep `step`; exactly one of the four operations is set."""

    step: int
    id: str | None = None
    create_operation: CreateOperation | None = None
    patch_operation: PatchOperation | None = None
    delete_operation: DeleteOperation | None = None
    done_operation: DoneOperation | None = None

    def kinds_set(self) -> list[str]:
        """The JSON names of the operation fields that are set (valid when exactly one)."""
        pairs = (
            ("createOperation", self.create_operation),
            ("patchOperation", self.patch_operation),
            ("deleteOperation", self.delete_operation),
            ("doneOperation", self.done_operation),
        )
        return [name for name, value in pairs if value is not None]
