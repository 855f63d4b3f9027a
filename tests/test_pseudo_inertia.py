"""Pseudo-inertia matrices (METHOD.md, "Dynamics (7)") and the trace form of kinetic energy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from dynamics.pseudo_inertia import (
    inertia_from_pseudo,
    kinetic_energy_trace,
    pseudo_inertia,
    transform_pseudo_inertia,
)
from mechanism.transforms import homogeneous, translation
from oracles.transforms import exp_so3, twist_matrix

# Every quantity below is O(1) (kg, m, kg m^2, 1/s); round-off is ~1e-15, so 1e-12 both
# relative and absolute leaves room for the few dozen operations in each identity.
TOL = dict(rtol=1e-12, atol=1e-12)


def random_bodies(rng, count):
    """Physically admissible rigid bodies: mass, c.o.m. and a central inertia tensor.

    Principal central second moments are drawn >= 0 (so the principal moments of inertia
    obey the triangle inequality) and rotated into random axes.
    """
    mass = rng.uniform(0.1, 5.0, count)
    com = rng.normal(size=(count, 3))
    second_moments = rng.uniform(0.0, 1.0, (count, 3))
    rotation = exp_so3(rng.normal(size=(count, 3)))
    central_second_moment = rotation @ (second_moments[:, :, None] * np.swapaxes(rotation, -1, -2))
    trace = np.trace(central_second_moment, axis1=-2, axis2=-1)
    inertia = trace[:, None, None] * np.eye(3) - central_second_moment
    return mass, com, inertia


def random_poses(rng, count):
    return homogeneous(exp_so3(rng.normal(size=(count, 3)) * 2.0), rng.normal(size=(count, 3)))


def test_round_trip_recovers_mass_com_and_inertia():
    """inertia_from_pseudo inverts pseudo_inertia on stacked bodies."""
    rng = np.random.default_rng(1)
    mass, com, inertia = random_bodies(rng, 40)
    J = pseudo_inertia(mass, com, inertia)
    assert J.shape == (40, 4, 4)
    mass_back, com_back, inertia_back = inertia_from_pseudo(J)
    assert_allclose(mass_back, mass, **TOL)
    assert_allclose(com_back, com, **TOL)
    assert_allclose(inertia_back, inertia, **TOL)


@settings(max_examples=50, deadline=None)
@given(
    # Zero, or a mass well above the subnormal range: for m ~ 1e-310 the first moment m c
    # underflows and c cannot come back from it (no physical link is that light).
    mass=st.one_of(st.just(0.0), st.floats(1e-12, 100.0)),
    com=st.lists(st.floats(-10.0, 10.0), min_size=3, max_size=3),
    moments=st.lists(st.floats(0.0, 10.0), min_size=3, max_size=3),
)
def test_round_trip_property(mass, com, moments):
    """Round trip for any mass >= 0 (zero included), c.o.m. and diagonal second moments."""
    inertia = sum(moments) * np.eye(3) - np.diag(moments)
    mass_back, com_back, inertia_back = inertia_from_pseudo(pseudo_inertia(mass, com, inertia))
    # Scale: |m c c^T| reaches 1e4, so the absolute error of I_c is ~1e4 * eps.
    assert_allclose(mass_back, mass, rtol=1e-12, atol=0.0)
    assert_allclose(inertia_back, inertia, rtol=1e-12, atol=1e-9)
    if mass > 0:
        assert_allclose(com_back, com, rtol=1e-9, atol=1e-9)
    else:
        assert_allclose(com_back, np.zeros(3), rtol=0.0, atol=0.0)


def test_layout_and_zero_mass():
    """Mass at J[3, 3], first moment in the last column and row; zero mass keeps S only."""
    inertia = np.diag([1.0, 2.0, 2.5])
    J = pseudo_inertia(2.0, (1.0, -1.0, 0.5), inertia)
    assert J[3, 3] == 2.0
    assert_allclose(J[:3, 3], [2.0, -2.0, 1.0], **TOL)
    assert_allclose(J[3, :3], [2.0, -2.0, 1.0], **TOL)
    assert_allclose(J, J.T, **TOL)

    massless = pseudo_inertia(0.0, (1.0, 2.0, 3.0), inertia)
    assert_allclose(massless[:3, :3], 2.75 * np.eye(3) - inertia, **TOL)
    assert_allclose(massless[:, 3], np.zeros(4), rtol=0.0, atol=0.0)
    mass, com, inertia_back = inertia_from_pseudo(massless)
    assert mass == 0.0
    assert_allclose(com, np.zeros(3), rtol=0.0, atol=0.0)
    assert_allclose(inertia_back, inertia, **TOL)


def test_matches_particle_cloud():
    """J equals sum m_k r_k r_k^T of a particle cloud, with I_c from the textbook formula."""
    rng = np.random.default_rng(2)
    masses = rng.uniform(0.1, 1.0, 25)
    points = rng.normal(size=(25, 3)) + np.array([0.3, -1.0, 2.0])
    homogeneous_points = np.concatenate([points, np.ones((25, 1))], axis=1)
    J_cloud = np.einsum("k,ki,kj->ij", masses, homogeneous_points, homogeneous_points)

    total = masses.sum()
    com = masses @ points / total
    d = points - com
    inertia = np.einsum("k,ij->ij", masses * np.einsum("ki,ki->k", d, d), np.eye(3)) - np.einsum(
        "k,ki,kj->ij", masses, d, d
    )
    assert_allclose(pseudo_inertia(total, com, inertia), J_cloud, rtol=1e-12, atol=1e-11)


def test_positive_semidefinite():
    """Admissible bodies give J >= 0 (it is an integral of r r^T dm)."""
    rng = np.random.default_rng(3)
    J = pseudo_inertia(*random_bodies(rng, 200))
    eigenvalues = np.linalg.eigvalsh(J)
    # Entries are O(10); eigenvalues can be exactly 0 (flat bodies), so allow round-off.
    assert eigenvalues.min() > -1e-12
    # A thin rod (zero moment about its own axis) is still PSD but singular.
    rod = pseudo_inertia(1.0, (0.5, 0.0, 0.0), np.diag([0.0, 1 / 12, 1 / 12]))
    rod_eigenvalues = np.linalg.eigvalsh(rod)
    assert rod_eigenvalues.min() > -1e-14
    assert_allclose(rod_eigenvalues[:2], [0.0, 0.0], rtol=0.0, atol=1e-14)


@pytest.mark.parametrize("seed", [4, 5])
def test_kinetic_energy_trace_equals_newton_euler(seed):
    """1/2 tr(T' J T'^T) = 1/2 m v_c^2 + 1/2 w^T I_c w for T' = hat(V) T."""
    rng = np.random.default_rng(seed)
    count = 50
    mass, com, inertia = random_bodies(rng, count)
    J = pseudo_inertia(mass, com, inertia)
    T = random_poses(rng, count)
    twist = rng.normal(size=(count, 6))  # (w, v) in ground axes, v of the point at the origin
    T_dot = twist_matrix(twist) @ T

    omega, v_origin = twist[:, :3], twist[:, 3:]
    R, p = T[:, :3, :3], T[:, :3, 3]
    com_ground = np.einsum("nij,nj->ni", R, com) + p
    v_com = v_origin + np.cross(omega, com_ground)
    inertia_ground = R @ inertia @ np.swapaxes(R, -1, -2)
    expected = 0.5 * mass * np.einsum("ni,ni->n", v_com, v_com) + 0.5 * np.einsum(
        "ni,nij,nj->n", omega, inertia_ground, omega
    )
    assert_allclose(kinetic_energy_trace(T_dot, J), expected, rtol=1e-12, atol=1e-12)

    # The same motion written with the body twist: T' = T hat(V_body).
    body_twist = np.concatenate(
        [np.einsum("nji,nj->ni", R, omega),
         np.einsum("nji,nj->ni", R, v_origin + np.cross(omega, p))],
        axis=-1,
    )
    assert_allclose(kinetic_energy_trace(T @ twist_matrix(body_twist), J), expected,
                    rtol=1e-12, atol=1e-12)


def test_kinetic_energy_from_ground_pseudo_inertia():
    """K is frame-consistent: tr(hat(V) J_ground hat(V)^T) with J_ground = T J T^T."""
    rng = np.random.default_rng(6)
    mass, com, inertia = random_bodies(rng, 20)
    J = pseudo_inertia(mass, com, inertia)
    T = random_poses(rng, 20)
    hat_twist = twist_matrix(rng.normal(size=(20, 6)))
    assert_allclose(
        kinetic_energy_trace(hat_twist, transform_pseudo_inertia(T, J)),
        kinetic_energy_trace(hat_twist @ T, J),
        rtol=1e-12, atol=1e-12,
    )


def test_parallel_axis_translation():
    """Translating the frame moves the c.o.m. but not I_c; the inertia about the new origin
    is I_c + m (|c|^2 1 - c c^T) (Steiner)."""
    rng = np.random.default_rng(7)
    mass, com, inertia = random_bodies(rng, 10)
    offset = rng.normal(size=(10, 3))
    J_moved = transform_pseudo_inertia(translation(offset), pseudo_inertia(mass, com, inertia))
    mass_moved, com_moved, inertia_moved = inertia_from_pseudo(J_moved)
    assert_allclose(mass_moved, mass, **TOL)
    assert_allclose(com_moved, com + offset, **TOL)
    assert_allclose(inertia_moved, inertia, rtol=1e-11, atol=1e-11)

    c = com + offset
    second_moment_about_origin = J_moved[:, :3, :3]
    trace = np.trace(second_moment_about_origin, axis1=-2, axis2=-1)
    inertia_about_origin = trace[:, None, None] * np.eye(3) - second_moment_about_origin
    steiner = mass[:, None, None] * (np.einsum("ni,ni->n", c, c)[:, None, None] * np.eye(3)
                                     - c[:, :, None] * c[:, None, :])
    assert_allclose(inertia_about_origin, inertia + steiner, rtol=1e-11, atol=1e-11)


def test_rotation_and_composition():
    """A rotation maps c -> R c and I_c -> R I_c R^T; frame changes compose."""
    rng = np.random.default_rng(8)
    mass, com, inertia = random_bodies(rng, 10)
    J = pseudo_inertia(mass, com, inertia)
    T1, T2 = random_poses(rng, 10), random_poses(rng, 10)
    R, p = T1[:, :3, :3], T1[:, :3, 3]

    mass_1, com_1, inertia_1 = inertia_from_pseudo(transform_pseudo_inertia(T1, J))
    assert_allclose(mass_1, mass, **TOL)
    assert_allclose(com_1, np.einsum("nij,nj->ni", R, com) + p, rtol=1e-11, atol=1e-11)
    assert_allclose(inertia_1, R @ inertia @ np.swapaxes(R, -1, -2), rtol=1e-11, atol=1e-11)

    assert_allclose(
        transform_pseudo_inertia(T1 @ T2, J),
        transform_pseudo_inertia(T1, transform_pseudo_inertia(T2, J)),
        rtol=1e-11, atol=1e-11,
    )


def test_broadcasting():
    """One tensor and c.o.m. with a stack of masses gives a stack of matrices."""
    J = pseudo_inertia(np.array([0.0, 1.0, 2.0]), (1.0, 0.0, 0.0), np.eye(3))
    assert J.shape == (3, 4, 4)
    assert_allclose(J[:, 3, 3], [0.0, 1.0, 2.0], **TOL)
    assert_allclose(J[:, 0, 0], [0.5, 1.5, 2.5], **TOL)  # S_xx = 3/2 - 1, plus m c_x^2


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pseudo_inertia(1.0, (0.0, 0.0), np.eye(3)), "com: expected shape"),
        (lambda: pseudo_inertia(1.0, np.zeros(3), np.eye(2)), "inertia: expected shape"),
        (lambda: pseudo_inertia(-1.0, np.zeros(3), np.eye(3)), "mass: must be >= 0"),
        (lambda: pseudo_inertia(1.0, np.zeros(3), np.array([[1, 1, 0], [0, 1, 0], [0, 0, 1]])),
         "inertia: the inertia tensor is not symmetric"),
        (lambda: pseudo_inertia(np.nan, np.zeros(3), np.eye(3)), "mass: non-finite"),
        (lambda: inertia_from_pseudo(np.eye(3)), "J: expected shape"),
        (lambda: kinetic_energy_trace(np.eye(4), np.eye(3)), "J: expected shape"),
        (lambda: transform_pseudo_inertia(np.eye(3), np.eye(4)), "transform: expected shape"),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()

