"""docs/serve.md documents every `kubesim serve` option and the message of KEP-140 it quotes."""

from __future__ import annotations

from pathlib import Path

import click

from kubesim.cli.main import build_cli
from kubesim.plugins import load_plugins
from kubesim.serve.scenarios import RESTARTED_MESSAGE

DOC = Path(__file__).resolve().parents[3] / "docs" / "serve.md"


def test_every_serve_option_is_in_the_guide() -> None:
    hooks = load_plugins()
    plugin_options = {o.name for o in hooks.run_options()}
    cli = build_cli(hooks)
    serve = cli.get_command(click.Context(cli), "serve")
    assert serve is not None
    text = DOC.read_text(encoding="utf-8")
    missing = [opt for p in serve.params if isinstance(p, click.Option) and p.name not in plugin_options
               for opt in p.opts if opt.startswith("--") and opt not in ("--verbose", "--quiet", "--help")
               and f"`{opt}" not in text]
    assert missing == []


def test_the_guide_quotes_the_restart_message() -> None:
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert f"`{RESTARTED_MESSAGE}`" in text
