"""Errors kubesim raises: Kubernetes API status errors and invalid-input errors.

`ApiError` mirrors the API server's metav1.Status (code, reason, message) so that
controllers can branch on 404/409/422 exactly as client-go users do.
`InvalidInput` carries every problem found in a user-facing input, each with the
file and field path, so that the CLI can print them all and exit 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

__all__ = [
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "Conflict",
    "Expired",
    "Forbidden",
    "Invalid",
    "InvalidInput",
    "MethodNotSupported",
    "NotFound",
    "Problem",
    "TooManyRequests",
]


class ApiError(Exception):
    """A failed API request, shaped like the API server's metav1.Status."""

    code: int = 500
    reason: str = "InternalError"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        """metav1.StatusDetails (name, group, kind, causes), when the API server sends them."""

    def to_status(self) -> dict[str, object]:
        """Return the metav1.Status object the API server would send."""
        status: dict[str, object] = {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details:
            status["details"] = self.details
        return status


class BadRequest(ApiError):
    code = 400
    reason = "BadRequest"


class Forbidden(ApiError):
    code = 403
    reason = "Forbidden"


class NotFound(ApiError):
    code = 404
    reason = "NotFound"


class AlreadyExists(ApiError):
    code = 409
    reason = "AlreadyExists"


class MethodNotSupported(ApiError):
    code = 405
    reason = "MethodNotAllowed"


class Conflict(ApiError):
    code = 409
    reason = "Conflict"


class Invalid(ApiError):
    code = 422
    reason = "Invalid"


class TooManyRequests(ApiError):
    code = 429
    reason = "TooManyRequests"


class Expired(ApiError):
    code = 410
    reason = "Expired"


@attrs.frozen
class Problem:
    """One thing wrong with an input: where (file and field path) and what was expected."""

    path: str
    message: str
    file: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}: " if self.file else ""
        return f"{where}{self.path}: {self.message}" if self.path else f"{where}{self.message}"


class InvalidInput(Exception):
    """A user-facing input is invalid; holds every problem found, not only the first."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
