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

from .linear import RANK_TOLERANCE, closure_matrix, null_space_blocks

__all__ = ["NEAR_BEST", "held_freedoms", "hold_names", "DependentDrivers", "reused_freedoms", "REUSE_CONDITIONING",
           "REUSE_VARIABLES"]

#: Candidates whose remaining row length is within this fraction of the best are equals.
NEAR_BEST = 0.5
#: A choice reused on a design variant (:func:`reused_freedoms`) is kept while the reciprocal
#: condition number of its block stays at least this fraction of the one it was made at.
REUSE_CONDITIONING = 0.5
#: Models of at most this many variables reuse choices (the check factors the dense block).
REUSE_VARIABLES = 400


class DependentDrivers(ModelError):
    """The drivers fix fewer freedoms than their number at the start: a dead point of the
    drivers there (a driver at its turning point), or drivers that are not independent."""


def _orthonormal_rows(rows):
    """Orthonormal basis of the span of ``rows`` (k, m) and its rank."""
    if not len(rows):
        return np.zeros((0, rows.shape[1] if rows.ndim == 2 else 0)), 0
    u, s, vt = np.linalg.svd(rows, full_matrices=False)
    r = int(np.sum(s > RANK_TOLERANCE * max(s[0], 1.0)))
    return vt[:r], r


class _Freedoms:
    """The null space of ``B`` block by block (:func:`loops.linear.null_space_blocks`) and, per
    block, the orthonormal span of the rows of the columns chosen so far (drivers, held):
    what the greedy choice measures candidates against. Rows of different blocks are
    orthogonal, so a choice in one block leaves the others' measures alone."""

    def __init__(self, system, B, parts=None):
        parts = null_space_blocks(B) if parts is None else parts
        self.count = sum(basis.shape[1] for _, basis in parts)
        self.block = np.full(system.n, -1, dtype=np.int64)  # block of each column (-1: none, fixed)
        self.local = np.zeros(system.n, dtype=np.int64)
        self.bases = []
        for k, (columns, basis) in enumerate(parts):
            self.block[columns] = k
            self.local[columns] = np.arange(len(columns))
            self.bases.append(basis)
        self.spans = [np.zeros((0, basis.shape[1])) for basis in self.bases]

    def rows(self, columns):
        """``{block: rows (len, f_block) of the columns in it}`` for the columns of a block."""
        out = {}
        for c in columns:
            k = int(self.block[c])
            if k >= 0:
                out.setdefault(k, []).append(self.bases[k][self.local[c]])
        return {k: np.array(v) for k, v in out.items()}

    def rank(self, columns) -> int:
        """Rank of the null-space rows of ``columns`` (independent freedoms they fix)."""
        return sum(_orthonormal_rows(rows)[1] for rows in self.rows(columns).values())

    def choose(self, columns):
        """Take ``columns`` as chosen: each block's span becomes that of its chosen rows."""
        for k, rows in self.rows(columns).items():
            self.spans[k], _ = _orthonormal_rows(rows)

    def add(self, column):
        """Add one chosen column (its row independent of its block's span)."""
        k = int(self.block[column])
        span = self.spans[k]
        row = self.bases[k][self.local[column]]
        for _ in range(2):  # twice is enough (Gram-Schmidt, "twice is enough": Giraud et al. 2005)
            row = row - (span @ row) @ span
        self.spans[k] = np.vstack([span, row / np.linalg.norm(row)])

    def remaining(self, columns) -> np.ndarray:
        """Length of each column's row once its block's span is projected out (0 for a column in
        no block: it moves in no freedom)."""
        out = np.zeros(len(columns))
        columns = np.asarray(columns, dtype=np.int64)
        for k in np.unique(self.block[columns]):
            if k < 0:
                continue
            at = np.flatnonzero(self.block[columns] == k)
            rows = self.bases[k][self.local[columns[at]]]
            span = self.spans[k]
            if len(span):
                rows = rows - (rows @ span.T) @ span
            out[at] = np.linalg.norm(rows, axis=1)
        return out


class _Leftmost:
    """Values in a fixed order (a segment tree of maxima): the largest, and the first at least
    a threshold, each in O(log n); values change in batches. Few values are kept flat instead
    (:class:`_FlatLeftmost`)."""

    def __init__(self, values):
        self.size = 1 << max(len(values) - 1, 0).bit_length()
        self.tree = np.full(2 * self.size, -np.inf)
        self.tree[self.size:self.size + len(values)] = values
        level = self.size // 2
        while level >= 1:  # the nodes level..2 level - 1 from their children
            self.tree[level:2 * level] = np.maximum(self.tree[2 * level:4 * level:2], self.tree[2 * level + 1:4 * level:2])
            level //= 2

    def largest(self) -> float:
        return float(self.tree[1])

    def update(self, positions, values):
        tree = self.tree
        nodes = np.asarray(positions, dtype=np.int64) + self.size
        tree[nodes] = values
        if len(nodes) == 1:  # one leaf: its ancestors one by one, without numpy's per-call cost
            node = int(nodes[0]) // 2
            while node >= 1:
                tree[node] = max(tree[2 * node], tree[2 * node + 1])
                node //= 2
            return
        nodes = np.unique(nodes // 2)
        while len(nodes) and nodes[0] >= 1:
            tree[nodes] = np.maximum(tree[2 * nodes], tree[2 * nodes + 1])
            nodes = np.unique(nodes // 2)

    def first_at_least(self, threshold) -> int:
        node = 1
        while node < self.size:
            node = 2 * node if self.tree[2 * node] >= threshold else 2 * node + 1
        return node - self.size


#: Up to this many candidates the greedy choice keeps its values flat (:class:`_Leftmost`).
FLAT_VALUES = 512


class _FlatLeftmost:
    """:class:`_Leftmost`'s answers on a plain array: the largest by ``max``, the first at least a
    threshold by the first true comparison (the same values compared: the same answers), one
    vector operation each, cheaper than the tree's levels up to :data:`FLAT_VALUES` values."""

    def __init__(self, values):
        self.values = np.array(values, dtype=float)

    def largest(self) -> float:
        return float(self.values.max())

    def update(self, positions, values):
        self.values[positions] = values

    def first_at_least(self, threshold) -> int:
        return int(np.argmax(self.values >= threshold))


def hold_names(hold) -> list:
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


def held_freedoms(system, config, driven, hold=None, *, null_space=None) -> np.ndarray:
    """Columns to hold with the ``driven`` ones at ``config`` (a closed configuration).

    Parameters
    ----------
    system : loops.compiled.CompiledSystem
    config : loops.configuration.Configuration
    driven : (d,) int, driver columns
    hold : list of str, optional, variables the user chooses to hold (the rest is chosen)
    null_space : [(columns, orthonormal basis)], optional, the null space of the closure matrix
        at ``config`` as :func:`loops.linear.null_space_blocks` gives it (default: computed)

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
    freedoms = _Freedoms(system, None if null_space is not None else closure_matrix(system, config), null_space)
    count = freedoms.count
    driven = np.asarray(driven, dtype=np.int64)
    names = [system.variable_names[c] for c in driven]
    if len(driven) > count:
        raise ModelError("drivers", f"{len(driven)} drivers ({', '.join(names)}) for a mechanism with "
                         f"{count} degree(s) of freedom: it is over-driven")
    if freedoms.rank(driven) < len(driven):
        raise DependentDrivers("drivers", f"the drivers {', '.join(names)} are not independent at the start "
                               "(together they fix fewer freedoms than their number)")
    chosen = []
    hold = hold_names(hold)
    if hold:
        cols = system.driver_columns(hold, role="hold")
        for name, col in zip(hold, cols):
            if col in driven:
                raise ModelError(f"hold {name!r}", "is a driver of this sweep")
        if len(driven) + len(cols) > count:
            raise ModelError("hold", f"{len(cols)} held variable(s) and {len(driven)} driver(s) for "
                             f"{count} degree(s) of freedom")
        if freedoms.rank(np.r_[driven, cols]) < len(driven) + len(cols):
            raise ModelError("hold", f"{', '.join(map(str, hold))} cannot be held with the drivers "
                             f"{', '.join(names)}: together they do not fix independent freedoms")
        chosen = list(cols)
    freedoms.choose(np.r_[driven, chosen].astype(np.int64))
    chosen += _choose(system, freedoms, count - len(driven) - len(chosen), set(driven) | set(chosen))
    if len(driven) + len(chosen) < count:
        # Only spherical components or virtual slides move the remaining freedoms.
        raise ModelError("drivers", f"{count - len(driven) - len(chosen)} freedom(s) cannot be held by a "
                         "pair variable (only spherical components move them); drive them instead")
    return np.array(chosen, dtype=np.int64)


def _choose(system, freedoms, wanted, taken) -> list:
    """Up to ``wanted`` columns, one at a time: of the candidates (additive, public, not in
    ``taken``) whose remaining length is within NEAR_BEST of the best, a pair to the ground
    first, then the first declared (see the module docstring)."""
    candidates = np.array([c for c in range(system.n)
                           if system.additive[c] and system.public[c] and c not in taken], dtype=np.int64)
    if wanted <= 0 or not len(candidates):
        return []
    topology = system.topology
    pairs = topology.column_pair[candidates]
    grounded = (topology.first[pairs] == topology.ground) | (topology.second[pairs] == topology.ground)
    order = np.lexsort((candidates, ~grounded))  # key order: grounded first, then by column
    candidates = candidates[order]
    blocks = freedoms.block[candidates]
    by_block = np.argsort(blocks, kind="stable")
    bounds = np.searchsorted(blocks[by_block], np.arange(len(freedoms.bases) + 1))
    alive = np.ones(len(candidates), dtype=bool)
    tree = (_FlatLeftmost if len(candidates) <= FLAT_VALUES else _Leftmost)(freedoms.remaining(candidates))
    chosen = []
    while len(chosen) < wanted:
        best = tree.largest()
        if best <= RANK_TOLERANCE:
            break
        at = tree.first_at_least(NEAR_BEST * best)
        chosen.append(int(candidates[at]))
        alive[at] = False
        tree.update([at], [-np.inf])
        freedoms.add(candidates[at])
        k = blocks[at]
        members = by_block[bounds[k]:bounds[k + 1]]
        members = members[alive[members]]
        if len(members):
            tree.update(members, freedoms.remaining(candidates[members]))
    return chosen


#: The choices made so far by topology (:func:`_topology_key`): ``(held columns, rcond)``.
_CHOICES = {}


def _topology_key(system, driven, hold):
    """What :func:`held_freedoms`'s choice depends on but the geometry: the variables, their
    pairs and links, the closure's rows, the driven columns and held names."""
    topology = system.topology
    return (tuple(system.variable_names), int(system.rows), int(topology.ground), topology.first.tobytes(),
            topology.second.tobytes(), topology.column_pair.tobytes(), system.additive.tobytes(),
            system.public.tobytes(), np.asarray(driven, dtype=np.int64).tobytes(), tuple(hold))


def _null_space_through(system, config, fixed):
    """The null space of the dimensionless closure matrix ``B`` at ``config`` through its block in
    the columns not ``fixed`` (square: every row an equation of its own), and that block's
    reciprocal condition number (1-norm, LAPACK's estimate): with the fixed columns' values
    free, the others follow as ``x_rest = -B_rest^-1 B_fixed x_fixed``, so the columns
    ``[I; -B_rest^-1 B_fixed]`` span it, orthonormalised (Householder QR). ``([(columns, basis)],
    rcond)`` as :func:`loops.linear.null_space_blocks`, or ``(None, 0.0)`` when the block is not
    square or is singular."""
    from scipy.linalg import lapack  # noqa: PLC0415

    B = closure_matrix(system, config)
    B = B.toarray() if hasattr(B, "toarray") else np.asarray(B)
    fixed = np.asarray(fixed, dtype=np.int64)
    rest = np.setdiff1d(np.arange(system.n), fixed)
    if B.shape[0] != len(rest) or not len(rest) or not np.all(np.isfinite(B)):
        return None, 0.0
    block = np.asfortranarray(B[:, rest])
    norm = float(np.abs(block).sum(axis=0).max())
    lu, pivots, info = lapack.dgetrf(block)
    if info != 0 or norm == 0.0:
        return None, 0.0
    rcond, info = lapack.dgecon(lu, norm, norm="1")
    spanning = np.zeros((system.n, len(fixed)))
    spanning[fixed, np.arange(len(fixed))] = 1.0
    solved, info = lapack.dgetrs(lu, pivots, B[:, fixed])
    spanning[rest] = -solved
    basis, _ = np.linalg.qr(spanning)
    return [(np.arange(system.n, dtype=np.int64), basis)], float(rcond)


def reused_freedoms(system, config, driven, hold=None) -> np.ndarray:
    """:func:`held_freedoms` for a design variant, without the null space's SVDs (most of a
    compliance variant's set-up): the first model of a topology (:func:`_topology_key`: a
    study's variants differ in geometry alone) chooses by :func:`held_freedoms` and leaves its
    choice; a later one takes its null space through that choice's block
    (:func:`_null_space_through`: an LU factorisation and a QR) while that block stays
    well-conditioned there (reciprocal condition number at least :data:`REUSE_CONDITIONING` of
    the first's), and chooses on it as :func:`held_freedoms` does (the choice depends on the
    null space alone, not on its basis); otherwise, and for models of more than
    :data:`REUSE_VARIABLES` variables, :func:`held_freedoms` itself. Same parameters, return
    and errors as :func:`held_freedoms`."""
    hold = hold_names(hold)
    if system.n > REUSE_VARIABLES:
        return held_freedoms(system, config, driven, hold or None)
    key = _topology_key(system, driven, hold)
    try:
        known = _CHOICES.get(key)
    except TypeError:  # a held name that is no string: held_freedoms says where
        return held_freedoms(system, config, driven, hold)
    driven = np.asarray(driven, dtype=np.int64)
    if known is not None:
        chosen, rcond = known
        parts, found = _null_space_through(system, config, np.r_[driven, chosen])
        if parts is not None and found >= REUSE_CONDITIONING * rcond:
            return held_freedoms(system, config, driven, hold or None, null_space=parts)
    chosen = held_freedoms(system, config, driven, hold or None)
    if known is None:
        parts, rcond = _null_space_through(system, config, np.r_[driven, chosen])
        if parts is not None and rcond > 0.0:
            if len(_CHOICES) > 32:
                _CHOICES.clear()
            _CHOICES[key] = (chosen.copy(), rcond)
    return chosen
