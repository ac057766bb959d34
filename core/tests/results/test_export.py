"""Table export: CSV, JSON and pandas, and writing every table of a result."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest

from kubesim.api import Scenario
from kubesim.results import Column, Table, analyze

TABLE = Table(
    "t",
    (Column("name", "str", "a name"), Column("n", "int", "a count"), Column("share", "float", "a share"),
     Column("ok", "bool", "a flag")),
    [("a", 1, 0.5, True), ("b, c", None, 1 / 3, False), (None, 3, None, None)],
    "a test table",
)


def test_csv() -> None:
    assert TABLE.to_csv() == (
        "name,n,share,ok\n"
        "a,1,0.5,true\n"
        '"b, c",,0.333333,false\n'
        ",3,,\n"
    )


def test_json_roundtrip(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    TABLE.to_json(path)
    data = json.loads(path.read_text())
    assert data == {
        "name": "t", "description": "a test table",
        "columns": [{"name": "name", "type": "str", "description": "a name"},
                    {"name": "n", "type": "int", "description": "a count"},
                    {"name": "share", "type": "float", "description": "a share"},
                    {"name": "ok", "type": "bool", "description": "a flag"}],
        "rows": [{"name": "a", "n": 1, "share": 0.5, "ok": True},
                 {"name": "b, c", "n": None, "share": 1 / 3, "ok": False},
                 {"name": None, "n": 3, "share": None, "ok": None}],
    }


def test_pandas_keeps_types_and_missing_values() -> None:
    df = TABLE.to_pandas()
    assert list(df.columns) == ["name", "n", "share", "ok"]
    assert [str(t) for t in df.dtypes] == ["string", "Int64", "Float64", "boolean"]
    assert df["n"].isna().tolist() == [False, True, False]
    assert int(df["n"].sum()) == 4
    assert df.loc[0, "name"] == "a" and bool(df.loc[1, "ok"]) is False


def test_column_access_and_from_records() -> None:
    assert TABLE.column("n") == [1, None, 3]
    with pytest.raises(KeyError, match="no column 'x'"):
        TABLE.column("x")
    t = Table.from_records("r", (Column("a", "int"), Column("b", "str")), [{"a": 1}, {"b": "x", "a": 2}])
    assert t.rows == [(1, None), (2, "x")]


def test_write_every_table(tmp_path: Path, small_result: Scenario) -> None:
    tables = analyze(small_result)
    written = tables.write(tmp_path / "out", formats=("csv", "json"))
    assert sorted(p.name for p in written) == sorted(
        f"{n}.{f}" for n in ("pods", "nodes", "cluster", "plugins", "filter_reasons") for f in ("csv", "json"))
    with open(tmp_path / "out" / "cluster.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["pending"] for r in rows] == ["0", "1", "0", "0", "0", "0"]
    pods = json.loads((tmp_path / "out" / "pods.json").read_text())["rows"]
    assert [p["state"] for p in pods] == ["preempted", "bound", "bound"]
    df = tables["nodes"].to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert df.groupby("step")["pods"].sum().tolist() == [0, 1, 2, 2, 2, 2]
    with pytest.raises(ValueError, match="unknown table format 'xml'"):
        tables.write(tmp_path / "bad", formats=("xml",))
