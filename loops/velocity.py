"""Velocities from the differentiated closure (METHOD.md eq. 4): ``sum_k B_k q_k' = 0``.

With the drivers' columns moved to the right-hand side, ``B_free q_free' = -B_driven q_driven'``
is solved in the least-squares, minimum-norm sense through a rank-revealing SVD of the
dimensionless ``B`` (rows and columns weighed by :attr:`KinematicSystem.row_scale` and
:attr:`~KinematicSystem.column_scale`). Minimum norm is what keeps freedoms that no driver
fixes (a tie rod's spin, a wheel on its hub) at rest. The same factorization serves the
acceleration solve and the sweep's predictor, and a sweep reuses the one its Newton step
made a few micro-radians away, refined iteratively against the exact ``B`` (two refinement
sweeps shrink the error by the square of the relative change of ``B``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["RANK_TOLERANCE", "Factorization", "ClosureLinearization", "solve_velocity"]

#: Singular values below this fraction of the largest are taken as exact rank defects.
RANK_TOLERANCE = 1e-9
#: Iterative-refinement passes when a factorization from a nearby configuration is reused.
REFINEMENT_PASSES = 2


class Factorization:
    """Pseudo-inverse of a block ``B[:, free]`` through the SVD of its dimensionless form.

    Attributes
    ----------
    rank : int, numerical rank
    conditioning : float, smallest kept singular value over the largest (0 when rank 0);
        tends to zero at a dead point of the drivers.
    singular_values : (k,) of the dimensionless block
    """

    def __init__(self, system, B_free, free):
        rows, cols = system.row_scale, system.column_scale[free]
        scaled = B_free * rows[:, None] * cols[None, :]
        if scaled.size:
            U, s, Vt = np.linalg.svd(scaled, full_matrices=False)
        else:
            U, s, Vt = np.zeros((scaled.shape[0], 0)), np.zeros(0), np.zeros((0, scaled.shape[1]))
        largest = s[0] if len(s) else 0.0
        keep = s > RANK_TOLERANCE * max(largest, 1.0)
        self.singular_values = s
        self.rank = int(keep.sum())
        self.conditioning = float(s[keep][-1] / largest) if self.rank else 0.0
        # Pseudo-inverse in scaled units, mapped back: x = C pinv(R B C) R rhs.
        self.pinv = (cols[:, None] * (Vt[keep].T / s[keep])) @ (U[:, keep].T * rows[None, :])


class ClosureLinearization:
    """``B`` (eq. 3) at one configuration, split into driven and free columns, ready to solve.

    Parameters
    ----------
    system : KinematicSystem
    config : Configuration
    driven : (d,) int, column indices of driven variables
    factorization : Factorization, optional
        Of ``B_free`` at a nearby configuration (a Newton iterate): reused with iterative
        refinement instead of a new SVD.

    Attributes
    ----------
    B : (6 L, n) the constraint matrix
    free : (n - d,) int, columns solved for
    rank, conditioning : from the factorization
    """

    def __init__(self, system, config, driven, factorization=None):
        self.system = system
        self.B = system.constraint_matrix(config)
        self.driven = np.asarray(driven, dtype=int)
        self.free = free_columns(system, self.driven)
        self._B_free = self.B[:, self.free]
        self._refine = factorization is not None
        self.factorization = factorization or Factorization(system, self._B_free, self.free)
        self.rank = self.factorization.rank
        self.conditioning = self.factorization.conditioning

    def solve(self, rhs):
        """Least-squares, minimum-norm ``x`` of ``B_free x = rhs``; ``rhs`` (6 L,) or (6 L, m)."""
        pinv = self.factorization.pinv
        x = pinv @ rhs
        if self._refine:
            for _ in range(REFINEMENT_PASSES):
                x = x + pinv @ (rhs - self._B_free @ x)
        return x

    def tangent(self):
        """``dq_free / d(driver)`` for unit driver rates: (n - d, d)."""
        return self.solve(-self.B[:, self.driven])


def free_columns(system, driven) -> np.ndarray:
    """Columns other than ``driven``, in order."""
    mask = np.ones(system.n, dtype=bool)
    mask[np.asarray(driven, dtype=int)] = False
    return np.flatnonzero(mask)


def solve_velocity(linearization: ClosureLinearization, driver_speeds) -> np.ndarray:
    """All variable rates ``q'`` (n,) for the given driver rates (eq. 4).

    Spherical pairs' rates are relative angular velocities (rad/s, frame j axes).
    """
    system = linearization.system
    q_dot = np.zeros(system.n)
    q_dot[linearization.driven] = driver_speeds
    rhs = -linearization.B[:, linearization.driven] @ np.asarray(driver_speeds, dtype=float)
    q_dot[linearization.free] = linearization.solve(rhs)
    return q_dot
