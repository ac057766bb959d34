"""A small column-typed table with CSV, JSON and (when pandas is installed) DataFrame export.

Every table that `kubesim.results` makes, built in or from a plugin's aggregator, is
a `Table`: a name, documented typed columns, and rows as tuples in column order.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import attrs

__all__ = ["Column", "ColumnType", "Table"]

ColumnType = Literal["str", "int", "float", "bool"]
"""A column's type; every column may also hold None (empty in CSV, null in JSON)."""


@attrs.frozen
class Column:
    """One column: its name, type and what it holds."""

    name: str
    type: ColumnType
    description: str = ""


@attrs.frozen
class Table:
    """Named rows with typed, documented columns."""

    name: str
    columns: tuple[Column, ...]
    rows: list[tuple[Any, ...]] = attrs.field(factory=list)
    description: str = ""

    @property
    def column_names(self) -> list[str]:
        """The column names in order."""
        return [c.name for c in self.columns]

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> list[Any]:
        """The values of one column, in row order; KeyError for an unknown column."""
        names = self.column_names
        if name not in names:
            raise KeyError(f"table {self.name!r} has no column {name!r} (columns: {', '.join(names)})")
        i = names.index(name)
        return [row[i] for row in self.rows]

    def records(self) -> Iterator[dict[str, Any]]:
        """Each row as a dict of column name to value."""
        names = self.column_names
        return (dict(zip(names, row)) for row in self.rows)

    def where(self, **equal: Any) -> list[dict[str, Any]]:
        """The rows (as dicts) whose columns equal the given values."""
        return [r for r in self.records() if all(r[k] == v for k, v in equal.items())]

    # --- export ----------------------------------------------------------------

    def to_csv(self, path: str | Path | None = None) -> str:
        """CSV with a header row; None is written as an empty field. Writes `path` when given."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self.column_names)
        for row in self.rows:
            writer.writerow(["" if v is None else _csv_value(v) for v in row])
        text = buf.getvalue()
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def to_data(self) -> dict[str, Any]:
        """JSON-ready form: name, description, columns with types, rows as objects."""
        return {
            "name": self.name,
            "description": self.description,
            "columns": [{"name": c.name, "type": c.type, "description": c.description} for c in self.columns],
            "rows": list(self.records()),
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """`to_data()` as indented JSON. Writes `path` when given."""
        text = json.dumps(self.to_data(), indent=2, ensure_ascii=False) + "\n"
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def to_pandas(self) -> Any:
        """A pandas DataFrame (needs the optional extra: pip install 'kubesim[pandas]')."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("Table.to_pandas needs pandas: pip install 'kubesim[pandas]'") from exc
        dtypes = {"int": "Int64", "float": "Float64", "bool": "boolean", "str": "string"}
        frame = pd.DataFrame.from_records(self.rows, columns=self.column_names)
        return frame.astype({c.name: dtypes[c.type] for c in self.columns})

    @classmethod
    def from_records(cls, name: str, columns: Sequence[Column], records: Sequence[dict[str, Any]],
                     description: str = "") -> Table:
        """A table from dicts (missing keys become None)."""
        names = [c.name for c in columns]
        return cls(name, tuple(columns), [tuple(r.get(n) for n in names) for r in records], description)


def _csv_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(round(value, 6))
    return value
