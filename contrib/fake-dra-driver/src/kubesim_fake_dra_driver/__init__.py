"""A fake DRA device driver: a ResourceSlice of GPUs per labelled node, and its DeviceClass."""

from __future__ import annotations

from .driver import (
    DEVICE_CLASS,
    DRIVER,
    GPUS_LABEL,
    MEMORY_LABEL,
    MODEL_LABEL,
    FakeDraDriver,
    device_class,
    resource_slice,
)

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
