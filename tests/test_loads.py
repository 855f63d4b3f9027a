"""Loads as generalized forces (``loops.loads``): pair springs, dampers, pair forces, point
forces and point-to-point spring-dampers, checked by virtual work on closed assemblies."""

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from dynamics import equations_of_motion, simulate
from loops.loads import load_function
from mechanism import ModelError, load_model

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
H = 1e-4  # finite-difference step, rad


def four_bar(gravity=False):
    m = load_model(EXAMPLES / "four_bar.toml")
    if not gravity:
        m.set_gravity((0, 0, 0))
    return m


def forces(m, angle, rate=0.0, t=0.0):
    return equations_of_motion(m, q={"A": angle}, qd={"A": rate}, t=t)


def dependent(m, angle, name):
    return forces(m, angle).q(name)


def test_pair_spring_and_damper_times_the_transmission_ratio():
    """Q = (-k (q_D - q_free) - c q_D') dq_D/du, with dq_D/du by finite differences."""
    m = four_bar()
    m.add_pair_spring("D", stiffness=7.0, free_value=0.2, damping=0.4)
    angle, rate = 1.1, 2.0
    ratio = (dependent(m, angle + H, "D") - dependent(m, angle - H, "D")) / (2 * H)
    q_D = dependent(m, angle, "D")
    expected = (-7.0 * (q_D - 0.2) - 0.4 * ratio * rate) * ratio
    # Central difference error ~H^2 q''' ~ 1e-8 relative.
    assert_allclose(forces(m, angle, rate).generalized_forces, [expected], rtol=1e-7)


def test_pair_force_function_and_table():
    """f(t) and a (times, values) table (linear, held beyond its ends) in a pair variable."""
    table = (np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0, -1.0]))
    m = four_bar()
    m.add_pair_force("C", table)
    angle = 0.6
    ratio = (dependent(m, angle + H, "C") - dependent(m, angle - H, "C")) / (2 * H)
    for t, value in ((0.5, 1.0), (1.5, 0.5), (3.0, -1.0)):
        assert_allclose(forces(m, angle, t=t).generalized_forces, [value * ratio], rtol=1e-7)
    f = load_function(lambda t: 3 * t, 1, "here")
    assert f(2.0) == 6.0


def test_point_force_through_the_point_jacobian():
    """Q = F . dR/du for a force at a point of the coupler (virtual work)."""
    m = four_bar()
    point = np.array([0.25, 0.05, 0.0])
    m.add_point("P2", "coupler", at=point)
    m.add_point_force("push", "coupler", at=point, force=lambda t: (1.0 + t, -2.0, 0.5))
    angle = 2.2

    def position(a):
        res = m.sweep({"A": [a]})
        return res.point("P2")[0]

    dR = (position(angle + H) - position(angle - H)) / (2 * H)
    expected = np.array([1.5, -2.0, 0.5]) @ dR
    assert_allclose(forces(m, angle, t=0.5).generalized_forces, [expected], rtol=1e-7)


def test_spring_damper_force_is_minus_the_potential_gradient():
    """A coil-over between coupler and ground: Q = -(k (l - l0) + c l') dl/du."""
    m = four_bar()
    a = np.array([0.2, 0.1, 0.0])
    b = np.array([0.15, 0.45, 0.0])
    m.add_point("Pa", "coupler", at=a)
    m.add_spring_damper("coil", "coupler", a, "ground", b, stiffness=300.0, damping=4.0, free_length=0.3)
    angle, rate = 0.9, -1.5

    def length(x):
        return np.linalg.norm(m.sweep({"A": [x]}).point("Pa")[0] - b)

    slope = (length(angle + H) - length(angle - H)) / (2 * H)
    tension = 300.0 * (length(angle) - 0.3) + 4.0 * slope * rate
    assert_allclose(forces(m, angle, rate).generalized_forces, [-tension * slope], rtol=1e-7)


def test_damping_dissipates_and_external_work_is_booked():
    m = four_bar(gravity=True)
    m.add_pair_spring("A", stiffness=0.0, damping=0.02)
    m.add_point_force("push", "crank", at=(0.1, 0, 0), force=(0.0, 1.0, 0.0))
    sim = simulate(m, t_end=1.0, q0={"A": 0.0}, t_eval=np.linspace(0, 1, 21), rtol=1e-10)
    energy = sim.energy()
    assert np.all(np.diff(energy.dissipated) >= 0.0)
    # Work of a constant force = F . displacement of its point.
    tip = np.stack([0.1 * np.cos(sim.q("A")), 0.1 * np.sin(sim.q("A"))], axis=1)
    assert_allclose(energy.external_work, 1.0 * (tip[:, 1] - tip[0, 1]), rtol=0, atol=1e-9)
    # ~7 J of potential energy integrated at rtol 1e-10 over ~100 steps: 1e-8 J.
    assert_allclose(energy.balance, energy.balance[0], rtol=0, atol=1e-8)


def test_load_function_errors_are_located():
    m = four_bar()
    m.add_pair_force("A", lambda t: float("nan"))
    with pytest.raises(ModelError, match="pair force on 'A'"):
        forces(m, 0.3)
    m = four_bar()
    m.add_point_force("bad", "crank", at=(0.1, 0, 0), force=lambda t: (1.0, 2.0))
    with pytest.raises(ModelError, match="point force 'bad'"):
        forces(m, 0.3)


def test_called_back_values_are_refused_for_a_view_taken_inside_a_kernel():
    """The kernels run without numba's reference counting, where object mode receives the array
    a kernel's view was taken from: ``call_load_into`` checks the shape, so a called-back value
    is never written into the wrong row."""
    numba = pytest.importorskip("numba")
    if numba.config.DISABLE_JIT:
        pytest.skip("object mode exists only in compiled code")
    from loops import loads
    from loops.kernels.loads import _evaluate

    @numba.njit(_nrt=False)
    def into_the_rows_after_the_first(keys, ptr, times, values, t, out):
        _evaluate(keys, ptr, times, values, t, out[1:])

    key = next(loads._KEYS)
    loads._REGISTRY[key] = lambda t: np.array([2.0 * t])
    try:
        out = np.zeros((2, 1))
        with pytest.raises(RuntimeError, match="a view taken inside a kernel"):
            into_the_rows_after_the_first(np.array([key]), np.array([0, 1]), np.zeros(1), np.zeros((1, 1)), 1.5, out)
        assert out[0, 0] == 0.0  # nothing written where the view does not reach
    finally:
        loads._REGISTRY.pop(key)
