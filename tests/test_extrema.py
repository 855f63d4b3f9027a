"""Extremes of an output along a driver (loops.extrema) against the crank-rocker's closed form."""

import pathlib

import numpy as np
import pytest
from numpy.testing import assert_allclose

from loops.extrema import stationary_points
from mechanism import ClosureError, load_model

FOUR_BAR = pathlib.Path(__file__).resolve().parent.parent / "examples" / "four_bar.toml"
CRANK, COUPLER, ROCKER, GROUND = 0.1, 0.3, 0.25, 0.3


def _limit_crank_angles():
    """Crank angles at the rocker's limits: crank and coupler collinear, extended (|AC| =
    coupler + crank) and folded (|AC| = coupler - crank); C from the two circles about A and
    D (the upper intersection, the model's assembly mode)."""
    angles = []
    for reach in (COUPLER + CRANK, COUPLER - CRANK):
        x = (reach ** 2 - ROCKER ** 2 + GROUND ** 2) / (2 * GROUND)
        y = np.sqrt(reach ** 2 - x ** 2)
        angle = np.arctan2(y, x)
        angles.append(angle if reach > COUPLER else angle + np.pi)  # folded: the crank points away from C
    return np.array(angles)


def test_rocker_limits_match_the_collinear_positions():
    """Newton on dD/dA from coarse guesses lands on the closed-form limits to 1e-10 rad
    (the Newton step tolerance is 1e-12; the closure tolerance 1e-10 bounds the rest)."""
    mechanism = load_model(FOUR_BAR)
    coarse = mechanism.sweep({"A": np.radians(np.arange(0, 361, 10))})
    rocker = coarse.q("D")
    guesses = np.radians(np.arange(0, 361, 10))[[np.argmin(rocker), np.argmax(rocker)]]
    values, result = stationary_points(mechanism, "A", "D", guesses)
    expected = np.sort(_limit_crank_angles() % (2 * np.pi))
    assert_allclose(np.sort(values % (2 * np.pi)), expected, rtol=0, atol=1e-10)
    assert_allclose(result.q_dot("D"), 0.0, rtol=0, atol=1e-12)


def test_an_output_without_curvature_is_refused():
    """The driver itself has no extreme: a one-line ClosureError, not a division by zero."""
    mechanism = load_model(FOUR_BAR)
    with pytest.raises(ClosureError, match="'A' has no curvature at A"):
        stationary_points(mechanism, "A", "A", [0.5])
