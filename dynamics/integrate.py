"""The Runge-Kutta tableaus of the compiled integrators (:mod:`dynamics.kernels.integrate`).

The coefficients are scipy's own (``scipy.integrate.DOP853``, ``scipy.integrate.RK45``, written
out in :mod:`dynamics.runge_kutta_coefficients`), so the compiled stepping has the error control
and dense output of ``solve_ivp`` with these methods; only the loop around them runs compiled.
"""

from __future__ import annotations

import numpy as np

from .kernels.state import DOP853_KIND, RK45_KIND, IntegratorScratch, Tableau
from .runge_kutta_coefficients import dop853_coefficients, rk45_coefficients

__all__ = ["Tableau", "TABLEAUS", "tableau", "IntegratorScratch", "new_scratch", "initial_step"]



def _contiguous(*arrays):
    return [np.ascontiguousarray(a, dtype=float) for a in arrays]


def _dop853():
    stages, error_order, *arrays = dop853_coefficients()
    A, B, C, E3, E5, D, A_EXTRA, C_EXTRA = _contiguous(*arrays)
    return Tableau(DOP853_KIND, stages, error_order, A, B, C, E3, E5, D, A_EXTRA, C_EXTRA, 3 + D.shape[0])


def _rk45():
    stages, error_order, *arrays = rk45_coefficients()
    A, B, C, E, P = _contiguous(*arrays)
    return Tableau(RK45_KIND, stages, error_order, A, B, C, np.zeros_like(E), E, P, np.zeros((0, len(E))),
                   np.zeros(0), P.shape[1])


TABLEAUS = {"DOP853": _dop853, "RK45": _rk45}


def tableau(method) -> Tableau:
    """The :class:`Tableau` of ``method`` ("DOP853" or "RK45")."""
    return TABLEAUS[method]()




def new_scratch(method: Tableau, size) -> IntegratorScratch:
    """An :class:`IntegratorScratch` for ``method`` and a state of ``size`` (N,) entries."""
    stages = method.stages
    return IntegratorScratch(np.zeros((stages + 1, size)), np.zeros((stages + 1 + method.A_EXTRA.shape[0], size)),
                             np.zeros((method.dense_rows, size)), np.zeros((4, size)))


def initial_step(method: Tableau, t, y, f, t_end, rtol, atol, max_step, evaluate) -> float:
    """The first step size, s: scipy's ``select_initial_step`` (Hairer, Norsett and Wanner, I,
    II.4), with ``evaluate(t, y) -> (status, y')`` the right-hand side (status 0: evaluated).

    Two estimates from the scaled norms of ``y`` and ``y'``: ``h0 = 0.01 |y| / |y'|``, and from the
    change of ``y'`` over a trial step of ``h0``, ``h1 = (0.01 / max(|y'|, |y''|))^(1 / (q + 1))``
    (q the error estimator's order); the smaller of ``100 h0`` and ``h1``. A trial step that
    cannot be evaluated (the loops do not close there) gives ``h0 / 100``."""
    scale = atol + np.abs(y) * rtol

    def rms(v):
        return float(np.sqrt(np.sum((v / scale) ** 2) / max(len(v), 1)))

    d0, d1 = rms(y), rms(f)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, t_end - t, max_step)
    status, f1 = evaluate(t + h0, y + h0 * f)
    if status != 0:
        return h0 * 1e-2
    d2 = rms(f1 - f) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (method.error_order + 1))
    return min(100.0 * h0, h1, t_end - t, max_step)
