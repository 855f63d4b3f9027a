"""The ``kinematrix`` command as a user meets it: the installed entry point
(``pip install -e .`` puts it beside the interpreter), run in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys


def kinematrix_program() -> str:
    """Path of the installed ``kinematrix`` script: beside this interpreter (a virtual
    environment), else on PATH."""
    found = shutil.which("kinematrix", path=os.path.dirname(sys.executable)) or shutil.which("kinematrix")
    if found is None:
        raise RuntimeError("the kinematrix command is not installed: run python3 -m pip install -e '.[test]'")
    return found


def run_kinematrix(*args, cwd, timeout=300, env=None, **options) -> subprocess.CompletedProcess:
    """``kinematrix ARGS`` in ``cwd`` -> CompletedProcess (text, captured; headless matplotlib)."""
    env = dict(os.environ if env is None else env, MPLBACKEND="Agg")
    return subprocess.run([kinematrix_program(), *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, **options)
