"""A plugin module that prints a Python traceback to stderr while loading, then loads fine."""

import traceback

try:
    {}["missing"]
except KeyError:
    traceback.print_exc()
