"""Test-suite settings: a headless matplotlib backend before anything imports pyplot, the
commands' kernels compiled whatever their job, and the kernels compiled on both cores before
the first test (see ``tests/compile_kernels.py``)."""

import gc
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# The suite's commands run the kernels compiled, as they did before a small job on a cold cache
# ran them as plain Python; tests/test_first_run.py sets the mode it tests.
os.environ.setdefault("KINEMATRIX_KERNELS", "compiled")

_COMPILE = pathlib.Path(__file__).resolve().parent / "compile_kernels.py"
_ROOT = _COMPILE.parent.parent
#: The project's packages, whose modules every command imports.
_PACKAGES = ("mechanism", "loops", "dynamics")
#: Seconds a compile process may take (about 85 on a quiet 2-core machine) before the run goes on
#: without it; its kernels are then compiled by the tests that need them.
_COMPILE_BUDGET = 900


def _jit_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def _workers(config) -> bool:
    """Whether this run's tests run in pytest-xdist's worker processes."""
    return bool(config.getoption("numprocesses", None)) and config.getoption("dist", "no") != "no"


def _write_rewritten(config):
    """In the controlling process of a run with workers: pytest's rewritten test modules written
    once for all of them (``tests/rewritten_modules.py``)."""
    if _workers(config):
        from rewritten_modules import rewritten_modules, write_rewritten

        write_rewritten(config, rewritten_modules(config, config.args))


def pytest_configure(config):
    """Once per run, in the controlling process (not in pytest-xdist's workers): compile (or load)
    the two kernel families in two processes at once. With a warm cache this takes the time of
    loading it (a second or two); on a fresh machine it halves the compile time of the run. A
    family that fails to compile here is compiled again by the first test that needs it, whose
    failure then says why. Meanwhile the packages are byte-compiled (:func:`_byte_compile`) and
    the test modules rewritten for the workers (:func:`_write_rewritten`)."""
    if hasattr(config, "workerinput"):
        return
    if _jit_disabled() or config.option.collectonly:
        _write_rewritten(config)
        return
    from compile_kernels import EVALUATION_COMPILED, FAMILIES

    scratch = tempfile.TemporaryDirectory()
    environment = dict(os.environ, **{EVALUATION_COMPILED: os.path.join(scratch.name, "evaluation-compiled")})
    processes = [subprocess.Popen([sys.executable, str(_COMPILE), family], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, env=environment) for family in FAMILIES]
    _byte_compile()
    _write_rewritten(config)
    with scratch:
        _wait_for(FAMILIES, processes)


def _wait_for(families, processes):
    """Wait for the compile processes; say on stderr which failed or ran out of time."""
    for family, process in zip(families, processes):
        try:
            _, errors = process.communicate(timeout=_COMPILE_BUDGET)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            print(f"tests/compile_kernels.py {family}: stopped after {_COMPILE_BUDGET} s", file=sys.stderr)
            continue
        if process.returncode != 0:
            tail = errors.strip().splitlines()[-1:] or ["no message"]
            print(f"tests/compile_kernels.py {family} failed: {tail[0]}", file=sys.stderr)


def _byte_compile():
    """Write the bytecode of the project's packages (``compileall``, as ``pip install`` does for an
    installed package, and Python on a first import), while the kernels compile: an editable
    install is never byte-compiled, and where ``PYTHONDONTWRITEBYTECODE`` is set every process
    the tests start compiled the packages' sources anew (about 0.07 s of processor time a
    command, some 300 commands). Python checks each file against its source, so an edited
    module is compiled from its source as before; nothing else changes."""
    import compileall  # noqa: PLC0415

    for package in _PACKAGES:
        compileall.compile_dir(_ROOT / package, quiet=1)


@pytest.fixture(scope="session")
def distributed():
    """``dask.distributed`` (the test extra installs it: the tests that take it never skip),
    imported by the first test that starts a cluster: a worker process that runs none of them
    (they share the xdist group ``dask-cluster``) does not import it (0.25 s of processor time)."""
    import dask.distributed  # noqa: PLC0415

    return dask.distributed


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """In a pytest-xdist worker under ``--dist loadgroup``: give each test marked
    ``xdist_group("name")`` the ``@name`` suffix of its node id by which the scheduler sends the
    tests of one group to one process, where pytest-xdist's own hook could not. From pytest 9.2
    an item's id is structured (``item._id``) and xdist 3.8 still writes the former string field,
    so every group was silently spread over both processes (pytest-dev/pytest-xdist#1386): the
    README's Python sessions then ran once in each. Does nothing where xdist set the suffix."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                        for mark in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
            # the suffix goes after the parameters, in the last name: the id then reads back the
            # same from its parts (reports rebuild it) as from its string
            node = item._id
            last = node.names[-1] + (f"[{node.params}]" if node.params is not None else "") + suffix
            item._id = type(node)(path=node.path, names=(*node.names[:-1], last))


def pytest_collection_finish(session):
    """Once the tests are collected (in each test process): what is there by now (numpy's,
    numba's and llvmlite's objects, the packages, the test modules and their items) lives to the
    run's end, so it goes to the collector's permanent generation (:func:`gc.freeze`, after one
    collection of whatever is already garbage). The cycle collector's full passes during the
    tests then walk only what the tests make, not the whole heap again each time. Nothing a
    test checks changes."""
    gc.collect()
    gc.freeze()


def pytest_unconfigure(config):
    """At the end of each test process (pytest-xdist's workers and the controlling one): its
    objects go to the collector's permanent generation (:func:`gc.freeze`), so that the
    interpreter's exit frees them without first walking them all for cycles (as the command
    line does: :func:`dynamics.cli.main`), about half a second of a worker's exit."""
    gc.freeze()
