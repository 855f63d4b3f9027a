"""Tests of loops.passive: idle freedoms and the gauge that keeps them at their values.

The double wishbone's tie rod, between two balls, can spin about the line through their
centres without moving anything else: one passive freedom (DESIGN.md "Passive (idle)
freedoms"); the wheel on its hub is a real freedom. Nothing in the loops fixes the spin,
so a gauge does: the tie rod's rotation since the design pose has no component along its
line ("swing, no twist"). Consequences pinned here: the spin does not depend on the path
(up then down, small steps or one step), the wheel keeps its hub angle when only the
travel is driven, and the spin rates the passive module finds move only the idle link.
The gauge's value and row are computed with the closure (loops.kernels.closure); the spin
rates are checked with loops.configuration.constraint_matrix and the link-velocity kernel
(loops.kernels.velocity).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import CLOSURE_TOL, double_wishbone, rebuild, rssr
from kinematics_helpers import link_velocities
from loops.compiled import compile_model
from loops.configuration import constraint_matrix, evaluate
from loops.passive import idle_spin
from oracles.transforms import log_so3

TRAVEL = np.linspace(-0.08, 0.08, 41)
RACK_END = np.array([-0.130, 0.320, 0.180])      # m, from examples/double_wishbone.toml
STEER_BALL = np.array([-0.140, 0.700, 0.170])


def test_double_wishbone_reports_the_tie_rod_spin_as_passive():
    """Double wishbone: passive 1 (tie rod spin), dof 2 (travel, wheel spin), without virtual links."""
    # check(): passive 1 (tie_rod), dof 2 (wheel travel + wheel spin), redundant 0, and the report describes the corner
    # without the point driver's virtual links.
    info = double_wishbone().check()
    assert (info.passive, info.dof, info.redundant, info.grubler) == (1, 2, 0, 3)
    assert info.passive_links == ["tie_rod"]
    assert (info.links, info.pairs, info.variables) == (6, 7, 15)
    assert "idle spin of tie_rod" in str(info)


def test_tie_rod_returns_to_the_same_pose_after_travelling_up_and_down():
    """Up then down, the tie rod is at the same pose at the same travel (gauge: path independent, 1e-10)."""
    # Sweeping the travel up and back down, the tie rod (and its two ball values) is at the same pose at the same
    # travel: the gauge makes its spin path independent (to 1e-10).
    m = double_wishbone()
    res = m.sweep({"travel": np.r_[TRAVEL, TRAVEL[::-1]]})
    up, down = slice(0, len(TRAVEL)), slice(None, len(TRAVEL) - 1, -1)
    # Both passes are closed to 1e-10 of the 0.5 m size; poses agree to that order.
    assert_allclose(res.pose("tie_rod")[down], res.pose("tie_rod")[up], rtol=0.0, atol=1e-10)
    for ball in ("rack_end", "steer_ball"):
        assert_allclose(res.q(ball)[down], res.q(ball)[up], rtol=0.0, atol=1e-10, err_msg=ball)


def test_tie_rod_pose_does_not_depend_on_the_step_size():
    """One step to +80 mm, 400 small ones, or the 41-position sweep: same tie-rod pose."""
    # Reference: the pose reached in 400 small steps; one step and the 41-position sweep must reach it to 1e-10 (the
    # gauge fixes the spin whatever the path).
    m = double_wishbone()
    fine = m.sweep({"travel": np.linspace(0.0, 0.08, 400)}).pose("tie_rod")[-1]
    one = m.sweep({"travel": [0.08]}).pose("tie_rod")[0]
    coarse = m.sweep({"travel": TRAVEL}).pose("tie_rod")[-1]
    assert_allclose(one, fine, rtol=0.0, atol=1e-10)
    assert_allclose(coarse, fine, rtol=0.0, atol=1e-10)


def test_tie_rod_rotation_has_no_twist_about_its_design_line():
    """The gauge itself: the tie rod's rotation since the design pose has no component along its line."""
    # log(R_tie_rod) . u = 0 at every position, u the unit line from the rack end to the
    # steering ball at the design pose (loops.passive).
    res = double_wishbone().sweep({"travel": TRAVEL})
    u = (STEER_BALL - RACK_END) / np.linalg.norm(STEER_BALL - RACK_END)
    w = log_so3(res.pose("tie_rod")[:, :3, :3])
    assert np.abs(w).max() > 0.05  # the rod really swings
    # Gauge closed to the Newton target (1e-3 of the 1e-10 tolerance), with margin.
    assert_allclose(w @ u, 0.0, rtol=0.0, atol=1e-12)


@pytest.mark.parametrize("speeds", [None, {"travel": 0.5}], ids=["positions", "with speed"])
def test_wheel_keeps_its_hub_angle_when_only_travel_is_driven(speeds):
    """Driving travel only, the wheel (a real undriven freedom) keeps hub angle 0 and zero rates."""
    # The wheel's spin is a real freedom no driver fixes: minimum-norm motion keeps the hub angle at its design value 0,
    # and its rates at 0 (DESIGN.md).
    res = double_wishbone().sweep({"travel": TRAVEL}, speeds=speeds, accelerations=speeds)
    # Exactly decoupled (the hub is in no loop): only round-off.
    assert_allclose(res.q("hub"), 0.0, rtol=0.0, atol=1e-14)
    assert_allclose(res.q_dot("hub"), 0.0, rtol=0.0, atol=1e-14)
    assert_allclose(res.q_ddot("hub"), 0.0, rtol=0.0, atol=1e-14)


def test_idle_spin_moves_the_tie_rod_alone():
    """idle_spin rates keep every loop closed and turn only the tie rod about its line; none elsewhere."""
    # idle_spin('tie_rod') gives rates that leave every loop closed (B x = 0) and move no link but the tie rod, which
    # turns about its own line; links hanging on one pair (the wheel) or with pairs off one line (the upright) have no
    # idle spin.
    m = rebuild(double_wishbone(), point_drivers=False)
    system = compile_model(m.snapshot())
    config = evaluate(system, system.reference_q())
    rates, direction = idle_spin(system, config, "tie_rod")
    u = (STEER_BALL - RACK_END) / np.linalg.norm(STEER_BALL - RACK_END)
    assert_allclose(abs(direction @ u), 1.0, rtol=0.0, atol=1e-12)
    assert_allclose(constraint_matrix(system, config, gauges=False) @ rates, 0.0, rtol=0.0, atol=1e-12)
    V = link_velocities(system, config, rates)
    for i, link in enumerate(system.link_names):
        if link == "tie_rod":
            omega = V[i, :3]
            assert_allclose(np.cross(omega, direction), 0.0, rtol=0.0, atol=1e-12)
            assert np.linalg.norm(omega) > 0.5
            # A point on the line does not move: v_o + omega x r = 0 at the rack end.
            assert_allclose(V[i, 3:] + np.cross(omega, RACK_END), 0.0, rtol=0.0, atol=1e-12)
        else:
            assert_allclose(V[i], 0.0, rtol=0.0, atol=1e-12, err_msg=link)
    assert idle_spin(system, config, "wheel") is None
    assert idle_spin(system, config, "upright") is None
    assert idle_spin(system, config, "lower_arm") is None


def test_rssr_coupler_spin_is_path_independent():
    """The RSSR coupler's idle spin is gauged too: a crank turn and back returns it to the same poses."""
    # The RSSR's coupler (two balls) spins idly too: after a full crank turn and back, its pose is the same at every
    # crank angle.
    m = rssr()
    turn = np.linspace(0.0, 2 * np.pi, 37)
    res = m.sweep({"A": np.r_[turn, turn[::-1]]})
    n = len(turn)
    assert_allclose(res.pose("coupler")[n:][::-1], res.pose("coupler")[:n], rtol=0.0, atol=1e-10)
    assert m.check().passive_links == ["coupler"]


def test_tie_rod_spin_does_not_depend_on_declaration_order():
    """Declaring the pairs in reverse order gives the same tie-rod pose (minimum norm is order-free)."""
    # The same corner with its pairs declared in reverse order must give the same tie-rod pose (every other link already
    # agrees: test_loop_basis.py).
    original = double_wishbone()
    reordered = rebuild(original, pair_order=list(original.pairs)[::-1])
    a = original.sweep({"travel": TRAVEL})
    b = reordered.sweep({"travel": TRAVEL})
    assert_allclose(b.pose("upright"), a.pose("upright"), rtol=0.0, atol=CLOSURE_TOL)
    assert_allclose(b.pose("tie_rod"), a.pose("tie_rod"), rtol=0.0, atol=CLOSURE_TOL)
