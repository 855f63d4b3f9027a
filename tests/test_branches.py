"""Branch keeping of the one walk (loops.continuation, its kernels) and of the integrator.

DESIGN.md: a sweep that arrives on a change point leaves it along the branch it arrived on
(the incoming tangent decides, never the nearest solution); a simulation never leaves its
branch silently. The walk's guards are the tangent direction (no turning point passed
within a step) and the correction ratio (no jump to another assembly branch); the
integrator adds the same correction guard at every stage and steps through singular
positions on the branch's Taylor model. Every guard is deleted once in a test of this
module's own making (see each test's comment), so these tests are the ones that fail
without it.

References are closed forms: the parallelogram's branch is ``D = -A`` exactly; the
crank-rocker's angles are Freudenstein's (``reference.closed_forms``); a chain of
parallelograms on its branch is a one-freedom pendulum, integrated here by scipy.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp

from core_models import FOUR_BAR_LENGTHS, four_bar, four_bar_rocker_limits
from dynamics import simulate
from dynamics_models import parallelogram_chain
from mechanism import Mechanism, SweepStopped
from reference import closed_forms as cf


def parallelogram():
    """A parallelogram four-bar (crank = rocker = 1 m, coupler = ground = 2 m); the crank is
    vertical at the design pose, so A = +-90 deg are its flat change points."""
    m = Mechanism("parallelogram")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("B", "revolute", "crank", "coupler", at=(0, 1, 0), axis=(0, 0, 1))
    m.add_pair("C", "revolute", "coupler", "rocker", at=(2, 1, 0), axis=(0, 0, 1))
    m.add_pair("D", "revolute", "rocker", "ground", at=(2, 0, 0), axis=(0, 0, 1))
    return m


FLAT_SWEEPS = {
    # The first requested value is the change point itself, then the walk leaves it.
    "first value on the change point": [90.0, 180.0],
    # Steps of 100 deg step over both change points (90 and 270 deg) within one request.
    "large steps over both change points": [0.0, 100.0, 200.0, 300.0, 400.0],
    # Requested values land on the change points, in both directions.
    "on the change points, back and forth": [0.0, 90.0, 270.0, 90.0, -90.0],
}


@pytest.mark.parametrize("values", FLAT_SWEEPS.values(), ids=FLAT_SWEEPS.keys())
def test_parallelogram_leaves_its_change_point_on_the_branch_it_came_on(values):
    """A parallelogram swept onto or over its flat change points stays a parallelogram: D = -A."""
    # On the parallelogram branch the rocker turns with the crank (D, declared rocker -> ground, reads minus it) and
    # the coupler translates (B = -A, C = A). The anti-parallelogram branch crosses it at A = 90 and 270 deg; a walk
    # that took the nearest solution there (the tangent guard deleted) ends on it with D = -36.87 deg at A = 180 deg.
    # Closure to 1e-10 at conditioning ~1: 1e-9.
    res = parallelogram().sweep({"A": np.radians(values)})
    a = np.radians(values)
    assert_allclose(res.q("D"), -a, rtol=0.0, atol=1e-9)
    assert_allclose(res.q("B"), -a, rtol=0.0, atol=1e-9)
    assert_allclose(res.q("C"), a, rtol=0.0, atol=1e-9)


def test_crank_rocker_keeps_its_assembly_mode_with_eight_positions_per_turn():
    """Two crank turns in 16 large steps stay on the design branch (Freudenstein's open mode)."""
    # Each request is 45 deg of crank: the walk subdivides it, and each corrected step must stay on the open branch
    # (the crossed one is 2 x the transmission angle away). Freudenstein's angles, closure 1e-10: 1e-9.
    a, b, c, d = FOUR_BAR_LENGTHS.values()
    crank = np.radians(np.arange(0.0, 721.0, 45.0))
    res = four_bar().sweep({"A": crank})
    design = np.arctan2(2.0, -1.0)  # the rocker pin at (3, 2) seen from its pivot (4, 0)
    for branch in (1, -1):
        t3, t4 = cf.four_bar_angles(a, b, c, d, crank, branch)
        if abs(cf.wrap(t4[0] - design)) < 1e-12:
            break
    assert_allclose(cf.wrap(-res.q("D") - (t4 - t4[0])), 0.0, rtol=0.0, atol=1e-9)


def near_change_point_four_bar(gap):
    """Crank 1, coupler 2, rocker 1 + gap, ground 2 (m): a crank-rocker whose two assembly modes
    come within ~sqrt(gap) of each other twice a turn (at gap 0 it is a parallelogram, where
    they cross). Design pose: crank along +x, rocker on Freudenstein's branch +1. Returns the
    mechanism and that branch's rocker angle at the design pose."""
    a, b, c, d = 1.0, 2.0, 1.0 + gap, 2.0
    _, t4 = cf.four_bar_angles(a, b, c, d, np.array([0.0]), 1)
    rocker_pin = (d + c * np.cos(t4[0]), c * np.sin(t4[0]), 0.0)
    m = Mechanism("near change point")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("B", "revolute", "crank", "coupler", at=(a, 0, 0), axis=(0, 0, 1))
    m.add_pair("C", "revolute", "coupler", "rocker", at=rocker_pin, axis=(0, 0, 1))
    m.add_pair("D", "revolute", "rocker", "ground", at=(d, 0, 0), axis=(0, 0, 1))
    return m, (a, b, c, d)


@pytest.mark.parametrize("gap", [1e-1, 1e-3, 1e-6])
def test_near_change_point_four_bar_keeps_its_branch_through_the_neck(gap):
    """Two crank turns in 120 deg requests past the necks where the two modes nearly meet: still branch +1."""
    # At the neck the design branch turns sharply (the rocker reverses within ~sqrt(gap) of crank angle) while the
    # other branch runs straight on: a step over the neck lands on the other branch with the same tangent and a
    # correction well within the ratio guard. The two branches have opposite orientations (the sign of det B_free),
    # so the orientation guard refuses that step and halving resolves the turn. Freudenstein's branch +1, closure
    # 1e-10 at conditioning down to ~sqrt(gap): 1e-6.
    m, lengths = near_change_point_four_bar(gap)
    crank = np.radians(np.arange(0.0, 721.0, 120.0))
    res = m.sweep({"A": crank})
    _, t4 = cf.four_bar_angles(*lengths, crank, 1)
    assert_allclose(cf.wrap(-res.q("D") - (t4 - t4[0])), 0.0, rtol=0.0, atol=1e-6)


def double_near_change_point_four_bar(gap):
    """Two copies of :func:`near_change_point_four_bar` on one crank, side by side (0.5 m apart
    along z): two loops that reach their necks together."""
    a, b, c, d = 1.0, 2.0, 1.0 + gap, 2.0
    _, t4 = cf.four_bar_angles(a, b, c, d, np.array([0.0]), 1)
    m = Mechanism("two near change points")
    m.add_link("crank")
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    for side, z in (("1", 0.0), ("2", 0.5)):
        m.add_link("coupler" + side)
        m.add_link("rocker" + side)
        rocker_pin = (d + c * np.cos(t4[0]), c * np.sin(t4[0]), z)
        m.add_pair("B" + side, "revolute", "crank", "coupler" + side, at=(a, 0, z), axis=(0, 0, 1))
        m.add_pair("C" + side, "revolute", "coupler" + side, "rocker" + side, at=rocker_pin, axis=(0, 0, 1))
        m.add_pair("D" + side, "revolute", "rocker" + side, "ground", at=(d, 0, z), axis=(0, 0, 1))
    return m, (a, b, c, d)


@pytest.mark.parametrize("gap", [1e-3, 1e-6])
def test_two_loops_at_their_necks_together_keep_their_branches(gap):
    """Two loops jumping their necks in one step flip two pivots and keep det's sign: still refused."""
    # A step over both necks would take both loops to their other branches at once; the determinant of the block
    # keeps its sign (two sign changes), so the orientation is compared pivot by pivot (the LU of the block has the
    # same row exchanges at both ends). Freudenstein's branch +1 for both rockers, 1e-6 as above.
    m, lengths = double_near_change_point_four_bar(gap)
    crank = np.radians(np.arange(0.0, 721.0, 120.0))
    res = m.sweep({"A": crank})
    _, t4 = cf.four_bar_angles(*lengths, crank, 1)
    for side in "12":
        assert_allclose(cf.wrap(-res.q("D" + side) - (t4 - t4[0])), 0.0, rtol=0.0, atol=1e-6, err_msg=side)


@pytest.mark.parametrize("direction", [1, -1], ids=["extended toggle", "folded toggle"])
def test_rocker_driven_past_its_toggle_in_one_step_stops_at_the_dead_point(direction):
    """One request far beyond the rocker's toggle stops there; the walk does not fold back onto the other branch."""
    # Past a turning point of the driver the tangent reverses: a step that overshoots it and lands on the far side
    # (where Newton finds the crank's other position for the same rocker angle) must be refused, so the walk stops at
    # the toggle with a dead point instead of returning a position on the other branch.
    low, high = four_bar_rocker_limits()
    limit = high if direction > 0 else low
    with pytest.raises(SweepStopped) as caught:
        four_bar().sweep({"D": [0.0, 1.3 * limit]})
    assert "dead point" in caught.value.reason
    assert len(caught.value.partial) == 1


@pytest.mark.parametrize("direction", [1, -1], ids=["extended toggle", "folded toggle"])
def test_rocker_driven_close_to_its_toggle_and_back_returns_to_its_start(direction):
    """Rocker to 99.9% of its toggle and back in single steps: the crank comes back to where it was."""
    # Near a toggle both crank positions for one rocker angle are close; a corrector that hops across (the walk's
    # orientation check deleted) returns to the start on the other one, with a different crank angle.
    low, high = four_bar_rocker_limits()
    limit = high if direction > 0 else low
    res = four_bar().sweep({"D": [0.0, 0.999 * limit, 0.0]})
    assert_allclose(res.q("A")[2], res.q("A")[0], rtol=0.0, atol=1e-9)
    assert_allclose(res.q("B")[2], res.q("B")[0], rtol=0.0, atol=1e-9)


def _one_freedom_chain(count, theta0, rate0, t_end):
    """The chain on its parallelogram branch as one pendulum: all rockers at the angle theta
    (from the vertical), couplers translating with the rocker tips. Rods of 1 kg, 1 m:
    ``M = (count + 1) / 3 + count``, ``M theta'' = g sin(theta) ((count + 1) / 2 + count)``."""
    g = 9.81
    mass = (count + 1) / 3.0 + count
    stiffness = g * ((count + 1) / 2.0 + count)
    return solve_ivp(lambda t, y: [y[1], stiffness * np.sin(y[0]) / mass], (0.0, t_end), [theta0, rate0],
                     rtol=1e-13, atol=1e-13, dense_output=True)


@pytest.mark.parametrize("rtol", [1e-8, 3e-9, 1e-9, 3e-10, 1e-10])
def test_parallelogram_chains_pass_their_flat_positions_on_the_branch(rtol):
    """Chains of 1-12 parallelograms, 20 s through 12 flat passes each: all rockers parallel, no stop."""
    # The integrator used to stop at a flat pass of some chains (4 four-bars at rtol 1e-8, 8 at 3e-9, 40, 60 and 80
    # at 1e-9): steps crept towards the singular position until a stage fell within it and was refused, or a
    # correction of the size of the closure noise there was taken for a branch jump. The cause does not depend on
    # the size, so chains of up to 12 show it at a cost the suite affords. Parallel rockers to 1e-6 rad (issue 9).
    for count in range(1, 13):
        sim = simulate(parallelogram_chain(count), t_end=20.0, q0={"G0": 0.0}, qd0={"G0": -1.0}, rtol=rtol)
        assert sim.t[-1] == 20.0
        rockers = np.array([sim.q(f"G{i}") for i in range(count + 1)])
        assert np.abs(rockers - rockers[0]).max() < 1e-6, count


@pytest.mark.parametrize("count", [1, 3])
def test_chain_started_on_its_flat_position_follows_the_one_freedom_pendulum(count):
    """Started exactly flat, the chain moves off on the parallelogram branch: the pendulum's angle to 1e-6 rad."""
    # Every early stage is next to the singular position: closed by the rank-truncated solve, its tangent and
    # accelerations from the branch's Taylor model (without it the start itself cannot be evaluated). Against the
    # one-freedom reduction integrated at 1e-13; rtol 1e-9 over 3 s gives ~1e-8 rad, bound 1e-6 rad.
    theta0 = -np.pi / 2
    sim = simulate(parallelogram_chain(count), t_end=3.0, q0={"G0": theta0}, qd0={"G0": -1.0}, rtol=1e-9)
    reference = _one_freedom_chain(count, theta0, -1.0, 3.0)
    assert_allclose(sim.q("G0"), reference.sol(sim.t)[0], rtol=0.0, atol=1e-6)
    rockers = np.array([sim.q(f"G{i}") for i in range(count + 1)])
    assert np.abs(rockers - rockers[0]).max() < 1e-9


