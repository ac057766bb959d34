"""metav1.Status bodies for failed requests, as kube-apiserver writes them."""

from __future__ import annotations

from typing import Any

from kubesim.errors import ApiError

__all__ = ["status_body", "status_of"]

_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
            406: "NotAcceptable", 409: "Conflict", 410: "Expired", 413: "RequestEntityTooLarge",
            415: "UnsupportedMediaType", 422: "Invalid", 429: "TooManyRequests", 500: "InternalError",
            503: "ServiceUnavailable", 504: "Timeout"}


def status_body(code: int, message: str, reason: str | None = None,
                details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A Failure Status with `code`, `message` and the reason kube-apiserver gives that code."""
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": message, "reason": reason or _REASONS.get(code, ""), "code": code}
    if details:
        body["details"] = details
    return body


def status_of(exc: ApiError, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Status for an ApiError raised by the cluster."""
    body = exc.to_status()
    body["metadata"] = {}
    extra = getattr(exc, "details", None)
    if details or extra:
        body["details"] = {**(details or {}), **(extra or {})}
    return body
