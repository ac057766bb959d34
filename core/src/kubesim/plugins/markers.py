"""pluggy markers for the project name "kubesim"."""

import pluggy

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "kubesim"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
