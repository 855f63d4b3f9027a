"""Tests of mechanism.pairs: the family functions (the one implementation of pair matrices, twists
and their rates) and the registry.

References: METHOD.md's pair table and "Derivatives: the Q operators" (left convention
``dA/dq_k = Q_k A``, ``Q_k = hat(S_k)`` in frame j); every analytic derivative is checked
against central finite differences, as RTB's ``tests/test_jacob.py`` does against
``numjac``, and every function against the numpy oracle of ``tests/oracles/pairs.py``
(products of basis matrices, another route to the same matrices). The spherical pair must
not lock where a ZXZ Euler set does (DESIGN.md). The family functions run here as plain
Python (:class:`stacked_kernels.FamilyPair`); compiled, tests/test_kernels.py holds the
kernels that inline them to the textbook matrices.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import mechanism.pairs as pairs
from mechanism import transforms as tf
from oracles import transforms as tfo
from oracles.pairs import oracle_of
from stacked_kernels import FamilyPair, log_so3

PAIR_TYPES = [
    FamilyPair(pairs.Revolute()),
    FamilyPair(pairs.Prismatic()),
    FamilyPair(pairs.Cylindrical()),
    FamilyPair(pairs.Helical(pitch=0.005)),
    FamilyPair(pairs.Helical(pitch=-0.02)),
    FamilyPair(pairs.Hooke()),
    FamilyPair(pairs.Hooke(beta=0.6)),
    FamilyPair(pairs.Hooke(beta=2.5)),
    FamilyPair(pairs.Spherical()),
    FamilyPair(pairs.make_pair_type("planar")),
    FamilyPair(pairs.make_pair_type("bushing")),
]
IDS = [repr(p.pair_type) for p in PAIR_TYPES]

# Central differences with h = 1e-6 on O(1) entries: truncation h^2/6 |A'''| ~ 2e-13,
# round-off ~ eps |A| / h ~ 2e-10. rtol 1e-8 and atol 1e-9 leave a factor >= 5 over the
# round-off and catch any formula error, which would be O(1).
H = 1e-6
FD_RTOL = 1e-8
FD_ATOL = 1e-9
# Pure round-off checks (a few float64 products of O(1) numbers).
RTOL = 1e-12
ATOL = 1e-12


def random_values(pair, rng, n):
    """Random pair values of shape (n, k): angles in (-3, 3) rad, slides in (-0.2, 0.2) m.

    Spherical values are rotation vectors of norm < pi (random axis and angle).
    """
    if pair.kind == "spherical":
        axes = rng.normal(size=(n, 3))
        axes /= np.linalg.norm(axes, axis=1, keepdims=True)
        return axes * rng.uniform(0.0, 3.1, size=(n, 1))
    cols = [rng.uniform(-3.0, 3.0, n) if rot else rng.uniform(-0.2, 0.2, n) for rot in pair.rotational]
    return np.stack(cols, axis=1)


def assert_rigid(T):
    R = T[..., :3, :3]
    assert_allclose(np.swapaxes(R, -1, -2) @ R, np.broadcast_to(np.eye(3), R.shape), rtol=RTOL, atol=ATOL)
    assert_allclose(np.linalg.det(R), 1.0, rtol=RTOL, atol=ATOL)
    assert_array_equal(T[..., 3, :], np.broadcast_to([0.0, 0.0, 0.0, 1.0], T.shape[:-2] + (4,)))


def unit(k, size):
    e = np.zeros(size)
    e[k] = 1.0
    return e


@pytest.mark.parametrize("pair", PAIR_TYPES, ids=IDS)
def test_matrix_is_rigid_and_identity_at_zero(pair):
    rng = np.random.default_rng(20)
    q = random_values(pair, rng, 50)
    A = pair.matrix(q)
    assert A.shape == (50, 4, 4)
    assert_rigid(A)
    # Zero values: identity, except the Hooke pair's fixed tilt Rot_x(beta) (METHOD.md table).
    A0 = pair.matrix(np.zeros(pair.size))
    expected = tf.rotation_about_x(pair.beta) if pair.kind == "hooke" else np.eye(4)
    assert_allclose(A0, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("pair", PAIR_TYPES, ids=IDS)
def test_operators_are_left_derivatives(pair):
    """operators(q)[k] @ matrix(q) == d/dh matrix(advance(q, h e_k)) at h = 0 (central difference).

    For additive pairs advance is q + h e_k, so this is the plain partial derivative; for
    the spherical pair it is the derivative along a left rotation increment about frame
    j's k-th axis.
    """
    rng = np.random.default_rng(21)
    for q in random_values(pair, rng, 30):
        A = pair.matrix(q)
        Q = pair.operators(q)
        assert Q.shape == (pair.size, 4, 4)
        for k in range(pair.size):
            e = unit(k, pair.size)
            dA = (pair.matrix(pair.advance(q, H * e)) - pair.matrix(pair.advance(q, -H * e))) / (2 * H)
            assert_allclose(Q[k] @ A, dA, rtol=FD_RTOL, atol=FD_ATOL)
            # The operator is a twist: skew rotation block, zero bottom row (METHOD.md).
            assert_allclose(Q[k][:3, :3], -Q[k][:3, :3].T, rtol=0.0, atol=0.0)
            assert_array_equal(Q[k][3], 0.0)
            assert_allclose(tfo.twist_matrix(pair.twists(q)[k]), Q[k], rtol=0.0, atol=0.0)


@pytest.mark.parametrize("pair", [p for p in PAIR_TYPES if p.additive], ids=[i for p, i in zip(PAIR_TYPES, IDS) if p.additive])
def test_additive_advance_is_plain_sum(pair):
    rng = np.random.default_rng(22)
    q, dq = random_values(pair, rng, 2)
    assert_allclose(pair.advance(q, dq), q + dq, rtol=0.0, atol=0.0)


def test_one_parameter_operators_commute_with_matrix():
    """For rotation/translation along the pair's own Z, Q A == A Q (METHOD.md)."""
    rng = np.random.default_rng(23)
    for pair in (FamilyPair(pairs.Revolute()), FamilyPair(pairs.Prismatic()), FamilyPair(pairs.Cylindrical()),
                 FamilyPair(pairs.Helical(0.01))):
        for q in random_values(pair, rng, 10):
            A = pair.matrix(q)
            for Q in pair.operators(q):
                assert_allclose(Q @ A, A @ Q, rtol=RTOL, atol=ATOL)


def test_helical_twist_has_the_lead():
    """Helical twist: unit rotation about Z plus lead pitch / 2 pi along Z (m/rad)."""
    pair = FamilyPair(pairs.Helical(pitch=0.006))
    S = pair.twists(np.array([0.7]))
    assert_allclose(S, [[0, 0, 1, 0, 0, 0.006 / (2 * np.pi)]], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("pair", PAIR_TYPES, ids=IDS)
def test_twist_rates_match_finite_differences(pair):
    """twist_rates(q, q_dot) == d/dt twists(q(t)) along q(t) = advance(q, t q_dot)."""
    rng = np.random.default_rng(24)
    for q, q_dot in zip(random_values(pair, rng, 20), rng.normal(size=(20, pair.size))):
        plus = pair.twists(pair.advance(q, H * q_dot))
        minus = pair.twists(pair.advance(q, -H * q_dot))
        assert_allclose(pair.twist_rates(q, q_dot), (plus - minus) / (2 * H), rtol=FD_RTOL, atol=FD_ATOL)


@pytest.mark.parametrize("pair", [p for p in PAIR_TYPES if p.additive], ids=[i for p, i in zip(PAIR_TYPES, IDS) if p.additive])
def test_twist_rates_give_second_derivative_of_matrix(pair):
    """A'' = (sum_k hat(S_k') q_k' + (sum_k hat(S_k) q_k')^2) A along q(t) = q + t q_dot.

    This is what the acceleration analysis (METHOD.md, "Velocity (4) and acceleration")
    relies on. Second central difference with h = 1e-4: truncation h^2/12 |A''''| ~ 1e-9,
    round-off ~ 4 eps / h^2 ~ 1e-7; hence rtol = atol = 1e-6.
    """
    rng = np.random.default_rng(25)
    h = 1e-4
    for q, q_dot in zip(random_values(pair, rng, 20), rng.normal(size=(20, pair.size))):
        A = pair.matrix(q)
        V = np.einsum("k,kij->ij", q_dot, pair.operators(q))
        Vdot = np.einsum("k,kij->ij", q_dot, tfo.twist_matrix(pair.twist_rates(q, q_dot)))
        d2A = (pair.matrix(q + h * q_dot) - 2 * A + pair.matrix(q - h * q_dot)) / h**2
        assert_allclose((Vdot + V @ V) @ A, d2A, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("pair", PAIR_TYPES, ids=IDS)
def test_values_from_matrix_round_trip(pair):
    """The oracle's reader gives back q from the family's matrix(q), inside each chart's domain.

    Angles of revolute/cylindrical/Hooke pairs in (-pi, pi); the helical angle is read
    from the slide, so any number of turns comes back; spherical rotation vectors have
    norm < pi. Round-off through atan2 and log: 1e-10.
    """
    rng = np.random.default_rng(26)
    q = random_values(pair, rng, 100)
    if pair.kind == "helical":
        q = rng.uniform(-40.0, 40.0, size=(100, 1))
    if pair.kind == "bushing":
        q[:, 4] = rng.uniform(-1.5, 1.5, 100)  # the Cardan chart's middle angle
    back = oracle_of(pair.pair_type).values_from_matrix(pair.matrix(q))
    assert back.shape == q.shape
    assert_allclose(back, q, rtol=1e-10, atol=1e-10)


# -------------------------------------------------------------------- spherical pair
def zxz_matrix(angles):
    """ZXZ Euler matrix Rot_z(a) Rot_x(b) Rot_z(c), to show which poses lock it."""
    a, b, c = angles
    return tf.rotation_about_z(a) @ tf.rotation_about_x(b) @ tf.rotation_about_z(c)


def zxz_angles_of(R):
    """One ZXZ angle set of a rotation matrix.

    Within 1e-6 of a lock (middle angle 0 or pi) the set is snapped onto the lock with
    the third angle 0: then ``R[:2, :2]`` is ``[[cos a, -+sin a], [sin a, +-cos a]]``, so
    ``a = atan2(R[1, 0], R[0, 0])`` in both cases; the snap moves R by at most ~1e-6.
    """
    if np.hypot(R[0, 2], R[1, 2]) < 1e-6:
        return np.array([np.arctan2(R[1, 0], R[0, 0]), 0.0 if R[2, 2] > 0 else np.pi, 0.0])
    b = np.arccos(np.clip(R[2, 2], -1.0, 1.0))
    return np.array([np.arctan2(R[0, 2], -R[1, 2]), b, np.arctan2(R[2, 0], R[2, 1])])


# Poses where ZXZ Euler angles lock (middle angle 0 or pi): identity, half-turns about x,
# y, z, a turn about z, half-turns about x after a turn about z, and near-pi rotations.
LOCK_POSES = {
    "identity": np.zeros(3),
    "pi about x": np.array([np.pi, 0.0, 0.0]),
    "pi about y": np.array([0.0, np.pi, 0.0]),
    "pi about z": np.array([0.0, 0.0, np.pi]),
    "0.8 about z": np.array([0.0, 0.0, 0.8]),
    "pi about x then 1.1 about z": tfo.log_so3(tf.rotation_about_x(np.pi)[:3, :3] @ tf.rotation_about_z(1.1)[:3, :3]),
    "pi - 1e-9 about x": np.array([np.pi - 1e-9, 0.0, 0.0]),
    "pi - 1e-9 about (1, 1, 0)": (np.pi - 1e-9) * np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0),
}


def spherical_local_jacobian(pair, q):
    """9x3 Jacobian of vec(R(advance(q, dq))) at dq = 0 by central differences (h = 1e-6)."""
    cols = []
    for k in range(3):
        e = unit(k, 3)
        dA = (pair.matrix(pair.advance(q, H * e)) - pair.matrix(pair.advance(q, -H * e))) / (2 * H)
        cols.append(dA[:3, :3].ravel())
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("name", list(LOCK_POSES))
def test_spherical_well_conditioned_at_euler_lock_poses(name):
    """At ZXZ lock poses the spherical pair's three twists stay orthonormal and its chart
    Jacobian keeps all three singular values equal to sqrt(2) (condition number 1),
    while the ZXZ Euler Jacobian at the same rotation loses a rank."""
    pair = FamilyPair(pairs.Spherical())
    q = LOCK_POSES[name]
    S = pair.twists(q)
    # Exact: the twists are the constant generators (e_x, e_y, e_z; zero translation).
    assert_allclose(S[:, :3] @ S[:, :3].T, np.eye(3), rtol=0.0, atol=1e-15)
    assert_array_equal(S[:, 3:], 0.0)
    # hat(e_k) R are mutually orthogonal with Frobenius norm sqrt(2): singular values all
    # sqrt(2); the FD Jacobian carries the FD error, ~1e-10 (see FD_ATOL).
    sv = np.linalg.svd(spherical_local_jacobian(pair, q), compute_uv=False)
    assert_allclose(sv, np.sqrt(2.0), rtol=FD_RTOL, atol=FD_ATOL)
    # The pose is a genuine Euler lock: the ZXZ Jacobian there has rank 2 (this is what the
    # spherical pair's local chart avoids).
    R = pair.matrix(q)
    angles = zxz_angles_of(R[:3, :3])
    # Snapping a near-lock pose onto the lock moves it by ~sin(middle angle) <= 1e-6.
    assert_allclose(zxz_matrix(angles), R, rtol=0.0, atol=2e-6)
    assert np.sin(angles[1]) == pytest.approx(0.0, abs=1e-15)
    J = np.stack([((zxz_matrix(angles + H * unit(k, 3)) - zxz_matrix(angles - H * unit(k, 3))) / (2 * H))[:3, :3].ravel()
                  for k in range(3)], axis=1)
    sv_euler = np.linalg.svd(J, compute_uv=False)
    assert sv_euler[-1] < 1e-6 * sv_euler[0]


@pytest.mark.parametrize("name", list(LOCK_POSES))
def test_spherical_advance_composes_left_rotations(name):
    """matrix(advance(q, dq)) == exp(dq) matrix(q), also for chains of steps and near pi."""
    pair = FamilyPair(pairs.Spherical())
    rng = np.random.default_rng(27)
    q = LOCK_POSES[name]
    for scale in (1e-8, 1e-4, 1e-1, 1.0):
        dq = rng.normal(scale=scale, size=3)
        q_new = pair.advance(q, dq)
        # Rodrigues and log near pi: round-off of a few products, 1e-12.
        assert_allclose(pair.matrix(q_new)[:3, :3], tfo.exp_so3(dq) @ pair.matrix(q)[:3, :3], rtol=RTOL, atol=ATOL)
        assert np.linalg.norm(q_new) <= np.pi + 1e-12  # re-seated in the principal chart
    # Two steps compose like two left rotations.
    d1, d2 = rng.normal(scale=0.3, size=(2, 3))
    expected = tfo.exp_so3(d2) @ tfo.exp_so3(d1) @ pair.matrix(q)[:3, :3]
    assert_allclose(pair.matrix(pair.advance(pair.advance(q, d1), d2))[:3, :3], expected, rtol=RTOL, atol=ATOL)


def test_spherical_advance_walks_through_pi():
    """Turning about a fixed axis in small steps through pi: the value stays the principal
    rotation vector (it flips to the opposite side at pi) and the matrix never drifts."""
    pair = FamilyPair(pairs.Spherical())
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    step = 1e-3
    q = (np.pi - 0.05) * axis
    angle = np.pi - 0.05
    for _ in range(100):
        q = pair.advance(q, step * axis)
        angle += step
        assert np.linalg.norm(q) <= np.pi + 1e-12
    # 100 steps of Rodrigues + log: round-off accumulates linearly, ~100 * 1e-15.
    assert_allclose(pair.matrix(q)[:3, :3], tfo.exp_so3(angle * axis), rtol=1e-12, atol=1e-12)
    assert_allclose(q, (angle - 2 * np.pi) * axis, rtol=1e-12, atol=1e-12)


def test_spherical_values_from_matrix_near_pi():
    """Read-back (the kernels' logarithm, as the corrector re-seats the value) near and at pi
    gives the same rotation (sign at exactly pi is free)."""
    pair = FamilyPair(pairs.Spherical())
    rng = np.random.default_rng(28)
    for gap in (1e-3, 1e-7, 1e-11, 0.0):
        axes = rng.normal(size=(10, 3))
        axes /= np.linalg.norm(axes, axis=1, keepdims=True)
        q = (np.pi - gap) * axes
        back = log_so3(pair.matrix(q)[:, :3, :3])  # the kernels' logarithm
        assert_allclose(pair.matrix(back), pair.matrix(q), rtol=RTOL, atol=ATOL)
        assert_allclose(np.linalg.norm(back, axis=1), np.pi - gap, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------ Hooke pair
def test_hooke_twists_are_the_two_pins():
    """First twist: rotation about Z_j (the first pin). Second: the second pin carried by the
    cross, Rot_z(phi) Rot_x(beta) e_z, in frame j; both through the cross centre."""
    pair = FamilyPair(pairs.Hooke(beta=0.9))
    rng = np.random.default_rng(29)
    for phi, theta in rng.uniform(-3, 3, size=(10, 2)):
        S = pair.twists(np.array([phi, theta]))
        assert_allclose(S[0], [0, 0, 1, 0, 0, 0], rtol=0.0, atol=0.0)
        pin2 = (tf.rotation_about_z(phi) @ tf.rotation_about_x(0.9))[:3, 2]
        assert_allclose(S[1, :3], pin2, rtol=RTOL, atol=ATOL)
        assert_array_equal(S[1, 3:], 0.0)
        # The second pin is frame k's Z: the third column of A.
        assert_allclose(pair.matrix(np.array([phi, theta]))[:3, 2], pin2, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("angle", [1e-5, 0.3, 2.0, 3.1, 3.6])
def test_spherical_value_rates_against_finite_differences(angle):
    """``q' = J_l(q)^-1 omega``: moving the rotation vector at that rate turns the pair at
    ``omega`` (``R' R^T = hat(omega)``, central differences with h = 1e-5: error ~1e-10)."""
    rng = np.random.default_rng(7)
    axis = rng.normal(size=3)
    q = axis / np.linalg.norm(axis) * angle
    omega = rng.normal(size=3)
    rate = FamilyPair(pairs.Spherical()).value_rates(q, omega)
    h = 1e-5
    R_dot = (tfo.exp_so3(q + h * rate) - tfo.exp_so3(q - h * rate)) / (2 * h)
    assert_allclose(tfo.unskew(R_dot @ tfo.exp_so3(q).T), omega, rtol=0, atol=1e-9)
    stacked = FamilyPair(pairs.Spherical()).value_rates(np.stack([q, q]), np.stack([omega, omega]))
    assert_allclose(stacked, [rate, rate], rtol=0, atol=0)


# ------------------------------------------------------------------------ planar pair
def test_planar_twists_are_the_slides_and_the_turn_about_the_moved_centre():
    """S_0, S_1 slide along frame j's X and Y; S_2 turns about Z through the second link's
    centre, which it leaves at rest: v + omega x (x, y, 0) = 0. A is Trans(x, y, 0) Rot_z(theta):
    the same as a prismatic pair along X, one along Y and a revolute pair about Z in series."""
    pair = FamilyPair(pairs.make_pair_type("planar"))
    rng = np.random.default_rng(31)
    for q in random_values(pair, rng, 10):
        x, y, theta = q
        S = pair.twists(q)
        assert_array_equal(S[:2], [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0]])
        assert_array_equal(S[2], [0, 0, 1, y, -x, 0])
        assert_allclose(S[2, 3:] + np.cross(S[2, :3], [x, y, 0.0]), 0.0, rtol=0, atol=1e-16)
        # Prismatic along X: Z of its frame turned onto X (Rot_y(pi/2)); along Y: onto Y (Rot_x(-pi/2)).
        along_x = tf.rotation_about_y(np.pi / 2) @ FamilyPair(pairs.Prismatic()).matrix([x]) @ \
            tf.rotation_about_y(-np.pi / 2)
        along_y = tf.rotation_about_x(-np.pi / 2) @ FamilyPair(pairs.Prismatic()).matrix([y]) @ \
            tf.rotation_about_x(np.pi / 2)
        chain = along_x @ along_y @ FamilyPair(pairs.Revolute()).matrix([theta])
        assert_allclose(pair.matrix(q), chain, rtol=RTOL, atol=ATOL)


# ------------------------------------------------------------- against the numpy oracle
@pytest.mark.parametrize("pair", PAIR_TYPES, ids=IDS)
def test_family_functions_agree_with_the_oracle(pair):
    """Matrix, twists and twist rates of the family functions equal the numpy oracle's (basis
    products and gathers, tests/oracles/pairs.py) at random values and rates: round-off only."""
    oracle = oracle_of(pair.pair_type)
    rng = np.random.default_rng(30)
    q = random_values(pair, rng, 40)
    q_dot = rng.normal(size=q.shape)
    assert_allclose(pair.matrix(q), oracle.matrix(q), rtol=RTOL, atol=ATOL)
    assert_allclose(pair.twists(q), oracle.twists(q), rtol=RTOL, atol=ATOL)
    assert_allclose(pair.twist_rates(q, q_dot), oracle.twist_rates(q, q_dot), rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------------------- registry
def test_registry_lists_every_type_once_with_its_family():
    """Every name add_pair accepts maps to a type of one registered family, the families' codes
    are their places in FAMILIES, the types' constants fit the kernels' parameter vector and
    each type has a marker of its own."""
    families = {family.name: code for code, family in enumerate(pairs.FAMILIES)}
    assert len(families) == len(pairs.FAMILIES)
    for name, cls in pairs.PAIR_TYPES.items():
        assert name in (cls.kind, *cls.aliases)
        assert any(cls in family.types for family in pairs.FAMILIES)
    assert pairs.PAIR_TYPES["universal"] is pairs.Hooke
    assert sorted(pairs.KINDS) == sorted({cls.kind for cls in pairs.PAIR_TYPES.values()})
    for pair in PAIR_TYPES:
        pair_type = pair.pair_type
        assert pairs.family_code(pair_type) == families[pair_type.family.name]
        assert type(pair_type) in pair_type.family.types
        assert pair_type.parameters().shape == (pairs.PARAMETER_COUNT,)
        assert len(pair_type.rotational) == pair_type.size
    markers = [pairs.PAIR_TYPES[kind].marker for kind in pairs.KINDS]
    assert len(set(markers)) == len(markers)


def test_make_pair_type_passes_only_given_constants():
    assert pairs.make_pair_type("helical", pitch=0.01, beta=None).pitch == 0.01
    assert pairs.make_pair_type("universal", pitch=None).beta == pytest.approx(np.pi / 2, rel=0, abs=0)
    assert pairs.make_pair_type("hooke", beta=0.4).beta == 0.4
    assert type(pairs.make_pair_type("revolute", pitch=None, beta=None)) is pairs.Revolute
