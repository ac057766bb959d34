"""The controller runtime: controllers, waiters, work queues and actor-bound clients."""

from kubesim.controllers.base import (
    Controller,
    ControllerContext,
    ControllerFactory,
    ObjectKey,
    ReconcileController,
    StepGate,
)
from kubesim.controllers.client import Client
from kubesim.controllers.waiter import ControllerWaiter
from kubesim.controllers.workqueue import WorkQueue

__all__ = [
    "Client",
    "Controller",
    "ControllerContext",
    "ControllerFactory",
    "ControllerWaiter",
    "ObjectKey",
    "ReconcileController",
    "StepGate",
    "WorkQueue",
]
