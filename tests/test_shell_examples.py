"""Every shell example in the READMEs and docs pastes into a shell as written.

A comment after a line continuation (`--seed 7 \\   # ties`) ends the command there: the
backslash escapes a space, not the newline, and the lines after it run as commands of
their own. So does a comment line between continued lines, or spaces after the backslash.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHELL_LANGUAGES = {"sh", "bash", "shell", "console", "shell-session", "zsh"}
_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w-]*)")
_SKIP_DIRS = {".git", ".venv", "node_modules", ".tox", "build", "dist"}


def markdown_files() -> list[Path]:
    """Every Markdown file of the repository (not in virtual environments or build output)."""
    return sorted(p for p in ROOT.rglob("*.md")
                  if not _SKIP_DIRS.intersection(p.relative_to(ROOT).parts)
                  and not any(part.endswith(".egg-info") for part in p.parts))


def shell_blocks(text: str) -> list[tuple[int, list[str]]]:
    """(line number of the block's first line, its lines) for each fenced shell code block."""
    blocks: list[tuple[int, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, language = m.group(2), m.group(3).lower()
        start = i + 1
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence[:3]):
            i += 1
        if language in SHELL_LANGUAGES:
            blocks.append((start + 1, lines[start:i]))
        i += 1
    return blocks


def continuation_problems(lines: list[str]) -> list[tuple[int, str]]:
    """(index, what is wrong) for each broken line continuation in a shell block."""
    found = []
    for i, line in enumerate(lines):
        if re.search(r"\\[ \t]+#", line):
            found.append((i, "a comment after the line continuation `\\`"))
        elif re.search(r"\\[ \t]+$", line):
            found.append((i, "spaces after the line continuation `\\`"))
        elif line.endswith("\\") and i + 1 < len(lines) and lines[i + 1].lstrip().startswith("#"):
            found.append((i + 1, "a comment line inside a continued command"))
    return found


def test_the_checker_catches_what_breaks_a_paste() -> None:
    block = ["kubesim run s.yaml \\", "  --seed 7 \\   # ties", "  -o r.json", "a \\", "  # comment", "  b",
             "c \\ ", "  d", "fine \\", "  --ok"]
    assert continuation_problems(block) == [
        (1, "a comment after the line continuation `\\`"),
        (4, "a comment line inside a continued command"),
        (6, "spaces after the line continuation `\\`"),
    ]
    text = "intro\n```sh\na \\\n  b\n```\n\n```yaml\nx: 1 \\  # not shell\n```\n~~~bash\nc\n~~~\n"
    assert shell_blocks(text) == [(3, ["a \\", "  b"]), (11, ["c"])]


def test_shell_examples_in_readmes_and_docs_paste() -> None:
    files = markdown_files()
    assert ROOT / "README.md" in files and ROOT / "plugins" / "scheduler" / "README.md" in files
    problems = []
    blocks = 0
    for path in files:
        for first, lines in shell_blocks(path.read_text(encoding="utf-8")):
            blocks += 1
            for i, what in continuation_problems(lines):
                problems.append(f"{path.relative_to(ROOT)}:{first + i}: {what}: {lines[i].strip()}")
    assert blocks > 10  # the extraction found the examples
    assert problems == []


def test_examples_in_command_help_paste() -> None:
    import click

    from kubesim.cli.main import build_cli
    from kubesim.plugins import load_plugins

    cli = build_cli(load_plugins())
    problems = []
    with click.Context(cli, info_name="kubesim") as ctx:
        assert isinstance(cli, click.Group)
        for name in cli.list_commands(ctx):
            command = cli.get_command(ctx, name)
            assert command is not None
            text = command.get_help(click.Context(command, info_name=name, parent=ctx))
            lines = text.splitlines()
            problems += [f"kubesim {name} --help: {what}: {lines[i].strip()}"
                         for i, what in continuation_problems(lines)]
    assert problems == []
