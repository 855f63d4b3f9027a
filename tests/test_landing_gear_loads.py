"""The landing-gear loads (examples/landing_gear_loads.py) against independent references:
virtual work by central differences of positions for the actuator force and the lock's
moment, the four-bar's closed-form dead centre and margin, and the free fall's energy books
(potential lost = kinetic + the damper's work, integrated from its own law c |v|^3)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import simpson
from scipy.optimize import brentq

from dynamics import simulate
from loops import equilibrium

from example_scripts import example_module


@pytest.fixture(scope="module")
def gear_loads():
    return example_module("landing_gear_loads")


def potential(gear, result):
    """Gravity's potential (J, (N,)) from the links' centres of mass along a sweep."""
    g = np.asarray(gear.gravity)
    total = 0.0
    for name, link in gear.links.items():
        if link.mass > 0.0:
            pose = result.pose(name)
            com = pose[:, :3, :3] @ link.com + pose[:, :3, 3]
            total = total - link.mass * (com @ g)
    return total


def load_work_rate(gear, driver, values, force, h):
    """dV/ds - F . d(axle)/ds at each value by central differences of two sweeps (+-h)."""
    up = gear.sweep({driver: values + h})
    down = gear.sweep({driver: values - h})
    dV = (potential(gear, up) - potential(gear, down)) / (2 * h)
    dx = (up.point("axle") - down.point("axle")) / (2 * h)
    return dV - dx @ force


def test_the_actuator_force_is_the_virtual_work_of_gravity_and_the_air_load(gear_loads):
    """F ds = dV - F_air . dx_axle: with the drag and a side component (so the air load works)."""
    air = np.array([-4000.0, -3000.0, 0.0])
    gear = gear_loads.gear_model(drag=-air[0], side=-air[1])
    down = float(np.linalg.norm(gear.pairs["actuator_end"].at - gear.pairs["actuator_base"].at))
    stroke = np.linspace(-0.01, gear_loads.GEAR.RETRACTED_LENGTH - down + 0.01, 13)
    held = equilibrium(gear, drivers={"actuator": stroke}).force("actuator")
    reference = load_work_rate(gear, "actuator", stroke, air, 1e-6)
    assert_allclose(held, reference, rtol=1e-6, atol=1e-6 * np.abs(reference).max())
    assert np.abs(held).max() > 10_000.0


def test_the_retraction_run_and_the_drag_that_does_no_work(gear_loads):
    """The script's run: drag parallel to the hinges leaves the actuator force unchanged; the
    force matches virtual work with gravity alone; the peak pull is at the retracted end."""
    r = gear_loads.retraction()
    assert_allclose(r["force"], r["gravity_only"], rtol=0, atol=1e-9 * np.abs(r["force"]).max())
    gear = gear_loads.gear_model(drag=0.0)
    reference = load_work_rate(gear, "actuator", r["stroke"][::10], np.zeros(3), 1e-6)
    assert_allclose(r["force"][::10], reference, rtol=1e-6, atol=1e-3)
    assert_allclose(np.degrees(r["leg_angle"][[0, -1]]), [0.0, 90.0], atol=1e-6)
    assert np.argmin(r["force"]) == len(r["force"]) - 1 and -r["force"].min() > 12_000.0


def test_the_down_lock_margin_and_dead_centre_against_the_four_bar(gear_loads):
    """Margin = pi - the knee's included angle at the design pose (law of cosines); the dead
    centre's leg angle solves |R(theta) stay_pin - stay_hinge| = upper + lower stay; the locked
    leg is back at 0 (the mirror image); the break is the knee pair's angle from straight."""
    lock = gear_loads.down_lock()
    gear = gear_loads.gear_model()
    p = gear.pairs
    hinge, knee, pin = p["stay_hinge"].at, p["knee"].at, p["stay_to_leg"].at
    a, b, d = np.linalg.norm(knee - hinge), np.linalg.norm(pin - knee), np.linalg.norm(pin - hinge)
    assert_allclose(lock["margin"], np.pi - np.arccos((a * a + b * b - d * d) / (2 * a * b)), rtol=1e-12)

    def stretch(theta):  # rotation about -x by theta (inboard and up), the trunnion at the origin
        c, s = np.cos(theta), np.sin(theta)
        rotated = np.array([pin[0], c * pin[1] + s * pin[2], -s * pin[1] + c * pin[2]])
        return np.linalg.norm(rotated - hinge) - (a + b)
    dead = brentq(stretch, -0.05, 0.0, xtol=1e-15)
    assert_allclose(lock["dead_centre_leg_angle"], dead, rtol=0, atol=1e-9)
    assert lock["dead_centre_leg_angle"] == lock["leg_angle"].min()
    assert abs(lock["locked_leg_angle"]) < 1e-12
    assert_allclose(lock["geometric_break"], lock["break"], rtol=0, atol=1e-12)


def test_what_the_lock_holds_is_the_virtual_work_of_the_loads(gear_loads):
    """The knee held at its locked value: its moment = dV/dknee - F_air . dx_axle/dknee, and an
    inboard side load presses the lock shut (compression, moment into the stop)."""
    lock = gear_loads.down_lock()
    for drag, side in ((gear_loads.DRAG, 0.0), (0.0, gear_loads.SIDE_LOAD)):
        gear = gear_loads.gear_model(drag=drag, side=side)
        knee = lock["knee"][-1:]
        held = equilibrium(gear, drivers={"knee": knee}).force("knee")
        reference = load_work_rate(gear, "knee", knee, np.array([-drag, -side, 0.0]), 1e-6)
        assert_allclose(held, reference, rtol=1e-6)
    assert gear_loads.into_stop(lock, "gravity and drag") > 0.0
    assert gear_loads.into_stop(lock, "per kN of side load") > 100.0
    assert lock["held"]["per kN of side load"]["stay_compression"] > 1000.0


def test_the_free_fall_balances_its_energy_and_locks_where_the_stay_is_straight(gear_loads):
    """Potential lost = kinetic + the damper's work (c |v|^3 integrated by Simpson's rule from
    the actuator's eye-to-eye speed); at the reported lock time the stay is straight."""
    fall = gear_loads.free_fall(t_end=2.5, samples=2501)
    assert fall["lock_time"] is None and fall["stop_reason"] is None  # not yet locked at 2.5 s
    sim = fall["simulation"]
    gear = gear_loads.gear_model(drag=0.0, damper=fall["damper"])
    lost = potential(gear, sim)[0] - potential(gear, sim)
    base = gear.pairs["actuator_base"].at
    lug, lug_velocity = sim.point("actuator_lug"), sim.point_velocity("actuator_lug")
    speed = np.sum((lug - base) * lug_velocity, axis=1) / np.linalg.norm(lug - base, axis=1)
    work = simpson(fall["damper"] * np.abs(speed) ** 3, x=sim.t)
    kinetic = sim.energy().kinetic
    assert_allclose(lost[-1], kinetic[-1] + work, rtol=1e-7)
    assert work > 0.5 * lost[-1]  # the damper takes most of it
    full = gear_loads.free_fall()
    t_lock = full["lock_time"]
    assert 1.0 < t_lock < gear_loads.FREE_FALL_T_END and full["knee_speed_at_lock"] > 1.0
    design_break, sense = gear_loads.stay_break(gear)
    q0 = {"actuator": gear_loads.GEAR.RETRACTED_LENGTH - float(np.linalg.norm(gear.pairs["actuator_end"].at - base))}
    at_lock = simulate(gear, t_end=t_lock, q0=q0, qd0={}, t_eval=np.array([0.0, t_lock]), rtol=1e-9)
    assert abs(design_break - sense * at_lock.q("knee")[-1]) < 1e-8
    assert_allclose(-sense * at_lock.q_dot("knee")[-1], -full["knee_speed_at_lock"], rtol=1e-5)


def test_a_free_fall_that_stops_keeps_what_it_had(gear_loads, monkeypatch):
    """A run stopped part-way (here after 1 s) keeps its samples and says why; no lock is made up."""
    from mechanism import SimulationStopped

    def stopping(mechanism, t_end, **options):
        options["t_eval"] = options["t_eval"][options["t_eval"] <= 1.0]
        raise SimulationStopped("t = 1 s: closure failed (a test's stop)", simulate(mechanism, 1.0, **options))

    monkeypatch.setattr(gear_loads, "simulate", stopping)
    fall = gear_loads.free_fall()
    assert fall["stop_reason"] == "t = 1 s: closure failed (a test's stop)"
    assert fall["lock_time"] is None and fall["t"][-1] == 1.0 and len(fall["t"]) == 101
    assert fall["leg_angle"][-1] < fall["leg_angle"][0]  # it had started to fall
