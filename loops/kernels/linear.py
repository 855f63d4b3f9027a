"""Banded LU with partial pivoting, its solves and a condition estimate, compiled.

The square blocks of the closure matrix that the solvers factorize (:mod:`loops.linear`)
are sparse: a loop's equations involve only its own pair variables. Ordered for a small
bandwidth (reverse Cuthill-McKee), a block of N equations has ``kl`` sub- and ``ku``
super-diagonals, and its LU costs ``O(N kl (kl + ku))``: linear in the number of loops of
a chain. A small mechanism is the special case of a full band (``kl = ku = N - 1``).

Storage is LAPACK's band layout (dgbtrf's ``AB``, column-major there), each column of the
band contiguous: entry ``(i, j)`` of the matrix at ``band[j, kl + ku + i - j]`` in a
C-ordered array of shape ``(N, 2 kl + ku + 1)``, so that row j of the array holds column j
from row ``j - kl - ku`` down to row ``j + kl`` and the diagonal is ``band[j, kl + ku]``. The
first ``kl`` entries of each row are room for the fill-in of row exchanges (the factor U has
``kl + ku`` super-diagonals). ``pivots[j]`` is the row exchanged with row j at step j
(LAPACK's dgbtf2, 0-based). The elimination, the multipliers of L and both triangular
solves run down columns, so every inner loop reads and writes contiguous memory, and the
compiler vectorizes the updates (element by element the same products and differences,
so the same rounding as a scalar loop: numba does not contract them to FMA). The
transposed solve's dot products stay scalar: vectorizing a sum would reorder it.
"""

from __future__ import annotations

import numpy as np

from ._compile import inline_kernel, internal_kernel
from .closure import gauge_rows, loop_jacobian, world_twists
from .state import (BAND_OVERFLOW, CONDITIONING, DETERMINANT_SIGN, LEAST_SQUARES, PIVOT_RATIO, RANK_TOLERANCE,
                    VALID)

#: Pivot ratio above which the block counts as well conditioned without an estimate.
CHEAP_CONDITIONING = 0.05

__all__ = ["lu_factor", "lu_solve", "band_lu", "band_pivot", "band_determinant_sign", "band_solve", "band_solve_transposed",
           "band_one_norm_of_inverse", "factorize_block", "solve_block", "transmission", "solve_scaled", "solution_at",
           "scaled_rhs"]


@inline_kernel
def band_pivot(band, kl, ku, j):
    """U's diagonal entry ``j`` (the pivot of step j) in a band factorized by :func:`band_lu`."""
    return band[j, kl + ku]


@internal_kernel(forceinline=True)
def band_lu(band, n, kl, ku, pivots):
    """Factorize in place; returns the smallest over the largest pivot magnitude (0 if singular).

    Step j works down columns, each a contiguous row of ``band``: the pivot column's entries
    from the diagonal down (``column``: the pivot search, then the multipliers of L), and for
    every column c right of it the entries from row j down (``target``), updated by the
    multipliers times its row-j entry. The row exchange is the only access across columns.
    """
    kv = kl + ku
    last = 0  # last column touched by row exchanges so far
    smallest, largest = np.inf, 0.0
    for j in range(n):
        below = min(kl, n - 1 - j)
        # The rows below the column's last nonzero take no part in the pivot search and the
        # updates of step j: a zero is never the pivot, and its multiplier, a zero, leaves
        # every entry it would update as it is, bit for bit (an assembled band holds no -0.0,
        # and a difference of equal numbers is +0.0). The multipliers themselves are scaled
        # down to the band's edge, so that L's zeros keep the signs of the whole elimination.
        km = below
        while km > 0 and band[j, kv + km] == 0.0:
            km -= 1
        column = band[j, kv:kv + km + 1]  # rows j..j+km of column j
        p = 0
        best = abs(column[0])
        for i in range(1, km + 1):
            value = abs(column[i])
            if value > best:
                best, p = value, i
        pivots[j] = j + p
        smallest = min(smallest, best)
        largest = max(largest, best)
        if best == 0.0:
            continue
        last = max(last, min(j + ku + p, n - 1))
        if p != 0:
            for c in range(j, last + 1):
                a = band[c, kv + j - c]
                band[c, kv + j - c] = band[c, kv + j + p - c]
                band[c, kv + j + p - c] = a
        inverse = 1.0 / column[0]
        multipliers = band[j, kv:kv + below + 1]
        for i in range(1, below + 1):
            multipliers[i] *= inverse
        for c in range(j + 1, last + 1):
            target = band[c, kv + j - c:kv + j - c + km + 1]  # rows j..j+km of column c
            a = target[0]
            if a != 0.0:
                for i in range(1, km + 1):
                    target[i] -= column[i] * a
    if n == 0:
        return 1.0
    return smallest / largest if largest > 0.0 else 0.0


@internal_kernel(forceinline=True)
def band_determinant_sign(band, n, kl, ku, pivots):
    """Sign (+1, -1; 0 if singular) of the determinant of the matrix factorized by
    :func:`band_lu`: the signs of U's diagonal and one sign change per row exchange."""
    sign = 1.0
    for j in range(n):
        d = band_pivot(band, kl, ku, j)
        if d == 0.0:
            return 0.0
        if d < 0.0:
            sign = -sign
        if pivots[j] != j:
            sign = -sign
    return sign


@internal_kernel
def band_solve(band, n, kl, ku, pivots, b):
    """Solve ``A x = b`` in place (``b`` (n,)) with the factors of :func:`band_lu`: the row
    exchanges and L forward, U backward, each step an update of ``b`` by one contiguous
    column of the factors."""
    kv = kl + ku
    for j in range(n):
        p = pivots[j]
        if p != j:
            a = b[j]
            b[j] = b[p]
            b[p] = a
        bj = b[j]
        if bj != 0.0:
            km = min(kl, n - 1 - j)
            multipliers = band[j, kv + 1:kv + km + 1]  # L below the diagonal of column j
            below = b[j + 1:j + km + 1]
            for i in range(km):
                below[i] -= multipliers[i] * bj
    for j in range(n - 1, -1, -1):
        b[j] /= band[j, kv]
        bj = b[j]
        if bj != 0.0:
            top = max(0, j - kv)
            above = band[j, kv + top - j:kv]  # U above the diagonal of column j, rows top..j-1
            for i in range(j - top):
                b[top + i] -= above[i] * bj


@internal_kernel
def band_solve_transposed(band, n, kl, ku, pivots, b):
    """Solve ``A^T x = b`` in place with the factors of :func:`band_lu` (``A = P L U``): the
    same columns of the factors, as dot products."""
    kv = kl + ku
    for j in range(n):  # U^T y = b
        top = max(0, j - kv)
        above = band[j, kv + top - j:kv]
        s = b[j]
        for i in range(j - top):
            s -= above[i] * b[top + i]
        b[j] = s / band[j, kv]
    for j in range(n - 1, -1, -1):  # L^T z = y, then the row exchanges in reverse
        km = min(kl, n - 1 - j)
        multipliers = band[j, kv + 1:kv + km + 1]
        s = b[j]
        for i in range(km):
            s -= multipliers[i] * b[j + 1 + i]
        b[j] = s
        p = pivots[j]
        if p != j:
            a = b[j]
            b[j] = b[p]
            b[p] = a


@internal_kernel
def band_one_norm_of_inverse(band, n, kl, ku, pivots, x, y):
    """Estimate of ``||A^-1||_1`` (Hager's method, as LAPACK's dlacon: a few solves).

    A lower bound that is almost always within a small factor of the truth; with ``||A||_1``
    it gives the reciprocal condition number that decides dead points. ``x``, ``y``: (n,) scratch.
    """
    if n == 0:
        return 0.0
    x[:] = 1.0 / n
    estimate = 0.0
    previous_j = -1
    for _ in range(5):
        band_solve(band, n, kl, ku, pivots, x)
        norm = 0.0
        for i in range(n):
            norm += abs(x[i])
        if not np.isfinite(norm):
            return np.inf
        if norm <= estimate:
            break
        estimate = norm
        for i in range(n):
            x[i] = 1.0 if x[i] >= 0.0 else -1.0
        band_solve_transposed(band, n, kl, ku, pivots, x)
        j = 0
        for i in range(1, n):
            if abs(x[i]) > abs(x[j]):
                j = i
        if j == previous_j:
            break
        previous_j = j
        x[:] = 0.0
        x[j] = 1.0
    # Higham's safeguard: the alternating-sign vector catches what the iteration misses.
    for i in range(n):
        y[i] = (1.0 if i % 2 == 0 else -1.0) * (1.0 + i / max(n - 1, 1))
    band_solve(band, n, kl, ku, pivots, y)
    alternative = 0.0
    for i in range(n):
        alternative += abs(y[i])
    return max(estimate, 2.0 * alternative / (3.0 * n))


@inline_kernel
def _scaled_entry(block, value, row, col):
    """An entry of ``B`` in ``row`` and ``col`` made dimensionless: times the row's and the
    column's scale (:class:`~loops.linear.SquareBlock`)."""
    return value * block.row_scale[row] * block.column_scale[col]


@inline_kernel
def _band_slot(block, rp, cp):
    """Where the entry in block row ``rp`` of the block's column at position ``cp`` is stored in
    row cp of the band, or -1 when it falls outside the band."""
    if rp - cp > block.kl or cp - rp > block.ku:
        return -1
    return block.kl + block.ku + rp - cp


@internal_kernel
def _dense_rows(topology, block, work, free_part, driven_part):
    """Every row of ``B`` made dimensionless, split into free (rows, N) and driven (rows, d) columns."""
    free_part[:, :] = 0.0
    driven_part[:, :] = 0.0
    for i in range(topology.loops):
        for e in range(topology.loop_ptr[i], topology.loop_ptr[i + 1]):
            col = topology.loop_cols[e]
            for r in range(6):
                value = _scaled_entry(block, work.loop_blocks[e, r], 6 * i + r, col)
                if block.column_position[col] >= 0:
                    free_part[6 * i + r, block.column_position[col]] += value
                else:
                    driven_part[6 * i + r, block.driven_position[col]] += value
    base = 6 * topology.loops
    for g in range(topology.gauges):
        for col in range(topology.n):
            value = _scaled_entry(block, work.gauge_rows[g, col], base + g, col)
            if block.column_position[col] >= 0:
                free_part[base + g, block.column_position[col]] += value
            else:
                driven_part[base + g, block.driven_position[col]] += value


@internal_kernel
def _jacobi_orthogonalize(A, V, rows, size):
    """One-sided Jacobi (Hestenes): plane rotations of the columns of ``A`` (rows, N), accumulated
    in ``V`` (N, N) from the identity, until every pair of columns is orthogonal to round-off
    (at most 60 sweeps): then ``A V`` is ``U S`` with the column norms as singular values."""
    V[:, :] = 0.0
    for k in range(size):
        V[k, k] = 1.0
    for sweep in range(60):
        rotated = False
        for p in range(size - 1):
            for q in range(p + 1, size):
                alpha, beta, gamma = 0.0, 0.0, 0.0
                for r in range(rows):
                    alpha += A[r, p] * A[r, p]
                    beta += A[r, q] * A[r, q]
                    gamma += A[r, p] * A[r, q]
                if gamma == 0.0 or abs(gamma) <= 1e-15 * np.sqrt(alpha * beta):
                    continue
                rotated = True
                if abs(beta - alpha) >= 1e150 * abs(gamma):
                    t = gamma / (beta - alpha)  # 1 / (2 zeta): zeta itself would overflow
                else:
                    zeta = (beta - alpha) / (2.0 * gamma)
                    t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + np.hypot(1.0, zeta))  # the smaller root
                c = 1.0 / np.hypot(1.0, t)
                sn = c * t
                for r in range(rows):
                    a, b = A[r, p], A[r, q]
                    A[r, p], A[r, q] = c * a - sn * b, sn * a + c * b
                for r in range(size):
                    a, b = V[r, p], V[r, q]
                    V[r, p], V[r, q] = c * a - sn * b, sn * a + c * b
        if not rotated:
            break


@internal_kernel
def _factorize_least_squares(topology, block, work, factor):
    """Pseudo-inverse of the dimensionless ``B_free`` (all rows) by SVD, singular values below
    ``RANK_TOLERANCE`` of the largest (or of 1) dropped: the minimum-norm least-squares solve.

    The SVD is one-sided Jacobi (:func:`_jacobi_orthogonalize`): ``A V = U S`` for
    ``A = B_free`` (rows, N), and ``pinv = V S^-2 (A V)^T``. It works in the factor's own
    storage (:func:`loops.linear.new_factor`: the pseudo-inverse (N, rows) in ``band[:N]``,
    ``V`` (N, N) and ``A`` (rows, N) below it), allocating nothing.
    """
    rows = block.row_position.shape[0]
    size = block.size
    pinv = factor.band[:size, :rows]
    V = factor.band[size:2 * size, :size]
    A = factor.band[2 * size:2 * size + rows, :size]
    _dense_rows(topology, block, work, A, factor.driven)
    factor.info[BAND_OVERFLOW] = 0.0
    factor.info[VALID] = 1.0
    factor.info[DETERMINANT_SIGN] = 0.0
    pinv[:, :] = 0.0
    if size == 0 or rows == 0:
        factor.info[PIVOT_RATIO] = 1.0
        factor.info[CONDITIONING] = 1.0
        return
    _jacobi_orthogonalize(A, V, rows, size)
    # Singular values: the column norms (into the free part of the scratch, largest first
    # for the ratio of the smallest kept to the largest).
    sv = work.scratch.equations[2][:size]
    largest = 0.0
    for k in range(size):
        norm = 0.0
        for r in range(rows):
            norm += A[r, k] * A[r, k]
        sv[k] = np.sqrt(norm)
        largest = max(largest, sv[k])
    cut = RANK_TOLERANCE * max(largest, 1.0)
    for k in range(size):
        if sv[k] > cut:
            inverse = 1.0 / (sv[k] * sv[k])
            for i in range(size):
                for j in range(rows):
                    pinv[i, j] += V[i, k] * inverse * A[j, k]
    # The min(N, rows)-th largest singular value over the largest (0: rank deficient).
    rank_count = min(size, rows)
    smallest = largest
    for _ in range(size - rank_count + 1):
        smallest = -1.0
        at = -1
        for k in range(size):
            if sv[k] >= 0.0 and (smallest < 0.0 or sv[k] < smallest):
                smallest, at = sv[k], k
        sv[at] = -1.0
    factor.info[PIVOT_RATIO] = smallest / largest if largest > 0.0 else 0.0
    factor.info[CONDITIONING] = factor.info[PIVOT_RATIO]


@internal_kernel(forceinline=True)
def _assemble_band(topology, block, work, band, driven, column_sums):
    """The square block's entries (dimensionless) into ``band`` (zeroed first) in the band
    ordering, its driven columns into ``driven`` (N, d), and each band column's sum of
    magnitudes into ``column_sums``; returns 1.0 when an entry fell outside the band, else 0."""
    n = block.size
    band[:, :] = 0.0
    driven[:, :] = 0.0
    column_sums[:n] = 0.0
    overflow = 0.0
    for i in range(topology.loops):
        rows = block.row_position[6 * i:6 * i + 6]
        for e in range(topology.loop_ptr[i], topology.loop_ptr[i + 1]):
            # Loop i's rows in column col: one stretch of the contiguous band row cp.
            col = topology.loop_cols[e]
            cp = block.column_position[col]
            entries = work.loop_blocks[e]
            if cp < 0:
                dp = block.driven_position[col]
                for r in range(6):
                    if rows[r] >= 0:
                        driven[rows[r], dp] += _scaled_entry(block, entries[r], 6 * i + r, col)
                continue
            column = band[cp]
            total = column_sums[cp]
            for r in range(6):
                if rows[r] < 0:
                    continue
                value = _scaled_entry(block, entries[r], 6 * i + r, col)
                slot = _band_slot(block, rows[r], cp)
                if slot < 0:
                    overflow = 1.0
                else:
                    column[slot] += value
                    total += abs(value)
            column_sums[cp] = total
    base = 6 * topology.loops
    for g in range(topology.gauges):
        rp = block.row_position[base + g]
        if rp < 0:
            continue
        for col in range(topology.n):
            value = work.gauge_rows[g, col]
            if value == 0.0:
                continue
            value = _scaled_entry(block, value, base + g, col)
            cp = block.column_position[col]
            if cp < 0:
                driven[rp, block.driven_position[col]] += value
                continue
            slot = _band_slot(block, rp, cp)
            if slot < 0:
                overflow = 1.0
            else:
                band[cp, slot] += value
                column_sums[cp] += abs(value)
    return overflow


@internal_kernel
def factorize_block(topology, geometry, block, work, factor):
    """Assemble and factorize the block of ``B`` (eq. 3) at the configuration in ``work``.

    The block's rows and columns are made dimensionless (``block.row_scale``,
    ``block.column_scale``). A square block is ordered for its band and LU-factorized; the
    driven columns go, scaled and in the chosen rows, to ``factor.driven`` (N, d). A
    least-squares block keeps the pseudo-inverse of all rows. ``factor.info`` receives the
    pivot ratio, the reciprocal condition estimate (1-norm), validity, band overflow and the
    determinant's sign (:mod:`.state`). The world twists of the configuration
    (:func:`~loops.kernels.closure.world_twists`) are computed here, where the Jacobian needs
    them. The condition estimate (Hager's, a few solves) is made only when the pivots' ratio
    is below ``CHEAP_CONDITIONING``; above it the ratio stands for it (a well-conditioned
    block is all the callers need to know).
    """
    world_twists(topology, geometry, work)
    loop_jacobian(topology, work.xi, work.centres, work.loop_blocks)
    if topology.gauges:
        gauge_rows(topology, geometry, work.xi, work.swings, work.gauge_rows, work.scratch.v3[5:8])
    if block.mode == LEAST_SQUARES:
        _factorize_least_squares(topology, block, work, factor)
        return
    n, kl, ku = block.size, block.kl, block.ku
    band = factor.band
    column_sums = work.scratch.equations[1]
    overflow = _assemble_band(topology, block, work, band, factor.driven, column_sums)
    norm = 0.0
    for j in range(n):
        norm = max(norm, column_sums[j])
    ratio = band_lu(band, n, kl, ku, factor.pivots)
    if ratio >= CHEAP_CONDITIONING:
        rcond = ratio
    elif ratio > 0.0 and n > 0:
        inverse_norm = band_one_norm_of_inverse(band, n, kl, ku, factor.pivots, work.scratch.equations[1][:n],
                                                work.scratch.equations[2][:n])
        rcond = 1.0 / (norm * inverse_norm) if norm > 0.0 and np.isfinite(inverse_norm) else 0.0
    else:
        rcond = 1.0 if n == 0 else 0.0
    factor.info[PIVOT_RATIO] = ratio
    factor.info[CONDITIONING] = rcond
    factor.info[VALID] = 1.0
    factor.info[BAND_OVERFLOW] = overflow
    factor.info[DETERMINANT_SIGN] = band_determinant_sign(band, n, kl, ku, factor.pivots)


@inline_kernel
def solve_scaled(block, factor, b):
    """Solve the factorized block for a dimensionless right-hand side ``b`` (rows of the band
    ordering for a square block, every row for a least-squares one): in place for a square
    block; read the scaled free unknowns with :func:`solution_at`."""
    if block.mode != LEAST_SQUARES:
        band_solve(factor.band, block.size, block.kl, block.ku, factor.pivots, b)


@inline_kernel
def solution_at(block, factor, b, position):
    """The scaled free unknown at column ``position`` after :func:`solve_scaled` on ``b``: the
    pseudo-inverse's row times ``b`` for a least-squares block, ``b[position]`` otherwise."""
    if block.mode == LEAST_SQUARES:
        value = 0.0
        for j in range(b.shape[0]):
            value += factor.band[position, j] * b[j]
        return value
    return b[position]


@inline_kernel
def scaled_rhs(block, rhs, buffer):
    """``rhs`` (rows,) made dimensionless and laid out for :func:`solve_scaled`, in ``buffer``
    (at least rows long); returns the used part."""
    length = block.row_position.shape[0] if block.mode == LEAST_SQUARES else block.size
    b = buffer[:length]
    b[:] = 0.0
    for row in range(block.row_position.shape[0]):
        rp = block.row_position[row]
        if rp >= 0:
            b[rp] = rhs[row] * block.row_scale[row]
    return b


@inline_kernel
def solve_block(block, factor, rhs, x, buffer):
    """``x`` (n,) free entries (physical units) of ``B_free x = rhs`` for the rows of ``rhs`` (rows,),
    with the factors of :func:`factorize_block`; driven entries are left as they are. ``buffer``:
    scratch at least rows long."""
    b = scaled_rhs(block, rhs, buffer)
    solve_scaled(block, factor, b)
    for col in block.free:
        x[col] = solution_at(block, factor, b, block.column_position[col]) * block.column_scale[col]


@inline_kernel
def transmission(block, factor, G, buffer, tangents):
    """``G`` (n, d) = ``dq/d(driven)``: identity on the driven rows, ``-B_free^-1 B_driven`` on the
    free ones (eq. 4: Pavlov's transmission ratios), physical units. ``buffer``: scratch.

    Only the first ``tangents`` columns are solved for; the free rows of the others are left
    zero, for a walk whose last driven columns never move (a design study's held ones): their
    tangents would only ever be multiplied by zero."""
    d = block.driven.shape[0]
    length = factor.driven.shape[0]
    G[:, :] = 0.0
    b = buffer[:length]
    for k in range(d):
        G[block.driven[k], k] = 1.0
        if k >= tangents:
            continue
        for i in range(length):
            b[i] = -factor.driven[i, k]
        solve_scaled(block, factor, b)
        scale = 1.0 / block.column_scale[block.driven[k]]
        for col in block.free:
            G[col, k] = solution_at(block, factor, b, block.column_position[col]) * block.column_scale[col] * scale


@internal_kernel
def lu_factor(A, pivots):
    """Dense LU with partial pivoting in place (``A`` (k, k)); False when a pivot vanishes (below
    1e-14 of the largest entry)."""
    k = A.shape[0]
    largest = 0.0
    for i in range(k):
        for j in range(k):
            largest = max(largest, abs(A[i, j]))
    if largest == 0.0:
        return k == 0
    for j in range(k):
        p = j
        for i in range(j + 1, k):
            if abs(A[i, j]) > abs(A[p, j]):
                p = i
        pivots[j] = p
        if abs(A[p, j]) <= 1e-14 * largest:
            return False
        if p != j:
            for c in range(k):
                A[j, c], A[p, c] = A[p, c], A[j, c]
        inverse = 1.0 / A[j, j]
        for i in range(j + 1, k):
            A[i, j] *= inverse
            f = A[i, j]
            if f != 0.0:
                for c in range(j + 1, k):
                    A[i, c] -= f * A[j, c]
    return True


@internal_kernel
def lu_solve(A, pivots, b):
    """Solve ``A x = b`` in place with the factors of :func:`lu_factor`."""
    k = A.shape[0]
    for j in range(k):
        p = pivots[j]
        if p != j:
            b[j], b[p] = b[p], b[j]
    for i in range(k):
        for j in range(i):
            b[i] -= A[i, j] * b[j]
    for i in range(k - 1, -1, -1):
        for j in range(i + 1, k):
            b[i] -= A[i, j] * b[j]
        b[i] /= A[i, i]
