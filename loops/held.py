"""Held freedoms: real freedoms that no driver fixes keep their values during a sweep.

A double wishbone swept in wheel travel alone still has a steering rack and a wheel spin
that no driver fixes; so has any mechanism driven by fewer drivers than its degrees of
freedom. DESIGN.md asks that nothing drift: the sweep holds one pair variable per such
freedom at its value, chosen so that the drivers and the held variables together fix the
motion (full rank), and names them.

The choice is made on the null space ``N`` of the dimensionless closure matrix at the
start (the motions that keep every loop closed; the gauges of idle spins are part of the
matrix, so passive freedoms are not among them): row ``c`` of ``N`` is how variable ``c``
moves in each freedom. Holding the variables ``H`` with the drivers ``D`` fixes the motion
exactly when the rows ``N[D + H]`` are independent, and the better conditioned they are the
more each held variable is a freedom of its own rather than a consequence of the drivers
(holding a wishbone's pivot angle instead of the rack would nearly fix the wheel travel
twice). So the variables are added one at a time, each the candidate whose row keeps most
of its length once the rows already chosen are projected out (Gram-Schmidt); among those
within :data:`NEAR_BEST` of the best, a pair to the ground comes first (a steering rack,
not a tie rod's end), then the order of declaration. Only additive, public variables are
candidates (not spherical components, not the virtual slides of a point driver).
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError
from mechanism.specs import GROUND

from .configuration import constraint_matrix
from .linear import RANK_TOLERANCE, null_space

__all__ = ["NEAR_BEST", "held_freedoms", "DependentDrivers"]

#: Candidates whose remaining row length is within this fraction of the best are equals.
NEAR_BEST = 0.5


class DependentDrivers(ModelError):
    """The drivers fix fewer freedoms than their number at the start: a dead point of the
    drivers there (a driver at its turning point), or drivers that are not independent."""


def _remaining(rows, basis):
    """Length of each row once its components along the orthonormal ``basis`` rows are removed."""
    if len(basis):
        rows = rows - (rows @ basis.T) @ basis
    return np.linalg.norm(rows, axis=1), rows


def _orthonormal_rows(rows):
    """Orthonormal basis of the span of ``rows`` (k, m) and its rank."""
    if not len(rows):
        return np.zeros((0, rows.shape[1] if rows.ndim == 2 else 0)), 0
    u, s, vt = np.linalg.svd(rows, full_matrices=False)
    r = int(np.sum(s > RANK_TOLERANCE * max(s[0], 1.0)))
    return vt[:r], r


def _hold_names(hold) -> list:
    """``hold`` as a list: ``None`` is none, a string is one name, any other iterable its
    items (each checked later as a variable name); ModelError at ``"hold"`` otherwise."""
    if hold is None:
        return []
    if isinstance(hold, str):
        return [hold]
    try:
        return list(hold)
    except TypeError:
        raise ModelError("hold", f"expected a variable name or a list of names, got "
                                 f"{type(hold).__name__} {hold!r}") from None


def held_freedoms(system, config, driven, hold=None) -> np.ndarray:
    """Columns to hold with the ``driven`` ones at ``config`` (a closed configuration).

    Parameters
    ----------
    system : loops.compiled.CompiledSystem
    config : loops.configuration.Configuration
    driven : (d,) int, driver columns
    hold : list of str, optional, variables the user chooses to hold (the rest is chosen)

    Returns
    -------
    (h,) int, the held columns: ``hold``'s first, then the chosen ones.

    Raises
    ------
    DependentDrivers
        When the drivers are not independent at ``config``.
    ModelError
        At ``"drivers"`` for more drivers than freedoms;
        at ``"hold"`` for held variables that are drivers, too many, or not independent of the
        drivers and each other.
    """
    B = constraint_matrix(system, config, scaled=True)
    N = null_space(B)
    freedoms = N.shape[1]
    driven = np.asarray(driven, dtype=np.int64)
    names = [system.variable_names[c] for c in driven]
    if len(driven) > freedoms:
        raise ModelError("drivers", f"{len(driven)} drivers ({', '.join(names)}) for a mechanism with "
                         f"{freedoms} degree(s) of freedom: it is over-driven")
    basis, r = _orthonormal_rows(N[driven])
    if r < len(driven):
        raise DependentDrivers("drivers", f"the drivers {', '.join(names)} are not independent at the start "
                               "(together they fix fewer freedoms than their number)")
    chosen = []
    hold = _hold_names(hold)
    if hold:
        cols = system.driver_columns(hold, role="hold")
        for name, col in zip(hold, cols):
            if col in driven:
                raise ModelError(f"hold {name!r}", "is a driver of this sweep")
        if len(driven) + len(cols) > freedoms:
            raise ModelError("hold", f"{len(cols)} held variable(s) and {len(driven)} driver(s) for "
                             f"{freedoms} degree(s) of freedom")
        basis, r = _orthonormal_rows(N[np.r_[driven, cols]])
        if r < len(driven) + len(cols):
            raise ModelError("hold", f"{', '.join(map(str, hold))} cannot be held with the drivers "
                             f"{', '.join(names)}: together they do not fix independent freedoms")
        chosen = list(cols)
    candidates = [c for c in range(system.n)
                  if system.additive[c] and system.public[c] and c not in driven and c not in chosen]
    touches_ground = {c: GROUND in (system.pairs[system.topology.column_pair[c]].first,
                                    system.pairs[system.topology.column_pair[c]].second) for c in candidates}
    while len(driven) + len(chosen) < freedoms:
        if not candidates:
            break
        lengths, _ = _remaining(N[candidates], basis)
        best = lengths.max()
        if best <= RANK_TOLERANCE:
            break
        near = [c for c, length in zip(candidates, lengths) if length >= NEAR_BEST * best]
        pick = min(near, key=lambda c: (not touches_ground[c], c))
        chosen.append(pick)
        candidates.remove(pick)
        basis, _ = _orthonormal_rows(N[np.r_[driven, chosen].astype(np.int64)])
    if len(driven) + len(chosen) < freedoms:
        # Only spherical components or virtual slides move the remaining freedoms.
        raise ModelError("drivers", f"{freedoms - len(driven) - len(chosen)} freedom(s) cannot be held by a "
                         "pair variable (only spherical components move them); drive them instead")
    return np.array(chosen, dtype=np.int64)
