"""Tests of loops.point_kinematics (over loops.kernels.points): points on links (Pavlov eqs. 5 and 6).

A point with link-frame coordinates r is at R = T r (eq. 5). With the link's spatial
velocity V = (omega, v_o) and acceleration A = V' (global, origin-referenced), the 4x4
derivative matrices are T' = hat(V) T and T'' = (hat(A) + hat(V)^2) T, so R' = T' r and
R'' = T'' r: the cross-product formulas of the module must give exactly that. On a sweep,
eq. (6) itself, R' = sum_k (dT/dq_k) q_k' r, with dT/dq_k by differences of the poses of
loops.configuration.evaluate along each variable, must give the point velocity the result
reports.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import four_bar_link_local, spatial_all_pairs
from kinematics_helpers import step
from loops.configuration import evaluate, rotations_of
from loops.point_kinematics import point_accelerations, point_positions, point_velocities
from oracles.transforms import exp_so3, twist_matrix

# Products and sums of O(1) numbers: round-off only.
RTOL = 1e-12
ATOL = 1e-12


def random_motion(rng, shape):
    """Rigid transforms (shape + (4, 4)), spatial velocities and accelerations (shape + (6,))."""
    T = np.zeros(shape + (4, 4))
    T[..., :3, :3] = exp_so3(rng.normal(size=shape + (3,)))
    T[..., :3, 3] = rng.normal(size=shape + (3,))
    T[..., 3, 3] = 1.0
    return T, rng.normal(size=shape + (6,)), rng.normal(size=shape + (6,))


@pytest.mark.parametrize("shape", [(), (5,), (2, 3)], ids=["one", "stack", "2x3"])
def test_point_formulas_equal_the_derivative_matrices(shape):
    """Point formulas equal T r, hat(V) T r and (hat(A) + hat(V)^2) T r, one or stacked (eqs. 5-6)."""
    # R = T r, R' = hat(V) T r and R'' = (hat(A) + hat(V)^2) T r, for random poses, twists and points, one or stacked
    # (the functions broadcast over leading axes).
    rng = np.random.default_rng(12)
    T, V, A = random_motion(rng, shape)
    r = rng.normal(size=3)
    r_h = np.r_[r, 1.0]
    T_dot = twist_matrix(V) @ T
    T_ddot = (twist_matrix(A) + twist_matrix(V) @ twist_matrix(V)) @ T
    R = point_positions(T, r)
    R_dot = point_velocities(R, V)
    R_ddot = point_accelerations(R, R_dot, V, A)
    assert R.shape == R_dot.shape == R_ddot.shape == shape + (3,)
    assert_allclose(R, (T @ r_h)[..., :3], rtol=RTOL, atol=ATOL)
    assert_allclose(R_dot, (T_dot @ r_h)[..., :3], rtol=RTOL, atol=ATOL)
    assert_allclose(R_ddot, (T_ddot @ r_h)[..., :3], rtol=RTOL, atol=ATOL)
    # T' and T'' are the derivatives of a rigid motion: their last rows vanish.
    assert_allclose((T_dot @ r_h)[..., 3], 0.0, rtol=0.0, atol=ATOL)


def test_point_on_a_uniformly_turning_link_moves_on_a_circle():
    """A point on a uniformly turning link: speed w rho tangential, acceleration w^2 rho centripetal."""
    # A link turning at w about z through (1, 0, 0) (V = (0, 0, w, 0, -w, 0)): a point at distance rho has speed w rho,
    # tangential, and acceleration w^2 rho towards the axis.
    w, rho = 3.0, 0.5
    T = np.eye(4)
    V = np.array([0.0, 0.0, w, 0.0, -w * 1.0, 0.0])  # v_o = -omega x c, c = (1, 0, 0)
    R = point_positions(T, [1.0 + rho, 0.0, 0.2])
    R_dot = point_velocities(R, V)
    R_ddot = point_accelerations(R, R_dot, V, np.zeros(6))
    assert_allclose(R_dot, [0.0, w * rho, 0.0], rtol=RTOL, atol=ATOL)
    assert_allclose(R_ddot, [-w**2 * rho, 0.0, 0.0], rtol=RTOL, atol=ATOL)


def test_result_points_use_the_link_pose_velocity_and_acceleration():
    """A result's point kinematics are T r, T' r, T'' r of the same result's link pose, V and A."""
    # A sweep's point, velocity and acceleration are T r, T' r and T'' r from the same result's pose, link velocity and
    # link acceleration (r in the link frame, which is the global frame at the design pose).
    m = spatial_all_pairs()
    res = m.sweep({"A": np.linspace(0.0, 1.0, 6), "P": np.linspace(0.0, 0.05, 6)},
                  speeds={"A": 2.0, "P": 0.1}, accelerations={"A": -1.0})
    r_h = np.r_[m.points["T"].at, 1.0]
    T, V, A = res.pose("coupler"), res.link_velocity("coupler"), res.link_acceleration("coupler")
    T_dot = twist_matrix(V) @ T
    T_ddot = (twist_matrix(A) + twist_matrix(V) @ twist_matrix(V)) @ T
    assert_allclose(res.point("T"), (T @ r_h)[:, :3], rtol=RTOL, atol=ATOL)
    assert_allclose(res.point_velocity("T"), (T_dot @ r_h)[:, :3], rtol=RTOL, atol=ATOL)
    assert_allclose(res.point_acceleration("T"), (T_ddot @ r_h)[:, :3], rtol=RTOL, atol=ATOL)


def test_link_local_point_is_carried_by_its_link_frame():
    """A point given in its link's own frame (local=True) is at T r along a sweep of a DH model."""
    # A point given in a link's own frame (``local=True``, link-local model): R = T r with r as given, at the assembled
    # pose and along a sweep.
    m = four_bar_link_local()
    m.assemble({"A": 0.7, "B": -1.7, "C": 2.3, "D": 5.1}, hold=("A",))
    res = m.sweep({"A": np.linspace(0.7, 2.0, 5)})
    r_h = np.array([0.06, 0.02, 0.0, 1.0])
    assert_allclose(res.point("P"), (res.pose("coupler") @ r_h)[:, :3], rtol=RTOL, atol=ATOL)


def test_point_velocity_is_pavlov_equation_6():
    """Point velocity equals Pavlov's eq. (6), sum_k dT/dq_k q_k' r, with dT/dq_k by differences."""
    # Reference: eq. (6), R' = sum_k (dT_0i/dq_k) q_k' r, with dT_0i/dq_k by central differences of the poses
    # evaluate() gives along each variable's increment (kinematics_helpers.step; h = 1e-6: truncation 1e-13, round-off
    # 1e-10 on O(1) entries; tolerance 1e-8), at swept positions.
    m = spatial_all_pairs()
    res = m.sweep({"A": np.linspace(0.2, 0.9, 3), "P": np.linspace(0.0, 0.04, 3)}, speeds={"A": 1.3, "P": -0.2})
    system = res.system
    coupler = system.link_index["coupler"]
    r_h = np.r_[m.points["T"].at, 1.0]
    h = 1e-6
    for k in range(len(res)):
        q = np.array([res.q(name)[k] for name in system.variable_names])
        q_dot = np.array([res.q_dot(name)[k] for name in system.variable_names])
        rotations = rotations_of(system, q)
        R_dot = np.zeros(3)
        for j in range(system.n):
            increment = np.zeros(system.n)
            increment[j] = h
            ahead = evaluate(system, *step(system, q, increment, rotations)).link_poses[coupler]
            behind = evaluate(system, *step(system, q, -increment, rotations)).link_poses[coupler]
            R_dot += ((ahead - behind) / (2 * h) @ r_h)[:3] * q_dot[j]
        assert_allclose(res.point_velocity("T")[k], R_dot, rtol=1e-8, atol=1e-8)


def test_read_only_stacks_reach_the_kernels_writable(monkeypatch):
    """A result's frozen arrays go to the point kernels as writable copies (numba compiles a kernel
    once per argument type, and a read-only array is a type of its own): the values are the same."""
    from loops.kernels import points

    positions = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    velocities = np.array([[0.1, 0.2, 0.3, 1.0, 0.0, -1.0], [0.0, 0.0, 1.0, 0.2, 0.1, 0.0]])
    expected = point_velocities(positions, velocities)
    positions.setflags(write=False)
    velocities.setflags(write=False)
    seen = []

    def spy(*args, kernel=points.velocities_of):
        seen.append([a.flags.writeable for a in args])
        return kernel(*args)

    monkeypatch.setattr(points, "velocities_of", spy)
    assert_allclose(point_velocities(positions, velocities), expected, rtol=0, atol=0)
    assert seen == [[True, True, True]]
