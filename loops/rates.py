"""Rates at closed positions: velocities and accelerations along given tangents (eq. 4 and its
derivative), for positions a walk has reached and recorded (a sweep's result asked for
other driver rates, a design study's variant walked alone).
"""

from __future__ import annotations

import numpy as np

from .configuration import evaluate, new_work
from .kernels.state import (CURVED_FLAGS, SINGULAR_CONDITIONING, SINGULAR_RCOND, WALK_COUNTERS, WALK_DIAGNOSTICS,
                            WALK_PARAMETERS, WalkRecord, WalkState)
from .linear import new_factor, square_block_at

__all__ = ["motion_at_positions", "motion_on_block", "empty_record"]


def motion_at_positions(system, driven, q, rotations, tangents, speeds, accelerations):
    """Rates at closed positions along given tangents: ``(q_dot, q_ddot, V, A)``, shapes (N, n),
    (N, n), (N, L, 6), (N, L, 6) (:func:`motion_on_block` on a square block chosen at the first
    position).

    ``driven`` (d,) are the columns the tangents ``(N, n, d)`` are taken with respect to;
    ``speeds`` and ``accelerations`` (N, d) their rates.
    """
    count = len(q)
    if not count:
        n_links = system.topology.links
        return (np.zeros((0, system.n)), np.zeros((0, system.n)), np.zeros((0, n_links, 6)),
                np.zeros((0, n_links, 6)))
    config = evaluate(system, q[0], rotations[0])
    block = square_block_at(system, config, driven)
    if block is None:
        # Singular at the first position: any block of full size serves (each position is
        # factorized where it is); choose it where the tangent leads.
        block = square_block_at(system, evaluate(system, q[-1], rotations[-1]), driven)
    return motion_on_block(system, block, q, rotations, tangents, speeds, accelerations)


def motion_on_block(system, block, q, rotations, tangents, speeds, accelerations):
    """Rates at closed positions ``q`` (N, n), ``rotations`` (N, m, 3, 3) along the tangents
    (N, n, d) for the driven ``speeds`` and ``accelerations`` (N, d), each position evaluated
    and factorized on the square ``block`` in one work (the compiled walk's ``RATES`` mode,
    :func:`loops.kernels.continuation.walk_positions`): ``(q_dot, q_ddot, V, A)``."""
    from .kernels import continuation as kernels  # noqa: PLC0415 (kernels load on first use)

    count, d = len(q), tangents.shape[2]
    n, links = system.n, system.topology.links
    # The positions and tangents copied (the kernel takes writable arrays); no poses (the rates
    # write none: zero rows, where poses of every position would cost more than the rates).
    record = WalkRecord(np.array(q, dtype=float, order="C"), np.array(rotations, dtype=float, order="C"),
                        np.zeros((count, n)), np.zeros((count, n)), np.zeros((0, links, 4, 4)),
                        np.zeros((count, links, 6)), np.zeros((count, links, 6)),
                        np.array(tangents, dtype=float, order="C"))
    speeds = np.array(speeds, dtype=float, order="C")
    here = new_work(system, q[0], rotations[0])
    factor = new_factor(block)
    G = np.zeros((system.n, d))
    params = np.zeros(WALK_PARAMETERS)  # the rates read only the singular threshold
    params[SINGULAR_RCOND] = SINGULAR_CONDITIONING
    walk = WalkState(here, factor, G, here, factor, G, np.zeros((2, system.n, d)), np.zeros((2, d)),
                     np.zeros((2, system.n)), np.zeros(CURVED_FLAGS))
    kernels.walk_positions(system.topology, system.geometry, block, walk, speeds, speeds,
                           np.array(accelerations, dtype=float, order="C"), 0, kernels.RATES,
                           params, np.zeros(WALK_COUNTERS, dtype=np.int64),
                           np.zeros(WALK_DIAGNOSTICS), record)
    return record.q_dot, record.q_ddot, record.V, record.A


def empty_record(system, d, count=0, new=np.zeros):
    """A :class:`~loops.kernels.state.WalkRecord` of ``count`` positions of ``system`` with ``d``
    driven columns, its arrays made by ``new(shape)`` (zeros; ``np.empty`` for a record the walk
    fills): the one statement of the record's shapes."""
    n, m, links = system.n, system.topology.spheres, system.topology.links
    return WalkRecord(new((count, n)), new((count, m, 3, 3)), new((count, n)), new((count, n)),
                      new((count, links, 4, 4)), new((count, links, 6)), new((count, links, 6)), new((count, n, d)))
