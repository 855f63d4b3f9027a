"""Lagrange's equations in the trace form (METHOD.md, "Dynamics (7)"): ``equations_of_motion``.

Held against the SymPy references of ``tests/reference/dynamics_references.py`` and
against finite differences of the mass matrix (the velocity-product terms are the
Christoffel terms ``h = M' u' - 1/2 dM/du (u', u')``).
"""

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import four_bar as crank_rocker, four_bar_rocker_limits
from dynamics import equations_of_motion, simulate
from dynamics_models import double_pendulum, governor, solar_array
from mechanism import Mechanism, ModelError, SimulationStopped, SweepStopped, load_model
from reference.dynamics_references import (
    RodDoublePendulum,
    SolarArray,
    WattGovernor,
    double_pendulum_accelerations,
    double_pendulum_mass_matrix,
    solar_array_accelerations,
)

FOUR_BAR = Path(__file__).resolve().parent.parent / "examples" / "four_bar.toml"


def four_bar():
    return load_model(FOUR_BAR)


def test_single_rod_pendulum_closed_form():
    """M = m l^2 / 3 about the pivot; f = -m g l/2 cos(theta) (rod horizontal at theta = 0)."""
    m = Mechanism("pendulum")
    m.add_link("rod", mass=2.0, com=(0.5, 0, 0), inertia=np.diag([0, 2 / 12, 2 / 12]))
    m.add_pair("O", "revolute", "ground", "rod", at=(0, 0, 0), axis=(0, 0, 1))
    m.set_gravity((0, -9.81, 0))
    for theta in (0.0, 0.7, 2.5):
        eom = equations_of_motion(m, q={"O": theta}, qd={"O": 3.0})
        # Round-off only: O(1) numbers through a few dozen operations.
        assert_allclose(eom.mass_matrix, [[2.0 / 3.0]], rtol=1e-13)
        assert_allclose(eom.forces, [-2.0 * 9.81 * 0.5 * np.cos(theta)], rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("angles, rates", [((0.3, -0.5), (0.0, 1.0)), ((-1.2, 2.0), (3.0, -2.0)),
                                           ((2.9, 0.1), (-1.5, 0.4))])
def test_double_pendulum_against_sympy(angles, rates):
    """M(q) and M^-1 f equal SymPy's Kane equations (independent derivation) to round-off."""
    p = RodDoublePendulum()
    eom = equations_of_motion(double_pendulum(p), q={"O": angles[0], "A": angles[1]},
                              qd={"O": rates[0], "A": rates[1]})
    assert eom.coordinates == ["O", "A"]
    # Entries are O(0.1..1) kg m^2; the walk closes nothing here (open chain), so only
    # round-off separates the two: 1e-12 relative.
    assert_allclose(eom.mass_matrix, double_pendulum_mass_matrix(p, angles), rtol=1e-12, atol=1e-14)
    assert_allclose(eom.accelerations(), double_pendulum_accelerations(p, angles, rates),
                    rtol=1e-11, atol=1e-12)


def test_solar_array_against_published_equations():
    """Accelerations equal the issue's (SymPy-checked) equations, springs included."""
    p = SolarArray()
    m = solar_array(p)
    for phi1, phi2, w1, w2 in [(np.pi / 2, 0.0, 0.0, 0.0), (1.1, 1.3, 0.4, -0.8), (2.0, 2.6, -1.0, 2.0)]:
        eom = equations_of_motion(m, q={"root": phi1 - np.pi / 2, "hinge": phi2}, qd={"root": w1, "hinge": w2})
        expected = solar_array_accelerations(p, (phi1, phi2), (w1, w2))
        assert_allclose(eom.accelerations(), expected, rtol=1e-11, atol=1e-12)


def central_difference(f, x, h):
    return (f(x - 2 * h) - 8 * f(x - h) + 8 * f(x + h) - f(x + 2 * h)) / (12 * h)


@pytest.mark.parametrize("case", ["four_bar", "governor"])
def test_velocity_products_are_christoffel_terms(case):
    """h_s = sum_t (dM_st/du_r - 1/2 dM_rt/du_s) u_r' u_t', M by finite differences of closed assemblies.

    Fourth-order differences with h = 1e-3 rad: truncation ~h^4 |M^(5)| ~ 1e-12, round-off
    ~1e-16/h ~ 1e-13 of M; the closures are solved to 1e-13. Hence 1e-7 relative is loose
    by orders of magnitude yet catches any wrong term (they are O(1) of h).
    """
    if case == "four_bar":
        m, names, point, rates = four_bar(), ["A"], np.array([0.9]), np.array([2.3])
    else:
        m, names = governor(WattGovernor(), 0.5), ["spin", "arm1"]
        point, rates = np.array([0.4, 0.05]), np.array([6.0, -1.5])
    eom = equations_of_motion(m, q=dict(zip(names, point)), qd=dict(zip(names, rates)))

    def mass(x):
        return equations_of_motion(m, q=dict(zip(names, x))).mass_matrix

    k = len(names)
    dM = np.array([central_difference(lambda s: mass(point + s * np.eye(k)[r]), 0.0, 1e-3) for r in range(k)])
    # dM[r] = dM/du_r
    expected = (np.einsum("rst,r,t->s", dM, rates, rates) - 0.5 * np.einsum("srt,r,t->s", dM, rates, rates))
    assert_allclose(eom.velocity_terms, expected, rtol=1e-7, atol=1e-9 * np.abs(expected).max())


def test_mass_matrix_symmetric_positive_definite():
    """M is symmetric positive definite on a spatial mechanism with an idle spin (tie rod)."""
    m = load_model(FOUR_BAR.parent / "double_wishbone.toml")
    eom = equations_of_motion(m, q={"travel": 0.03, "hub": 0.2}, qd={"travel": 0.4, "hub": 5.0})
    M = eom.mass_matrix
    assert_allclose(M, M.T, rtol=0, atol=1e-14 * np.abs(M).max())
    assert np.all(np.linalg.eigvalsh(M) > 0)


@pytest.mark.parametrize("kwargs, where", [
    (dict(q={"X": 0.0}), "q 'X'"),
    (dict(q={"A": 0.0, "B": 0.1}), "q:"),
    (dict(q={"A": float("nan")}), "q 'A'"),
    (dict(q={"A": 0.0}, qd={"B": 1.0}), "qd 'B'"),
    (dict(q={"A": 0.0}, method="hamilton"), "method"),
    (dict(q={}), "q:"),
])
def test_bad_input_is_a_located_model_error(kwargs, where):
    with pytest.raises(ModelError) as info:
        equations_of_motion(four_bar(), **kwargs)
    message = str(info.value)
    assert message.startswith(where) and "\n" not in message


def test_dependent_coordinates_are_refused_with_a_suggestion():
    """Wheel travel and the lower arm's angle move together: not a valid pair of coordinates."""
    m = load_model(FOUR_BAR.parent / "double_wishbone.toml")
    with pytest.raises(ModelError, match="not independent"):
        equations_of_motion(m, q={"travel": 0.0, "lower_inner": 0.0})


def test_unreachable_value_is_a_stopped_walk_with_the_position_reached():
    """The crank-rocker's rocker cannot swing a full turn: SweepStopped keeps where the walk stopped."""
    # A solver failure, not bad input (issue 9: one family of errors): SweepStopped, whose partial is the closed
    # position at the rocker's toggle (D = 0.1012 rad, core_models.four_bar_rocker_limits) where the walk stopped.
    with pytest.raises(SweepStopped) as caught:
        equations_of_motion(crank_rocker(), q={"D": 3.0})
    stop = caught.value
    assert not isinstance(stop, ModelError)
    # Values in the model's own units (SI for a model built in Python), with the unit.
    assert stop.reason.startswith("q: cannot reach D = 3 rad from the design pose: a dead point at D = 0.1011")
    assert len(stop.partial) == 1 and stop.partial.stop_reason == stop.reason
    assert abs(stop.partial.q("D")[0] - four_bar_rocker_limits()[1]) < 1e-6


def test_simulation_from_an_unreachable_start_stops_with_no_sample():
    """simulate() from a q0 beyond reach: SimulationStopped with an empty partial, not a ModelError."""
    with pytest.raises(SimulationStopped) as caught:
        simulate(crank_rocker(), t_end=1.0, q0={"D": 3.0})
    assert "cannot reach D = 3" in caught.value.reason and len(caught.value.partial) == 0
