"""The linearised closure at recorded closed positions, compiled: solves with given right-hand
sides (METHOD.md eq. 3), and twists summed along the spanning tree (eq. 5 differentiated).

What a walk does at the position it stands on, done here for a stack of positions it has
recorded and for any number of right-hand sides or rates at each, by the same kernels: the
closure's evaluation (:func:`.closure.configure`), the factorization of the chosen block
(:func:`.linear.factorize_block`) and its solve (:func:`.linear.solve_block`), and the tree
propagation of link twists (:func:`.acceleration.link_accelerations`). A design
sensitivity (METHOD.md, "Design sensitivities") solves the closure for the motions along
hardpoint coordinates this way.
"""

from __future__ import annotations

from ._compile import kernel
from .acceleration import link_accelerations
from .arrays import copy_stack, copy_vector
from .closure import configure
from .linear import factorize_block, solve_block
from .state import BAND_OVERFLOW, CONDITIONING

__all__ = ["solve_at_positions", "tree_twists_at_positions"]


@kernel
def solve_at_positions(topology, geometry, block, work, factor, q, rotations, rhs, singular_rcond, out, valid):
    """``out[i, j]`` (n,): the free entries (physical units) of ``B_free x = rhs[i, j]`` (rows,) at
    position i (``q`` (N, n), ``rotations`` (N, m, 3, 3)) for every right-hand side j, on
    ``block``'s chosen rows; the driven entries are left as they are. ``valid[i]`` is 0 where
    the block's factorization at position i is singular (reciprocal condition below
    ``singular_rcond``, or a band overflow): its ``out[i]`` is then left as it is."""
    buffer = work.scratch.equations[1]
    for i in range(q.shape[0]):
        copy_vector(q[i], work.q)
        copy_stack(rotations[i], work.rotations)
        configure(topology, geometry, work)
        factorize_block(topology, geometry, block, work, factor)
        if not factor.info[CONDITIONING] >= singular_rcond or factor.info[BAND_OVERFLOW] != 0.0:
            valid[i] = 0
            continue
        valid[i] = 1
        for j in range(rhs.shape[1]):
            solve_block(block, factor, rhs[i, j], out[i, j], buffer)


@kernel
def tree_twists_at_positions(topology, xi, rates, extra, out):
    """``out[i, k]`` (L, 6): every link's twist ``(omega, v_o)``, global, origin-referenced, summed
    along the tree from the variables' world twists ``xi[i]`` (n, 6) at position i, their
    ``rates[i, k]`` (n,) and their ``extra[i, k]`` (n, 6) twists (:func:`link_accelerations`:
    ``out_child = out_parent + sign sum_k (xi_k rate_k + extra_k)``)."""
    for i in range(rates.shape[0]):
        for k in range(rates.shape[1]):
            link_accelerations(topology, xi[i], rates[i, k], extra[i, k], out[i, k])
