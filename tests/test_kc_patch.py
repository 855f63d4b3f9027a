"""Loads at the contact patch of the compliant variant: a point force on the wheel's circle
(METHOD.md (E8)) against independent references.

References: (a) at each position of the K&C curve, a model whose force is an ordinary point force
at the wheel's material point that sits at that position's contact patch (:mod:`loops.suspension.
wheel`), one equilibrium solved: the same pose; (b) the point the load kernel applies the force
at, read back from its wrenches, against the wheel module's patch; (c) the compliance about a
loaded pose against central differences of loaded equilibria, the load changed by +-h at the
current patch; (d) a trailing arm on one bushing with a wheel in closed form; the circle's
arguments checked where they enter (builder, model file).
"""

import copy
import re

import numpy as np
import pytest

from bushing_arm import arm_on_one_bushing
from loops import equilibrium
from loops.loads import compile_loads
from loops.suspension import compliance, kc_curves, load_suspension
from loops.suspension.compliance import compliant_variant
from loops.suspension.hardpoint_loads import WheelLoads, travel_drivers
from loops.suspension.load_cases import LoadCase
from loops.suspension.motion import Frame, Motion
from loops.suspension.wheel import Wheel, camber, toe
from mechanism import Mechanism, load_model, save_model
from mechanism.errors import ModelError

FILE = "examples/front_axle_bushings.toml"
TIGHT = 1e-13
TRAVEL = np.array([-0.04, 0.0, 0.04])
LATERAL = LoadCase("lateral", lateral=2000.0, longitudinal=-800.0, unit="N")


@pytest.fixture(scope="module")
def axle():
    return load_suspension(FILE)


@pytest.fixture(scope="module")
def curves(axle):
    return kc_curves(axle, TRAVEL, LATERAL, tolerance=TIGHT)


def _settled(axle, case, travel):
    wheels = WheelLoads(axle, case)
    variant = compliant_variant(axle, wheels)
    eq = equilibrium(variant.mechanism, drivers=travel_drivers(variant, travel), hold=wheels.hubs, tolerance=TIGHT)
    return variant, wheels, eq


def _wheel(variant, eq, side):
    corner = variant.corners[side]
    return Wheel(variant.resolved[side], corner, variant.design[side], Motion.of(eq), Frame.body(corner))


def test_kc_poses_are_single_equilibria_with_the_force_at_the_material_point_on_the_patch(axle, curves):
    """(a) At -40, 0 and +40 mm: the pose returned, its contact patches, a compliant model with an
    ordinary point force at the wheel's material point sitting there, that one equilibrium
    solved: every link's pose, toe and camber agree to 1e-9 (toe to 1e-14 rad seen on a 1 kN
    lateral case). The load held at the material point of the design patch instead is off by more
    than 1e-6 rad of toe at +-40 mm (on that 1 kN case 1.1 to 1.6 % of the steer it makes): the
    reference tells them apart."""
    variant, wheels, eq = _settled(axle, LATERAL, TRAVEL)
    for i, travel in enumerate(TRAVEL):
        reference = copy.deepcopy(axle.mechanism)
        reference.use_bushings(True)
        drifting = copy.deepcopy(reference)
        for side in wheels.sides:
            pose = eq.pose(wheels.link[side])[i]
            patch = _wheel(variant, eq, side).P.value[i]
            reference.add_point_force(f"at_{side}", wheels.link[side], np.linalg.solve(pose, np.r_[patch, 1.0])[:3],
                                      tuple(wheels.force[side]))
            drifting.add_point_force(f"at_{side}", wheels.link[side], variant.design[side].patch,
                                     tuple(wheels.force[side]))
        single = equilibrium(reference, drivers=travel_drivers(variant, [travel]), hold=wheels.hubs, tolerance=TIGHT)
        drift = equilibrium(drifting, drivers=travel_drivers(variant, [travel]), hold=wheels.hubs, tolerance=TIGHT)
        for link in variant.model.links:
            np.testing.assert_allclose(eq.pose(link.name)[i], single.pose(link.name)[0], rtol=0, atol=1e-9)
        for side in wheels.sides:
            for metric in (toe, camber):
                np.testing.assert_allclose(metric(_wheel(variant, single, side)).value[0],
                                           curves.metric(f"{metric.__name__}_{side}")[i], rtol=0, atol=1e-9)
            off = toe(_wheel(variant, drift, side)).value[0] - curves.metric(f"toe_{side}")[i]
            assert travel == 0.0 or abs(off) > 1e-6


def test_the_force_acts_at_the_wheel_modules_contact_patch_at_every_equilibrium(axle):
    """(b) The load kernel's point of application, read back from the wrench it makes of unit
    forces along x and y (``n = p x f``), is the wheel module's contact patch within 1e-9 m at
    every equilibrium of the curve."""
    from loops.kernel_arrays import kernel_array
    from loops.kernels.loads import applied_loads

    variant, wheels, eq = _settled(axle, LATERAL, np.r_[TRAVEL, 0.02])
    system = eq.system
    loads = compile_loads(system, variant.model, eq)
    n, L = system.n, system.topology.links
    q = eq.closed_positions()[0]
    real = [link.name for link in variant.model.links]
    for i in range(len(eq)):
        poses = np.tile(np.eye(4), (L, 1, 1))  # the virtual links carry no point force
        for name in real:
            poses[system.link_index[name]] = eq.pose(name)[i]
        for side in wheels.sides:
            j = [f.name for f in variant.model.point_forces].index(f"case_{side}")
            moments = []
            for unit in np.eye(3)[:2]:
                values = np.zeros((len(loads.point_links), 3))
                values[j] = unit
                wrenches = np.zeros((L, 6))
                applied_loads(loads, kernel_array(q[i]), np.zeros(n), poses,
                              np.zeros((L, 6)), np.zeros((len(loads.force_cols), 1)), values, np.zeros(n), wrenches,
                              np.zeros(2), np.zeros((8, 3)))
                moments.append(wrenches[system.link_index[wheels.link[side]], :3])
            # p x e_x = (0, p_z, -p_y), p x e_y = (-p_z, 0, p_x)
            point = np.array([moments[1][2], -moments[0][2], moments[0][1]])
            np.testing.assert_allclose(point, _wheel(variant, eq, side).P.value[i], rtol=0, atol=1e-9)


@pytest.mark.parametrize("held_by", ["driver", "spring"])
def test_a_load_case_acts_at_the_contact_patch_of_every_position(held_by):
    """(b) The hardpoint loads' case (``--analysis loads``) on the rigid axle, held by the travel
    drivers or settled on the springs: where its force acts is the wheel module's contact patch
    at every position within 1e-9 m (the wrench is made at each position's patch; the rigid
    corner's pose does not move with the load)."""
    from loops.suspension import load_case

    rigid = load_suspension("examples/front_axle.toml")
    result = load_case(rigid, "cornering", TRAVEL if held_by == "driver" else None, held_by=held_by,
                       scale=None if held_by == "driver" else [0.5, 1.0])
    for side in result.applied:
        np.testing.assert_allclose(result.applied[side][0], _wheel(rigid, result, side).P.value, rtol=0, atol=1e-9)


def test_compliance_about_a_loaded_pose_is_the_central_difference_of_loaded_equilibria(axle):
    """(c) Steer and camber per kN about the loaded pose against equilibria with the load at the
    current patch changed by +-h (h = 20 N, a probe on the same circle): truncation (h times the
    response's relative curvature, ~1e-6 /N)^2 ~ 4e-10, the equilibria closed to 1e-13; agree to
    1e-6 relative. Without the point's own rate in the stiffness (E8) they differ by 4e-4
    relative: the test tells."""
    result = compliance(axle, TRAVEL, LATERAL, tolerance=TIGHT)
    variant, wheels, _ = _settled(axle, LATERAL, TRAVEL)
    h = 20.0
    for side in wheels.sides:
        held = next(f for f in variant.model.point_forces if f.name == f"case_{side}")
        outboard = wheels.axes[side][1]
        metrics = {}
        for sign in (1.0, -1.0):
            probed = copy.deepcopy(variant.mechanism)
            probed.add_point_force("probe", held.link, held.at, tuple(sign * h * outboard), held.circle)
            eq = equilibrium(probed, drivers=travel_drivers(variant, TRAVEL), hold=wheels.hubs, tolerance=TIGHT)
            wheel = _wheel(variant, eq, side)
            metrics[sign] = (toe(wheel).value, camber(wheel).value)
        for k, name in enumerate(("steer", "camber")):
            difference = (metrics[1.0][k] - metrics[-1.0][k]) / (2 * h) * 1e3
            analytic = result.metric(f"compliance_{name}_lateral_patch_{side}")
            np.testing.assert_allclose(analytic, difference, rtol=1e-6, atol=1e-12)


def _arm_with_wheel(force, kry, length, radius):
    """A trailing arm (along +x) on one bushing at the origin (:func:`bushing_arm.arm_on_one_bushing`,
    k_x 3e5 N/m), a wheel of ``radius`` at its tip spinning about y, a horizontal ``force`` along x
    at its lowest point (a brake's drag)."""
    m = arm_on_one_bushing(1e5, kry, length)
    m.add_point_force("drag", "arm", (length, 0.0, 0.0), (force, 0.0, 0.0),
                      circle=((0.0, 1.0, 0.0), radius, (0.0, 0.0, -1.0)))
    return m


def test_a_trailing_arm_on_one_bushing_with_a_wheel_in_closed_form():
    """(d) A drag F at the lowest point of a wheel (radius rho) at the tip of an arm of length L on
    one bushing: the arm turns b about y, the patch stays rho below the wheel centre, so the
    bushing's turn balances ``k_ry b + F (L sin b + rho) = 0`` (the material point at the design
    patch would balance ``k_ry b + F (L sin b + rho cos b) = 0``) with the stiffness
    ``k_ry + F L cos b``; the slide along x is F / k_x."""
    force, kry, length, radius = 1500.0, 2e3, 0.4, 0.3
    eq = equilibrium(_arm_with_wheel(force, kry, length, radius), force_tolerance=1e-13)
    b = 0.0
    for _ in range(50):
        b -= (kry * b + force * (length * np.sin(b) + radius)) / (kry + force * length * np.cos(b))
    np.testing.assert_allclose(eq.q("bush.4"), [b], rtol=1e-10)
    np.testing.assert_allclose(eq.q("bush.0"), [force / 3e5], rtol=1e-10)
    turn = eq.free.index("bush.4")
    np.testing.assert_allclose(eq.stiffness[0, turn, turn], kry + force * length * np.cos(b), rtol=1e-10)
    assert abs(force * radius * (1.0 - np.cos(b))) > 1e-2 * kry * abs(b)  # the design point's pose: far off
    assert eq.stable[0]


def test_the_patch_rolling_over_the_wheel_makes_the_stiffness_non_symmetric_in_closed_form():
    """(d) A lateral F at the lowest point of the wheel at the arm's tip, the bushing free to turn
    about y (b, the wheel rolling) and z (c, steering) only: the steer balances
    ``k_rz c = F L cos c`` and b = 0. Rolling by b leaves the patch under the centre while the
    wheel's material point there moves back by rho b: the steer moment changes by
    ``dg_c/db = F rho cos^2 c``, so ``K_cb = -F rho cos^2 c`` (zero for a material point),
    ``K_bc = 0``, ``K_bb = k_ry``, ``K_cc = k_rz + F L sin c``: not symmetric; by hand (METHOD.md
    (E8), to first order in b about the equilibrium). Stable: the symmetric part is positive
    definite."""
    force, kry, krz, length, radius = 1000.0, 2e3, 1.5e3, 0.4, 0.3
    m = arm_on_one_bushing(1e5, kry, length)
    m.add_point_force("side", "arm", (length, 0.0, 0.0), (0.0, force, 0.0),
                      circle=((0.0, 1.0, 0.0), radius, (0.0, 0.0, -1.0)))
    eq = equilibrium(m, hold=["bush.0", "bush.1", "bush.2", "bush.3"], force_tolerance=1e-13)
    assert eq.free == ["bush.4", "bush.5"]
    c = 0.0
    for _ in range(50):
        c -= (krz * c - force * length * np.cos(c)) / (krz + force * length * np.sin(c))
    np.testing.assert_allclose(eq.q("bush.5"), [c], rtol=1e-10)
    np.testing.assert_allclose(eq.q("bush.4"), [0.0], atol=1e-14)
    expected = [[kry, 0.0], [-force * radius * np.cos(c) ** 2, krz + force * length * np.sin(c)]]
    np.testing.assert_allclose(eq.stiffness[0], expected, rtol=1e-10, atol=1e-9)
    assert eq.stable[0] and eq.stability[0] == "stable"


@pytest.mark.parametrize("circle, message", [
    ((1, 2), re.escape("expected (axis, radius, toward)")),
    (((0, 1, 0), 0.0, (0, 0, -1)), "radius"),
    (((0, 1, 0), 0.3, (0, 2, 0)), "toward is along the axis"),
    (((0, 0, 0), 0.3, (0, 0, -1)), "axis"),
])
def test_a_bad_circle_is_refused_in_one_line(circle, message):
    m = arm_on_one_bushing(1e5, 2e3)
    with pytest.raises(ModelError, match=message) as raised:
        m.add_point_force("drag", "arm", (0.4, 0, 0), (1, 0, 0), circle=circle)
    assert "point force 'drag': circle" in str(raised.value) and "\n" not in str(raised.value)


def test_a_circle_goes_through_a_model_file_and_its_keys_come_together(tmp_path):
    m = Mechanism("wheel on an arm")
    m.add_link("arm")
    m.add_pair("pivot", "revolute", "ground", "arm", at=(0, 0, 0), axis=(0, 1, 0))
    m.add_point_force("drag", "arm", (0.4, 0.0, 0.0), (1500.0, 0.0, 0.0),
                      circle=((0.0, 2.0, 0.0), 0.3, (0.0, 0.0, -1.0)))
    path = tmp_path / "arm.toml"
    save_model(m, path, units=("mm", "deg"))
    text = path.read_text()
    assert "circle_radius = 300.0\n" in text
    again = load_model(path)
    (force,) = again.snapshot().point_forces
    assert force.circle == ((0.0, 1.0, 0.0), 0.3, (0.0, 0.0, -1.0))
    path.write_text(text.replace("circle_radius = 300.0\n", ""))
    with pytest.raises(ModelError, match="circle_radius: a point force on a circle gives circle_axis, "
                                         "circle_radius, circle_toward together"):
        load_model(path)
