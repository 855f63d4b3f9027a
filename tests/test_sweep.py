"""Tests of loops.sweep: the walk from the design pose, driver tables, stops, branches, batches.

DESIGN.md promises: a sweep starts from the design pose and walks to the first requested
value, then through the rest in order, staying on the branch; a single driver value is
held; speeds and accelerations are numbers or one value per position; a sweep that cannot
go on raises SweepStopped whose ``.partial`` holds every closed position reached and whose
``.reason`` names the driver value and the cause. The sweep reaches most positions in
batches between anchors (sweep.py); those must equal what a sweep gives for each value
alone (the sequential continuation).

References: Freudenstein's closed form (tests/reference/closed_forms.four_bar_angles) for
the four-bar of DESIGN.md (1, sqrt 8, sqrt 5, 4 m), its toggle positions by the law of
cosines (core_models.four_bar_rocker_limits).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import (
    CLOSURE_TOL,
    EXAMPLES,
    FOUR_BAR_LENGTHS,
    assert_pairs_coincide,
    cardan_coupling,
    double_wishbone,
    four_bar,
    four_bar_link_local,
    four_bar_rocker_limits,
    relative_rotation_vectors,
    rewrapped_rotation_vectors,
    spatial_all_pairs,
)
from mechanism import ClosureError, KinematrixError, Mechanism, ModelError, SweepStopped, load_model
from reference import closed_forms as cf

# Freudenstein's angles of the design pose: crank 0, coupler B -> C at 45 deg, rocker D -> C.
THETA3_0, THETA4_0 = np.pi / 4, np.arctan2(2.0, -1.0)
BRANCH = -1  # the root of four_bar_angles that gives the design pose at crank angle 0
SIZE = 4.0   # m, the four-bar's span


def four_bar_closed_form(crank):
    """Pair values (B, C, D) of core_models.four_bar at crank angle ``crank`` on the design
    branch: B = coupler turn - crank turn, C = rocker turn - coupler turn, D = -rocker turn."""
    a, b, c, d = FOUR_BAR_LENGTHS.values()
    t3, t4 = cf.four_bar_angles(a, b, c, d, crank, BRANCH)
    turn3, turn4 = t3 - THETA3_0, t4 - THETA4_0
    return {"B": turn3 - crank, "C": turn4 - turn3, "D": -turn4}


def assert_angles_close(got, expected, atol):
    assert_allclose(cf.wrap(np.asarray(got) - np.asarray(expected)), 0.0, rtol=0.0, atol=atol)


def test_design_branch_reference_is_the_design_pose():
    """Reference self-check: at crank 0 the closed form gives the design angles."""
    a, b, c, d = FOUR_BAR_LENGTHS.values()
    assert_allclose(cf.four_bar_angles(a, b, c, d, 0.0, BRANCH), (THETA3_0, THETA4_0), rtol=0.0, atol=1e-15)


def test_a_sweep_at_the_design_value_is_the_design_pose():
    """Driver at 0: every pair value 0 and every pose the identity (DESIGN.md)."""
    res = four_bar().sweep({"A": [0.0]})
    for name in "ABCD":
        assert res.q(name).tolist() == [0.0]
    for link in ("crank", "coupler", "rocker"):
        assert_allclose(res.pose(link), np.eye(4)[None], rtol=0.0, atol=1e-15)


@pytest.mark.parametrize("first", [2.0, 5.0, -4.0, 4 * np.pi + 1.0])
def test_sweep_walks_from_the_design_pose_to_its_first_value(first):
    """A far first value is reached by walking from the design pose, on the design branch."""
    # A sweep whose first value is far from the design pose (up to two turns) reaches it on the design branch, as a walk
    # would, not on whatever branch Newton would jump to.
    res = four_bar().sweep({"A": [first, first + 0.1]})
    expected = four_bar_closed_form(np.array([first, first + 0.1]))
    for name in "BCD":
        # Closure 1e-10 of the size, conditioning O(1-10) away from dead points: 1e-9 rad.
        assert_angles_close(res.q(name), expected[name], atol=1e-9)
    assert res.q("A").tolist() == [first, first + 0.1]  # driver values land exactly


def test_assembly_mode_is_kept_over_two_crank_turns():
    """Over 720 degrees of crank the four-bar keeps its assembly mode and unwrapped angles."""
    # A 720-degree crank sweep never flips the four-bar's assembly mode: the coupler's pin C stays on the same side of
    # the line B -> D (design: right-hand side), and every value follows the design branch of the closed form; angles
    # are unwrapped.
    crank = np.linspace(0.0, 4 * np.pi, 721)
    res = four_bar().sweep({"A": crank})
    B, C = res.point("B_pin"), res.point("C_pin")
    D = np.array([4.0, 0.0, 0.0])
    side = np.cross(C - B, D - B)[:, 2]
    assert np.all(side < -1.0)  # -6.3 ... -2.0: well away from zero
    expected = four_bar_closed_form(crank)
    for name in "BCD":
        assert_angles_close(res.q(name), expected[name], atol=1e-9)
    assert np.abs(np.diff(res.q("B"))).max() < 0.1  # no 2 pi jumps
    assert_allclose(res.q("A"), crank, rtol=0.0, atol=0.0)


def test_a_single_value_is_held_for_the_whole_sweep():
    """A driver given one value holds it at every position with zero speed (DESIGN.md)."""
    # Drivers given one value (a number, or a list of one) hold it at every position, with zero speed unless a speed is
    # given; a sweep of held values alone has one position.
    m = double_wishbone()
    travel = np.linspace(-0.05, 0.05, 11)
    res = m.sweep({"travel": travel, "hub": 0.3})
    assert res.drivers == ["travel", "hub"] and res.variable_names[:2] == ["travel", "hub"]
    assert np.all(res.q("hub") == 0.3) and np.all(res.q_dot("hub") == 0.0)
    res_list = m.sweep({"travel": travel, "hub": [0.3]})
    assert_allclose(res_list.pose("wheel"), res.pose("wheel"), rtol=0.0, atol=1e-12)
    one = four_bar().sweep({"A": 1.0})
    assert len(one) == 1 and one.q("A").tolist() == [1.0]
    assert_angles_close(one.q("D"), four_bar_closed_form(np.array([1.0]))["D"], atol=1e-9)


def test_speeds_and_accelerations_as_numbers_or_per_position():
    """Speeds and accelerations are numbers or per-position arrays, each position's rates solved alone."""
    # A number applies to every position; an array gives one value per position, and each position's rates are those of
    # the same driver rates alone (eq. 4 is pointwise); drivers not named get 0.
    m = spatial_all_pairs()
    drivers = {"A": np.linspace(0.0, 1.0, 6), "P": np.linspace(0.0, 0.05, 6)}
    as_number = m.sweep(drivers, speeds={"A": 1.5}, accelerations={"A": -0.4, "P": 0.2})
    as_array = m.sweep(drivers, speeds={"A": np.full(6, 1.5), "P": [0.0] * 6},
                       accelerations={"A": np.full(6, -0.4), "P": np.full(6, 0.2)})
    for name in as_number.variable_names:
        assert np.array_equal(as_number.q_dot(name), as_array.q_dot(name))
        assert np.array_equal(as_number.q_ddot(name), as_array.q_ddot(name))
    speeds = np.linspace(-2.0, 2.0, 6)
    accelerations = np.linspace(1.0, -1.0, 6)
    varying = m.sweep(drivers, speeds={"P": speeds, "A": 0.7}, accelerations={"A": accelerations})
    assert_allclose(varying.q_dot("P"), speeds, rtol=0.0, atol=0.0)
    assert_allclose(varying.q_ddot("A"), accelerations, rtol=0.0, atol=0.0)
    for k in (0, 3, 5):
        alone = m.sweep({name: [values[k]] for name, values in drivers.items()},
                        speeds={"P": speeds[k], "A": 0.7}, accelerations={"A": accelerations[k]})
        for name in varying.variable_names:
            # Same position closed by two continuations: 1e-10 of the size, rates O(1): 1e-9.
            assert_allclose(varying.q_dot(name)[k], alone.q_dot(name)[0], rtol=1e-9, atol=1e-9, err_msg=name)
            assert_allclose(varying.q_ddot(name)[k], alone.q_ddot(name)[0], rtol=1e-9, atol=1e-9, err_msg=name)


BAD_RATES = [
    ("speeds", {"B": 1.0}, "speed 'B'", r"not a driver of this sweep \(drivers: A\)"),
    ("speeds", {"A": [1.0, 2.0]}, "speed 'A'", r"expected a number or 5 values, got shape \(2,\)"),
    ("speeds", {"A": np.ones((5, 1))}, "speed 'A'", r"expected a number or 5 values"),
    ("speeds", {"A": [1.0, 2.0, np.nan, 1.0, 1.0]}, "speed 'A'", r"non-finite"),
    ("speeds", {"A": np.inf}, "speed 'A'", r"non-finite"),
    ("accelerations", {"D": 0.0}, "acceleration 'D'", r"not a driver of this sweep"),
    ("accelerations", {"A": np.zeros(6)}, "acceleration 'A'", r"expected a number or 5 values, got shape \(6,\)"),
    ("accelerations", {"A": [0.0, -np.inf, 0.0, 0.0, 0.0]}, "acceleration 'A'", r"non-finite"),
]


@pytest.mark.parametrize("keyword, rates, where, problem", BAD_RATES,
                         ids=[f"{k} {w} {p[:20]}" for k, _, w, p in BAD_RATES])
def test_bad_speeds_and_accelerations_raise_located_model_errors(keyword, rates, where, problem):
    """Unknown names, wrong lengths and non-finite speeds or accelerations raise located ModelErrors."""
    # Unknown driver names, wrong lengths and non-finite rates raise ModelError naming the rate and the driver, before
    # any solve.
    with pytest.raises(ModelError) as caught:
        four_bar().sweep({"A": np.linspace(0.0, 1.0, 5)}, **{keyword: rates})
    assert caught.value.where == where
    assert re.search(problem, str(caught.value)) and "\n" not in str(caught.value)


@pytest.mark.parametrize("drivers, where, problem", [
    ({}, "drivers", r"give a dict of driver name -> values"),
    ({"A": [0.0, np.nan]}, "driver 'A'", r"finite 1-D sequence"),
    ({"A": [[0.0, 0.1]]}, "driver 'A'", r"finite 1-D sequence"),
    ({"A": [0.0, 0.1, 0.2], "B": [0.0, 0.1]}, "drivers", r"differ in length"),
])
def test_bad_driver_tables_raise_located_model_errors(drivers, where, problem):
    """Driver values must be finite 1-D sequences of one common length (or single values)."""
    with pytest.raises(ModelError) as caught:
        four_bar().sweep(drivers)
    assert caught.value.where == where and re.search(problem, str(caught.value))


def test_empty_driver_values_raise_a_located_model_error():
    """An empty sequence of driver values is a malformed table: ModelError at the driver."""
    with pytest.raises(ModelError) as caught:
        four_bar().sweep({"A": []})
    assert caught.value.where in ("driver 'A'", "drivers")


def test_non_numeric_speed_raises_a_located_model_error():
    """Speeds that are not numbers are malformed values (sweep's docstring): ModelError."""
    with pytest.raises(ModelError) as caught:
        four_bar().sweep({"A": [0.0, 0.1]}, speeds={"A": "fast"})
    assert caught.value.where == "speed 'A'"


def _reported_value(reason, driver):
    """The first number following ``driver = `` in a stop reason."""
    found = re.search(rf"\b{driver} = ([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)", reason)
    assert found, reason
    return float(found.group(1))


@pytest.mark.parametrize("count", [16, 301], ids=["sequential (one segment)", "batched (many anchors)"])
@pytest.mark.parametrize("direction", [1, -1], ids=["extended toggle", "folded toggle"])
def test_driving_the_rocker_past_its_limit_stops_at_the_dead_point(count, direction):
    """Rocker driven past its toggle: SweepStopped, closed partial up to the limit, reason names the dead point."""
    # The crank-rocker driven from its rocker (pair D) beyond the rocker's extreme (a toggle: crank and coupler
    # collinear) raises SweepStopped, a ClosureError and a KinematrixError: ``.partial`` has exactly the requested
    # positions before the limit, all closed (the two frames of every pair coincide at every position), its driver
    # values are those requested; ``.reason`` says dead point and names the driver value at the toggle.
    low, high = four_bar_rocker_limits()
    limit = high if direction > 0 else low
    values = np.linspace(0.0, limit * 1.3, count)
    with pytest.raises(SweepStopped) as caught:
        four_bar().sweep({"D": values}, speeds={"D": 1.0})
    stop = caught.value
    assert isinstance(stop, ClosureError) and isinstance(stop, KinematrixError)
    partial = stop.partial
    before = int(np.sum(np.abs(values) <= abs(limit)))
    assert len(partial) == before
    assert_allclose(partial.q("D"), values[:before], rtol=0.0, atol=0.0)
    assert_pairs_coincide(partial, SIZE)
    assert partial.stop_reason == stop.reason
    reason = stop.reason
    assert "\n" not in reason and "dead point" in reason
    # The value it names is the toggle (reached to within the step halvings, ~1e-9 of a step).
    assert abs(_reported_value(reason, "D") - limit) < 1e-6, (reason, limit)
    assert set(stop.driver_values) == {"D"}
    assert abs(stop.driver_values["D"]) > abs(limit)
    # The partial result is a full result: rates where it got to, none beyond.
    assert np.all(np.isfinite(partial.q_dot("B"))) and len(partial.q_dot("B")) == before


def test_a_stop_between_anchors_after_a_batch_failure_raises_sweep_stopped():
    """An unreachable value between anchors, after a failed batch, stops with SweepStopped (not a crash)."""
    # Rocker up to 0.1 rad (just below its extreme 0.1012), one value beyond it, then back to 0: the sweep must stop at
    # the unreachable value with the 50 positions before it.
    values = np.r_[np.linspace(0.0, 0.1, 50), 0.2, 0.0]
    with pytest.raises(SweepStopped) as caught:
        four_bar().sweep({"D": values})
    assert len(caught.value.partial) == 50
    assert "dead point" in caught.value.reason


LONG_SWEEPS = {
    "four-bar, two crank turns": (four_bar, {"A": np.linspace(0.0, 4 * np.pi, 721)},
                                  {"A": 2.0}, {"A": 0.5}, ["crank", "coupler", "rocker"], 4.0),
    "every pair type, two drivers": (spatial_all_pairs, {"A": np.linspace(-0.5, 1.0, 97),
                                                         "P": np.linspace(0.05, -0.02, 97)},
                                     {"A": 1.0, "P": 0.1}, {"P": -0.3}, ["coupler", "rocker", "sleeve"], 0.4),
    "double wishbone, wheel travel": (double_wishbone, {"travel": np.linspace(-0.08, 0.08, 161)},
                                      {"travel": 0.5}, {"travel": 2.0}, ["upright", "tie_rod", "wheel"], 0.5),
}


@pytest.mark.parametrize("case", LONG_SWEEPS.values(), ids=LONG_SWEEPS.keys())
def test_long_batched_sweep_equals_values_requested_one_at_a_time(case):
    """Batched positions of a long sweep equal sweeps asked for each value alone, to 1e-9."""
    # Positions between anchors come from a batched Hermite prediction and chord-Newton correction; every sampled
    # position (anchors and in-between ones) equals a sweep asked for that value alone (walked by continuation), to
    # 1e-9: values, rates, poses, points.
    build, drivers, speeds, accelerations, links, size = case
    m = build()
    long = m.sweep(drivers, speeds=speeds, accelerations=accelerations)
    count = len(next(iter(drivers.values())))
    for k in sorted({0, 1, 7, 15, 16, 17, 40, count // 2 + 3, count - 2, count - 1}):
        alone = m.sweep({name: [values[k]] for name, values in drivers.items()},
                        speeds=speeds, accelerations=accelerations)
        for name in long.variable_names:
            # Both closed to 1e-10 of the size; rates O(1-10): 1e-9 relative and absolute.
            assert_allclose(long.q(name)[k], alone.q(name)[0], rtol=0.0, atol=CLOSURE_TOL, err_msg=name)
            assert_allclose(long.q_dot(name)[k], alone.q_dot(name)[0], rtol=1e-9, atol=1e-9, err_msg=name)
            assert_allclose(long.q_ddot(name)[k], alone.q_ddot(name)[0], rtol=1e-9, atol=1e-9, err_msg=name)
        for link in links:
            assert_allclose(long.pose(link)[k], alone.pose(link)[0], rtol=0.0, atol=CLOSURE_TOL, err_msg=link)
        for point in long.point_names:
            assert_allclose(long.point(point)[k], alone.point(point)[0], rtol=0.0, atol=CLOSURE_TOL * size)


def test_a_sweep_back_and_forth_retraces_its_path():
    """Driver values going up and down (walked one by one) retrace the closed-form branch."""
    # Driver values that go up and down (not on one straight path between anchors, so walked one by one) give at each
    # value what the way up gave.
    crank = 1.5 * np.sin(np.linspace(0.0, 3 * np.pi, 80))
    res = four_bar().sweep({"A": crank})
    expected = four_bar_closed_form(crank)
    for name in "BCD":
        assert_angles_close(res.q(name), expected[name], atol=1e-9)
    assert_pairs_coincide(res, SIZE)


def test_reference_that_does_not_close_stops_before_walking():
    """An unassembled link-local model stops at once: empty partial, reason asks for assemble()."""
    # A model whose design pose is open (link-local frames, not assembled) cannot sweep: SweepStopped with an empty
    # partial and a reason asking for assemble().
    with pytest.raises(SweepStopped) as caught:
        four_bar_link_local().sweep({"A": [0.1, 0.2]})
    assert len(caught.value.partial) == 0
    assert "does not close" in caught.value.reason and "assemble()" in caught.value.reason
    assert caught.value.loop.startswith("loop 1 (C)")


def test_first_value_beyond_reach_stops_with_an_empty_partial():
    """A first value beyond the toggle stops with an empty partial and a reason naming the toggle."""
    # When even the first requested value lies past the toggle, nothing is reached: the partial result is empty and the
    # reason names the toggle.
    _, high = four_bar_rocker_limits()
    with pytest.raises(SweepStopped) as caught:
        four_bar().sweep({"D": [0.5, 0.6]})
    assert len(caught.value.partial) == 0
    assert "dead point" in caught.value.reason
    assert abs(_reported_value(caught.value.reason, "D") - high) < 1e-6


def translated_four_bar(offset):
    """core_models.four_bar with every hardpoint moved by ``offset`` (m)."""
    m = four_bar()
    moved = Mechanism("four-bar, elsewhere")
    for link in ("crank", "coupler", "rocker"):
        moved.add_link(link)
    for pair in m.pairs.values():
        moved.add_pair(pair.name, "revolute", pair.first, pair.second, at=pair.at + offset, axis=pair.axis)
    return moved


def test_accuracy_does_not_depend_on_where_the_mechanism_is_drawn():
    """A four-bar drawn 1000 m from the origin is as accurate (1e-9 rad) as at the origin."""
    # The four-bar drawn 1000 m from the global origin (site or vehicle coordinates) follows Freudenstein's closed form
    # as closely as at the origin (1e-9 rad).
    crank = np.linspace(0.0, 2 * np.pi, 361)
    res = translated_four_bar(np.array([1000.0, 0.0, 0.0])).sweep({"A": crank})
    expected = four_bar_closed_form(crank)
    for name in "BCD":
        assert_angles_close(res.q(name), expected[name], atol=1e-9)


def test_driving_away_from_a_turning_point_reports_a_dead_point():
    """Driving away from the driver's turning point at the design pose is reported as a dead point."""
    # The Cardan cross's angle U.0 is at its maximum (0) at the design pose, so it cannot be driven to +0.1 rad: the
    # sweep stops at once and the reason says dead point at U.0 = 0.
    with pytest.raises(SweepStopped) as caught:
        cardan_coupling().sweep({"U.0": [0.1]})
    assert len(caught.value.partial) == 0
    assert "dead point" in caught.value.reason


# ------------------------------------------------------------------ issue 12: limits
@pytest.mark.parametrize("tolerance, problem", [
    (0.5, r"0.5 is looser than 1e-06, which would return positions whose loops are open: it must lie in "
          r"\[1e-14, 1e-06\]"),
    (1e-5, r"1e-05 is looser than 1e-06"),
    (0, r"must be positive, got 0.0: it must lie in \[1e-14, 1e-06\]"),
    (-1, r"must be positive, got -1.0"),
    (1e-20, r"1e-20 is tighter than 1e-14, below the round-off of the closure equations"),
    (float("nan"), r"must be a number in \[1e-14, 1e-06\]"),
    ("x", r"expected a number, got 'x'"),
    (True, r"expected a number, got True"),
])
def test_a_closure_tolerance_outside_the_promise_is_refused(tolerance, problem):
    """Nothing returned is open: a tolerance looser than 1e-6 is refused, not honoured; each
    refusal gives its own reason."""
    for call in (lambda: four_bar().sweep({"A": [0.0, 0.5]}, tolerance=tolerance),
                 lambda: four_bar().assemble({"A": 0.1}, tolerance=tolerance)):
        with pytest.raises(ModelError) as caught:
            call()
        assert caught.value.where == "tolerance"
        assert re.search(problem, str(caught.value)), str(caught.value)


@pytest.mark.parametrize("count", [0, -1, 1.5, 10**9, "many"])
def test_assemble_iterations_are_bounded(count):
    with pytest.raises(ModelError) as caught:
        four_bar().assemble({"A": 0.1}, max_iterations=count)
    assert str(caught.value).startswith("max_iterations: expected a whole number in [1, 10000], got ")


@pytest.mark.parametrize("values", [[0.0, 1e6], [0.0, 1e20], np.linspace(0.0, 4e5, 3)])
def test_drivers_that_travel_farther_than_a_walk_goes_are_refused_at_once(values):
    """A sweep to 1e6 rad or 1e20 used to walk for a long time; now it is refused before walking."""
    with pytest.raises(ModelError) as caught:
        four_bar().sweep({"A": values})
    assert caught.value.where == "driver 'A'"
    assert re.search(r"the sweep moves it [\d.e+]+ rad in all, farther than one sweep walks \(1000000 steps of at "
                     r"most 0.3 rad, or 0.3 times the mechanism's size for a slide: 300000 rad\); sweep a shorter "
                     r"range", str(caught.value)), str(caught.value)


def test_a_sweep_whose_results_would_not_fit_in_memory_is_refused(monkeypatch):
    import importlib

    monkeypatch.setattr(importlib.import_module("loops.sweep"), "MAX_RECORD_BYTES", 100_000)
    with pytest.raises(ModelError) as caught:
        four_bar().sweep({"A": np.linspace(0.0, 1.0, 1000)})
    assert str(caught.value).startswith("drivers: 1000 positions would take ")
    assert str(caught.value).endswith("GiB of results, more than the 9.31323e-05 GiB a sweep may hold: sweep fewer "
                                      "positions")
    assert len(four_bar().sweep({"A": np.linspace(0.0, 1.0, 50)})) == 50


def test_a_stop_reason_is_in_the_model_units():
    """A model from a file in mm and deg reports its dead point in deg (it used to say rad)."""
    from pathlib import Path

    from mechanism import load_model

    m = load_model(Path(__file__).resolve().parents[1] / "examples" / "four_bar.toml")
    with pytest.raises(SweepStopped) as caught:
        m.sweep({"D": np.radians(np.arange(0.0, 181.0, 1.0))})
    reason = caught.value.reason
    assert re.search(r"^dead point at D = 10\.\d+ deg: .* so D = 11 deg cannot be reached on this branch$", reason), \
        reason
    assert " rad" not in reason


def test_ctrl_c_raises_the_stop_exception_with_the_positions_reached(monkeypatch):
    """In Python the interrupt is a SweepInterrupted: a SweepStopped with ``.partial`` (every
    position reached, closed) and a KeyboardInterrupt."""
    import importlib

    from mechanism import SweepInterrupted

    continuation = importlib.import_module("loops.continuation")
    monkeypatch.setattr(continuation, "STEPS_PER_CALL", 5)
    real, calls = continuation.Walk.positions, []

    def interrupted(self, *args):
        calls.append(real(self, *args))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return calls[-1]

    monkeypatch.setattr(continuation.Walk, "positions", interrupted)
    values = np.linspace(0.0, 20 * np.pi, 2001)
    with pytest.raises(SweepInterrupted) as caught:
        four_bar().sweep({"A": values})
    stop = caught.value
    assert isinstance(stop, SweepStopped) and isinstance(stop, KeyboardInterrupt)
    reached = len(stop.partial)
    assert 0 < reached < len(values)
    assert_allclose(stop.partial.q("A"), values[:reached], rtol=0, atol=0)
    assert_pairs_coincide(stop.partial, SIZE)
    assert re.fullmatch(rf"interrupted \(Ctrl-C\) after {reached} of 2001 positions, at A = [\d.]+ rad", stop.reason)


def test_spherical_values_are_continuous_rotation_vectors_over_two_crank_turns():
    """RSSR over two crank turns: each ball's value is its relative rotation vector, unwrapped (no 2 pi jumps)."""
    # DESIGN.md: a spherical pair's value is the rotation vector of its second link relative to the first, in global
    # axes at the design pose, continuous along a sweep: past half a turn its norm exceeds pi instead of jumping by
    # 2 pi. The coupler of this RSSR turns about 2 pi relative to the crank each crank turn, so the crank ball's
    # value passes pi twice. Reference: scipy's principal rotation vector of R_crank^T R_coupler from the poses; the
    # unwrapped value equals it up to a multiple of 2 pi along its own axis, and its steps stay small (1 deg of crank
    # turns the coupler relative to the crank by about 1 deg: steps below 0.05 rad).
    rssr = load_model(EXAMPLES / "rssr.toml")
    res = rssr.sweep({"crank_angle": np.radians(np.arange(0.0, 721.0, 1.0))})
    for pair, first, second in (("crank_ball", "crank", "coupler"), ("rocker_ball", "coupler", "rocker")):
        assert np.abs(np.diff(res.q(pair), axis=0)).max() < 0.05, pair
        assert_allclose(rewrapped_rotation_vectors(res.q(pair)), relative_rotation_vectors(res, first, second),
                        rtol=0.0, atol=1e-9, err_msg=pair)
    assert np.linalg.norm(res.q("crank_ball"), axis=1).max() > 2 * np.pi


# ---------------------------------------------------------------- the predictor
def test_bend_is_the_step_ratio_only_along_the_last_line():
    """The predictor's step ratio (span . d) / (d . d), and 0 off the line or without memory."""
    from loops.kernels.continuation import bend

    d = np.array([2e-3, 0.0])
    assert bend(np.array([4e-3, 0.0]), d) == pytest.approx(2.0, rel=1e-15)
    assert bend(np.array([-1e-3, 0.0]), d) == pytest.approx(-0.5, rel=1e-15)  # back along the line
    assert bend(np.array([4e-3, 1e-6]), d) == 0.0  # off the line: first order
    assert bend(np.array([4e-3, 0.0]), np.zeros(2)) == 0.0  # no memory


def test_walk_predicts_to_third_order_along_a_line():
    """Along a line of crank angles the corrector needs fewer iterations the more steps the walk remembers."""
    # Reference: a full crank turn in steps of 1 deg from the same closed start, three times: with the walk's memory
    # of its last two steps (third-order prediction, error O(h^4)), with only the last one (its older step cleared
    # before each step: second order, O(h^3)), and with none (first order, O(h^2)). The corrector's iterations
    # (diagnostics[1]) never grow with the memory at any step, and each order saves at least 10% over the turn
    # (measured: 888, 1149 and 1448; a chord iteration of the four-bar at this step divides the defect by about 100
    # only). The positions agree to 1e-10: all are closed to ~1e-13, which moves q by that over the block's
    # conditioning (down to ~1e-2 here).
    from loops.compiled import compile_model
    from loops.continuation import Walk

    system = compile_model(four_bar().snapshot())
    driven = system.driver_columns(["A"])
    third, second, first = Walk(system, driven), Walk(system, driven), Walk(system, driven)
    iterations = []
    for angle in np.radians(np.arange(1.0, 360.0, 1.0)):
        second.last_step[1] = 0.0
        first.last_step[:] = 0.0
        for walk in (third, second, first):
            walk.to([angle])
        iterations.append([walk.diagnostics[1] for walk in (third, second, first)])
        assert_allclose(third.q, first.q, rtol=0.0, atol=1e-10)
        assert_allclose(second.q, first.q, rtol=0.0, atol=1e-10)
    third, second, first = np.array(iterations).T
    assert np.all(third <= first) and np.all(second <= first)
    assert third.sum() < 0.9 * second.sum() and second.sum() < 0.9 * first.sum(), (third.sum(), second.sum(),
                                                                                   first.sum())


def _prediction_errors(result, system, i, curved):
    """Predict position ``i + 1`` of ``result`` (equal steps, one driver at unit speed) from
    positions ``i - 2 .. i`` with or without their curvatures; returns the largest error
    (dimensionless) of the additive variables and of the spherical pairs' rotations (rad)."""
    from oracles.transforms import exp_so3
    from loops.kernels.continuation import _predict

    q, rotations, tangents, curvature = result._q, result._rotations, result._tangents, result._q_ddot
    h = result.q("travel")[i] - result.q("travel")[i - 1]
    d = tangents.shape[2]
    last_step = np.zeros((2, d))
    last_step[:, 0] = h
    span = np.zeros(d)
    span[0] = h
    last_G = np.ascontiguousarray(tangents[[i - 1, i - 2]])
    flags = np.array([1.0, 1.0, 1.0]) if curved else np.zeros(3)
    step = np.zeros(system.n)
    block = type("Block", (), {"column_scale": system.column_scale})  # all _predict reads of the block
    ends = np.ascontiguousarray(curvature[[i, i - 1]])
    getattr(_predict, "py_func", _predict)(system.topology, block, tangents[i], last_G, last_step, ends, flags, span,
                                          1.0, step)  # the Python function, JIT on or off
    spherical = system.spherical_columns.ravel()
    additive = np.setdiff1d(np.arange(system.n), spherical)
    error = np.abs(q[i] + step - q[i + 1])[additive] / system.column_scale[additive]
    angles = []
    for s, columns in enumerate(system.spherical_columns):
        miss = rotations[i + 1, s] @ (exp_so3(step[columns]) @ rotations[i, s]).T
        skew = miss - miss.T  # 2 sin(angle) about the axis: exact for small angles, unlike arccos of the trace
        angles.append(0.5 * np.linalg.norm([skew[2, 1], skew[0, 2], skew[1, 0]]))
    return error.max(), max(angles)


def test_the_predictor_with_curvatures_is_fifth_order():
    """With the curvatures of the last step's ends the predicted position misses the closed one by far less."""
    # Reference: the closed positions of a sweep of the double wishbone in 4 mm steps of wheel travel (every one closed
    # to ~1e-14 by the corrector, whatever its start), with the tangents and the accelerations at unit travel speed
    # (zero driver acceleration: the curvature d^2 q / d travel^2). From three positions the predictor with the
    # tangents alone (third order, error O(h^4)) misses the next one by ~5e-8 (measured); with the curvatures too
    # (the quartic Hermite tangent, error O(h^6), and the Magnus terms of the five ball joints' rotations) by
    # ~1e-10: at least 100 times less, below 3e-10 everywhere, for the additive variables and the rotations alike.
    from loops.compiled import compile_model

    model = load_model(EXAMPLES / "double_wishbone.toml")
    system = compile_model(model.snapshot())
    result = model.sweep({"travel": np.linspace(-0.08, 0.08, 41)}, speeds={"travel": 1.0})
    for i in range(3, 39, 5):
        third = _prediction_errors(result, system, i, curved=False)
        fifth = _prediction_errors(result, system, i, curved=True)
        assert max(fifth) < 3e-10 and max(fifth) < 0.01 * max(third), (i, third, fifth)
        assert fifth[0] < 0.01 * third[0] and fifth[1] < 0.01 * third[1], (i, third, fifth)


def _rotation_prediction_miss(system, omega, rate, h):
    """How far (rad) the predictor's rotation misses the exact one, one step ``h`` ahead of 0 along a
    driven value ``s`` for the first spherical pair of ``system`` (the others at rest) whose spatial
    angular velocity per unit ``s`` is ``omega(s)`` (``rate``: its derivative), from the tangents at
    ``0, -h, -2h`` and the curvatures at ``0, -h``."""
    from oracles.transforms import exp_so3
    from loops.kernels.continuation import _predict

    def hat(w):
        return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])

    exact = np.eye(3)  # R' = hat(omega) R from R(0) = I, by classical Runge-Kutta in 2,000 steps
    ds = h / 2000
    for k in range(2000):
        s = k * ds
        k1 = hat(omega(s)) @ exact
        k2 = hat(omega(s + ds / 2)) @ (exact + ds / 2 * k1)
        k3 = hat(omega(s + ds / 2)) @ (exact + ds / 2 * k2)
        k4 = hat(omega(s + ds)) @ (exact + ds * k3)
        exact = exact + ds / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    n, columns = system.n, system.spherical_columns[0]
    G, last_G, curvature = np.zeros((n, 1)), np.zeros((2, n, 1)), np.zeros((2, n))
    G[columns, 0], last_G[0, columns, 0], last_G[1, columns, 0] = omega(0.0), omega(-h), omega(-2 * h)
    curvature[0, columns], curvature[1, columns] = rate(0.0), rate(-h)
    block = type("Block", (), {"column_scale": np.ones(n)})  # all _predict reads of the block
    step = np.zeros(n)
    _, order = getattr(_predict, "py_func", _predict)(system.topology, block, G, last_G, np.full((2, 1), h), curvature,
                                                      np.ones(3), np.array([h]), 1.0, step)  # JIT on or off
    assert order == 5
    miss = exact @ exp_so3(step[columns]).T
    skew = miss - miss.T
    return 0.5 * np.linalg.norm([skew[2, 1], skew[0, 2], skew[1, 0]])


def test_the_predicted_rotation_of_a_spherical_pair_is_fifth_order():
    """With curvatures the predictor composes a ball joint's rotation to O(h^5): halving the step divides its miss
    by about 32."""
    # Reference: the rotation integrated from a quartic angular velocity (classical Runge-Kutta in 2,000 steps,
    # error ~1e-17 here). The Hermite tangent is then exact, and what the prediction misses is the Magnus series
    # beyond its terms in h^3 and h^4 (-h^3/12 t x t' - h^4/24 t x t''): O(h^5), a ratio of ~32 between two steps
    # (measured 31-33). With the h^4 term wrong (t x t'' over 48 instead of 24) it is O(h^4), a ratio of ~16.
    c = np.array([[0.3, -0.2, 0.5], [0.4, 0.6, -0.1], [-0.5, 0.2, 0.3], [0.2, -0.4, 0.1], [0.1, 0.3, -0.2]])

    def omega(s):
        return c[0] + c[1] * s + c[2] * s**2 + c[3] * s**3 + c[4] * s**4

    def rate(s):
        return c[1] + 2 * c[2] * s + 3 * c[3] * s**2 + 4 * c[4] * s**3

    from loops.compiled import compile_model

    system = compile_model(load_model(EXAMPLES / "double_wishbone.toml").snapshot())
    misses = [_rotation_prediction_miss(system, omega, rate, h) for h in (0.1, 0.05)]
    assert misses[0] / misses[1] > 25.0, misses


def test_a_walk_records_curvatures_only_once_its_steps_prove_long():
    """4 mm steps of wheel travel need a chord iteration after a third-order prediction: the walk then records the
    curvatures; 1 mm steps never do, and their sweep costs no extra solve."""
    # Reference: the corrector's iterations at each position (1: the polish step alone) for the two step sizes, from
    # the same closed start; the walk's positions equal a sweep's of the same values (the sweep walks the same way).
    from loops.compiled import compile_model
    from loops.configuration import evaluate
    from loops.continuation import Walk
    from loops.held import held_freedoms
    from loops.sweep import SweepOutputs

    model = load_model(EXAMPLES / "double_wishbone.toml")
    system = compile_model(model.snapshot())
    q0 = system.reference_q()
    driven = system.driver_columns(["travel"])
    columns = np.r_[driven, held_freedoms(system, evaluate(system, q0), driven, None)]  # the rack is held
    for count, records in ((41, True), (161, False)):
        values = np.linspace(-0.08, 0.08, count)
        walk = Walk(system, columns)
        targets = np.ascontiguousarray(np.column_stack([values, np.broadcast_to(q0[columns[1:]], (count, 1))]))
        zeros = np.zeros((count, 2))
        out = SweepOutputs(system, count, 2)
        assert walk.positions(targets, zeros, zeros, 0, out) == (count, True)
        assert (walk.curved[2] == 1.0) == records, count
        if records:
            assert walk.curved[0] == 1.0 and np.all(np.isfinite(walk.curvature))
        assert_allclose(out["q"], model.sweep({"travel": values})._q, rtol=0.0, atol=0.0)


@pytest.mark.parametrize("acceleration", [0.0, 2.0])
def test_a_sweep_keeps_the_curvature_of_the_accelerations_it_solves(acceleration):
    """A walk that records curvatures and solves the accelerations at a driver speed along its steps, with no
    driver acceleration, keeps those over the speed squared as the curvature (no second solve); with a driver
    acceleration it solves the curvature apart. Either way the curvature is d^2 q / d travel^2 where the walk ends."""
    # Reference: the accelerations at unit travel speed and no driver acceleration at the last position (the
    # curvature by its definition), solved apart by loops.rates.motion_at_positions at that closed position; equal to
    # round-off (the travel speed 0.3 m/s is no power of two, so the quotient is rounded).
    from loops.compiled import compile_model
    from loops.configuration import evaluate
    from loops.continuation import Walk
    from loops.held import held_freedoms
    from loops.rates import motion_at_positions
    from loops.sweep import SweepOutputs

    model = load_model(EXAMPLES / "double_wishbone.toml")
    system = compile_model(model.snapshot())
    q0 = system.reference_q()
    driven = system.driver_columns(["travel"])
    columns = np.r_[driven, held_freedoms(system, evaluate(system, q0), driven, None)]
    count = 41  # 4 mm steps: the walk records curvatures
    targets = np.ascontiguousarray(np.column_stack([np.linspace(-0.08, 0.08, count), np.full(count, q0[columns[1]])]))
    speeds = np.zeros((count, 2))
    speeds[:, 0] = 0.3
    accelerations = np.zeros((count, 2))
    accelerations[:, 0] = acceleration
    walk = Walk(system, columns)
    out = SweepOutputs(system, count, 2)
    assert walk.positions(targets, speeds, accelerations, 0, out) == (count, True)
    assert walk.curved[2] == 1.0 and walk.curved[0] == 1.0
    unit = np.array([[1.0, 0.0]])
    curvature = motion_at_positions(system, columns, out["q"][-1:], out["rotations"][-1:], out["G"][-1:], unit,
                                    np.zeros((1, 2)))[1][0]
    assert_allclose(walk.curvature[0], curvature, rtol=1e-12, atol=1e-12 * np.abs(curvature).max())


def test_each_sweep_starts_from_the_reference_assembly_whatever_ran_before():
    """The start a sweep reuses (closed, factorized, cached per drivers) is copied, never walked itself."""
    # Reference: the same sweep on a freshly built model (nothing cached for it). Sweeps run before it on the same
    # model (one to the far side of the turn, one that stops at the rocker's dead point) leave its result bit for bit
    # equal: each walks its own copy of the reference start.
    m, fresh = four_bar(), four_bar()
    angles = np.linspace(0.0, 1.0, 11)
    m.sweep({"A": [3.0]})
    with pytest.raises(SweepStopped):
        m.sweep({"D": np.linspace(0.0, 3.0, 31)})
    again = m.sweep({"A": angles}, speeds={"A": 1.0})
    reference = fresh.sweep({"A": angles}, speeds={"A": 1.0})
    for pair in ("A", "B", "C", "D"):
        assert np.array_equal(again.q(pair), reference.q(pair)), pair
        assert np.array_equal(again.q_dot(pair), reference.q_dot(pair)), pair


def test_a_hold_of_unhashable_names_is_refused_like_any_other():
    """The cached start takes hold's names as a key; names that cannot be one still get the located error."""
    # A list inside the list cannot be a cache key: the sweep hands it to held_freedoms uncached, which names it at
    # `hold` as it does any name that is not a variable.
    with pytest.raises(ModelError, match="not a pair variable or point driver") as error:
        four_bar().sweep({"A": [0.1]}, hold=[["D"]])
    assert error.value.where.startswith("hold")


def test_a_walk_to_where_it_stands_calls_no_kernel():
    """``Walk.to`` the driven values it stands on changes nothing and calls no kernel: a simulation
    from the design pose compiles no walk step on its first run."""
    from loops.compiled import compile_model
    from loops.continuation import Walk

    system = compile_model(four_bar().snapshot())
    walk = Walk(system, [system.variable_index["A"]])
    q, poses = walk.q, walk.here.T.copy()

    class NoKernels:
        def __getattr__(self, name):
            raise AssertionError(f"kernel {name} called")

    walk._kernels = NoKernels()
    walk.to(walk.driven_values)
    assert np.array_equal(walk.q, q)
    assert np.array_equal(walk.here.T, poses)


@pytest.mark.parametrize("end", ["budget", "stopped"])
def test_a_walk_that_ends_on_a_refused_step_stands_evaluated_at_its_start(end):
    """A step is tried in the walk's own state: a refused one puts the start back, and a walk that
    returns right after one (its step budget spent, or out of halvings) leaves that start evaluated
    (poses, frames, twists, defects), as a stopped sweep's partial result reads it."""
    # Reference: the state's arrays before the call. The rocker D of the four-bar cannot pass its
    # extended toggle (about 0.1 rad, core_models.four_bar_rocker_limits), so the first step to 0.6
    # rad is refused; the walk then returns from where it started, its arrays equal to before.
    from loops.compiled import compile_model
    from loops.continuation import Walk
    from loops.kernels import continuation as kernels
    from loops.rates import empty_record

    assert four_bar_rocker_limits()[1] < 0.2
    system = compile_model(four_bar().snapshot())
    walk = Walk(system, [system.variable_index["D"]])
    before = {name: getattr(walk.here, name).copy() for name in ("q", "A", "T", "W", "xi", "defects", "centres")}
    if end == "budget":
        walk.counters[1] = walk.counters[0] + 1
    else:
        walk.params[3] = 0.0  # no halving
    targets = np.array([[0.6]])
    _, status = kernels.walk_positions(system.topology, system.geometry, walk.block, walk.state(), targets, targets,
                                       targets, 0, kernels.CONTINUE, walk.params, walk.counters, walk.diagnostics,
                                       empty_record(system, 1))
    assert status == (kernels.BUDGET if end == "budget" else kernels.STOPPED)
    assert walk.counters[0] == 1
    for name, value in before.items():
        assert_allclose(getattr(walk.here, name), value, rtol=0.0, atol=1e-14, err_msg=name)
