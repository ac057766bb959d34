"""The string formats apiextensions-apiserver enforces on custom resources.

From k8s.io/apiextensions-apiserver pkg/apiserver/validation/formats.go (supportedFormats):
formats outside that list, such as int32 or int64, are not checked. Checks follow the go-openapi
strfmt definitions those formats use.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable, Mapping

__all__ = ["FORMATS"]

_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)
_DATE = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])")
_UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I)
_UUID_V = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-(?P<v>[0-9a-f])[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.I)
_HOSTNAME_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_MAC = re.compile(r"([0-9A-Fa-f]{2}([:-]))(?:[0-9A-Fa-f]{2}\2){4}[0-9A-Fa-f]{2}|([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}")
_DURATION = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w)(\s*(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w))*")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
_HEXCOLOR = re.compile(r"#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})")


def _date_time(v: str) -> bool:
    return bool(_DATE_TIME.fullmatch(v)) and bool(_DATE.fullmatch(v[:10]))


def _byte(v: str) -> bool:
    try:
        base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _ip(version: int) -> Callable[[str], bool]:
    def check(v: str) -> bool:
        try:
            return ipaddress.ip_address(v).version == version
        except ValueError:
            return False
    return check


def _cidr(v: str) -> bool:
    try:
        ipaddress.ip_network(v, strict=False)
    except ValueError:
        return False
    return "/" in v


def _hostname(v: str) -> bool:
    return 0 < len(v) <= 253 and all(_HOSTNAME_LABEL.fullmatch(p) for p in v.rstrip(".").split("."))


def _uuid_version(n: str) -> Callable[[str], bool]:
    def check(v: str) -> bool:
        m = _UUID_V.fullmatch(v)
        return m is not None and m.group("v") == n
    return check


FORMATS: Mapping[str, Callable[[str], bool]] = {
    "date-time": _date_time,
    "datetime": _date_time,
    "date": lambda v: bool(_DATE.fullmatch(v)),
    "byte": _byte,
    "uuid": lambda v: bool(_UUID.fullmatch(v)),
    "uuid3": _uuid_version("3"),
    "uuid4": _uuid_version("4"),
    "uuid5": _uuid_version("5"),
    "ipv4": _ip(4),
    "ipv6": _ip(6),
    "cidr": _cidr,
    "mac": lambda v: bool(_MAC.fullmatch(v)),
    "hostname": _hostname,
    "email": lambda v: bool(_EMAIL.fullmatch(v)),
    "duration": lambda v: bool(_DURATION.fullmatch(v)),
    "hexcolor": lambda v: bool(_HEXCOLOR.fullmatch(v)),
}
"""format name -> does the string have it."""
