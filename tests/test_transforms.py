"""Tests of the SO(3)/SE(3) maps (the kernel library, loops.kernels.rotations and .rigid, over
stacked arrays by tests/stacked_kernels.py), twists, Pavlov's layout and the frames of
mechanism.transforms; and of the numpy oracle (tests/oracles/transforms.py) the kernels are
held to.

References: Rodrigues' formula and the SO(3) logarithm as in R. M. Murray, Z. Li,
S. S. Sastry, *A Mathematical Introduction to Robotic Manipulation* (CRC 1994), ch. 2
(eqs. 2.14, 2.17; adjoint eq. 2.58, Lie bracket as matrix commutator, sec. 2.4); Pavlov's
Q operators and layout as restated in /work/shared/METHOD.md; Uicker, Denavit and
Hartenberg's printed forms of Q_rev and Q_pri (homogeneous coordinate first).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import stacked_kernels as lib
from mechanism import transforms as tf
from oracles import transforms as tfo
from reference.closed_forms import dh_matrix, rotation_matrix

# Round-off budget: every identity below is a handful of float64 products of O(1)
# numbers, so 1e-12 (about 5000 ulp) is generous for round-off yet far below any
# formula error (which would show up at O(angle) or O(1)).
RTOL = 1e-12
ATOL = 1e-12


def random_rotation_vectors(rng, n, min_angle=0.0, max_angle=np.pi):
    axes = rng.normal(size=(n, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    angles = rng.uniform(min_angle, max_angle, size=n)
    return axes * angles[:, None]


def random_transforms(rng, n, scale=1.0):
    R = lib.exp_so3(random_rotation_vectors(rng, n))
    return tf.homogeneous(R, rng.normal(scale=scale, size=(n, 3)))


# ----------------------------------------------------------------- exp / log on SO(3)
def test_exp_so3_is_rodrigues():
    """exp_so3 equals Rodrigues' formula (Murray-Li-Sastry eq. 2.14) at random vectors."""
    rng = np.random.default_rng(1)
    w = random_rotation_vectors(rng, 50, 0.0, 3.0 * np.pi)
    angles = np.linalg.norm(w, axis=1)
    expected = np.stack([rotation_matrix(wi, ai) for wi, ai in zip(w, angles)])
    # Two evaluations of the same closed form in different orders: round-off only.
    assert_allclose(lib.exp_so3(w), expected, rtol=RTOL, atol=ATOL)


def test_exp_log_round_trip_random():
    """log(exp(w)) == w for |w| in (0, pi), and exp(log(R)) == R for random rotations."""
    rng = np.random.default_rng(2)
    w = random_rotation_vectors(rng, 200, 1e-3, np.pi - 1e-3)
    # Away from pi the angle comes from atan2(sin, cos) and the axis from the skew part
    # divided by sin >= sin(1e-3): the error stays a few hundred ulp at worst.
    assert_allclose(lib.log_so3(lib.exp_so3(w)), w, rtol=1e-11, atol=1e-11)

    R = lib.exp_so3(random_rotation_vectors(rng, 200, 0.0, 2 * np.pi))
    assert_allclose(lib.exp_so3(lib.log_so3(R)), R, rtol=RTOL, atol=ATOL)
    angles = np.linalg.norm(lib.log_so3(R), axis=1)
    assert np.all(angles <= np.pi + 1e-12)


@pytest.mark.parametrize("angle", [1e-14, 1e-9, 1e-6, 1e-3])
def test_exp_log_round_trip_small_angles(angle):
    """The small-angle series branches of exp and log keep full relative accuracy."""
    rng = np.random.default_rng(3)
    w = random_rotation_vectors(rng, 20, angle, angle)
    # Relative accuracy is what matters at small angles; atol far below the angle itself.
    assert_allclose(lib.log_so3(lib.exp_so3(w)), w, rtol=1e-10, atol=1e-3 * angle)


@pytest.mark.parametrize("gap", [1e-1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 0.0])
def test_exp_log_round_trip_near_pi(gap):
    """Near pi the axis comes from the symmetric part: round trip stays accurate."""
    rng = np.random.default_rng(4)
    w = random_rotation_vectors(rng, 30, np.pi - gap, np.pi - gap)
    R = lib.exp_so3(w)
    w_back = lib.log_so3(R)
    # The rotation itself is recovered to round-off at every gap.
    assert_allclose(lib.exp_so3(w_back), R, rtol=RTOL, atol=ATOL)
    assert_allclose(np.linalg.norm(w_back, axis=1), np.pi - gap, rtol=1e-12, atol=1e-12)
    if gap >= 1e-10:
        # Below pi the rotation vector is unique. The axis from the symmetric part is
        # accurate to ~eps / (1 - cos) ~ 1e-16; the sign comes from the skew part, which
        # is ~gap in size, so the sign is reliable for gap well above round-off.
        assert_allclose(w_back, w, rtol=1e-10, atol=1e-10)
    else:
        # At (or within round-off of) pi, w and -w are the same rotation.
        same = np.minimum(np.abs(w_back - w).max(axis=1), np.abs(w_back + w).max(axis=1))
        assert_allclose(same, 0.0, rtol=0.0, atol=1e-9)


def test_exp_log_at_exactly_pi_about_coordinate_axes():
    """Rotations by pi about x, y, z and diagonals (Euler-lock poses) come back exactly."""
    axes = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, -1, 1], [0, 1, -1]])
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    R = lib.exp_so3(np.pi * axes)
    w = lib.log_so3(R)
    assert_allclose(np.linalg.norm(w, axis=1), np.pi, rtol=1e-14, atol=1e-14)  # round-off
    assert_allclose(np.abs(np.einsum("ij,ij->i", w / np.pi, axes)), 1.0, rtol=1e-12, atol=1e-12)
    assert_allclose(lib.exp_so3(w), R, rtol=RTOL, atol=ATOL)


def test_rotation_builders_match_exp():
    """rotation_about_x/y/z(angle) == exp(angle e_i): right-handed, as METHOD.md states."""
    angles = np.linspace(-4.0, 4.0, 17)
    for builder, axis in ((tf.rotation_about_x, 0), (tf.rotation_about_y, 1), (tf.rotation_about_z, 2)):
        w = np.zeros((len(angles), 3))
        w[:, axis] = angles
        T = builder(angles)
        assert_allclose(T[:, :3, :3], lib.exp_so3(w), rtol=RTOL, atol=ATOL)
        assert_array_equal(T[:, 3, :], np.tile([0.0, 0.0, 0.0, 1.0], (len(angles), 1)))
        assert_array_equal(T[:, :3, 3], 0.0)


# ------------------------------------------------------------------ SE(3) identities
def test_inverse_of_rigid_transforms():
    """inverse(T) T == T inverse(T) == E, stacked, and equals numpy's general inverse."""
    rng = np.random.default_rng(5)
    T = random_transforms(rng, 40, scale=2.0)
    eye = np.broadcast_to(np.eye(4), T.shape)
    Ti = tf.inverse(T)
    # Positions of size ~2 m: the products stay within a few ulp of 2.
    assert_allclose(Ti @ T, eye, rtol=RTOL, atol=ATOL)
    assert_allclose(T @ Ti, eye, rtol=RTOL, atol=ATOL)
    assert_allclose(Ti, np.linalg.inv(T), rtol=RTOL, atol=ATOL)


def test_skew_is_cross_product_and_unskew_inverts_it():
    rng = np.random.default_rng(6)
    w, x = rng.normal(size=(2, 30, 3))
    assert_allclose(np.einsum("...ij,...j->...i", tfo.skew(w), x), np.cross(w, x), rtol=RTOL, atol=ATOL)
    assert_allclose(tfo.unskew(tfo.skew(w)), w, rtol=0.0, atol=0.0)
    xi = rng.normal(size=(30, 6))
    assert_allclose(tfo.twist_vector(tfo.twist_matrix(xi)), xi, rtol=0.0, atol=0.0)


def test_adjoint_identity():
    """T hat(xi) T^-1 == hat(Ad(T) xi) (Murray-Li-Sastry eq. 2.58), and transform_twists agrees."""
    rng = np.random.default_rng(7)
    T = random_transforms(rng, 40, scale=2.0)
    xi = rng.normal(size=(40, 6))
    left = T @ tfo.twist_matrix(xi) @ tf.inverse(T)
    Ad_xi = np.einsum("...ij,...j->...i", tfo.adjoint(T), xi)
    # Entries are O(|p| |omega|) ~ 10; 1e-12 relative / absolute covers the products.
    assert_allclose(left, tfo.twist_matrix(Ad_xi), rtol=RTOL, atol=ATOL)
    assert_allclose(lib.transform_twists(T, xi), Ad_xi, rtol=RTOL, atol=ATOL)
    # Ad is a homomorphism: Ad(T1 T2) = Ad(T1) Ad(T2).
    T2 = random_transforms(rng, 40)
    assert_allclose(tfo.adjoint(T @ T2), tfo.adjoint(T) @ tfo.adjoint(T2), rtol=RTOL, atol=ATOL)


def test_lie_bracket_is_matrix_commutator():
    """[a, b] == vee(hat(a) hat(b) - hat(b) hat(a)) (METHOD.md, acceleration)."""
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=(2, 50, 6))
    A, B = tfo.twist_matrix(a), tfo.twist_matrix(b)
    commutator = A @ B - B @ A
    assert_allclose(tfo.twist_matrix(lib.lie_bracket(a, b)), commutator, rtol=RTOL, atol=ATOL)
    # The commutator of two twists is itself a twist (zero bottom row, skew rotation part).
    assert_allclose(commutator[:, 3, :], 0.0, rtol=0.0, atol=ATOL)
    assert_allclose(commutator[:, :3, :3], -np.swapaxes(commutator[:, :3, :3], 1, 2), rtol=0.0, atol=ATOL)


def test_lie_bracket_is_derivative_of_carried_twist():
    """d/dt Ad(exp(t hat(a))) b at t=0 equals [a, b] (the docstring's claim).

    Central difference with h = 1e-6: truncation ~ h^2 |a|^3 |b| ~ 1e-11, round-off
    ~ eps / h ~ 1e-10; hence rtol = atol = 1e-8.
    """
    from scipy.linalg import expm

    rng = np.random.default_rng(9)
    h = 1e-6
    for _ in range(10):
        a, b = rng.normal(size=(2, 6))
        plus = lib.transform_twists(expm(h * tfo.twist_matrix(a)), b)
        minus = lib.transform_twists(expm(-h * tfo.twist_matrix(a)), b)
        assert_allclose((plus - minus) / (2 * h), lib.lie_bracket(a, b), rtol=1e-8, atol=1e-8)


# --------------------------------------------------------------------- Pavlov layout
# METHOD.md, "Derivatives: the Q operators", in the standard layout (x, y, z, 1):
Q_REV_METHOD = np.array([[0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=float)
Q_PRI_METHOD = np.array([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]], dtype=float)
# The same operators as printed by Uicker-Denavit-Hartenberg and Pavlov, who order the
# homogeneous coordinates (1, x, y, z): the translation column comes first.
Q_REV_PAVLOV = np.array([[0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 0]], dtype=float)
Q_PRI_PAVLOV = np.array([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]], dtype=float)


def test_pavlov_layout_round_trip_and_products():
    rng = np.random.default_rng(10)
    T = random_transforms(rng, 20)
    P = tf.to_pavlov(T)
    assert_array_equal(tf.from_pavlov(P), T)  # a permutation: exact
    assert_array_equal(tf.to_pavlov(tf.from_pavlov(P)), P)
    # Pavlov's layout: first row (1, 0, 0, 0), translation in column 0, rotation block
    # in rows/columns 1..3.
    assert_array_equal(P[:, 0, :], np.tile([1.0, 0, 0, 0], (20, 1)))
    assert_array_equal(P[:, 1:, 0], T[:, :3, 3])
    assert_array_equal(P[:, 1:, 1:], T[:, :3, :3])
    # The same operator: it acts on (1, x, y, z) as T acts on (x, y, z, 1), and composes.
    r = rng.normal(size=3)
    assert_allclose(P @ np.r_[1.0, r], np.concatenate([np.ones((20, 1)), (T @ np.r_[r, 1.0])[:, :3]], axis=1),
                    rtol=RTOL, atol=ATOL)
    T2 = random_transforms(rng, 20)
    assert_allclose(tf.to_pavlov(T @ T2), P @ tf.to_pavlov(T2), rtol=RTOL, atol=ATOL)


def test_method_q_operators_in_pavlov_layout():
    """METHOD.md's Q_rev and Q_pri become Pavlov's printed matrices in his layout."""
    assert_array_equal(tf.to_pavlov(Q_REV_METHOD), Q_REV_PAVLOV)
    assert_array_equal(tf.to_pavlov(Q_PRI_METHOD), Q_PRI_PAVLOV)
    assert_array_equal(tf.from_pavlov(Q_REV_PAVLOV), Q_REV_METHOD)
    # And they are the hats of the revolute / prismatic unit twists about / along Z.
    assert_array_equal(tfo.twist_matrix([0, 0, 1, 0, 0, 0]), Q_REV_METHOD)
    assert_array_equal(tfo.twist_matrix([0, 0, 0, 0, 0, 1]), Q_PRI_METHOD)


def test_method_q_operators_differentiate_rot_z_and_trans_z():
    """dA/dq = Q A for Rot_z and Trans_z, in both layouts (central differences).

    h = 1e-6: truncation h^2/6 ~ 2e-13, round-off eps/h ~ 2e-10; rtol = atol = 1e-8.
    """
    h = 1e-6
    for g in (-2.5, 0.0, 0.4, 3.0):
        dA = (tf.rotation_about_z(g + h) - tf.rotation_about_z(g - h)) / (2 * h)
        assert_allclose(Q_REV_METHOD @ tf.rotation_about_z(g), dA, rtol=1e-8, atol=1e-8)
        assert_allclose(Q_REV_PAVLOV @ tf.to_pavlov(tf.rotation_about_z(g)), tf.to_pavlov(dA),
                        rtol=1e-8, atol=1e-8)
        dA = (tf.translation_along_z(g + h) - tf.translation_along_z(g - h)) / (2 * h)
        assert_allclose(Q_PRI_METHOD @ tf.translation_along_z(g), dA, rtol=1e-8, atol=1e-8)
        assert_allclose(Q_PRI_PAVLOV @ tf.to_pavlov(tf.translation_along_z(g)), tf.to_pavlov(dA),
                        rtol=1e-8, atol=1e-8)


# ----------------------------------------------------------------------------- frames
def assert_rigid(T):
    """R^T R = E, det R = +1, bottom row (0, 0, 0, 1); round-off tolerances."""
    R = T[..., :3, :3]
    eye = np.broadcast_to(np.eye(3), R.shape)
    assert_allclose(np.swapaxes(R, -1, -2) @ R, eye, rtol=RTOL, atol=ATOL)
    assert_allclose(np.linalg.det(R), 1.0, rtol=RTOL, atol=ATOL)
    assert_array_equal(T[..., 3, :], np.broadcast_to([0.0, 0.0, 0.0, 1.0], T.shape[:-2] + (4,)))


def test_frame_from_points_is_orthonormal_right_handed():
    """Pavlov's frame from origin, a point on +X and a point on +Z (METHOD.md)."""
    rng = np.random.default_rng(11)
    for _ in range(50):
        o, x, z = rng.normal(size=(3, 3))
        T = tf.frame_from_points(o, x, z)
        assert_rigid(T)
        assert_allclose(T[:3, 3], o, rtol=0.0, atol=0.0)
        ez = (z - o) / np.linalg.norm(z - o)
        assert_allclose(T[:3, 2], ez, rtol=RTOL, atol=ATOL)  # Z goes exactly through z
        # X lies in the plane of o, x, z, on the side of x (Gram-Schmidt of x - o).
        ex_raw = (x - o) - ez * ((x - o) @ ez)
        assert_allclose(T[:3, 0], ex_raw / np.linalg.norm(ex_raw), rtol=1e-10, atol=1e-10)


def test_frame_from_points_exact_drawing():
    """A drawing with orthogonal arms gives exactly the expected axes.

    e_x = (0, 0, 1), e_z = (0, -1, 0), so e_y = e_z x e_x = (-1, 0, 0).
    """
    T = tf.frame_from_points([1.0, 2.0, 3.0], [1.0, 2.0, 5.0], [1.0, 0.0, 3.0])
    expected = np.array([[0, -1, 0, 1.0], [0, 0, -1, 2.0], [1, 0, 0, 3.0], [0, 0, 0, 1]])
    assert_allclose(T, expected, rtol=0.0, atol=1e-15)


def test_frame_from_axis_is_rigid_and_deterministic():
    rng = np.random.default_rng(12)
    for _ in range(50):
        o, axis = rng.normal(size=(2, 3))
        T = tf.frame_from_axis(o, 3.7 * axis)
        assert_rigid(T)
        assert_allclose(T[:3, 2], axis / np.linalg.norm(axis), rtol=RTOL, atol=ATOL)
        assert_array_equal(T, tf.frame_from_axis(o, 3.7 * axis))


def test_dh_transform_matches_reference():
    """dh_transform == the classic Denavit-Hartenberg matrix written out in the reference."""
    rng = np.random.default_rng(13)
    for _ in range(20):
        a, alpha, d, theta = rng.normal(size=4)
        assert_allclose(tf.dh_transform(a=a, alpha=alpha, d=d, theta=theta),
                        dh_matrix(a, alpha, theta, d), rtol=RTOL, atol=ATOL)


# ------------------------------------------------------------- kernels against the oracle
def test_kernel_library_agrees_with_the_numpy_oracle():
    """exp, log, the inverse left Jacobian (and its transpose), Ad(T) xi, the bracket and the
    shift of a twist to a point: the scalar kernels equal the numpy oracle's gathers and
    products at random arguments (round-off; near pi the oracle's symmetric-part branch)."""
    rng = np.random.default_rng(14)
    w = np.concatenate([random_rotation_vectors(rng, 60, 0.0, np.pi),
                        random_rotation_vectors(rng, 10, np.pi - 1e-3, np.pi - 1e-3),
                        random_rotation_vectors(rng, 10, 1e-8, 1e-8)])
    assert_allclose(lib.exp_so3(w), tfo.exp_so3(w), rtol=RTOL, atol=ATOL)
    R = tfo.exp_so3(w)
    assert_allclose(lib.log_so3(R), tfo.log_so3(R), rtol=1e-10, atol=1e-10)  # axis / sin near pi
    v = rng.normal(size=w.shape)
    for transposed in (False, True):
        assert_allclose(lib.dexp_inverse(w, v, transposed), tfo.dexp_inverse(w, v, transposed),
                        rtol=1e-10, atol=1e-10)  # c(t) ~ 1/(t sin t) near pi: a few hundred ulp
    T = random_transforms(rng, 40, scale=2.0)
    xi, eta = rng.normal(size=(2, 40, 6))
    assert_allclose(lib.transform_twists(T, xi), tfo.transform_twists(T, xi), rtol=RTOL, atol=ATOL)
    assert_allclose(lib.lie_bracket(xi, eta), tfo.lie_bracket(xi, eta), rtol=RTOL, atol=ATOL)
    c = rng.normal(size=(40, 3))
    assert_allclose(lib.shift_twists(xi, c), np.einsum("nij,nj->ni", tfo.point_shift_matrices(c), xi),
                    rtol=RTOL, atol=ATOL)
