"""Dynamics of spatial linkages held against references that do not come from kinematrix (issue 9).

* An RSSR wiper drive (``examples/rssr.toml``) with massive links, driven at constant crank
  speed over two full turns: the work of the driving torque from ``inverse_dynamics`` equals
  the change of kinetic plus potential energy computed in this file from the link poses
  alone (finite differences of ``pose``, no velocity or dynamics of kinematrix), and the
  Lagrange and Kane forms agree with each other and with the mass read off the poses.
* The IFToMM spatial rigid slider-crank (crank, rod on a spherical and a Hooke pair,
  slider): ``simulate``, ``inverse_dynamics`` and ``equations_of_motion`` against the
  one-freedom Lagrange derivation in ``tests/reference/spatial_slider_crank.py`` (SymPy),
  and against the benchmark's published reference solution.

Tolerances are stated at each assertion with their reason. Closure is solved to ~1e-10 of
the mechanism's size; the trace form and Kane's form are evaluated in double precision, so
quantities that involve no integration agree to ~1e-13 relative; integrated ones carry the
integrator's global error at the ``rtol`` used.
"""

import numpy as np
import pytest
from numpy.polynomial.legendre import leggauss
from numpy.testing import assert_allclose

from dynamics import equations_of_motion, inverse_dynamics, simulate
from dynamics_models import RSSR_GRAVITY, massive_rssr, rssr_rods, spatial_slider_crank
from reference import spatial_slider_crank as ssc

pytest.importorskip("sympy")

#: The spatial slider-crank's reference is derived with SymPy once per test process (about 2 s of
#: processor time a variant: tests/reference/spatial_slider_crank.py); its tests share one process.
SYMPY_DERIVATION = pytest.mark.xdist_group("spatial-slider-crank-derivation")
RSSR_SPEED = 20.0          # rad/s, crank speed of the RSSR runs (K and V swings of the same order)
STENCIL_STEP = 2e-3        # rad, step of the five-point derivative of poses


def five_point(values, centre, h=STENCIL_STEP):
    """d/dtheta of ``values`` (N, ...) at the indices ``centre`` from samples at centre +-1, +-2
    (spaced ``h``): fourth-order central difference, error h^4/30 f^(5) + 1.5 eps_pose / h."""
    return (values[centre - 2] - 8 * values[centre - 1] + 8 * values[centre + 1] - values[centre + 2]) / (12 * h)


def stencil_angles(centres, h=STENCIL_STEP):
    """Each of ``centres`` with its four neighbours ``+-h, +-2h``, in increasing order (5 n,)."""
    return (np.asarray(centres, dtype=float)[:, None] + h * np.arange(-2, 3)[None, :]).ravel()


def energy_from_poses(result, centre, rods, gravity, crank_speed, h=STENCIL_STEP):
    """Kinetic and potential energy (J) at the positions ``centre`` of a sweep-like result,
    from its poses only: ``K = sum 1/2 m |v_c|^2 + 1/2 w^T R I R^T w``, with ``v_c`` and
    ``w = vee(R' R^T)`` by five-point differences of the poses in the crank angle times the
    crank speed (samples at the centres +-h, +-2h); ``V = -sum m g . c``."""
    kinetic = np.zeros(len(centre))
    potential = np.zeros(len(centre))
    for link, (mass, com, inertia) in rods.items():
        poses = result.pose(link)
        rotation, com_path = poses[:, :3, :3], poses[:, :3, :3] @ com + poses[:, :3, 3]
        v_c = five_point(com_path, centre, h) * crank_speed
        r = rotation[centre]
        spin = five_point(rotation, centre, h) @ r.transpose(0, 2, 1) * crank_speed
        w = 0.5 * np.stack([spin[:, 2, 1] - spin[:, 1, 2], spin[:, 0, 2] - spin[:, 2, 0],
                            spin[:, 1, 0] - spin[:, 0, 1]], axis=1)
        inertia_now = r @ inertia @ r.transpose(0, 2, 1)
        kinetic += 0.5 * mass * np.sum(v_c**2, axis=1) + 0.5 * np.einsum("ni,nij,nj->n", w, inertia_now, w)
        potential -= mass * com_path[centre] @ gravity
    return kinetic, potential


# --- RSSR with massive links -------------------------------------------------------------


def test_rssr_driving_work_equals_energy_change_over_two_turns():
    """Work of the crank torque over two turns at constant speed equals the change of K + V from the poses."""
    panels, order = 64, 5
    edges = np.linspace(0.0, 4 * np.pi, panels + 1)
    nodes, weights = leggauss(order)
    angles, ends, gauss = [], [], []
    for j, edge in enumerate(edges):
        ends.append(len(angles) + 2)
        angles.extend(stencil_angles([edge]))
        if j < panels:
            half = (edges[j + 1] - edge) / 2
            gauss.append(len(angles) + np.arange(order))
            angles.extend(edge + half * (1 + nodes))
    angles = np.array(angles)
    ends, gauss = np.array(ends), np.array(gauss)
    assert np.all(np.diff(angles) > 0)

    res = inverse_dynamics(massive_rssr(), {"crank_angle": angles}, speeds={"crank_angle": RSSR_SPEED})
    torque = res.force("crank_angle")
    # Work = integral of torque * crank speed dt, dt = dtheta / speed: 5-point Gauss-Legendre per panel.
    # Its error, measured by doubling the panels (64 vs 128), is 1.3e-12 J (32 panels: 1.1e-8 J).
    dt = (edges[1] - edges[0]) / 2 / RSSR_SPEED
    work = np.r_[0.0, np.cumsum((torque[gauss] * RSSR_SPEED) @ weights * dt)]
    kinetic, potential = energy_from_poses(res, ends, rssr_rods(), RSSR_GRAVITY, RSSR_SPEED)
    energy = kinetic + potential
    swing = np.ptp(energy)
    assert np.ptp(kinetic) > 0.2 * swing and np.ptp(potential) > 0.5 * swing  # both terms matter
    # Reference: K + V from the poses (no kinematrix velocity or dynamics). Budget: quadrature
    # 1e-12 J, five-point differences 1e-11 relative (truncation) plus pose noise ~1e-13 m / h;
    # measured 2.2e-12 J = 1.2e-11 of the swing (0.19 J). Issue 9 asks 1e-5 of the swing; we hold 1e-7.
    assert_allclose(work, energy - energy[0], rtol=1e-7, atol=1e-7 * swing)
    # Two full turns of a periodic motion: no net work (same reference, same bound).
    assert_allclose(work[-1], 0.0, rtol=0, atol=1e-7 * swing)


def test_rssr_lagrange_and_kane_agree_with_the_energy_from_poses():
    """At 3.5, 5, 6.2 rad (20 rad/s) Lagrange and Kane agree, and give M = 2K/w^2, f = -dE/dtheta from poses."""
    mechanism = massive_rssr()
    angles = np.array([3.5, 5.0, 6.2])
    outer = 2e-3     # rad, step of the derivative of E; the poses' own stencil is 5 times finer
    sweep = mechanism.sweep({"crank_angle": stencil_angles(stencil_angles(angles, outer), outer / 5)})
    kinetic, potential = energy_from_poses(sweep, 2 + 5 * np.arange(15), rssr_rods(), RSSR_GRAVITY, RSSR_SPEED,
                                           h=outer / 5)
    energy = kinetic + potential
    for i, angle in enumerate(angles):
        mass_from_poses = 2 * kinetic[5 * i + 2] / RSSR_SPEED**2
        # At constant speed the power balance gives M u'' = f = -(M' w^2 / 2 + V') = -dE/dtheta.
        force_from_poses = -five_point(energy, np.array([5 * i + 2]), outer)[0]
        lagrange = equations_of_motion(mechanism, q={"crank_angle": angle}, qd={"crank_angle": RSSR_SPEED},
                                       method="lagrange")
        kane = equations_of_motion(mechanism, q={"crank_angle": angle}, qd={"crank_angle": RSSR_SPEED},
                                   method="kane")
        scale_m, scale_f = np.abs(lagrange.mass_matrix).max(), np.abs(lagrange.forces).max()
        # Two routes (trace form, Newton-Euler) in double precision: agreement is round-off,
        # measured <= 2e-15 relative; issue 9 asks 1e-9.
        assert_allclose(kane.mass_matrix, lagrange.mass_matrix, rtol=1e-9, atol=1e-9 * scale_m)
        assert_allclose(kane.forces, lagrange.forces, rtol=1e-9, atol=1e-9 * scale_f)
        # Reference: M = 2K / w^2 from five-point differences of the poses (step 4e-4 rad:
        # truncation ~1e-14, pose noise / h ~1e-12 relative); measured <= 1.1e-12 relative.
        assert_allclose(lagrange.mass_matrix, [[mass_from_poses]], rtol=1e-8, atol=1e-8 * scale_m)
        # Reference: f = -dE/dtheta, a five-point difference (step 2e-3 rad) of that K + V:
        # truncation h^4/30 E^(5) and the noise of K divided by h, measured <= 4e-9 relative
        # (1e-8 with other steps); we hold 1e-6.
        assert_allclose(lagrange.forces, [force_from_poses], rtol=1e-6, atol=1e-6 * scale_f)


# --- IFToMM spatial rigid slider-crank -----------------------------------------------------


@SYMPY_DERIVATION
def test_spatial_slider_crank_free_run_matches_the_sympy_derivation():
    """Released at 6 rad/s, 5 s under gravity: slider and crank follow the independent 1-DOF Lagrange run."""
    t = np.linspace(0.0, ssc.T_END, 501)
    sim = simulate(spatial_slider_crank(), ssc.T_END, q0={"crank_angle": 0.0}, qd0={"crank_angle": ssc.OMEGA0},
                   t_eval=t, rtol=1e-10)
    ref = ssc.free_run(t)
    x_ref = ssc.slider_x(ref.theta)
    # Reference: SymPy Lagrange equation integrated at rtol = atol = 1e-12. kinematrix at
    # rtol 1e-10 over ~8 crank turns: measured max error 2.2e-10 m (slider), 8.9e-9 rad and
    # 2.5e-7 rad/s (crank: a phase error that grows with time). Issue 9 asks 1e-6 m; we hold
    # 1e-7 m, 1e-6 rad and 1e-5 rad/s.
    assert_allclose(sim.q("slide") + ssc.C0[0], x_ref, rtol=0, atol=1e-7)
    assert_allclose(sim.point("slider_centre")[:, 0], x_ref, rtol=0, atol=1e-7)
    assert_allclose(sim.q("crank_angle"), ref.theta, rtol=1e-9, atol=1e-6)
    assert_allclose(sim.q_dot("crank_angle"), ref.omega, rtol=1e-9, atol=1e-5)


@SYMPY_DERIVATION
def test_spatial_slider_crank_torque_over_a_turn_matches_the_sympy_derivation():
    """Crank torque over a full turn at 6 rad/s (and at 6 rad/s with 3 rad/s^2) equals M a + M' w^2 / 2 + V'."""
    theta = np.linspace(0.0, 2 * np.pi, 361)
    mechanism = spatial_slider_crank()
    for method in ("lagrange", "kane"):
        for alpha in (0.0, 3.0):
            res = inverse_dynamics(mechanism, {"crank_angle": theta}, speeds={"crank_angle": ssc.OMEGA0},
                                   accelerations={"crank_angle": alpha}, method=method)
            ref = ssc.crank_torque(theta, ssc.OMEGA0, alpha)
            amplitude = np.abs(ref).max()
            # Reference: SymPy's closed form (no integration). Both sides are round-off from the
            # exact torque; measured 9e-14 of the amplitude (0.30 N m). Issue 9 asks 1e-8.
            assert_allclose(res.force("crank_angle"), ref, rtol=1e-8, atol=1e-8 * amplitude)


@SYMPY_DERIVATION
def test_spatial_slider_crank_lagrange_and_kane_agree_with_the_sympy_derivation():
    """At four crank angles (6 rad/s) Lagrange and Kane give the SymPy M and f = -(M' w^2 / 2 + V')."""
    mechanism = spatial_slider_crank()
    for angle in (0.7, 2.5, 4.0, 5.5):
        lagrange = equations_of_motion(mechanism, q={"crank_angle": angle}, qd={"crank_angle": ssc.OMEGA0},
                                       method="lagrange")
        kane = equations_of_motion(mechanism, q={"crank_angle": angle}, qd={"crank_angle": ssc.OMEGA0},
                                   method="kane")
        mass, _ = ssc.mass(angle)
        force = -ssc.crank_torque(angle, ssc.OMEGA0)
        # Reference: SymPy closed form; the two routes and the reference differ by round-off,
        # measured <= 2e-15 relative; issue 9 asks 1e-9.
        for eom in (lagrange, kane):
            assert_allclose(eom.mass_matrix, [[mass]], rtol=1e-9, atol=1e-9 * mass)
            assert_allclose(eom.forces, [force], rtol=1e-9, atol=1e-9 * 0.3)  # 0.3 N m: torque amplitude
        assert_allclose(kane.mass_matrix, lagrange.mass_matrix, rtol=1e-9, atol=1e-9 * mass)
        assert_allclose(kane.forces, lagrange.forces, rtol=1e-9, atol=1e-9 * 0.3)


@SYMPY_DERIVATION
def test_spatial_slider_crank_reproduces_the_published_reference_solution():
    """With the crank's centre at its middle and a right-angle cross, the slider follows the published solution."""
    t = np.round(np.arange(0.0, ssc.T_END + 1e-9, 0.01), 10)
    sim = simulate(spatial_slider_crank(ssc.PUBLISHED), ssc.T_END, q0={"crank_angle": 0.0},
                   qd0={"crank_angle": ssc.OMEGA0}, t_eval=t, rtol=1e-10)
    x = sim.q("slide") + ssc.C0[0]
    # Reference 1: the SymPy derivation of the same variant (as in the free-run test above).
    assert_allclose(x, ssc.slider_x(ssc.free_run(t, ssc.PUBLISHED).theta, ssc.PUBLISHED), rtol=0, atol=1e-7)
    # Reference 2: the benchmark's published solution ("Gonzalez", 9 digits every 0.01 s; 20
    # samples kept). A submitted solution carries its own integration error: two of them
    # (Gonzalez, Masarati) differ by 7e-4 m at 1 s. Measured 7.4e-5 m; we hold 2e-4 m, 40 times
    # below the 8e-3 m by which the data read as stated miss it.
    samples = np.round(ssc.GONZALEZ_SLIDER[:, 0] / 0.01).astype(int)
    assert_allclose(x[samples], ssc.GONZALEZ_SLIDER[:, 1], rtol=0, atol=2e-4)
