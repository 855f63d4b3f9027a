"""Large closure matrices by their structure: independent blocks, and banded elimination.

The closure matrix ``B`` (eq. 3) is sparse: a loop's six rows involve only the loop's
variables, a gauge's row only the variables on its link's tree path. A model of a few
thousand variables (a four-bar with thousands of free pendulums, a chain of hundreds of
loops) makes a dense ``B`` whose SVD or pivoted QR costs the cube of its size. This module
gives the rank, the null space and a choice of independent rows at a cost linear in the
model's size:

* the variables fall into **blocks** (:func:`blocks`): those coupled through shared
  equations, directly or through others. ``B`` is block diagonal in them (after permuting
  rows and columns), so its rank is the sum of the blocks' ranks, its null space the direct
  sum of theirs, and a set of rows is independent when its rows in every block are. A
  variable in no equation (a pendulum on the ground) is a block of its own with no rows:
  a freedom of its own.
* a block of at most :data:`DENSE_BLOCK` variables is small: an SVD, or a pivoted QR, of its
  own dense rows.
* a larger block (a chain of loops) is reduced by Givens rotations of its rows, one row at
  a time, into an upper triangular ``R`` in echelon form (George and Heath, "Solution of
  sparse linear least squares problems using Givens rotations", Linear Algebra Appl. 34,
  1980): :class:`Echelon`. With the columns in reverse Cuthill-McKee order and the rows by
  their first column, ``R`` keeps the rows' bandwidth ``w``, so the reduction costs
  ``O(rows w^2)``. A row that reduces to nothing (to :data:`RANK_TOLERANCE` of its own
  length) depends on the rows before it; the others are independent and their number is the
  rank. The null space follows from ``R`` by back substitution (one vector per column left
  without a pivot), orthonormalised.

Dimensionless matrices only (``loops.compiled.CompiledSystem.row_scale``, ``column_scale``):
the tolerances are absolute there.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
import scipy.sparse.linalg

from .kernels.state import RANK_TOLERANCE

__all__ = ["DENSE_BLOCK", "Block", "blocks", "Echelon", "band_columns", "block_rank_defects"]

#: Largest block (variables) handled by a dense SVD or pivoted QR; larger ones by :class:`Echelon`.
DENSE_BLOCK = 96


class Block:
    """One block of a sparse matrix: its ``columns`` and ``rows`` (int64 index arrays, increasing)
    and its entries ``matrix`` (csr, rows x columns, taken from the whole on first use)."""

    __slots__ = ("columns", "rows", "_whole", "_matrix")

    def __init__(self, columns, rows, whole):
        self.columns, self.rows, self._whole, self._matrix = columns, rows, whole, None

    @property
    def matrix(self):
        if self._matrix is None:
            self._matrix = (self._whole[self.rows][:, self.columns] if len(self.rows)
                            else scipy.sparse.csr_matrix((0, len(self.columns))))
        return self._matrix

    @property
    def small(self) -> bool:
        """True when a dense factorization serves (at most :data:`DENSE_BLOCK` columns)."""
        return len(self.columns) <= DENSE_BLOCK

    def dense(self) -> np.ndarray:
        return self.matrix.toarray()


def blocks(matrix) -> list[Block]:
    """The blocks of the columns of the sparse ``matrix`` (rows, n) coupled through its rows (a
    column and a row are coupled by a stored entry, zero or not: the structure decides), in
    the order of their first columns. Rows with no entry belong to no block."""
    matrix = scipy.sparse.csr_matrix(matrix)
    rows, n = matrix.shape
    coo = matrix.tocoo()
    # The bipartite graph of rows (nodes 0..rows-1) and columns (rows..rows+n-1).
    graph = scipy.sparse.coo_matrix((np.ones(len(coo.row)), (coo.row, rows + coo.col)), shape=(rows + n, rows + n))
    _, labels = scipy.sparse.csgraph.connected_components(graph, directed=False)
    column_labels, row_labels = labels[rows:], labels[:rows]
    has_entries = np.diff(matrix.indptr) > 0
    order = np.argsort(column_labels, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(column_labels[order]) != 0])
    row_order = np.argsort(row_labels, kind="stable")
    row_order = row_order[has_entries[row_order]]
    sorted_row_labels = row_labels[row_order]
    out = []
    for columns in np.split(order, starts[1:]):
        label = column_labels[columns[0]]
        lo, hi = np.searchsorted(sorted_row_labels, [label, label + 1])
        block_rows = row_order[lo:hi]
        out.append(Block(np.sort(columns).astype(np.int64), np.sort(block_rows).astype(np.int64), matrix))
    out.sort(key=lambda block: block.columns[0])
    return out


def band_columns(matrix) -> np.ndarray:
    """A column order of the sparse ``matrix`` with a small bandwidth of its rows: reverse
    Cuthill-McKee on the graph of columns that share a row."""
    pattern = scipy.sparse.csr_matrix(matrix, dtype=float, copy=True)
    pattern.data[:] = 1.0
    adjacency = (pattern.T @ pattern).tocsr()
    return scipy.sparse.csgraph.reverse_cuthill_mckee(adjacency, symmetric_mode=True).astype(np.int64)


class Echelon:
    """Givens reduction of the rows of a sparse dimensionless matrix (rows, c) to echelon form
    (see the module docstring).

    Attributes
    ----------
    order : (c,) int, the columns in band order (position -> column)
    accepted : (r,) int, the rows that are independent of the rows reduced before them, in the
        order reduced (rows by their first column in band order)
    pivoted : (c,) bool, per band position: ``R`` has a row starting there
    band : (c, w + 1), ``R[k, k + j]`` at ``band[k, j]`` (band positions)
    width : int, ``w``
    """

    def __init__(self, matrix):
        matrix = scipy.sparse.csr_matrix(matrix)
        rows, c = matrix.shape
        self.order = band_columns(matrix) if c else np.zeros(0, dtype=np.int64)
        position = np.empty(c, dtype=np.int64)
        position[self.order] = np.arange(c)
        entries = matrix.tocoo()
        at = position[entries.col]
        first = np.full(rows, c, dtype=np.int64)
        last = np.full(rows, -1, dtype=np.int64)
        np.minimum.at(first, entries.row, at)
        np.maximum.at(last, entries.row, at)
        self.width = int(max(np.max(last - first, initial=0), 0))
        w = self.width
        self.band = np.zeros((c, w + 1))
        self.pivoted = np.zeros(c, dtype=bool)
        work = np.zeros(c + 2 * w + 2)
        accepted = []
        csr = scipy.sparse.csr_matrix((entries.data, (entries.row, at)), shape=(rows, c))
        for row in np.lexsort((last, first)):
            lo, hi = csr.indptr[row], csr.indptr[row + 1]
            if lo == hi:
                continue
            work[csr.indices[lo:hi]] = csr.data[lo:hi]
            if self._reduce(work, int(first[row]), int(last[row]), math.sqrt(float(csr.data[lo:hi] @ csr.data[lo:hi]))):
                accepted.append(row)
        self.accepted = np.array(accepted, dtype=np.int64)

    def _reduce(self, work, k, end, length):
        """Rotate the row held in ``work`` (nonzero in band positions ``k..end``, Euclidean
        ``length``) into ``R``; True when it adds a row to ``R`` (is independent). ``work`` is
        left zero."""
        w, band, pivoted = self.width, self.band, self.pivoted
        drop = RANK_TOLERANCE * length
        while k <= end:
            value = work[k]
            if abs(value) <= drop:
                work[k] = 0.0
                k += 1
                continue
            if not pivoted[k]:
                band[k] = work[k:k + w + 1]
                pivoted[k] = True
                work[k:end + 1] = 0.0
                return True
            segment = work[k:k + w + 1]
            head = band[k, 0]
            radius = math.hypot(head, value)
            cos, sin = head / radius, value / radius
            rotated = cos * band[k] + sin * segment
            segment[:] = cos * segment - sin * band[k]
            band[k] = rotated
            work[k] = 0.0
            end = max(end, k + w)
            k += 1
        return False

    @property
    def rank(self) -> int:
        return len(self.accepted)

    def conditioning(self) -> float:
        """Smallest over largest pivot magnitude of ``R`` (1 when it has none)."""
        pivots = np.abs(self.band[self.pivoted, 0])
        return float(pivots.min() / pivots.max()) if len(pivots) and pivots.max() > 0 else 1.0

    def null_space(self) -> np.ndarray:
        """Orthonormal basis (c, f) of the null space, columns in the matrix's own order: one
        vector per band position without a pivot, by back substitution in ``R``."""
        c, w = len(self.order), self.width
        free = np.flatnonzero(~self.pivoted)
        x = np.zeros((c + w + 1, len(free)))
        x[free, np.arange(len(free))] = 1.0
        band = self.band
        for k in np.flatnonzero(self.pivoted)[::-1]:
            x[k] = -(band[k, 1:] @ x[k + 1:k + w + 1]) / band[k, 0]
        x = x[:c]
        if len(free):
            x = np.linalg.qr(x / np.linalg.norm(x, axis=0))[0]
            if self.rank:
                R = self._triangle()
                x = np.linalg.qr(self._refined(self._refined(x, R), R))[0]  # twice is enough
        basis = np.zeros((c, len(free)))
        basis[self.order] = x
        return basis

    def _refined(self, x, R):
        """``x`` (c, f) in band positions less its least-squares part in the row space of ``R``
        (csr, pivots x c): ``x - R^T (R R^T)^-1 R x``. Back substitution gives exact null vectors
        that may be nearly parallel; orthonormalising them multiplies their round-off by their
        condition number (1e9 for a random banded matrix of 50 columns), and this projection
        takes it out again."""
        y = scipy.sparse.linalg.splu((R @ R.T).tocsc()).solve(np.ascontiguousarray(R @ x))
        return x - R.T @ y

    def _triangle(self):
        """``R`` as csr (pivots, c), columns in band positions."""
        c, w = len(self.order), self.width
        rows = np.flatnonzero(self.pivoted)
        cols = rows[:, None] + np.arange(w + 1)[None, :]
        owners = np.broadcast_to(np.arange(len(rows))[:, None], cols.shape)
        keep = cols < c
        return scipy.sparse.csr_matrix((self.band[rows][keep], (owners[keep], cols[keep])), shape=(len(rows), c))


def block_rank_defects(block, threshold) -> tuple[int, np.ndarray]:
    """Rank of a small :class:`Block` (singular values above ``threshold``) and an orthonormal
    basis (columns, f) of its null space."""
    dense = block.dense()
    c = dense.shape[1]
    if dense.shape[0] == 0:
        return 0, np.eye(c)
    _, s, vt = np.linalg.svd(dense, full_matrices=True)
    r = int(np.sum(s > threshold))
    return r, vt[r:].T
