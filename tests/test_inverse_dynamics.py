"""Inverse dynamics over a sweep, round trips with forward dynamics, and pair reactions."""

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from dynamics import equations_of_motion, inverse_dynamics, simulate
from dynamics_models import slider_crank
from mechanism import Mechanism, ModelError, SweepStopped, load_model
from reference.dynamics_references import SliderCrank, slider_crank_torque

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def four_bar():
    return load_model(EXAMPLES / "four_bar.toml")


@pytest.mark.parametrize("piston_force", [0.0, 150.0])
def test_slider_crank_torque_by_virtual_work(piston_force):
    """Offset slider-crank at constant crank speed: the hand-derived (SymPy) power balance.

    Torques are O(10) N m; both sides are exact formulas evaluated in floating point, so
    1e-10 relative to the largest torque is round-off with margin.
    """
    p = SliderCrank(piston_force=piston_force)
    design = 0.4
    theta = np.linspace(0.0, 2 * np.pi, 73)
    result = inverse_dynamics(slider_crank(p, design), {"crank": theta - design}, speeds={"crank": 12.0})
    expected = slider_crank_torque(p, theta, 12.0)
    assert_allclose(result.force("crank"), expected, rtol=0, atol=1e-10 * np.abs(expected).max())
    kane = inverse_dynamics(slider_crank(p, design), {"crank": theta[::8] - design}, speeds={"crank": 12.0},
                            method="kane")
    assert_allclose(kane.force("crank"), expected[::8], rtol=0, atol=1e-10 * np.abs(expected).max())


def test_round_trip_simulated_force_is_recovered():
    """Simulate with a pair torque f(t); inverse dynamics of the bare mechanism along the
    stored motion (values, rates, accelerations) gives f(t) back.

    The stored accelerations are those of the equations at the stored states, so the
    round trip does not depend on the integration error; what is left is the closure
    tolerance of the two solves (1e-13 at rtol 1e-10) times the torque's sensitivity to
    the dependent variables (~10 N m/rad): 1e-9 N m with margin.
    """
    driven = four_bar()
    torque = lambda t: 0.8 * np.sin(2.0 * t) + 0.3  # noqa: E731
    driven.add_pair_force("A", torque)
    sim = simulate(driven, t_end=1.5, q0={"A": 0.1}, qd0={"A": 2.0}, t_eval=np.linspace(0, 1.5, 31), rtol=1e-10)
    result = inverse_dynamics(four_bar(), {"A": sim.q("A")}, speeds={"A": sim.q_dot("A")},
                              accelerations={"A": sim.q_ddot("A")}, times=sim.t)
    assert_allclose(result.force("A"), torque(sim.t), rtol=0, atol=1e-9)


def test_round_trip_inverse_torque_drives_the_motion():
    """The torque inverse dynamics asks for, applied as f(t), reproduces the prescribed motion."""
    bare = four_bar()

    def motion(t):  # a smooth crank motion: angle, speed, acceleration
        return 0.5 * t + 0.4 * np.sin(2 * t), 0.5 + 0.8 * np.cos(2 * t), -1.6 * np.sin(2 * t)

    def torque(t):
        value, speed, acceleration = motion(t)
        eom = equations_of_motion(bare, q={"A": value}, qd={"A": speed}, t=t)
        return float(eom.mass_matrix[0, 0] * acceleration - eom.forces[0])

    driven = four_bar()
    driven.add_pair_force("A", torque)
    times = np.linspace(0.0, 1.0, 11)
    sim = simulate(driven, t_end=1.0, q0={"A": 0.0}, qd0={"A": 1.3}, t_eval=times, rtol=1e-10)
    # Integration error of an exact torque law over 1 s at rtol 1e-10.
    assert_allclose(sim.q("A"), motion(times)[0], rtol=0, atol=1e-8)


def test_pendulum_pivot_reaction():
    """One rod on a pivot: the pivot force is m (a_G - g), the moment about the pin axis is the
    driver torque, and the pin carries no moment across its axis (minimum norm)."""
    m = Mechanism("pendulum")
    mass, length = 2.0, 0.8
    m.add_link("rod", mass=mass, com=(length / 2, 0, 0), inertia=np.diag([0, 1, 1]) * mass * length**2 / 12)
    m.add_pair("O", "revolute", "ground", "rod", at=(0, 0, 0), axis=(0, 0, 1))
    m.set_gravity((0, -9.81, 0))
    theta = np.linspace(0, 2 * np.pi, 13)
    speed, accel = 3.0, -2.0
    result = inverse_dynamics(m, {"O": theta}, speeds={"O": speed}, accelerations={"O": accel})
    reactions = result.reactions()
    r = length / 2
    a_G = np.stack([-r * speed**2 * np.cos(theta) - r * accel * np.sin(theta),
                    -r * speed**2 * np.sin(theta) + r * accel * np.cos(theta), 0 * theta], axis=1)
    expected = mass * (a_G - np.array([0, -9.81, 0]))
    assert_allclose(reactions.force("O"), expected, rtol=0, atol=1e-10)
    assert_allclose(reactions.moment("O")[:, 2], result.force("O"), rtol=0, atol=1e-10)
    assert_allclose(reactions.moment("O")[:, :2], 0.0, atol=1e-10)
    torque = mass * length**2 / 3 * accel + mass * 9.81 * r * np.cos(theta)
    assert_allclose(result.force("O"), torque, rtol=0, atol=1e-10)


def test_four_bar_reactions_balance_the_whole_mechanism():
    """Ground pairs carry what the moving links' momentum and weight need (momentum balance),
    and each pin transmits exactly its pair's torque about its axis."""
    m = four_bar()
    m.add_pair_spring("D", stiffness=3.0, free_value=0.1, damping=0.2)
    theta = np.linspace(0, 2 * np.pi, 19)
    result = inverse_dynamics(m, {"A": theta}, speeds={"A": 4.0}, accelerations={"A": 1.5})
    reactions = result.reactions()
    assert reactions.residual.max() < 1e-9
    # Sum over the moving links of m a_G - m g equals the force from the ground pairs.
    total = np.zeros((len(theta), 3))
    for link, mass in (("crank", 1.0), ("coupler", 3.0), ("rocker", 2.5)):
        com = np.array(m.links[link].com)
        T = result.pose(link)
        V, A = result.link_velocity(link), result.link_acceleration(link)
        c = np.einsum("nij,j->ni", T[:, :3, :3], com) + T[:, :3, 3]
        v = V[:, 3:] + np.cross(V[:, :3], c)
        a = A[:, 3:] + np.cross(A[:, :3], c) + np.cross(V[:, :3], v)
        total += mass * (a - np.array([0, -9.81, 0]))
    from_ground = reactions.force("A") - reactions.force("D")  # D is declared (rocker, ground)
    assert_allclose(from_ground, total, rtol=0, atol=1e-9 * np.abs(total).max())
    # Pin torques about their axes: the driver at A, the spring-damper at D, none at B, C.
    assert_allclose(reactions.moment_local("A")[:, 2], result.force("A"), rtol=0, atol=1e-9)
    spring = -3.0 * (result.q("D") - 0.1) - 0.2 * result.q_dot("D")
    assert_allclose(reactions.moment_local("D")[:, 2], spring, rtol=0, atol=1e-9)
    assert_allclose(reactions.moment_local("B")[:, 2], 0.0, atol=1e-9)
    # Local axes are the pair frame's: global = R local.
    R = reactions.frame("C")[:, :3, :3]
    assert_allclose(np.einsum("nij,nj->ni", R, reactions.force_local("C")), reactions.force("C"), atol=1e-12)


def test_ball_joint_loads_along_a_bump_sweep():
    """Suspension use case: ball joints transmit forces only (no moment about their centres)."""
    m = load_model(EXAMPLES / "double_wishbone.toml")
    m.add_spring_damper("coil", "lower_arm", (0.0, 0.45, 0.05), "ground", (0.0, 0.40, 0.45),
                        stiffness=3.0e4, free_length=0.45)
    travel = np.linspace(-0.04, 0.04, 9)
    result = inverse_dynamics(m, {"travel": travel, "hub": 0.0}, speeds={"travel": 0.3})
    reactions = result.reactions()
    scale = np.abs(reactions.force("lower_ball")).max()
    assert scale > 10.0
    for ball in ("lower_ball", "upper_ball", "rack_end", "steer_ball"):
        # Only the tie rod's own spin inertia is left unbalanced by the balls (its gauge):
        # moments stay below 1e-6 of the forces times the mechanism's size.
        assert np.abs(reactions.moment(ball)).max() < 1e-6 * scale


def test_simulation_reactions():
    """Reactions along a simulation: the pendulum's pivot force from the stored motion."""
    m = Mechanism("pendulum")
    m.add_link("rod", mass=1.0, com=(0.5, 0, 0), inertia=np.diag([0, 1, 1]) / 12)
    m.add_pair("O", "revolute", "ground", "rod", at=(0, 0, 0), axis=(0, 0, 1))
    m.set_gravity((0, -9.81, 0))
    sim = simulate(m, t_end=1.0, q0={"O": 0.0}, t_eval=np.linspace(0, 1, 11), rtol=1e-10)
    reactions = sim.reactions()
    theta, w, alpha = sim.q("O"), sim.q_dot("O"), sim.q_ddot("O")
    a = np.stack([-0.5 * w**2 * np.cos(theta) - 0.5 * alpha * np.sin(theta),
                  -0.5 * w**2 * np.sin(theta) + 0.5 * alpha * np.cos(theta), 0 * theta], axis=1)
    assert_allclose(reactions.force("O"), a - np.array([0, -9.81, 0]), rtol=0, atol=1e-9)
    assert_allclose(reactions.moment("O"), 0.0, atol=1e-9)


def test_sweep_that_cannot_go_on_stops_with_partial():
    with pytest.raises(SweepStopped) as info:
        inverse_dynamics(four_bar(), {"D": np.linspace(0.0, 3.0, 31)})
    assert len(info.value.partial) >= 1 and "D" in info.value.reason


@pytest.mark.parametrize("kwargs, where", [
    (dict(drivers={"A": [0.0, 0.1], "D": [0.0, 0.1]}), "drivers"),
    (dict(drivers={"X": [0.0]}), "driver 'X'"),
    (dict(drivers={"A": [0.0, np.nan]}), "driver 'A'"),
    (dict(drivers={"A": [0.0, 0.1]}, speeds={"A": [1.0, 2.0, 3.0]}), "speed 'A'"),
    (dict(drivers={"A": [0.0]}, method="euler"), "method"),
])
def test_bad_input_is_a_located_model_error(kwargs, where):
    with pytest.raises(ModelError) as info:
        inverse_dynamics(four_bar(), **kwargs)
    assert str(info.value).startswith(where)
