"""Tests of loops.held: real freedoms no driver fixes are held at their values during a sweep.

DESIGN.md: for each real freedom that no driver fixes, the sweep holds one pair variable at
its current value (one that completes the drivers to full rank, pairs to the ground first:
a steering rack, a wheel's spin), names them in ``res.held``, and ``hold=[...]`` chooses
them; nothing drifts. References: the same sweep with those variables given as drivers at
their design values (the held sweep must be that sweep, to round-off), and the toe of the
wheel computed here from the wheel-centre and hub points by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import EXAMPLES, double_wishbone
from mechanism import ModelError, load_model

TRAVEL = np.linspace(-0.08, 0.08, 33)  # m, wheel-centre travel


@pytest.fixture(scope="module")
def steer():
    """The double wishbone with a steering rack (dof 3: travel, rack, wheel spin)."""
    return load_model(EXAMPLES / "double_wishbone_steer.toml")


def toe(res):
    """Toe (rad, positive toe-in for a wheel whose spin axis points to +y) from the spin axis:
    the angle of its horizontal projection from the lateral axis, by hand."""
    axis = res.point("wheel_centre") - res.point("hub_inner")
    return np.arctan2(axis[:, 0], axis[:, 1])


def test_a_travel_sweep_holds_the_rack_and_the_wheel_spin(steer):
    """Travel alone: the rack and the wheel's spin are held at exactly their design values and named."""
    # The wishbone has three freedoms; travel fixes one, so two pair variables are held: the rack's slide (a pair to
    # the ground) and the wheel's spin on its hub. They keep their values exactly (the walk never moves a held
    # column), so the toe at the design pose is the design toe (0 here), not the +0.028 deg the minimum-norm motion
    # gave when the rack drifted.
    assert steer.check().dof == 3
    res = steer.sweep({"travel": TRAVEL})
    assert sorted(res.held) == ["hub", "rack_travel"]
    for name in res.held:
        assert np.all(res.q(name) == 0.0), name
    design = int(np.argmin(np.abs(TRAVEL - 0.0)))
    assert TRAVEL[design] == 0.0
    assert abs(toe(res)[design]) < 1e-12


def test_held_sweep_is_the_sweep_with_the_held_variables_driven(steer):
    """Holding the rack and the spin is the same as driving them at 0: positions and rates to round-off."""
    # Reference: the sweep that drives travel, rack_travel and hub explicitly (the rack at its design value, the spin
    # at 0). Same closure and tolerance, positions polished far below the tolerance: 1e-12 m and rad. Velocities at
    # the same driver speeds agree to round-off of the same linear solves.
    held = steer.sweep({"travel": TRAVEL}, speeds={"travel": 0.5})
    zeros = np.zeros_like(TRAVEL)
    driven = steer.sweep({"travel": TRAVEL, "rack_travel": zeros, "hub": zeros}, speeds={"travel": 0.5})
    for name in ("lower_inner", "upper_inner", "steer_ball", "rack_end"):
        assert_allclose(held.q(name), driven.q(name), rtol=0.0, atol=1e-12, err_msg=name)
        assert_allclose(held.q_dot(name), driven.q_dot(name), rtol=0.0, atol=1e-12, err_msg=name)
    assert_allclose(toe(held), toe(driven), rtol=0.0, atol=1e-12)
    assert_allclose(held.point("wheel_centre"), driven.point("wheel_centre"), rtol=0.0, atol=1e-12)


def test_hold_chooses_the_held_variables(steer):
    """hold=["hub"] holds the spin as asked and completes the rest (the rack); both named, neither moves."""
    res = steer.sweep({"travel": TRAVEL}, hold=["hub"])
    assert res.held[0] == "hub" and sorted(res.held) == ["hub", "rack_travel"]
    assert np.all(res.q("hub") == 0.0) and np.all(res.q("rack_travel") == 0.0)


def test_a_steering_sweep_holds_the_travel_freedom_by_a_pair_variable():
    """Rack driven on the corner without a point driver: the suspension's own freedom is held by a pair variable."""
    # With no road loop, the wheel-travel freedom must be held by a real pair variable; the choice is the one that
    # fixes it best (an arm pivot), and its value stays exactly at the design value.
    res = double_wishbone().sweep({"hub": np.linspace(0.0, 1.0, 5)})
    assert res.held and all(np.all(res.q(name) == 0.0) for name in res.held)


@pytest.mark.parametrize("hold, where, problem", [
    (["travel"], "hold 'travel'", "is a driver of this sweep"),
    (["rack_travel", "hub", "lower_inner"], "hold", "3 held variable(s) and 1 driver(s) for 3 degree(s) of freedom"),
    (["lower_inner", "upper_inner"], "hold", "cannot be held with the drivers travel"),
    (["steer_ball.0"], "hold 'steer_ball.0'", "spherical-pair component cannot be a hold"),
    (["nothing"], "hold 'nothing'", "not a pair variable"),
    (5, "hold", "expected a variable name or a list of names, got int 5"),
    ([5], "hold 5", "not a pair variable"),
])
def test_bad_hold_is_a_located_model_error(steer, hold, where, problem):
    """A hold that is a driver, too many, dependent on the drivers, a spherical component or unknown: located."""
    # The lower and upper arms' angles both move with the travel: holding them with travel driven fixes the same
    # freedom three times (and leaves the rack free).
    with pytest.raises(ModelError) as caught:
        steer.sweep({"travel": TRAVEL}, hold=hold)
    assert caught.value.where == where
    assert problem in str(caught.value)
