"""The walk of many design variants at once: one topology, a geometry per variant, compiled.

A set of variants (:mod:`loops.variants`, a design study's) moves hardpoints: every variant has the topology of
the nominal model and geometry of its own (pair frames, size, gauge axes). Its arrays are
stacked along a leading variant axis, and :func:`walk_variants` runs the one walk of
:mod:`.continuation` (predictor, Newton corrector, branch checks, step control; eqs. 3-4)
for each variant, ranges of variants in parallel (one thread per core, :mod:`loops.variants`:
numba's ``prange`` refuses the named tuples of arrays the kernels take). At every position it
records the variables, the link poses and, for each driver in turn at unit rate with the
others at rest, the link velocities and accelerations (eq. 4 and its derivative): the
partial derivatives ``d/d(driver)`` that the suspension metrics' rates are made of.

A variant that cannot go on stops on its own (status ``STOPPED``; or ``RECHOOSE`` when its
square block would need new rows, a redundant loop, which the Python layer finishes with
the single-model walk) and the others go on.
"""

from __future__ import annotations

from ._compile import inline_kernel, kernel
from .by_reference import pack
from .arrays import copy_matrix, copy_stack, copy_vector
from .continuation import BUDGET, OK, close_here, rates_at, record_curvature, walk_to
from .newton import CONVERGED
from .state import (CORRECTOR_RESULT, CORRECTOR_RESULT_SIZE, ERROR, ITERATIONS, LAST_ERROR, LAST_ITERATIONS,
                    STEP_BUDGET, STEPS_TAKEN, Factor, Geometry, Scratch, SquareBlock, Work)

__all__ = ["walk_variants", "START_FAILED"]

#: Status of a variant whose design pose could not be closed (the others: those of the walk).
START_FAILED = 4


@inline_kernel
def _scratch_of(s, v):
    return pack(Scratch, (s.m4[v], s.m3[v], s.v3[v], s.v6[v], s.variables[v], s.equations[v], s.links[v],
                          s.rotations[v], s.terms[v]))


@inline_kernel
def _work_of(w, v):
    return pack(Work, (w.q[v], w.rotations[v], w.A[v], w.T[v], w.W[v], w.xi[v], w.defects[v], w.centres[v],
                       w.swings[v], w.loop_blocks[v], w.gauge_rows[v], _scratch_of(w.scratch, v)))


@inline_kernel
def _factor_of(f, v):
    return pack(Factor, (f.band[v], f.pivots[v], f.driven[v], f.info[v]))


@inline_kernel
def _geometry_of(g, v):
    return pack(Geometry, (g.frame_j[v], g.frame_k[v], g.scale[v], g.gauge_axis[v], g.gauge_reference[v]))


@inline_kernel
def _block_of(b, v):
    return pack(SquareBlock, (b.mode, b.size, b.kl, b.ku, b.free, b.driven, b.column_position, b.driven_position,
                              b.row_position, b.row_scale[v], b.column_scale[v]))


@inline_kernel
def _walk_one(topology, geometry, block, here, factor, G, trial, trial_factor, new_G, last_G, last_step, curvature,
              curved, q0, rotations0, targets, unit_speeds, params, counters, diagnostics, out_q, out_T, out_V, out_A):
    """One variant from its design pose through ``targets`` (N, d); returns (status, reached).
    The accelerations solved at each position for the unit driver rates are the predictor's
    curvature along the line of the walk (:func:`.continuation.record_curvature`)."""
    last_step[:] = 0.0
    curved[:] = 0.0
    copy_vector(q0, here.q)
    copy_stack(rotations0, here.rotations)
    result = diagnostics[CORRECTOR_RESULT:CORRECTOR_RESULT + CORRECTOR_RESULT_SIZE]
    if close_here(topology, geometry, block, here, factor, G, new_G, params, result) != CONVERGED:
        diagnostics[LAST_ERROR] = result[ERROR]
        diagnostics[LAST_ITERATIONS] = result[ITERATIONS]
        return START_FAILED, 0
    for i in range(targets.shape[0]):
        status = BUDGET
        while status == BUDGET:
            status = walk_to(topology, geometry, block, here, factor, G, trial, trial_factor, new_G, last_G,
                               last_step, curvature, curved, targets[i], params, counters, diagnostics)
            if status == BUDGET and counters[STEPS_TAKEN] >= counters[STEP_BUDGET]:
                return BUDGET, i
        if status != OK:
            return status, i
        copy_vector(here.q, out_q[i])
        copy_stack(here.T, out_T[i])
        zeros = trial.scratch.variables[2][:targets.shape[1]]  # the driven accelerations: none
        zeros[:] = 0.0
        # The rates go to contiguous scratch first: the records are stored link by link
        # (strided), and rates_at with strided twists would compile its callees a second time.
        V, A = trial.scratch.links[0], trial.scratch.links[1]
        for k in range(unit_speeds.shape[0]):
            rates_at(topology, geometry, block, here, factor, G, unit_speeds[k], zeros,
                     trial.scratch.variables[0], trial.scratch.variables[1], V, A)
            copy_matrix(V, out_V[i, k])
            copy_matrix(A, out_A[i, k])
            record_curvature(last_step, unit_speeds[k], trial.scratch.variables[1], curvature, curved)
    return OK, targets.shape[0]


@kernel
def walk_variants(topology, geometries, block, walks, q0, rotations0, targets, unit_speeds, params, counters,
                  diagnostics, status, reached, out, first, last):
    """Walk variants ``first`` to ``last - 1`` from their design poses through their targets.

    Parameters
    ----------
    topology : Topology, shared
    geometries : Geometry with a leading variant axis on every field (``scale`` (V,))
    block : SquareBlock, the nominal's rows and band ordering, with ``row_scale`` (V, rows) and
        ``column_scale`` (V, n) per variant
    walks : WalkState (:mod:`.state`) with a leading variant axis on every array
    q0 (n,), rotations0 (m, 3, 3) : the design pose (closed by Newton first, per variant)
    targets : (V, N, d) driven values per position (drivers, then held columns)
    unit_speeds : (D, d) the driver directions whose rates are recorded
    params : the walk's parameters (:mod:`.continuation`); counters : (V, 2) steps taken, budget
    diagnostics : (V, 8); status, reached : (V,) int out
    out : VariantRecordArrays (:mod:`.state`), rows past a variant's stop left as they were
    first, last : the variants this call walks (the caller runs one call per core, in threads:
        the kernel holds no GIL)
    """
    here, factor, G, trial, trial_factor, new_G, last_G, last_step, curvature, curved = walks
    out_q, out_T, out_V, out_A = out
    for v in range(first, last):
        geometry = _geometry_of(geometries, v)
        s, r = _walk_one(topology, geometry, _block_of(block, v), _work_of(here, v), _factor_of(factor, v), G[v],
                         _work_of(trial, v), _factor_of(trial_factor, v), new_G[v], last_G[v], last_step[v],
                         curvature[v], curved[v], q0, rotations0, targets[v], unit_speeds, params, counters[v],
                         diagnostics[v], out_q[v], out_T[v], out_V[v], out_A[v])
        status[v] = s
        reached[v] = r
