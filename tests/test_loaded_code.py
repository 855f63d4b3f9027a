"""A cached kernel's code read back for running (:mod:`loops.kernels.loaded_code`): the names its
machine code defines come from the object's symbol table, the same as numba reads from the
module, and the module is parsed only when a kernel compiled later links it."""

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
    pytest.skip("no cached machine code without the JIT", allow_module_level=True)


def cached_code(kernel):
    """``(object code, linking bitcode)`` of the cached entry of ``kernel`` (a dispatcher called
    once before in this process) for the signature it was called with, read from its cache file
    (which may hold others: a cache other test runs filled)."""
    cache_file = kernel._cache._cache_file
    (name,) = {file for key, file in cache_file._load_index().items() if key[0] == kernel.signatures[0]}
    library_name, kind, data = cache_file._load_data(name)[0]
    assert kind == "object", kind
    return data


def module_names(bitcode):
    """The names numba's own reading records for a cached library: every function and global
    variable its module defines."""
    from llvmlite import binding as llvm

    module = llvm.parse_bitcode(bitcode)
    return {g.name for group in (module.functions, module.global_variables) for g in group if not g.is_declaration}


@pytest.fixture(scope="module")
def exp_so3():
    """A kernel called from Python: the rotation kernels are internal (inlined into their callers,
    cached as bitcode), so the twin that runs a call from Python (cached as machine code)."""
    import numpy as np

    from loops.kernels.rotations import exp_so3

    exp_so3(np.array([0.1, 0.2, 0.3]), np.empty((3, 3)))
    return exp_so3.__dict__["_from_python"]


def test_the_symbol_table_names_what_numba_reads_from_the_module(exp_so3):
    from loops.kernels.loaded_code import defined_symbols

    object_code, bitcode = cached_code(exp_so3)
    names = defined_symbols(object_code)
    assert names == module_names(bitcode)
    assert exp_so3.overloads[exp_so3.signatures[0]].fndesc.llvm_cpython_wrapper_name in names


def test_what_is_not_an_elf_object_is_left_to_numba(exp_so3):
    """No 64-bit ELF object, or an engine that keeps its names elsewhere: ``read_back`` declines
    (numba's own reading then reads the library) rather than guess."""
    from loops.kernels.loaded_code import LoadedLibrary, defined_symbols

    object_code, bitcode = cached_code(exp_so3)
    assert defined_symbols(b"\x7fELF\x01\x01" + object_code[6:]) is None  # a 32-bit object
    assert defined_symbols(b"MZ" + object_code[2:]) is None
    codegen = exp_so3.targetctx.codegen()
    assert LoadedLibrary.read_back(codegen, "garbled", b"MZ" + object_code[2:], bitcode) is None
    other_engine = types.SimpleNamespace(_engine=types.SimpleNamespace())
    assert LoadedLibrary.read_back(other_engine, "elsewhere", object_code, bitcode) is None


@pytest.mark.parametrize("method", ["enable_object_caching", "_set_compiled_object", "_finalize_final_module",
                                    "_ensure_finalized"])
def test_a_numba_without_a_library_method_used_reads_its_libraries_itself(exp_so3, method, monkeypatch):
    from numba.core import codegen as numba_codegen

    from loops.kernels.loaded_code import LoadedLibrary

    object_code, bitcode = cached_code(exp_so3)
    owner = next(c for c in numba_codegen.JITCodeLibrary.__mro__ if method in vars(c))
    monkeypatch.delattr(owner, method)
    assert LoadedLibrary.read_back(exp_so3.targetctx.codegen(), "older numba", object_code, bitcode) is None


LINKING = """
import numba
import numpy as np
from loops.kernels.loaded_code import LoadedLibrary
from loops.kernels.rotations import exp_so3

rotation = np.empty((3, 3))
exp_so3(np.array([0.1, 0.2, 0.3]), rotation)
exp_so3 = exp_so3.__dict__["_from_python"]  # the twin a call from Python runs, cached as machine code
library = exp_so3.overloads[exp_so3.signatures[0]].library
print(type(library) is LoadedLibrary, library._shared_module is None)


@numba.njit
def first_entry_twice(vector, out):
    exp_so3(vector, out)
    return 2.0 * out[0, 0]


print(first_entry_twice(np.array([0.1, 0.2, 0.3]), np.empty((3, 3))) == 2.0 * rotation[0, 0],
      library._shared_module is not None)
"""


def test_a_kernel_compiled_later_links_a_loaded_one():
    """A process that loads a cached kernel and then compiles a function calling it (a user's
    own numba code, a kernel not cached yet) links the loaded kernel's module, parsed then."""
    run = subprocess.run([sys.executable, "-c", LINKING], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["True", "True", "True", "True"], run.stdout
