"""Tests of the velocity solve (loops.kernels.velocity, loops.continuation): the differentiated
closure (Pavlov eq. 4) solved for q'.

Every rate a sweep reports is checked against differences of the positions the same
sweep reports, along a path on which each driver moves as a parabola in time, so that
the reported rates are time derivatives (STYLE.md section 3: "velocities vs closed sweep
positions"). Mechanisms: every pair type with two drivers; the same driven by a point
(road loop onto a link between a spherical and a Hooke pair); the double wishbone with its
wheel-travel point driver and the wheel spinning. Spherical pairs' rates are relative
angular velocities in global axes (DESIGN.md), checked against log(R(t+h) R(t-h)^T) / 2h.
The linearization's rank and conditioning (the square block of :mod:`loops.linear` that a
:class:`loops.continuation.Walk` factorizes) are checked on a Cardan coupling, where one
driver choice (the cross angle at its extreme) is a dead point at the design pose.

Tolerances. Richardson's extrapolation of central differences at h = 1e-3 s has
truncation O(h^4) ~ 1e-12 x the fifth derivative; positions are closed to 1e-10 of the
size (0.4-0.5 m), which puts ~5e-11 / h ~ 5e-8 of noise on a difference. FD_TOL = 1e-6
(relative, and absolute in rad/s or m/s for rates of order 0.1-10) covers both with a
margin of 20 and is far below any formula error, which would be O(rate).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import (
    angular_rate_difference,
    cardan_coupling,
    central_difference,
    double_wishbone,
    richardson_derivative,
    spatial_all_pairs,
    spatial_point_driven,
    spatial_velocity_difference,
    sweep_along_time,
)
from loops.compiled import compile_model
from loops.configuration import constraint_matrix, evaluate
from loops.continuation import DEAD_POINT_CONDITIONING, Walk, WalkStopped
from loops.linear import least_squares_block, rank, solve_at_positions, square_block
from loops.point_kinematics import link_twists
from reference import closed_forms as cf

H = 1e-3
FD_TOL = 1e-6

# name -> (builder, drivers {name: (x0, w, a)}, t0)
PATHS = {
    "every pair type": (spatial_all_pairs, {"A": (0.4, 1.5, -0.7), "P": (0.02, 0.05, 0.1)}, 0.1),
    "point-driven (road loop), S and U": (spatial_point_driven, {"lift": (-0.005, 0.01, -0.02),
                                                                "P": (0.01, -0.02, 0.05)}, 0.2),
    "double wishbone, travel and wheel spin": (double_wishbone, {"travel": (0.01, 0.5, -3.0),
                                                                 "hub": (0.3, 10.0, 5.0)}, 0.01),
}


def spherical_pairs(res):
    return [p for p in res.model.pairs if p.kind == "spherical"]


def scalar_variables(res):
    """Public variables that are not spherical components (angles and slides)."""
    spherical = {p.name for p in spherical_pairs(res)}
    return [name for name in res.variable_names if name.split(".")[0] not in spherical]


def relative_rotations(res, pair):
    """(N, 3, 3) rotation of the pair's second link relative to its first, in frame j axes
    (global axes at the design pose for a spherical pair), from the link poses."""
    first, second = res.pose(pair.first), res.pose(pair.second)
    relative = np.linalg.inv(first @ pair.frame_on_first) @ second @ pair.frame_on_second
    return relative[:, :3, :3]


@pytest.mark.parametrize("case", PATHS.values(), ids=PATHS.keys())
def test_pair_rates_are_time_derivatives_of_pair_values(case):
    """q' of angles, slides and spherical pairs equals time differences of the swept values (eq. 4)."""
    # q' of every angle and slide (Hooke components, helical, cylindrical, the point-driver variable) equals the
    # difference of q; a spherical pair's q' equals the angular rate of the relative rotation of its links.
    build, drivers, t0 = case
    res = sweep_along_time(build(), drivers, t0, H)
    for name in scalar_variables(res):
        assert_allclose(res.q_dot(name)[2], richardson_derivative(res.q(name), H), rtol=FD_TOL, atol=FD_TOL,
                        err_msg=name)
    for pair in spherical_pairs(res):
        expected = angular_rate_difference(relative_rotations(res, pair), H)
        assert_allclose(res.q_dot(pair.name)[2], expected, rtol=FD_TOL, atol=FD_TOL, err_msg=pair.name)


@pytest.mark.parametrize("case", PATHS.values(), ids=PATHS.keys())
def test_link_and_point_velocities_are_time_derivatives_of_poses_and_points(case):
    """Link velocities are vee(T' T^-1) of the poses, point velocities the differences of the points."""
    # Each real link's spatial velocity (omega, v_o) is vee(T' T^-1) of its poses, and each point's velocity is the
    # difference of its positions (eq. 6).
    build, drivers, t0 = case
    m = build()
    res = sweep_along_time(m, drivers, t0, H)
    for link in m.links:
        expected = spatial_velocity_difference(res.pose(link), H)
        assert_allclose(res.link_velocity(link)[2], expected, rtol=FD_TOL, atol=FD_TOL, err_msg=link)
    for point in res.point_names:
        expected = richardson_derivative(res.point(point), H)
        assert_allclose(res.point_velocity(point)[2], expected, rtol=FD_TOL, atol=FD_TOL, err_msg=point)


def test_point_driver_moves_its_point_at_the_driver_speed():
    """A point driver's point moves along its direction at exactly the driver speed (road loop)."""
    # The road loop makes the driven point's velocity along the driver's direction equal to the driver speed exactly (to
    # round-off), whatever the other driver does.
    m = double_wishbone()
    speeds = np.linspace(-1.0, 1.5, 7)
    res = m.sweep({"travel": np.linspace(-0.06, 0.06, 7), "hub": np.linspace(0.0, 3.0, 7)},
                  speeds={"travel": speeds, "hub": 20.0})
    # Linear solve of O(1) equations: round-off ~1e-15 times the conditioning.
    assert_allclose(res.point_velocity("wheel_centre")[:, 2], speeds, rtol=1e-10, atol=1e-12)
    assert_allclose(res.q_dot("travel"), speeds, rtol=0.0, atol=0.0)


def test_velocities_are_linear_in_the_driver_speeds():
    """Rates are linear in the driver speeds (eq. 4), and zero without speeds (DESIGN.md)."""
    # Eq. (4) is linear: rates for speeds (wA, wP) are wA x rates(1, 0) + wP x rates(0, 1), and without speeds every
    # rate is zero (DESIGN.md).
    m = spatial_all_pairs()
    drivers = {"A": np.linspace(0.0, 1.0, 5), "P": np.linspace(0.0, 0.04, 5)}
    unit_a = m.sweep(drivers, speeds={"A": 1.0})
    unit_p = m.sweep(drivers, speeds={"P": 1.0})
    both = m.sweep(drivers, speeds={"A": 2.5, "P": -0.3})
    still = m.sweep(drivers)
    for name in both.variable_names:
        expected = 2.5 * unit_a.q_dot(name) - 0.3 * unit_p.q_dot(name)
        assert_allclose(both.q_dot(name), expected, rtol=1e-12, atol=1e-12, err_msg=name)  # round-off
        assert np.all(still.q_dot(name) == 0.0)
    assert np.all(still.point_velocity("T") == 0.0)


def test_the_solve_and_the_tree_sums_at_recorded_positions_give_the_sweeps_rates():
    """The engine's solve at recorded positions (``B_free x = rhs``, the walk's factorization)
    with ``rhs = -B_driven speeds`` gives the sweep's rates, on the square block and on the
    least-squares one, and the tree sums of the variables' twists times those rates
    (:func:`link_twists`) the sweep's link velocities; a pair's own term moves the links past
    it; ``rates_along`` any combination of drivers (round-off: 1e-12)."""
    m = spatial_all_pairs()
    result = m.sweep({"A": np.linspace(0.0, 1.0, 5), "P": np.linspace(0.0, 0.04, 5)}, speeds={"A": 2.5, "P": -0.3})
    system = result.system
    q, rotations, driven = result.closed_positions()
    speeds = np.zeros((len(result), len(driven)))
    speeds[:, :2] = (2.5, -0.3)
    configs = [evaluate(system, q[i], rotations[i]) for i in range(len(q))]
    B = np.stack([constraint_matrix(system, c) for c in configs])
    rhs = -np.einsum("nrd,nd->nr", B[:, :, driven], speeds)[:, None]  # (N, 1, rows)
    block = square_block(system, constraint_matrix(system, configs[0], scaled=True), driven)
    q_dot, _, V, _ = result.rates_along(speeds)
    for name in ("A", "P"):
        assert_allclose(q_dot[:, system.variable_index[name]], result.q_dot(name), rtol=0, atol=1e-12)
    for chosen in (block, least_squares_block(system, driven)):
        x, solved = solve_at_positions(system, chosen, q, rotations, rhs, 1e-10)
        assert solved.all()
        x[:, 0, driven] = speeds
        assert_allclose(x[:, 0], q_dot, rtol=0, atol=1e-12)
    xi = np.stack([c.twists for c in configs])
    V_sum = link_twists(system, xi, q_dot[:, None])[:, 0]
    assert_allclose(V_sum, V, rtol=0, atol=1e-12)
    for link in system.link_index:
        if not system.links[system.link_index[link]].virtual:
            assert_allclose(V_sum[:, system.link_index[link]], result.link_velocity(link), rtol=0, atol=1e-12)
    p = system.topology.tree_pair[system.topology.tree_order[0]]
    extra = np.zeros((len(q), 1, system.n, 6))
    extra[:, 0, system.topology.start[p]] = (0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    moved = link_twists(system, xi, q_dot[:, None], extra)[:, 0] - V_sum
    child = system.topology.tree_order[0]
    assert_allclose(moved[:, child, :3], np.tile([0.0, 0.0, system.topology.forward[child]], (len(q), 1)),
                    rtol=0, atol=1e-15)


@pytest.mark.parametrize("case", PATHS.values(), ids=PATHS.keys())
def test_difference_errors_are_truncation_not_bias(case):
    """Velocity-difference errors shrink ~100x per 10x smaller h: truncation O(h^2), no bias."""
    # Plain central differences at h = 1e-2 and 1e-3 s: wherever the coarse error is well above the noise floor (1e-7),
    # it shrinks by about 100 (h^2: between 40 and 250) at the finer step, so the velocities agree with the positions to
    # O(h^2) and carry no bias.
    build, drivers, t0 = case
    errors = {}
    for h in (1e-2, 1e-3):
        res = sweep_along_time(build(), drivers, t0, h, offsets=(-1, 0, 1))
        errors[h] = {name: np.abs(res.q_dot(name)[1] - central_difference(res.q(name), h)).max()
                     for name in scalar_variables(res)}
        for point in res.point_names:
            errors[h][point] = np.abs(res.point_velocity(point)[1] - central_difference(res.point(point), h)).max()
        for pair in spherical_pairs(res):
            coarse = angular_rate_difference(relative_rotations(res, pair), h, richardson=False)
            errors[h][pair.name] = np.abs(res.q_dot(pair.name)[1] - coarse).max()
    checked = [name for name, e in errors[1e-2].items() if e > 1e-7]
    assert len(checked) >= 4
    for name in checked:
        ratio = errors[1e-2][name] / errors[1e-3][name]
        assert 40.0 < ratio < 250.0, (name, errors[1e-2][name], errors[1e-3][name])


def test_rank_and_conditioning_of_the_driven_linearization():
    """Driving a Cardan input: B_free full rank, well conditioned, output speed = Hooke ratio cos(bend)."""
    # Reference: the Hooke ratio of closed_forms.hooke_joint. Driving the Cardan coupling's input shaft, B_free (the
    # other three variables) has full rank 3 and its square block conditioning O(1) at the design pose, and the
    # velocity solve (the walk's tangent dq/d(input)) gives the output shaft the Hooke ratio cos(bend) of that phase
    # (input pin normal to the shafts' plane); OUT is declared output -> ground, so it reads minus that.
    system = compile_model(cardan_coupling(bend=0.5).snapshot())
    config = evaluate(system, system.reference_q())
    driven = system.driver_columns(["IN"])
    free = np.setdiff1d(np.arange(system.n), driven)
    assert rank(constraint_matrix(system, config, scaled=True)[:, free]) == 3
    walk = Walk(system, driven)
    assert walk.conditioning > 0.5
    q_dot = walk.G @ np.array([1.0])
    ratio = cf.hooke_joint(0.0, 0.5, 1.0, input_pin_in_plane=False)[3]
    # One small linear solve: round-off.
    assert_allclose(q_dot[system.variable_index["OUT"]], -ratio, rtol=1e-12, atol=1e-12)
    assert_allclose(constraint_matrix(system, config, gauges=False) @ q_dot, 0.0, rtol=0.0, atol=1e-14)


def test_conditioning_vanishes_where_the_driver_turns():
    """Conditioning tends to zero where the driver turns (B_free loses rank), and the walk refuses to start there."""
    # Reference: the Cardan cross's angle U.0 is at its extreme at the design pose (cardan_coupling). Driving it there,
    # B_free loses rank (2 < 3): the square block is refused and a walk does not start (conditioning 0, below the
    # sweep's dead-point threshold 1e-3). At input angles 1e-2, 1e-3, 1e-4 rad from there the conditioning of the block
    # driven by U.0 falls in proportion (about 0.13 x the angle: a factor 5-20 per decade) and is below 1e-3 at 1e-3.
    system = compile_model(cardan_coupling().snapshot())
    config = evaluate(system, system.reference_q())
    driven = system.driver_columns(["U.0"])
    B = constraint_matrix(system, config, scaled=True)
    assert rank(B[:, np.setdiff1d(np.arange(system.n), driven)]) == 2
    assert square_block(system, B, driven) is None
    with pytest.raises(WalkStopped) as stopped:
        Walk(system, driven)
    assert stopped.value.kind == "start" and stopped.value.conditioning < DEAD_POINT_CONDITIONING
    input_walk = Walk(system, system.driver_columns(["IN"]))
    conditioning = []
    for angle in (1e-2, 1e-3, 1e-4):
        input_walk.to([angle])
        conditioning.append(Walk(system, driven, input_walk.q, input_walk.here.rotations).conditioning)
    assert conditioning[1] < DEAD_POINT_CONDITIONING
    for coarse, fine in zip(conditioning, conditioning[1:]):
        assert 5.0 < coarse / fine < 20.0, conditioning
