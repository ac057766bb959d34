"""Object templates of scheduler_perf files: YAML files, optionally Go text/template.

Upstream renders createAny/updateAny templates (and, in recent versions, node and pod
templates) with text/template and the environment {Index, Count, templateParams...}. kubesim
renders the subset those files use: `{{.Name}}` and the arithmetic functions upstream
registers (AddInt, SubtractInt, MultiplyInt, DivideInt, Mod and the Float forms) on
`.Name` and number arguments. Anything else in `{{ }}` is an error naming the file. A file
without `{{` is parsed once and copied for each object.
"""

# upstream: test/integration/scheduler_perf/operations.go (getSpecFromTextTemplateFile,
# getTemplateFuncs), util.go (getSpecFromFile)

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from kubesim.duplicate_keys import DuplicateKeys, load_yaml
from kubesim.errors import InvalidInput, Problem
from kubesim.input_limits import InputLimitError, read_text

__all__ = ["TemplateCache", "render_text"]

_ACTION = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}", re.DOTALL)
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _num(value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        return float(value)  # ValueError when it is not a number
    raise ValueError(f"cannot use {value!r} as a number")


def _div(a: Any, b: Any) -> float:
    if _num(b) == 0:
        raise ValueError("division by zero")
    return _num(a) / _num(b)


_FUNCS: dict[str, Callable[..., Any]] = {
    "AddInt": lambda *xs: int(math.fsum(_num(x) for x in xs)),
    "AddFloat": lambda *xs: math.fsum(_num(x) for x in xs),
    "SubtractInt": lambda a, b: int(_num(a) - _num(b)),
    "SubtractFloat": lambda a, b: _num(a) - _num(b),
    "MultiplyInt": lambda *xs: int(math.prod(_num(x) for x in xs)),
    "MultiplyFloat": lambda *xs: math.prod(_num(x) for x in xs),
    "DivideInt": lambda a, b: int(_div(a, b)),
    "DivideFloat": _div,
    "Mod": lambda a, b: int(_num(a)) % int(_num(b)) if int(_num(b)) else _div(a, 0),
}


def _arg(token: str, env: Mapping[str, Any]) -> Any:
    if token.startswith("."):
        key = token[1:]
        if key not in env:
            raise ValueError(f"{token}: no such value (have: {', '.join('.' + k for k in sorted(env))})")
        return env[key]
    if _NUMBER.fullmatch(token):
        return float(token) if "." in token else int(token)
    if len(token) >= 2 and token[0] == token[-1] == '"':
        return token[1:-1]
    raise ValueError(f"unsupported template argument {token!r}")


def _go_text(value: Any) -> str:
    """A value as text/template prints it (%v)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def render_text(text: str, env: Mapping[str, Any]) -> str:
    """`text` with each `{{ }}` action evaluated in `env`; ValueError naming an unsupported one."""
    def action(m: re.Match[str]) -> str:
        tokens = m.group(1).split()
        if not tokens:
            raise ValueError("empty action {{}}")
        if len(tokens) == 1:
            return _go_text(_arg(tokens[0], env))
        fn = _FUNCS.get(tokens[0])
        if fn is None:
            raise ValueError(f"unsupported template action {{{{{m.group(1)}}}}} (kubesim renders .Name and "
                             f"{', '.join(sorted(_FUNCS))})")
        try:
            return _go_text(fn(*(_arg(t, env) for t in tokens[1:])))
        except TypeError:
            raise ValueError(f"wrong number of arguments in {{{{{m.group(1)}}}}}") from None
    return _ACTION.sub(action, text)


def _parse(text: str, name: str) -> Any:
    """One YAML (or JSON) document; InvalidInput naming the file on any problem."""
    try:
        return load_yaml(text)
    except InputLimitError as exc:
        raise InvalidInput([Problem("", str(exc), name)]) from None
    except DuplicateKeys as exc:
        raise InvalidInput([d.problem(name) for d in exc.duplicates]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        raise InvalidInput([Problem("", f"{where}YAML syntax error: {getattr(exc, 'problem', None) or exc}",
                                    name)]) from None


class TemplateCache:
    """Template files read once each; `object(path, env)` gives a fresh object per call."""

    def __init__(self, file: str) -> None:
        self.file = file
        """The scheduler_perf config file (errors name it with the field path of the template)."""
        self._text: dict[Path, str] = {}
        self._parsed: dict[Path, dict[str, Any]] = {}

    def _read(self, path: Path, where: str) -> str:
        text = self._text.get(path)
        if text is None:
            try:
                text = read_text(path)
            except OSError as exc:
                raise InvalidInput([Problem(where, f"cannot read template {path}: {exc.strerror}", self.file)]) from None
            except InputLimitError as exc:
                raise InvalidInput([Problem(where, f"template {path}: {exc}", self.file)]) from None
            self._text[path] = text
        return text

    def object(self, path: Path, env: Mapping[str, Any], where: str, kind: str | None = None) -> dict[str, Any]:
        """The object of template `path` rendered with `env`; `where` is the field path that named it.
        `kind` (a core v1 kind: Node, Pod, ...) is the object's kind when the file leaves it out, as
        upstream decodes node and pod templates straight into their types."""
        text = self._read(path, where)
        if "{{" not in text:
            parsed = self._parsed.get(path)
            if parsed is None:
                parsed = self._check(_parse(text, str(path)), path, where, self.file, kind)
                self._parsed[path] = parsed
            return copy.deepcopy(parsed)
        try:
            rendered = render_text(text, env)
        except ValueError as exc:
            raise InvalidInput([Problem("", f"template: {exc}", str(path))]) from None
        return self._check(_parse(rendered, str(path)), path, where, self.file, kind)

    @staticmethod
    def _check(obj: Any, path: Path, where: str, file: str, kind: str | None) -> dict[str, Any]:
        if kind is not None and isinstance(obj, dict) and obj.get("kind", kind) == kind and "apiVersion" not in obj:
            obj = {"apiVersion": "v1", "kind": kind, **obj}  # upstream decodes these into v1.Node / v1.Pod
        if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
            raise InvalidInput([Problem(where, f"template {path}: expected one Kubernetes object (with kind), "
                                               f"got {json.dumps(obj, default=str)[:60]}", file)])
        return obj
