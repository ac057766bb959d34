"""The migration controller: requests -> policy commands -> validated commands with a target.

Port of k8s-migration-controller v1 `pkg/monitoring/controller.go` (`GetMigrations`). A
request below `min_request` GB ends the pass with nothing (as v1 does: `return nil, nil`); a
request whose commands all fail validation raises NodeFullError carrying the commands
validated so far, which the caller still executes ("Provision new node").
"""

from __future__ import annotations

import attrs

from kubesim_pod_migration.policies import MigrationPolicy
from kubesim_pod_migration.requests import MigrationCmd, NodeFreeGbRequest, RequestPolicy

__all__ = ["DEFAULT_MIN_REQUEST", "MigrationController", "NodeFullError"]

DEFAULT_MIN_REQUEST = 7.0
"""`NewController`'s MinRequestSize in GB (the simulator builds its controller with 0)."""


class NodeFullError(Exception):
    """No target node has room for the commands of `request`; `migrations` were validated before."""

    def __init__(self, request: NodeFreeGbRequest, commands: list[MigrationCmd], migrations: list[MigrationCmd]) -> None:
        pods = ", ".join(c.pod for c in commands)
        super().__init__(f"migration of pods {pods} failed because nodes are full: no place to fulfil request "
                         f"{request.amount:g} GB on {request.node}")
        self.request = request
        self.commands = commands
        self.migrations = migrations


@attrs.define
class MigrationController:
    """Asks the request policy for requests and the migration policy for pods to move."""

    requester: RequestPolicy
    migrator: MigrationPolicy
    min_request: float = DEFAULT_MIN_REQUEST

    def migrations(self) -> list[MigrationCmd]:
        """This tick's validated commands. MigrationPolicyError or NodeFullError when stuck."""
        out: list[MigrationCmd] = []
        for request in self.requester.requests():
            if request.amount < self.min_request:
                return []
            commands = self.migrator.commands(request)
            valid = self.requester.validate(request.node, commands)
            if commands and not valid:
                raise NodeFullError(request, commands, out)
            out.extend(valid)
        return out
