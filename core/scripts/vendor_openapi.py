#!/usr/bin/env python3
"""Regenerate kubesim's vendored Kubernetes OpenAPI v2 definitions (core/src/kubesim/k8s/openapi-v2.json.gz).

Usage:
    python core/scripts/vendor_openapi.py SWAGGER_JSON [--go-module IMPORT_PATH=DIR ...] [-o OUT]

SWAGGER_JSON is Kubernetes' api/openapi-spec/swagger.json of the release (kubesim uses
release-1.34, as kubernetes-client/python commit 4f585b3b8 ships it in
kubernetes/swagger.json.unprocessed). `paths` are dropped; `definitions` are kept whole,
descriptions included. Each --go-module names a checkout of a Go module holding the API
types (k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver at the same
release); their struct fields give the Go type names encoding/json prints in decoding
errors (`v1.ResourceList`, `v1.TaintEffect`), which the OpenAPI document does not carry.
They are stored under the top-level key "x-kubesim-go-types":
{definition: {json field: [embedded struct path, [Go type, element type, ...]]}}.
The output is deterministic (sorted keys, gzip mtime 0).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

_DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "kubesim" / "k8s" / "openapi-v2.json.gz"
_BASIC = {"string", "bool", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
          "uint32", "uint64", "float32", "float64", "byte", "rune", "any"}
_PACKAGE = re.compile(r"^package (\w+)", re.MULTILINE)
_IMPORT_ONE = re.compile(r'^import\s+(\w+\s+)?"([^"]+)"', re.MULTILINE)
_IMPORT_BLOCK = re.compile(r"^import \((.*?)^\)", re.MULTILINE | re.DOTALL)
_IMPORT_LINE = re.compile(r'^\s*(\w+\s+)?"([^"]+)"', re.MULTILINE)
_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_NAMED = re.compile(r"^type (\w+) ((?:\[\]|map\[|\*)?[\w.\[\]*]+)\s*$", re.MULTILINE)
_FIELD = re.compile(r'^\s*(\w+)\s+([\w.\[\]*]+)\s+`[^`]*json:"([^"]*)"')
_EMBEDDED = re.compile(r'^\s*\*?([\w.]+)\s+`[^`]*json:"([^"]*)"')


class _Package:
    """One Go package's struct fields and named types, with its imports resolved."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = path.rsplit("/", 1)[-1]
        self.structs: dict[str, list[tuple[str, str, str, dict[str, str]]]] = {}
        self.named: dict[str, tuple[str, dict[str, str]]] = {}


def _imports(src: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for block in _IMPORT_BLOCK.findall(src):
        for alias, path in _IMPORT_LINE.findall(block):
            found[(alias.strip() or path.rsplit("/", 1)[-1])] = path
    for alias, path in _IMPORT_ONE.findall(src):
        found[(alias.strip() or path.rsplit("/", 1)[-1])] = path
    return found


def _load_module(module: str, root: Path, packages: dict[str, _Package]) -> None:
    for file in sorted(root.rglob("*.go")):
        name = file.name
        if name.endswith(("_test.go", ".pb.go")) or name.startswith("zz_generated"):
            continue
        rel = file.parent.relative_to(root).as_posix()
        path = module if rel == "." else f"{module}/{rel}"
        src = file.read_text(encoding="utf-8")
        if not _PACKAGE.search(src):
            continue
        pkg = packages.setdefault(path, _Package(path))
        imports = _imports(src)
        for type_name, body in _STRUCT.findall(src):
            fields: list[tuple[str, str, str, dict[str, str]]] = []
            for line in body.splitlines():
                line = line.split("//", 1)[0] if "`" not in line else line
                m = _FIELD.match(line)
                if m:
                    fields.append((m.group(1), m.group(2), m.group(3).split(",")[0], imports))
                    continue
                e = _EMBEDDED.match(line)
                if e:  # an embedded struct: inline, or a field named by its json tag
                    fields.append((e.group(1).rsplit(".", 1)[-1], e.group(1), e.group(2).split(",")[0], imports))
            pkg.structs[type_name] = fields
        for type_name, underlying in _NAMED.findall(src):
            pkg.named[type_name] = (underlying, imports)


def _split_map(expr: str) -> tuple[str, str]:
    depth, i = 0, 4
    for i in range(3, len(expr)):
        if expr[i] == "[":
            depth += 1
        elif expr[i] == "]":
            depth -= 1
            if depth == 0:
                break
    return expr[4:i], expr[i + 1 :]


def _qualify(expr: str, pkg: _Package, imports: dict[str, str], packages: dict[str, _Package]) -> tuple[str, _Package | None, str]:
    """(reflect name, package defining it, bare name) of a type name."""
    if expr in _BASIC:
        return ("uint8" if expr == "byte" else expr), None, expr
    if "." in expr:
        alias, bare = expr.split(".", 1)
        path = imports.get(alias, alias)
        other = packages.get(path)
        return f"{path.rsplit('/', 1)[-1]}.{bare}", other, bare
    return f"{pkg.name}.{expr}", pkg, expr


def _render(expr: str, pkg: _Package, imports: dict[str, str], packages: dict[str, _Package]) -> str:
    """reflect.Type.String() of a Go type expression."""
    if expr.startswith("*"):
        return "*" + _render(expr[1:], pkg, imports, packages)
    if expr.startswith("[]"):
        return "[]" + _render(expr[2:], pkg, imports, packages)
    if expr.startswith("map["):
        k, v = _split_map(expr)
        return f"map[{_render(k, pkg, imports, packages)}]{_render(v, pkg, imports, packages)}"
    return _qualify(expr, pkg, imports, packages)[0]


def _names(expr: str, pkg: _Package, imports: dict[str, str], packages: dict[str, _Package]) -> list[str]:
    """The Go types a decoder meets going down `expr`: the value's, then its elements' (pointers dropped)."""
    expr = expr.lstrip("*")
    if expr.startswith("[]"):
        return [_render(expr, pkg, imports, packages), *_names(expr[2:], pkg, imports, packages)]
    if expr.startswith("map["):
        return [_render(expr, pkg, imports, packages), *_names(_split_map(expr)[1], pkg, imports, packages)]
    name, owner, bare = _qualify(expr, pkg, imports, packages)
    if owner is not None and bare in owner.named:
        underlying, owner_imports = owner.named[bare]
        if underlying.startswith(("[]", "map[")):
            return [name, *_names(underlying, owner, owner_imports, packages)[1:]]
    return [name]


def _fields(pkg: _Package, struct: str, packages: dict[str, _Package], prefix: str) -> dict[str, list[object]]:
    out: dict[str, list[object]] = {}
    for go_name, expr, json_name, imports in pkg.structs.get(struct, []):
        if json_name == "-":
            continue
        if json_name == "" and not go_name[:1].islower():
            _, owner, bare = _qualify(expr.lstrip("*"), pkg, imports, packages)
            if owner is not None and bare in owner.structs:
                for k, v in _fields(owner, bare, packages, f"{prefix}{go_name}.").items():
                    out.setdefault(k, v)
            continue
        if json_name:
            out[json_name] = [prefix.rstrip("."), _names(expr, pkg, imports, packages)]
    return out


def _definition_package(definition: str) -> tuple[str, str]:
    """("k8s.io/api/core/v1", "Pod") for "io.k8s.api.core.v1.Pod"."""
    parts = definition.split(".")
    if parts[:2] != ["io", "k8s"]:
        return "", parts[-1]
    return "k8s.io/" + "/".join(parts[2:-1]), parts[-1]


def build(swagger: dict[str, object], modules: list[tuple[str, Path]]) -> dict[str, object]:
    """The document kubesim stores: info, definitions and the Go type names of their fields."""
    definitions = swagger["definitions"]
    assert isinstance(definitions, dict)
    packages: dict[str, _Package] = {}
    for module, root in modules:
        _load_module(module, root, packages)
    go_types: dict[str, dict[str, list[object]]] = {}
    for definition in sorted(definitions):
        path, struct = _definition_package(definition)
        pkg = packages.get(path)
        if pkg is not None and struct in pkg.structs:
            go_types[definition] = _fields(pkg, struct, packages, "")
    return {
        "swagger": swagger.get("swagger"),
        "info": swagger.get("info"),
        "definitions": definitions,
        "x-kubesim-go-types": go_types,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("swagger", type=Path, help="Kubernetes' api/openapi-spec/swagger.json")
    parser.add_argument("--go-module", action="append", default=[], metavar="IMPORT_PATH=DIR")
    parser.add_argument("-o", "--output", type=Path, default=_DEFAULT_OUT)
    args = parser.parse_args(argv)
    modules = []
    for spec in args.go_module:
        module, _, directory = spec.partition("=")
        modules.append((module, Path(directory)))
    doc = build(json.loads(args.swagger.read_text(encoding="utf-8")), modules)
    data = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    args.output.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    print(f"{args.output}: {len(doc['definitions'])} definitions, {len(data)} bytes, "  # type: ignore[arg-type]
          f"{args.output.stat().st_size} gzipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
