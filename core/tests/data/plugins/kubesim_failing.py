"""A test plugin whose parts fail on purpose; a scenario picks the controllers it runs.

Controllers: "spinner" reports work on every loop and writes nothing, "unsatisfied" does
nothing and its waiter never holds, "writer" patches a ConfigMap on every loop forever,
"crasher" raises. The admission hook raises for objects named "boom"; the result aggregator
"fragile" raises on the first event it folds. Loaded with KUBESIM_PLUGINS=kubesim_failing.
"""

from __future__ import annotations

from typing import Any

from kubesim import Controller, ControllerWaiter, hookimpl
from kubesim.results import Table


class Spinner(Controller):
    name = "spinner"

    def run_once(self) -> bool:
        return True

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: False)


class Unsatisfied(Controller):
    name = "unsatisfied"

    def run_once(self) -> bool:
        return False

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: False)


class Writer(Controller):
    name = "writer"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.count = 0

    def run_once(self) -> bool:
        self.count += 1
        self.client.patch("v1", "ConfigMap", "a", {"data": {"count": str(self.count % 7)}}, namespace="default")
        return True

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: False)


def settings(data: dict[str, str]) -> int:
    return int(data["limit"])  # CRASH-CONTROLLER


class Crasher(Controller):
    name = "crasher"

    def run_once(self) -> bool:
        settings({})
        return True

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: False)


@hookimpl
def kubesim_controllers() -> list[type[Controller]]:
    return [Spinner, Unsatisfied, Writer, Crasher]


@hookimpl
def kubesim_admission(request: Any) -> None:
    if request.name == "boom":
        raise RuntimeError("cannot admit boom")  # CRASH-ADMISSION
    return None


class Fragile:
    name = "fragile"

    def initial(self) -> list[str]:
        return []

    def fold(self, acc: list[str], event: Any, state: Any) -> list[str]:
        columns: dict[str, str] = {}
        return acc + [columns["node"]]  # CRASH-AGGREGATOR

    def table(self, acc: list[str]) -> Table:
        raise AssertionError("not reached")


@hookimpl
def kubesim_result_aggregators() -> dict[str, Any]:
    return {"fragile": Fragile()}
