"""The decorators every compiled kernel of kinematrix uses, and the care of their disk cache.

``kernel`` is numba's ``njit`` with an on-disk cache (``cache=True``: compiled once per
machine, loaded afterwards), numpy's error model (a division by zero gives inf or nan, as
in numpy, instead of raising; every caller checks finiteness where it matters) and no GIL.
``inline_kernel`` is the same for the small helpers (4x4 products, twists, pair matrices),
inlined into their callers so that views of the callers' arrays cost nothing.

Both are compiled without numba's reference counting (``_nrt=False``): the kernels take
the system's frozen arrays and preallocated scratch and allocate nothing, and counting the
references of every array in the named tuples at every call and every view cost about a
third of a sweep (measured: link poses 1.12 -> 0.67 us, the wishbone sweep 27.7 -> 17.8 us
per position) and a third of the compile time (the sweep kernels 67 -> 41 s; the dynamics
kernels, the integrator included, a first simulation 115 -> about 80 s). Such a kernel copies
arrays with the loops of :mod:`.arrays` (``a[:] = b`` would need a temporary) and never
returns an array it did not receive. ``allocating_kernel`` and ``allocating_inline_kernel``
keep the counting for the few kernels that allocate, all called from Python only (the
energies along a result, the inverse dynamics); they may call the others, not the reverse
(a callee that does not say otherwise is compiled with its caller's runtime).
``callback_kernel`` holds the GIL, for the kernels that call Python load functions back
(numba's object mode; without reference counting it cannot return an array, so the Python
side writes into the kernel's array: :func:`dynamics.loads.call_load_into`).

Compile time is mostly LLVM's, and it grows with the number of fields a kernel receives:
numba passes every array of a named tuple as seven to eleven arguments of its own and copies
the whole tuple at every use. Kernels called with large tuples (the integrator's states)
take the parts they use. For every compiled signature numba also writes a CPython wrapper
(unboxing each argument from Python: for named tuples of arrays, tens of kilobytes of
machine code, as much as the kernel's own) and a C wrapper: no kernel is called through C,
so none gets one, and ``internal_kernel`` marks the kernels that only other kernels call
(the corrector, the factorization, the walk's step, the dynamics' terms), which get no
CPython wrapper either (measured: a first simulation compiled 73.6 -> 69.4 s). Called from
Python anyway (a test, a rare path), such a kernel compiles a twin with the wrapper, cached
under a name of its own, and runs that: the same function, nothing lost but the time.
A call between kernels passes every field of every array of its named tuples (hundreds of
machine words) through the stack; ``forceinline=True`` has LLVM inline the hot kernels with
few call sites into their callers instead (the closure's evaluation, the factorization, the
step's helpers, the rates), which made the walk a sixth faster and costs no compile time.
With ``NUMBA_DISABLE_JIT=1`` numba returns the functions unchanged and they run as plain
Python: the same code, slower, which is how the kernel tests run a second time.

numba's cache checks the source file of each cached function but not the files of the
functions it calls or inlines. So the first time kernels are loaded in a process, a digest
of every kernel source file is compared with the one stored beside the cache; when they
differ (a new version, an edit), the cached kernels of kinematrix are deleted and compiled
anew, and stderr says so ("compiling kernels, first run only").

This module imports numba; it is imported only when a kernel is first needed (the
packages ``mechanism``, ``loops`` and ``dynamics`` do not import it at import time).
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import sys
import types

import numba
from numba.core.registry import CPUDispatcher

__all__ = ["kernel", "internal_kernel", "inline_kernel", "allocating_kernel", "allocating_inline_kernel",
           "callback_kernel", "KERNEL_DIRECTORIES", "INLINED_DIRECTORIES"]

#: The directories holding kernel modules (their sources make the digest).
KERNEL_DIRECTORIES = (pathlib.Path(__file__).resolve().parent,
                      pathlib.Path(__file__).resolve().parent.parent.parent / "dynamics" / "kernels")
#: Sources the kernels inline without holding a cache of their own: the pair families' (:mod:`.pairs`).
INLINED_DIRECTORIES = (pathlib.Path(__file__).resolve().parent.parent.parent / "mechanism" / "pairs",)
_STAMP = "kinematrix-kernels.digest"


def _digest() -> str:
    h = hashlib.sha256(numba.__version__.encode())
    for directory in KERNEL_DIRECTORIES + INLINED_DIRECTORIES:
        for path in sorted(directory.glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _cache_directories():
    """Where numba keeps the kernels' cache: ``__pycache__`` beside the sources, or numba's
    user cache directory when that is not writable (or ``NUMBA_CACHE_DIR``)."""
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:  # below it, numba names a directory for each source directory (its name and a hash of its path)
        from numba.core.caching import _CacheLocator  # noqa: PLC0415

        return [pathlib.Path(custom) / _CacheLocator.get_suitable_cache_subpath(str(directory / "__init__.py"))
                for directory in KERNEL_DIRECTORIES]
    return [directory / "__pycache__" for directory in KERNEL_DIRECTORIES]


def _refresh_cache():
    """Delete kinematrix's cached kernels when the kernel sources changed; say when compiling."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return
    digest = _digest()
    directories = _cache_directories()
    stamp = directories[0] / _STAMP
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in directory.iterdir():
            if path.suffix in (".nbi", ".nbc"):
                try:
                    path.unlink()
                except OSError:
                    pass
    print("kinematrix: compiling kernels, first run only (under a minute)", file=sys.stderr)
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only installation: numba caches elsewhere or not at all


_refresh_cache()

#: What every kernel is compiled with (see the module docstring). ``forceinline`` is always
#: given: a callee that does not say inherits its caller's.
_COMMON = {"error_model": "numpy", "no_cfunc_wrapper": True, "forceinline": False}
#: The kernels without reference counting and without the GIL.
_OPTIONS = dict(_COMMON, nogil=True, _nrt=False)

inline_kernel = numba.njit(cache=True, inline="always", **_OPTIONS)
allocating_kernel = numba.njit(cache=True, nogil=True, **_COMMON)
allocating_inline_kernel = numba.njit(cache=True, nogil=True, inline="always", **_COMMON)
callback_kernel = numba.njit(cache=True, **_COMMON)


def kernel(function=None, *, forceinline=False):
    """A compiled kernel (numba's ``njit`` with :data:`_OPTIONS`, cached), callable from Python
    and from kernels; ``@kernel`` or ``@kernel(forceinline=True)`` (see :func:`internal_kernel`)."""
    if function is None:
        return lambda f: kernel(f, forceinline=forceinline)
    return numba.njit(cache=True, **dict(_OPTIONS, forceinline=forceinline))(function)


class _KernelOnly(CPUDispatcher):
    """A dispatcher compiled without the CPython wrapper (:func:`internal_kernel`). A call from
    Python (which would need the wrapper) goes to a twin of the same function compiled as an
    ordinary :func:`kernel` under the name ``<name>.from_python`` (a cache entry of its own, so
    the two never load each other's code)."""

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_from_python")
        if twin is None:
            function = self.py_func
            copy = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                                      function.__defaults__, function.__closure__)
            copy.__qualname__ = f"{function.__qualname__}.from_python"
            copy.__module__ = function.__module__
            copy.__doc__ = function.__doc__
            twin = self.__dict__["_from_python"] = kernel(copy)
        return twin(*args, **kwargs)


def internal_kernel(function=None, *, forceinline=False):
    """:func:`kernel` for a function that kernels call and Python does not (see the module
    docstring): compiled without the CPython wrapper, cached; plain Python with
    ``NUMBA_DISABLE_JIT=1``.

    ``forceinline=True``: LLVM inlines its machine code into every kernel that calls it (numba's
    ``forceinline``: no call and no argument passing, where a call passes each of the hundreds
    of arrays' fields in the named tuples through the stack, about 400 pushes a call). For the
    hot kernels with one or two call sites: compiling costs no more (the argument passing goes
    too), and a design study's walk went from 11.5 to 9.5 us per position."""
    if function is None:
        return lambda f: internal_kernel(f, forceinline=forceinline)
    if numba.config.DISABLE_JIT:
        return function
    dispatcher = _KernelOnly(py_func=function, locals={},
                             targetoptions=dict(_OPTIONS, nopython=True, no_cpython_wrapper=True,
                                                forceinline=forceinline))
    dispatcher.enable_caching()
    return dispatcher
