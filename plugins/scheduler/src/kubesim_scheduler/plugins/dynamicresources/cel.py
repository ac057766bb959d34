"""Device selectors: CEL expressions over one device, in the DRA environment, with cel-python.

The environment is upstream's (k8s.io/dynamic-resource-allocation/cel/compile.go): a
`device` with `driver`, `attributes[domain][id]` and `capacity[domain][id]`; an attribute or
capacity name without a domain is in the driver's domain; an absent domain is an empty map
(so `device.attributes["other"].x` is a "no such key" runtime error, as upstream). Capacities
are Kubernetes quantities (`quantity("40Gi")`, `compareTo`, `isGreaterThan`, `isLessThan`,
`add`, `sub`, `asInteger`, `asApproximateFloat`, `sign`, `isInteger`) and version attributes
are semantic versions (`semver("1.2.3")`, `compareTo`, `isGreaterThan`, `isLessThan`,
`major`, `minor`, `patch`). Expressions are bounded by upstream's length limit (10 KiB) and a
nesting limit, and errors are upstream's "CEL compile error" / "CEL runtime error" texts.
"""

# upstream: staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (CompileCELExpression,
# DeviceMatches, parseQualifiedName), staging/src/k8s.io/apiserver/pkg/cel/library/quantity.go,
# semver.go

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import celpy
from celpy import celtypes
from kubesim.k8s.quantity import NANO, QuantityError, parse_nano

__all__ = ["CelError", "CompiledSelector", "compile_selector", "device_matches", "MAX_EXPRESSION_LENGTH"]

MAX_EXPRESSION_LENGTH = 10 * 1024
_MAX_NESTING = 64  # parentheses/brackets: deep nesting would exhaust the parser's recursion


class CelError(ValueError):
    """A selector that does not compile, or fails while evaluated (the message says which)."""


class Quantity:
    """A Kubernetes quantity in CEL (apiserver's cel.Quantity), compared by value."""

    __slots__ = ("nano",)

    def __init__(self, nano: int) -> None:
        self.nano = nano

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and other.nano == self.nano

    def __hash__(self) -> int:
        return hash(self.nano)

    def __repr__(self) -> str:
        return f"Quantity({self.nano}n)"


class Semver:
    """A semantic version in CEL (apiserver's cel.Semver); pre-release versions sort first."""

    __slots__ = ("key", "text")
    _RE = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")

    def __init__(self, text: str) -> None:
        m = self._RE.match(text)
        if m is None:
            raise CelError(f"could not parse {text!r} as semver")
        pre = m.group(4)
        pre_key: tuple[Any, ...] = (1,) if pre is None else (0, *((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")))
        self.key = (int(m.group(1)), int(m.group(2)), int(m.group(3)), pre_key)
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


class _DefaultMap(celtypes.MapType):
    """attributes/capacity: a missing domain reads as an empty map (newStringInterfaceMapWithDefault)."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return super().__getitem__(key)
        except KeyError:
            return celtypes.MapType()


def _quantity(text: Any) -> Quantity:
    try:
        return Quantity(parse_nano(str(text)))
    except QuantityError as e:
        raise CelError(f"quantity: {e}") from e


def _semver(text: Any) -> Semver:
    return Semver(str(text))


def _cmp(a: Any, b: Any) -> int:
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        return (a.nano > b.nano) - (a.nano < b.nano)
    if isinstance(a, Semver) and isinstance(b, Semver):
        return (a.key > b.key) - (a.key < b.key)
    raise CelError(f"no such overload: compareTo({type(a).__name__}, {type(b).__name__})")


def _num(q: Any) -> Quantity:
    if not isinstance(q, Quantity):
        raise CelError(f"no such overload for {type(q).__name__}")
    return q


def _as_integer(q: Any) -> celtypes.IntType:
    nano = _num(q).nano
    if nano % NANO:
        raise CelError("cannot convert value to integer")
    return celtypes.IntType(nano // NANO)


_FUNCTIONS: dict[str, Any] = {
    "quantity": _quantity,
    "semver": _semver,
    "isQuantity": lambda s: celtypes.BoolType(_try(_quantity, s)),
    "isSemver": lambda s: celtypes.BoolType(_try(_semver, s)),
    "compareTo": lambda a, b: celtypes.IntType(_cmp(a, b)),
    "isGreaterThan": lambda a, b: celtypes.BoolType(_cmp(a, b) > 0),
    "isLessThan": lambda a, b: celtypes.BoolType(_cmp(a, b) < 0),
    "add": lambda a, b: Quantity(_num(a).nano + (b.nano if isinstance(b, Quantity) else int(b) * NANO)),
    "sub": lambda a, b: Quantity(_num(a).nano - (b.nano if isinstance(b, Quantity) else int(b) * NANO)),
    "asInteger": _as_integer,
    "isInteger": lambda q: celtypes.BoolType(_num(q).nano % NANO == 0),
    "asApproximateFloat": lambda q: celtypes.DoubleType(_num(q).nano / NANO),
    "sign": lambda q: celtypes.IntType((_num(q).nano > 0) - (_num(q).nano < 0)),
    "major": lambda v: celtypes.IntType(v.key[0]),
    "minor": lambda v: celtypes.IntType(v.key[1]),
    "patch": lambda v: celtypes.IntType(v.key[2]),
}


def _try(fn: Any, arg: Any) -> bool:
    try:
        fn(arg)
        return True
    except CelError:
        return False


@functools.lru_cache(maxsize=1)
def _env() -> Any:
    """The CEL environment, built on first use: building its parser costs about 0.1 s of CPU,
    which runs without a device selector (nearly all) need not pay."""
    return celpy.Environment()


class CompiledSelector:
    """One compiled selector expression."""

    __slots__ = ("expression", "_program")

    def __init__(self, expression: str, program: Any) -> None:
        self.expression = expression
        self._program = program

    def matches(self, activation: Mapping[str, Any]) -> bool:
        """Evaluate against a device activation (see `device_activation`); CelError on failure."""
        try:
            result = self._program.evaluate(activation)
        except CelError:
            raise
        except RecursionError as e:
            raise CelError("expression too deeply nested") from e
        except Exception as e:  # celpy raises its own evaluation errors
            raise CelError(_eval_message(e)) from e
        if isinstance(result, celtypes.BoolType) or isinstance(result, bool):
            return bool(result)
        if isinstance(result, Exception):
            raise CelError(_eval_message(result))
        raise CelError(f"CEL result of type {type(result).__name__} could not be converted to bool")


def _eval_message(e: BaseException) -> str:
    args = getattr(e, "args", ())
    if args and isinstance(args[0], str):
        text = args[0]
        if text.startswith("undeclared reference to "):
            return text.split(" (in activation", 1)[0] + " (in container '')"
        if text.startswith("no such member in mapping: "):
            return "no such key: " + text.removeprefix("no such member in mapping: ").strip("'")
        return text
    return str(e)


@functools.lru_cache(maxsize=512)
def compile_selector(expression: str) -> CompiledSelector:
    """Compile a selector (cached per expression, like upstream's CEL cache); CelError when it does not compile."""
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise CelError(f"compilation failed: expression longer than {MAX_EXPRESSION_LENGTH} bytes")
    depth = max_depth = 0
    for ch in expression:
        if ch in "([{":
            depth += 1
            max_depth = max(max_depth, depth)
        elif ch in ")]}":
            depth -= 1
    if max_depth > _MAX_NESTING:
        raise CelError(f"compilation failed: expression nested deeper than {_MAX_NESTING} levels")
    try:
        env = _env()
        ast = env.compile(expression)
        program = env.program(ast, functions=_FUNCTIONS)
    except RecursionError as e:
        raise CelError("compilation failed: expression too deeply nested") from e
    except Exception as e:  # celpy.CELParseError and friends
        text = " ".join(str(e).split())
        raise CelError(f"compilation failed: {text}") from e
    problem = _check_references(ast, frozenset())
    if problem:
        raise CelError(f"compilation failed: ERROR: <input>: {problem}")
    return CompiledSelector(expression, program)


_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_DEVICE_FIELDS = frozenset({"driver", "attributes", "capacity"})


def _check_references(node: Any, bound: frozenset[str]) -> str | None:
    """The checker's part cel-python leaves out: every identifier is `device` or a macro's
    variable, and `device` has only its declared fields (upstream: compile errors)."""
    data = getattr(node, "data", None)
    children = list(getattr(node, "children", ()))
    if data == "ident":
        name = str(children[0])
        if name != "device" and name not in bound:
            return f"undeclared reference to '{name}' (in container '')"
        return None
    if data == "member_dot" and len(children) == 2:
        if _ident_of(children[0]) == "device" and "device" not in bound:
            field = str(children[1])
            if field not in _DEVICE_FIELDS:
                return f"undefined field '{field}'"
    if data == "member_dot_arg" and len(children) == 3 and str(children[1]) in _MACROS:
        problem = _check_references(children[0], bound)
        if problem:
            return problem
        args = list(getattr(children[2], "children", ()))
        var = _ident_of(args[0]) if args else None
        if var is None:
            return f"argument is not an identifier in {children[1]}()"
        for arg in args[1:]:
            problem = _check_references(arg, bound | {var})
            if problem:
                return problem
        return None
    for child in children:
        if hasattr(child, "data"):
            problem = _check_references(child, bound)
            if problem:
                return problem
    return None


def _ident_of(expr: Any) -> str | None:
    """The identifier an expression consists of (a macro's loop variable), else None."""
    node = expr
    while hasattr(node, "data") and node.data != "ident":
        kids = [c for c in node.children if hasattr(c, "data")]
        if len(kids) != 1 or len(node.children) != 1:
            return None
        node = kids[0]
    return str(node.children[0]) if getattr(node, "data", None) == "ident" else None


def _split(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def _attribute_value(value: Mapping[str, Any]) -> Any:
    if "int" in value:
        return celtypes.IntType(int(value["int"]))
    if "bool" in value:
        return celtypes.BoolType(bool(value["bool"]))
    if "string" in value:
        return celtypes.StringType(str(value["string"]))
    if "version" in value:
        return Semver(str(value["version"]))
    raise CelError("unsupported attribute value")


def device_activation(driver: str, device: Mapping[str, Any]) -> dict[str, Any]:
    """The `device` variable for one ResourceSlice device (attributes and capacity by domain)."""
    attributes: dict[Any, Any] = {}
    for name, value in sorted((device.get("attributes") or {}).items()):
        domain, ident = _split(name, driver)
        attributes.setdefault(celtypes.StringType(domain), celtypes.MapType())[celtypes.StringType(ident)] = _attribute_value(value or {})
    capacity: dict[Any, Any] = {}
    for name, value in sorted((device.get("capacity") or {}).items()):
        domain, ident = _split(name, driver)
        capacity.setdefault(celtypes.StringType(domain), celtypes.MapType())[celtypes.StringType(ident)] = _quantity((value or {}).get("value"))
    return {"device": celtypes.MapType({
        celtypes.StringType("driver"): celtypes.StringType(driver),
        celtypes.StringType("attributes"): _DefaultMap(attributes),
        celtypes.StringType("capacity"): _DefaultMap(capacity),
    })}


def device_matches(expression: str, driver: str, device: Mapping[str, Any]) -> bool:
    """Whether one device satisfies a selector (compiles on first use)."""
    return compile_selector(expression).matches(device_activation(driver, device))
