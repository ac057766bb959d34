"""An input file under test: a parsed document plus raw text fragments, written as YAML or JSON.

Some hostile inputs cannot be built as Python data and dumped (a YAML alias bomb, nesting
deeper than the dumper's recursion, a mapping key written twice): the document holds a
placeholder string and `text()` puts the raw fragment in its place after dumping.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import yaml

__all__ = ["Document", "placeholder"]


def placeholder(index: int) -> str:
    """The marker a raw fragment replaces (a plain scalar in YAML, a string in JSON)."""
    return f"RAWFRAGMENT{index}X"


@attrs.frozen
class Document:
    """What a test writes to a file: `data`, its raw fragments, the format, and how it was made."""

    data: Any
    fmt: str = "yaml"
    raw: tuple[str, ...] = ()
    """Fragments in flow style, valid in YAML and JSON; fragment i replaces placeholder(i)."""
    dup_keys: tuple[str, ...] = ()
    """Mapping keys written as "DUPKEY<i>X<key>" that become plain "<key>" (a duplicate key)."""
    note: str = "valid"

    def text(self) -> str:
        """The file's text."""
        if self.fmt == "json":
            out = json.dumps(self.data, indent=1, sort_keys=False)
            quote = '"'
        else:
            out = yaml.safe_dump(self.data, sort_keys=False, allow_unicode=True, width=10**9)
            quote = ""
        for i, fragment in enumerate(self.raw):
            out = out.replace(f"{quote}{placeholder(i)}{quote}", fragment)
        for i, key in enumerate(self.dup_keys):
            out = out.replace(f"DUPKEY{i}X{key}", key)
        return out

    def write(self, directory: Path, stem: str = "input") -> Path:
        """Write the file into `directory` and return its path."""
        path = directory / f"{stem}.{self.fmt}"
        path.write_text(self.text(), encoding="utf-8")
        return path

    def with_change(self, data: Any, note: str, *, raw: tuple[str, ...] = (), dup_keys: tuple[str, ...] = ()) -> Document:
        """A copy with new data, more raw fragments / duplicate keys, and what was changed."""
        return attrs.evolve(self, data=data, raw=self.raw + raw, dup_keys=self.dup_keys + dup_keys, note=note)
