"""The shipped example scripts as modules: ``examples/<name>.py`` imported from its file (the
examples are scripts, not a package), for the tests that run their ``main()`` or call their
functions."""

from __future__ import annotations

import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example_module(name):
    """``examples/<name>.py`` imported as the module ``example_<name>``."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
