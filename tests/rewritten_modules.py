"""pytest's rewritten test modules, written once by the run's controlling process for its workers.

pytest rewrites the asserts of every test module (and ``conftest.py``) as it imports it and
keeps the result beside the source (``__pycache__/<module>.<tag>-pytest-<version>.pyc``, its
source's hash inside) -- unless Python writes no bytecode (``PYTHONDONTWRITEBYTECODE``, as on
the machines that run this suite), when each of pytest-xdist's workers rewrites every module
anew on every run: about 2.7 s of a worker's 5.5 to 6.3 s of processor time to collect the
suite. pytest reads a cached module even where it would not write one, so
:func:`write_rewritten` writes them in the controlling process (tests/conftest.py, while the
kernels compile): once for both workers, and for every later run of an unchanged tree. An edited
module's hash no longer matches and pytest rewrites it itself, as before.

This uses pytest's own private functions (the rewrite, the file's name and its format), so
that the file is exactly the one pytest would write; where a pytest version lacks them, nothing
is written and the workers rewrite the modules as before.
"""

from __future__ import annotations

import fnmatch
import pathlib


def _rewriter():
    """pytest's rewrite functions ``(rewrite, read, write, cache_directory, tail, state_key)``,
    or None where this pytest does not have them."""
    try:
        from _pytest.assertion import rewrite  # noqa: PLC0415 (pytest's private API: see the docstring)

        return (rewrite._rewrite_test, rewrite._read_pyc, rewrite._write_pyc, rewrite.get_cache_dir,
                rewrite.PYC_TAIL, rewrite.assertstate_key)
    except (ImportError, AttributeError):
        return None


def rewritten_modules(config, arguments) -> list[pathlib.Path]:
    """The modules pytest rewrites when it collects ``arguments`` (paths, node ids): the test
    files (``python_files``) under each directory or given by name, and the ``conftest.py`` files
    among them."""
    patterns = config.getini("python_files")
    modules = set()
    for argument in arguments:
        path = pathlib.Path(str(argument).split("::")[0]).resolve()
        if path.is_file() and path.suffix == ".py":
            modules.add(path)
        elif path.is_dir():
            modules.update(p for p in path.rglob("*.py") if p.name == "conftest.py"
                           or any(fnmatch.fnmatch(p.name, pattern) for pattern in patterns))
    return sorted(modules)


def write_rewritten(config, modules) -> int:
    """Write pytest's rewritten code of each of ``modules`` where its cache does not hold it for
    the present source; the number written. Writes nothing where the asserts are not rewritten
    (``--assert=plain``) or pytest's private API has changed (see the module docstring)."""
    functions = _rewriter()
    if functions is None or config.getoption("assertmode", "rewrite") != "rewrite":
        return 0
    rewrite, read, write, cache_directory, tail, state_key = functions
    written = 0
    for module in modules:
        try:
            pyc = cache_directory(module) / (module.name[:-3] + tail)
            if read(module, pyc) is not None:
                continue
            source_hash, code = rewrite(module, config)
            pyc.parent.mkdir(exist_ok=True)
            written += bool(write(config.stash[state_key], code, source_hash, pyc))
        except Exception:  # noqa: S112 (a changed private API, or a module pytest will report itself)
            continue
    return written
