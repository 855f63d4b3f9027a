"""Tests of loops.compiled and loops.configuration: the compiled system, its evaluation and derivatives.

* Reuse: the kernels evaluate configuration after configuration in one preallocated work
  (walks, ``motion_at_positions``, the dynamics' stages). Every array a reused work holds,
  and the rates ``motion_at_positions`` gives for a stack of configurations through one work
  and one factorization, equal what each configuration gives evaluated alone.
* Spherical states: ``evaluate(system, q, rotations)`` takes the spherical pairs from
  ``rotations`` (their slots in ``q`` are ignored), and the engine's step and re-seating
  kernels move a configuration as the tests' numpy helper does (tests/kinematics_helpers.py).
* Linearization (Pavlov eq. 3): column j of ``constraint_matrix`` is the derivative of the
  stacked closure defects (``Configuration.defects``) along variable j's increment, spherical
  increments being rotations about frame j's axes (``kinematics_helpers.step``), at closed
  configurations.
* Link velocities (:func:`loops.kernels.velocity.link_velocities`): ``T' = hat(V) T`` with
  ``V = sum_k xi_k q_k'`` along the tree path, and the twists' rates
  (:func:`loops.kernels.acceleration.velocity_product_terms`, ``xi_k' q_k'``): both against
  central differences of poses and twists along a path in q.

Finite differences (STYLE.md section 3): central, h = 1e-6 on O(1) quantities; truncation
h^2/6 |f'''| ~ 1e-13, round-off eps |f| / h ~ 2e-10. Tolerances rtol 1e-7 / atol 1e-8
leave a margin of 50 over that, and any error in a formula would be O(0.1-1).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import double_wishbone, four_bar, rebuild, sliding_chord, spatial_all_pairs
from kinematics_helpers import link_velocities, seat, step, twist_rate_terms
from loops.compiled import compile_model
from loops.configuration import constraint_matrix, evaluate, new_work, rotations_of
from loops.linear import new_factor, square_block
from loops.newton import solve_position
from mechanism.transforms import inverse
from oracles.transforms import twist_matrix

H = 1e-6
FD_RTOL = 1e-7
FD_ATOL = 1e-8


def random_q(system, rng):
    """Random variables: angles in (-0.6, 0.6) rad, slides in (-0.05, 0.05) m, spherical pairs as
    rotation vectors of norm < 1.1 rad."""
    return np.where(system.rotational, rng.uniform(-0.6, 0.6, system.n), rng.uniform(-0.05, 0.05, system.n))


def increments_path(system, q, direction):
    """``t -> configuration`` moved by ``t * direction`` from q (spherical: left rotations)."""
    rotations = rotations_of(system, q)

    def at(t):
        return evaluate(system, *step(system, q, t * direction, rotations))

    return at


def unit(j, n):
    e = np.zeros(n)
    e[j] = 1.0
    return e


REUSE_CASES = {
    "spatial-all-pairs": (spatial_all_pairs, ["A", "P"]),
    "double-wishbone": (double_wishbone, ["travel", "hub"]),
}


@pytest.mark.parametrize("case", REUSE_CASES.values(), ids=REUSE_CASES.keys())
def test_a_reused_work_evaluates_each_configuration_as_a_fresh_one(case):
    """One work reused over a stack of configurations gives, entry by entry, what each gives alone."""
    # Reference: evaluate() (a fresh work per configuration) and constraint_matrix(). One work, reused for a stack of
    # random configurations (spherical, Hooke, cylindrical, helical, prismatic pairs; gauges and a road loop in the
    # double wishbone), visited in order and then back to the first, holds after the kernels of a walk step (configure,
    # world twists, the loop and gauge rows of B, link velocities, twist-rate terms) what the fresh evaluation gives:
    # matrices, poses, frames, twists, defects, centres, swings, B, the closure error, link velocities and twist rates.
    from loops.kernels.acceleration import velocity_product_terms
    from loops.kernels.closure import configure, gauge_rows, loop_jacobian, world_twists
    from loops.kernels.velocity import link_velocities as link_velocities_kernel

    build, _ = case
    system = compile_model(build().snapshot())
    topology, geometry = system.topology, system.geometry
    assert topology.gauges == (1 if build is double_wishbone else 0)
    rng = np.random.default_rng(3)
    stack = [random_q(system, rng) for _ in range(7)]
    rates = [rng.normal(size=system.n) for _ in range(7)]
    work = new_work(system)
    V = np.zeros((topology.links, 6))
    for k in list(range(7)) + [0]:
        q, q_dot = stack[k], rates[k]
        work.q[:] = q
        work.rotations[:] = rotations_of(system, q)
        error = configure(topology, geometry, work)
        world_twists(topology, geometry, work)
        loop_jacobian(topology, work.xi, work.centres, work.loop_blocks)
        if topology.gauges:
            gauge_rows(topology, geometry, work.xi, work.swings, work.gauge_rows, work.scratch.v3[5:8])
        link_velocities_kernel(topology, work.xi, q_dot, V)
        velocity_product_terms(topology, work.q, q_dot, work.W, work.xi, V, work.scratch.terms, work.scratch.v6[1:4])
        one = evaluate(system, q)
        B = constraint_matrix(system, one)
        loop_rows = np.zeros((6 * topology.loops, system.n))
        for i in range(topology.loops):
            entries = slice(topology.loop_ptr[i], topology.loop_ptr[i + 1])
            loop_rows[6 * i:6 * i + 6, topology.loop_cols[entries]] += work.loop_blocks[entries].T
        V_one = link_velocities(system, one, q_dot)
        # Same operations on the same numbers, reused work or not: round-off only.
        tol = dict(rtol=1e-12, atol=1e-12)
        assert_allclose(work.A, one.pair_matrices, **tol)
        assert_allclose(work.T, one.link_poses, **tol)
        assert_allclose(work.W, one.pair_frames, **tol)
        assert_allclose(work.xi, one.twists, **tol)
        assert_allclose(work.rotations, one.rotations, **tol)
        assert_allclose(work.defects, one.defects, **tol)
        assert_allclose(work.centres, one.centres, **tol)
        assert_allclose(work.swings, one.swings, **tol)
        assert_allclose(loop_rows, B[:6 * topology.loops], **tol)
        assert_allclose(work.gauge_rows, B[6 * topology.loops:], **tol)
        assert_allclose(error, one.closure_error(), **tol)
        assert_allclose(V, V_one, **tol)
        assert_allclose(work.scratch.terms, twist_rate_terms(system, one, q_dot, V_one), **tol)


@pytest.mark.parametrize("case", REUSE_CASES.values(), ids=REUSE_CASES.keys())
def test_motion_at_a_stack_of_positions_equals_one_position_at_a_time(case):
    """motion_on_block over a stack (one work, one factorization reused) equals single-position calls."""
    # Reference: the same kernel called for each position alone, with a fresh work and factorization and the same
    # square block. Over a stack of 7 random configurations with random tangents, speeds and accelerations, the rates,
    # link velocities and accelerations agree: nothing of one position leaks into the next.
    from loops.rates import motion_on_block

    build, drivers = case
    system = compile_model(build().snapshot())
    topology = system.topology
    driven = system.driver_columns(drivers)
    rng = np.random.default_rng(4)
    count, d = 7, len(driven)
    q = np.array([random_q(system, rng) for _ in range(count)])
    rotations = np.array([rotations_of(system, row) for row in q]).reshape(count, topology.spheres, 3, 3)
    tangents = rng.normal(size=(count, system.n, d))
    speeds, accelerations = rng.normal(size=(count, d)), rng.normal(size=(count, d))
    block = square_block(system, constraint_matrix(system, evaluate(system, q[0]), scaled=True), driven)
    assert block is not None

    def motion(rows):
        return motion_on_block(system, block, q[rows], rotations[rows], tangents[rows], speeds[rows],
                               accelerations[rows])

    stacked = motion(np.arange(count))
    assert np.all(np.isfinite(stacked[1]))  # every position factorized (regular)
    for k in range(count):
        alone = motion(np.array([k]))
        for got, expected in zip(stacked, alone):
            # Same operations on the same numbers: round-off only.
            assert_allclose(got[k], expected[0], rtol=1e-12, atol=1e-12)


def test_evaluation_from_rotation_blocks_equals_from_rotation_vectors():
    """evaluate(q, rotations) after a step equals evaluate(seated q); the engine's step and seat kernels agree."""
    # Reference: evaluate(q) of the seated variables (spherical pairs re-exponentiated from their rotation vectors).
    # evaluate(q, rotations) with the rotation blocks of a step gives the same configuration although q's spherical
    # slots are stale (they are ignored); and the engine's own apply_step and seat_spherical kernels move q and the
    # rotations as the numpy helper (kinematics_helpers.step, seat) does.
    from loops.kernels.newton import apply_step, seat_spherical

    system = compile_model(spatial_all_pairs().snapshot())
    rng = np.random.default_rng(4)
    q = random_q(system, rng)
    dq = random_q(system, rng)
    moved, rotations = step(system, q, dq, rotations_of(system, q))
    from_blocks = evaluate(system, moved, rotations)
    seated = seat(system, moved, rotations)
    assert np.abs(seated - moved).max() > 0.01  # the stale slots really differ
    from_vectors = evaluate(system, seated)
    # exp(log(R)) = R to round-off for angles < pi.
    for name in ("pair_matrices", "link_poses", "twists", "defects"):
        assert_allclose(getattr(from_vectors, name), getattr(from_blocks, name), rtol=1e-12, atol=1e-12, err_msg=name)
    work = new_work(system, q)
    apply_step(system.topology, work, dq, 1.0)
    assert_allclose(work.rotations, rotations, rtol=1e-12, atol=1e-12)
    seat_spherical(system.topology, work, q)
    assert_allclose(work.q, seated, rtol=1e-12, atol=1e-12)


def closed_configurations(build, drivers):
    """The compiled system and closed configurations: the design pose and the positions of a
    short sweep. A result reports the public variables only; the road loop's virtual slides
    and ball are found again by Newton (solve_position) from the reported values with the
    drivers and held variables fixed."""
    res = build().sweep(drivers)
    system = res.system
    driven = system.driver_columns(res.drivers + res.held)
    configurations = [system.reference_q()]
    for k in range(len(res)):
        q = np.zeros(system.n)
        for name in system.public_variables():
            q[system.variable_index[name]] = res.q(name)[k]
        configurations.append(np.array(solve_position(system, q, driven).q))
    return system, configurations


def wishbone_without_point_driver():
    """The double wishbone with no road loop (driven at its lower arm): gauge rows, no slide."""
    return rebuild(double_wishbone(), point_drivers=False)


JACOBIAN_CASES = {
    "four-bar": (four_bar, {"A": np.linspace(0.0, 3.0, 4)}),
    "spatial-all-pairs": (spatial_all_pairs, {"A": np.linspace(0.0, 1.0, 4), "P": np.linspace(0.0, 0.05, 4)}),
    "double-wishbone, arm driven": (wishbone_without_point_driver,
                                    {"lower_inner": np.linspace(-0.2, 0.2, 4), "hub": np.linspace(0, 1, 4)}),
}


def residual_differences(system, q):
    """Central differences of the closure defects along each variable's increment: (rows, n)."""
    columns = []
    for j in range(system.n):
        path = increments_path(system, q, unit(j, system.n))
        columns.append((path(H).defects - path(-H).defects) / (2 * H))
    return np.stack(columns, axis=-1)


@pytest.mark.parametrize("case", JACOBIAN_CASES.values(), ids=JACOBIAN_CASES.keys())
def test_constraint_matrix_is_the_derivative_of_the_residual(case):
    """At closed configurations B is the derivative of the defects along each increment (true Newton, eq. 3)."""
    # Reference: central differences of the defects. At closed configurations, B (loops, then gauge rows) equals them
    # along each variable, so Newton's step (eq. 3) is a true Newton step.
    system, configurations = closed_configurations(*case)
    for q in configurations:
        config = evaluate(system, q)
        assert config.closure_error() < 1e-10
        assert_allclose(constraint_matrix(system, config), residual_differences(system, q),
                        rtol=FD_RTOL, atol=FD_ATOL)


SLIDING_CHORDS = {
    # The RSCR's cylindrical chord C has slid 0.12 m at crank angle 1.4 rad.
    "RSCR": (sliding_chord, {"A": np.linspace(0.0, 1.4, 15)}),
    # The road loop of a point driver closes at its last virtual slide, which moves with the
    # wheel centre's lateral motion.
    "double-wishbone road loop": (double_wishbone, {"travel": np.linspace(0.0, 0.08, 5)}),
}


@pytest.mark.parametrize("case", SLIDING_CHORDS.values(), ids=SLIDING_CHORDS.keys())
def test_constraint_matrix_is_the_derivative_of_the_residual_with_a_sliding_chord(case):
    """B stays the defects' derivative where a loop's chord pair has slid (prismatic chord, road loop)."""
    # Reference: central differences of the defects, at the last position of sweeps that make a chord slide: B must
    # still be their derivative there.
    system, configurations = closed_configurations(*case)
    q = configurations[-1]
    config = evaluate(system, q)
    assert config.closure_error() < 1e-10
    assert_allclose(constraint_matrix(system, config), residual_differences(system, q), rtol=FD_RTOL, atol=FD_ATOL)


@pytest.mark.parametrize("build", [spatial_all_pairs, double_wishbone], ids=["spatial-all-pairs", "double-wishbone"])
def test_link_velocities_are_the_rates_of_link_poses(build):
    """T' = hat(V) T with V from link_velocities, and xi' q' from velocity_product_terms, for any q and q'."""
    # Reference: central differences of poses and twists along q(t) = q + t q' (spherical: rotated by t q' about frame
    # j's axes). The link poses satisfy T' = hat(V) T with V from the link_velocities kernel, and the world twists
    # change at the rates in velocity_product_terms (xi_k' q_k', the terms the acceleration solve uses); any q, any q',
    # closed or not.
    system = compile_model(build().snapshot())
    rng = np.random.default_rng(5)
    for _ in range(3):
        q = random_q(system, rng)
        q_dot = rng.normal(size=system.n)
        path = increments_path(system, q, q_dot)
        here, ahead, behind = path(0.0), path(H), path(-H)
        V = link_velocities(system, here, q_dot)
        T_dot = (ahead.link_poses - behind.link_poses) / (2 * H)
        assert_allclose(T_dot @ inverse(here.link_poses), twist_matrix(V), rtol=FD_RTOL, atol=FD_ATOL)
        twist_dot = (ahead.twists - behind.twists) / (2 * H)
        assert_allclose(twist_rate_terms(system, here, q_dot, V), twist_dot * q_dot[:, None],
                        rtol=FD_RTOL, atol=FD_ATOL)


def test_variables_are_laid_out_pair_by_pair_with_virtual_pairs_last():
    """Variables follow pair declaration (U.0, U.1), road-loop pairs last and hidden; the design pose is 0."""
    # Variables follow the declaration of pairs (``U.0``, ``U.1`` for multi-variable pairs), then the road loop, whose
    # driver variable alone is public; the design pose is q = 0 and closes exactly.
    system = compile_model(double_wishbone().snapshot())
    assert system.variable_names[:3] == ["lower_inner", "upper_inner", "lower_ball.0"]
    assert system.variable_names[14] == "hub" and system.variable_names[15] == "travel"
    assert system.public_variables()[-1] == "travel" and len(system.public_variables()) == 16
    assert not any(system.public[16:])
    assert np.all(system.reference_q() == 0.0)
    assert evaluate(system, system.reference_q()).closure_error() == 0.0
    spatial = compile_model(spatial_all_pairs().snapshot())
    assert spatial.variable_names == ["A", "S.0", "S.1", "S.2", "U.0", "U.1", "H", "Cy.0", "Cy.1", "P"]
    assert list(spatial.rotational) == [True] * 7 + [True, False, False]
