"""Plugin result status: a code, reasons, an optional error and the plugin that set it."""

# upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go (Code, Status)

from __future__ import annotations

import enum
from collections.abc import Iterable

__all__ = ["Code", "Status", "code_of", "is_success", "as_status"]


class Code(enum.IntEnum):
    """Status codes in upstream order; str() gives the upstream name."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    def __str__(self) -> str:
        return _CODE_NAMES[self.value]


_CODE_NAMES = ("Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending")


class Status:
    """The result of running a plugin; None stands for Success everywhere."""

    __slots__ = ("code", "_reasons", "error", "plugin")

    def __init__(
        self,
        code: Code = Code.SUCCESS,
        *reasons: str,
        error: BaseException | None = None,
        plugin: str = "",
    ) -> None:
        self.code = code if type(code) is Code else Code(code)
        self._reasons = list(reasons)
        self.error = error
        self.plugin = plugin

    @classmethod
    def from_error(cls, err: BaseException | str, plugin: str = "") -> Status:
        """AsStatus: wrap an error into an Error status."""
        e = err if isinstance(err, BaseException) else RuntimeError(err)
        return cls(Code.ERROR, error=e, plugin=plugin)

    @property
    def reasons(self) -> list[str]:
        """Reasons, with the error text first when there is one."""
        if self.error is not None:
            return [str(self.error), *self._reasons]
        return list(self._reasons)

    def append_reason(self, reason: str) -> None:
        self._reasons.append(reason)

    def message(self) -> str:
        """Reasons joined by ', ' (Status.Message)."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        self.plugin = plugin
        return self

    def with_error(self, err: BaseException) -> Status:
        self.error = err
        return self

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_wait(self) -> bool:
        return self.code == Code.WAIT

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def format(self) -> str:
        """'<Code>: [reason reason]', the form used by the conformance data and result maps."""
        return f"{self.code}: [{' '.join(self.reasons)}]"

    def __eq__(self, other: object) -> bool:
        if other is None:
            return self.is_success()
        if not isinstance(other, Status):
            return NotImplemented
        return (
            self.code == other.code
            and self.reasons == other.reasons
            and self.plugin == other.plugin
        )

    def __hash__(self) -> int:
        return hash((self.code, tuple(self.reasons), self.plugin))

    def __repr__(self) -> str:
        p = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"Status({self.code}, {self.reasons!r}{p})"

    def __str__(self) -> str:
        return self.message()


def code_of(s: Status | None) -> Code:
    return Code.SUCCESS if s is None else s.code


def is_success(s: Status | None) -> bool:
    return s is None or s.code == Code.SUCCESS


def as_status(value: Status | None | Iterable[str]) -> Status | None:
    """Normalise a plugin return value (None, a Status) to Status | None."""
    if value is None or isinstance(value, Status):
        return value
    raise TypeError(f"plugin returned {type(value).__name__}, want Status or None")
