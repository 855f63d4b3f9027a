"""Tests of dynamics.energy (over dynamics.kernels.energy): kinetic energy in the trace form
(Pavlov eq. 7), potentials and their generalized forces.

Closed states and their link velocities come from the dynamics' own kinematics
(:func:`dynamics.equations.DynamicModel.start`, a walk from the design pose, then
:func:`dynamics.motion.state_from_walk` and :func:`dynamics.equations.evaluate_state`, which
runs :func:`dynamics.kernels.motion.dynamics_at`); mass matrices and generalized forces from
:func:`dynamics.equations_of_motion`.
"""

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from dynamics import equations_of_motion, simulate
from dynamics.energy import gravity_potential, kinetic_energy, link_pseudo_inertias
from dynamics.equations import dynamic_model, evaluate_state
from dynamics.motion import state_from_walk
from dynamics_models import governor
from mechanism import load_model
from mechanism.transforms import cross
from reference.dynamics_references import WattGovernor

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def four_bar():
    return load_model(EXAMPLES / "four_bar.toml")


def state_of(m, values, rates):
    """Compiled model, closed state (walked from the design pose to the independent coordinates
    ``values``) and its kinematics (link velocities ``kin.V``) for their ``rates``."""
    dyn = dynamic_model(m.snapshot())
    names = list(values)
    cols = dyn.columns(names, "q")
    walk = dyn.start(cols, np.array([values[n] for n in names]))
    state = state_from_walk(walk, dyn.loads, len(cols))
    status = evaluate_state(dyn, state, walk.block, dyn.inertia(), dyn.loads,
                            np.array([rates[n] for n in names]), 0.0, len(cols))
    assert status == 0
    return dyn, state, state.kin


@pytest.mark.parametrize("case", ["four_bar", "governor"])
def test_trace_kinetic_energy_is_the_quadratic_form_and_the_vector_one(case):
    """K = 1/2 sum tr(T' J T'^T) = 1/2 u'^T M u' = sum 1/2 m v_G^2 + 1/2 w^T I w."""
    # Reference: the quadratic form of equations_of_motion's mass matrix and the vector form from the centres'
    # velocities and the central inertias (König), at a four-bar state and a Watt governor state (two coordinates).
    if case == "four_bar":
        m, values, rates = four_bar(), {"A": 0.7}, {"A": -2.5}
    else:
        m, values, rates = governor(WattGovernor(), 0.5), {"spin": 0.3, "arm1": 0.1}, {"spin": 7.0, "arm1": 1.2}
    dyn, state, kin = state_of(m, values, rates)
    poses = state.work.T
    trace = kinetic_energy(poses, kin.V, dyn.J)
    eom = equations_of_motion(m, q=values, qd=rates)
    u_dot = np.array(list(rates.values()))
    quadratic = 0.5 * u_dot @ eom.mass_matrix @ u_dot
    R = poses[:, :3, :3]
    centres = np.einsum("lij,lj->li", R, dyn.coms) + poses[:, :3, 3]
    v_G = kin.V[:, 3:] + cross(kin.V[:, :3], centres)
    omega = kin.V[:, :3]
    I = R @ dyn.inertias @ np.swapaxes(R, 1, 2)
    vector = 0.5 * np.sum(dyn.masses * np.sum(v_G**2, axis=1)) + 0.5 * np.einsum("li,lij,lj->", omega, I, omega)
    # Three evaluations of one O(1) J quantity: round-off.
    assert_allclose(trace, quadratic, rtol=1e-12)
    assert_allclose(trace, vector, rtol=1e-12)


def test_gravity_potential_and_its_force():
    """P = -sum G T J e = -sum m g . c; its negative gradient (finite differences over closed
    assemblies, 4th order, h = 1e-3) is the generalized gravity force."""
    # Reference: -sum m g . c from the links' centres of mass at the design pose, and fourth-order central differences
    # of the potential over closed assemblies for the generalized force of equations_of_motion.
    m = four_bar()
    dyn = dynamic_model(m.snapshot())

    def potential(angle):
        _, state, _ = state_of(m, {"A": angle}, {"A": 0.0})
        return float(gravity_potential(state.work.T, dyn.J, dyn.gravity))

    _, state, _ = state_of(m, {"A": 0.0}, {"A": 0.0})
    coms = np.array([link.com for link in dyn.system.links])
    assert_allclose(potential(0.0), -np.sum(dyn.masses[:, None] * coms * dyn.gravity), rtol=1e-13)
    h = 1e-3
    for angle in (0.4, 2.0, 4.4):
        slope = (potential(angle - 2 * h) - 8 * potential(angle - h) + 8 * potential(angle + h)
                 - potential(angle + 2 * h)) / (12 * h)
        eom = equations_of_motion(m, q={"A": angle})
        # Truncation ~h^4 P^(5) ~ 1e-12 J, closure 1e-13: 1e-8 relative is safe and tight.
        assert_allclose(eom.generalized_forces, [-slope], rtol=1e-8, atol=1e-10)


def test_spring_potentials_are_conservative():
    """Pair spring and coil-over: the energy books balance with no damping (total constant)."""
    # Reference: conservation of energy; the total stays constant to 1e-8 of the largest kinetic energy (rtol 1e-10 run)
    # while the springs exchange more than 0.05 J with the motion.
    m = four_bar()
    m.set_gravity((0, 0, 0))
    m.add_pair_spring("B", stiffness=2.0, free_value=-0.3)
    m.add_spring_damper("coil", "rocker", (0.28, 0.12, 0.0), "ground", (0.1, 0.3, 0.0), stiffness=40.0,
                        free_length=0.15)
    sim = simulate(m, t_end=2.0, q0={"A": 0.5}, qd0={"A": 4.0}, t_eval=np.linspace(0, 2, 41), rtol=1e-10)
    energy = sim.energy()
    assert np.ptp(energy.potential) > 0.05  # the springs do work ...
    assert np.ptp(energy.total) < 1e-8 * np.abs(energy.kinetic).max()  # ... and give it back


def test_energy_history_unpacks_and_balances():
    """sim.energy() unpacks as (kinetic, potential, total), total = kinetic + potential, and the balance is constant."""
    # Reference: conservation of energy for a four-bar falling from rest under gravity (no dampers, no driver work):
    # the balance stays at its initial value to 1e-9 J while the kinetic energy grows from 0 to more than 0.1 J.
    sim = simulate(four_bar(), t_end=0.5, q0={"A": 0.0}, t_eval=np.linspace(0, 0.5, 6), rtol=1e-10)
    energy = sim.energy()
    kinetic, potential, total = energy
    assert_allclose(total, kinetic + potential)
    assert kinetic[0] == 0.0 and kinetic[-1] > 0.1
    assert_allclose(energy.balance, energy.balance[0], rtol=0, atol=1e-9)


def test_massless_links_have_zero_pseudo_inertia():
    """Virtual links (a point driver's road loop) and massless links contribute nothing."""
    # Reference: zero pseudo-inertia for the road loop's virtual links, and link_pseudo_inertias agreeing with the
    # dynamic model's J.
    m = load_model(EXAMPLES / "double_wishbone.toml")
    dyn = dynamic_model(m.snapshot())
    virtual = [i for i, link in enumerate(dyn.system.links) if link.virtual]
    assert virtual and np.all(dyn.J[virtual] == 0.0)
    assert_allclose(link_pseudo_inertias(dyn.system.links), dyn.J)
