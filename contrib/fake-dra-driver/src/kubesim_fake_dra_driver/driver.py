"""The fake driver's controller: node labels in, ResourceSlices and a DeviceClass out.

A real DRA driver's kubelet plugin publishes one ResourceSlice per node for its pool (the node's
name), with `spec.nodeName` set; its Helm chart installs a DeviceClass. This does the same for
nodes labelled `fake-dra.kubesim.io/gpus`, so a GPU cluster is a few node labels. A label
change bumps the pool's generation; a node that loses the label or goes away loses its slice.
Bad label values (not an integer 0-128, not a quantity) are logged and the node gets no slice.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any, cast

from kubesim import ReconcileController
from kubesim.cluster import WatchEvent, copy_tree
from kubesim.errors import AlreadyExists, ApiError, NotFound
from kubesim.k8s.quantity import QuantityError, parse

__all__ = [
    "DEVICE_CLASS",
    "DRIVER",
    "GPUS_LABEL",
    "MEMORY_LABEL",
    "MODEL_LABEL",
    "FakeDraDriver",
    "device_class",
    "resource_slice",
]

DRIVER = "gpu.fake-dra.kubesim.io"
DEVICE_CLASS = DRIVER
GPUS_LABEL = "fake-dra.kubesim.io/gpus"
MODEL_LABEL = "fake-dra.kubesim.io/model"
MEMORY_LABEL = "fake-dra.kubesim.io/memory"
_API = "resource.k8s.io/v1"
_MAX_DEVICES = 128  # ResourceSliceMaxDevices


def device_class() -> dict[str, Any]:
    """The DeviceClass the driver installs: every device of this driver."""
    return {"apiVersion": _API, "kind": "DeviceClass", "metadata": {"name": DEVICE_CLASS},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}


def _slice_name(node: str) -> str:
    return f"{node}-{DRIVER}"


def resource_slice(node: Mapping[str, Any], generation: int = 0) -> dict[str, Any] | None:
    """The slice for a node from its labels; None without the label; ValueError for bad values."""
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    if GPUS_LABEL not in labels:
        return None
    text = str(labels[GPUS_LABEL])
    if not text.isdigit() or int(text) > _MAX_DEVICES:
        raise ValueError(f"label {GPUS_LABEL}: {text!r}: expected an integer from 0 to {_MAX_DEVICES}")
    memory = str(labels.get(MEMORY_LABEL, "80Gi"))
    try:
        parse(memory)
    except QuantityError as e:
        raise ValueError(f"label {MEMORY_LABEL}: {memory!r}: expected a quantity ({e})") from e
    model = str(labels.get(MODEL_LABEL, "A100"))
    name = str(meta.get("name", ""))
    devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": model}, "index": {"int": i}},
                "capacity": {"memory": {"value": memory}}} for i in range(int(text))]
    return {"apiVersion": _API, "kind": "ResourceSlice", "metadata": {"name": _slice_name(name)},
            "spec": {"driver": DRIVER, "nodeName": name,
                     "pool": {"name": name, "generation": generation, "resourceSliceCount": 1},
                     "devices": devices}}


class FakeDraDriver(ReconcileController):
    """Keeps one ResourceSlice per labelled node and the driver's DeviceClass."""

    name = "fake-dra-driver"
    watches = (("v1", "Node"), (_API, "ResourceSlice"))

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        obj = event.object
        if obj.get("kind") == "Node":
            return [str((obj.get("metadata") or {}).get("name", ""))]
        spec = obj.get("spec") or {}
        return [str(spec.get("nodeName"))] if spec.get("driver") == DRIVER and spec.get("nodeName") else []

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        return self.keys_for(WatchEvent("ADDED", obj, None, "", None))

    def reconcile(self, key: Hashable) -> None:
        node_name = cast(str, key)
        try:
            node: Mapping[str, Any] | None = self.reader.get("v1", "Node", node_name)
        except NotFound:
            node = None
        try:
            current: Mapping[str, Any] | None = self.reader.get(_API, "ResourceSlice", _slice_name(node_name))
        except NotFound:
            current = None
        try:
            want = resource_slice(node) if node is not None and not (node.get("metadata") or {}).get("deletionTimestamp") else None
        except ValueError as e:
            self.log.warning("node label ignored", node=node_name, error=str(e))
            want = None
        try:
            if want is None:
                if current is not None:
                    self.client.delete(_API, "ResourceSlice", _slice_name(node_name))
                return
            self._ensure_class()
            if current is None:
                self.client.create(want)
            elif (current.get("spec") or {}).get("devices") != want["spec"]["devices"]:
                gen = int(((current.get("spec") or {}).get("pool") or {}).get("generation") or 0) + 1
                updated = copy_tree(dict(current))
                updated["spec"] = cast(dict[str, Any], resource_slice(cast(Mapping[str, Any], node), gen))["spec"]
                self.client.update(updated)
        except ApiError as e:
            self.log.warning("resource slice not written", node=node_name, error=e.message)

    def _ensure_class(self) -> None:
        try:
            self.reader.get(_API, "DeviceClass", DEVICE_CLASS)
        except NotFound:
            try:
                self.client.create(device_class())
            except AlreadyExists:
                pass
