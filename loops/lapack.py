"""LAPACK's column-pivoted QR (``dgeqp3``) for the small dense blocks of the solve layer.

The choice of independent rows (:mod:`loops.linear`) is a pivoted QR, the routine
:func:`scipy.linalg.qr` calls with ``pivoting=True``. Importing :mod:`scipy.linalg` costs
about 0.15 s of processor time (it imports scipy's array-API layer and numpy.testing), a
fifth of a small model's whole command; the routine itself is in scipy's compiled LAPACK
wrapper, which loads in a few milliseconds on its own. :func:`pivoted_qr` loads that
wrapper alone and calls ``dgeqp3`` exactly as :func:`scipy.linalg.qr` does (a workspace
query, then the factorization with the size it returned), so the factors are the same
numbers; where the wrapper cannot be loaded alone (another layout of scipy) it falls back
on :func:`scipy.linalg.lapack.get_lapack_funcs`, the public route to the same routine.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import pathlib

import numpy as np

__all__ = ["pivoted_qr", "geqp3"]

#: scipy's f2py wrapper of LAPACK (double precision routines), beside scipy.linalg's sources.
_WRAPPER = "scipy.linalg._flapack"


@functools.lru_cache(maxsize=1)
def geqp3():
    """LAPACK's ``dgeqp3`` as scipy wraps it: ``qr, jpvt, tau, work, info = dgeqp3(a, lwork=...)``."""
    try:
        import scipy  # noqa: PLC0415 (the package alone: its __init__ imports no submodule)

        folder = pathlib.Path(scipy.__file__).parent / "linalg"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = folder / ("_flapack" + suffix)
            if path.exists():
                spec = importlib.util.spec_from_file_location(_WRAPPER, path)
                return importlib.util.module_from_spec(spec).dgeqp3
    except (ImportError, AttributeError, OSError):
        pass
    from scipy.linalg.lapack import get_lapack_funcs  # noqa: PLC0415

    return get_lapack_funcs(("geqp3",), (np.zeros((1, 1)),))[0]


def pivoted_qr(a):
    """``R`` and the column permutation of the column-pivoted QR of ``a`` (M, N), float64:
    ``a[:, pivots] = Q R``, ``|R[0, 0]| >= |R[1, 1]| >= ...`` (Businger and Golub). ``R`` is
    (min(M, N), N), upper triangular; ``pivots`` (N,) int. The same factors as
    ``scipy.linalg.qr(a, mode="r", pivoting=True)``."""
    a = np.asarray(a, dtype=float)
    if not np.isfinite(a).all():
        raise ValueError("array must not contain infs or NaNs")  # scipy.linalg.qr's check and words
    M, N = a.shape
    if a.size == 0:
        return np.zeros((min(M, N), N)), np.arange(N, dtype=np.int32)
    routine = geqp3()
    lwork = routine(a, lwork=-1)[-2][0].real.astype(np.int_)
    qr, jpvt, _, _, info = routine(a, lwork=lwork)
    if info < 0:
        raise ValueError(f"illegal value in {-info}th argument of internal geqp3")
    return np.triu(qr[:min(M, N)]), jpvt - 1
