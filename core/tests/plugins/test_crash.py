"""Naming a plugin that raised (kubesim.plugins.crash)."""

from __future__ import annotations

import json

import pytest

from kubesim.plugins.crash import PluginCrashed, crash_message, raised_at


def _line(marker: str) -> int:
    return next(i for i, line in enumerate(open(__file__, encoding="utf-8"), 1) if line.rstrip().endswith(marker))


def parse(text: str) -> object:
    return json.loads(text)  # PARSE-LINE


def test_the_innermost_frame_in_the_plugins_package_is_named() -> None:
    with pytest.raises(json.JSONDecodeError) as info:
        parse("{")
    # the error comes from the json module; the plugin's own line is the one that called it
    assert raised_at(info.value, __name__) == f"test_crash.py:{_line('# PARSE-LINE')}"
    # without a module: the innermost frame of all, in the json package
    assert raised_at(info.value).startswith("decoder.py:")


def test_crash_message_and_plugin_crashed() -> None:
    try:
        {}["x"]  # RAISE-LINE
    except KeyError as exc:
        error = exc
    where = f"test_crash.py:{_line('# RAISE-LINE')}"
    assert crash_message('scheduler plugin "Crash" (Filter)', error, __name__) == (
        f"""scheduler plugin "Crash" (Filter) raised KeyError: 'x' at {where}""")
    crashed = PluginCrashed('controller "c"', error, __name__)
    assert (crashed.what, crashed.error, crashed.location) == ('controller "c"', error, where)
    assert str(crashed) == crashed.message == f"""controller "c" raised KeyError: 'x' at {where}"""


def test_an_exception_without_message_or_traceback() -> None:
    assert crash_message('admission plugin "p"', RuntimeError()) == 'admission plugin "p" raised RuntimeError'
