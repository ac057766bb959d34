"""The controller runtime: the per-scenario Runtime, controllers, waiters, work queues, clients
and the settle loop."""

from kubesim.controllers.base import (
    Controller,
    ControllerFactory,
    ObjectKey,
    ReconcileController,
)
from kubesim.controllers.client import Client
from kubesim.controllers.runtime import (
    GRACEFUL_POD_DELETION,
    Capabilities,
    ClusterReader,
    Recorder,
    Runtime,
    StepGate,
)
from kubesim.controllers.settle import LoopGuard, NotSettled, SettleLimits, settle
from kubesim.controllers.waiter import ControllerWaiter
from kubesim.controllers.workqueue import WorkQueue

__all__ = [
    "GRACEFUL_POD_DELETION",
    "LoopGuard",
    "NotSettled",
    "SettleLimits",
    "Capabilities",
    "Client",
    "ClusterReader",
    "Controller",
    "ControllerFactory",
    "ControllerWaiter",
    "ObjectKey",
    "ReconcileController",
    "Recorder",
    "Runtime",
    "StepGate",
    "WorkQueue",
    "settle",
]
