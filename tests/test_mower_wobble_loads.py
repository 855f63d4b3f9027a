"""The wobble drive's loads (examples/mower_wobble_loads.py) against energy: at constant input
speed with no dissipation the input power is the rate of the kinetic energy (plus gravity's,
zero here), computed independently from the links' poses and velocities, and its mean over a
turn is zero; every free body balances."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from example_scripts import example_module


@pytest.fixture(scope="module")
def wobble():
    return example_module("mower_wobble_loads")


def energies(drive, result):
    """Kinetic and gravity's potential energy (J, (N,)) from poses and spatial velocities
    ``(omega, v at the global origin)``: 1/2 m |v_c|^2 + 1/2 w . R I R^T w, and -m g . c."""
    kinetic, potential = 0.0, 0.0
    for name, link in drive.links.items():
        if link.mass == 0.0:
            continue
        pose, twist = result.pose(name), result.link_velocity(name)
        com = pose[:, :3, :3] @ link.com + pose[:, :3, 3]
        w, v0 = twist[:, :3], twist[:, 3:]
        vc = v0 + np.cross(w, com)
        inertia = pose[:, :3, :3] @ link.inertia @ np.transpose(pose[:, :3, :3], (0, 2, 1))
        kinetic = kinetic + 0.5 * link.mass * np.sum(vc * vc, axis=1) + 0.5 * np.einsum("ni,nij,nj->n", w, inertia, w)
        potential = potential - link.mass * (com @ np.asarray(drive.gravity))
    return kinetic, potential


def test_input_power_is_the_rate_of_kinetic_energy_and_averages_to_zero(wobble):
    r = wobble.analyse()
    drive, omega, theta = r["drive"], r["omega"], r["input_angle"]
    h = 1e-5
    up = drive.sweep({"input": theta + h}, speeds={"input": omega})
    down = drive.sweep({"input": theta - h}, speeds={"input": omega})
    (k_up, v_up), (k_down, v_down) = energies(drive, up), energies(drive, down)
    rate = ((k_up + v_up) - (k_down + v_down)) / (2 * h) * omega  # d(K + V)/dt = d(K + V)/dtheta * omega
    scale = np.abs(r["power"]).max()
    assert_allclose(r["power"], rate, rtol=0, atol=1e-6 * scale)
    assert_allclose(v_up, v_up[0], rtol=0, atol=1e-9)  # gravity does no work in this drive
    assert abs(np.mean(r["power"][:-1])) < 1e-9 * scale  # a whole turn of uniform samples
    assert scale > 1000.0 and r["peak_torque"] > 10.0


def test_the_knife_and_the_fork_balance(wobble):
    """Free bodies: the knife's guide and pin forces plus its weight give m a (the knife only
    translates); the torque the shaft takes is the moment its bearing adds about the shaft."""
    r = wobble.analyse(step_deg=10.0)
    drive, inv = r["drive"], r["result"]
    knife = drive.links["knife"]
    reactions = inv.reactions()
    accel = inv.point_acceleration("knife_head")
    weight = knife.mass * np.asarray(drive.gravity)
    # each pair's force acts on its second link; the knife is second in knife_guide and knife_pin
    total = reactions.force("knife_guide") + reactions.force("knife_pin") + weight
    assert_allclose(total, knife.mass * accel, rtol=0, atol=1e-9 * knife.mass * np.abs(accel).max())
