"""The one decorator every compiled kernel of kinematrix uses.

``kernel`` is numba's ``njit`` with an on-disk cache (``cache=True``: compiled once per
machine, loaded afterwards), numpy's error model (a division by zero gives inf or nan, as
in numpy, instead of raising; every caller checks finiteness where it matters) and no GIL.
With ``NUMBA_DISABLE_JIT=1`` numba returns the functions unchanged and they run as plain
Python: the same code, slower, which is how the kernel tests run a second time.

This module imports numba; it is imported only when a kernel is first needed (the
packages ``mechanism``, ``loops`` and ``dynamics`` do not import it at import time).
"""

from __future__ import annotations

import numba

__all__ = ["kernel", "callback_kernel", "parallel_kernel", "prange"]

kernel = numba.njit(cache=True, error_model="numpy", nogil=True)
#: For the few kernels that call back into Python (numba's object mode: load functions of
#: time given as Python callables); they hold the GIL.
callback_kernel = numba.njit(cache=True, error_model="numpy")
#: For loops over independent configurations (design-study variants): ``numba.prange``.
parallel_kernel = numba.njit(cache=True, error_model="numpy", nogil=True, parallel=True)
prange = numba.prange
