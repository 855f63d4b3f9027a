"""Tests of the closure and point kernels against their METHOD.md equations written out in numpy.

Every model file shipped in ``examples/`` that :func:`mechanism.load_model` reads (all of
them, the suspension corner and axle files included: each is also a mechanism with its
road loop), plus ``core_models.spatial_all_pairs`` (the only model with a helical pair; no
example has one) and ``core_models.block_on_plane`` (a planar pair), at random configurations: the design pose (``reference_q``) plus offsets
of 0.3 rad on angles and 3 % of the model's size on slides, spherical pairs turned by 0.3 rad
rotation vectors. The configurations are not closed; the kernels evaluate any q. Two
examples (solar_array, spring_pendulum) are open chains: their defects and B are empty, and
the pose, pair and point checks apply.

* Pair matrices ``A(q)`` (METHOD.md table, eq. 1), ``Configuration.pair_matrices``, against
  the textbook matrix of each pair type: revolute ``Rot_z(g)``, prismatic ``Trans_z(s)``,
  cylindrical ``Rot_z(g) Trans_z(s)``, helical ``Rot_z(g) Trans_z(pitch g / 2 pi)``, Hooke
  ``Rot_z(phi) Rot_x(beta) Rot_z(theta)``, spherical ``[[R, 0], [0, 1]]`` with R the
  rotation of the pair's rotation vector (scipy's, not the library's exponential), planar
  ``Trans(x, y, 0) Rot_z(theta)``.
* Link poses and pair frames (eq. 5), ``link_poses`` and ``pair_frames``: products of the
  constant link matrices (pair frames ``F_j``, ``F_k``) and the textbook pair matrices along
  the spanning tree from the ground, ``T_child = T_parent F_j A F_k^-1`` (inverted when the
  tree walks the pair from its second link), ``W_p = T_first F_j``.
* Closure defects (eq. 2), ``defects``: ``core_models.loop_product`` walks each loop from
  its first link ``a``; ``D = T_a P T_a^-1`` carries the chord's frame k (``T_second F_k``, at
  ``c``) to where it is reached through the first link, so the rotation defect is
  ``log(R_D)`` and the gap ``D c - c``. Gauge defects are ``log(R R_ref^T) . u``.
* The linearized closure ``B`` (eq. 3), ``constraint_matrix``: each pair matrix
  differentiated with its Q operator (``dA = Q A`` for the screw pairs, the Hooke pair's
  first pin and the spherical pair's left increments; ``dA = A Q_z`` for the Hooke pair's
  second pin), chained along the tree into ``dT/dq_k`` (numpy products). Loop i's column k
  is the twist ``X = d(reached) reached^-1 - d(target) target^-1`` (reached ``T_first F_j A_c``,
  target ``T_second F_k``, the two sides of eq. 2 at the chord) referred to ``c``:
  ``(omega(X), X c)``; this is ``dD D^-1`` at the closure ``D = E``, the expansion (3) is
  taken about. Gauge rows: ``u . J_l(w)^-1 omega_k``, ``omega_k`` from ``dT/dq_k T^-1``.
* Points (eqs. 5, 6), :mod:`loops.kernels.points` through :mod:`loops.point_kinematics`,
  with the link velocities of :func:`loops.kernels.velocity.link_velocities`: ``R = T r`` and
  ``R' = T' r`` with ``T' = sum_k dT/dq_k q_k'`` from the numpy derivatives above, for every
  point of the model and random rates; the link velocities ``V`` against ``vee(T' T^-1)``.
* Accelerations (METHOD.md "Velocity (4) and acceleration", eq. 6): the pair matrices
  differentiated twice along a path with random rates and accelerations (``A'' = (Q'' + Q'^2) A``;
  Hooke ``phi'' Q A + theta'' A Q + phi'^2 Q Q A + 2 phi' theta' Q A Q + theta'^2 A Q Q``),
  chained along the tree into ``T''``. :func:`loops.kernels.acceleration.link_accelerations`
  (with the ``xi' q'`` terms of ``velocity_product_terms``) against ``hat(A) = T'' T^-1 - hat(V)^2``;
  point accelerations against ``T'' r``; the loop rows of ``bias_rhs`` against the rate-only
  (``q'' = 0``) second rate of eq. 2's two sides, ``sum +-(M'' M^-1 - (M' M^-1)^2)`` over reached
  and target, referred to ``c``. (Its gauge rows, the rate of ``J_l(w)^-T u``, are not
  written out here.)
* The solve layer (:mod:`loops.kernels.linear`): the least-squares block's pseudo-inverse
  against numpy's SVD; the banded LU, written into the band layout by hand for random
  banded matrices of several shapes, with and without row exchanges, against numpy on the
  dense matrix (solves, transposed solves, determinant, condition number), each to the
  tolerance its comment derives from the condition number.

The references are the same matrix products in another order (no difference schemes):
tolerance 1e-12 (they agree to 1e-14); lengths to 1e-12 of the model's size, rates to 1e-12
of the largest rate of their configuration.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from core_models import EXAMPLES, block_on_plane, loop_product, spatial_all_pairs
from kinematics_helpers import link_velocities, twist_rate_terms
from loops.compiled import compile_model
from loops.configuration import constraint_matrix, evaluate, new_work, rotations_of
from loops.point_kinematics import point_accelerations, point_positions, point_velocities
from mechanism import Mechanism, load_model
from mechanism.transforms import rotation_about_x, rotation_about_z, translation, translation_along_z

TOL = 1e-12
ANGLE_OFFSET = 0.3  # rad
SLIDE_OFFSET = 0.03  # of the model's size
CONFIGURATIONS = 3

#: Every shipped model file; load_model reads each as a Mechanism (checked in _system).
#: (examples/*_vary.toml are design-study vary files, not models.)
MODEL_FILES = sorted(p for p in EXAMPLES.glob("*.toml") if not p.stem.endswith("_vary"))
CASES = {path.stem: path for path in MODEL_FILES}
CASES["spatial_all_pairs (core_models, helical)"] = spatial_all_pairs
CASES["block_on_plane (core_models, planar)"] = block_on_plane

# Q operators (METHOD.md "Derivatives: the Q operators"): hat of the unit twists about and along Z.
_Q_TURN = np.zeros((4, 4))
_Q_TURN[1, 0], _Q_TURN[0, 1] = 1.0, -1.0
_Q_SLIDE = np.zeros((4, 4))
_Q_SLIDE[2, 3] = 1.0
_Q_SLIDE_X, _Q_SLIDE_Y = np.zeros((4, 4)), np.zeros((4, 4))
_Q_SLIDE_X[0, 3] = _Q_SLIDE_Y[1, 3] = 1.0

#: The acceleration bias, the velocity products and the band solver are kernels only other
#: kernels call: called from Python (below) each compiles a twin of its own on a fresh machine
#: (loops.kernels._compile), the same in every test process that meets it first. The tests that
#: call them share one process.
KERNELS_FROM_PYTHON = pytest.mark.xdist_group("kernels-from-python")


def _q_rotation(axis):
    """``hat((e_axis, 0))``: the Q operator of a turn about frame j's axis ``axis``."""
    Q = np.zeros((4, 4))
    i, j = (axis + 1) % 3, (axis + 2) % 3
    Q[j, i], Q[i, j] = 1.0, -1.0
    return Q


#: Screw pairs: ``(dg/dq_k, ds/dq_k)`` per variable of ``Rot_z(g) Trans_z(s)`` (the textbook table).
_SCREW = {"revolute": [(1.0, 0.0)], "prismatic": [(0.0, 1.0)], "cylindrical": [(1.0, 0.0), (0.0, 1.0)]}


def _screw(pair_type):
    if pair_type.kind == "helical":
        return [(1.0, pair_type.pitch / (2 * np.pi))]
    return _SCREW[pair_type.kind]


def _pair_matrix(pair_type, q):
    """Textbook ``A(q)`` of one pair (4, 4)."""
    if pair_type.kind == "planar":
        return translation([q[0], q[1], 0.0]) @ rotation_about_z(q[2])
    if pair_type.kind == "hooke":
        return rotation_about_z(q[0]) @ rotation_about_x(pair_type.beta) @ rotation_about_z(q[1])
    if pair_type.kind == "spherical":
        A = np.eye(4)
        A[:3, :3] = Rotation.from_rotvec(q).as_matrix()
        return A
    g, s = np.asarray(q) @ np.array(_screw(pair_type))
    return rotation_about_z(g) @ translation_along_z(s)


def _pair_derivatives(pair_type, A):
    """``dA/dq_k`` (k, 4, 4) from the Q operators: ``Q A``, but ``A Q_z`` for the Hooke pair's second pin
    and the planar pair's turn (the last factor of each)."""
    if pair_type.kind == "planar":
        return np.array([_Q_SLIDE_X @ A, _Q_SLIDE_Y @ A, A @ _Q_TURN])
    if pair_type.kind == "hooke":
        return np.array([_Q_TURN @ A, A @ _Q_TURN])
    if pair_type.kind == "spherical":
        return np.array([_q_rotation(k) @ A for k in range(3)])
    return np.array([(turn * _Q_TURN + slide * _Q_SLIDE) @ A for turn, slide in _screw(pair_type)])


def _system(case):
    if callable(case):
        return compile_model(case().snapshot())
    mechanism = load_model(case)
    assert isinstance(mechanism, Mechanism), case.name
    return compile_model(mechanism.snapshot())


def _configurations(system, seed):
    """``CONFIGURATIONS`` random ``(q, rotations)``: the design pose plus random offsets."""
    rng = np.random.default_rng(seed)
    offsets = np.where(system.rotational, ANGLE_OFFSET, SLIDE_OFFSET * system.scale)
    out = []
    for _ in range(CONFIGURATIONS):
        q = system.reference_q() + offsets * rng.uniform(-1.0, 1.0, system.n)
        out.append((q, rotations_of(system, q)))
    return out


def _numpy_tree(system, q):
    """Textbook pair matrices (P, 4, 4), link poses T (L, 4, 4) along the tree, their derivatives
    dT/dq (L, n, 4, 4), and pair frames W (P, 4, 4): numpy products only."""
    A = np.array([_pair_matrix(p.pair_type, q[system.pair_slices[p.name]]) for p in system.pairs])
    dA = [_pair_derivatives(p.pair_type, A[i]) for i, p in enumerate(system.pairs)]
    links = len(system.links)
    T = np.zeros((links, 4, 4))
    dT = np.zeros((links, system.n, 4, 4))
    T[system.topology.ground] = np.eye(4)
    for edge in system.tree:  # parents first
        i = system.pair_index[edge.pair]
        pair, columns = system.pairs[i], system.pair_slices[edge.pair]
        F_j, F_k = pair.frame_on_first, pair.frame_on_second
        if edge.forward:
            step = F_j @ A[i] @ np.linalg.inv(F_k)
            d_step = F_j @ dA[i] @ np.linalg.inv(F_k)
        else:  # d(A^-1) = -A^-1 dA A^-1
            A_inv = np.linalg.inv(A[i])
            step = F_k @ A_inv @ np.linalg.inv(F_j)
            d_step = -F_k @ A_inv @ dA[i] @ A_inv @ np.linalg.inv(F_j)
        parent, child = system.link_index[edge.parent], system.link_index[edge.child]
        T[child] = T[parent] @ step
        dT[child] = dT[parent] @ step
        dT[child, columns] += T[parent] @ d_step
    first = [system.link_index[p.first] for p in system.pairs]
    W = T[first] @ np.array([p.frame_on_first for p in system.pairs])
    return A, dA, T, dT, W


def _log(R):
    """Rotation vector of R (scipy)."""
    return Rotation.from_matrix(R).as_rotvec()


def _dexp_inverse(w):
    """``J_l(w)^-1`` (3, 3): ``w' = J_l(w)^-1 omega`` for ``R = exp(hat(w))`` turning at ``omega`` (world)."""
    theta = np.linalg.norm(w)
    W = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    if theta < 1e-6:
        return np.eye(3) - W / 2 + W @ W / 12
    return np.eye(3) - W / 2 + (1 / theta**2 - (1 + np.cos(theta)) / (2 * theta * np.sin(theta))) * W @ W


def _vee(X):
    """``(omega, v)`` (..., 6) of twist matrices (..., 4, 4)."""
    return np.concatenate([np.stack([X[..., 2, 1], X[..., 0, 2], X[..., 1, 0]], axis=-1), X[..., :3, 3]], axis=-1)


def _twists(M, dM):
    """``vee(dM M^-1)`` (n, 6), ``(omega, v_o)``, of matrices ``dM`` (n, 4, 4)."""
    return _vee(dM @ np.linalg.inv(M))


def _close(actual, expected, magnitude, message=""):
    """Rates (velocities, accelerations) to TOL of ``magnitude``, the largest rate of this
    configuration (its units and size follow the random rates)."""
    assert_allclose(actual, expected, rtol=TOL, atol=TOL * magnitude, err_msg=message)


def _point_magnitude(system, M):
    """Bound on the entries of ``M r`` (M: (L, 4, 4) pose rates) over the model's points."""
    reach = max([1.0] + [np.abs(point.at).max() for point in system.model.points])
    return 4 * np.abs(M).max() * reach


def _length_tol(system):
    return dict(rtol=TOL, atol=TOL * system.scale)


def _rows_close(actual, expected, system, loops, message):
    """Loop rows: rotations (rad) to TOL, gaps (m) to TOL * size; gauge rows (rad) to TOL."""
    scale = np.r_[np.tile(np.r_[np.ones(3), np.full(3, system.scale)], loops), np.ones(len(actual) - 6 * loops)]
    assert_allclose(actual / scale[(...,) + (None,) * (actual.ndim - 1)],
                    expected / scale[(...,) + (None,) * (actual.ndim - 1)], rtol=TOL, atol=TOL, err_msg=message)


@pytest.fixture(scope="module", params=list(CASES.values()), ids=list(CASES.keys()))
def case(request):
    """The compiled system of one case and its random configurations with the numpy tree."""
    system = _system(request.param)
    seed = list(CASES.values()).index(request.param)
    rows = []
    for q, rotations in _configurations(system, seed):
        config = evaluate(system, q, rotations)
        # Open configurations: the kernels' formulas are checked off the closure, not only on it.
        assert config.closure_error() > 1e-3 or not system.topology.loops
        rows.append((q, config, _numpy_tree(system, q)))
    return system, rows


def test_every_example_loads_as_a_mechanism_and_every_pair_type_is_covered():
    """Every examples/*.toml is a Mechanism to load_model; the cases hold all seven pair types."""
    kinds = set()
    for case in CASES.values():
        kinds |= {p.pair_type.kind for p in _system(case).pairs}
    assert len(MODEL_FILES) >= 15
    assert kinds == {"revolute", "prismatic", "cylindrical", "helical", "hooke", "spherical", "planar"}


def test_pair_matrices_are_the_textbook_matrices(case):
    """A(q) of every pair, from the pair kernel, is its type's textbook matrix (eq. 1)."""
    system, rows = case
    for q, config, (A, _, _, _, _) in rows:
        for i, pair in enumerate(system.pairs):
            assert_allclose(config.pair_matrices[i], A[i], rtol=TOL, atol=TOL * max(1.0, system.scale),
                            err_msg=f"pair {pair.name} ({pair.pair_type.kind})")


def test_link_poses_and_pair_frames_are_the_products_along_the_tree(case):
    """T_0i (eq. 5) and W_p = T_first F_j are the products of link and pair matrices from the ground."""
    system, rows = case
    for q, config, (_, _, T, _, W) in rows:
        assert_allclose(config.link_poses, T, **_length_tol(system))
        assert_allclose(config.pair_frames, W, **_length_tol(system))


def test_closure_defects_are_the_loop_products(case):
    """The defects (eq. 2) are log(R_D) and D c - c of the loop product D; gauges log(R R_ref^T) . u."""
    system, rows = case
    topology = system.topology
    for q, config, (_, _, T, _, _) in rows:
        values = {p.name: q[system.pair_slices[p.name]] for p in system.pairs}
        expected = []
        for i, loop in enumerate(system.loops):
            chord = system.pairs[system.pair_index[loop.chord]]
            a = T[system.link_index[loop.links[0]]]
            D = a @ loop_product(system.pairs, loop, values) @ np.linalg.inv(a)
            c = (T[system.link_index[chord.second]] @ chord.frame_on_second)[:, 3]
            assert_allclose(config.centres[i], c[:3], **_length_tol(system))
            expected += [_log(D[:3, :3]), (D @ c - c)[:3]]
        for g in range(topology.gauges):
            R = T[topology.gauge_link[g], :3, :3] @ system.geometry.gauge_reference[g].T
            expected.append([_log(R) @ system.geometry.gauge_axis[g]])
        _rows_close(config.defects, np.concatenate(expected) if expected else np.zeros(0), system,
                    topology.loops, "defects")


def test_constraint_matrix_is_the_q_operator_derivative_of_the_closure(case):
    """B (eq. 3): each loop's columns are the Q-operator rates of its two sides at the chord,
    referred to the chord's frame-k origin; gauge rows u . J_l(w)^-1 omega."""
    system, rows = case
    topology = system.topology
    for q, config, (A, dA, T, dT, _) in rows:
        expected = []
        for i, loop in enumerate(system.loops):
            c = system.pair_index[loop.chord]
            chord, columns = system.pairs[c], system.pair_slices[loop.chord]
            first, second = system.link_index[chord.first], system.link_index[chord.second]
            reached = T[first] @ chord.frame_on_first @ A[c]
            d_reached = dT[first] @ chord.frame_on_first @ A[c]
            d_reached[columns] += T[first] @ chord.frame_on_first @ dA[c]
            target = T[second] @ chord.frame_on_second
            d_target = dT[second] @ chord.frame_on_second
            X = d_reached @ np.linalg.inv(reached) - d_target @ np.linalg.inv(target)
            centre = np.r_[target[:3, 3], 1.0]
            expected += [_vee(X)[:, :3].T, (X @ centre)[:, :3].T]
        for g in range(topology.gauges):
            link = topology.gauge_link[g]
            w = _log(T[link, :3, :3] @ system.geometry.gauge_reference[g].T)
            omega = _twists(T[link], dT[link])[:, :3]
            expected.append((omega @ _dexp_inverse(w).T @ system.geometry.gauge_axis[g])[None, :])
        B = constraint_matrix(system, config)
        assert B.shape == (6 * topology.loops + topology.gauges, system.n)
        _rows_close(B, np.concatenate(expected) if expected else np.zeros((0, system.n)), system,
                    topology.loops, "B")


def test_points_and_link_velocities_are_the_pose_products_and_their_rates(case):
    """R = T r (eq. 5), R' = omega x R + v_o (eq. 6) equals T' r, and V = vee(T' T^-1), for random rates."""
    system, rows = case
    rng = np.random.default_rng(7)
    points = list(system.model.points)
    assert points, "every case has points"
    for q, config, (_, _, T, dT, _) in rows:
        q_dot = rng.normal(size=system.n)
        T_dot = np.einsum("lkij,k->lij", dT, q_dot)
        V = link_velocities(system, config, q_dot)
        expected = np.array([_twists(T[i], T_dot[i][None])[0] for i in range(len(system.links))])
        _close(V, expected, np.abs(expected).max(), "link velocities")
        for point in points:
            i = system.link_index[point.link]
            r = np.r_[point.at, 1.0]
            position = point_positions(config.link_poses[i], point.at)
            assert_allclose(position, (T[i] @ r)[:3], **_length_tol(system), err_msg=point.name)
            velocity = point_velocities(position, V[i])
            _close(velocity, (T_dot[i] @ r)[:3], _point_magnitude(system, T_dot), point.name)


def _pair_rates(pair_type, A, rate, acceleration):
    """``A'`` and ``A''`` (4, 4) along a path with the pair's rates and accelerations, from the Q
    operators: ``Q' A`` and ``(Q'' + Q' Q') A`` (screw, spherical: left increments about frame j's
    axes), ``phi' Q A + theta' A Q`` and its derivative (Hooke), ``V A + theta' A Q`` with the
    slides' ``V = x' Q_x + y' Q_y`` and its derivative (planar)."""
    if pair_type.kind == "planar":
        Q = _Q_TURN
        V = rate[0] * _Q_SLIDE_X + rate[1] * _Q_SLIDE_Y
        V_dot = acceleration[0] * _Q_SLIDE_X + acceleration[1] * _Q_SLIDE_Y
        first = V @ A + rate[2] * A @ Q
        second = (V_dot @ A + V @ V @ A + 2 * rate[2] * V @ A @ Q + acceleration[2] * A @ Q
                  + rate[2] ** 2 * A @ Q @ Q)
        return first, second
    if pair_type.kind == "hooke":
        Q = _Q_TURN
        first = rate[0] * Q @ A + rate[1] * A @ Q
        second = (acceleration[0] * Q @ A + acceleration[1] * A @ Q + rate[0] ** 2 * Q @ Q @ A
                  + 2 * rate[0] * rate[1] * Q @ A @ Q + rate[1] ** 2 * A @ Q @ Q)
        return first, second
    if pair_type.kind == "spherical":
        Q_rate = sum(rate[k] * _q_rotation(k) for k in range(3))
        Q_acceleration = sum(acceleration[k] * _q_rotation(k) for k in range(3))
    else:
        screw = np.array(_screw(pair_type))
        (g1, s1), (g2, s2) = rate @ screw, acceleration @ screw
        Q_rate, Q_acceleration = g1 * _Q_TURN + s1 * _Q_SLIDE, g2 * _Q_TURN + s2 * _Q_SLIDE
    return Q_rate @ A, (Q_acceleration + Q_rate @ Q_rate) @ A


def _numpy_path_rates(system, q, q_dot, q_ddot):
    """Link poses T and their first and second time derivatives (L, 4, 4) along the path with
    rates ``q_dot`` and accelerations ``q_ddot``: the tree products differentiated by the product rule."""
    links = len(system.links)
    T, T1, T2 = np.zeros((links, 4, 4)), np.zeros((links, 4, 4)), np.zeros((links, 4, 4))
    T[system.topology.ground] = np.eye(4)
    for edge in system.tree:
        pair, columns = system.pairs[system.pair_index[edge.pair]], system.pair_slices[edge.pair]
        A = _pair_matrix(pair.pair_type, q[columns])
        A1, A2 = _pair_rates(pair.pair_type, A, q_dot[columns], q_ddot[columns])
        F_j, F_k_inv = pair.frame_on_first, np.linalg.inv(pair.frame_on_second)
        if not edge.forward:  # (A^-1)' = -A^-1 A' A^-1, (A^-1)'' = 2 A^-1 A' A^-1 A' A^-1 - A^-1 A'' A^-1
            A_inv = np.linalg.inv(A)
            A, A1, A2 = A_inv, -A_inv @ A1 @ A_inv, 2 * A_inv @ A1 @ A_inv @ A1 @ A_inv - A_inv @ A2 @ A_inv
            F_j, F_k_inv = pair.frame_on_second, np.linalg.inv(pair.frame_on_first)
        E, E1, E2 = (F_j @ M @ F_k_inv for M in (A, A1, A2))
        parent, child = system.link_index[edge.parent], system.link_index[edge.child]
        T[child] = T[parent] @ E
        T1[child] = T1[parent] @ E + T[parent] @ E1
        T2[child] = T2[parent] @ E + 2 * T1[parent] @ E1 + T[parent] @ E2
    return T, T1, T2


@KERNELS_FROM_PYTHON
def test_accelerations_are_the_second_rates_of_the_tree_products(case):
    """Link accelerations (hat(A) = T'' T^-1 - hat(V)^2), point accelerations R'' = T'' r (eq. 6) and
    the loop rows of the acceleration bias (the rate-only second derivative of eq. 2's two sides)."""
    from loops.kernels.acceleration import bias_rhs, link_accelerations
    from loops.kernels.closure import configure, world_twists

    system, rows = case
    topology = system.topology
    rng = np.random.default_rng(8)
    for q, config, _ in rows:
        q_dot, q_ddot = rng.normal(size=system.n), rng.normal(size=system.n)
        T, T1, T2 = _numpy_path_rates(system, q, q_dot, q_ddot)
        V = link_velocities(system, config, q_dot)
        terms = twist_rate_terms(system, config, q_dot, V)
        accelerations = np.zeros((topology.links, 6))
        link_accelerations(topology, np.array(config.twists), q_ddot, terms, accelerations)
        V_matrix = T1 @ np.linalg.inv(T)
        expected = _vee(T2 @ np.linalg.inv(T) - V_matrix @ V_matrix)
        _close(accelerations, expected, np.abs(expected).max(), "link accelerations")
        for point in system.model.points:
            i = system.link_index[point.link]
            position = point_positions(config.link_poses[i], point.at)
            velocity = point_velocities(position, V[i])
            got = point_accelerations(position, velocity, V[i], accelerations[i])
            _close(got, (T2[i] @ np.r_[point.at, 1.0])[:3], _point_magnitude(system, T2), point.name)
        # Bias of eq. 2 differentiated twice (q'' = 0): the spatial accelerations of the two sides
        # at the chord, reached and target, their difference referred to the chord's frame-k origin.
        _, T1, T2 = _numpy_path_rates(system, q, q_dot, np.zeros(system.n))
        expected = []
        for loop in system.loops:
            c = system.pair_index[loop.chord]
            chord, columns = system.pairs[c], system.pair_slices[loop.chord]
            first, second = system.link_index[chord.first], system.link_index[chord.second]
            A = _pair_matrix(chord.pair_type, q[columns])
            A1, A2 = _pair_rates(chord.pair_type, A, q_dot[columns], np.zeros(chord.size))
            F_j, F_k = chord.frame_on_first, chord.frame_on_second
            reached = (T[first] @ F_j @ A, T1[first] @ F_j @ A + T[first] @ F_j @ A1,
                       T2[first] @ F_j @ A + 2 * T1[first] @ F_j @ A1 + T[first] @ F_j @ A2)
            target = (T[second] @ F_k, T1[second] @ F_k, T2[second] @ F_k)
            Y = np.zeros((4, 4))
            for sign, (M, M1, M2) in ((1.0, reached), (-1.0, target)):
                X = M1 @ np.linalg.inv(M)
                Y += sign * (M2 @ np.linalg.inv(M) - X @ X)
            expected += [_vee(Y)[:3], (Y @ np.r_[target[0][:3, 3], 1.0])[:3]]
        work = new_work(system, q, config.rotations)
        configure(topology, system.geometry, work)
        world_twists(topology, system.geometry, work)
        rhs = np.zeros(system.rows)
        bias_rhs(topology, system.geometry, work, V, terms, rhs)
        _rows_close(rhs[:6 * topology.loops], np.concatenate(expected) if expected else np.zeros(0), system,
                    topology.loops, "bias")


def test_least_squares_factor_is_the_pseudo_inverse(case):
    """The least-squares block's factor (one-sided Jacobi SVD, in place) is the pseudo-inverse of the
    dimensionless B_free (numpy's SVD, same cut), with the ratio of the smallest kept singular value."""
    # Reference: numpy's SVD of the dense scaled B without the driven columns (every row), singular values at or
    # below RANK_TOLERANCE * max(largest, 1) dropped, as the factor's docstring states; one driven column, the
    # first, as the sweeps' drivers are. Entries agree to 1e-12 of the largest entry of the pseudo-inverse times the
    # condition number of the kept part (a pseudo-inverse's round-off grows with it); the reported ratio to 1e-12.
    from loops.kernels.closure import configure
    from loops.kernels.linear import factorize_block
    from loops.linear import RANK_TOLERANCE, least_squares_block, new_factor

    system, rows = case
    if not system.topology.loops:
        return
    driven = np.array([0])
    free = np.arange(1, system.n)
    block = least_squares_block(system, driven)
    for q, config, _ in rows:
        work = new_work(system, q, config.rotations)
        configure(system.topology, system.geometry, work)
        factor = new_factor(block)
        factorize_block(system.topology, system.geometry, block, work, factor)
        B = constraint_matrix(system, config, scaled=True)[:, free]
        U, sv, Vt = np.linalg.svd(B, full_matrices=False)
        kept = sv > RANK_TOLERANCE * max(sv[0], 1.0)
        expected = (Vt[kept].T / sv[kept]) @ U[:, kept].T
        actual = factor.band[:len(free), :B.shape[0]]
        condition = sv[0] / sv[kept][-1]
        assert_allclose(actual, expected, rtol=0.0, atol=TOL * condition * np.abs(expected).max())
        assert factor.info[2] == 1.0
        assert factor.info[0] == pytest.approx(sv[min(B.shape) - 1] / sv[0], rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------------ banded LU
#: (N, kl, ku) of the banded matrices: square blocks of every shape the orderings give, a
#: full band (a small mechanism), a narrow one with more sub- than super-diagonals (fill-in
#: past ku), a diagonal, one equation, and the double wishbone's block (19, 7, 14).
BAND_SHAPES = [(1, 0, 0), (6, 0, 0), (7, 6, 6), (12, 3, 1), (12, 1, 3), (15, 4, 0), (15, 0, 4), (19, 7, 14),
               (30, 5, 2)]


def _banded(shape, rng, pivoting):
    """A random (N, N) matrix with ``kl`` sub- and ``ku`` super-diagonals, 1-norm condition number
    below 1e7, and its band storage (the layout of loops.kernels.linear, written out: entry (i, j)
    at ``band[j, kl + ku + i - j]``, the first kl entries of each row left for fill-in). With
    ``pivoting`` the diagonal is half the size of the other entries, so that partial pivoting
    exchanges rows at most steps; without, each diagonal entry outweighs the rest of its column
    (no exchange at any step)."""
    n, kl, ku = shape
    for _ in range(1000):
        A = np.zeros((n, n))
        for i in range(n):
            for j in range(max(0, i - kl), min(n, i + ku + 1)):
                A[i, j] = rng.uniform(-1.0, 1.0)
        if pivoting:
            A[np.diag_indices(n)] *= 0.5
        else:
            A[np.diag_indices(n)] = np.sign(np.diag(A)) * (1.0 + np.abs(A).sum(axis=0))
        if np.linalg.cond(A, 1) < 1e7:
            break
    else:
        raise AssertionError(f"no well-conditioned matrix of shape {shape}")
    band = np.zeros((n, 2 * kl + ku + 1))
    for i in range(n):
        for j in range(max(0, i - kl), min(n, i + ku + 1)):
            band[j, kl + ku + i - j] = A[i, j]
    return A, band


@KERNELS_FROM_PYTHON
@pytest.mark.parametrize("pivoting", [False, True], ids=["dominant-diagonal", "pivoting"])
@pytest.mark.parametrize("shape", BAND_SHAPES, ids=[f"N{n}-kl{kl}-ku{ku}" for n, kl, ku in BAND_SHAPES])
def test_band_lu_solves_like_numpy(shape, pivoting):
    """The banded LU's solves, transposed solves, determinant sign, pivots and condition estimate
    against numpy on the dense matrix, with and without row exchanges."""
    # Reference: numpy.linalg (LAPACK's dense LU and SVD) on the same matrix. Solutions agree to 1e-13 of their
    # largest entry times the condition number (the round-off of any backward-stable solve); log |det| = the sum of
    # log |U_jj| to N 1e-14 times the condition number; the pivot ratio is exactly min/max |U_jj|. Hager's estimate
    # is a lower bound of ||A^-1||_1 (to round-off: 1e-13 times the condition number, numpy's inverse's own) and, on
    # these small matrices, within a factor 3 of it (LAPACK's dlacon is usually exact; the factor leaves room for
    # the rare miss).
    from loops.kernels.linear import (band_determinant_sign, band_lu, band_one_norm_of_inverse, band_pivot,
                                      band_solve, band_solve_transposed)

    n, kl, ku = shape
    rng = np.random.default_rng(1000 * n + 10 * kl + ku + pivoting)
    exchanges = 0
    for _ in range(4):
        A, band = _banded(shape, rng, pivoting)
        pivots = np.zeros(n, dtype=np.int64)
        ratio = band_lu(band, n, kl, ku, pivots)
        exchanges += int(np.sum(pivots != np.arange(n)))
        assert np.all((pivots >= np.arange(n)) & (pivots <= np.minimum(np.arange(n) + kl, n - 1)))
        diagonal = np.array([band_pivot(band, kl, ku, j) for j in range(n)])
        assert ratio == np.abs(diagonal).min() / np.abs(diagonal).max()
        sign, log_det = np.linalg.slogdet(A)
        assert band_determinant_sign(band, n, kl, ku, pivots) == sign
        condition = np.linalg.cond(A, 1)
        assert np.sum(np.log(np.abs(diagonal))) == pytest.approx(log_det, rel=0.0, abs=1e-14 * n * condition)
        for _ in range(3):
            b = rng.standard_normal(n)
            expected = np.linalg.solve(A, b)
            x = b.copy()
            band_solve(band, n, kl, ku, pivots, x)
            assert_allclose(x, expected, rtol=0.0, atol=1e-13 * condition * np.abs(expected).max())
            expected = np.linalg.solve(A.T, b)
            x = b.copy()
            band_solve_transposed(band, n, kl, ku, pivots, x)
            assert_allclose(x, expected, rtol=0.0, atol=1e-13 * condition * np.abs(expected).max())
        estimate = band_one_norm_of_inverse(band, n, kl, ku, pivots, np.zeros(n), np.zeros(n))
        exact = np.linalg.norm(np.linalg.inv(A), 1)
        assert exact / 3.0 <= estimate <= exact * (1.0 + 1e-13 * condition)
    if pivoting and kl > 0:
        assert exchanges >= n  # the row exchanges (and their fill-in) were exercised
    else:
        assert exchanges == 0


def test_band_lu_reports_a_singular_matrix():
    """A zero column gives a zero pivot: pivot ratio 0 and determinant sign 0."""
    # Reference: a matrix with a zero column is singular; LAPACK's dgbtf2 skips the elimination of a zero pivot's
    # column (info > 0) and goes on, as the kernel does: the columns after it are still factorized.
    from loops.kernels.linear import band_determinant_sign, band_lu

    A, band = _banded((8, 2, 3), np.random.default_rng(5), pivoting=True)
    band[3, :] = 0.0  # column 3 of A
    pivots = np.zeros(8, dtype=np.int64)
    assert band_lu(band, 8, 2, 3, pivots) == 0.0
    assert band_determinant_sign(band, 8, 2, 3, pivots) == 0.0


def _band_lu_whole_band(band, n, kl, ku, pivots):
    """LAPACK's dgbtf2 written out (0-based): every step eliminates over the whole band below
    the diagonal, ``min(kl, n - 1 - j)`` rows, zeros included."""
    kv = kl + ku
    last = 0
    for j in range(n):
        km = min(kl, n - 1 - j)
        p = int(np.argmax(np.abs(band[j, kv:kv + km + 1])))
        pivots[j] = j + p
        if band[j, kv + p] == 0.0:
            continue
        last = max(last, min(j + ku + p, n - 1))
        for c in range(j, last + 1):
            band[c, kv + j - c], band[c, kv + j + p - c] = band[c, kv + j + p - c], band[c, kv + j - c]
        band[j, kv + 1:kv + km + 1] *= 1.0 / band[j, kv]
        for c in range(j + 1, last + 1):
            a = band[c, kv + j - c]
            if a != 0.0:
                band[c, kv + j - c + 1:kv + j - c + km + 1] -= band[j, kv + 1:kv + km + 1] * a


@pytest.mark.parametrize("pivoting", [False, True], ids=["dominant-diagonal", "pivoting"])
def test_band_lu_on_a_profile_matches_the_whole_band_bit_for_bit(pivoting):
    """A band whose columns end above its lower edge (a closure block's: each loop's rows stop
    where the loop does): the kernel, which eliminates each column down to its last nonzero
    only, gives the factors and pivots of the elimination over the whole band, bit for bit."""
    # Reference: the unblocked LU over the whole band (dgbtf2's loops, _band_lu_whole_band) on the same matrix; the
    # rows left out hold zeros, whose multipliers are zero and change no other entry, so every stored bit must agree,
    # the signs of zeros included (bytes compared: a zero of L scaled by a negative pivot's inverse is -0.0).
    from loops.kernels.linear import band_lu

    n, kl, ku = 12, 5, 4
    rng = np.random.default_rng(12 + pivoting)
    for trial in range(6):
        A, band = _banded((n, kl, ku), rng, pivoting)
        for j in range(n):  # cut each column 0 to kl - 1 rows short of the band's lower edge
            cut = rng.integers(0, kl)
            for i in range(min(n - 1, j + kl) - cut + 1, min(n - 1, j + kl) + 1):
                if i > j:
                    A[i, j] = band[j, kl + ku + i - j] = 0.0
        expected, expected_pivots = band.copy(), np.zeros(n, dtype=np.int64)
        _band_lu_whole_band(expected, n, kl, ku, expected_pivots)
        pivots = np.zeros(n, dtype=np.int64)
        band_lu(band, n, kl, ku, pivots)
        assert band.tobytes() == expected.tobytes()
        assert np.array_equal(pivots, expected_pivots)
