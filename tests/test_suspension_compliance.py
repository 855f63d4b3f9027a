"""Compliance analyses (loops.compliance, loops.suspension.compliance) against independent references.

References: central differences of equilibria (``loops.equilibrium``) with small loads added as
point forces (the analysis applies none: it solves the linearised equilibrium); an arm on one
bushing in closed form (tip compliance ``1/k_z + L^2/k_ry``, turn ``-L/k_ry``); stiff
bushings' compliance falling as 1/k (fitted log-log slope -1); the K&C curves' rigid columns
against the rigid model's own parallel travel, and their loaded change against the compliance
times a small load; a mirrored axle whose bushings couple translations and turns has the same
compliance on both sides.
"""

import copy

import numpy as np
import pytest

from bushing_arm import arm_on_one_bushing
from command_line import run_kinematrix
from loops import equilibrium
from loops.compliance import load_response
from loops.suspension import compliance, kc_curves, load_suspension, parallel_travel
from loops.suspension.compliance import COMPLIANCE_LOADS, compliant_variant
from loops.suspension.hardpoint_loads import WheelLoads, travel_drivers
from loops.suspension.load_cases import LoadCase
from loops.suspension.motion import Frame, Motion
from loops.suspension.wheel import Wheel, camber, toe
from loops.suspension import Suspension, corner_from_table, mirror_corner
from loops.suspension.files import read_tables
from mechanism import load_model
from mechanism.errors import ModelError

FILE = "examples/front_axle_bushings.toml"
TIGHT = 1e-13  # closure tolerance of the references' equilibria: their noise far below the differences


@pytest.fixture(scope="module")
def axle():
    return load_suspension(FILE)


@pytest.fixture(scope="module")
def analysed(axle):
    return compliance(axle, [-0.04, 0.03], tolerance=TIGHT)


def _wheel(variant, eq, side):
    corner = variant.corners[side]
    return Wheel(variant.resolved[side], corner, variant.design[side], Motion.of(eq), Frame.body(corner))


def _probe(variant, wheels, mechanism, side, eq, load, size):
    """``mechanism`` with ``load`` of ``size`` (N or N m) on ``side``'s wheel at position 0 of ``eq``,
    as point forces (a couple 1 m wide for the moment) at the wheel's material points there."""
    _, direction, where = next(item for item in COMPLIANCE_LOADS if item[0] == load)
    link = wheels.link[side]
    pose = eq.pose(link)[0]
    forward, outboard, up = wheels.axes[side]
    wheel = _wheel(variant, eq, side)

    def material(point):
        return np.linalg.solve(pose, np.r_[point, 1.0])[:3]

    if where == "moment":
        moment = size * np.cross(forward, outboard)
        at = wheel.C.value[0]
        mechanism.add_point_force("probe_a", link, material(at + 0.5 * forward), tuple(np.cross(moment, forward)))
        mechanism.add_point_force("probe_b", link, material(at - 0.5 * forward), tuple(-np.cross(moment, forward)))
        return
    unit = forward if direction == "forward" else outboard
    at = wheel.P.value[0] if where == "contact-patch" else wheel.C.value[0]
    mechanism.add_point_force("probe", link, material(at), tuple(size * unit))


@pytest.mark.parametrize("load", [item[0] for item in COMPLIANCE_LOADS])
def test_compliance_is_the_central_difference_of_equilibria(axle, analysed, load):
    """Steer, camber and stiffness against equilibria with +-10 N (N m) added: the difference's
    truncation is (10 N x the response's relative curvature, ~1e-7 /N)^2 ~ 1e-12, the equilibria
    closed to 1e-13, so they agree to 1e-7 relative (1e-10 seen; about 1e-5 for a compliance
    passing through zero, 2e-11 rad/kN, hence an absolute floor)."""
    variant = compliant_variant(axle)
    wheels = WheelLoads(variant, LoadCase("none", unit="N"))
    size, side = 10.0, "left"
    for i, travel in enumerate(analysed.metric("wheel_travel")):
        drivers = travel_drivers(variant, np.array([travel]))
        base = equilibrium(variant.mechanism, drivers=drivers, hold=wheels.hubs, tolerance=TIGHT)
        moved = []
        for sign in (1.0, -1.0):
            m = copy.deepcopy(variant.mechanism)
            _probe(variant, wheels, m, side, base, load, sign * size)
            eq = equilibrium(m, drivers=drivers, hold=wheels.hubs, tolerance=TIGHT)
            wheel = _wheel(variant, eq, side)
            moved.append((toe(wheel).value[0], camber(wheel).value[0], wheel.C.value[0], wheel.P.value[0]))
        per = 1e2 if load == "aligning" else 1e3  # rad per 100 N m, per kN
        for k, label in ((0, "steer"), (1, "camber")):
            expected = (moved[0][k] - moved[1][k]) / (2 * size) * per
            got = analysed.metric(f"compliance_{label}_{load}_{side}")[i]
            # atol: 1e-7 of the axle's largest compliance (5e-4 rad/kN), for the ones crossing zero
            np.testing.assert_allclose(got, expected, rtol=1e-7, atol=5e-11)
        if load != "aligning":
            direction = wheels.axes[side][0 if load.startswith("longitudinal") else 1]
            point = 3 if load.endswith("patch") else 2
            moves = (moved[0][point] - moved[1][point]) @ direction / (2 * size)
            name = f"{load.split('_')[0]}_stiffness_{load.split('_')[1]}_{side}"
            np.testing.assert_allclose(analysed.metric(name)[i], 1.0 / moves, rtol=1e-7)


def test_a_symmetric_axle_has_the_same_compliance_on_both_sides(analysed):
    for name in analysed.metrics:
        if name.endswith("_left"):
            np.testing.assert_allclose(analysed.metric(name), analysed.metric(name[:-5] + "_right"), rtol=1e-9,
                                       atol=1e-15)


def test_an_arm_on_one_bushing_in_closed_form():
    """A vertical unit force at the tip of an arm of length L on one bushing (no other load, so
    the equilibrium is the design pose): the bushing slides 1/k_z and turns -L/k_ry about y, the
    tip moves 1/k_z + L^2/k_ry (1/k times the lever arm squared), the force's reduced force is
    its virtual work."""
    kz, kry, length = 1e5, 2e3, 0.4
    eq = equilibrium(arm_on_one_bushing(kz, kry, length))
    system = eq.system
    wrench = np.zeros((1, 1, system.topology.links, 6))
    tip, force = np.array([length, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    wrench[0, 0, system.link_index["arm"]] = np.r_[np.cross(tip, force), force]
    response = load_response(eq, wrench)
    twist = response.twists[0, 0, system.link_index["arm"]]
    np.testing.assert_allclose(twist[:3], [0.0, -length / kry, 0.0], rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(twist[3:] + np.cross(twist[:3], tip), [0.0, 0.0, 1 / kz + length ** 2 / kry],
                               rtol=1e-12, atol=1e-18)
    rates = dict(zip(system.variable_names, response.rates[0, 0]))
    np.testing.assert_allclose([rates["bush.2"], rates["bush.4"]], [1 / kz, -length / kry], rtol=1e-12)


def test_load_response_wants_one_wrench_per_link_and_position():
    eq = equilibrium(arm_on_one_bushing(1e5, 2e3))
    with pytest.raises(ValueError, match=r"wrenches: expected shape \(1, K, 2, 6\)"):
        load_response(eq, np.zeros((1, 1, 3, 6)))


def _rigid_axle_with_bushings(rates):
    """The shipped front axle with the bushings of front_axle_bushings.toml, each with the 6x6
    rates ``rates(K)`` of its own (K its file's diagonal), mirrored into an axle here."""
    rigid, data = read_tables("examples/front_axle.toml")
    corner = corner_from_table(data["corner"], rigid.units, "corner")
    model = load_model(FILE)
    for bushing in model.bushings.values():
        rigid.mechanism.add_bushing(bushing.name, bushing.first, bushing.second, at=bushing.at, axes=bushing.axes,
                                    stiffness=rates(bushing.stiffness_matrix()), replaces=bushing.replaces)
    rigid.mechanism.use_bushings(True)
    return Suspension.of_axle(mirror_corner(rigid.mechanism, corner), rigid.units)


def test_stiff_bushings_compliance_falls_as_one_over_stiffness():
    """Every rate times s: the compliance times s tends to a constant (the bushings' own
    deflections under the model's loads shrink as 1/s too), a fitted log-log slope of -1."""
    scales = np.array([1.0, 8.0, 64.0])
    steer = []
    for scale in scales:
        result = compliance(_rigid_axle_with_bushings(lambda K, s=scale: K * s), [0.0])
        steer.append(abs(result.metric("compliance_steer_lateral_patch_left")[0]))
    slope = np.polyfit(np.log(scales), np.log(steer), 1)[0]
    np.testing.assert_allclose(slope, -1.0, atol=1e-3)
    assert steer[-1] < steer[0] / 60


def test_a_mirrored_bushing_keeps_its_coupling_between_slides_and_turns():
    """Rates coupling the slide along y with the turns about x and z (a conical bushing seen off
    its centre): mirrored, the coupling changes sign with the axes (S K S), so the two sides of
    the axle are mirror images and their compliances agree."""
    def coupled(K):
        K = K.copy()
        K[1, 3] = K[3, 1] = 0.2 * np.sqrt(K[1, 1] * K[3, 3])
        K[1, 5] = K[5, 1] = -0.3 * np.sqrt(K[1, 1] * K[5, 5])
        return K

    result = compliance(_rigid_axle_with_bushings(coupled), [0.02])
    for name in ("compliance_steer_lateral_patch", "compliance_camber_longitudinal_centre",
                 "compliance_steer_aligning", "lateral_stiffness_centre"):
        np.testing.assert_allclose(result.metric(f"{name}_right"), result.metric(f"{name}_left"), rtol=1e-9)


def test_kc_curves_rigid_columns_are_the_rigid_kinematics_and_the_change_is_the_compliance(axle, analysed):
    """The rigid columns are the rigid variant's parallel travel (front_axle.toml's kinematics);
    a small lateral load's toe change over the unloaded compliant curve is the compliance times
    the load (to the load's second order: 20 N, 1e-6 relative). At the wheel centre, a point of
    the upright: a load at the patch acts at the wheel's point at the design patch, which the
    upright's pitch carries off the patch (module docstring). A case is the left wheel's and the
    same in vehicle axes on both wheels (a turn): outboard on the left is inboard on the right,
    where the compliance (per outboard kN) changes sign."""
    travel = analysed.metric("wheel_travel")
    lateral = kc_curves(axle, travel, LoadCase("probe", lateral=20.0, unit="N", at="wheel-centre"), tolerance=TIGHT)
    unloaded = kc_curves(axle, travel, LoadCase("none", unit="N"), tolerance=TIGHT)
    rigid = parallel_travel(load_suspension("examples/front_axle.toml"), travel)
    for side, outboard in (("left", 1.0), ("right", -1.0)):
        for name in ("toe", "camber"):
            np.testing.assert_allclose(lateral.metric(f"{name}_rigid_{side}"), rigid.metric(f"{name}_{side}"),
                                       rtol=0, atol=1e-12)
            np.testing.assert_allclose(lateral.metric(f"{name}_change_{side}"),
                                       lateral.metric(f"{name}_{side}") - lateral.metric(f"{name}_rigid_{side}"),
                                       rtol=0, atol=1e-15)
        per_kilonewton = (lateral.metric(f"toe_{side}") - unloaded.metric(f"toe_{side}")) / (0.020 * outboard)
        np.testing.assert_allclose(per_kilonewton, analysed.metric(f"compliance_steer_lateral_centre_{side}"),
                                   rtol=1e-5)
    assert lateral.rigid.analysis == lateral.analysis and set(lateral.rigid.metrics) >= {"toe_left", "camber_left"}


def test_compliance_about_a_loaded_state_differs_from_the_unloaded(axle, analysed):
    loaded = compliance(axle, analysed.metric("wheel_travel"), "cornering")
    assert loaded.analysis == "compliance"
    change = loaded.metric("compliance_steer_lateral_patch_left") / analysed.metric(
        "compliance_steer_lateral_patch_left")
    assert np.all(np.abs(change - 1.0) > 1e-4)  # a 1 g cornering load moves the pose, and so the compliance


def test_a_model_without_bushings_is_refused_saying_how_to_add_them():
    rigid = load_suspension("examples/front_axle.toml")
    for analysis in (compliance, lambda s, t: kc_curves(s, t, "cornering")):
        with pytest.raises(ModelError, match=r"bushings: 'front-axle' has no bushings.*\[\[bushings\]\]"):
            analysis(rigid, [0.0])


def test_compliance_takes_wheel_travel_at_the_wheel_centre(axle):
    with pytest.raises(ModelError, match="travel_at: compliance analyses hold the wheels by their travel drivers"):
        compliance(axle, [0.0], travel_at="contact-patch")


def test_command_line_writes_the_tables_in_file_units_and_the_sheets(tmp_path):
    root = __import__("pathlib").Path(__file__).resolve().parent.parent
    model = root / FILE
    done = run_kinematrix("suspension", model, "--analysis", "compliance", "--travel", "-40:40:40", "--out",
                          "c.csv", "--plot", "c.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    units = (tmp_path / "c.csv").read_text().splitlines()[0]
    assert "compliance_steer_lateral_patch_left=deg/kN" in units
    assert "compliance_steer_aligning_left=deg/100 N m" in units and "lateral_stiffness_patch_left=N/mm" in units
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
    done = run_kinematrix("suspension", model, "--analysis", "kc", "--case", "cornering", "--travel", "-40:40:40",
                          "--out", "kc.csv", "--plot", "kc.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "toe_rigid_left=deg" in (tmp_path / "kc.csv").read_text().splitlines()[0]
    assert (tmp_path / "kc.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, message", [
    (("examples/front_axle.toml", "--analysis", "compliance", "--travel", "0"),
     "kinematrix: error: bushings: 'front-axle' has no bushings"),
    ((FILE, "--analysis", "kc", "--travel", "0"), "kinematrix: error: --case: required by --analysis kc"),
    ((FILE, "--analysis", "compliance", "--travel", "0", "--travel-at", "contact-patch"),
     "kinematrix: error: travel_at: compliance analyses hold the wheels"),
    ((FILE, "--analysis", "compliance", "--travel", "0", "--case", "sideways"), "kinematrix: error: case: expected"),
])
def test_command_line_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    root = __import__("pathlib").Path(__file__).resolve().parent.parent
    done = run_kinematrix("suspension", *args, cwd=root)
    assert done.returncode == 2
    assert done.stderr.startswith(message) and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_kingpin_through_ball_joints_on_bushings_is_found():
    """The corner names its steering axis by the ball joints; on bushings those pairs are gone
    from the compliant variant, and the axis is taken through their declared centres."""
    loaded, data = read_tables(FILE)
    corner = corner_from_table(data["corner"], loaded.units, "corner")
    m = loaded.mechanism
    for pair in ("lower_ball", "upper_ball"):
        spec = next(p for p in m.snapshot().declared() if p.name == pair)
        m.add_bushing(f"{pair}_bush", spec.first, spec.second, at=spec.at, stiffness=(5e7, 5e7, 5e7, 30, 30, 30),
                      replaces=pair)
    result = compliance(Suspension.of_corner(m, corner, units=loaded.units), [0.0])
    assert np.isfinite(result.metric("compliance_steer_lateral_patch")).all()


def test_the_recorded_free_motions_solve_every_row_of_the_closure(axle, analysed):
    """The motions per unit free coordinate that the equilibrium walk records (and the compliance
    is made of) against a least-squares solve on every row of ``B`` (eq. 4 with the free
    coordinates as drivers, redundant rows included), and the links' twists against the tree
    sums of those rates: a redundant loop the square block leaves out is satisfied too."""
    from loops.configuration import constraint_matrix, evaluate

    variant = compliant_variant(axle)
    hubs = WheelLoads(variant, LoadCase("none", unit="N")).hubs
    eq = equilibrium(variant.mechanism, drivers=travel_drivers(variant, analysed.metric("wheel_travel")), hold=hubs,
                     tolerance=TIGHT)
    system = eq.system
    q, rotations, fixed = eq.closed_positions()
    free = np.array([system.variable_index[name] for name in eq.free])
    others = np.setdiff1d(np.arange(system.n), np.r_[fixed, free])
    for i in range(len(eq)):
        config = evaluate(system, q[i], rotations[i])
        B = constraint_matrix(system, config)
        expected = np.zeros((len(free), system.n))
        expected[np.arange(len(free)), free] = 1.0
        expected[:, others] = np.linalg.lstsq(B[:, others], -B[:, free], rcond=None)[0].T
        np.testing.assert_allclose(eq.free_rates[i], expected, rtol=1e-9, atol=1e-12)
        for k in range(len(free)):
            twists = np.zeros((system.topology.links, 6))
            for link in range(system.topology.links):
                cols, signs = system.path_columns(link)
                twists[link] = (signs * expected[k, cols]) @ config.twists[cols]
            np.testing.assert_allclose(eq.free_twists[i, k], twists, rtol=1e-9, atol=1e-12)


def test_the_compliant_variant_is_made_once_and_anew_after_a_change():
    """Made once per suspension and state of its mechanism: a change to the suspension's
    mechanism, or to the variant's own (a caller's), makes a new one, never a stale one."""
    susp = load_suspension(FILE)
    gravity = susp.model.gravity
    variant = compliant_variant(susp)
    assert compliant_variant(susp) is variant and variant.mechanism.compliant and not susp.mechanism.compliant
    variant.mechanism.set_gravity((0.0, 0.0, 0.0))
    again = compliant_variant(susp)
    assert again is not variant
    np.testing.assert_array_equal(again.model.gravity, gravity)
    susp.mechanism.set_gravity(2.0 * gravity)
    heavier = compliant_variant(susp)
    assert heavier is not again
    np.testing.assert_array_equal(heavier.model.gravity, 2.0 * gravity)
