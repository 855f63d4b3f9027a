"""Double-wishbone corner driven by wheel travel (point driver) against an independent solve.

Reference: the corner written as hardpoint constraints, nothing from kinematrix but the
file's numbers. Unknowns: lower-arm angle a and upper-arm angle b about their inner axes,
and the upright's rigid motion (rotation vector r, translation t) since the design pose.
Equations (8): the upright's lower ball is where the lower arm carries it (3), the same
for the upper ball (3), the steering ball stays at tie-rod length from the rack end (1),
and the wheel centre is ``travel`` above its design height (1). Solved with
``scipy.optimize.least_squares`` to round-off; rotations by ``scipy.spatial.transform``.
"""

import pathlib

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import least_squares
from scipy.spatial.transform import Rotation

from mechanism import load_model

MODEL = pathlib.Path(__file__).resolve().parent.parent / "examples" / "double_wishbone.toml"
MM = 1e-3
LOWER_AXIS = (np.array([0, 300, 120]) * MM, np.array([1.0, 0, 0]))
UPPER_AXIS = (np.array([-10, 400, 420]) * MM, np.array([1.0, 0, 0]))
LOWER_BALL = np.array([0, 720, 100]) * MM
UPPER_BALL = np.array([-10, 680, 440]) * MM
RACK_END = np.array([-130, 320, 180]) * MM
STEER_BALL = np.array([-140, 700, 170]) * MM
WHEEL_CENTRE = np.array([0, 780, 300]) * MM
TIE_ROD = np.linalg.norm(STEER_BALL - RACK_END)
TRAVELS = np.linspace(-0.08, 0.08, 17)


def _about_axis(point, axis, angle, x):
    """``x`` turned by ``angle`` about the line through ``point`` along ``axis``."""
    return Rotation.from_rotvec(axis * angle).apply(x - point) + point


def _equations(unknowns, travel):
    a, b, r, t = unknowns[0], unknowns[1], unknowns[2:5], unknowns[5:8]
    upright = Rotation.from_rotvec(r)

    def moved(x):
        return upright.apply(x) + t

    return np.concatenate([
        moved(LOWER_BALL) - _about_axis(*LOWER_AXIS, a, LOWER_BALL),
        moved(UPPER_BALL) - _about_axis(*UPPER_AXIS, b, UPPER_BALL),
        [np.linalg.norm(moved(STEER_BALL) - RACK_END) - TIE_ROD],
        [moved(WHEEL_CENTRE)[2] - WHEEL_CENTRE[2] - travel],
    ])


def _reference_poses():
    """Upright rigid motions (4x4) and lower-arm angles along TRAVELS, walking from 0."""
    order = np.argsort(np.abs(TRAVELS), kind="stable")
    guess, poses, angles = np.zeros(8), {}, {}
    for i in order:
        solution = least_squares(_equations, guess, args=(TRAVELS[i],), xtol=1e-15, ftol=1e-15, gtol=1e-15)
        assert np.abs(solution.fun).max() < 1e-14
        guess = solution.x
        T = np.eye(4)
        T[:3, :3] = Rotation.from_rotvec(solution.x[2:5]).as_matrix()
        T[:3, 3] = solution.x[5:8]
        poses[i], angles[i] = T, solution.x[0]
    return np.array([poses[i] for i in range(len(TRAVELS))]), np.array([angles[i] for i in range(len(TRAVELS))])


@pytest.fixture(scope="module")
def reference():
    return _reference_poses()


def test_upright_pose_and_wheel_path_match_the_hardpoint_solve(reference):
    """Upright rigid motion and lower-arm angle at 17 travels from -80 to +80 mm, to 1e-9
    (closure tolerance 1e-10 of the 0.7 m model size, amplified at most a few times)."""
    poses, angles = reference
    result = load_model(MODEL).sweep({"travel": TRAVELS})
    assert_allclose(result.pose("upright"), poses, rtol=0, atol=1e-9)
    assert_allclose(result.q("lower_inner"), angles, rtol=0, atol=1e-9)
    assert_allclose(result.q("travel"), TRAVELS, rtol=0, atol=1e-15)
    assert_allclose(result.point("wheel_centre")[:, 2] - WHEEL_CENTRE[2], TRAVELS, rtol=0, atol=1e-12)


def test_wheel_centre_velocity_matches_differences_of_the_reference():
    """Wheel-centre velocity per unit travel speed against central differences of the
    independent solve (h = 1e-4 m: truncation ~h^2 * 1e2 / 6 ~ 2e-7 relative)."""
    h = 1e-4
    base = np.array([-0.05, 0.0, 0.06])
    result = load_model(MODEL).sweep({"travel": base}, speeds={"travel": 1.0})
    guess = np.zeros(8)
    for k, travel in enumerate(base):
        ends = []
        for x in (travel - h, travel + h):
            guess = least_squares(_equations, guess, args=(x,), xtol=1e-15, ftol=1e-15, gtol=1e-15).x
            upright = Rotation.from_rotvec(guess[2:5])
            ends.append(upright.apply(WHEEL_CENTRE) + guess[5:8])
        expected = (ends[1] - ends[0]) / (2 * h)
        assert_allclose(result.point_velocity("wheel_centre")[k], expected, rtol=0, atol=1e-6)
        assert abs(result.point_velocity("wheel_centre")[k][2] - 1.0) < 1e-12
