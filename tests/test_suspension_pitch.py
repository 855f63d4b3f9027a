"""Body pitch of a two-axle vehicle (loops.suspension.body_motion.pitch; the registry's
``pitch``): the README's front axle and the shipped five-link rear corner, 2700 mm apart.

References, each computed by hand from the sweeps' points (no velocity solution):
* the road under the pitched body: the line through the two contact patches (each from its
  wheel centre and spin-axis point: ``P = C + R d``, ``d`` the wheel plane's steepest
  descent) has the pitch angle's slope in the body frame, and stays the static pitch
  centre's height from it; to first order the pitch angle is the difference of the two
  wheel-centre travels over the wheelbase;
* the anti-geometry at the design position in closed form from the side-view swing arm:
  anti-dive = brake share x wheelbase / cg height x tan of the swing arm's angle, the path
  slope of the reaction point (the upright's point at the contact patch) by central
  differences of its positions; anti-squat likewise from the wheel centre's path.
Tolerances: positions are closed to 1e-10 of the size (about 1 m): 1e-9 m and rad for the
geometry; central differences at h = 1e-5 m are off by h^2 x curvature ~ 1e-10 relative and
by round-off 1e-13 / h ~ 1e-8: 1e-6 relative.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from command_line import run_kinematrix
from loops.study.sensitivity import sensitivities
from loops.study.study import Plan
from loops.suspension import load_suspension, parallel_travel
from loops.suspension.analyses import ANALYSES
from loops.suspension.body_motion import static_pitch_centre
from mechanism import ModelError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
WHEELBASE, CG_HEIGHT = 2.7, 0.55
ANGLES = np.radians([-2.0, -1.0, 0.0, 1.0, 2.0])


@pytest.fixture(scope="module")
def front():
    return load_suspension(EXAMPLES / "front_axle.toml")


@pytest.fixture(scope="module")
def rear():
    return load_suspension(EXAMPLES / "five_link_rear.toml")


@pytest.fixture(scope="module")
def pitched(front, rear):
    return ANALYSES["pitch"].run(front, pitch_angle=ANGLES, rear=rear, tolerance=1e-13)


def patch_by_hand(record, side, radius, angles=None):
    """Contact patches (N, 3) of ``side`` ("" for a corner) from the record's points: the wheel's
    lowest point with respect to the road, whose up in the body frame pitched nose down by
    ``angles`` is ``(-sin, 0, cos)``."""
    suffix = f"_{side}" if side else ""
    centre, inner = record.point(f"wheel_centre{suffix}"), record.point(f"hub_inner{suffix}")
    angles = np.zeros(len(centre)) if angles is None else angles
    up = np.column_stack([-np.sin(angles), np.zeros(len(centre)), np.cos(angles)])
    spin = (centre - inner) / np.linalg.norm(centre - inner, axis=1, keepdims=True)
    down = -(up - np.sum(spin * up, axis=1, keepdims=True) * spin)
    return centre + radius * down / np.linalg.norm(down, axis=1, keepdims=True)


def upright_point(record, link, at):
    """A point of ``link`` (global ``at`` at the design pose, where link frames are global) at
    every position of ``record`` (N, 3)."""
    pose = record.pose(link)
    return np.einsum("nij,j->ni", pose[:, :3, :3], np.asarray(at, dtype=float)) + pose[:, :3, 3]


def test_the_road_under_the_pitched_body(front, rear, pitched):
    """Both contact patches on one road line tilted by the pitch angle, at the pitch centre's
    height from it; and the pitch angle from the two travels and the wheelbase to first order
    (its second-order part, the patches' own fore-and-aft motion and camber, within 2 %)."""
    travel_f, travel_r = pitched.metric("wheel_travel_front"), pitched.metric("wheel_travel_rear")
    p_f = patch_by_hand(pitched, "left", 0.300, ANGLES)
    p_r = patch_by_hand(parallel_travel(rear, travel_r, tolerance=1e-13), "", 0.320, ANGLES)
    p_r[:, 0] -= WHEELBASE
    slope = np.arctan2(p_f[:, 2] - p_r[:, 2], p_f[:, 0] - p_r[:, 0])
    np.testing.assert_allclose(slope, ANGLES, rtol=0, atol=1e-9)
    centre, offset = static_pitch_centre(front, rear, 1e-13)
    assert offset.tolist() == [-WHEELBASE, 0.0, 0.0] and -WHEELBASE < centre[0] < 0.0 < centre[2] < CG_HEIGHT
    line = (p_f - p_r)[:, [0, 2]] / np.linalg.norm((p_f - p_r)[:, [0, 2]], axis=1, keepdims=True)
    reach = (centre - p_r)[:, [0, 2]]
    distance = reach[:, 1] * line[:, 0] - reach[:, 0] * line[:, 1]
    np.testing.assert_allclose(distance, centre[2] - p_f[2, 2], rtol=0, atol=1e-9)
    moved = ANGLES != 0
    first_order = (travel_f - travel_r) / WHEELBASE
    np.testing.assert_allclose(first_order[moved], ANGLES[moved], rtol=2e-2)


def test_the_anti_geometry_along_the_pitch_in_closed_form(front, rear, pitched):
    """At the design position, the anti-geometry in closed form: wheelbase over cg height times
    the tangent of the side-view swing arm's angle (the path slope, forward per upward, of the
    reaction point: the upright's point at the design contact patch for the front's outboard
    brakes, by central differences of its positions) times the share: 65 % of the braking on
    the front, all of the drive on the rear (whose path is its wheel centre's, the slope taken
    rearward)."""
    h = 1e-5
    design = int(np.flatnonzero(ANGLES == 0.0)[0])
    bump = parallel_travel(front, [-h, 0.0, h], tolerance=1e-13)
    at_patch = upright_point(bump, "upright_left", patch_by_hand(bump, "left", 0.300)[1])
    swing_arm = (at_patch[2, 0] - at_patch[0, 0]) / (at_patch[2, 2] - at_patch[0, 2])
    anti_dive = 0.65 * WHEELBASE / CG_HEIGHT * 100.0 * swing_arm
    assert pitched.metric("anti_dive_front")[design] == pytest.approx(anti_dive, rel=1e-6)
    path = parallel_travel(rear, [-h, 0.0, h], tolerance=1e-13).point("wheel_centre")
    slope = (path[2, 0] - path[0, 0]) / (path[2, 2] - path[0, 2])
    anti_squat = 1.0 * WHEELBASE / CG_HEIGHT * 100.0 * -slope
    assert pitched.metric("anti_squat_rear")[design] == pytest.approx(anti_squat, rel=1e-6)
    assert list(pitched.metrics) == ["pitch_angle", "wheel_travel_front", "anti_dive_front", "anti_lift_front",
                                     "wheel_travel_rear", "anti_lift_rear", "anti_squat_rear"]


def test_the_registry_says_what_pitch_does_not_support(front):
    with pytest.raises(ModelError, match="expected one of") as info:
        sensitivities(front, ["lower_ball_left.z"], analysis="pitch")
    assert info.value.where == "analysis"
    with pytest.raises(ModelError, match="a study runs one of") as info:
        Plan("pitch").check()
    assert info.value.where == "analysis"


def test_pitch_from_the_command_line(tmp_path):
    """``kinematrix suspension FRONT --analysis pitch --pitch ... --rear REAR``: the CSV in the
    file's units and the sheet; without --rear one line and status 2."""
    done = run_kinematrix("suspension", EXAMPLES / "front_axle.toml", "--analysis", "pitch", "--pitch", "-1:1:0.5",
                          "--rear", EXAMPLES / "five_link_rear.toml", "--out", "pitch.csv", "--plot", "pitch.png",
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "pitch.csv").read_text().splitlines()
    assert "; columns: pitch_angle=deg; wheel_travel_front=mm; anti_dive_front=%" in lines[0]
    assert lines[1].startswith("pitch_angle,wheel_travel_front,") and len(lines) == 2 + 5
    assert (tmp_path / "pitch.png").read_bytes()[:4] == b"\x89PNG"
    missing = run_kinematrix("suspension", EXAMPLES / "front_axle.toml", "--analysis", "pitch", "--pitch", "1",
                             cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip() == "kinematrix: error: --rear: required by --analysis pitch"
