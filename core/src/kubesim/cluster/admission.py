"""Admission: the requests plugins see for every write, and the chain that runs their admitters.

Registered admitters behave like admission webhooks: mutating ones may return an RFC 6902
JSON patch, validating ones may only allow or deny. A denial becomes the API error a
webhook denial produces (`admission webhook "<name>" denied the request: <message>`).
The write path builds a `write_request` and runs the chain on it, as k8s.io/apiserver's
REST handlers run pkg/admission's chain (chain.go).

An admitter may say what it applies to, as a webhook configuration's `rules` do
(`admission_rules(kinds=..., operations=..., phases=..., subresources=...)` on the function):
the chain then calls it only on those writes (the admitters each kind, operation and
subresource gets are worked out once, not per write). An admitter that declares nothing is
called on every write, so plugins written before rules existed behave as they did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import attrs
import jsonpatch

from kubesim.errors import ApiError, BadRequest, Conflict, Forbidden, Invalid, NotFound

from .registry import ResourceType
from .store import Key

__all__ = [
    "AdmissionChain",
    "AdmissionRequest",
    "AdmissionResponse",
    "AdmissionRules",
    "Admitter",
    "admission_rules",
    "denial_error",
    "rules_of",
    "write_request",
]

MUTATING = "mutating"
VALIDATING = "validating"
_SAME: Any = object()  # validate(request) without another object


@attrs.frozen
class AdmissionRequest:
    """One write as admitters see it. `object` and `old_object` must not be mutated:
    a mutating admitter returns a JSON patch instead."""

    operation: str
    resource: ResourceType
    subresource: str | None
    namespace: str | None
    name: str
    object: dict[str, Any] | None
    old_object: dict[str, Any] | None
    actor: str
    phase: str


@attrs.frozen
class AdmissionResponse:
    """An admitter's answer; `patch` (RFC 6902 ops) is applied in the mutating phase only."""

    allowed: bool = True
    message: str = ""
    name: str = ""
    patch: list[dict[str, Any]] | None = None
    code: int = 403


Admitter = Callable[[AdmissionRequest], AdmissionResponse | None]
"""Called for every write (or those its AdmissionRules name); returns None (no opinion) or an
AdmissionResponse."""

RULES_ATTRIBUTE = "kubesim_admission_rules"
"""The attribute of an admitter (or a kubesim_admission hook implementation) holding its rules."""


def _names(values: Iterable[Any] | None) -> frozenset[Any] | None:
    return None if values is None else frozenset(values)


@attrs.frozen
class AdmissionRules:
    """The writes an admitter is called on, like a ValidatingWebhookConfiguration's rules.

    Each field left None matches everything. `kinds` holds (API group, kind) pairs, the core
    group being "" (("", "Pod"), ("apps", "Deployment")); `operations` CREATE, UPDATE, DELETE;
    `phases` "mutating", "validating"; `subresources` None for the object itself and names
    such as "status" or "binding" (a pods/binding is a CREATE of subresource "binding").
    """

    kinds: frozenset[tuple[str, str]] | None = attrs.field(default=None, converter=_names)
    operations: frozenset[str] | None = attrs.field(default=None, converter=_names)
    phases: frozenset[str] | None = attrs.field(default=None, converter=_names)
    subresources: frozenset[str | None] | None = attrs.field(default=None, converter=_names)

    def matches(self, phase: str, group: str, kind: str, operation: str, subresource: str | None) -> bool:
        """Whether a write of this shape reaches the admitter."""
        return ((self.phases is None or phase in self.phases)
                and (self.kinds is None or (group, kind) in self.kinds)
                and (self.operations is None or operation in self.operations)
                and (self.subresources is None or subresource in self.subresources))


F = TypeVar("F", bound=Callable[..., Any])


def admission_rules(
    *,
    kinds: Iterable[tuple[str, str]] | None = None,
    operations: Iterable[str] | None = None,
    phases: Iterable[str] | None = None,
    subresources: Iterable[str | None] | None = None,
) -> Callable[[F], F]:
    """Declare what an admitter (or a `kubesim_admission` hook implementation) applies to.

    Put it under `@hookimpl`; the chain then skips the admitter on every other write::

        @hookimpl
        @admission_rules(kinds=[("", "Pod")], operations=["CREATE", "UPDATE"],
                         phases=["mutating"], subresources=[None])
        def kubesim_admission(request, runtime): ...
    """
    rules = AdmissionRules(kinds, operations, phases, subresources)

    def mark(function: F) -> F:
        setattr(function, RULES_ATTRIBUTE, rules)
        return function

    return mark


def rules_of(admitter: Callable[..., Any]) -> AdmissionRules | None:
    """The rules an admitter declared, None when it applies to every write."""
    rules = getattr(admitter, RULES_ATTRIBUTE, None)
    return rules if isinstance(rules, AdmissionRules) else None

_ERRORS: dict[int, type[ApiError]] = {
    400: BadRequest,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: Invalid,
}


def denial_error(response: AdmissionResponse) -> ApiError:
    """The error a denied request fails with; the response's code picks the error class."""
    message = f'admission webhook "{response.name}" denied the request'
    if response.message:
        message += f": {response.message}"
    cls = _ERRORS.get(response.code)
    if cls is not None:
        return cls(message)
    err = ApiError(message)
    err.code = response.code
    err.reason = "Unknown" if response.code < 500 else "InternalError"
    return err


_Shape = tuple[str, str, str, str, str | None]
"""(phase, group, kind, operation, subresource): what selects the admitters of a write."""


class AdmissionChain:
    """The registered admitters, run in registration order within each phase."""

    def __init__(self) -> None:
        self._admitters: dict[str, list[Admitter]] = {MUTATING: [], VALIDATING: []}
        self._selected: dict[_Shape, tuple[Admitter, ...]] = {}

    def add(self, admitter: Admitter, phase: str) -> None:
        """Register an admitter for the "mutating" or "validating" phase."""
        if phase not in self._admitters:
            raise ValueError(f'phase must be "mutating" or "validating", not {phase!r}')
        self._admitters[phase].append(admitter)
        self._selected.clear()

    def _for(self, phase: str, rt: ResourceType, operation: str, subresource: str | None) -> tuple[Admitter, ...]:
        """The admitters of `phase` whose rules match a write, in registration order."""
        shape = (phase, rt.group, rt.kind, operation, subresource)
        selected = self._selected.get(shape)
        if selected is None:
            chosen = []
            for admitter in self._admitters[phase]:
                rules = rules_of(admitter)
                if rules is None or rules.matches(*shape):
                    chosen.append(admitter)
            selected = self._selected[shape] = tuple(chosen)
        return selected

    def applies(self, rt: ResourceType, operation: str, subresource: str | None) -> bool:
        """Whether any admitter of either phase is called on such a write."""
        return bool(self._for(MUTATING, rt, operation, subresource) or self._for(VALIDATING, rt, operation, subresource))

    def mark(self) -> tuple[int, int]:
        """How many admitters each phase holds now (for `truncate`)."""
        return len(self._admitters[MUTATING]), len(self._admitters[VALIDATING])

    def truncate(self, mark: tuple[int, int]) -> None:
        """Forget the admitters registered since `mark` (a scenario's, on a cluster that outlives it)."""
        del self._admitters[MUTATING][mark[0]:]
        del self._admitters[VALIDATING][mark[1]:]
        self._selected.clear()

    def __bool__(self) -> bool:
        return bool(self._admitters[MUTATING] or self._admitters[VALIDATING])

    def mutate(self, request: AdmissionRequest) -> dict[str, Any] | None:
        """Run the mutating admitters; return the (possibly patched) object."""
        if request.phase != MUTATING:
            request = attrs.evolve(request, phase=MUTATING)
        obj = request.object
        for admitter in self._for(MUTATING, request.resource, request.operation, request.subresource):
            if obj is not request.object:
                request = attrs.evolve(request, object=obj)
            response = admitter(request)
            if response is None:
                continue
            if not response.allowed:
                raise denial_error(response)
            if response.patch and obj is not None:
                obj = _apply(obj, response)
        return obj

    def validate(self, request: AdmissionRequest, obj: Any = _SAME) -> None:
        """Run the validating admitters on `request` (with `obj` as its object when given: the
        request is rebuilt only when some admitter will see it); the first denial raises."""
        admitters = self._for(VALIDATING, request.resource, request.operation, request.subresource)
        if not admitters:
            return
        if obj is not _SAME and obj is not request.object:
            request = attrs.evolve(request, object=obj)
        if request.phase != VALIDATING:
            request = attrs.evolve(request, phase=VALIDATING)
        for admitter in admitters:
            response = admitter(request)
            if response is not None and not response.allowed:
                raise denial_error(response)

    # --- the write path's calls -------------------------------------------------------

    def mutate_object(self, request: AdmissionRequest) -> dict[str, Any]:
        """Run the mutating admitters on `request.object` (not None): the object, or a patched one."""
        obj = request.object
        assert obj is not None
        mutated = self.mutate(request)
        if mutated is None or mutated is obj:
            return obj
        _check_identity(mutated, obj)
        return mutated

    def admit(self, request: AdmissionRequest) -> dict[str, Any] | None:
        """Both phases, for requests without built-in steps between them (DELETE, binding)."""
        obj = request.object
        if obj is None:
            self.mutate(request)
        else:
            obj = self.mutate_object(request)
        self.validate(attrs.evolve(request, object=obj))
        return obj


def write_request(
    operation: str,
    rt: ResourceType,
    key: Key,
    obj: dict[str, Any] | None,
    old: dict[str, Any] | None,
    actor: str,
    subresource: str | None,
) -> AdmissionRequest:
    """The request admitters see for a write to `key` (built for the mutating phase)."""
    return AdmissionRequest(
        operation, rt, subresource, key[0] if rt.namespaced else None, key[1], obj, old, actor, MUTATING
    )


def _check_identity(mutated: dict[str, Any], original: dict[str, Any] | None) -> None:
    """Mutating admitters may not move an object to another kind, name or namespace."""
    if original is None:
        return
    before = (
        original.get("apiVersion"),
        original.get("kind"),
        (original.get("metadata") or {}).get("name"),
        (original.get("metadata") or {}).get("namespace"),
    )
    meta = mutated.get("metadata")
    after = (
        mutated.get("apiVersion"),
        mutated.get("kind"),
        meta.get("name") if type(meta) is dict else None,
        meta.get("namespace") if type(meta) is dict else None,
    )
    if before != after:
        raise BadRequest(f"a mutating admitter changed the object's identity from {before} to {after}")


def _apply(obj: dict[str, Any], response: AdmissionResponse) -> dict[str, Any]:
    try:
        patched: dict[str, Any] = jsonpatch.apply_patch(obj, response.patch or [])
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, KeyError) as exc:
        err = ApiError(f'admission webhook "{response.name}" returned a patch that cannot be applied: {exc}')
        raise err from None
    if not isinstance(patched, dict):
        raise ApiError(f'admission webhook "{response.name}" patched the object into a non-object')
    return patched
