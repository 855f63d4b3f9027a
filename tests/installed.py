"""The installed command line as a user meets it: the ``kinematrix`` entry point of the
environment running the tests (``pip install -e .`` put it beside this Python), run in a process
of its own with a headless matplotlib, never ``dynamics.cli.main`` called in the test's process.

Used by the tests that check what a user runs: the README as written, the example scripts as
commands, the Dask cluster by address, hostile files through the command line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The environment's scripts folder: ``sys.executable`` unresolved (a virtual environment's
#: ``bin/python`` is a link to the system's).
BIN = Path(sys.executable).parent


def entry_point(name="kinematrix") -> str:
    """The path of the installed command ``name``: in the scripts folder of this Python, else on
    PATH; an AssertionError when it is not installed (the tests of the installed command do not
    skip: run ``pip install -e '.[test]'`` first)."""
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    assert found, f"the {name!r} command is not installed in {BIN} nor on PATH: pip install -e '.[test]'"
    return found


def user_environment(extra=None) -> dict:
    """The environment a user's shell gives: this one, with the environment's scripts first on
    PATH, a headless matplotlib and no display, and ``extra`` on top."""
    env = dict(os.environ, MPLBACKEND="Agg", PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    env.pop("DISPLAY", None)
    env.update(extra or {})
    return env


def kinematrix(*args, cwd, env=None, timeout=300, input=None) -> subprocess.CompletedProcess:
    """``kinematrix ARGS`` run in ``cwd`` as a user runs it (``env`` added to the user's
    environment); its status, stdout and stderr as text."""
    return subprocess.run([entry_point(), *map(str, args)], cwd=cwd, env=user_environment(env), input=input,
                          capture_output=True, text=True, timeout=timeout)
