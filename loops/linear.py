"""The solve layer: which square block of the closure matrix ``B`` is factorized, and rank.

Every linear solve of the kinematics (Newton steps, eq. 3; velocities and accelerations,
eq. 4) and of the dynamics (transmission matrices) has the form ``B_free x = rhs``: the
closure matrix restricted to the columns that are not driven (drivers, held freedoms,
independent coordinates). At a regular position ``B_free`` has full column rank; its rows
may still be dependent (a planar loop's three out-of-plane equations vanish identically,
a Bennett loop repeats some). A :class:`SquareBlock` chooses, once per set of driven
columns, ``N = n - d`` independent rows (a pivoted QR of the dimensionless ``B_free^T``)
and an ordering of rows and columns with a small bandwidth (reverse Cuthill-McKee), so
that the kernels (:mod:`loops.kernels.linear`) factorize it by banded LU with partial
pivoting at a cost linear in the number of loops. The rows left out are dependent on the
chosen ones at the position where they were chosen; the Newton corrector measures the
defect of every row, so a choice that stops being valid is noticed and redone.

The SVD (:func:`rank`, :func:`null_space`) is kept for what needs it: mobility, the choice
of held freedoms and of independent coordinates. A model of more than
:data:`DENSE_VARIABLES` variables gives ``B`` as a sparse matrix, and these (the rank, the
null space, the choice of rows) go block by block (:mod:`loops.structure`), at a cost
linear in the model's size; smaller ones keep the dense factorizations of the whole.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from .configuration import closure_pattern, constraint_matrix, dense_closure_pattern
from .kernels.state import FACTOR_INFO_SIZE, LEAST_SQUARES, RANK_TOLERANCE, SQUARE, Factor, SquareBlock
from .lapack import pivoted_qr
from .reordering import reverse_cuthill_mckee

__all__ = ["RANK_TOLERANCE", "SQUARE", "LEAST_SQUARES", "DENSE_VARIABLES", "SquareBlock", "square_block",
           "square_block_at", "least_squares_block", "closure_matrix", "rank", "null_space", "null_space_blocks",
           "singular_values", "Factor", "new_factor", "solve_at_positions"]

#: Models of at most this many variables are solved on the dense ``B`` (one SVD or pivoted QR of
#: the whole); larger ones on its blocks (:mod:`loops.structure`).
DENSE_VARIABLES = 64


def closure_matrix(system, config, gauges=True):
    """The dimensionless ``B`` at ``config`` in the form this layer takes for ``system``: dense up
    to :data:`DENSE_VARIABLES` variables, sparse (csr) beyond."""
    return constraint_matrix(system, config, scaled=True, gauges=gauges, sparse=system.n > DENSE_VARIABLES)


def _issparse(B) -> bool:
    """:func:`scipy.sparse.issparse`, without importing scipy.sparse for a small model (0.2 s of a
    command's 0.7): a matrix can be sparse only once scipy.sparse is loaded."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(B)


def _dense(B):
    return B.toarray() if _issparse(B) else B


def _structured(B) -> bool:
    """True for a sparse ``B`` of a model larger than :data:`DENSE_VARIABLES` variables."""
    return _issparse(B) and B.shape[1] > DENSE_VARIABLES


def new_factor(block) -> Factor:
    """An empty (invalid) :class:`Factor` for ``block``: for a square block the banded LU
    factors (N, 2 kl + ku + 1), one contiguous row per column of the band
    (:mod:`loops.kernels.linear`), and the driven columns (N, d); for a least-squares one the
    pseudo-inverse (N, rows) and the driven columns (rows, d), with room below the
    pseudo-inverse for its SVD (``V`` (N, N), ``B_free`` (rows, N))."""
    if block.mode == LEAST_SQUARES:
        rows = len(block.row_position)
        return Factor(np.zeros((2 * block.size + rows, max(rows, block.size))), np.zeros(0, dtype=np.int64),
                      np.zeros((rows, len(block.driven))), np.zeros(FACTOR_INFO_SIZE))
    return Factor(np.zeros((block.size, 2 * block.kl + block.ku + 1)), np.zeros(block.size, dtype=np.int64),
                  np.zeros((block.size, len(block.driven))), np.zeros(FACTOR_INFO_SIZE))


def singular_values(B_scaled) -> np.ndarray:
    """Singular values of a dimensionless matrix, largest first (empty for an empty matrix)."""
    B_scaled = _dense(B_scaled)
    return np.linalg.svd(B_scaled, compute_uv=False) if B_scaled.size else np.zeros(0)


def _threshold(largest) -> float:
    """Singular values above this are nonzero: ``RANK_TOLERANCE`` of the largest, or of 1 when
    all are small."""
    return RANK_TOLERANCE * max(largest, 1.0)


def rank(B_scaled) -> int:
    """Numerical rank of a dimensionless matrix (dense, or sparse: see :func:`closure_matrix`):
    singular values above ``RANK_TOLERANCE`` of the largest, or of 1 when all are small; the
    rows an :class:`~loops.structure.Echelon` keeps, in a large block."""
    if _structured(B_scaled):
        return sum(r for _, r, _ in _block_null_spaces(B_scaled))
    s = singular_values(B_scaled)
    return int(np.sum(s > _threshold(s[0] if len(s) else 0.0)))


def null_space(B_scaled) -> np.ndarray:
    """Orthonormal basis (n, k) of the null space of a dimensionless matrix (the motions that
    keep every loop closed, in scaled units)."""
    if _structured(B_scaled):
        parts = null_space_blocks(B_scaled)
        out = np.zeros((B_scaled.shape[1], sum(basis.shape[1] for _, basis in parts)))
        k = 0
        for columns, basis in parts:
            out[np.ix_(columns, np.arange(k, k + basis.shape[1]))] = basis
            k += basis.shape[1]
        return out
    B_scaled = _dense(B_scaled)
    n = B_scaled.shape[1]
    if B_scaled.shape[0] == 0:
        return np.eye(n)
    _, s, Vt = np.linalg.svd(B_scaled, full_matrices=True)
    r = int(np.sum(s > _threshold(s[0] if len(s) else 0.0)))
    return Vt[r:].T


def null_space_blocks(B_scaled) -> list:
    """The null space of a dimensionless matrix block by block: ``[(columns, basis), ...]``, the
    columns of each block of :func:`loops.structure.blocks` that has a null space and an
    orthonormal basis (len(columns), f) of it (the whole matrix as one block when it is
    dense or small). The null space of ``B`` is their direct sum."""
    if not _structured(B_scaled):
        basis = null_space(B_scaled)
        return [(np.arange(B_scaled.shape[1], dtype=np.int64), basis)] if basis.shape[1] else []
    return [(columns, basis) for columns, _, basis in _block_null_spaces(B_scaled) if basis.shape[1]]


def _block_null_spaces(B_scaled):
    """``[(columns, rank, null basis), ...]`` per block of a sparse ``B_scaled``. Small blocks by
    their SVDs, with the threshold of the whole (from the largest singular value of any);
    large ones by :class:`~loops.structure.Echelon`."""
    from .structure import Echelon, block_rank_defects, blocks  # noqa: PLC0415 (large models: scipy.sparse)

    parts = blocks(B_scaled)
    spectra = {i: np.linalg.svd(part.dense(), compute_uv=False) for i, part in enumerate(parts)
               if part.small and len(part.rows)}
    largest = max((s[0] for s in spectra.values() if len(s)), default=0.0)
    out = []
    for i, part in enumerate(parts):
        if not len(part.rows):
            out.append((part.columns, 0, np.eye(len(part.columns))))
        elif part.small:
            r, basis = block_rank_defects(part, _threshold(largest))
            out.append((part.columns, r, basis))
        else:
            echelon = Echelon(part.matrix)
            out.append((part.columns, echelon.rank, echelon.null_space()))
    return out


def _independent_rows(B_free_scaled):
    """Indices of ``N`` independent rows (a pivoted QR of the transpose, block by block for a
    sparse matrix), or None if the block has a smaller column rank."""
    rows, n_free = B_free_scaled.shape
    if n_free == 0:
        return np.zeros(0, dtype=np.int64)
    if rows < n_free:
        return None
    if _issparse(B_free_scaled):
        from .structure import Echelon, blocks  # noqa: PLC0415 (large models: scipy.sparse)

        chosen = []
        for part in blocks(B_free_scaled):
            if part.small:
                local = _independent_rows(part.dense()) if len(part.rows) else None
            else:
                echelon = Echelon(part.matrix)
                full = echelon.rank == len(part.columns) and echelon.conditioning() > 1e-6
                local = np.sort(echelon.accepted) if full else None
            if local is None:
                return None
            chosen.append(part.rows[local])
        return np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)
    R, pivots = pivoted_qr(B_free_scaled.T)
    diagonal = np.abs(np.diag(R))
    if diagonal.size == 0 or diagonal[0] == 0.0 or np.sum(diagonal > 1e-6 * diagonal[0]) < n_free:
        return None
    return np.sort(pivots[:n_free])


def _band_ordering(pattern):
    """Row and column orders of a square 0/1 ``pattern`` (dense, or csr canonical) with a small
    bandwidth, and (kl, ku).

    Columns by reverse Cuthill-McKee on the graph of columns that share a row; each row
    then at the position of the first column it touches (ties broken by its last one).
    """
    n = pattern.shape[0]
    if isinstance(pattern, np.ndarray):
        shared = pattern.T @ pattern  # csr of it: its nonzeros row by row, columns increasing
        column_order = reverse_cuthill_mckee(np.nonzero(shared)[1],
                                             np.r_[0, np.cumsum(np.count_nonzero(shared, axis=1))])
        i, j = np.nonzero(pattern)
    else:
        import scipy.sparse.csgraph  # noqa: PLC0415 (large models only)

        column_order = scipy.sparse.csgraph.reverse_cuthill_mckee((pattern.T @ pattern).tocsr(), symmetric_mode=True)
        entries = pattern.tocoo()
        i, j = entries.row, entries.col
    column_position = np.empty(n, dtype=np.int64)
    column_position[column_order] = np.arange(n)
    first = np.full(n, n, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    np.minimum.at(first, i, column_position[j])
    np.maximum.at(last, i, column_position[j])
    row_order = np.lexsort((last, first))
    row_position = np.empty(n, dtype=np.int64)
    row_position[row_order] = np.arange(n)
    offsets = row_position[i] - column_position[j]
    kl = int(max(offsets.max(initial=0), 0))
    ku = int(max(-offsets.min(initial=0), 0))
    return row_position, column_position, kl, ku


@functools.lru_cache(maxsize=256)
def _ordering(system, rows, free):
    """:func:`_band_ordering` of the block of ``system``'s structure with the chosen ``rows`` and
    the ``free`` columns (int64 index arrays as bytes: the cache's key), read-only. A sweep
    chooses its block afresh at every call, usually the same one for the same drivers."""
    rows, free = np.frombuffer(rows, dtype=np.int64), np.frombuffer(free, dtype=np.int64)
    if len(free) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0, 0
    if system.n <= DENSE_VARIABLES:
        pattern = dense_closure_pattern(system)[rows][:, free]
    else:
        pattern = closure_pattern(system)[rows][:, free]
        pattern.sum_duplicates()  # canonical: sorted indices
    row_order, column_order, kl, ku = _band_ordering(pattern)
    row_order.setflags(write=False)
    column_order.setflags(write=False)
    return row_order, column_order, kl, ku


def square_block_at(system, config, driven):
    """:func:`square_block` at the configuration ``config``."""
    return square_block(system, closure_matrix(system, config), driven)


def square_block(system, B_scaled, driven):
    """The :class:`SquareBlock` of ``B`` for the ``driven`` columns at the configuration where
    the dimensionless ``B_scaled`` (rows, n; dense, or sparse: :func:`closure_matrix`) was
    taken, or None when ``B_free`` has less than full column rank there (a dead point of these
    drivers, or drivers that leave a freedom undetermined)."""
    n = system.n
    driven = np.asarray(driven, dtype=np.int64)
    mask = np.ones(n, dtype=bool)
    mask[driven] = False
    free = np.flatnonzero(mask).astype(np.int64)
    B_free = B_scaled[:, free] if _structured(B_scaled) else _dense(B_scaled)[:, free]
    rows = _independent_rows(B_free)
    if rows is None:
        return None
    size = len(free)
    row_order, column_order, kl, ku = _ordering(system, np.asarray(rows, np.int64).tobytes(), free.tobytes())
    column_position = np.full(n, -1, dtype=np.int64)
    column_position[free] = column_order
    driven_position = np.full(n, -1, dtype=np.int64)
    driven_position[driven] = np.arange(len(driven))
    row_position = np.full(system.rows, -1, dtype=np.int64)
    row_position[rows] = row_order
    arrays = [free, driven, column_position, driven_position, row_position,
              np.ascontiguousarray(system.row_scale), np.ascontiguousarray(system.column_scale)]
    for a in arrays:
        a.setflags(write=False)
    return SquareBlock(SQUARE, size, kl, ku, *arrays)


def least_squares_block(system, driven):
    """The :class:`SquareBlock` that solves with every row of ``B`` (SVD, minimum norm)."""
    n = system.n
    driven = np.asarray(driven, dtype=np.int64)
    mask = np.ones(n, dtype=bool)
    mask[driven] = False
    free = np.flatnonzero(mask).astype(np.int64)
    column_position = np.full(n, -1, dtype=np.int64)
    column_position[free] = np.arange(len(free))
    driven_position = np.full(n, -1, dtype=np.int64)
    driven_position[driven] = np.arange(len(driven))
    arrays = [free, driven, column_position, driven_position, np.arange(system.rows, dtype=np.int64),
              np.ascontiguousarray(system.row_scale), np.ascontiguousarray(system.column_scale)]
    for a in arrays:
        a.setflags(write=False)
    return SquareBlock(LEAST_SQUARES, len(free), 0, 0, *arrays)


def solve_at_positions(system, block, q, rotations, rhs, singular_rcond):
    """Solve ``B_free x = rhs`` at recorded closed positions, by the kernels' factorization of
    ``block`` (:func:`loops.kernels.at_positions.solve_at_positions`: the walk's own solve).

    Parameters
    ----------
    system : the compiled system
    block : SquareBlock, the rows and driven columns to solve with (a square block, or
        :func:`least_squares_block`)
    q : (N, n) pair variables; rotations : (N, m, 3, 3) the spherical pairs' states
    rhs : (N, k, rows) right-hand sides per position, physical units (rad, m)
    singular_rcond : positions whose block has a smaller reciprocal condition are not solved

    Returns
    -------
    x : (N, k, n) the solutions, physical units; driven columns zero (and everything at a
        position that was not solved)
    solved : (N,) bool, False where the block is singular
    """
    from .configuration import new_work  # noqa: PLC0415
    from .kernels.at_positions import solve_at_positions as solve  # noqa: PLC0415 (kernels on first use)

    q = np.ascontiguousarray(q, dtype=float)
    x = np.zeros(rhs.shape[:2] + (system.n,))
    solved = np.zeros(len(q), dtype=np.int64)
    if not len(q):
        return x, solved.astype(bool)
    solve(system.topology, system.geometry, block, new_work(system, q[0], rotations[0]), new_factor(block), q,
          np.ascontiguousarray(rotations, dtype=float), np.ascontiguousarray(rhs, dtype=float), float(singular_rcond),
          x, solved)
    return x, solved.astype(bool)
