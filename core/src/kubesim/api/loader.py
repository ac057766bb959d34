"""Reading Scenario files: YAML or JSON, one or more documents, or a JSON list.

Every problem is reported with the file and the field path; YAML syntax errors
with the line and column; a mapping key written twice is an error at its path. Files are
read within kubesim.input_limits (size, type, UTF-8, nesting, YAML aliases). Nothing is run
here: see `kubesim.api.validation` for the checks that need to know the installed plugins.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kubesim.api.converter import structure
from kubesim.api.pod_ref import resolve_pod_refs
from kubesim.api.scenario import Scenario, check_required_controllers
from kubesim.duplicate_keys import DuplicateKey, DuplicateKeys, load_json, yaml_duplicate_keys
from kubesim.errors import InvalidInput, Problem
from kubesim.input_limits import (
    INPUT_LIMITS,
    MAX_DEPTH,
    FastSafeLoader,
    InputLimitError,
    Limits,
    SafeLoader,
    composed_documents,
    json_key,
    read_text,
    valid_unicode,
)
from kubesim.json_syntax import describe as describe_json_error

__all__ = ["load_documents", "load_scenarios", "parse_scenarios"]


def load_documents(path: str | Path, limits: Limits = INPUT_LIMITS) -> list[Any]:
    """Parse a YAML/JSON file into its documents (a top-level JSON list counts as several),
    within `limits` (size and nesting)."""
    p = Path(path)
    name = str(path)
    try:
        text = read_text(p, max_bytes=limits.max_bytes)
        if p.suffix == ".json":
            docs = [load_json(text, limits.max_depth)]
        else:
            docs = _load_yaml(text, name, limits.max_depth)
    except OSError as exc:
        raise InvalidInput([Problem("", f"cannot read file: {exc.strerror}", name)]) from None
    except InputLimitError as exc:
        raise InvalidInput([Problem("", str(exc), name)]) from None
    except DuplicateKeys as exc:
        raise InvalidInput([d.problem(name) for d in exc.duplicates]) from None
    except json.JSONDecodeError as exc:
        error = describe_json_error(exc)  # kubesim's words: Python's change between versions
        raise InvalidInput(
            [Problem("", f"line {error.line} column {error.column}: JSON syntax error: {error.reason}", name)]
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InvalidInput([Problem("", f"{where}YAML syntax error: {problem}", name)]) from None
    out: list[Any] = []
    for doc in docs:
        out.extend(doc if isinstance(doc, list) else [doc])
    if not out:
        raise InvalidInput([Problem("", "the file holds no scenario", name)])
    return out


_FAST_LOADER = FastSafeLoader  # libyaml, when PyYAML was built with it


def _load_yaml(text: str, name: str, max_depth: int = MAX_DEPTH) -> list[Any]:
    """yaml.safe_load_all, with libyaml when available (~20x faster on a large scenario);
    InvalidInput naming the file `name` and the path of each duplicate key.

    On a syntax error the pure-Python loader parses again, so that messages are the same
    with or without libyaml.
    """
    if _FAST_LOADER is not None:
        try:
            return valid_unicode(text, _load_nodes(text, _FAST_LOADER, name, max_depth))  # type: ignore[no-any-return]
        except yaml.YAMLError:
            pass
    return valid_unicode(text, _load_nodes(text, SafeLoader, name, max_depth))  # type: ignore[no-any-return]


_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


class _Unusual(Exception):
    """A document the fast constructor leaves to PyYAML's (aliases, merge keys, tags) or to
    the duplicate-key check (a key seen twice)."""


def _load_nodes(text: str, loader_class: Any, name: str, max_depth: int = MAX_DEPTH) -> list[Any]:
    """The non-empty documents composed by `loader_class`; plain maps, lists and strings built
    in one recursion, other scalars and unusual documents by PyYAML's SafeConstructor (same
    results, half the time on a large scenario)."""
    loader = loader_class(text)
    try:
        docs: list[Any] = []
        duplicates: list[tuple[int, DuplicateKey]] = []
        for node in composed_documents(loader, text, max_depth):
            try:
                data = _construct(node, loader, set())
            except _Unusual:
                found = yaml_duplicate_keys(node)
                if found:
                    duplicates.extend((len(docs), d) for d in found)
                    docs.append(node)  # in place of the document, to count the documents
                    continue
                data = loader.construct_document(node)
            if data is not None:
                docs.append(data)
        if duplicates:
            raise InvalidInput([d.problem(f"{name} [document {i}]" if len(docs) > 1 else name)
                                for i, d in duplicates])
        return docs
    finally:
        loader.dispose()


def _construct(node: Any, loader: Any, open_nodes: set[int]) -> Any:
    kind = node.id
    if kind == "scalar":
        return node.value if node.tag == _STR_TAG else loader.construct_object(node, deep=True)
    if id(node) in open_nodes:  # an alias: PyYAML shares (or recurses into) the object
        raise _Unusual
    open_nodes.add(id(node))
    if kind == "mapping" and node.tag == _MAP_TAG:
        out: Any = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Unusual
            key = json_key(_construct(key_node, loader, open_nodes))
            try:
                if key in out:  # written twice: the duplicate-key check names it
                    raise _Unusual
                out[key] = _construct(value_node, loader, open_nodes)
            except TypeError:  # an unhashable key: PyYAML's error message
                raise _Unusual from None
    elif kind == "sequence" and node.tag == _SEQ_TAG:
        out = [_construct(item, loader, open_nodes) for item in node.value]
    else:
        raise _Unusual
    open_nodes.discard(id(node))
    return out


def parse_scenarios(documents: list[Any], file: str | None = None) -> list[Scenario]:
    """Structure documents into Scenarios, collecting the problems of all of them."""
    scenarios: list[Scenario] = []
    problems: list[Problem] = []
    for i, doc in enumerate(documents):
        prefix = f"[document {i}] " if len(documents) > 1 else ""
        try:
            check_required_controllers(doc)
            refs = resolve_pod_refs(doc)  # a result given back: its compact podUnscheduled events
            if refs:
                raise InvalidInput([Problem(path, message) for path, message in refs])
            scenarios.append(structure(doc, Scenario, file=file))
        except InvalidInput as exc:
            problems.extend(
                Problem(p.path, p.message, f"{file} {prefix}".strip() if file else prefix.strip() or None)
                for p in exc.problems
            )
    if problems:
        raise InvalidInput(problems)
    return scenarios


def load_scenarios(path: str | Path, limits: Limits = INPUT_LIMITS) -> list[Scenario]:
    """Load every Scenario in a file, in file order.

    The objects of the create operations share their equal parts (a workload's pods one spec):
    they are final, read only, and a large scenario thus holds each pod's own parts only.
    """
    scenarios = parse_scenarios(load_documents(path, limits), str(path))
    from kubesim.scenario.sharing import SubtreeSharer  # the scenario package imports this module

    sharer = SubtreeSharer()
    for scenario in scenarios:
        for op in scenario.spec.operations:
            if op.create_operation is not None:
                sharer.share_object(op.create_operation.object)
    return scenarios
