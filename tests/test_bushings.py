"""Bushings (Mechanism.add_bushing, use_bushings, [[bushings]]) against independent references.

References: the rigid kinematics of the pair two bushings replace (no load, no torsional or
conical rate: the same sweep to 1e-9), the rigid kinematics again as the rates grow (the
departure falls as 1/k: a fitted log-log slope of -1), a trailing arm on one bushing in closed
form (translation F/k, turn from k b + F L cos b = 0), its compliance against central
differences of equilibria, and a damped simulation of it run to rest.
"""

import numpy as np
import pytest
from scipy.optimize import brentq

from dynamics import simulate
from loops import equilibrium
from mechanism import Mechanism, load_model, save_model
from mechanism import transforms as tf
from mechanism.errors import ModelError

PIVOT_ENDS = ((0.15, 0.300, 0.120), (-0.15, 0.300, 0.120))  # on the lower_inner axis (global x)


def wishbone_on_bushings(rates, gravity=True, patch=None):
    m = load_model("examples/double_wishbone.toml")
    if not gravity:
        m.set_gravity((0, 0, 0))
    for name, at in zip(("lower_front", "lower_rear"), PIVOT_ENDS):
        m.add_bushing(name, "ground", "lower_arm", at=at, stiffness=rates, replaces="lower_inner")
    if patch is not None:
        m.add_point_force("patch", "upright", at=(0.0, 0.780, 0.0), force=patch)
    return m


def test_two_bushings_without_torsion_or_load_sweep_as_the_revolute():
    m = wishbone_on_bushings((2e6, 1e6, 1.5e6, 0, 0, 0), gravity=False)
    travel = np.linspace(-0.06, 0.06, 13)
    rigid = m.sweep({"travel": travel}, hold=["hub"])
    m.use_bushings(True)
    compliant = m.sweep({"travel": travel}, hold=["hub"])
    for link in ("lower_arm", "upper_arm", "upright", "tie_rod", "wheel"):
        np.testing.assert_allclose(compliant.pose(link), rigid.pose(link), rtol=0, atol=1e-9)
    assert compliant.stable.all()
    np.testing.assert_allclose(compliant.q("lower_front.1"), 0.0, atol=1e-12)


def test_rigid_variant_is_the_declared_model_and_the_switch_goes_back():
    m = wishbone_on_bushings((2e6, 1e6, 1.5e6, 100, 100, 0))
    declared = [p.name for p in m.snapshot().pairs]
    assert "lower_inner" in declared and "lower_front" not in declared
    m.use_bushings(True)
    compliant = [p.name for p in m.snapshot().pairs]
    assert "lower_inner" not in compliant and compliant[-2:] == ["lower_front", "lower_rear"]
    m.use_bushings(False)
    assert [p.name for p in m.snapshot().pairs] == declared


def test_a_bushing_that_replaces_nothing_is_a_weld_in_the_rigid_variant():
    m = trailing_arm(kz=1e5, kry=2e3, force=-1000.0)
    eq = equilibrium(m)  # rigid: the arm is welded to the ground, nothing moves, nothing is free
    assert eq.free == [] and len(eq) == 1
    np.testing.assert_allclose(eq.pose("arm")[0], np.eye(4), atol=0)
    force = eq.reactions().force("bush")[0]
    np.testing.assert_allclose(force, [0.0, 0.0, 1000.0], atol=1e-9)  # the weld carries the load


def test_departure_from_the_rigid_pose_falls_as_one_over_stiffness():
    travel = np.linspace(-0.03, 0.03, 5)
    base = np.array([2e6, 1e6, 1.5e6, 500.0, 500.0, 0.0])[[0, 1, 2, 5, 3, 4]]  # no torsion (about x)
    rigid = wishbone_on_bushings(base, patch=(0.0, -2000.0, 3000.0)).sweep({"travel": travel}, hold=["hub"])
    scales = np.array([1.0, 4.0, 16.0, 64.0, 256.0])
    errors = []
    for scale in scales:
        m = wishbone_on_bushings(base * scale, patch=(0.0, -2000.0, 3000.0))
        m.use_bushings(True)
        eq = m.sweep({"travel": travel}, hold=["hub"])
        errors.append(np.abs(eq.point("wheel_centre") - rigid.point("wheel_centre")).max())
    slope = np.polyfit(np.log(scales), np.log(errors), 1)[0]
    assert 1e-7 < errors[-1] < errors[0] < 1e-2
    np.testing.assert_allclose(slope, -1.0, atol=0.002)


def trailing_arm(kz, kry, force, length=0.4, compliant=False, mass=0.0, damping=None):
    """An arm on one bushing at the origin, a vertical ``force`` (N) at ``length`` along x."""
    m = Mechanism("trailing arm")
    m.add_link("arm", mass=mass, com=(length, 0, 0), inertia=np.diag([0.01, 0.02, 0.02]) if mass else None)
    m.add_bushing("bush", "ground", "arm", at=(0, 0, 0), stiffness=(3e5, 2e5, kz, 1e3, kry, 1.5e3),
                  damping=damping)
    m.add_point("tip", "arm", at=(length, 0, 0))
    if force:
        m.add_point_force("load", "arm", at=(length, 0, 0), force=(0.0, 0.0, force))
    m.use_bushings(compliant)
    return m


@pytest.mark.parametrize("force", [-300.0, 800.0])
def test_trailing_arm_on_one_bushing_in_closed_form(force):
    kz, kry, length = 1e5, 2e3, 0.4
    eq = equilibrium(trailing_arm(kz, kry, force, length, compliant=True))
    assert sorted(eq.free) == [f"bush.{i}" for i in range(6)]
    # Slide along z: k z = F. Turn about y through the moved centre: k b = -F L cos b.
    turn = brentq(lambda b: kry * b + force * length * np.cos(b), -1.5, 1.5)
    expected = np.array([0.0, 0.0, force / kz, 0.0, turn, 0.0])
    got = np.array([eq.q(f"bush.{i}")[0] for i in range(6)])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    tip = np.array([length * np.cos(turn), 0.0, force / kz - length * np.sin(turn)])
    np.testing.assert_allclose(eq.point("tip")[0], tip, atol=1e-12)
    assert eq.stable.all()
    # The bushing carries the load: its reaction is the force, and the moment about its centre.
    np.testing.assert_allclose(eq.reactions().force("bush")[0], [0.0, 0.0, -force], atol=1e-9)


def _tip(q, length):
    """The tip of the trailing arm at the bushing's variables ``q`` (6,), from the bushing's
    matrix written here: Trans(t) Rot_x(a) Rot_y(b) Rot_z(c) applied to (length, 0, 0)."""
    A = (tf.translation(q[:3]) @ tf.rotation_about_x(q[3]) @ tf.rotation_about_y(q[4])
         @ tf.rotation_about_z(q[5]))
    return (A @ np.array([length, 0.0, 0.0, 1.0]))[:3]


def test_trailing_arm_compliance_is_the_inverse_stiffness():
    """A small tip force dF moves the equilibrium by ``K^-1 J^T dF`` (``J`` the tip's Jacobian,
    by central differences of its position here): against central differences of equilibria."""
    kz, kry, length, force, dF, h = 1e5, 2e3, 0.4, 500.0, 1e-2, 1e-6
    eq = equilibrium(trailing_arm(kz, kry, force, length, compliant=True))
    names = [f"bush.{i}" for i in range(6)]
    order = [eq.free.index(v) for v in names]
    compliance = np.linalg.inv(eq.stiffness[0])[np.ix_(order, order)]
    q = np.array([eq.q(v)[0] for v in names])
    jacobian = np.column_stack([(_tip(q + h * e, length) - _tip(q - h * e, length)) / (2 * h) for e in np.eye(6)])
    for axis in range(3):
        moved = []
        for sign in (1.0, -1.0):
            m = trailing_arm(kz, kry, force, length, compliant=True)
            probe = np.zeros(3)
            probe[axis] = sign * dF
            m.add_point_force("probe", "arm", at=(length, 0, 0), force=probe)
            moved.append(np.array([equilibrium(m).q(v)[0] for v in names]))
        np.testing.assert_allclose((moved[0] - moved[1]) / (2 * dF), compliance @ jacobian[axis], rtol=1e-6,
                                   atol=1e-9 * np.abs(compliance).max())


def test_damped_simulation_comes_to_rest_at_the_equilibrium():
    m = trailing_arm(1e4, 300.0, 0.0, mass=2.0, compliant=True, damping=(50.0, 50.0, 50.0, 2.0, 2.0, 2.0))
    m.set_gravity((0, 0, -9.81))
    eq = equilibrium(m)
    coordinates = {f"bush.{i}": 0.0 for i in range(6)}
    sim = simulate(m, t_end=8.0, q0=coordinates, qd0=coordinates, rtol=1e-9)
    for i in range(6):
        np.testing.assert_allclose(sim.q(f"bush.{i}")[-1], eq.q(f"bush.{i}")[0], atol=1e-7)


def test_bushings_round_trip_through_model_files_in_file_units(tmp_path):
    m = wishbone_on_bushings((2e6, 1e6, 1.5e6, 200.0, 300.0, 0.0))
    m.add_bushing("bracket", "ground", "upper_arm", at=(0.0, 0.4, 0.42), axes=((0, 1, 0), (-1, 0, 0), (0, 0, 1)),
                  stiffness=np.diag([1e6, 1e6, 1e6, 10.0, 10.0, 10.0]), damping=(1.0,) * 6,
                  preload=(5.0, 0, 0, 0.5, 0, 0))
    m.use_bushings(True)
    path = tmp_path / "bushed.toml"
    save_model(m, path)
    text = path.read_text()
    assert "use_bushings = true" in text and "[[bushings]]" in text
    assert "stiffness = [2000.0, 1000.0, 1500.0, " in text  # N/mm
    assert "preload = [5.0, 0.0, 0.0, 500.0, 0.0, 0.0]" in text  # N, N mm
    again = load_model(path)
    assert again.compliant
    for name, bushing in m.bushings.items():
        other = again.bushings[name]
        for key in ("at", "axes", "stiffness", "damping", "preload"):
            np.testing.assert_allclose(getattr(other, key), getattr(bushing, key), rtol=1e-15, atol=0)
        assert other.replaces == bushing.replaces
    save_model(again, tmp_path / "again.toml")
    assert (tmp_path / "again.toml").read_text() == text


def _builder():
    m = Mechanism("b")
    m.add_link("arm")
    m.add_link("other")
    m.add_pair("pin", "revolute", "ground", "arm", at=(0, 0, 0), axis=(0, 0, 1))
    return m


@pytest.mark.parametrize("kwargs, where, text", [
    ({"first": "nowhere"}, "bushing 'b': first link", "nowhere"),
    ({"second": "ground"}, "bushing 'b'", "to itself"),
    ({"replaces": "nothing"}, "bushing 'b': replaces", "unknown pair"),
    ({"second": "other", "replaces": "pin"}, "bushing 'b': replaces", "joins 'ground' and 'arm'"),
    ({"stiffness": (1, 1, -1, 1, 1, 1)}, "bushing 'b': stiffness[2]", "negative rate"),
    ({"stiffness": (1, 1, 1)}, "bushing 'b': stiffness", "6 numbers"),
    ({"stiffness": np.triu(np.ones((6, 6)))}, "bushing 'b': stiffness", "not symmetric"),
    ({"stiffness": -np.eye(6)}, "bushing 'b': stiffness", "positive semi-definite"),
    ({"damping": (1, 1, 1, 1, 1, np.nan)}, "bushing 'b': damping", "non-finite"),
    ({"preload": (1, 2)}, "bushing 'b': preload", ""),
    ({"axes": ((1, 0, 0), (1, 1, 0), (0, 0, 1))}, "bushing 'b': axes", "not perpendicular"),
    ({"axes": ((1, 0, 0), (0, 1, 0), (0, 0, -1))}, "bushing 'b': axes", "left-handed"),
    ({"axes": ((1, 0, 0), (0, 1, 0))}, "bushing 'b': axes", "three directions"),
    ({"name": "pin"}, "bushing 'pin'", "exists already"),
])
def test_bad_bushings_get_one_located_line(kwargs, where, text):
    m = _builder()
    arguments = dict(name="b", first="ground", second="arm", at=(0, 0, 0), stiffness=(1,) * 6)
    arguments.update(kwargs)
    with pytest.raises(ModelError) as error:
        m.add_bushing(**arguments)
    assert error.value.where == where and text in error.value.problem and "\n" not in str(error.value)


def test_a_bushing_twice_on_one_name_and_loads_on_a_replaced_pair_are_refused():
    m = _builder()
    m.add_bushing("b", "ground", "arm", at=(0, 0, 0), stiffness=(1,) * 6, replaces="pin")
    with pytest.raises(ModelError, match="exists already"):
        m.add_bushing("b", "ground", "arm", at=(0, 0, 0.1), stiffness=(1,) * 6)
    with pytest.raises(ModelError, match="exists already"):
        m.add_pair("b", "revolute", "ground", "other", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair_spring("pin", stiffness=1.0)
    m.snapshot()  # rigid: the pin and its spring are there
    m.use_bushings(True)
    with pytest.raises(ModelError) as error:
        m.snapshot()
    assert error.value.where == "pair spring on 'pin'" and "replaced by bushing 'b'" in error.value.problem
    with pytest.raises(ModelError, match="use_bushings"):
        m.use_bushings("yes")


def test_a_compliant_sweep_takes_no_speeds():
    m = trailing_arm(1e5, 2e3, 100.0, compliant=True)
    with pytest.raises(ModelError, match="speeds"):
        m.sweep({"bush.2": [0.0]}, speeds={"bush.2": 1.0})


@pytest.mark.parametrize("edit, where", [
    (lambda t: t.replace('replaces = "lower_inner"', 'replaces = "lower_outer"', 1), "bushings[0] ('lower_front'): replaces"),
    (lambda t: t.replace("use_bushings = true", 'use_bushings = "yes"'), "use_bushings"),
    (lambda t: t.replace('links = ["ground", "lower_arm"]\nat = [150.0', 'links = ["ground"]\nat = [150.0'), "bushings[0] ('lower_front'): links"),
    (lambda t: t.replace("stiffness = [2000.0, 1000.0, 1500.0, ", "stiffness = [-2000.0, 1000.0, 1500.0, ", 1), "bushings[0] ('lower_front'): stiffness[0]"),
    (lambda t: t.replace("[[bushings]]\n", "[[bushings]]\nstiff = 1\n", 1), "bushings[0] ('lower_front'): stiff"),
])
def test_bad_bushing_tables_are_located_in_the_file(tmp_path, edit, where):
    m = wishbone_on_bushings((2e6, 1e6, 1.5e6, 200.0, 300.0, 0.0))
    m.use_bushings(True)
    path = tmp_path / "bushed.toml"
    save_model(m, path)
    path.write_text(edit(path.read_text()))
    with pytest.raises(ModelError) as error:
        load_model(path)
    assert error.value.where == f"bushed.toml: {where}", str(error.value)


def _tie_rod_on_two_bushings(torsion):
    """The shipped front corner on bushings with its tie rod's two ends on bushings too (stiff
    in translation, ``torsion`` N m/rad about each axis) and a load at the contact patch."""
    m = load_model("examples/front_axle_bushings.toml")
    for pair in ("rack_end", "steer_ball"):
        spec = next(p for p in m.snapshot().declared() if p.name == pair)
        m.add_bushing(f"{pair}_bush", spec.first, spec.second, at=spec.at, stiffness=(5e7,) * 3 + (torsion,) * 3,
                      replaces=pair)
    m.add_point_force("patch", "upright", at=(0.0, 0.780, 0.0), force=(300.0, -800.0, 3500.0))
    m.use_bushings(True)
    return m


def _free_body_sums(m, eq, i):
    """Every link's net wrench about the origin (N m, N) at position i of ``eq``: the pairs'
    reactions (``eq.reactions()``), gravity, the coil-over, the patch force and the travel
    driver's force at the wheel centre, summed here from the model's data."""
    reactions, model = eq.reactions(), m.snapshot()
    net = {link.name: np.zeros(6) for link in model.links}
    for pair in model.pairs:
        f = reactions.force(pair.name)[i]
        n = reactions.moment(pair.name)[i] + np.cross(reactions.frame(pair.name)[i, :3, 3], f)  # about the origin
        net[pair.second] += np.r_[n, f]
        net[pair.first] -= np.r_[n, f]
    for link in model.links:
        pose = eq.pose(link.name)[i]
        weight = link.mass * model.gravity
        net[link.name] += np.r_[np.cross(pose[:3, :3] @ link.com + pose[:3, 3], weight), weight]
    (coil,) = model.spring_dampers
    a, b = eq.point("coil_lower")[i], eq.point("coil_upper")[i]
    tension = coil.stiffness * (np.linalg.norm(b - a) - coil.free_length) * (b - a) / np.linalg.norm(b - a)
    net["lower_arm"] += np.r_[np.cross(a, tension), tension]
    pose = eq.pose("upright")[i]
    patch, force = pose[:3, :3] @ np.array([0.0, 0.780, 0.0]) + pose[:3, 3], np.array([300.0, -800.0, 3500.0])
    travel, centre = eq.force("travel")[i] * np.array([0.0, 0.0, 1.0]), eq.point("wheel_centre")[i]
    net["upright"] += np.r_[np.cross(patch, force), force] + np.r_[np.cross(centre, travel), travel]
    del net["ground"]
    return net


def test_a_tie_rod_between_two_bushings_balances_as_a_free_body():
    """A two-force link with a bushing at each end turns about its own line against their
    torsional rates: a real freedom that settles (no gauge holds it), so every link balances
    with the pair reactions and the loads to round-off (with a gauge its couple, carried by no
    pair, left the upright out of balance by 0.01-0.06 N, N m)."""
    m = _tie_rod_on_two_bushings(torsion=30.0)
    eq = equilibrium(m, drivers={"travel": [-0.03, 0.0, 0.04]}, hold=["hub", "rack_travel"])
    for i in range(len(eq)):
        for link, wrench in _free_body_sums(m, eq, i).items():
            np.testing.assert_allclose(wrench, np.zeros(6), atol=1e-9 * 3500.0, err_msg=f"{link} at {i}")
    assert eq.reactions().residual.max() < 1e-6 and not eq.system.gauges


def test_a_tie_rod_between_two_bushings_without_torsion_keeps_its_gauge():
    """Without torsional rates the spin costs nothing: an idle freedom, held by its gauge, as in
    the rigid variant (the tie rod between two balls)."""
    from loops import compile_model

    m = _tie_rod_on_two_bushings(torsion=0.0)
    for compliant in (True, False):
        m.use_bushings(compliant)
        system = compile_model(m.snapshot())
        assert [system.link_names[g.link] for g in system.gauges] == ["tie_rod"]
