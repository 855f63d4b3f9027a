"""Compiled kernels sent from a process to the Dask workers of its study, so that a new worker
loads them where it would compile them (half a minute of one core for a corner's walk).

The process that submits a study has just run its nominal design, so numba's disk cache holds
the kernels the study's tasks call, and the process has loaded them. :func:`kernels_to_ship`
reads, for every kernel the process has loaded (a numba dispatcher with compiled code in a
module of a kernel package: ``loops.kernels``, ``dynamics.kernels``), the entries of its
cache for the argument types it has loaded; :func:`run_with_kernels`, a worker's task,
writes them into the worker's own cache before the task's first call
(:func:`install_kernels`, once per process), where the worker has not loaded that kernel yet
and its cache lacks the entry. The worker then loads them as it loads any cached kernel.

What makes a shipped entry right for the worker:

* numba's key of a cache entry holds the argument types, the target machine (the CPU's name
  and features: a worker on another CPU misses the entry and compiles, as without shipping)
  and a hash of the function's bytecode;
* the key does not cover the kernels a kernel calls or inlines from other files, nor the
  Python, numba or llvmlite that compiled it; so entries are written only where the worker's
  kernel package has the sender's digest (numba's version and the sources of the package and
  of those it builds on, :func:`loops.kernels.cache_stamp.kernel_package_digest`) and the worker
  runs the same Python, numba and llvmlite versions. Otherwise nothing is written and the worker compiles, as before;
* the index an entry goes into is stamped with the worker's own source file (its time and
  size), through the worker's cache objects: the entry is valid for the worker's installation.

Anything that fails while reading or writing the entries (a damaged file, a full disk, a
numba whose private names below changed) writes nothing more and leaves the worker to
compile: shipping only ever saves time. The bytes travel as one ``bytes`` object, unpickled
inside that guard on the worker.

numba offers no public API for this: the private names used are ``Dispatcher._cache`` (a
``FunctionCache``), its ``_cache_file`` (an ``IndexDataCacheFile``) and that object's
``_load_index``, ``_save_index``, ``_save_data`` and ``_data_name``, here and nowhere else
(``tests/test_kernel_shipping.py`` checks that a numba without them costs the compile only).
This module imports numba only inside its functions: in a sending process that has imported
it already, and in a worker about to run kernels.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import os
import pathlib
import pickle
import sys
import threading

from loops.kernels import cache_stamp

__all__ = ["FORMAT", "kernels_to_ship", "install_kernels", "run_with_kernels"]

#: The layout of the shipped bytes: ``(FORMAT, versions, kernels)``, where ``versions`` is
#: (Python's major and minor, numba's, llvmlite's) and ``kernels`` a list of ``(module,
#: name, digest of its package, [(index key, numba's pickled cache entry), ...])``.
FORMAT = "kinematrix-kernels-1"

#: The packages whose modules' kernels are shipped.
PACKAGES = ("loops.kernels.", "dynamics.kernels.")
#: The shipped bytes this process has installed (their hashes): installed once per process.
_INSTALLED = set()
_LOCK = threading.Lock()


@functools.lru_cache(maxsize=None)
def kernel_package_digest(module_file):
    """The digest of the kernel package whose source directory holds ``module_file``, as its
    cache is stamped (:func:`loops.kernels.cache_stamp.kernel_package_digest`), read once per
    process."""
    return cache_stamp.kernel_package_digest(pathlib.Path(module_file).resolve().parent)


def _versions():
    import llvmlite  # noqa: PLC0415
    import numba  # noqa: PLC0415

    return (tuple(sys.version_info[:2]), numba.__version__, llvmlite.__version__)


def _loaded_kernels():
    """``(module name, name, dispatcher, digest)`` of every kernel this process has loaded or
    compiled, each once, under the name its module defines it by."""
    from numba.core.dispatcher import Dispatcher  # noqa: PLC0415

    seen, out = set(), []
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith(PACKAGES) or not getattr(module, "__file__", None):
            continue
        for name, value in list(vars(module).items()):
            if isinstance(value, Dispatcher) and value.overloads and id(value) not in seen \
                    and value.py_func.__module__ == module_name:
                seen.add(id(value))
                out.append((module_name, name, value, kernel_package_digest(module.__file__)))
    return out


def _entries(dispatcher):
    """``[(key, bytes of the cache file)]`` of the argument types ``dispatcher`` has loaded."""
    cache = dispatcher._cache
    index = cache._cache_file._load_index()
    return [(key, (pathlib.Path(cache.cache_path) / name).read_bytes()) for key, name in index.items()
            if key[0] in dispatcher.overloads]


def kernels_to_ship():
    """The cache entries of the kernels this process has loaded, as bytes for
    :func:`install_kernels`; None when it has loaded none (numba not used, or its JIT off) or
    when they cannot be read (the workers then compile)."""
    if "numba" not in sys.modules:
        return None
    try:
        from numba.core.serialize import dumps  # noqa: PLC0415 (numba's pickling of its types)

        kernels = []
        for module_name, name, dispatcher, digest in _loaded_kernels():
            entries = _entries(dispatcher)
            if entries:
                kernels.append((module_name, name, digest, entries))
        return dumps((FORMAT, _versions(), kernels)) if kernels else None
    except Exception:  # a cache file gone, a numba without these names: the workers compile
        return None


def _install_one(module_name, name, digest, entries):
    """Write ``entries`` into the worker's cache of the kernel ``module_name.name``; returns
    how many it wrote (0 where the kernel is loaded already, its package's sources differ from
    the sender's, or the cache has every entry)."""
    module = importlib.import_module(module_name)  # registers (and refreshes) its package's cache first
    dispatcher = getattr(module, name)  # with the JIT off, a function: no overloads, AttributeError
    if dispatcher.overloads:
        return 0  # this process has the kernel already
    if kernel_package_digest(module.__file__) != digest:
        return 0  # other sources or another numba: compile
    cache = dispatcher._cache
    cache_file = cache._cache_file
    index = cache_file._load_index()
    missing = [(key, data) for key, data in entries if key not in index]
    if not missing:
        return 0
    os.makedirs(cache.cache_path, exist_ok=True)
    used = set(index.values())
    names = (n for n in map(cache_file._data_name, itertools.count(1)) if n not in used)
    for key, data in missing:
        index[key] = next(names)
        cache_file._save_data(index[key], pickle.loads(data))
    cache_file._save_index(index)  # after the data it names; stamped with this installation's source
    return len(missing)


def install_kernels(shipped):
    """Write the shipped cache entries (:func:`kernels_to_ship`) into this process's numba
    cache where it lacks them and has not loaded the kernel, once per process for the same
    bytes (threads wait for the first). Returns the names of the kernels written
    (``module.function``); nothing on any failure, or where the versions differ: the kernels
    then compile on first use, as without shipping."""
    token = (hash(shipped), len(shipped))
    with _LOCK:
        if token in _INSTALLED:
            return []
        _INSTALLED.add(token)
        try:
            layout, versions, kernels = pickle.loads(shipped)
            if layout != FORMAT or versions != _versions():
                return []
        except Exception:
            return []
        written = []
        for module_name, name, digest, entries in kernels:
            try:
                if _install_one(module_name, name, digest, entries):
                    written.append(f"{module_name}.{name}")
            except Exception:  # this kernel compiles; the others may still load
                continue
        return written


def run_with_kernels(shipped, task, /, **arguments):
    """``task(**arguments)`` on a Dask worker, after :func:`install_kernels` of ``shipped``."""
    install_kernels(shipped)
    return task(**arguments)
