"""The decorators every compiled kernel of kinematrix uses, and the care of their disk cache.

``kernel`` is numba's ``njit`` with an on-disk cache (``cache=True``: compiled once per
machine, loaded afterwards), numpy's error model (a division by zero gives inf or nan, as
in numpy, instead of raising; every caller checks finiteness where it matters) and no GIL.
``inline_kernel`` is the same for the small helpers with one or two call sites (pair matrices,
the predictor's pieces), inlined into their callers so that views of the callers' arrays cost
nothing. numba inlines such a helper by copying its IR into each caller and typing it there
again, so the helpers called from many places (:mod:`.rotations`, :mod:`.rigid`) are internal
kernels with ``forceinline`` instead (below): compiled once per signature, inlined by LLVM.

Both are compiled without numba's reference counting (``_nrt=False``): the kernels take
the system's frozen arrays and preallocated scratch and allocate nothing, and counting the
references of every array in the named tuples at every call and every view would be a
large share of both a sweep's time and the compile time. Such a kernel copies
arrays with the loops of :mod:`.arrays` (``a[:] = b`` would need a temporary) and never
returns an array it did not receive. ``allocating_kernel`` and ``allocating_inline_kernel``
keep the counting for the few kernels that allocate, all called from Python only (the
energies along a result, the inverse dynamics); they may call the others, not the reverse
(a callee that does not say otherwise is compiled with its caller's runtime).
``callback_kernel`` holds the GIL, for the kernels that call Python load functions back
(numba's object mode; without reference counting it cannot return an array, so the Python
side writes into the kernel's array: :func:`loops.loads.call_load_into`).

Compile time is mostly LLVM's, and it grows with the number of fields a kernel receives:
numba passes every array of a named tuple as seven to eleven arguments of its own and copies
the whole tuple at every use, so the kernels' named states pass by reference instead
(:mod:`.by_reference`: one pointer a state, a field one load; measured on the README's
first command: 29.2 s of compile time down to 20.5 s). For every compiled signature numba also writes a CPython wrapper
(unboxing each argument from Python: for named tuples of arrays, tens of kilobytes of
machine code, as much as the kernel's own) and a C wrapper: no kernel is called through C,
so none gets one, and ``internal_kernel`` marks the kernels that only other kernels call
(the corrector, the factorization, the walk's step, the dynamics' terms), which get no
CPython wrapper either, and no machine code of their own: numba links the LLVM module of
every kernel a kernel calls into the caller's, optimizes the whole and makes it machine code
there, so an internal kernel's own optimized module and machine code would never run. Its
library (:class:`_LinkOnlyLibrary`) keeps its module for linking only, cached as bitcode
(measured on the README's first command: 77 s of compile time down to 61 s). Called from
Python anyway (a test, a rare path), such a kernel compiles a twin with the wrapper, cached
under a name of its own, and runs that: the same function, nothing lost but the time.
A call between kernels passes its arrays' fields (seven to eleven machine words an array)
through the stack; ``forceinline=True`` has LLVM inline the hot kernels with
few call sites into their callers instead (the closure's evaluation, the step's helpers, the tangent), which
saves the argument passing. The large kernels called from several places (the corrector, the
factorization, the rates) are called, not inlined: LLVM would optimize a copy at
every call site, and the call is small against the work of such a kernel.
With ``NUMBA_DISABLE_JIT=1`` numba returns the functions unchanged and they run as plain
Python: the same code, slower, which is how the kernel tests run a second time.

numba's cache checks the source file of each cached function but not the files of the
functions it calls or inlines. So each kernel package registers its directory here
(:func:`register_kernel_package`: this package when this module loads, the dynamics kernels
from :mod:`dynamics.kernels._compile`), and a digest of its sources and of this package's
(whose kernels the others call) is compared with the one stored beside its cache; when they
differ (a new version, an edit), that package's cached kernels are deleted and compiled
anew, and while they compile stderr says so on one line, what and how far
(:mod:`.compile_progress`). A cache whose stamp matches says nothing (numba may still
compile a kernel for argument types it has not met, quietly, as any numba program does).
A cache file that cannot be read back (cut short, garbled) is deleted and its kernel
compiled anew as well (:class:`_CheckedCacheFile`).

This module imports numba; it is imported only when a kernel is first needed (the
packages ``mechanism``, ``loops`` and ``dynamics`` do not import it at import time).
"""

from __future__ import annotations

import os
import pathlib
import types

import numba
from llvmlite import binding as llvm
from numba.core.caching import CompileResultCacheImpl, FunctionCache, IndexDataCacheFile
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import CompileResult, Compiler
from numba.core.registry import CPUDispatcher
from numba.core.runtime import nrt

from . import by_reference, compile_progress  # noqa: F401 (by_reference: the named states' types)
from .cache_stamp import INLINED_DIRECTORIES, STAMP as _STAMP, cache_directory as _cache_directory, \
    kernel_package_digest
from .loaded_code import LoadedLibrary

__all__ = ["kernel", "internal_kernel", "inline_kernel", "allocating_kernel", "allocating_inline_kernel",
           "callback_kernel", "register_kernel_package", "INLINED_DIRECTORIES"]

#: The kernel packages registered so far (:func:`register_kernel_package`), in order: their
#: source directories and the digests that stamp their caches.
_PACKAGES = []


def _cache_directories():
    """The cache directories of the registered kernel packages, in order."""
    return [_cache_directory(directory) for directory, _ in _PACKAGES]


def _refresh(directory, digest):
    """Delete the cached kernels of ``directory`` unless its cache is stamped with ``digest``;
    stamp it. Returns True when it deleted (the kernels will be compiled anew)."""
    cache = _cache_directory(directory)
    stamp = cache / _STAMP
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    if cache.is_dir():
        for path in cache.iterdir():
            if path.suffix in (".nbi", ".nbc"):
                try:
                    path.unlink()
                except OSError:
                    pass
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only installation: numba caches elsewhere or not at all
    return True


def _refresh_cache():
    """Check every registered kernel package's cache against its digest (see the module
    docstring)."""
    if numba.config.DISABLE_JIT:
        return
    if any([_refresh(directory, digest) for directory, digest in _PACKAGES]):
        compile_progress.install()


def register_kernel_package(init_file):
    """Register the kernel package whose ``__init__.py`` (or any module) is ``init_file``: its
    cached kernels are kept while its sources and those of the kinematics kernels (this
    package, registered first, on which every other builds) are unchanged, and deleted (to be
    compiled anew) otherwise. A package registers from the module that gives its kernels
    their decorators, so before any of them loads. The digest does not depend on which other
    packages a process registered, or in what order."""
    directory = pathlib.Path(init_file).resolve().parent
    if any(directory == known for known, _ in _PACKAGES):
        return
    _PACKAGES.append((directory, kernel_package_digest(directory)))
    if numba.config.DISABLE_JIT:
        return
    if _refresh(directory, _PACKAGES[-1][1]):
        compile_progress.install()


register_kernel_package(__file__)


class _CheckedCacheFile(IndexDataCacheFile):
    """numba's cache file of one kernel, except that a damaged index or data file (cut short
    by a full disk or a process killed while writing it, garbled) is deleted and taken as
    missing: the kernel is compiled anew and cached again, where numba would fail to unpickle
    it in every later run (its source stamp and the package's digest still match)."""

    def _load_index(self):
        try:
            return super()._load_index()
        except Exception:  # unpickling damaged bytes raises any of a dozen types
            _discard(self._index_path)
            compile_progress.announce()
            return {}

    def _load_data(self, name):
        try:
            return super()._load_data(name)
        except OSError:
            raise  # numba's load() takes it as a missing file
        except Exception:  # as above
            _discard(self._data_path(name))
            compile_progress.announce()
            raise OSError(f"damaged kernel cache file {name}") from None


class _LoadingCache(FunctionCache):
    """numba's cache of one kernel, except that loading a cached kernel does not load numba's
    compiler: numba refreshes its target context before every load (importing the
    implementations of every numpy and Python function it can compile, about a third of a
    warm command's time), which running machine code already compiled does not need. A
    load here only starts numba's runtime (the allocating kernels call it); a kernel that
    must be compiled after all is compiled by numba's compiler, which refreshes the context
    itself first. Its code is read back as a :class:`.loaded_code.LoadedLibrary` (the LLVM
    module for linking parsed only when linked: half of a load's time)."""

    def load_overload(self, sig, target_context):
        nrt.rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            result = self._load_overload(sig, _RebuildTarget(target_context, _ReadBackCodegen))
            return None if result is None else result._replace(target_context=target_context)


class _RebuildTarget:
    """numba's target context as a cached kernel is rebuilt in: its code generator seen through
    ``codegen_view`` (a :class:`_CodegenView` that reads the kernel's code back its own way),
    everything else numba's. Serves :class:`_LoadingCache` (machine code, names from the
    object) and :class:`_LinkOnlyCache` (bitcode, for linking only)."""

    def __init__(self, context, codegen_view):
        self._context = context
        self._codegen_view = codegen_view

    def __getattr__(self, name):
        return getattr(self._context, name)

    def codegen(self):
        return self._codegen_view(self._context.codegen())


class _CodegenView:
    """numba's code generator, with what a subclass overrides."""

    def __init__(self, codegen):
        self._codegen = codegen

    def __getattr__(self, name):
        return getattr(self._codegen, name)


class _ReadBackCodegen(_CodegenView):
    """numba's code generator, except that it reads a cached library of machine code back as a
    :class:`.loaded_code.LoadedLibrary` where it can."""

    def unserialize_library(self, serialized):
        name, kind, data = serialized
        library = LoadedLibrary.read_back(self._codegen, name, *data) if kind == "object" else None
        return library or self._codegen.unserialize_library(serialized)


def _discard(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _checked(dispatcher):
    """``dispatcher`` with its cache file checked on loading (:class:`_CheckedCacheFile`) and its
    kernels loaded without the compiler (:class:`_LoadingCache`); a plain function
    (``NUMBA_DISABLE_JIT=1``) unchanged."""
    cache = getattr(dispatcher, "_cache", None)
    if type(cache) is FunctionCache:
        cache.__class__ = _LoadingCache
    cache_file = getattr(cache, "_cache_file", None)
    if type(cache_file) is IndexDataCacheFile:
        cache_file.__class__ = _CheckedCacheFile
    return dispatcher


def _compiler(**options):
    """numba's ``njit`` with ``options``, cached, its cache files checked on loading."""
    compile_function = numba.njit(cache=True, **options)
    return lambda function: _checked(compile_function(function))

#: What every kernel is compiled with (see the module docstring). ``forceinline`` is always
#: given: a callee that does not say inherits its caller's.
_COMMON = {"error_model": "numpy", "no_cfunc_wrapper": True, "forceinline": False}
#: The kernels without reference counting and without the GIL.
_OPTIONS = dict(_COMMON, nogil=True, _nrt=False)

inline_kernel = _compiler(inline="always", **_OPTIONS)
allocating_kernel = _compiler(nogil=True, **_COMMON)
allocating_inline_kernel = _compiler(nogil=True, inline="always", **_COMMON)
callback_kernel = _compiler(**_COMMON)


def kernel(function=None, *, forceinline=False):
    """A compiled kernel (numba's ``njit`` with :data:`_OPTIONS`, cached), callable from Python
    and from kernels; ``@kernel`` or ``@kernel(forceinline=True)`` (see :func:`internal_kernel`)."""
    if function is None:
        return lambda f: kernel(f, forceinline=forceinline)
    return _compiler(**dict(_OPTIONS, forceinline=forceinline))(function)


class _LinkOnlyLibrary(JITCodeLibrary):
    """The code library of a kernel that only other kernels call (:func:`internal_kernel`): its
    LLVM module is kept for linking into its callers and never made machine code, nor optimized
    as a module of its own. numba links every callee's module into each caller's and optimizes
    and generates the whole there (the caller's own machine code holds what it calls), so the
    callee's own optimization and machine code were compiled and never run. Cached as LLVM
    bitcode, which numba reads back as such."""

    def _optimize_final_module(self):
        pass  # each caller optimizes the linked whole

    def _finalize_final_module(self):
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_pointer_to_function(self, name):
        return 0

    @property
    def codegen(self):
        return _UnlinkedEnvironment(self._codegen)

    def serialize_using_object_code(self):
        self._ensure_finalized()
        return (self.name, "bitcode", self._final_module.as_bitcode())


class _UnlinkedEnvironment(_CodegenView):
    """numba's code generator as a :class:`_LinkOnlyLibrary` shows it: the library has no machine
    code, so there is no environment address to set (its kernels never use theirs: they raise
    nothing and call no Python)."""

    def set_env(self, env_name, env):
        pass


class _LinkOnlyCompiler(Compiler):
    """numba's compiler pipeline, its code library a :class:`_LinkOnlyLibrary`."""

    def compile_extra(self, func):
        if self.state.library is None:
            self.state.library = _LinkOnlyLibrary(self.state.targetctx.codegen(), func.__qualname__)
            self.state.library.enable_object_caching()
        return super().compile_extra(func)


class _LinkOnlyCodegen(_UnlinkedEnvironment):
    """numba's code generator as a cached :class:`_LinkOnlyLibrary` is read back through: from its
    bitcode, for linking only (numba's own reading would make it machine code)."""

    def unserialize_library(self, serialized):
        name, kind, data = serialized
        if kind != "bitcode":
            return self._codegen.unserialize_library(serialized)
        library = _LinkOnlyLibrary(self._codegen, name)
        library._final_module = llvm.parse_bitcode(data)
        library._finalize_final_module()
        return library


class _LinkOnlyCacheImpl(CompileResultCacheImpl):
    def rebuild(self, target_context, payload):
        return CompileResult._rebuild(_RebuildTarget(target_context, _LinkOnlyCodegen), *payload)


class _LinkOnlyCache(FunctionCache):
    """numba's cache of a function, its entries rebuilt as :class:`_LinkOnlyLibrary` objects."""

    _impl_class = _LinkOnlyCacheImpl


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
    ``forceinline``: no call and no argument passing, where a call passes each field of the
    arrays it takes through the stack). For the
    hot kernels with one or two call sites: compiling costs no more (the argument passing goes
    too), and the calls' cost goes."""
    if function is None:
        return lambda f: internal_kernel(f, forceinline=forceinline)
    if numba.config.DISABLE_JIT:
        return function
    dispatcher = _KernelOnly(py_func=function, locals={},
                             targetoptions=dict(_OPTIONS, nopython=True, no_cpython_wrapper=True,
                                                forceinline=forceinline), pipeline_class=_LinkOnlyCompiler)
    dispatcher._cache = _LinkOnlyCache(function)  # numba's enable_caching(), read back for linking
    return _checked(dispatcher)
