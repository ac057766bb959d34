"""Subcommands imported only when they are used.

`kubesim run` needs the engine, not `report`'s plotting, `serve`'s web app or `compare`'s
tables: importing every command's module on each start cost about 0.3 s of CPU. A lazy
command is named with its module and factory; the module is imported when the command is
run or its help is shown (`kubesim --help` imports them all, for their one-line help).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import click

from kubesim.plugins import Hooks

__all__ = ["LazyGroup"]


class LazyGroup(click.Group):
    """A click group some of whose commands are made on first use by `factory(hooks)` or
    `factory()` in their module."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy: dict[str, tuple[str, str, Hooks | None]] = {}

    def add_lazy_command(self, name: str, module: str, factory: str, hooks: Hooks | None = None) -> None:
        """Register command `name`, made by `module.factory(hooks)` (or `()` without hooks)."""
        self._lazy[name] = (module, factory, hooks)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command, made or not, sorted (as click lists them)."""
        return sorted({*super().list_commands(ctx), *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, importing its module the first time."""
        lazy = self._lazy.pop(cmd_name, None)
        if lazy is not None:
            module, factory, hooks = lazy
            make: Callable[..., click.Command] = getattr(importlib.import_module(module), factory)
            self.add_command(make(hooks) if hooks is not None else make(), cmd_name)
        return super().get_command(ctx, cmd_name)
