"""Tests of loops.newton and loops.kernels.newton: Newton on the closure equations, chord iterations, assembly.

* Newton (Pavlov eq. 3) brings a perturbed configuration back to closure below the default
  tolerance 1e-10, the drivers held, on spatial mechanisms with every pair type, with a
  gauged idle spin, and on the overconstrained Bennett loop (rank-deficient B), with both
  backends of the solve layer (:mod:`loops.linear`): ``solve_position`` (least squares, every
  row, minimum-norm steps: what ``assemble`` uses) and the compiled corrector
  (:func:`loops.kernels.newton.corrector`) on the square block (what sweeps use).
* The sweeps' corrector started with a factorization taken at a nearby configuration (a
  chord iteration) closes predictions 1e-3 off without refactorizing, onto the
  configurations they came from.
* A failure raises ClosureError carrying the loop, the driver values, the residual and the
  iterations, with a one-line message naming the loop (DESIGN.md "Errors").
* ``Mechanism.assemble`` closes models declared by link shapes (Denavit-Hartenberg style)
  from rough guesses, and their sweeps start from the assembled pose.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import (
    BENNETT,
    CLOSURE_TOL,
    DH_FOUR_BAR,
    bennett,
    bennett_link_local,
    double_wishbone,
    four_bar_link_local,
    four_bar_link_local_angles,
    loop_product,
    rssr,
    spatial_all_pairs,
)
from kinematics_helpers import advance
from loops.configuration import constraint_matrix, evaluate, new_work
from loops.continuation import DEFAULT_TOLERANCE, MAX_NEWTON_STEP, NEWTON_ITERATIONS
from loops.linear import Factor, new_factor, square_block
from loops.newton import solve_position
from mechanism import ClosureError, KinematrixError, Mechanism, ModelError, SweepStopped, dh_transform
from reference import closed_forms as cf

CASES = {
    "spatial-all-pairs": (spatial_all_pairs, {"A": 0.7, "P": 0.03}),
    "RSSR (gauged idle spin)": (rssr, {"A": 2.0}),
    "double wishbone (gauge, road loop)": (double_wishbone, {"travel": 0.05, "hub": 0.4}),
    "Bennett (overconstrained)": (bennett, {"J1": 1.0}),
}


def closed_state(build, drivers):
    """A closed configuration at the given driver values: (system, q, driven columns)."""
    res = build().sweep({name: [value] for name, value in drivers.items()})
    assert not res.held
    system = res.system
    q = np.zeros(system.n)
    for name in system.public_variables():
        q[system.variable_index[name]] = res.q(name)[0]
    driven = system.driver_columns(list(drivers))
    config = solve_position(system, q, driven)  # fills in the road loop's virtual variables
    return system, np.array(config.q), driven


def perturbed(system, q, driven, rng, size):
    """``q`` moved by random increments of ``size`` (rad, or size x mechanism size for
    slides) in every free variable."""
    dq = rng.normal(scale=size, size=system.n) * system.column_scale
    dq[driven] = 0.0
    return advance(system, q, dq)


#: The corrector, its seating and the factorization are kernels only other kernels call: called
#: from Python (below) each compiles a twin of its own on a fresh machine (loops.kernels._compile),
#: the same in every test process that meets it first. The tests that call them share one process.
KERNELS_FROM_PYTHON = pytest.mark.xdist_group("closure-kernels-from-python")


def corrector_from(system, block, start, factor):
    """The sweeps' corrector (:func:`loops.kernels.newton.corrector`, polished, at most
    NEWTON_ITERATIONS steps) from the configuration ``start`` (n,) with ``factor`` (invalid:
    factorize at the first iterate; valid: a chord iteration on it). Returns (status,
    [error, iterations, correction, factorizations], seated q, rotations)."""
    from loops.kernels.newton import corrector, seat_spherical

    work = new_work(system, start)
    result = np.zeros(4)
    status = corrector(system.topology, system.geometry, block, work, factor, DEFAULT_TOLERANCE, NEWTON_ITERATIONS,
                       MAX_NEWTON_STEP, True, result, 1.0)
    seat_spherical(system.topology, work, np.array(start))
    return status, result, work.q.copy(), work.rotations.copy()


@KERNELS_FROM_PYTHON
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_newton_from_a_perturbed_configuration_closes_again(case):
    """Newton from 0.03 rad off closes below 1e-10 in a few steps, drivers held, at the same configuration."""
    # Reference: the closed configuration the perturbation started from. From 0.03 rad (or 3% of the size) off it, both
    # backends (solve_position: least squares over every row; the corrector on the square block chosen at the closed
    # configuration, factorized afresh) converge below 1e-10 in at most 10 iterations, hold the drivers exactly, and
    # return to the same configuration (isolated once the drivers and the gauges are fixed).
    from loops.kernels.newton import CONVERGED

    system, q_closed, driven = closed_state(*case)
    closed = evaluate(system, q_closed)
    block = square_block(system, constraint_matrix(system, closed, scaled=True), driven)
    assert block is not None
    rng = np.random.default_rng(7)
    for _ in range(3):
        start = perturbed(system, q_closed, driven, rng, 0.03)
        assert evaluate(system, start).closure_error() > 1e-4
        # Least squares: raises ClosureError unless closed within 10 iterations.
        least_squares = solve_position(system, start, driven, max_iterations=10)
        status, result, q_square, _ = corrector_from(system, block, start, new_factor(block))
        assert status == CONVERGED and result[0] < DEFAULT_TOLERANCE and 1 <= result[1] <= 10
        for q in (np.array(least_squares.q), q_square):
            config = evaluate(system, q)  # seated q re-evaluated from its rotation vectors
            assert config.closure_error() < DEFAULT_TOLERANCE
            assert np.array_equal(q[driven], q_closed[driven])
            # Same configuration: poses agree to the closure tolerance (1e-10 of the size) x 10.
            assert_allclose(config.link_poses, closed.link_poses, rtol=0.0, atol=CLOSURE_TOL)


@KERNELS_FROM_PYTHON
def test_chord_iteration_closes_predictions_with_a_nearby_factorization():
    """The sweeps' corrector closes predictions 1e-3 off on a factorization taken nearby, without refactorizing."""
    # Reference: the closed configuration the predictions were perturbed from. The square block is factorized once, at
    # the closed configuration; the corrector started on a copy of that factorization (a chord iteration, as a sweep
    # step starts) closes each prediction 1e-3 off below 1e-10 without a new factorization and lands on the
    # configuration it came from; an already closed start is left as it is (no correction).
    from loops.kernels.closure import configure
    from loops.kernels.linear import factorize_block
    from loops.kernels.newton import CONVERGED

    system, q_closed, driven = closed_state(spatial_all_pairs, {"A": 0.7, "P": 0.03})
    closed = evaluate(system, q_closed)
    block = square_block(system, constraint_matrix(system, closed, scaled=True), driven)
    factor = new_factor(block)
    work = new_work(system, q_closed, closed.rotations)
    configure(system.topology, system.geometry, work)
    factorize_block(system.topology, system.geometry, block, work, factor)
    assert factor.info[2] == 1.0
    rng = np.random.default_rng(8)
    starts = [perturbed(system, q_closed, driven, rng, 1e-3) for _ in range(5)] + [q_closed]
    corrections = []
    for start in starts:
        chord = Factor(*(np.array(a) for a in factor))
        status, result, q, rotations = corrector_from(system, block, start, chord)
        assert status == CONVERGED and result[0] < DEFAULT_TOLERANCE
        assert result[3] == 0  # no factorization: the nearby one served every step
        corrections.append(result[2])
        assert np.array_equal(q[driven], q_closed[driven])
        config = evaluate(system, q, rotations)
        assert config.closure_error() < DEFAULT_TOLERANCE
        # Every prediction lands on the configuration it came from: poses to 10x the closure tolerance.
        assert_allclose(config.link_poses, closed.link_poses, rtol=0.0, atol=CLOSURE_TOL)
    assert corrections[-1] < 1e-9 < min(corrections[:-1])


def unreachable_four_bar():
    """The link-local four-bar with a ground too long to close (0.04 + 0.12 + 0.09 < 0.30)."""
    a, b, c, _ = DH_FOUR_BAR.values()
    long = Mechanism("four-bar that cannot close")
    for link in ("crank", "coupler", "rocker"):
        long.add_link(link)
    eye = np.eye(4)
    long.add_pair("A", "revolute", "ground", "crank", frame_on_first=eye, frame_on_second=eye)
    long.add_pair("B", "revolute", "crank", "coupler", frame_on_first=dh_transform(a=a), frame_on_second=eye)
    long.add_pair("C", "revolute", "coupler", "rocker", frame_on_first=dh_transform(a=b), frame_on_second=eye)
    long.add_pair("D", "revolute", "rocker", "ground", frame_on_first=dh_transform(a=c),
                  frame_on_second=dh_transform(a=0.30))
    return long


@pytest.mark.parametrize("hold", [None, "D"], ids=["free", "rocker held"])
def test_closure_error_carries_the_loop_and_names_it_in_one_line(hold):
    """ClosureError carries loop, driver values, residual, iterations; its one-line message names the loop."""
    # assemble() of a loop that cannot close (too long a ground, or the rocker held beyond its reach) raises
    # ClosureError (a KinematrixError and a RuntimeError) with .loop naming the loop and its pairs, .driver_values,
    # .residual (the defect reached, > tolerance), .iterations; the message is one line naming the loop and the held
    # value.
    if hold is None:
        m, guess, options, values = unreachable_four_bar(), {"A": 0.3, "B": 0.2, "C": 2.0, "D": 2.0}, {}, {}
    else:
        m = four_bar_link_local()
        angles = four_bar_link_local_angles(0.7)
        guess = {**angles, "D": 0.3}  # the rocker swings over about 1.2 rad around pi - t4 ~ 4.9
        options, values = {"hold": ("D",)}, {"D": 0.3}
    with pytest.raises(ClosureError) as caught:
        m.assemble(guess, **options)
    error = caught.value
    assert isinstance(error, KinematrixError) and isinstance(error, RuntimeError)
    assert not isinstance(error, SweepStopped)
    assert error.loop == "loop 1 (C): A-B-C-D"
    assert set(error.driver_values) == set(values)
    for name, value in values.items():
        assert error.driver_values[name] == value
    assert np.isfinite(error.residual) and error.residual > DEFAULT_TOLERANCE
    assert isinstance(error.iterations, int) and error.iterations >= 1
    message = str(error)
    assert "\n" not in message
    assert message.startswith("loop 1 (C): A-B-C-D cannot close")
    if hold:
        assert "D = 0.3" in message


def test_assemble_closes_a_link_local_four_bar_from_rough_guesses():
    """assemble() closes a DH-style four-bar from guesses 0.25 rad off onto the guessed Freudenstein branch."""
    # A four-bar declared by link shapes, guessed 0.15-0.25 rad off, closes on the guessed branch (Freudenstein's
    # angles, closed_forms.four_bar_angles) with the crank held; the report then counts dof 1 and the loop product (eq.
    # 2) is E.
    m = four_bar_link_local()
    assert m.check().closure_error > 0.1  # open before assembly
    with pytest.raises(SweepStopped, match=r"call Mechanism\.assemble\(\) first"):
        m.sweep({"A": [0.7]})
    exact = four_bar_link_local_angles(0.7, branch=1)
    guess = {"A": 0.7, "B": exact["B"] + 0.2, "C": exact["C"] - 0.25, "D": exact["D"] + 0.15}
    values = m.assemble(guess, hold=("A",))
    assert set(values) == {"A", "B", "C", "D"}
    for name in "ABCD":
        # Freudenstein's angles vs a closure to 1e-10 of the size 0.16 m, conditioning O(1): 1e-9.
        assert_allclose(cf.wrap(values[name] - exact[name]), 0.0, rtol=0.0, atol=1e-9, err_msg=name)
    info = m.check()
    assert info.closure_error < DEFAULT_TOLERANCE and (info.dof, info.redundant) == (1, 3)
    loop = info.loops[0]
    product = loop_product(m.snapshot().pairs, loop, values)
    assert_allclose(product, np.eye(4), rtol=0.0, atol=1e-10)


def test_sweep_of_an_assembled_model_starts_from_the_assembled_pose():
    """After assemble(), sweeps start from the assembled pose and follow its branch (coupler point too)."""
    # After assemble(), sweep values are the pair values themselves (the reference is the assembled pose): the crank's
    # assembled value gives back the assembled pose exactly, and a crank turn follows the assembled branch, coupler
    # point included.
    m = four_bar_link_local()
    values = m.assemble({"A": 0.7, "B": -1.7, "C": 2.3, "D": 5.1}, hold=("A",))
    res = m.sweep({"A": [0.7]})
    for name in "ABCD":
        assert_allclose(res.q(name), values[name], rtol=0.0, atol=1e-12)
    assert_allclose(res.pose("crank")[0][:3, :3], cf.rotation_matrix([0, 0, 1], 0.7), rtol=0.0, atol=1e-12)
    turn = 0.7 + np.linspace(0.0, 2 * np.pi, 25)
    res = m.sweep({"A": turn})
    a, b, c, d = DH_FOUR_BAR.values()
    for k, t2 in enumerate(turn):
        exact = four_bar_link_local_angles(t2, branch=1)
        for name in "BCD":
            assert_allclose(cf.wrap(res.q(name)[k] - exact[name]), 0.0, rtol=0.0, atol=1e-9, err_msg=name)
    t3, _ = cf.four_bar_angles(a, b, c, d, turn, 1)
    # P = (0.06, 0.02) in the coupler's frame, which sits at B with X along the coupler.
    xy, _, _ = cf.four_bar_coupler_point(a, np.hypot(0.06, 0.02), np.arctan2(0.02, 0.06), turn, t3)
    assert_allclose(res.point("P")[:, :2], xy, rtol=0.0, atol=1e-9 * d)
    assert_allclose(res.point("P")[:, 2], 0.0, rtol=0.0, atol=1e-12)


def test_bennett_linkage_assembles_and_closes():
    """The overconstrained Bennett loop (rank-deficient B) assembles onto Bennett's relation, dof 1."""
    # Bennett's overconstrained loop declared by DH shapes (rank-deficient B: three of six equations repeat) assembles
    # from guesses 0.15 rad off onto Bennett's relation t3 = -t1, t4 = -t2, tan(t1/2) tan(t2/2) = K, with t1 held, and
    # reports dof 1.
    m = bennett_link_local()
    alpha, beta = BENNETT["alpha"], BENNETT["beta"]
    t = cf.bennett_joint_angles(1.2, alpha, beta)
    guess = {"J1": 1.2, "J2": float(t[1]) + 0.15, "J3": float(t[2]) - 0.15, "J4": float(t[3]) + 0.15}
    values = m.assemble(guess, hold=("J1",))
    for i in range(4):
        # Closure to 1e-10 of the size, |dt2/dt1| <= K ~ 3.6: 1e-9.
        assert_allclose(cf.wrap(values[f"J{i + 1}"] - t[i]), 0.0, rtol=0.0, atol=1e-9)
    info = m.check()
    assert (info.grubler, info.dof, info.passive, info.redundant) == (-2, 1, 0, 3)
    res = m.sweep({"J1": 1.2 + np.linspace(0.0, 2 * np.pi, 13)})
    t = cf.bennett_joint_angles(1.2 + np.linspace(0.0, 2 * np.pi, 13), alpha, beta)
    for i in range(4):
        assert_allclose(cf.wrap(res.q(f"J{i + 1}") - t[i]), 0.0, rtol=0.0, atol=1e-9)


def test_bennett_linkage_assembles_without_a_held_joint():
    """With nothing held, minimum-norm Newton still closes Bennett's loop on its one-parameter family."""
    # With nothing held, the minimum-norm Newton still closes the Bennett loop (somewhere on its one-parameter family):
    # the values satisfy Bennett's relation.
    m = bennett_link_local()
    alpha, beta = BENNETT["alpha"], BENNETT["beta"]
    t = cf.bennett_joint_angles(1.2, alpha, beta)
    values = m.assemble({"J1": 1.3, "J2": float(t[1]) - 0.1, "J3": -1.1, "J4": float(t[3]) + 0.1})
    t1 = float(values["J1"][0])
    expected = cf.bennett_joint_angles(t1, alpha, beta)
    for i in range(4):
        assert_allclose(cf.wrap(values[f"J{i + 1}"] - expected[i]), 0.0, rtol=0.0, atol=1e-9)


def test_failed_assemble_keeps_the_previous_assembly():
    """An assemble() that raises ClosureError leaves the previous assembly in place (failures change nothing)."""
    # A second assemble() that raises ClosureError must leave the first assembly in place (an operation that fails
    # should not change the model): sweeps still start from it.
    m = four_bar_link_local()
    first = m.assemble({"A": 0.7, "B": -1.7, "C": 2.3, "D": 5.1}, hold=("A",))
    with pytest.raises(ClosureError):
        m.assemble({**first, "D": 0.3}, hold=("D",))  # beyond the rocker's reach
    assert m.check().closure_error < DEFAULT_TOLERANCE
    res = m.sweep({"A": [0.7]})
    assert_allclose(res.q("D"), first["D"], rtol=0.0, atol=1e-12)


def test_assemble_rejects_a_guess_for_an_unknown_pair():
    """A guess for an unknown pair is a located ModelError, not silently ignored."""
    # Guesses are keyed by pair (or pair variable) names; anything else is a located ModelError, not silently ignored.
    with pytest.raises(ModelError) as caught:
        four_bar_link_local().assemble({"A": 0.7, "crank": 0.2})
    assert caught.value.where == "guess 'crank'"
    assert "not a pair or pair variable" in str(caught.value)


@KERNELS_FROM_PYTHON
def test_a_start_just_within_the_tolerance_is_polished_down_to_the_floor():
    """With polish_floor, the corrector goes on from a start just within the tolerance until far below it."""
    # Reference: the closure error of the returned configuration evaluated afresh (loops.configuration.evaluate). The
    # start is a closed configuration moved until its defect is half the tolerance, and the corrector starts on a
    # factorization taken at another closed configuration (a stale chord, as a walk's step starts on the last one):
    # one polish step (polish_floor 1, every other walk step) leaves the defect only the chord's contraction below the
    # start; with the floor of a fifth-order prediction (POLISH_FLOOR) it ends at most POLISH_FLOOR x tolerance.
    from loops.kernels.closure import configure
    from loops.kernels.linear import factorize_block
    from loops.kernels.newton import POLISH_FLOOR, corrector, seat_spherical

    system, q_closed, driven = closed_state(spatial_all_pairs, {"A": 0.7, "P": 0.03})
    _, q_other, _ = closed_state(spatial_all_pairs, {"A": 0.9, "P": 0.03})
    closed = evaluate(system, q_closed)
    block = square_block(system, constraint_matrix(system, closed, scaled=True), driven)
    stale = new_factor(block)
    work = new_work(system, q_other)
    configure(system.topology, system.geometry, work)
    factorize_block(system.topology, system.geometry, block, work, stale)
    rng = np.random.default_rng(9)
    direction = perturbed(system, q_closed, driven, rng, 1e-6) - q_closed
    size = 0.5 * DEFAULT_TOLERANCE / evaluate(system, q_closed + direction).closure_error()
    start = q_closed + size * direction
    assert 0.2 * DEFAULT_TOLERANCE < evaluate(system, start).closure_error() <= DEFAULT_TOLERANCE
    errors = {}
    for floor in (1.0, POLISH_FLOOR):
        work = new_work(system, start)
        result = np.zeros(4)
        status = corrector(system.topology, system.geometry, block, work, Factor(*(np.array(a) for a in stale)),
                           DEFAULT_TOLERANCE, NEWTON_ITERATIONS, MAX_NEWTON_STEP, True, result, floor)
        seat_spherical(system.topology, work, np.array(start))
        assert status == 0
        errors[floor] = evaluate(system, work.q, work.rotations).closure_error()
    assert errors[POLISH_FLOOR] <= POLISH_FLOOR * DEFAULT_TOLERANCE < errors[1.0], errors


@KERNELS_FROM_PYTHON
def test_a_start_already_below_the_floor_is_left_as_it_is():
    """With polish_floor, a start whose defect is below the floor already takes no step; with the one polish step
    (polish_floor 1) it takes one."""
    # Reference: the start itself. A closed configuration moved until its defect is half POLISH_FLOOR x tolerance (a
    # fifth-order prediction lands there): with the floor the corrector returns it bit for bit after no iteration,
    # converged; with polish_floor 1 it polishes once, as every step predicted to lower order does.
    from loops.kernels.newton import CONVERGED, POLISH_FLOOR, corrector

    system, q_closed, driven = closed_state(spatial_all_pairs, {"A": 0.7, "P": 0.03})
    block = square_block(system, constraint_matrix(system, evaluate(system, q_closed), scaled=True), driven)
    rng = np.random.default_rng(9)
    direction = perturbed(system, q_closed, driven, rng, 1e-6) - q_closed
    start = q_closed + 0.5 * POLISH_FLOOR * DEFAULT_TOLERANCE / evaluate(system, q_closed + direction).closure_error() \
        * direction
    assert 0.1 * POLISH_FLOOR * DEFAULT_TOLERANCE < evaluate(system, start).closure_error()
    assert evaluate(system, start).closure_error() <= POLISH_FLOOR * DEFAULT_TOLERANCE
    for floor, steps in ((POLISH_FLOOR, 0), (1.0, 1)):
        work = new_work(system, start)
        rotations = work.rotations.copy()
        result = np.zeros(4)
        status = corrector(system.topology, system.geometry, block, work, new_factor(block), DEFAULT_TOLERANCE,
                           NEWTON_ITERATIONS, MAX_NEWTON_STEP, True, result, floor)
        assert status == CONVERGED and result[1] == steps, (floor, result)
        assert (np.array_equal(work.q, start) and np.array_equal(work.rotations, rotations)) == (steps == 0), floor


def test_constraint_matrix_hands_the_kernels_writable_arrays(monkeypatch):
    """``constraint_matrix`` of a :class:`~loops.configuration.Configuration` (whose arrays are
    frozen) hands the Jacobian kernels writable copies: numba compiles a kernel once per argument
    type and a read-only array is a type of its own, so frozen arrays would compile a second
    version of kernels the walk calls with its writable scratch (a cold first command's time)."""
    from loops.kernels import closure

    system, q_closed, _ = closed_state(rssr, {"A": 2.0})
    closed = evaluate(system, q_closed)
    assert not closed.twists.flags.writeable and system.topology.gauges
    seen = []
    for name in ("loop_jacobian", "gauge_rows"):
        def spy(*args, kernel=getattr(closure, name), name=name):
            seen.append((name, [a.flags.writeable for a in args if isinstance(a, np.ndarray)]))
            return kernel(*args)
        monkeypatch.setattr(closure, name, spy)
    B = constraint_matrix(system, closed)
    assert [name for name, _ in seen] == ["loop_jacobian", "gauge_rows"]
    assert all(all(flags) for _, flags in seen), seen
    assert B.shape == (system.rows, system.n)
