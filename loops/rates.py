"""Rates at closed positions: velocities and accelerations along given tangents (eq. 4 and
its derivative), for positions a walk has reached and recorded (a sweep's result asked for
other driver rates, a design study's variant walked alone).
"""

from __future__ import annotations

import numpy as np

from .configuration import evaluate, new_work
from .kernels.state import SINGULAR_CONDITIONING
from .linear import new_factor, square_block_at

__all__ = ["motion_at_positions"]


def motion_at_positions(system, driven, q, rotations, tangents, speeds, accelerations):
    """Rates at closed positions along given tangents (see
    :func:`loops.kernels.continuation.motion_at_positions`): ``(q_dot, q_ddot, V, A)``.

    ``driven`` (d,) are the columns the tangents ``(N, n, d)`` are taken with respect to;
    ``speeds`` and ``accelerations`` (N, d) their rates.
    """
    from .kernels import continuation as kernels  # noqa: PLC0415 (kernels load on first use)

    count = len(q)
    n_links = system.topology.links
    out = (np.zeros((count, system.n)), np.zeros((count, system.n)), np.zeros((count, n_links, 6)),
           np.zeros((count, n_links, 6)))
    if not count:
        return out
    config = evaluate(system, q[0], rotations[0])
    block = square_block_at(system, config, driven)
    if block is None:
        # Singular at the first position: any block of full size serves (each position is
        # factorized where it is); choose it where the tangent leads.
        block = square_block_at(system, evaluate(system, q[-1], rotations[-1]), driven)
    work = new_work(system, q[0], rotations[0])
    kernels.motion_at_positions(system.topology, system.geometry, block, work, new_factor(block),
                                np.ascontiguousarray(q), np.ascontiguousarray(rotations),
                                np.ascontiguousarray(tangents), np.ascontiguousarray(speeds, dtype=float),
                                np.ascontiguousarray(accelerations, dtype=float), SINGULAR_CONDITIONING, *out)
    return out
