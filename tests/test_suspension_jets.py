"""Second-order jets (loops.suspension.jets) against differences of the same expressions.

A motion with parameter s moves a vector p(s) = (sin 2s + 1.5, s^2 + e^(s/2), cos s - 3s) and
a point of a link whose pose and twists are written out; each jet operation (arithmetic,
dot, cross, norm, unit, arctan2, sqrt, sin, cos) must carry the first and second
derivatives that central differences of its value give. Differences with Richardson
extrapolation (steps 1e-3 and 2e-3): first derivatives to ~1e-11, second to ~1e-8.
"""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from loops.suspension import jets

S = np.array([-0.7, 0.1, 0.9])
H = 1e-3


def vector(s):
    s = np.asarray(s, dtype=float)
    value = np.stack([np.sin(2 * s) + 1.5, s ** 2 + np.exp(s / 2), np.cos(s) - 3 * s], axis=-1)
    d = np.stack([2 * np.cos(2 * s), 2 * s + np.exp(s / 2) / 2, -np.sin(s) - 3], axis=-1)
    dd = np.stack([-4 * np.sin(2 * s), 2 + np.exp(s / 2) / 4, -np.cos(s)], axis=-1)
    return jets.Jet(value, d, dd)


def expression(p):
    """Every operation once: a scalar of s."""
    a = np.array([0.3, -0.4, 0.5])
    u = jets.unit(p)
    x = jets.dot(u, a) + 2.0
    y = jets.norm(jets.cross(p, a)) * jets.sin(jets.dot(p, a)) - jets.cos(p[..., 0]) / 3.0
    return jets.arctan2(y, x) + jets.sqrt(x * x + 1.0) / (1.0 + p[..., 2] * p[..., 2]) - 1.0 / x


def differences(f, s, order):
    def central(h):
        if order == 1:
            return (f(s + h) - f(s - h)) / (2 * h)
        return (f(s + h) - 2 * f(s) + f(s - h)) / h ** 2

    return (4 * central(H) - central(2 * H)) / 3


def test_every_operation_carries_its_derivatives():
    jet = expression(vector(S))

    def value(s):
        return expression(vector(s)).value

    assert_allclose(jet.d, differences(value, S, 1), rtol=1e-9, atol=1e-10)
    assert_allclose(jet.dd, differences(value, S, 2), rtol=1e-6, atol=1e-6)


def test_point_of_a_link_from_its_pose_twist_and_acceleration():
    """A link turning by angle 0.8 s^2 about a fixed axis through c, translating by
    (s, s^3, 0): the point's jet from (T, V, A) equals differences of T r."""
    axis = np.array([0.2, -0.5, 1.0]) / np.linalg.norm([0.2, -0.5, 1.0])
    c, r = np.array([0.1, 0.2, -0.3]), np.array([0.4, -0.1, 0.25])

    def pose(s):
        R = Rotation.from_rotvec(np.outer(0.8 * np.atleast_1d(s) ** 2, axis)).as_matrix()
        T = np.zeros((len(np.atleast_1d(s)), 4, 4))
        T[:, :3, :3] = R
        T[:, :3, 3] = c - np.einsum("nij,j->ni", R, c) + np.stack([np.atleast_1d(s), np.atleast_1d(s) ** 3,
                                                                   0 * np.atleast_1d(s)], -1)
        T[:, 3, 3] = 1
        return T

    def position(s):
        T = pose(s)
        return np.einsum("nij,j->ni", T[:, :3, :3], r) + T[:, :3, 3]

    rate, second = 1.6 * S, 1.6 * np.ones_like(S)   # angle' and angle''
    omega, alpha = np.outer(rate, axis), np.outer(second, axis)
    v_lin = np.stack([np.ones_like(S), 3 * S ** 2, 0 * S], -1)
    a_lin = np.stack([0 * S, 6 * S, 0 * S], -1)
    # p = R (r - c) + c + d(s): v(p) = omega x (p - c - d) + d', so v_o = d' - omega x (c + d)
    # and its rate a_o = d'' - alpha x (c + d) - omega x d'
    moved = c + np.stack([S, S ** 3, 0 * S], -1)
    v_o = v_lin - np.cross(omega, moved)
    a_o = a_lin - np.cross(alpha, moved) - np.cross(omega, v_lin)
    jet = jets.point_jet(pose(S), np.concatenate([omega, v_o], 1), np.concatenate([alpha, a_o], 1), r)
    assert_allclose(jet.value, position(S), rtol=0, atol=1e-15)
    assert_allclose(jet.d, differences(position, S, 1), rtol=0, atol=1e-10)
    assert_allclose(jet.dd, differences(position, S, 2), rtol=0, atol=1e-6)
    without = jets.point_jet(pose(S), np.concatenate([omega, v_o], 1), None, r)
    assert np.all(np.isnan(without.dd)) and np.array_equal(without.d, jet.d)


def test_constants_skip_their_zero_derivatives_and_broadcast_like_jets():
    """A constant operand gives what the same constant lifted to a jet gives, also when it broadcasts the jet."""
    # Reference: the general formulas with the constant lifted (jets.constant: zero derivatives). The operators take a
    # shortcut for constants that leave the jet's shape alone; a constant of a larger shape (2, 3) against a jet of
    # one vector (3,) must still give value, d and dd of the broadcast shape.
    p = vector(S)  # (3, 3): three positions
    one = vector(0.2)  # (3,): one vector
    for jet, constant in ((p, np.array([0.3, -0.4, 0.5])), (p, 2.5), (one, np.arange(6.0).reshape(2, 3))):
        lifted = jets.constant(constant)
        pairs = [(jet + constant, jet + lifted), (jet - constant, jet - lifted), (jet * constant, jet * lifted)]
        if np.ndim(constant) == 1:
            pairs.append((jets.dot(jet, constant), jets.dot(jet, lifted)))
        for fast, general in pairs:
            for part in ("value", "d", "dd"):
                assert getattr(fast, part).shape == getattr(general, part).shape
                assert_allclose(getattr(fast, part), getattr(general, part), rtol=1e-15, atol=1e-15)
