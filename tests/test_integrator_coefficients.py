"""The compiled integrators' coefficients (dynamics/runge_kutta_coefficients.py) are scipy's, bit
for bit: the same arrays as ``scipy.integrate.DOP853`` and ``RK45`` hold, shapes, types and every
double, so the compiled stepping keeps ``solve_ivp``'s error control and dense output."""

import numpy as np
import pytest
from scipy.integrate import DOP853, RK45

from dynamics.integrate import tableau
from dynamics.runge_kutta_coefficients import dop853_coefficients, rk45_coefficients


def assert_same_bits(ours, theirs):
    theirs = np.asarray(theirs)
    assert ours.dtype == theirs.dtype == np.float64
    assert ours.shape == theirs.shape
    assert ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("coefficients, solver, names", [
    (dop853_coefficients, DOP853, ("A", "B", "C", "E3", "E5", "D", "A_EXTRA", "C_EXTRA")),
    (rk45_coefficients, RK45, ("A", "B", "C", "E", "P")),
])
def test_the_coefficients_are_scipys_to_the_bit(coefficients, solver, names):
    stages, error_order, *arrays = coefficients()
    assert (stages, error_order) == (solver.n_stages, solver.error_estimator_order)
    assert len(arrays) == len(names)
    for name, array in zip(names, arrays):
        assert_same_bits(array, getattr(solver, name))


def test_the_tableaus_hold_scipys_coefficients():
    dop853, rk45 = tableau("DOP853"), tableau("RK45")
    for name in ("A", "B", "C", "E3", "E5", "D", "A_EXTRA", "C_EXTRA"):
        assert_same_bits(getattr(dop853, name), getattr(DOP853, name))
        assert getattr(dop853, name).flags.c_contiguous
    assert (dop853.stages, dop853.error_order, dop853.dense_rows) == (12, 7, 7)
    for ours, theirs in (("A", "A"), ("B", "B"), ("C", "C"), ("E5", "E"), ("D", "P")):
        assert_same_bits(getattr(rk45, ours), getattr(RK45, theirs))
    assert (rk45.stages, rk45.error_order, rk45.dense_rows) == (6, 4, 4)
