"""Tests of loops.system: the compiled kinematic system and its derivatives.

* Batching: every array of a configuration evaluated for a stack of q equals the
  per-configuration evaluation (the sweep relies on it for whole batches at once).
* Linearization (Pavlov eq. 3): column j of ``constraint_matrix`` is the derivative of the
  stacked closure defects (``residual``) along variable j's increment, spherical increments
  being rotations about frame j's axes (``system.step``), at closed configurations.
* Link velocities: ``T' = hat(V) T`` with ``V = sum_k xi_k q_k'`` along the tree path, and the
  twists' rates: both against central differences of poses and twists along a path in q.

Finite differences (STYLE.md section 3): central, h = 1e-6 on O(1) quantities; truncation
h^2/6 |f'''| ~ 1e-13, round-off eps |f| / h ~ 2e-10. Tolerances rtol 1e-7 / atol 1e-8
leave a margin of 50 over that, and any error in a formula would be O(0.1-1).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import double_wishbone, four_bar, rebuild, sliding_chord, spatial_all_pairs
from loops.system import compile_model
from mechanism.transforms import inverse, twist_matrix

H = 1e-6
FD_RTOL = 1e-7
FD_ATOL = 1e-8


def random_q(system, rng, shape=()):
    """Random variables: angles in (-0.6, 0.6) rad, slides in (-0.05, 0.05) m, spherical pairs as
    rotation vectors of norm < 1 rad."""
    q = np.where(system.rotational, rng.uniform(-0.6, 0.6, shape + (system.n,)),
                 rng.uniform(-0.05, 0.05, shape + (system.n,)))
    return q


def increments_path(system, q, direction):
    """``t -> configuration`` moved by ``t * direction`` from q (spherical: left rotations)."""
    rotations = system.evaluate(q).rotations

    def at(t):
        moved, moved_rotations = system.step(q, t * direction, rotations)
        return system.evaluate(moved, moved_rotations)

    return at


def unit(j, n):
    e = np.zeros(n)
    e[j] = 1.0
    return e


@pytest.mark.parametrize("build", [spatial_all_pairs, double_wishbone], ids=["spatial-all-pairs", "double-wishbone"])
@pytest.mark.parametrize("shape", [(7,), (2, 3)], ids=["stack of 7", "2x3 stack"])
def test_batched_evaluation_equals_one_at_a_time(build, shape):
    """Evaluating a stack of configurations gives, entry by entry, what each gives alone (sweeps batch)."""
    # A stack of random configurations (spherical, Hooke, cylindrical, helical, prismatic pairs; gauges and a road loop
    # in the double wishbone) gives, entry by entry, what each configuration gives alone: matrices, poses, frames,
    # twists, defects, residual, B, the closure error, link velocities and twist rates.
    system = compile_model(build().snapshot())
    rng = np.random.default_rng(3)
    q = random_q(system, rng, shape)
    q_dot = rng.normal(size=shape + (system.n,))
    batch = system.evaluate(q)
    B = system.constraint_matrix(batch)
    residual = system.residual(batch)
    error = system.closure_error(batch)
    V = system.link_velocities(batch, q_dot)
    rates = system.twist_rates(batch, q_dot, V)
    assert B.shape == shape + (6 * len(system.loops) + len(system.gauges), system.n)
    assert error.shape == shape
    for index in np.ndindex(*shape):
        one = system.evaluate(q[index])
        # Same operations on the same numbers, batched or not: round-off only.
        tol = dict(rtol=1e-12, atol=1e-12)
        assert_allclose(batch.pair_matrices[index], one.pair_matrices, **tol)
        assert_allclose(batch.link_poses[index], one.link_poses, **tol)
        assert_allclose(batch.pair_frames[index], one.pair_frames, **tol)
        assert_allclose(batch.twists[index], one.twists, **tol)
        assert_allclose(batch.rotations[index], one.rotations, **tol)
        assert_allclose(residual[index], system.residual(one), **tol)
        assert_allclose(B[index], system.constraint_matrix(one), **tol)
        assert_allclose(error[index], system.closure_error(one), **tol)
        V_one = system.link_velocities(one, q_dot[index])
        assert_allclose(V[index], V_one, **tol)
        assert_allclose(rates[index], system.twist_rates(one, q_dot[index], V_one), **tol)


def test_evaluation_from_rotation_blocks_equals_from_rotation_vectors():
    """evaluate(q, rotations) from step() equals evaluate(seated q): the two spherical charts agree."""
    # evaluate(q) re-exponentiates the spherical pairs; evaluate(q, rotations) with the rotation blocks of step() gives
    # the same configuration once q is seated.
    system = compile_model(spatial_all_pairs().snapshot())
    rng = np.random.default_rng(4)
    q = random_q(system, rng)
    dq = random_q(system, rng)
    moved, rotations = system.step(q, dq, system.evaluate(q).rotations)
    from_blocks = system.evaluate(moved, rotations)
    seated = system.seat(moved.copy(), rotations)
    from_vectors = system.evaluate(seated)
    # exp(log(R)) = R to round-off for angles < pi.
    assert_allclose(from_vectors.link_poses, from_blocks.link_poses, rtol=1e-12, atol=1e-12)
    assert_allclose(system.advance(q, dq), seated, rtol=1e-12, atol=1e-12)


def closed_configurations(build, drivers):
    """The compiled system and closed configurations: the design pose and the positions of a
    short sweep. A result reports the public variables only; the road loop's virtual slides
    and ball are found again by Newton from the reported values with the drivers held."""
    from loops.closure import newton

    res = build().sweep(drivers)
    system = res.system
    configurations = [system.reference_q()]
    for k in range(len(res)):
        q = np.zeros(system.n)
        for name in system.public_variables():
            q[system.variable_index[name]] = res.q(name)[k]
        outcome = newton(system, q, system.driver_columns(res.drivers))
        assert outcome.converged
        configurations.append(outcome.q)
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
    """Central differences of the residual along each variable's increment: (rows, n)."""
    columns = []
    for j in range(system.n):
        path = increments_path(system, q, unit(j, system.n))
        columns.append((system.residual(path(H)) - system.residual(path(-H))) / (2 * H))
    return np.stack(columns, axis=-1)


@pytest.mark.parametrize("case", JACOBIAN_CASES.values(), ids=JACOBIAN_CASES.keys())
def test_constraint_matrix_is_the_derivative_of_the_residual(case):
    """At closed configurations B is the derivative of the residual along each increment (true Newton, eq. 3)."""
    # At closed configurations, B (loops, then gauge rows) equals the central differences of the residual along each
    # variable, so Newton's step (eq. 3) is a true Newton step.
    system, configurations = closed_configurations(*case)
    for q in configurations:
        config = system.evaluate(q)
        assert system.closure_error(config) < 1e-10
        assert_allclose(system.constraint_matrix(config), residual_differences(system, q),
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
    """B stays the residual's derivative where a loop's chord pair has slid (prismatic chord, road loop)."""
    # Same property at the last position of sweeps that make a chord slide: B must still be the derivative of the
    # residual there.
    system, configurations = closed_configurations(*case)
    q = configurations[-1]
    assert system.closure_error(system.evaluate(q)) < 1e-10
    assert_allclose(system.constraint_matrix(system.evaluate(q)), residual_differences(system, q),
                    rtol=FD_RTOL, atol=FD_ATOL)


@pytest.mark.parametrize("build", [spatial_all_pairs, double_wishbone], ids=["spatial-all-pairs", "double-wishbone"])
def test_link_velocities_are_the_rates_of_link_poses(build):
    """T' = hat(V) T with V from link_velocities, and twist_rates are the twists' rates, for any q and q'."""
    # Along q(t) = q + t q' (spherical: rotated by t q' about frame j's axes), the link poses satisfy T' = hat(V) T with
    # V from link_velocities, and the world twists change at twist_rates (the rate the acceleration solve uses); any q,
    # any q', closed or not.
    system = compile_model(build().snapshot())
    rng = np.random.default_rng(5)
    for _ in range(3):
        q = random_q(system, rng)
        q_dot = rng.normal(size=system.n)
        path = increments_path(system, q, q_dot)
        here, ahead, behind = path(0.0), path(H), path(-H)
        V = system.link_velocities(here, q_dot)
        T_dot = (ahead.link_poses - behind.link_poses) / (2 * H)
        assert_allclose(T_dot @ inverse(here.link_poses), twist_matrix(V), rtol=FD_RTOL, atol=FD_ATOL)
        twist_dot = (ahead.twists - behind.twists) / (2 * H)
        assert_allclose(system.twist_rates(here, q_dot, V), twist_dot, rtol=FD_RTOL, atol=FD_ATOL)


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
    assert system.closure_error(system.evaluate(system.reference_q())) == 0.0
    spatial = compile_model(spatial_all_pairs().snapshot())
    assert spatial.variable_names == ["A", "S.0", "S.1", "S.2", "U.0", "U.1", "H", "Cy.0", "Cy.1", "P"]
    assert list(spatial.rotational) == [True] * 7 + [True, False, False]
