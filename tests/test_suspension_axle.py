"""Axles (loops.suspension.axle): mirroring a corner, two corner files, shared rack and
anti-roll bar, and the checks that keep them sound.

References: symmetry. A corner and its mirror image about the centre plane move as mirror
images, so every per-wheel metric is the same on both sides (the steer angle, positive to
the left by ISO 8855, changes sign), and the axle's roll centre lies on the centre plane in
parallel travel and, at zero travel, in opposite travel. The mirror is computed by the code
under test; the right corner file below is written by hand from the left one's numbers.
Tolerance: the two sides are computed by the same arithmetic on mirrored numbers, 1e-12
(closure 1e-10 of a 1.6 m axle would allow 1e-10; measured: equal to the last bit).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from loops.suspension import (Corner, Suspension, axle_from_corners, load_suspension, mirror_corner,
                              opposite_travel, parallel_travel)
from mechanism import ModelError, load_model

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
FRONT = EXAMPLES / "front_axle.toml"
SYMMETRY = 1e-12
TRAVEL = np.linspace(-0.08, 0.08, 9)


@pytest.fixture(scope="module")
def front():
    return load_suspension(FRONT)


@pytest.fixture(scope="module")
def bump(front):
    return parallel_travel(front, TRAVEL)


def per_wheel(result):
    return [name[:-len("_left")] for name in result.metrics if name.endswith("_left")]


def test_mirrored_axle_has_both_corners_and_one_rack(front):
    model = front.mechanism.snapshot()
    links = {link.name for link in model.links}
    assert {"upright_left", "upright_right", "rack", "wheel_left", "wheel_right"} <= links
    assert "rack_right" not in links and "rack_left" not in links
    assert front.steering == ["rack_travel"]
    # freedoms: two wheel travels, two wheel spins, one rack (the corner has 3)
    assert front.mechanism.check().dof == 5
    assert load_model(FRONT).check().dof == 3


def test_mirrored_axle_gives_the_same_metrics_left_and_right(bump):
    names = per_wheel(bump)
    assert len(names) >= 30
    for name in names:
        sign = -1.0 if name == "steer_angle" else 1.0
        assert_allclose(bump.metric(f"{name}_right"), sign * bump.metric(f"{name}_left"), rtol=SYMMETRY,
                        atol=SYMMETRY, err_msg=name)


def test_roll_centre_on_the_centre_plane(front, bump):
    assert_allclose(bump.metric("roll_centre_lateral"), 0.0, atol=SYMMETRY)
    assert_allclose(bump.metric("roll_centre_height"), bump.metric("roll_centre_height_left"), atol=SYMMETRY)
    opposite = opposite_travel(front, [-0.03, 0.0, 0.03])
    assert abs(opposite.metric("roll_centre_lateral")[1]) < SYMMETRY
    # in opposite travel the roll centre migrates, symmetrically
    lateral = opposite.metric("roll_centre_lateral")
    assert lateral[0] == pytest.approx(-lateral[2], abs=SYMMETRY) and abs(lateral[0]) > 0.05


def test_a_corner_is_mirrored_on_demand():
    corner = load_suspension(EXAMPLES / "double_wishbone_steer.toml")
    assert not corner.is_axle and corner.axle().is_axle
    axle = parallel_travel(corner.axle(), TRAVEL)
    single = parallel_travel(corner, TRAVEL)
    for name, column in single.metrics.items():
        if name != "wheel_travel":
            assert_allclose(axle.metric(f"{name}_left"), column.values, rtol=SYMMETRY, atol=SYMMETRY,
                            err_msg=name)


def _right_file(tmp_path):
    """The right corner of the front axle written by hand: every y negated but the shared
    rack's slide, side = "right"."""
    text = FRONT.read_text().replace('side = "left"', 'side = "right"').replace("[axle]\nmirror = true\n", "")

    def negate_y(match):
        x, y, z = (float(v) for v in match.group(2).split(","))
        return f"{match.group(1)}[{x:g}, {-y:g}, {z:g}]"

    out, table = [], None
    for line in text.splitlines():
        if line.startswith("name = "):
            table = line
        shared = table is not None and table.startswith('name = "rack_travel"')
        if re.match(r"\s*(at|com|at_a|at_b) = \[", line) and not shared:
            line = re.sub(r"^(\s*(?:at|com|at_a|at_b) = )\[([^\]]*)\]", negate_y, line)
        out.append(line)
    path = tmp_path / "front_right.toml"
    path.write_text("\n".join(out) + "\n")
    shutil.copy(FRONT, tmp_path / "front_left.toml")
    left = (tmp_path / "front_left.toml").read_text().replace("[axle]\nmirror = true\n", "")
    (tmp_path / "front_left.toml").write_text(left)
    axle = tmp_path / "axle.toml"
    axle.write_text('name = "two files"\n[units]\nlength = "mm"\nangle = "deg"\n'
                    '[axle]\nleft = "front_left.toml"\nright = "front_right.toml"\n')
    return axle


def test_axle_from_two_corner_files_equals_the_mirrored_axle(tmp_path, bump):
    suspension = load_suspension(_right_file(tmp_path))
    assert suspension.is_axle and suspension.name == "two files"
    assert suspension.vehicle is not None and suspension.vehicle.wheelbase == pytest.approx(2.7)
    result = parallel_travel(suspension, TRAVEL)
    assert list(result.metrics) == list(bump.metrics)
    for name in result.metrics:
        assert_allclose(result.metric(name), bump.metric(name), rtol=SYMMETRY, atol=SYMMETRY, err_msg=name)


def _with_anti_roll_bar(axis=(0.0, 1.0, 0.0)):
    """The front corner with an anti-roll bar given as links and pairs: the bar's middle
    (shared, a bearing through the centre plane along ``axis``), its arm (the torsion: a
    revolute pair to the middle along the bar), a drop link to the lower arm."""
    m = load_model(FRONT)
    m.add_link("bar")
    m.add_link("bar_arm")
    m.add_link("drop_link")
    middle, axis = np.array([-0.2, 0.0, 0.25]), np.array(axis, dtype=float)
    m.add_pair("bar_bearing", "revolute", "ground", "bar", at=middle, axis=axis)
    m.add_pair("bar_torsion", "revolute", "bar", "bar_arm", at=middle + 0.3 * axis, axis=axis)
    m.add_pair("drop_top", "spherical", "bar_arm", "drop_link", at=(-0.05, 0.45, 0.25))
    m.add_pair("drop_bottom", "spherical", "drop_link", "lower_arm", at=(-0.05, 0.45, 0.113))
    m.add_pair_spring("bar_torsion", stiffness=800.0)
    return m, Corner(**{**_plain(), "shared": ("rack", "bar")})


def test_anti_roll_bar_shared_by_both_corners(bump):
    """Parallel travel leaves the bar untwisted (the two torsion pairs, mirror images, read
    opposite values: the arms turn alike); in opposite travel the right arm is where the
    left one is at the opposite travel, and the bar twists; the metrics do not change. The
    bar's middle spins idle about its bearing (a passive freedom), at rest."""
    m, corner = _with_anti_roll_bar()
    axle = Suspension.of_axle(mirror_corner(m, corner))
    names = {link.name for link in axle.model.links}
    assert "bar" in names and {"bar_arm_left", "bar_arm_right"} <= names
    assert [s.variable for s in axle.model.pair_springs] == ["bar_torsion_left", "bar_torsion_right"]
    parallel = parallel_travel(axle, TRAVEL)
    left, right = parallel.q("bar_torsion_left"), parallel.q("bar_torsion_right")
    assert np.abs(left).max() > 0.05
    assert_allclose(right, -left, atol=1e-9)
    assert_allclose(parallel.metric("camber_left"), bump.metric("camber_left"), atol=1e-9)
    assert_allclose(parallel.q("bar_bearing"), 0.0, atol=1e-12)
    opposite = opposite_travel(axle, TRAVEL)
    assert_allclose(opposite.q("bar_torsion_left"), left, atol=1e-9)
    assert_allclose(opposite.q("bar_torsion_right"), -left[::-1], atol=1e-9)


# ------------------------------------------------------------------ mistakes
def test_a_shared_pair_must_be_its_own_mirror_image():
    """A bar bearing skewed across the car: its mirror image is another line."""
    m, corner = _with_anti_roll_bar(axis=(0.2, 1.0, 0.0))
    with pytest.raises(ModelError) as info:
        mirror_corner(m, corner)
    assert info.value.where == "corner.shared"
    assert "'bar_bearing'" in str(info.value) and "mirror image" in str(info.value)


def test_a_shared_link_must_not_carry_the_wheel():
    m = load_model(FRONT)
    bad = Corner(**{**_plain(), "shared": ("upright",)})
    with pytest.raises(ModelError, match="carries the wheel") as info:
        Suspension.of_corner(m, bad)
    assert info.value.where == "corner.shared"


def _plain():
    """The front corner's fields with its own (unsuffixed) names."""
    return dict(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                kingpin=("lower_ball", "upper_ball"), wheel_radius=0.3, side="left", spring="coil",
                steering="rack_travel", shared=("rack",), travel="travel")


@pytest.mark.parametrize("change, where, text", [
    ({"side": "right"}, "corner.side", "the left corner of an axle says side = 'right'"),
    ({"centre_plane_y": 0.01}, "corner.centre_plane_y", "disagree about the centre plane"),
    ({"shared": ()}, "corner.shared", "share different links"),
])
def test_two_corners_must_agree(change, where, text):
    m = load_model(FRONT)
    left = Corner(**{**_plain(), **change})
    right = Corner(**{**_plain(), "side": "right"})
    with pytest.raises(ModelError) as info:
        axle_from_corners((m, left), (m, right))
    assert info.value.where == where and text in str(info.value)


def test_two_corners_must_share_the_same_pairs():
    m_right = load_model(FRONT)
    m_right.add_pair("rack_guide", "prismatic", "ground", "rack", at=(-0.13, 0.0, 0.18), axis=(0, 1, 0))
    left, right = Corner(**_plain()), Corner(**{**_plain(), "side": "right"})
    with pytest.raises(ModelError, match="shared pairs differ") as info:
        axle_from_corners((load_model(FRONT), left), (m_right, right))
    assert info.value.where == "corner.shared"


def test_an_axle_built_by_hand_is_checked():
    m = load_model(FRONT)
    left = Corner(**_plain())
    with pytest.raises(ModelError, match="'left' and/or 'right'") as info:
        Suspension(m, {"front": left})
    assert info.value.where == "corners"
    with pytest.raises(ModelError, match="listed as right but says side = 'left'") as info:
        Suspension(m, {"right": left})
    assert info.value.where == "corner.side"
    # both corners given: no travel driver is added, each needs its own
    no_driver = Corner(**{**_plain(), "side": "right", "travel": None, "wheel_centre": "hub_inner",
                          "spin_axis_point": "wheel_centre"})
    with pytest.raises(ModelError, match="the right corner has no wheel-travel driver") as info:
        Suspension(m, {"left": left, "right": no_driver})
    assert info.value.where == "corner.travel"


def test_two_corners_must_share_the_same_rack(tmp_path):
    text = FRONT.read_text()
    moved = text.replace("at = [-130, 320, 180]\naxis = [0, 1, 0]", "at = [-130, 320, 185]\naxis = [0, 1, 0]")
    assert moved != text
    path = tmp_path / "moved.toml"
    path.write_text(moved)
    left, right = Corner(**_plain()), Corner(**{**_plain(), "side": "right"})
    with pytest.raises(ModelError, match="shared pair 'rack_travel' differs") as info:
        axle_from_corners((load_model(FRONT), left), (load_model(path), right))
    assert info.value.where == "corner.shared"


@pytest.mark.parametrize("kind, at, axis, problem", [
    ("spherical", (-0.2, 0.1, 0.25), None, "its centre is not on the centre plane"),
    ("prismatic", (-0.2, 0.0, 0.25), (1.0, 1.0, 0.0), "its slide is not parallel to its mirror image"),
    ("helical", (-0.2, 0.0, 0.25), (0.0, 1.0, 0.0), "a helical pair changes hand in a mirror"),
])
def test_shared_pairs_that_cannot_serve_both_corners(kind, at, axis, problem):
    m = load_model(FRONT)
    m.add_link("stub")
    m.add_pair("stub_mount", kind, "ground", "stub", at=at, axis=axis, pitch=0.01 if kind == "helical" else None)
    with pytest.raises(ModelError, match=problem) as info:
        mirror_corner(m, Corner(**{**_plain(), "shared": ("rack", "stub")}))
    assert info.value.where == "corner.shared"


def test_link_local_pairs_are_not_mirrored():
    m = load_model(FRONT)
    m.add_link("flap")
    m.add_pair("flap_hinge", "revolute", "upright", "flap", frame_on_first=np.eye(4), frame_on_second=np.eye(4))
    with pytest.raises(ModelError, match="link-local frames cannot be mirrored") as info:
        mirror_corner(m, Corner(**_plain()))
    assert info.value.where == "corner"
