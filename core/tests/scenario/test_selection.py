"""Which controllers run: KEP-140's enabled/disabled rules."""

from __future__ import annotations

from kubesim.api import Controller, Controllers, ControllerSet
from kubesim.scenario import select_controllers

REGISTERED = ["scheduler", "replicaset", "statefulset", "kubelet"]


def names(*n: str) -> list[Controller]:
    return [Controller(x) for x in n]


def test_every_other_registered_controller_is_a_presimulation_controller_by_default() -> None:
    sel = select_controllers(Controllers(ControllerSet(enabled=names("scheduler"))), REGISTERED)
    assert sel.simulation == ("scheduler",)
    assert sel.pre_simulation == ("kubelet", "replicaset", "statefulset")


def test_disable_some_or_all_presimulation_controllers() -> None:
    sel = select_controllers(
        Controllers(ControllerSet(enabled=names("scheduler")), ControllerSet(disabled=names("kubelet"))), REGISTERED
    )
    assert sel.pre_simulation == ("replicaset", "statefulset")
    sel = select_controllers(
        Controllers(ControllerSet(enabled=names("scheduler")),
                    ControllerSet(enabled=names("statefulset"), disabled=names("*"))), REGISTERED
    )
    assert sel.pre_simulation == ("statefulset",)


def test_simulation_controllers_keep_the_given_order() -> None:
    sel = select_controllers(Controllers(ControllerSet(enabled=names("statefulset", "scheduler"))), REGISTERED)
    assert sel.simulation == ("statefulset", "scheduler")
    assert sel.pre_simulation == ("kubelet", "replicaset")
