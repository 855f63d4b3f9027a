"""Coordinate partitioning: independent coordinates, the closure solved for the others.

The dynamics is written in a few *independent coordinates* ``u`` (the pair variables the
user names, as many as the mechanism's degrees of freedom) and, for rheonomic problems,
*prescribed coordinates* ``p(t)`` (a spindle turning at a given speed). Together they are
the *driven* columns of the closure matrix ``B`` (Pavlov eq. 3, in twist form); every other
pair variable is *dependent* and follows from the closure (eq. 2):

* positions: Newton on ``B_free dq_free = -W`` with the driven columns held (eq. 3);
* velocities: ``q' = G d'`` with the *transmission matrix* ``G`` (n x d): ``G[driven] = 1``
  and ``B_free G_free = -B_driven`` (eq. 4), so ``G[:, s] = dq/dd_s`` are Pavlov's
  transmission ratios;
* accelerations: ``q'' = G d'' + q''_0`` with ``B_free q''_0 = -(velocity products)``, the
  closure differentiated twice (:mod:`loops.acceleration`);
* link motion: ``V_i = sum_s V_i^(s) d'_s`` with the *link Jacobians* (partial twists)
  ``V_i^(s) = sum_j inc_ij xi_j G_js`` (world frame, origin-referenced), so that
  ``C_is = dT_i/dd_s = hat(V_i^(s)) T_i`` (METHOD.md, "Dynamics (7)").

The block ``B_free`` is solved at every configuration by the cheapest correct route:

* *square*: a set of independent rows of ``B`` is chosen (a pivoted QR; planar loops drop
  their three identically zero rows; idle spins of tie rods are fixed by the gauge rows of
  :mod:`loops.passive`) and the square block is inverted (dense) or LU-factorized
  (``scipy.sparse.linalg.splu``, for many loops: cost linear in the number of loops);
* *pseudo-inverse*: when no square block exists (an idle spin without a gauge, a partition
  singular at the start), the minimum-norm least-squares solve of
  :class:`loops.velocity.Factorization`, which keeps idle freedoms at rest as a sweep does.

A partition is *ill conditioned* when a dependent variable moves much faster than the
independent ones (scaled transmission ratio ``max |G_free|`` above :data:`SWITCH_RATIO`):
near a dead point of the chosen coordinates. :func:`best_independent` then chooses the
variables that move most (a pivoted QR of ``G^T``), with which every ratio is at most about
one. A singular position of the mechanism itself (a parallelogram folding flat) keeps
``G`` bounded along the branch, and the motion passes through it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from loops.acceleration import velocity_product_terms
from loops.closure import newton as loops_newton
from loops.velocity import RANK_TOLERANCE, Factorization, free_columns
from loops.system import Configuration
from mechanism.errors import ModelError
from mechanism.transforms import lie_bracket, twist_matrix

__all__ = [
    "SWITCH_RATIO",
    "Partition",
    "BlockSolver",
    "ClosedState",
    "Kinematics",
    "ClosureFailed",
    "close",
    "closed_state",
    "newton_from",
    "kinematics",
    "walk",
    "best_independent",
    "candidate_columns",
    "transmission_ratio",
]

#: Largest scaled transmission ratio ``max |dq_dependent / du|`` a partition may reach
#: before the independent coordinates are switched (the best choice gives about 1).
SWITCH_RATIO = 4.0
#: Number of dependent variables from which the square block is LU-factorized sparsely.
SPARSE_MIN_COLUMNS = 48
#: Closure defect accepted when Newton stalls (round-off floor of many loops near a singularity).
ROUND_OFF_DEFECT = 1e-11
#: Largest predicted motion of one continuation step of :func:`walk` (rad, or sizes).
WALK_STEP = 0.1


class ClosureFailed(Exception):
    """Newton could not close the loops (internal: simulate and walk turn it into a stop)."""

    def __init__(self, message, error=float("nan")):
        super().__init__(message)
        self.error = error


# ----------------------------------------------------------------------- partition
class Partition:
    """Driven (independent and prescribed) and dependent columns of the closure matrix.

    Parameters
    ----------
    system : loops.system.KinematicSystem
    independent : sequence of int
        Columns of the independent coordinates ``u`` (additive pair variables).
    prescribed : sequence of int
        Columns of the prescribed (rheonomic) coordinates ``p(t)``.
    passive : int
        Passive (idle) freedoms of the mechanism (``check().passive``), for reference.

    Attributes
    ----------
    driven : (d,) int, independent then prescribed columns
    free : (n - d,) int, dependent columns
    names : list of str, the variable names of ``independent``
    rows : (n - d,) int or None, the rows of ``B`` making the square block (None: SVD)
    """

    def __init__(self, system, independent, prescribed=(), passive=0):
        self.system = system
        self.independent = np.asarray(independent, dtype=int)
        self.prescribed = np.asarray(prescribed, dtype=int)
        self.driven = np.concatenate([self.independent, self.prescribed]).astype(int)
        self.free = free_columns(system, self.driven)
        self.passive = int(passive)
        self.names = [system.variable_names[c] for c in self.independent]
        self.prescribed_names = [system.variable_names[c] for c in self.prescribed]
        self.m = len(self.independent)
        self.d = len(self.driven)
        self.free_scale = system.column_scale[self.free]
        self.driven_scale = system.column_scale[self.driven]
        #: (n, d) ``G`` with its driven rows (identity) filled and its free rows zero.
        self.identity_rows = np.zeros((system.n, self.d))
        self.identity_rows[self.driven, np.arange(self.d)] = 1.0
        self.rows = None
        self._pattern = None

    def __repr__(self):
        return f"Partition(independent={self.names}, prescribed={self.prescribed_names})"

    def with_independent(self, independent):
        """The same prescribed columns with other independent ones (rows chosen anew)."""
        return Partition(self.system, independent, self.prescribed, self.passive)

    @property
    def sparse(self) -> bool:
        return len(self.free) >= SPARSE_MIN_COLUMNS

    def choose_rows(self, B) -> bool:
        """Pick independent rows of ``B_free`` (scaled) at this configuration; True if square.

        The pivoted QR of ``B_free^T`` keeps the rows whose pivots exceed 1e-6 of the
        largest. With fewer than ``n - d`` of them the block is singular here and the
        pseudo-inverse is used until the next attempt.
        """
        self.rows = None
        self._pattern = None
        nf = len(self.free)
        if nf == 0:
            return False
        system = self.system
        scaled = B[:, self.free] * system.row_scale[:, None] * self.free_scale[None, :]
        if scaled.shape[0] < nf:
            return False
        _, R, pivots = scipy.linalg.qr(scaled.T, mode="economic", pivoting=True)
        diag = np.abs(np.diag(R))
        if diag.size == 0 or diag[0] == 0.0:
            return False
        rank = int(np.sum(diag > 1e-6 * diag[0]))
        if rank < nf:
            return False
        self.rows = np.sort(pivots[:nf])
        # The square block and the driven columns in those rows, and the scalings that make
        # the block dimensionless (row_scale R, free_scale C: the block solved is R B C).
        rs = system.row_scale[self.rows]
        self._block = np.ix_(self.rows, self.free)
        self._driven_block = np.ix_(self.rows, self.driven)
        self._scale = rs[:, None] * self.free_scale[None, :]
        self._unscale = self.free_scale[:, None] * rs[None, :]
        if self.sparse:
            # Structural pattern of the square block: a loop's rows involve its variables,
            # a gauge row its spherical pair's.
            structure = np.vstack([np.repeat(system.loop_incidence != 0, 6, axis=0),
                                   np.abs(B[6 * len(system.loops):]) > 0])
            inc = structure[self.rows][:, self.free]
            r_idx, c_idx = np.nonzero(inc)
            order = np.lexsort((r_idx, c_idx))  # column-major for CSC
            r_idx, c_idx = r_idx[order], c_idx[order]
            indptr = np.searchsorted(c_idx, np.arange(nf + 1))
            self._pattern = (r_idx, c_idx, indptr)
        return True


class BlockSolver:
    """Solves ``B_free x = rhs`` at one configuration (least squares, minimum norm).

    Parameters
    ----------
    partition : Partition
    B : (6 L, n) constraint matrix at the configuration (eq. 3, twist form)

    Attributes
    ----------
    kind : {"dense", "sparse", "svd"}
    B_free : (6 L, n - d) the block solved
    conditioning : float
        Estimate of the smallest over the largest singular value of the dimensionless block:
        ``1 / (max|inverse| max|block|)`` (dense), the range of the LU pivots (sparse), the
        singular values' ratio (svd). Small near a singular position.
    """

    def __init__(self, partition, B):
        self.partition = partition
        system = partition.system
        self.B = B
        rows = partition.rows
        self.kind = "svd"
        if rows is not None and len(partition.free):
            square = B[partition._block] * partition._scale
            try:
                if partition._pattern is not None:
                    r_idx, c_idx, indptr = partition._pattern
                    n = len(rows)
                    matrix = scipy.sparse.csc_matrix((square[r_idx, c_idx], r_idx, indptr), shape=(n, n))
                    self._lu = scipy.sparse.linalg.splu(matrix)
                    self._rs, self._cs = system.row_scale[rows], partition.free_scale
                    self.kind = "sparse"
                    pivots = np.abs(self._lu.U.diagonal())
                    self.conditioning = pivots.min() / pivots.max()
                else:
                    inverse = np.linalg.inv(square)
                    largest = np.abs(inverse).max()
                    if math.isfinite(largest):
                        self._pinv = inverse * partition._unscale
                        self.kind = "dense"
                        self.conditioning = 1.0 / (largest * np.abs(square).max())
            except (np.linalg.LinAlgError, RuntimeError):
                self.kind = "svd"
        if self.kind == "svd":
            factorization = Factorization(system, B[:, partition.free], partition.free)
            self._pinv = factorization.pinv
            self.rank = factorization.rank
            self.conditioning = factorization.conditioning

    @property
    def B_free(self):
        """(6 L, n - d) the block solved."""
        return self.B[:, self.partition.free]

    def transmission(self):
        """``G_free = -B_free^-1 B_driven`` (n - d, d): the dependent rows of ``G`` (eq. 4)."""
        partition = self.partition
        if self.kind == "dense":
            return -(self._pinv @ self.B[partition._driven_block])
        return self.solve(-self.B[:, partition.driven])

    def solve(self, rhs):
        """``x`` (n - d,) or (n - d, k) for ``rhs`` (6 L,) or (6 L, k)."""
        if self.kind == "svd":
            return self._pinv @ rhs
        rhs = rhs[self.partition.rows]
        if self.kind == "dense":
            return self._pinv @ rhs
        scaled = rhs * (self._rs[:, None] if rhs.ndim == 2 else self._rs)
        x = self._lu.solve(np.ascontiguousarray(scaled))
        return x * (self._cs[:, None] if x.ndim == 2 else self._cs)

    def solve_refined(self, rhs, B_free, max_passes=8):
        """Solve with this (nearby) factorization, refined against the exact ``B_free``.

        Each pass shrinks the error by the relative change of ``B`` since the factorization;
        passes go on until the correction is at round-off (at most ``max_passes``).
        """
        x = self.solve(rhs)
        size = np.abs(x).max(initial=0.0)
        for _ in range(max_passes):
            correction = self.solve(rhs - B_free @ x)
            x = x + correction
            if np.abs(correction).max(initial=0.0) <= 1e-15 * size:
                break
        return x


# ------------------------------------------------------------------- closed states
@dataclass
class ClosedState:
    """A closed configuration with its linearization for one partition.

    Attributes
    ----------
    q : (n,) pair variables (spherical pairs seated as rotation vectors)
    config : loops.system.Configuration at ``q``
    B : (6 L, n) constraint matrix at ``q``
    solver : BlockSolver for ``B_free`` (of this configuration, or a nearby one refined)
    G : (n, d) transmission matrix ``dq/dd`` (driven columns: identity)
    partition : Partition
    error : float, closure defect (dimensionless) reached
    curvature : (n, d, d) or None, ``d^2 q / dd_s dd_t`` (second-order predictor)
    """

    q: np.ndarray
    config: object
    B: np.ndarray
    solver: BlockSolver
    G: np.ndarray
    partition: Partition
    error: float = 0.0
    curvature: np.ndarray | None = None
    refined: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def driven_values(self):
        return self.q[self.partition.driven]


def _transmission(partition, B, solver, refine):
    G = partition.identity_rows.copy()
    if refine:
        G[partition.free] = solver.solve_refined(-B[:, partition.driven], B[:, partition.free])
    else:
        G[partition.free] = solver.transmission()
    return G


def closed_state(partition, q, config=None, solver=None, error=0.0):
    """:class:`ClosedState` at a closed ``q`` (its own factorization unless ``solver`` given)."""
    system = partition.system
    if config is None:
        config = system.evaluate(q)
    B = system.constraint_matrix(config)
    refine = solver is not None
    if solver is None:
        solver = BlockSolver(partition, B)
    G = _transmission(partition, B, solver, refine)
    return ClosedState(q, config, B, solver, G, partition, error, refined=refine)


def first_order_update(system, config, dq, q, rotations):
    """Configuration at ``q = q_c + dq`` to first order in a small ``dq`` (error O(|dq|^2)).

    Every link moves by the displacement twist ``D_i = sum_j inc_ij xi_j dq_j``:
    ``T_i <- (1 + hat(D_i)) T_i``; pair frames ride on their first links and twists turn
    with their carriers, ``xi <- xi + [D_carrier, xi]``. Used for the last, tiny Newton
    correction, whose own effect on the closure is already of second order. The pair
    matrices are not updated (``None``): the result is not for closure checks.
    """
    D = system.link_incidence @ (config.twists * dq[:, None])
    hat_D = twist_matrix(D)
    poses = config.link_poses + hat_D @ config.link_poses
    frames = config.pair_frames + hat_D[system.first] @ config.pair_frames
    twists = config.twists + lie_bracket(D[system.column_carrier], config.twists)
    return Configuration(q, None, poses, frames, twists, rotations)


def newton_from(partition, q, tolerance, max_iterations=12, *, rotations=None, config=None, solver=None):
    """Newton (eq. 3) from ``q`` with the driven columns held.

    ``rotations`` (the spherical pairs' blocks, when ``q``'s rotation vectors are stale),
    ``config`` (the mechanism evaluated at ``q``) and ``solver`` (a :class:`BlockSolver` at
    ``q``) spare recomputing what the caller has.

    Returns ``(q, config, error, solver)`` with ``solver`` the factorization of the last
    Newton step (None when none was needed). Steps after the first reuse the first
    factorization while they shrink fast (a chord step from a factorization ``|dq|`` away
    converges as fast as Newton's); a correction below ``0.1 sqrt(tolerance)`` is applied
    to first order (:func:`first_order_update`) instead of re-evaluating the mechanism.
    Raises :class:`ClosureFailed` when the defect does not fall below ``tolerance``.
    """
    system = partition.system
    free = partition.free
    if config is None:
        config = system.evaluate(q, rotations)
    error = system.closure_error(config)
    iterations, previous_step = 0, 0.0  # a given solver is at q: use it for the first step
    small = 0.1 * np.sqrt(tolerance)
    linear_update = not system.twists_vary
    while error > tolerance:
        if iterations >= max_iterations or not np.isfinite(error):
            raise ClosureFailed(f"closure defect {error:.3g} after {iterations} Newton iterations", error)
        if solver is None or previous_step > 1e-4:
            solver = BlockSolver(partition, system.constraint_matrix(config))
        step = solver.solve(-system.residual(config))
        longest = np.abs(step / partition.free_scale).max(initial=0.0)
        if longest > 0.5:
            step = step * (0.5 / longest)
            longest = 0.5
        dq = np.zeros(system.n)
        dq[free] = step
        q, rotations = system.step(q, dq, config.rotations)
        iterations += 1
        if longest <= small and linear_update:
            config = first_order_update(system, config, dq, q, rotations)
            error = longest**2
            break
        config = system.evaluate(q, rotations)
        previous, error = error, system.closure_error(config)
        if error > 0.9 * previous and iterations >= 3:
            if error <= ROUND_OFF_DEFECT:
                break  # converged as far as round-off allows (large or near-singular loops)
            raise ClosureFailed(f"Newton stalls at closure defect {error:.3g}", error)
        previous_step = longest
    system.seat(q, config.rotations)
    return q, config, error, solver


def close(base: ClosedState, driven_values, tolerance, max_iterations=12, predict=True) -> ClosedState:
    """Closed state with the driven columns at ``driven_values``, from ``base`` (same partition).

    The start is the Taylor prediction ``q = q_b + G Dd + 1/2 curvature(Dd, Dd)`` along the
    closure (spherical pairs advanced as rotations); Newton (eq. 3) corrects with the driven
    columns held. The factorization of the last Newton step, refined against the exact
    ``B`` of the closed configuration, gives ``G`` there.

    Raises
    ------
    ClosureFailed
        When the loops do not close from the prediction.
    """
    partition = base.partition
    system = partition.system
    driven = partition.driven
    target = np.asarray(driven_values, dtype=float)
    delta = target - base.q[driven]
    if predict:
        dq = base.G @ delta
        if base.curvature is not None:
            dq += 0.5 * np.einsum("nst,s,t->n", base.curvature, delta, delta)
    else:
        dq = np.zeros(system.n)
        dq[driven] = delta
    q, rotations = system.step(base.q, dq, base.config.rotations)
    q[driven] = target
    q, config, error, solver = newton_from(partition, q, tolerance, max_iterations, rotations=rotations)
    return closed_state(partition, q, config, solver, error)


def with_curvature(state: ClosedState) -> ClosedState:
    """Add ``d^2 q / dd_s dd_t`` (the second-order predictor) to ``state``, in place.

    ``q'' = G d'' + a(d')`` with ``a`` quadratic in the rates (the closure differentiated
    twice); ``a`` is evaluated at unit rates and polarized.
    """
    partition = state.partition
    d = partition.d
    curvature = np.zeros((state.q.shape[0], d, d))
    if partition.free.size:
        pure = [_bias(state, state.G[:, s]) for s in range(d)]
        for s in range(d):
            curvature[:, s, s] = pure[s]
            for t in range(s + 1, d):
                mixed = _bias(state, state.G[:, s] + state.G[:, t])
                curvature[:, s, t] = curvature[:, t, s] = 0.5 * (mixed - pure[s] - pure[t])
    state.curvature = curvature
    return state


def _bias(state, q_dot, link_velocities=None):
    """``q''`` at zero driven accelerations for the rates ``q_dot`` (n,), and the terms."""
    system = state.partition.system
    config = state.config
    terms = velocity_product_terms(system, config, q_dot, link_velocities)
    q_ddot = np.zeros(system.n)
    q_ddot[state.partition.free] = state.solver.solve(-system.velocity_product_rhs(config, q_dot, terms))
    return q_ddot


# ------------------------------------------------------------------- link motion
@dataclass
class Kinematics:
    """Velocities and bias accelerations at a closed state for given driven rates.

    Attributes
    ----------
    state : ClosedState
    rates : (d,) driven rates (independent, then prescribed)
    q_dot : (n,) all pair variable rates, ``G rates``
    link_jacobians : (L, d, 6) partial twists ``V_i^(s)`` of every link (world, origin)
    velocities : (L, 6) link spatial velocities ``(omega, v_o)``
    q_ddot_bias : (n,) ``q''`` with zero independent accelerations (prescribed ones applied)
    bias_accelerations : (L, 6) link accelerations ``(omega', v_o')`` likewise
    """

    state: ClosedState
    rates: np.ndarray
    q_dot: np.ndarray
    link_jacobians: np.ndarray
    velocities: np.ndarray
    q_ddot_bias: np.ndarray
    bias_accelerations: np.ndarray

    def q_ddot(self, accelerations):
        """All ``q''`` (n,) for the independent accelerations ``accelerations`` (m,)."""
        m = self.state.partition.m
        return self.q_ddot_bias + self.state.G[:, :m] @ np.asarray(accelerations, dtype=float)

    def link_accelerations(self, accelerations):
        """Link spatial accelerations (L, 6) for the independent accelerations (m,)."""
        m = self.state.partition.m
        return self.bias_accelerations + np.einsum("lsk,s->lk", self.link_jacobians[:, :m],
                                                   np.asarray(accelerations, dtype=float))


def kinematics(state: ClosedState, rates, prescribed_accelerations=()) -> Kinematics:
    """Link Jacobians, velocities and bias accelerations (eq. 4 and its derivative).

    Parameters
    ----------
    state : ClosedState
    rates : (d,) driven rates (rad/s, m/s)
    prescribed_accelerations : (k,) second rates of the prescribed coordinates
    """
    partition = state.partition
    system = partition.system
    config = state.config
    rates = np.asarray(rates, dtype=float)
    G = state.G
    n, d = G.shape
    twists = config.twists
    # V_i^(s) = sum_j inc_ij xi_j G_js, stacked as one (L, n) @ (n, d*6) product.
    partial = (G[:, :, None] * twists[:, None, :]).reshape(n, d * 6)
    link_jacobians = (system.link_incidence @ partial).reshape(-1, d, 6)
    q_dot = G @ rates
    velocities = rates @ link_jacobians  # (L, 6): sum_s V_i^(s) d_s
    terms = velocity_product_terms(system, config, q_dot, velocities)
    q_ddot = np.zeros(n)
    if partition.free.size:
        rhs = -system.velocity_product_rhs(config, q_dot, terms)
        q_ddot[partition.free] = state.solver.solve(rhs) if not state.refined else \
            state.solver.solve_refined(rhs, state.B[:, partition.free])
    bias = system.link_incidence @ (twists * q_ddot[:, None] + terms)
    if len(partition.prescribed):
        pdd = np.asarray(prescribed_accelerations, dtype=float)
        k = slice(partition.m, d)
        q_ddot += G[:, k] @ pdd
        bias += np.einsum("lsk,s->lk", link_jacobians[:, k], pdd)
    return Kinematics(state, rates, q_dot, link_jacobians, velocities, q_ddot, bias)


# ------------------------------------------------------------ choosing coordinates
def candidate_columns(system, exclude=()) -> np.ndarray:
    """Columns that may serve as independent coordinates: additive variables, not excluded.

    Spherical components are excluded (their values are rotation vectors, not additive
    coordinates); so are the given columns (prescribed ones).
    """
    mask = np.array([system.pairs[system.column_pair[c]].pair_type.additive for c in range(system.n)])
    mask[np.asarray(exclude, dtype=int)] = False
    return np.flatnonzero(mask)


def transmission_ratio(state: ClosedState) -> float:
    """``max |dq_dependent / du|`` scaled (lengths by the mechanism size): 1 is ideal."""
    partition = state.partition
    if not partition.m or not partition.free.size:
        return 0.0
    G = state.G[partition.free][:, :partition.m]
    scaled = G * (partition.driven_scale[None, :partition.m] / partition.free_scale[:, None])
    return float(np.abs(scaled).max())


def best_independent(system, motions, candidates, count) -> np.ndarray:
    """The ``count`` candidate columns that move most independently along ``motions``.

    ``motions`` (n, k) spans the free motion (rates of every variable); a pivoted QR of its
    scaled rows picks the best conditioned square block (maximum volume, approximately).
    """
    scaled = motions / system.column_scale[:, None]
    block = scaled[candidates].T  # (k, candidates)
    if count == 0:
        return np.zeros(0, dtype=int)
    _, _, pivots = scipy.linalg.qr(block, mode="economic", pivoting=True)
    return np.sort(candidates[pivots[:count]])


def null_motions(system, B):
    """Basis (n, k) of the motions keeping every loop closed (null space of ``B``), scaled back.

    Returns the rates ``q'`` of each basis motion; ``k = n - rank(B)``.
    """
    scaled = B * system.row_scale[:, None] * system.column_scale[None, :]
    if scaled.shape[0] == 0:
        return np.eye(system.n)
    _, s, Vt = np.linalg.svd(scaled, full_matrices=True)
    rank = int(np.sum(s > RANK_TOLERANCE * max(s[0] if len(s) else 0.0, 1.0)))
    return (Vt[rank:].T) * system.column_scale[:, None]


# ---------------------------------------------------------------- continuation
def walk(base: ClosedState, target, tolerance, what="coordinates") -> ClosedState:
    """Continue from ``base`` until the driven columns reach ``target`` (same partition).

    Predictor: the transmission matrix; corrector: Newton with the driven columns held;
    a step is accepted when the loops close and the correction is small against the
    motion (no jump to another assembly branch), else halved.

    Raises
    ------
    ClosureFailed
        When a step cannot be halved any further (a dead point of these coordinates, or
        a value out of reach); the message names the values reached.
    """
    partition = base.partition
    system = partition.system
    target = np.asarray(target, dtype=float)
    start = base.driven_values.copy()
    span = target - start
    state = base
    fraction, h, halvings = 0.0, 1.0, 0
    while fraction < 1.0 and np.any(span):
        h = min(h, 1.0 - fraction)
        step = span * h
        motion = np.abs((state.G @ step) / system.column_scale).max(initial=0.0)
        if motion > WALK_STEP:
            h *= WALK_STEP / motion
            continue
        goal = target if fraction + h >= 1.0 else state.driven_values + step
        try:
            new = close(state, goal, tolerance, max_iterations=10)
            correction = np.abs((new.q - state.q - state.G @ (goal - state.driven_values))
                                / system.column_scale).max()
            accepted = correction <= 0.3 * motion + 1e3 * tolerance
        except ClosureFailed:
            accepted = False
        if not accepted:
            halvings += 1
            h *= 0.5
            if halvings > 30:
                reached = ", ".join(f"{system.variable_names[c]} = {v:.6g}"
                                    for c, v in zip(partition.driven, state.driven_values))
                raise ClosureFailed(f"the {what} cannot move on from {reached} (dead point or out of reach)")
            continue
        state = new
        fraction = 1.0 if fraction + h >= 1.0 else fraction + h
        halvings = max(halvings - 1, 0)
        h *= 2.0
    return state


def reference_state(partition, tolerance) -> ClosedState:
    """Closed state at the model's reference assembly (the design pose)."""
    system = partition.system
    q = system.reference_q()
    outcome = loops_newton(system, q, partition.driven, tolerance=tolerance, max_iterations=50)
    if not outcome.converged:
        raise ModelError("assembly", f"the reference assembly does not close (defect {outcome.error:.3g}); "
                         "call Mechanism.assemble() first")
    return closed_state(partition, outcome.q, outcome.config)
