"""Tests of loops.acceleration: the closure differentiated twice, solved for q''.

Along paths on which each driver moves as a parabola in time (so that the drivers have
accelerations), every second rate a sweep reports is checked against differences of the
*analytic* rates the same sweep reports (STYLE.md section 3: a second difference of
positions would lose half the digits): pair variables (spherical pairs: relative angular
acceleration in global axes, the rate of their q_dot), link spatial accelerations and
point accelerations. Mechanisms as in test_velocity.py: every pair type with two drivers,
a point driver's road loop onto a link between a spherical and a Hooke pair, and the
double wishbone with wheel travel and a spinning wheel.

Tolerances. Richardson's extrapolation at h = 1e-3 s: truncation O(h^4); the rates are
exact functions of positions closed to 1e-10 of the size, so their differences carry
~1e-10 x |dq'/dq| / h ~ 1e-7 x speed of noise. FD_TOL = 1e-6, relative and absolute
(rad/s^2, m/s^2 for accelerations of order 0.01-20), leaves a margin of 10 and is far
below the O(acceleration) size of any formula error.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import (
    central_difference,
    double_wishbone,
    richardson_derivative,
    spatial_all_pairs,
    spatial_point_driven,
    sweep_along_time,
)

H = 1e-3
FD_TOL = 1e-6

PATHS = {
    "every pair type": (spatial_all_pairs, {"A": (0.4, 1.5, -0.7), "P": (0.02, 0.05, 0.1)}, 0.1),
    "point-driven (road loop), S and U": (spatial_point_driven, {"lift": (-0.005, 0.01, -0.02),
                                                                "P": (0.01, -0.02, 0.05)}, 0.2),
    "double wishbone, travel and wheel spin": (double_wishbone, {"travel": (0.01, 0.5, -3.0),
                                                                 "hub": (0.3, 10.0, 5.0)}, 0.01),
}


@pytest.mark.parametrize("case", PATHS.values(), ids=PATHS.keys())
def test_pair_accelerations_are_time_derivatives_of_pair_rates(case):
    """q'' of every variable equals time differences of the analytic q'; drivers get their accelerations."""
    # q'' of every variable (spherical components included: the relative angular velocity is in fixed axes, so its rate
    # is its derivative) equals the difference of the analytic q'; the drivers' q'' are the accelerations given.
    build, drivers, t0 = case
    res = sweep_along_time(build(), drivers, t0, H)
    for name in res.variable_names:
        expected = richardson_derivative(res.q_dot(name), H)
        assert_allclose(res.q_ddot(name)[2], expected, rtol=FD_TOL, atol=FD_TOL, err_msg=name)
    for name, (_, _, a) in drivers.items():
        assert np.all(res.q_ddot(name) == a)


@pytest.mark.parametrize("case", PATHS.values(), ids=PATHS.keys())
def test_link_and_point_accelerations_are_time_derivatives_of_their_velocities(case):
    """Link and point accelerations are the time differences of their analytic velocities."""
    # Each real link's spatial acceleration is the rate of its spatial velocity (both origin-referenced, global), and
    # each point's acceleration the rate of its velocity.
    build, drivers, t0 = case
    m = build()
    res = sweep_along_time(m, drivers, t0, H)
    for link in m.links:
        expected = richardson_derivative(res.link_velocity(link), H)
        assert_allclose(res.link_acceleration(link)[2], expected, rtol=FD_TOL, atol=FD_TOL, err_msg=link)
    for point in res.point_names:
        expected = richardson_derivative(res.point_velocity(point), H)
        assert_allclose(res.point_acceleration(point)[2], expected, rtol=FD_TOL, atol=FD_TOL, err_msg=point)


def test_point_driver_accelerates_its_point_at_the_driver_acceleration():
    """A point driver's point accelerates along its direction at exactly the driver acceleration."""
    # Along the driver's direction the driven point's acceleration is the driver's (the road loop's first slide),
    # whatever the wheel's spin and the travel speed.
    res = double_wishbone().sweep({"travel": np.linspace(-0.06, 0.06, 7), "hub": 0.0},
                                  speeds={"travel": 0.8, "hub": 15.0},
                                  accelerations={"travel": np.linspace(-5.0, 5.0, 7)})
    # Linear solves with O(1) conditioning on O(1-100) right-hand sides: round-off.
    assert_allclose(res.point_acceleration("wheel_centre")[:, 2], np.linspace(-5.0, 5.0, 7), rtol=1e-10, atol=1e-10)


def test_accelerations_from_rest_follow_the_velocity_map():
    """From rest, q'' for driver accelerations a equals q' for driver speeds a (same linear map)."""
    # With zero speeds the quadratic terms vanish, so q'' for driver accelerations a equals q' for driver speeds a (the
    # same linear map, eq. 4), and the velocities stay zero.
    m = spatial_all_pairs()
    drivers = {"A": np.linspace(0.0, 1.0, 5), "P": np.linspace(0.0, 0.04, 5)}
    from_rest = m.sweep(drivers, accelerations={"A": -2.0, "P": 0.3})
    moving = m.sweep(drivers, speeds={"A": -2.0, "P": 0.3})
    for name in moving.variable_names:
        assert np.all(from_rest.q_dot(name) == 0.0)
        assert_allclose(from_rest.q_ddot(name), moving.q_dot(name), rtol=1e-12, atol=1e-12, err_msg=name)
    assert_allclose(from_rest.point_acceleration("T"), moving.point_velocity("T"), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", PATHS.values(), ids=PATHS.keys())
def test_difference_errors_are_truncation_not_bias(case):
    """Velocity-difference errors shrink ~100x per 10x smaller h: truncation O(h^2), no bias."""
    # Plain central differences of the analytic rates at h = 1e-2 and 1e-3 s: wherever the coarse error is well above
    # the noise floor (1e-7), it shrinks by about 100 (h^2: between 40 and 250) at the finer step: the accelerations
    # agree with the velocities to O(h^2).
    build, drivers, t0 = case
    errors = {}
    for h in (1e-2, 1e-3):
        res = sweep_along_time(build(), drivers, t0, h, offsets=(-1, 0, 1))
        errors[h] = {name: np.abs(res.q_ddot(name)[1] - central_difference(res.q_dot(name), h)).max()
                     for name in res.variable_names}
        for point in res.point_names:
            errors[h][point] = np.abs(res.point_acceleration(point)[1]
                                      - central_difference(res.point_velocity(point), h)).max()
    checked = [name for name, e in errors[1e-2].items() if e > 1e-7]
    assert len(checked) >= 4
    for name in checked:
        ratio = errors[1e-2][name] / errors[1e-3][name]
        assert 40.0 < ratio < 250.0, (name, errors[1e-2][name], errors[1e-3][name])
