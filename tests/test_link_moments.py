"""Free moments on links (``Mechanism.add_link_moment``, METHOD.md (E9)) against independent references.

References: (a) a pendulum under a moment about its pair's axis, in closed form ``m g l sin a = M``,
its stiffness ``m g l cos a`` (a couple would add its own); (b) an arm on one bushing under a
moment in space against the same arm under a couple of two point forces placed by hand so that
they make that moment at the pose found; (c) the compliance of the shipped axle about a pose loaded
by a moment against central differences of loaded equilibria (the moment changed by +-h); (d) a
model file written and read back, the axle's mirror (a moment is an axial vector); (e) bad input.
"""

import copy

import numpy as np
import pytest

from bushing_arm import arm_on_one_bushing
from loops import equilibrium
from loops.suspension import Corner, compliance, load_suspension, mirror_corner
from loops.suspension.compliance import compliant_variant
from loops.suspension.hardpoint_loads import WheelLoads, travel_drivers
from loops.suspension.load_cases import LoadCase
from loops.suspension.motion import Frame, Motion
from loops.suspension.wheel import Wheel, camber, toe
from mechanism import Mechanism, load_model, save_model
from mechanism.errors import ModelError

G, MASS, LENGTH = 9.81, 2.0, 0.5
TIGHT = 1e-13


def hanging_pendulum(moment=None):
    """An arm on a revolute about z at the origin, its centre of mass LENGTH below it."""
    m = Mechanism("pendulum")
    m.add_link("arm", mass=MASS, com=(0, -LENGTH, 0), inertia=np.diag([0.1, 0.01, 0.1]))
    m.add_pair("A", "revolute", "ground", "arm", at=(0, 0, 0), axis=(0, 0, 1))
    m.set_gravity((0, -G, 0))
    if moment is not None:
        m.add_link_moment("torque", "arm", moment)
    return m


def test_a_pendulum_turns_where_its_weight_balances_the_moment_about_its_axis():
    """(a) ``m g l sin a = M_z``; the components across the axis do nothing; the stiffness
    ``m g l cos a`` (a free moment's is zero)."""
    weight = MASS * G * LENGTH
    for moment in ((0, 0, 4.0), (3.0, -7.0, 4.0)):
        eq = equilibrium(hanging_pendulum(moment), force_tolerance=1e-13)
        angle = np.arcsin(4.0 / weight)
        np.testing.assert_allclose(eq.q("A"), [angle], rtol=0, atol=1e-10)
        np.testing.assert_allclose(eq.stiffness[:, 0, 0], [weight * np.cos(angle)], rtol=1e-9)


def _arm(moment=None):
    """The arm on one bushing, a 50 N load down at its tip (a couple alone gives its link no net
    force, and the load scale, which counts link forces, would be zero: statics (E5))."""
    m = arm_on_one_bushing(2e5, 800.0)
    m.add_point_force("weight", "arm", at=(0.4, 0.0, 0.0), force=(0.0, 0.0, -50.0))
    if moment is not None:
        m.add_link_moment("torque", "arm", moment)
    return m


BUSHING = ["bush.0", "bush.1", "bush.2", "bush.3", "bush.4", "bush.5"]
MOMENT = np.array([30.0, -20.0, 40.0])


def test_a_free_moment_holds_the_pose_a_couple_placed_at_that_pose_holds():
    """(b) The arm turns ~0.03 rad under MOMENT; two forces (f, -f) at the arm's points p +- a of
    that pose (a across the moment, 2 a x f = M) make the same wrench there: the couple's model
    settles at the same pose. Their stiffnesses differ by the couple's own (E9)."""
    free = equilibrium(_arm(MOMENT), force_tolerance=1e-13)
    pose = free.pose("arm")[0]
    a = 0.5 * np.cross(MOMENT, (1.0, 0.0, 0.0))
    a *= 0.5 / np.linalg.norm(a)
    f = np.cross(MOMENT, a) / (2.0 * a @ a)
    np.testing.assert_allclose(2.0 * np.cross(a, f), MOMENT, rtol=0, atol=1e-12)
    couple = _arm()
    inverse = np.linalg.inv(pose)
    for sign, name in ((1.0, "plus"), (-1.0, "minus")):
        point = pose[:3, 3] + sign * a
        couple.add_point_force(name, "arm", at=inverse[:3, :3] @ point + inverse[:3, 3], force=sign * f)
    held = equilibrium(couple, force_tolerance=1e-13)
    for name in BUSHING:
        np.testing.assert_allclose(held.q(name), free.q(name), rtol=0, atol=1e-9)
    assert np.abs(free.q("bush.3")[0]) > 0.02
    assert np.max(np.abs(held.stiffness[0] - free.stiffness[0])) > 1.0  # N m/rad: the couple's own


def test_a_moment_alone_turns_an_arm_on_one_bushing_by_its_rates():
    """A small moment alone (no force: the load scale counts it, (E5)) turns the bushing by
    ``M / k_r`` about each axis (rates 1e3, 800, 1.5e3 N m/rad), to first order (~1e-5 rad)."""
    moment = np.array([0.01, -0.008, 0.015])
    m = arm_on_one_bushing(2e5, 800.0)
    m.add_link_moment("torque", "arm", moment)
    eq = equilibrium(m, force_tolerance=1e-13)
    turns = [eq.q(name)[0] for name in BUSHING[3:]]
    np.testing.assert_allclose(turns, moment / np.array([1e3, 800.0, 1.5e3]), rtol=1e-4)
    assert eq.load_scale[0] >= np.linalg.norm(moment)


AXLE = "examples/front_axle_bushings.toml"
TRAVEL = np.array([-0.04, 0.0, 0.04])
TURNING = LoadCase("turning", lateral=1500.0, moment=(60.0, -90.0, 250.0), unit="N")


@pytest.fixture(scope="module")
def axle():
    return load_suspension(AXLE)


def _aligning_differences(axle, variant, wheels, side, h, as_couple=False):
    """Steer and camber per 100 N m, central differences of equilibria with ``h`` N m toe-out added
    on ``side``'s wheel (``as_couple``: the variant's held moments as the old couples instead)."""
    forward, outboard, _ = wheels.axes[side]
    unit = np.cross(forward, outboard)
    metrics = {}
    for sign in (1.0, -1.0):
        probed = copy.deepcopy(variant.mechanism)
        probed.add_link_moment("probe", wheels.link[side], sign * h * unit)
        if as_couple:
            probed = _with_couples(probed, variant, wheels)
        eq = equilibrium(probed, drivers=travel_drivers(variant, TRAVEL), hold=wheels.hubs, tolerance=TIGHT)
        corner = variant.corners[side]
        wheel = Wheel(variant.resolved[side], corner, variant.design[side], Motion.of(eq), Frame.body(corner))
        metrics[sign] = (toe(wheel).value, camber(wheel).value)
    return [(metrics[1.0][k] - metrics[-1.0][k]) / (2 * h) * 1e2 for k in range(2)]


def _with_couples(mechanism, variant, wheels):
    """``mechanism`` with the held case moments as couples of forces 1 m apart across the design
    wheel centre (the representation before free moments)."""
    out = Mechanism(mechanism.name)
    out.__dict__.update(copy.deepcopy(mechanism.__dict__))
    for side in wheels.sides:
        name, moment = f"case_moment_{side}", wheels.moment[side]
        del out._link_moments[name]
        across = np.cross(moment, wheels.axes[side][np.argmin(np.abs(wheels.axes[side] @ moment))])
        a = 0.5 * across / np.linalg.norm(across)
        f = np.cross(moment, a) / (2.0 * a @ a)
        centre = variant.design[side].centre
        out.add_point_force(f"{name}_a", wheels.link[side], centre + a, f)
        out.add_point_force(f"{name}_b", wheels.link[side], centre - a, -f)
    out._changed()
    return out


def test_compliance_about_a_pose_loaded_by_a_moment_is_the_central_difference_of_equilibria(axle):
    """(c) Aligning-torque steer and camber about the pose loaded by TURNING (a moment on the
    wheels) against equilibria with +-h N m more (h = 2 N m: truncation ~1e-10 relative, the
    equilibria closed to 1e-13): 1e-6 relative. Held as the old couples (turning with the
    wheel), the same differences move by more than 1e-4 relative: the test tells."""
    result = compliance(axle, TRAVEL, TURNING, tolerance=TIGHT)
    wheels = WheelLoads(axle, TURNING)
    variant = compliant_variant(axle, wheels)
    assert [f.name for f in variant.model.link_moments] == [f"case_moment_{side}" for side in wheels.sides]
    for side in wheels.sides:
        steer, camber_rate = _aligning_differences(axle, variant, wheels, side, 2.0)
        np.testing.assert_allclose(result.metric(f"compliance_steer_aligning_{side}"), steer, rtol=1e-6, atol=1e-12)
        np.testing.assert_allclose(result.metric(f"compliance_camber_aligning_{side}"), camber_rate, rtol=1e-6,
                                   atol=1e-12)
    side = wheels.sides[0]
    old_steer, _ = _aligning_differences(axle, variant, wheels, side, 2.0, as_couple=True)
    new = result.metric(f"compliance_steer_aligning_{side}")
    assert np.max(np.abs(np.asarray(old_steer) - new) / np.abs(new)) > 1e-4


def test_a_link_moment_goes_through_a_model_file_in_its_units(tmp_path):
    """(d) ``[[link_moments]]``: a constant and a table, in N mm in a mm file, read back equal."""
    m = load_model("examples/double_wishbone.toml")
    m.add_link_moment("aligning", "upright", (1.0, -2.0, 30.0))
    m.add_link_moment("ramp", "lower_arm", ([0.0, 1.0], [[0.0, 0.0, 0.0], [5.0, 6.0, 7.0]]))
    path = tmp_path / "m.toml"
    save_model(m, path, units=("mm", "deg"))
    assert "[[link_moments]]" in path.read_text() and "30000" in path.read_text()
    back = load_model(path).snapshot().link_moments
    assert [(lm.name, lm.link) for lm in back] == [("aligning", "upright"), ("ramp", "lower_arm")]
    np.testing.assert_allclose(back[0].moment, (1.0, -2.0, 30.0), rtol=1e-12)
    np.testing.assert_allclose(back[1].moment[1], [[0.0, 0.0, 0.0], [5.0, 6.0, 7.0]], rtol=1e-12)
    with pytest.raises(ModelError, match=r"link_moments\[0\].*moment"):
        m2 = Mechanism("f")
        m2.add_link("arm")
        m2.add_pair("A", "revolute", "ground", "arm", at=(0, 0, 0), axis=(0, 0, 1))
        m2.add_link_moment("torque", "arm", lambda t: (0.0, 0.0, t))
        save_model(m2, tmp_path / "f.toml")


def test_a_bad_link_moment_in_a_file_is_located(tmp_path):
    text = open("examples/double_wishbone.toml").read()
    path = tmp_path / "bad.toml"
    path.write_text(text + '\n[[link_moments]]\nname = "aligning"\nlink = "upright"\nmoment = [1, 2]\n')
    with pytest.raises(ModelError, match=r"link_moments\[0\] \('aligning'\).*moment.*3 numbers") as info:
        load_model(path)
    assert "\n" not in str(info.value)


def test_the_axle_mirrors_a_moment_as_an_axial_vector():
    """(d) A corner's moment (Mx, My, Mz) on the left is (-Mx, My, -Mz) on the right (the mirror
    image of a turn about x or z turns the other way, about y the same way); its force
    (Fx, Fy, Fz) is (Fx, -Fy, Fz); a table is mirrored row by row."""
    m = load_model("examples/front_axle.toml")
    m.add_link_moment("aligning", "upright", (1.0, 2.0, 3.0))
    m.add_link_moment("ramp", "upright", ([0.0, 1.0], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    m.add_point_force("push", "upright", at=(0.0, 0.7, 0.3), force=(1.0, 2.0, 3.0))
    corner = Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                    kingpin=("lower_ball", "upper_ball"), wheel_radius=0.3, side="left", spring="coil",
                    steering="rack_travel", shared=("rack",), travel="travel")
    model = mirror_corner(m, corner).mechanism.snapshot()
    moments = {lm.name: lm for lm in model.link_moments}
    assert moments["aligning_right"].link == "upright_right"
    np.testing.assert_array_equal(moments["aligning_left"].moment, (1.0, 2.0, 3.0))
    np.testing.assert_array_equal(moments["aligning_right"].moment, (-1.0, 2.0, -3.0))
    np.testing.assert_array_equal(moments["ramp_right"].moment[1], [[-1.0, 2.0, -3.0], [-4.0, 5.0, -6.0]])
    forces = {pf.name: pf for pf in model.point_forces}
    np.testing.assert_array_equal(forces["push_right"].force, (1.0, -2.0, 3.0))


@pytest.mark.parametrize("link, moment, message", [
    ("nowhere", (0, 0, 1), r"link moment 'torque': link: unknown link 'nowhere'"),
    ("arm", [0, 1], r"link moment 'torque': moment: expected 3 numbers"),
    ("arm", (0, 1, 2, 3), r"link moment 'torque': moment: expected 3 numbers"),
    ("arm", (0, float("nan"), 1), r"link moment 'torque': moment: non-finite load"),
    ("arm", ([0.0, 1.0], [[0, 0, 1]]), r"link moment 'torque': moment: a table needs"),
])
def test_a_bad_link_moment_is_refused_in_one_line(link, moment, message):
    m = hanging_pendulum()
    with pytest.raises(ModelError, match=message) as info:
        m.add_link_moment("torque", link, moment)
    assert "\n" not in str(info.value)


def test_a_second_link_moment_of_the_same_name_is_refused():
    m = hanging_pendulum((0, 0, 1.0))
    with pytest.raises(ModelError, match=r"link moment 'torque': a link moment of that name exists already"):
        m.add_link_moment("torque", "arm", (0, 0, 2.0))
    with pytest.raises(ModelError, match=r"link moment name"):
        m.add_link_moment("", "arm", (0, 0, 2.0))
