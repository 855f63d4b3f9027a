"""A cached kernel's code read back for running: its machine code loaded, the LLVM module numba
keeps beside it for linking read only when a kernel compiled later links it.

numba caches a compiled kernel as its machine code (an ELF object on Linux) and the bitcode of
its LLVM module, and on every load reads both back: it parses the bitcode into a module and
walks every function and global variable of it (one call into LLVM each, under numba's lock
and its event hooks) to learn the names the machine code defines. Running the loaded kernel
needs only the machine code and those names; the module is needed only by a kernel compiled
afterwards in the same process that calls the loaded one (numba links the callee's module
into the caller's). So :meth:`LoadedLibrary.read_back` takes the names from the object's own
symbol table (:func:`defined_symbols`) and parses the bitcode when the module is first linked.
That was about half of each load: the walk of a sweep 0.05 s of processor time down to 0.02 s,
``kinematrix simulate`` (ten kernels loaded) 0.8 s down to 0.6 s, measured warm.

An object that is not a 64-bit little-endian ELF file, or a numba whose execution engine keeps
its names elsewhere or whose code library lacks a method used here, is read back by numba's
own code, as before.
"""

from __future__ import annotations

import struct

from llvmlite import binding as llvm
from numba.core.codegen import JITCodeLibrary

__all__ = ["LoadedLibrary", "defined_symbols"]

#: The first bytes of a 64-bit little-endian ELF file (magic, class 2, data 1).
ELF64_LITTLE_ENDIAN = b"\x7fELF\x02\x01"
#: The section type of a symbol table.
SYMBOL_TABLE = 2
#: The symbol types that name code or data (no type, object, function, common, thread-local),
#: not a section or a source file.
NAMED_TYPES = frozenset({0, 1, 2, 5, 6})
#: numba's private methods of a code library that a read-back calls, as numba's own reading of a
#: cached library does (``CPUCodeLibrary._unserialize``): a numba without one of them reads its
#: libraries itself.
NUMBA_LIBRARY_METHODS = ("enable_object_caching", "_set_compiled_object", "_finalize_final_module",
                         "_ensure_finalized")


def defined_symbols(object_code):
    """The names that the ELF object ``object_code`` (bytes) defines: the entries of its symbol
    table that lie in a section of the object. None when it is no 64-bit little-endian ELF
    file or has no symbol table."""
    data = bytes(object_code)
    if not data.startswith(ELF64_LITTLE_ENDIAN):
        return None
    (table_offset,) = struct.unpack_from("<Q", data, 0x28)
    entry_size, count = struct.unpack_from("<HH", data, 0x3A)
    # each section header: name, type, flags, address, offset, size, link, info, alignment, entry size
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, table_offset + i * entry_size) for i in range(count)]
    for _, kind, _, _, offset, size, link, _, _, _ in sections:
        if kind != SYMBOL_TABLE:
            continue
        strings = sections[link][4]
        names = set()
        # each symbol: name (offset in the string table), info, other, section index, value, size
        for name, info, _, section, _, _ in struct.iter_unpack("<IBBHQQ", data[offset:offset + size]):
            if name and section and info & 0xF in NAMED_TYPES:
                start = strings + name
                names.add(data[start:data.index(b"\0", start)].decode())
        return names
    return None


class LoadedLibrary(JITCodeLibrary):
    """numba's code library of a kernel read back from the cache (see the module docstring):
    the same machine code and names in the execution engine, its module for linking parsed
    from the cached bitcode when a kernel compiled in this process first links it."""

    @classmethod
    def read_back(cls, codegen, name, object_code, linking_bitcode):
        """The library ``name`` of numba's code generator ``codegen`` from its cached object code
        and bitcode (numba's serialized ``"object"`` kind), or None when the object's names
        cannot be read here (numba's own reading then does it)."""
        names = defined_symbols(object_code)
        known = getattr(getattr(codegen, "_engine", None), "_defined_symbols", None)
        if names is None or not isinstance(known, set) \
                or not all(hasattr(cls, method) for method in NUMBA_LIBRARY_METHODS):
            return None
        library = cls(codegen, name)
        library.enable_object_caching()
        library._set_compiled_object(object_code)
        library._linking_bitcode = linking_bitcode
        library._finalize_final_module()  # the engine loads the object code
        known |= names  # what numba's reading records from the parsed module
        return library

    def _get_module_for_linking(self):
        self._ensure_finalized()
        if self._shared_module is None:
            self._shared_module = llvm.parse_bitcode(self._linking_bitcode)
        return self._shared_module
