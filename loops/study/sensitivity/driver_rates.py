"""The drivers' own second rates at the positions of an analysis: accelerations along one
driver and along two, from the engine's rates along the recorded tangents
(:meth:`loops.results.Trajectory.rates_along`); the third rates (T4) and the roll's (R5),
(R6) take them.
"""

from __future__ import annotations

import numpy as np

from ...spatial import lie_bracket

__all__ = ["motion_along", "second_rates_along", "driver_accelerations"]


def motion_along(result, drivers):
    """The variables' second rates ``q_ddot`` (N, n) and the link velocities and accelerations
    ``V, A`` (N, L, 6), global, at the positions of ``result`` along the unit rates of
    ``drivers`` (indices; the other drivers at rest)."""
    _, _, columns = result.closed_positions()
    speeds = np.zeros((len(result), len(columns)))
    speeds[:, list(drivers)] = 1.0
    _, q_ddot, V, A = result.rates_along(speeds)
    return q_ddot, V, A


def second_rates_along(result):
    """Getter driver index -> ``(q_aa (N, n), A_a (N, L, 6))``, the variables' second rates and
    the link accelerations along that driver alone (for the wheel rate's third rates, METHOD.md (T4)),
    each computed once."""
    cache = {}

    def get(d):
        if d not in cache:
            cache[d] = motion_along(result, [d])[::2]
        return cache[d]

    return get


def driver_accelerations(result, drivers):
    """``D[k][j] = d_k V_j`` (N, L, 6), global: the rate along driver ``drivers[k]`` of every
    link's velocity per unit rate of driver ``drivers[j]`` (the other drivers at rest), at the
    positions of ``result``. The accelerations along one driver are ``D[j][j]``; along the sum
    of two they add the symmetric ``S_kj = D[k][j] + D[j][k]``, and ``D[k][j] - D[j][k] =
    [V_k, V_j]`` (the twists' integrability, as in METHOD.md (H3))."""
    single = [motion_along(result, [j])[1:] for j in drivers]
    D = [[single[j][1] if j == k else None for j in range(len(drivers))] for k in range(len(drivers))]
    for k in range(len(drivers)):
        for j in range(k + 1, len(drivers)):
            S = motion_along(result, [drivers[k], drivers[j]])[2] - single[k][1] - single[j][1]
            bracket = lie_bracket(single[k][0], single[j][0])
            D[k][j], D[j][k] = (S + bracket) / 2.0, (S - bracket) / 2.0
    return D
