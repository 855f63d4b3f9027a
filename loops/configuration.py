"""Evaluating a configuration: a pure function of (compiled system, pair variables).

:func:`evaluate` runs the closure kernels (:mod:`loops.kernels.closure`) and returns an
immutable :class:`Configuration`: pair matrices, link poses (eq. 5), pair frames, world
twists, closure defects (eq. 2). :func:`constraint_matrix` gives the linearized closure
``B`` (eq. 3) as a dense matrix for the analyses that want one (mobility, rank, the choice
of held freedoms); the solvers use its blocks directly.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .kernel_arrays import kernel_array
from .kernels.state import Scratch, Work

__all__ = ["Configuration", "evaluate", "constraint_matrix", "closure_pattern", "dense_closure_pattern",
           "rotations_of", "Work", "new_work", "Scratch", "new_scratch"]


def new_scratch(topology) -> Scratch:
    rows = 6 * topology.loops + topology.gauges
    return Scratch(np.zeros((4, 4, 4)), np.zeros((4, 3, 3)), np.zeros((16, 3)), np.zeros((4, 6)),
                   np.zeros((4, topology.n)), np.zeros((3, max(rows, topology.n))), np.zeros((2, topology.links, 6)),
                   np.zeros((topology.spheres, 3, 3)), np.zeros((topology.n, 6)))


def new_work(system, q=None, rotations=None) -> Work:
    """A :class:`Work` for ``system``, holding copies of ``q`` and ``rotations`` (default: the
    reference assembly)."""
    topology = system.topology
    q = system.reference_q() if q is None else np.array(q, dtype=float)
    rotations = rotations_of(system, q) if rotations is None else np.array(rotations, dtype=float)
    return Work(q, rotations, np.empty((topology.pairs, 4, 4)), np.empty((topology.links, 4, 4)),
                np.empty((topology.pairs, 4, 4)), np.empty((topology.n, 6)),
                np.empty(6 * topology.loops + topology.gauges), np.empty((topology.loops, 3)),
                np.empty((topology.gauges, 3)), np.empty((len(topology.loop_cols), 6)),
                np.zeros((topology.gauges, topology.n)), new_scratch(topology))


def _read_only(*arrays):
    for a in arrays:
        a.setflags(write=False)


@dataclass(frozen=True)
class Configuration:
    """One evaluated configuration (read-only arrays).

    Attributes
    ----------
    q : (n,) pair variables (rad or m; spherical pairs as rotation vectors)
    rotations : (m, 3, 3) the spherical pairs' rotation matrices (their state)
    pair_matrices : (P, 4, 4) ``A_p(q)``
    link_poses : (L, 4, 4) ``T_0i``, global, identity at the design pose
    pair_frames : (P, 4, 4) ``W_p = T_0(first) F_j``
    twists : (n, 6) world twists ``(omega, v)`` of the variables, origin-referenced
    defects : (6 loops + gauges,) closure defects: per loop rotation (rad) and gap (m), gauges (rad)
    centres : (loops, 3) where each loop's gap is measured (its chord's frame-k origin), m
    swings : (gauges, 3) rotation vector of each idle link since the reference
    scale : float, the system's size (m)
    """

    q: np.ndarray
    rotations: np.ndarray
    pair_matrices: np.ndarray
    link_poses: np.ndarray
    pair_frames: np.ndarray
    twists: np.ndarray
    defects: np.ndarray
    centres: np.ndarray
    swings: np.ndarray
    scale: float

    def closure_error(self) -> float:
        """Largest defect relative to size: ``max(|rotation|, |gap| / scale, |gauge|)``."""
        loops = self.centres.shape[0]
        if not len(self.defects):
            return 0.0
        per_loop = np.abs(self.defects[:6 * loops].reshape(loops, 2, 3))
        gauges = np.abs(self.defects[6 * loops:])
        return float(max(per_loop[:, 0].max(initial=0.0), per_loop[:, 1].max(initial=0.0) / self.scale,
                         gauges.max(initial=0.0)))


def rotations_of(system, q) -> np.ndarray:
    """Rotation matrices (m, 3, 3) of the spherical pairs' rotation vectors in ``q``."""
    vectors = np.asarray(q, dtype=float)[system.spherical_columns]
    rotations = np.zeros((len(vectors), 3, 3))
    if not vectors.any():  # the design pose: the identity, which exp gives exactly (nothing to compile)
        rotations[:, [0, 1, 2], [0, 1, 2]] = 1.0
        return rotations
    from .kernels.rotations import exp_so3  # noqa: PLC0415 (kernels load on first use)

    for vector, rotation in zip(vectors, rotations):
        exp_so3(vector, rotation)
    return rotations


def evaluate(system, q, rotations=None) -> Configuration:
    """The configuration of ``system`` at ``q`` (n,); ``rotations`` (m, 3, 3) when known."""
    from .kernels import closure  # noqa: PLC0415 (kernels load on first use)

    work = new_work(system, q, rotations)
    closure.configure(system.topology, system.geometry, work)
    closure.world_twists(system.topology, system.geometry, work)
    arrays = (work.q, work.rotations, work.A, work.T, work.W, work.xi, work.defects, work.centres, work.swings)
    _read_only(*arrays)
    return Configuration(*arrays, system.geometry.scale)


def _closure_entries(system):
    """Row and column (int64, one per entry, a few twice) of every entry of ``B`` (eq. 3): a
    loop's rows in the loop's variables, a gauge's row in the variables on its link's tree path."""
    topology = system.topology
    counts = np.diff(topology.loop_ptr)
    rows = [np.repeat(6 * np.arange(topology.loops), 6 * counts) + np.tile(np.arange(6), len(topology.loop_cols))]
    cols = [np.repeat(topology.loop_cols, 6)]
    for g, gauge in enumerate(system.gauges):
        path, _ = system.path_columns(gauge.link)
        rows.append(np.full(len(path), 6 * topology.loops + g))
        cols.append(path)
    return np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)


@functools.lru_cache(maxsize=64)
def closure_pattern(system):
    """Where ``B`` (eq. 3) has entries: a csr matrix (6 loops + gauges, n) of ones (one per
    compiled system: they are frozen). Its rows and columns are those of
    :func:`constraint_matrix`, whose sparse form stores exactly these entries."""
    import scipy.sparse  # noqa: PLC0415 (large models only: a small one takes dense_closure_pattern)

    rows, cols = _closure_entries(system)
    pattern = scipy.sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(system.rows, system.n))
    pattern.sum_duplicates()
    pattern.data[:] = 1.0
    return pattern


@functools.lru_cache(maxsize=64)
def dense_closure_pattern(system) -> np.ndarray:
    """:func:`closure_pattern` as a dense (6 loops + gauges, n) array of ones and zeros, read-only."""
    rows, cols = _closure_entries(system)
    pattern = np.zeros((system.rows, system.n))
    pattern[rows, cols] = 1.0
    pattern.setflags(write=False)
    return pattern


def constraint_matrix(system, config, scaled=False, gauges=True, sparse=False):
    """``B`` (eq. 3): ``(6 loops + gauges, n)``, or only the loop rows (``gauges=False``); dense, or
    with ``sparse`` a csr matrix storing the entries of :func:`closure_pattern` (what a model of
    thousands of variables needs: :mod:`loops.structure`).

    ``scaled``: rows and columns made dimensionless (``row_scale B column_scale``).
    """
    from .kernels import closure  # noqa: PLC0415

    topology = system.topology
    blocks = np.empty((len(topology.loop_cols), 6))
    closure.loop_jacobian(topology, kernel_array(config.twists), kernel_array(config.centres), blocks)
    if sparse:
        return _sparse_constraint_matrix(system, config, blocks, scaled, gauges)
    B = np.zeros((6 * topology.loops, topology.n))
    for i in range(topology.loops):
        entries = slice(topology.loop_ptr[i], topology.loop_ptr[i + 1])
        B[6 * i:6 * i + 6, topology.loop_cols[entries]] += blocks[entries].T
    if gauges and topology.gauges:
        rows = np.empty((topology.gauges, topology.n))
        closure.gauge_rows(topology, system.geometry, kernel_array(config.twists), kernel_array(config.swings), rows,
                           np.empty((3, 3)))
        B = np.vstack([B, rows])
    if scaled:
        B = B * (system.row_scale[:B.shape[0], None] * system.column_scale[None, :])
    return B


def _sparse_constraint_matrix(system, config, loop_blocks, scaled, gauges):
    """:func:`constraint_matrix` as csr, from the loops' Jacobian blocks (entries, 6)."""
    import scipy.sparse  # noqa: PLC0415 (large models only)

    from .kernels import closure  # noqa: PLC0415

    topology = system.topology
    pattern = closure_pattern(system)
    loop_rows = 6 * topology.loops
    rows = np.repeat(6 * np.arange(topology.loops), 6 * np.diff(topology.loop_ptr)) + np.tile(
        np.arange(6), len(topology.loop_cols))
    cols = np.repeat(topology.loop_cols, 6)
    values = loop_blocks.ravel()
    count = loop_rows
    if gauges and topology.gauges:
        dense_rows = np.empty((topology.gauges, topology.n))
        closure.gauge_rows(topology, system.geometry, kernel_array(config.twists), kernel_array(config.swings), dense_rows,
                           np.empty((3, 3)))
        gauge_part = pattern[loop_rows:].tocoo()
        rows = np.r_[rows, loop_rows + gauge_part.row]
        cols = np.r_[cols, gauge_part.col]
        values = np.r_[values, dense_rows[gauge_part.row, gauge_part.col]]
        count = system.rows
    if scaled:
        values = values * (system.row_scale[rows] * system.column_scale[cols])
    B = scipy.sparse.csr_matrix((values, (rows, cols)), shape=(count, topology.n))
    B.sum_duplicates()
    return B
