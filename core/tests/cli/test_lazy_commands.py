"""Subcommands are imported on first use: `kubesim run` does not load report, serve or compare."""

from __future__ import annotations

import subprocess
import sys

import click

from kubesim.cli.main import build_cli
from kubesim.plugins import load_plugins

LAZY = ("capacity", "compare", "explain", "import", "perf", "record", "report", "serve", "sweep")


def test_the_cli_module_does_not_import_the_other_commands() -> None:
    code = ("import sys, kubesim.cli.main; "
            "print(sorted(m for m in sys.modules if m.startswith(('kubesim.cli.report', 'kubesim.cli.serve', "
            "'kubesim.cli.compare', 'kubesim.serve.app', 'kubesim.results.report', 'kubesim.cli.perf', 'kubesim.perf', "
            "'cProfile', 'pstats'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_every_command_is_listed_and_made_on_request() -> None:
    cli = build_cli(load_plugins())
    ctx = click.Context(cli, info_name="kubesim")
    assert isinstance(cli, click.Group)
    names = cli.list_commands(ctx)
    assert names == sorted(names)
    assert set(LAZY) | {"run", "validate", "plugins"} == set(names)
    for name in LAZY:
        command = cli.get_command(ctx, name)
        assert command is not None and command.name == name
        assert cli.get_command(ctx, name) is command  # made once
    assert cli.get_command(ctx, "no-such-command") is None
