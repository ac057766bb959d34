"""Admission: the requests plugins see for every write, and the chain that runs their admitters.

Registered admitters behave like admission webhooks: mutating ones may return an RFC 6902
JSON patch, validating ones may only allow or deny. A denial becomes the API error a
webhook denial produces (`admission webhook "<name>" denied the request: <message>`).
The write path builds a `write_request` and runs the chain on it, as k8s.io/apiserver's
REST handlers run pkg/admission's chain (chain.go).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import jsonpatch

from kubesim.errors import ApiError, BadRequest, Conflict, Forbidden, Invalid, NotFound

from .registry import ResourceType
from .store import Key

__all__ = [
    "AdmissionChain",
    "AdmissionRequest",
    "AdmissionResponse",
    "Admitter",
    "denial_error",
    "write_request",
]

MUTATING = "mutating"
VALIDATING = "validating"


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
"""Called for every write; returns None (no opinion) or an AdmissionResponse."""

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


class AdmissionChain:
    """The registered admitters, run in registration order within each phase."""

    def __init__(self) -> None:
        self._admitters: dict[str, list[Admitter]] = {MUTATING: [], VALIDATING: []}

    def add(self, admitter: Admitter, phase: str) -> None:
        """Register an admitter for the "mutating" or "validating" phase."""
        if phase not in self._admitters:
            raise ValueError(f'phase must be "mutating" or "validating", not {phase!r}')
        self._admitters[phase].append(admitter)

    def mark(self) -> tuple[int, int]:
        """How many admitters each phase holds now (for `truncate`)."""
        return len(self._admitters[MUTATING]), len(self._admitters[VALIDATING])

    def truncate(self, mark: tuple[int, int]) -> None:
        """Forget the admitters registered since `mark` (a scenario's, on a cluster that outlives it)."""
        del self._admitters[MUTATING][mark[0]:]
        del self._admitters[VALIDATING][mark[1]:]

    def __bool__(self) -> bool:
        return bool(self._admitters[MUTATING] or self._admitters[VALIDATING])

    def mutate(self, request: AdmissionRequest) -> dict[str, Any] | None:
        """Run the mutating admitters; return the (possibly patched) object."""
        if request.phase != MUTATING:
            request = attrs.evolve(request, phase=MUTATING)
        obj = request.object
        for admitter in self._admitters[MUTATING]:
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

    def validate(self, request: AdmissionRequest) -> None:
        """Run the validating admitters; the first denial raises."""
        if request.phase != VALIDATING:
            request = attrs.evolve(request, phase=VALIDATING)
        for admitter in self._admitters[VALIDATING]:
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
