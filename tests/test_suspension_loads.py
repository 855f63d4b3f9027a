"""Load cases and hardpoint loads (loops.suspension.load_case) against independent references.

References: a free-body solve of the double-wishbone corner written here with numpy from its
hardpoints (each link's equilibrium by hand: two arms on their pivot axes, the tie rod a
two-force member, upright and wheel one body under the patch load and the travel driver's
vertical force); every link's Newton-Euler balance summed here from the reported forces;
virtual work (the travel driver's force times a virtual travel against the patch load's work,
from central differences of the kinematic sweep); the tie rod's end forces along it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from loops.suspension import Suspension, load_suspension, parallel_travel
from loops.suspension import load_case
from loops.suspension.load_cases import STANDARD_CASES, LoadCase, parse_case
from loops.suspension.vehicle import STANDARD_GRAVITY, Vehicle
from mechanism import load_model
from mechanism.errors import ModelError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TRAVEL = np.array([-0.06, -0.02, 0.0, 0.03, 0.07])
#: An own case with every component, in N and N m, at the contact patch.
OWN = LoadCase("own", longitudinal=-1800.0, lateral=-2600.0, vertical=4200.0, moment=(40.0, -25.0, 90.0), unit="N")


def weightless_corner():
    """The shipped double-wishbone corner without gravity (no spring: the driver holds all)."""
    path = EXAMPLES / "double_wishbone.toml"
    corner = load_suspension(path).corners["left"]
    m = load_model(path)
    m.set_gravity((0.0, 0.0, 0.0))
    return Suspension.of_corner(m, corner)


@pytest.fixture(scope="module")
def corner():
    return weightless_corner()


@pytest.fixture(scope="module")
def loaded(corner):
    return load_case(corner, OWN, TRAVEL)


def _at(result, link, design_point, index):
    """A hardpoint of ``link`` (global at the design pose) moved with the link to position ``index``."""
    design = int(np.argmin(np.abs(result.metric("wheel_travel"))))
    T0, T = result.pose(link)[design], result.pose(link)[index]
    return T[:3, :3] @ (T0[:3, :3].T @ (np.asarray(design_point) - T0[:3, 3])) + T[:3, 3]


def _patch(result, index):
    """The contact patch by hand: down the wheel plane from the wheel centre by the radius."""
    centre = _at(result, "upright", (0, 0.780, 0.300), index)
    inner = _at(result, "upright", (0, 0.700, 0.300), index)
    spin = (centre - inner) / np.linalg.norm(centre - inner)
    down = np.array([0.0, 0.0, -1.0]) - (-spin[2]) * spin
    return centre + 0.300 * down / np.linalg.norm(down)


def _free_body(result, index, force, moment):
    """(f_lower, f_upper, tension, driver): forces on the upright from the lower and upper arms
    (N, global), the tie rod's tension and the travel driver's vertical force, from the
    equilibrium of the upright and wheel (6), and of each arm about its pivot axis (2)."""
    lower, upper = _at(result, "upright", (0, 0.720, 0.100), index), _at(result, "upright", (-0.010, 0.680, 0.440),
                                                                          index)
    steer, centre = _at(result, "upright", (-0.140, 0.700, 0.170), index), _at(result, "upright", (0, 0.780, 0.300),
                                                                               index)
    rack_end = np.array([-0.130, 0.320, 0.180])
    along = (rack_end - steer) / np.linalg.norm(rack_end - steer)  # tension pulls the upright inward
    patch = _patch(result, index)
    A = np.zeros((8, 8))
    b = np.zeros(8)
    A[:3, 0:3] = np.eye(3)
    A[:3, 3:6] = np.eye(3)
    A[:3, 6] = along
    A[:3, 7] = (0.0, 0.0, 1.0)
    for column, point in ((0, lower), (3, upper)):
        for k in range(3):
            A[3:6, column + k] = np.cross(point, np.eye(3)[k])
    A[3:6, 6] = np.cross(steer, along)
    A[3:6, 7] = np.cross(centre, (0.0, 0.0, 1.0))
    b[:3] = -force
    b[3:6] = -(np.cross(patch, force) + moment)
    for row, column, pivot, axis in ((6, 0, (0, 0.300, 0.120), (1.0, 0.0, 0.0)),
                                     (7, 3, (-0.010, 0.400, 0.420), (1.0, 0.0, 0.0))):
        ball = lower if column == 0 else upper
        for k in range(3):  # the arm carries -f at the ball; no moment about its pivot axis
            A[row, column + k] = -np.cross(ball - np.array(pivot), np.eye(3)[k]) @ np.array(axis)
    x = np.linalg.solve(A, b)
    return x[0:3], x[3:6], x[6], x[7]


def test_reactions_agree_with_an_independent_free_body_solve(loaded):
    force, moment = loaded.applied["left"][1], loaded.applied["left"][2]
    assert loaded.held_by == "driver"
    for i in range(len(TRAVEL)):
        f_lower, f_upper, tension, driver = _free_body(loaded, i, force, moment)
        scale = np.linalg.norm(force)
        for pair, expected in (("lower_ball", -f_lower), ("lower_inner", -f_lower), ("upper_ball", -f_upper),
                               ("upper_inner", -f_upper)):
            got = np.array([loaded.metric(f"{pair}_f{a}")[i] for a in "xyz"])
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(loaded.metric("tie_rod_axial")[i], tension, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(loaded.metric("travel_force")[i], driver, rtol=0, atol=1e-9 * scale)


def test_pair_frame_components_are_the_global_force_turned(loaded):
    for pair in ("lower_inner", "upper_ball", "hub"):
        R = loaded.reactions.frame(pair)[:, :3, :3]
        world = np.stack([loaded.metric(f"{pair}_f{a}") for a in "xyz"], axis=1)
        local = np.stack([loaded.metric(f"{pair}_f{a}_pair") for a in "xyz"], axis=1)
        np.testing.assert_allclose(np.einsum("nij,nj->ni", R, local), world, atol=1e-9)


def test_two_force_member_carries_its_force_along_it(loaded):
    reactions = loaded.reactions
    inner, outer = reactions.frame("rack_end")[:, :3, 3], reactions.frame("steer_ball")[:, :3, 3]
    axis = (outer - inner) / np.linalg.norm(outer - inner, axis=1, keepdims=True)
    on_rod_outer = -reactions.force("steer_ball")  # tie_rod is the first link of steer_ball
    tension = loaded.metric("tie_rod_axial")
    np.testing.assert_allclose(on_rod_outer, tension[:, None] * axis, atol=1e-9 * np.abs(tension).max())
    np.testing.assert_allclose(reactions.force("rack_end"), -tension[:, None] * axis,
                               atol=1e-9 * np.abs(tension).max())  # on the rod at its inner end
    assert np.abs(tension).max() > 100.0


def test_travel_force_does_the_patch_loads_virtual_work(corner, loaded):
    """D ds + F . dP + M . dtheta = 0 for the wheel's material point at the patch (central
    differences of the kinematic sweep)."""
    h = 1e-6
    force, moment = loaded.applied["left"][1], loaded.applied["left"][2]
    for i, s in enumerate(TRAVEL):
        sweep = parallel_travel(corner, [s - h, s, s + h])
        T = sweep.pose("wheel")
        local = np.linalg.solve(T[1], np.r_[_patch(loaded, i), 1.0])
        dP = (T[2] @ local - T[0] @ local)[:3] / (2 * h)
        spin = (T[2][:3, :3] - T[0][:3, :3]) / (2 * h) @ T[1][:3, :3].T
        omega = np.array([spin[2, 1], spin[0, 2], spin[1, 0]])
        work = force @ dP + moment @ omega
        np.testing.assert_allclose(loaded.metric("travel_force")[i], -work, rtol=1e-6, atol=1e-6)


def test_every_link_balances_under_gravity_spring_and_load():
    """The front axle (gravity, coil-overs, the rack): each arm's and the tie rods' forces from
    their pairs, their weight and the coil-over sum to nothing, force and moment."""
    front = load_suspension(EXAMPLES / "front_axle.toml")
    result = load_case(front, "combined", TRAVEL)
    reactions, model = result.reactions, front.model
    g = np.asarray(model.gravity)
    coil = {s.link_a: s for s in model.spring_dampers}
    for link in ("lower_arm_left", "upper_arm_left", "tie_rod_left", "lower_arm_right", "tie_rod_right"):
        spec = next(l for l in model.links if l.name == link)
        pose = result.pose(link)
        total = np.zeros((len(result), 3))
        turning = np.zeros((len(result), 3))
        for pair in model.pairs:
            if pair.virtual or link not in (pair.first, pair.second):
                continue
            f = reactions.force(pair.name) * (1.0 if pair.second == link else -1.0)
            m = reactions.moment(pair.name) * (1.0 if pair.second == link else -1.0)
            at = reactions.frame(pair.name)[:, :3, 3]
            total += f
            turning += m + np.cross(at, f)
        com = np.einsum("nij,j->ni", pose[:, :3, :3], spec.com) + pose[:, :3, 3]
        total += spec.mass * g
        turning += np.cross(com, spec.mass * g)
        if link in coil:
            s = coil[link]
            name = f"{s.name}_force"
            low = result.point(f"coil_lower_{link.rsplit('_', 1)[1]}")
            top = result.point(f"coil_upper_{link.rsplit('_', 1)[1]}")
            push = result.metric(name)[:, None] * (low - top) / np.linalg.norm(low - top, axis=1, keepdims=True)
            total += push
            turning += np.cross(low, push)
        scale = 1e-9 * max(1.0, np.abs(result.metric("coil_left_force")).max())
        np.testing.assert_allclose(total, 0.0, atol=scale)
        np.testing.assert_allclose(turning, 0.0, atol=scale)


def test_standard_cases_in_g_of_the_corner_load():
    front = load_suspension(EXAMPLES / "front_axle.toml")
    W = 1500 * STANDARD_GRAVITY * 0.6 / 2
    assert front.vehicle.corner_load() == pytest.approx(W, rel=1e-15)
    result = load_case(front, "cornering", [0.0])
    np.testing.assert_allclose(result.applied["left"][1], [0.0, -W, W])
    # Both tyres pushed towards the centre of the turn (a right-hand one: the left wheel is the
    # outer), so outboard on the right wheel, the inner one.
    np.testing.assert_allclose(result.applied["right"][1], [0.0, -W, W])
    braking = load_case(front, "braking", [0.0])
    np.testing.assert_allclose(braking.applied["left"][1], [-W, 0.0, W])
    np.testing.assert_allclose(braking.applied["right"][1], [-W, 0.0, W])
    turning = load_case(front, LoadCase("own", lateral=-1.0, vertical=1.0, moment=(10.0, 20.0, 30.0)), [0.0])
    for side in ("left", "right"):  # the same force and moment in vehicle axes on both wheels
        np.testing.assert_allclose(turning.applied[side][1], [0.0, -W, W])
        np.testing.assert_allclose(turning.applied[side][2], [10.0, 20.0, 30.0])
    assert STANDARD_CASES["pothole"].at == "wheel-centre"
    inboard = dataclasses.replace(front.vehicle, brakes="inboard")
    from loops.suspension.load_cases import case_for
    assert case_for("braking", inboard).at == "wheel-centre" and case_for("braking", front.vehicle).at == "contact-patch"
    # The rear axle's share and the default half.
    assert Vehicle(axle="rear", mass=1000.0, front_weight=0.6).corner_load() == pytest.approx(
        1000 * STANDARD_GRAVITY * 0.4 / 2)
    assert Vehicle(mass=1000.0).corner_load() == pytest.approx(1000 * STANDARD_GRAVITY / 4)


def test_held_by_the_spring_settles_where_the_driver_holds_nothing():
    front = load_suspension(EXAMPLES / "front_axle.toml")
    settled = load_case(front, "braking", held_by="spring")
    assert settled.held_by == "spring" and len(settled) == 1
    assert abs(settled.metric("travel_force_left")[0]) < 1e-6
    driven = load_case(front, "braking", [0.0])
    assert driven.metric("travel_force_left")[0] > 900.0  # the coil-over's preload exceeds 1 g at the design height
    assert settled.metric("wheel_travel")[0] < -0.005  # so the wheel droops
    # 3 g: the coil-over (wheel rate about 32 N/mm) cannot carry it within the linkage's travel.
    with pytest.raises(ModelError, match="held by the spring: no wheel travel balances load case 'bump'"):
        load_case(front, "bump", held_by="spring")


def test_held_by_the_spring_at_every_fraction_of_the_case():
    """A continuation along the load: at each fraction the travel drivers hold nothing, and the
    same fraction written as its own case and held by the driver at the travel found needs no
    driver force either (an independent check of the search)."""
    front = load_suspension(EXAMPLES / "front_axle.toml")
    ramp = load_case(front, "braking", held_by="spring", scale=[0.25, 0.5, 0.75, 1.0])
    assert ramp.input_names[0] == "load_scale" and len(ramp) == 4
    np.testing.assert_allclose(ramp.metric("load_scale"), [0.25, 0.5, 0.75, 1.0])
    whole = load_case(front, "braking", held_by="spring")
    np.testing.assert_allclose(ramp.metric("wheel_travel")[-1], whole.metric("wheel_travel")[0], rtol=0, atol=1e-9)
    travel = ramp.metric("wheel_travel_left")
    assert np.all(np.diff(travel) > 0.0)  # the wheel rises as the road's load grows against the spring
    for i, fraction in enumerate(ramp.metric("load_scale")):
        for side in ("left", "right"):
            assert abs(ramp.metric(f"travel_force_{side}")[i]) < 1e-6
        part = LoadCase("part", longitudinal=-fraction, vertical=fraction)
        held = load_case(front, part, [travel[i]])
        assert abs(held.metric("travel_force_left")[0]) < 1e-5
    assert "held by the spring of 'front-axle' (the case times load_scale" in ramp.csv_note


def test_held_by_the_spring_in_a_turn_each_wheel_at_its_own_travel():
    front = load_suspension(EXAMPLES / "front_axle.toml")
    turn = load_case(front, "cornering", held_by="spring")
    for side in ("left", "right"):
        assert abs(turn.metric(f"travel_force_{side}")[0]) < 1e-6
    left, right = turn.metric("wheel_travel_left")[0], turn.metric("wheel_travel_right")[0]
    assert abs(left - right) > 1e-4  # the lateral force jacks the outer and inner wheels apart
    assert turn.metric("wheel_travel")[0] == pytest.approx(0.5 * (left + right), abs=1e-15)


def test_scale_mistakes_are_said(corner):
    with pytest.raises(ModelError, match="scale: held by the travel drivers the case is applied whole"):
        load_case(corner, OWN, [0.0], scale=[0.5])
    for bad in ("0.5", "0:1:0.5", [np.nan], [], [[0.5], "x"]):
        with pytest.raises(ModelError, match="scale"):
            load_case(corner, OWN, held_by="spring", scale=bad)


def test_csv_in_file_units_with_the_units_line(tmp_path):
    front = load_suspension(EXAMPLES / "front_axle.toml")
    out = tmp_path / "loads.csv"
    load_case(front, "cornering", [-0.02, 0.0]).to_csv(out)
    lines = out.read_text().splitlines()
    assert lines[0].startswith("# units: length=mm") and "force=N" in lines[0] and "wheel_travel=mm" in lines[0]
    assert "analysis: load case cornering (0, -1, 1 g forward, outboard, up; moment 0, 0, 0 N m; at the contact " \
           "patch) held by the driver of 'front-axle'" in lines[0]
    assert lines[1].startswith("wheel_travel,travel_force_left,travel_force_right,rack_travel_force,")
    assert lines[2].startswith("-20.0,")


@pytest.mark.parametrize("case, message", [
    ("cornerng", "expected one of static, braking"),
    ("vertical=x", "vertical: expected a number"),
    ("vertical=1, foo=2", "expected key=value"),
    ("vertical=1, vertical=2", "expected key=value"),
    ("vertical=1, at=hub", "expected one of contact-patch, wheel-centre"),
    ("vertical=1, unit=kg", "expected 'g' or 'N'"),
    (dict(vertical=1, sideways=2), "expected the fields of LoadCase"),
    (3, "expected a case name"),
])
def test_bad_cases_are_said_in_one_line(corner, case, message):
    with pytest.raises(ModelError) as error:
        load_case(corner, case, [0.0])
    assert message in str(error.value) and "\n" not in str(error.value)


def test_g_without_mass_and_held_by_mistakes_are_said(corner):
    with pytest.raises(ModelError, match="vehicle.mass"):
        load_case(corner, "bump", [0.0])
    with pytest.raises(ModelError, match="held_by"):
        load_case(corner, OWN, [0.0], held_by="hand")
    with pytest.raises(ModelError, match="give the wheel travels"):
        load_case(corner, OWN)
    with pytest.raises(ModelError, match="the load sets the wheel travel"):
        load_case(corner, OWN, [0.0], held_by="spring")
    with pytest.raises(ModelError, match="wheel centre"):
        load_case(corner, OWN, [0.0], travel_at="contact-patch")
    with pytest.raises(ModelError, match="vehicle.mass"):
        Vehicle(mass=-3.0)
    with pytest.raises(ModelError, match="vehicle.front_weight"):
        Vehicle(mass=1000.0, front_weight=1.5)
    with pytest.raises(ModelError, match="moment"):
        LoadCase(moment=(1.0, 2.0))


def test_own_case_text_reads_every_key():
    case = parse_case("x=-0.5, lateral=0.25, z=1.5, mx=10, my=-20, mz=30, at=wheel-centre, unit=N, name=kerb")
    assert case == LoadCase("kerb", -0.5, 0.25, 1.5, (10.0, -20.0, 30.0), "wheel-centre", "N")


@pytest.mark.parametrize("args, expected", [
    (["--case", "cornerng", "--travel", "0"], "case: expected one of static, braking"),
    (["--case", "vertical=1, sideways=2", "--travel", "0"], "case: 'sideways=2': expected key=value"),
    (["--travel", "0"], "--case: required by --analysis loads"),
    (["--case", "bump"], "travel: held by the travel drivers: give the wheel travels"),
    (["--case", "bump", "--held-by", "hand"], "held_by: expected 'driver' or 'spring'"),
    (["--case", "braking", "--held-by", "spring", "--scale", "0:1"], "--scale: '0:1' is neither a number nor START:STOP"),
    (["--case", "braking", "--held-by", "spring", "--scale", "1:0:0.5"], "--scale: STEP 0.5 does not lead from 1 to 0"),
])
def test_command_line_mistakes_exit_2_in_one_line(capsys, args, expected):
    from dynamics.cli import main

    assert main(["suspension", str(EXAMPLES / "front_axle.toml"), "--analysis", "loads", *args]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"kinematrix: error: {expected}")


def test_command_line_g_without_mass_exits_2(capsys):
    from dynamics.cli import main

    args = ["suspension", str(EXAMPLES / "double_wishbone.toml"), "--analysis", "loads", "--case", "cornering",
            "--travel", "0"]
    assert main(args) == 2
    assert capsys.readouterr().err.strip().endswith("give [vehicle] mass (kg) and front_weight (the front axle's "
                                                    "share)")


def test_command_line_writes_the_table_and_the_sheet(tmp_path, capsys):
    from dynamics.cli import main

    out, sheet = tmp_path / "loads.csv", tmp_path / "loads.png"
    assert main(["suspension", str(EXAMPLES / "front_axle.toml"), "--analysis", "loads", "--case", "braking",
                 "--travel", "-40:40:40", "--out", str(out), "--plot", str(sheet)]) == 0
    lines = out.read_text().splitlines()
    front = load_suspension(EXAMPLES / "front_axle.toml")
    expected = load_case(front, "braking", [-0.04, 0.0, 0.04])
    header = lines[1].split(",")
    row = dict(zip(header, map(float, lines[3].split(","))))
    assert row["wheel_travel"] == 0.0
    assert row["lower_ball_left_fz"] == pytest.approx(expected.metric("lower_ball_left_fz")[1], rel=1e-12)
    assert sheet.stat().st_size > 20000 and sheet.read_bytes()[:4] == b"\x89PNG"


def test_command_line_scale_is_a_range_as_travel_is(tmp_path):
    """``--scale`` is read as every range option is (the last value is STOP): 0.5:1:0.3 gives
    0.5, 0.8, 1, where counting whole steps would end beyond the case, at 1.1."""
    from dynamics.cli import main

    out = tmp_path / "ramp.csv"
    assert main(["suspension", str(EXAMPLES / "front_axle.toml"), "--analysis", "loads", "--case", "braking",
                 "--held-by", "spring", "--scale", "0.5:1:0.3", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[1].split(",")[0] == "load_scale"
    assert [float(line.split(",")[0]) for line in lines[2:]] == [0.5, 0.8, 1.0]


def test_a_freedom_the_corner_does_not_fix_is_refused():
    """A flap hanging from the body is a freedom neither travel, steering nor hub fixes."""
    path = EXAMPLES / "double_wishbone.toml"
    m = load_model(path)
    m.add_link("flap", mass=1.0, com=(0.0, 0.0, -0.1), inertia=np.diag([0.01, 0.01, 0.01]))
    m.add_pair("flap_pivot", "revolute", "ground", "flap", at=(0.0, 0.0, 0.0), axis=(1.0, 0.0, 0.0))
    flapped = Suspension.of_corner(m, load_suspension(path).corners["left"])
    with pytest.raises(ModelError, match="leave freedoms flap_pivot free"):
        load_case(flapped, OWN, [0.0])
    with pytest.raises(ModelError, match="expected a name"):
        LoadCase("")
