"""Sweeps of classic linkages, built through the public API, against closed forms.

Every mechanism here is built with ``Mechanism.add_link``/``add_pair``/``add_point`` from
design-pose geometry computed by the closed forms in ``tests/reference/closed_forms.py``
(each with its literature source), swept with driver speeds and accelerations, and
compared at 1e-9 with the closed-form positions, velocities and accelerations. The first
block checks the references themselves against independent numerical solutions, so a
wrong reference cannot pass unnoticed.

Tolerances. Sweeps close each loop to kinematrix's default tolerance (1e-10, relative to
the mechanism size); angles and lengths then carry errors of that order times the
conditioning of the linkage (O(1)-O(10) away from dead points). Hence ``1e-9`` relative
with an absolute floor of ``1e-9`` rad for angles and ``1e-9 x size`` for lengths (sizes
here are 0.1-0.3 m), scaled by the driver speed (and its square) for rates.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import brentq, minimize_scalar, root

from mechanism import Mechanism, SweepStopped
from reference import closed_forms as cf

TOL = 1e-9  # see the module docstring


# =============================================================================
# helpers
# =============================================================================
def assert_angles_close(got, expected, atol=TOL):
    """Angles equal modulo 2 pi (the references are wrapped, sweeps are unwrapped)."""
    assert_allclose(cf.wrap(np.asarray(got) - np.asarray(expected)), 0.0, rtol=0.0, atol=atol)


def to_global(frame, xy):
    """Planar (..., 2) or spatial (..., 3) local coordinates to global points via a 4x4 frame."""
    xy = np.asarray(xy, dtype=float)
    local = np.concatenate([xy, np.zeros(xy.shape[:-1] + (3 - xy.shape[-1],))], axis=-1)
    return local @ frame[:3, :3].T + frame[:3, 3]


def to_global_vector(frame, xy):
    """Like :func:`to_global` for free vectors (velocities, accelerations): rotation only."""
    xy = np.asarray(xy, dtype=float)
    local = np.concatenate([xy, np.zeros(xy.shape[:-1] + (3 - xy.shape[-1],))], axis=-1)
    return local @ frame[:3, :3].T


class Built:
    """A mechanism plus the pair data the closure checks need (name, kind, first, second, at, extra)."""

    def __init__(self, name):
        self.m = Mechanism(name)
        self.pairs = []

    def link(self, *names):
        for name in names:
            self.m.add_link(name)

    def pair(self, name, kind, first, second, at, **extra):
        self.m.add_pair(name, kind, first, second, at=at, **extra)
        self.pairs.append((name, kind, first, second, np.asarray(at, float), extra))


def assert_closed(res, pairs, size):
    """Closure after a sweep: at every sample, the two links of every pair agree on the pair
    centre (origin of both pair frames), on the axis for axial pairs, and the relative
    motion of the two links is exactly the one the pair values describe (DESIGN.md
    convention, :func:`reference.closed_forms.pair_relative_motion`).

    Tolerance: the sweep's closure tolerance is 1e-10 x size; allow 10x (1e-9 x size) for
    positions and 1e-9 rad for directions.
    """
    for name, kind, first, second, at, extra in pairs:
        P1, P2 = res.pose(first), res.pose(second)
        c1 = P1[:, :3, :3] @ at + P1[:, :3, 3]
        c2 = P2[:, :3, :3] @ at + P2[:, :3, 3]
        if "axis" in extra:
            axis = np.asarray(extra["axis"], float) / np.linalg.norm(extra["axis"])
            a1 = P1[:, :3, :3] @ axis
            assert_allclose(a1, P2[:, :3, :3] @ axis, rtol=0.0, atol=TOL, err_msg=f"pair {name}: axes apart")
        if kind in ("prismatic", "cylindrical", "helical"):
            # The second frame slides along the (common) axis: the centres stay on that line.
            offset = c2 - c1
            along = np.sum(offset * a1, axis=1, keepdims=True) * a1
            assert_allclose(offset - along, 0.0, rtol=0.0, atol=TOL * size, err_msg=f"pair {name}: off its axis")
        else:
            assert_allclose(c1, c2, rtol=0.0, atol=TOL * size, err_msg=f"pair {name}: centres apart")
        relative = np.linalg.inv(P1) @ P2
        expected = cf.pair_relative_motion(kind, at, res.q(name), **extra)
        assert_allclose(relative[:, :3, :3], expected[:, :3, :3], rtol=0.0, atol=TOL,
                        err_msg=f"pair {name}: rotation differs from its values")
        assert_allclose(relative[:, :3, 3], expected[:, :3, 3], rtol=0.0, atol=TOL * size,
                        err_msg=f"pair {name}: translation differs from its values")


# =============================================================================
# 1. the references checked against independent numerical solutions
# =============================================================================
FOUR_BAR = dict(a=0.04, b=0.12, c=0.09, d=0.10)  # m; Grashof crank-rocker (0.04 + 0.12 < 0.09 + 0.10)


@pytest.mark.parametrize("branch", [-1, 1])
def test_freudenstein_matches_numerical_solve(branch):
    """Reference self-check: Freudenstein's closed form (Norton eq. 4.10) equals scipy's
    root (Levenberg-Marquardt) of the vector loop equation, started near it, on both branches."""
    a, b, c, d = FOUR_BAR.values()
    for t2 in np.linspace(-np.pi, np.pi, 25):
        t3, t4 = cf.four_bar_angles(a, b, c, d, t2, branch)

        def loop(x):
            z = a * np.exp(1j * t2) + b * np.exp(1j * x[0]) - c * np.exp(1j * x[1]) - d
            return [z.real, z.imag]

        sol = root(loop, [t3 + 0.05, t4 - 0.05], method="lm", options={"xtol": 1e-15, "ftol": 1e-15})
        # Levenberg-Marquardt drives the O(0.1 m) residual to round-off.
        assert_allclose(loop(sol.x), 0.0, rtol=0.0, atol=1e-15)
        # Both solutions satisfy the same well-conditioned equations: agree to 1e-11 rad.
        assert_angles_close(sol.x, [t3, t4], atol=1e-11)


@pytest.mark.parametrize("branch", [-1, 1])
def test_four_bar_rate_formulas_match_finite_differences(branch):
    """Reference self-check: the hand-derived omega, alpha and coupler-point formulas equal
    central differences (h = 1e-5) of the closed-form positions along
    theta2(t) = theta2 + w t + al t^2 / 2. Truncation ~ h^2 ~ 1e-10, round-off ~ 1e-16/h
    ~ 1e-11: tolerance 1e-8 (relative to rates of O(1))."""
    a, b, c, d = FOUR_BAR.values()
    t2 = np.linspace(-np.pi, np.pi, 37)
    w, al, h = 1.3, 0.7, 1e-5

    def state(t):
        T2, W2 = t2 + w * t + al * t * t / 2, w + al * t
        T3, T4 = cf.four_bar_angles(a, b, c, d, T2, branch)
        W3, W4 = cf.four_bar_velocities(a, b, c, T2, T3, T4, W2)
        P, V, _ = cf.four_bar_coupler_point(a, 0.06, 0.5, T2, T3, W2, W3)
        return T3, T4, W3, W4, P, V

    t3, t4, w3, w4, _, v = state(0.0)
    plus, minus = state(h), state(-h)
    al3, al4 = cf.four_bar_accelerations(a, b, c, t2, t3, t4, w, w3, w4, al)
    _, _, acc = cf.four_bar_coupler_point(a, 0.06, 0.5, t2, t3, w, w3, al, al3)
    fd = [(p - m) / (2 * h) for p, m in zip(plus, minus)]
    assert_allclose(cf.wrap(plus[0] - minus[0]) / (2 * h), w3, rtol=1e-8, atol=1e-8)
    assert_allclose(cf.wrap(plus[1] - minus[1]) / (2 * h), w4, rtol=1e-8, atol=1e-8)
    assert_allclose(fd[2], al3, rtol=1e-8, atol=1e-8)
    assert_allclose(fd[3], al4, rtol=1e-8, atol=1e-8)
    assert_allclose(fd[4], v, rtol=1e-8, atol=1e-8)
    assert_allclose(fd[5], acc, rtol=1e-8, atol=1e-8)


def test_slider_crank_formulas_match_finite_differences():
    """Reference self-check: offset slider-crank closure and hand-derived rates (h = 1e-5,
    tolerance 1e-8 as for the four-bar)."""
    r, l, e = 0.03, 0.11, 0.012
    th = np.linspace(0.0, 2 * np.pi, 25)
    w, al, h = 2.0, -1.5, 1e-5
    s = cf.slider_crank(r, l, e, th, w, al)
    assert_allclose(r * np.cos(th) + l * np.cos(s["phi"]), s["x"], rtol=0.0, atol=1e-16)
    assert_allclose(r * np.sin(th) + l * np.sin(s["phi"]), e, rtol=0.0, atol=1e-16)

    def at(t):
        return cf.slider_crank(r, l, e, th + w * t + al * t * t / 2, w + al * t, al)

    p, m = at(h), at(-h)
    for key in ("x", "phi"):
        assert_allclose((p[key] - m[key]) / (2 * h), s[key + "_dot"], rtol=1e-8, atol=1e-8)
        assert_allclose((p[key + "_dot"] - m[key + "_dot"]) / (2 * h), s[key + "_ddot"], rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("in_plane", [True, False])
def test_hooke_formulas_satisfy_the_pin_constraint(in_plane):
    """Reference self-check: both textbook forms of the Hooke-joint relation keep the two
    pins perpendicular (round-off, 1e-14), are the same relation shifted by a quarter turn,
    and their rates match central differences (h = 1e-5, tolerance 1e-8)."""
    beta = np.radians(30.0)
    t1 = np.linspace(-4.0, 4.0, 33)
    t2, w2, a2, ratio = cf.hooke_joint(t1, beta, 1.0, 0.3, input_pin_in_plane=in_plane)
    sb, cb = np.sin(beta), np.cos(beta)
    if in_plane:
        pin1 = np.stack([0 * t1, np.cos(t1), np.sin(t1)], -1)
        pin2 = np.stack([np.sin(t2) * sb, -np.sin(t2) * cb, np.cos(t2)], -1)
    else:
        pin1 = np.stack([0 * t1, -np.sin(t1), np.cos(t1)], -1)
        pin2 = np.stack([-np.cos(t2) * sb, np.cos(t2) * cb, np.sin(t2)], -1)
    assert_allclose(np.sum(pin1 * pin2, -1), 0.0, rtol=0.0, atol=1e-14)
    shifted = cf.hooke_joint(t1 + np.pi / 2, beta, input_pin_in_plane=not in_plane)[0] - np.pi / 2
    assert_angles_close(shifted, t2, atol=1e-14)
    h = 1e-5

    def at(t):
        return cf.hooke_joint(t1 + t + 0.3 * t * t / 2, beta, 1.0 + 0.3 * t, 0.3, input_pin_in_plane=in_plane)

    p, m = at(h), at(-h)
    assert_allclose((p[0] - m[0]) / (2 * h), w2, rtol=1e-8, atol=1e-8)
    assert_allclose((p[1] - m[1]) / (2 * h), a2, rtol=1e-8, atol=1e-8)
    assert_allclose(ratio, w2, rtol=1e-15, atol=0.0)


# RSSR: crank about z at the origin, rocker about a skew axis; full crank rotation on both
# branches (|R| / sqrt(P^2 + Q^2) <= 0.4 throughout, far from dead points).
RSSR = dict(A=np.zeros(3), u_A=np.array([0.0, 0.0, 1.0]), S1_0=np.array([0.03, 0.0, 0.0]),
            D=np.array([0.09, 0.05, 0.06]), u_D=np.array([0.2, -0.3, 1.0]) / np.linalg.norm([0.2, -0.3, 1.0]),
            S2_0=np.array([0.045, 0.110, 0.087]))


@pytest.mark.parametrize("branch", [-1, 1])
def test_rssr_closed_form_matches_root_search(branch):
    """Reference self-check: the P cos + Q sin = R solution equals a brute-force root of
    |S1 - S2(phi)|^2 - L^2 (grid + brentq to 1e-15), and its rates match differences."""
    g = RSSR
    L = np.linalg.norm(g["S1_0"] - g["S2_0"])
    for t in np.linspace(-np.pi, np.pi, 13):
        phi = cf.rssr_rocker_angle(g["A"], g["u_A"], g["S1_0"], g["D"], g["u_D"], g["S2_0"], t, branch)

        def gap(x):
            S1, S2 = cf.rssr_points(g["A"], g["u_A"], g["S1_0"], g["D"], g["u_D"], g["S2_0"], t, x)
            return np.sum((S1 - S2) ** 2) - L**2

        grid = np.linspace(-np.pi, np.pi, 361)
        values = np.array([gap(x) for x in grid])
        roots = [brentq(gap, grid[i], grid[i + 1], xtol=1e-15) for i in range(360) if values[i] * values[i + 1] < 0]
        assert len(roots) == 2
        # Simple roots of a smooth O(1e-3 m^2) function: both methods agree to ~1e-12 rad.
        assert np.min(np.abs(cf.wrap(np.array(roots) - phi))) < 1e-10
    th = np.linspace(-np.pi, np.pi, 37)
    w, al, h = 1.7, -0.6, 1e-5
    args = (g["A"], g["u_A"], g["S1_0"], g["D"], g["u_D"], g["S2_0"])

    def at(t):
        T = th + w * t + al * t * t / 2
        phi = cf.rssr_rocker_angle(*args, T, branch)
        return phi, cf.rssr_rates(*args, T, phi, w + al * t, al)[0]

    phi = cf.rssr_rocker_angle(*args, th, branch)
    phi_dot, phi_ddot = cf.rssr_rates(*args, th, phi, w, al)
    p, m = at(h), at(-h)
    assert_allclose(cf.wrap(p[0] - m[0]) / (2 * h), phi_dot, rtol=1e-8, atol=1e-8)
    assert_allclose((p[1] - m[1]) / (2 * h), phi_ddot, rtol=1e-8, atol=1e-8)


BENNETT = dict(a=0.10, alpha=np.radians(40.0), beta=np.radians(75.0))  # b from a/sin(alpha) = b/sin(beta)


def test_bennett_closed_form_closes_the_chain():
    """Reference self-check of Bennett's relation tan(t1/2) tan(t2/2) = K, t3 = -t1,
    t4 = -t2 (Bennett 1903; Baker 1979): the DH loop product is E to round-off for the +K
    root at every t1; the -K root and a violated Bennett condition do not close."""
    a, alpha, beta = BENNETT.values()
    b = cf.bennett_b(a, alpha, beta)
    assert_allclose(a / np.sin(alpha), b / np.sin(beta), rtol=1e-15, atol=0.0)
    for t1 in np.linspace(-3.0, 3.0, 13):
        t = cf.bennett_joint_angles(t1, alpha, beta)
        loop = np.eye(4)
        for ti, (length, twist) in zip(t, [(a, alpha), (b, beta), (a, alpha), (b, beta)]):
            loop = loop @ cf.dh_matrix(length, twist, float(ti))
        assert_allclose(loop, np.eye(4), rtol=0.0, atol=1e-14)  # product of 4 O(1) matrices
        if abs(np.sin(t1)) > 0.1:
            wrong_t2 = -t[1]  # the -K root
            loop = (cf.dh_matrix(a, alpha, t1) @ cf.dh_matrix(b, beta, wrong_t2)
                    @ cf.dh_matrix(a, alpha, -t1) @ cf.dh_matrix(b, beta, -wrong_t2))
            assert np.abs(loop - np.eye(4)).max() > 1e-3
            loop = (cf.dh_matrix(a, alpha, t1) @ cf.dh_matrix(1.1 * b, beta, t[1])
                    @ cf.dh_matrix(a, alpha, -t1) @ cf.dh_matrix(1.1 * b, beta, -t[1]))
            assert np.abs(loop - np.eye(4)).max() > 1e-3
    th = np.linspace(-3.0, 3.0, 25)
    w, al, h = 0.9, 0.4, 1e-5

    def at(s):
        T = th + w * s + al * s * s / 2
        return cf.bennett_joint_angles(T, alpha, beta)[1], cf.bennett_rates(T, alpha, beta, w + al * s, al)[0]

    v, acc = cf.bennett_rates(th, alpha, beta, w, al)
    p, m = at(h), at(-h)
    assert_allclose(cf.wrap(p[0] - m[0]) / (2 * h), v, rtol=1e-8, atol=1e-8)
    assert_allclose((p[1] - m[1]) / (2 * h), acc, rtol=1e-8, atol=1e-8)


def test_sympy_configuration_matches_freudenstein():
    """Reference self-check: SymPy's closed four-bar (test_jointsmethod.py) closes to 1e-13
    and is Freudenstein's "+1" branch with crank a = l2, coupler b = l3, rocker c = l4,
    ground d = l1 (ground line from J1 to J4 along -x, hence angles shifted by pi);
    SymPy's u satisfy the velocity constraint, our four_bar_velocities, to 1e-12."""
    l1, l2, l3, l4 = cf.SYMPY_FOUR_BAR["lengths"]
    q1, q2, q3 = cf.SYMPY_FOUR_BAR["q"]
    u1, u2, u3 = cf.SYMPY_FOUR_BAR["u"]
    J = cf.sympy_four_bar_joints((l1, l2, l3, l4), (q1, q2, q3))
    # SymPy's printed q carry ~16 digits; the loop closes to a few 1e-14 m.
    assert_allclose(J[3], [-l1 / 2, 0.0, 0.0], rtol=0.0, atol=1e-13)
    t3, t4 = cf.four_bar_angles(l2, l3, l4, l1, q1 - np.pi, +1)
    assert_angles_close(t3, q1 + q2 - np.pi, atol=1e-12)
    assert_angles_close(t4, q1 + q2 + q3, atol=1e-12)
    w3, w4 = cf.four_bar_velocities(l2, l3, l4, q1 - np.pi, t3, t4, u1)
    assert_allclose([w3 - u1, w4 - w3], [u2, u3], rtol=1e-12, atol=1e-12)


def test_wobble_plate_closed_form():
    """Reference self-check: Rot_x(phi1) Rot_y(phi2) carries the plate normal n0 to
    Rot_z(theta) n0 (round-off), the oscillation amplitude about the ground pin is the
    tilt, and the rates match differences (h = 1e-5, tolerance 1e-8)."""
    gamma = np.radians(12.0)
    th = np.linspace(-np.pi, np.pi, 73)
    (p1, p2), (d1, d2), (dd1, dd2) = cf.wobble_plate_hooke_angles(gamma, th, 2.0, 0.5)
    n0 = np.array([np.sin(gamma), 0.0, np.cos(gamma)])
    R = cf.rotation_matrix([1, 0, 0], p1) @ cf.rotation_matrix([0, 1, 0], p2)
    assert_allclose(R @ n0, cf.rotation_matrix([0, 0, 1], th) @ n0, rtol=0.0, atol=1e-15)
    assert_allclose(np.abs(p1).max(), gamma, rtol=1e-15, atol=0.0)  # th = +-pi/2 is on the grid
    h = 1e-5

    def at(s):
        return cf.wobble_plate_hooke_angles(gamma, th + 2.0 * s + 0.5 * s * s / 2, 2.0 + 0.5 * s, 0.5)

    P, M = at(h), at(-h)
    assert_allclose((P[0][0] - M[0][0]) / (2 * h), d1, rtol=1e-8, atol=1e-8)
    assert_allclose((P[0][1] - M[0][1]) / (2 * h), d2, rtol=1e-8, atol=1e-8)
    assert_allclose((P[1][0] - M[1][0]) / (2 * h), dd1, rtol=1e-8, atol=1e-8)
    assert_allclose((P[1][1] - M[1][1]) / (2 * h), dd2, rtol=1e-8, atol=1e-8)


# =============================================================================
# 2. kinematrix against the references
# =============================================================================
# ------------------------------------------------------------------ planar four-bar
FOUR_BAR_FRAME = np.eye(4)
FOUR_BAR_FRAME[:3, :3] = cf.rotation_matrix([1.0, 2.0, 3.0], 0.7)  # a plane tilted in space
FOUR_BAR_FRAME[:3, 3] = [0.05, -0.02, 0.30]
COUPLER_POINT = dict(p=0.06, delta=0.5)  # from A, at 0.5 rad off the line A -> B


def build_four_bar(a, b, c, d, theta2_0, branch, frame=FOUR_BAR_FRAME, coupler=COUPLER_POINT,
                   rocker_first=True):
    """Four-bar as in DESIGN.md (pairs A, B, C, D; D declared rocker -> ground unless
    ``rocker_first`` is False), placed in the plane of ``frame``; returns (Built, design angles)."""
    t3_0, t4_0 = cf.four_bar_angles(a, b, c, d, theta2_0, branch)
    A, B = [0.0, 0.0], [a * np.cos(theta2_0), a * np.sin(theta2_0)]
    C, D = [d + c * np.cos(t4_0), c * np.sin(t4_0)], [d, 0.0]
    axis = frame[:3, 2]
    bt = Built("four-bar")
    bt.link("crank", "coupler", "rocker")
    bt.pair("A", "revolute", "ground", "crank", to_global(frame, A), axis=axis)
    bt.pair("B", "revolute", "crank", "coupler", to_global(frame, B), axis=axis)
    bt.pair("C", "revolute", "coupler", "rocker", to_global(frame, C), axis=axis)
    if rocker_first:
        bt.pair("D", "revolute", "rocker", "ground", to_global(frame, D), axis=axis)
    else:
        bt.pair("D", "revolute", "ground", "rocker", to_global(frame, D), axis=axis)
    P, _, _ = cf.four_bar_coupler_point(a, coupler["p"], coupler["delta"], theta2_0, t3_0)
    bt.m.add_point("P", "coupler", at=tuple(to_global(frame, P)))
    return bt, (theta2_0, t3_0, t4_0)


def test_four_bar_mobility():
    """DESIGN.md: a planar four-bar gives grubler -2, dof 1, passive 0, redundant 3, one loop."""
    bt, _ = build_four_bar(**FOUR_BAR, theta2_0=0.6, branch=-1)
    info = bt.m.check()
    assert (info.grubler, info.dof, info.passive, info.redundant) == (-2, 1, 0, 3)
    assert len(info.loops) == 1
    assert info.grubler == info.dof + info.passive - info.redundant
    assert str(info)  # printable


@pytest.mark.parametrize("branch", [-1, 1])
def test_four_bar_sweep_matches_freudenstein(branch):
    """Full crank revolution of a crank-rocker, in a tilted plane, with crank speed and
    angular acceleration: pair angles, rates, coupler point vs Freudenstein (Norton
    eqs. 4.10, 6.18, 7.12, 4.31) and closure of every pair at every sample."""
    a, b, c, d = FOUR_BAR.values()
    bt, (t2_0, t3_0, t4_0) = build_four_bar(a, b, c, d, 0.6, branch)
    w, al = 2.0, -1.5  # rad/s, rad/s^2
    qA = np.linspace(0.0, 2 * np.pi, 145)
    res = bt.m.sweep({"A": qA}, speeds={"A": w}, accelerations={"A": al})
    assert len(res) == len(qA)

    t2 = t2_0 + qA
    t3, t4 = cf.four_bar_angles(a, b, c, d, t2, branch)
    w3, w4 = cf.four_bar_velocities(a, b, c, t2, t3, t4, w)
    al3, al4 = cf.four_bar_accelerations(a, b, c, t2, t3, t4, w, w3, w4, al)

    assert_allclose(res.q("A"), qA, rtol=0.0, atol=1e-12)  # the driver is imposed
    assert_angles_close(res.q("B"), (t3 - t2) - (t3_0 - t2_0))
    assert_angles_close(res.q("C"), (t4 - t3) - (t4_0 - t3_0))
    assert_angles_close(res.q("D"), -(t4 - t4_0))  # declared rocker -> ground: minus the rocker angle
    # Rates scale with w (2 rad/s) and w^2: absolute floors TOL * w, TOL * w^2.
    assert_allclose(res.q_dot("A"), w, rtol=TOL, atol=TOL)
    assert_allclose(res.q_dot("B"), w3 - w, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_dot("C"), w4 - w3, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_dot("D"), -w4, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_ddot("A"), al, rtol=TOL, atol=TOL)
    assert_allclose(res.q_ddot("B"), al3 - al, rtol=TOL, atol=TOL * w**2)
    assert_allclose(res.q_ddot("C"), al4 - al3, rtol=TOL, atol=TOL * w**2)
    assert_allclose(res.q_ddot("D"), -al4, rtol=TOL, atol=TOL * w**2)

    P, V, Acc = cf.four_bar_coupler_point(a, COUPLER_POINT["p"], COUPLER_POINT["delta"], t2, t3, w, w3, al, al3)
    size = d  # 0.1 m
    assert_allclose(res.point("P"), to_global(FOUR_BAR_FRAME, P), rtol=0.0, atol=TOL * size)
    assert_allclose(res.point_velocity("P"), to_global_vector(FOUR_BAR_FRAME, V), rtol=0.0, atol=TOL * size * w)
    assert_allclose(res.point_acceleration("P"), to_global_vector(FOUR_BAR_FRAME, Acc), rtol=0.0,
                    atol=TOL * size * w**2)

    assert_closed(res, bt.pairs, size)
    # The crank's pose is the rotation about A's axis by q_A (DESIGN.md: pose = motion since design).
    crank = cf.pair_relative_motion("revolute", to_global(FOUR_BAR_FRAME, [0, 0]), qA, axis=FOUR_BAR_FRAME[:3, 2])
    assert_allclose(res.pose("crank"), crank, rtol=0.0, atol=TOL)


def test_four_bar_matches_sympy_closed_configuration():
    """SymPy's closed four-bar (sympy/physics/mechanics/tests/test_jointsmethod.py::
    test_four_bar_linkage_with_manual_constraints): l = 0.13, 0.24, 0.21, 0.34;
    q1 = 2.1 -> q2 = 0.6655470375077588, q3 = 2.527408138024188, and with u1 = 0.2 the
    speeds u2, u3. Built at q1 = 1.8 (design pose from Freudenstein), swept to q1 = 2.1.
    SymPy's own check is eps = 1e-10; the printed values close to ~1e-13 (see the
    self-check above), so 1e-10 is the honest tolerance."""
    lengths = cf.SYMPY_FOUR_BAR["lengths"]
    q_ref = cf.SYMPY_FOUR_BAR["q"]
    u_ref = cf.SYMPY_FOUR_BAR["u"]
    l1, l2, l3, l4 = lengths
    q1_0 = 1.8
    t3_0, t4_0 = cf.four_bar_angles(l2, l3, l4, l1, q1_0 - np.pi, +1)
    q_design = (q1_0, t3_0 + np.pi - q1_0, t4_0 - (t3_0 + np.pi))  # pin angles of SymPy's joints
    J = cf.sympy_four_bar_joints(lengths, q_design)
    m = Mechanism("sympy four-bar")
    for link in ("link2", "link3", "link4"):
        m.add_link(link)
    z = (0.0, 0.0, 1.0)
    m.add_pair("J1", "revolute", "ground", "link2", at=tuple(J[0]), axis=z)
    m.add_pair("J2", "revolute", "link2", "link3", at=tuple(J[1]), axis=z)
    m.add_pair("J3", "revolute", "link3", "link4", at=tuple(J[2]), axis=z)
    m.add_pair("J4", "revolute", "link4", "ground", at=tuple(J[3]), axis=z)
    res = m.sweep({"J1": [q_ref[0] - q1_0]}, speeds={"J1": u_ref[0]})
    got_q = [res.q(name)[-1] + q0 for name, q0 in zip(("J1", "J2", "J3"), q_design)]
    assert_angles_close(got_q, q_ref, atol=1e-10)
    got_u = [res.q_dot(name)[-1] for name in ("J1", "J2", "J3")]
    assert_allclose(got_u, u_ref, rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------ slider-crank
SLIDER = dict(r=0.03, l=0.11, e=0.012)  # m: crank, connecting rod, offset


def build_slider_crank(r, l, e, theta_0):
    s = cf.slider_crank(r, l, e, theta_0)
    B0 = np.array([r * np.cos(theta_0), r * np.sin(theta_0), 0.0])
    C0 = np.array([float(s["x"]), e, 0.0])
    z, x = (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)
    bt = Built("offset slider-crank")
    bt.link("crank", "rod", "slider")
    bt.pair("O", "revolute", "ground", "crank", (0.0, 0.0, 0.0), axis=z)
    bt.pair("B", "revolute", "crank", "rod", B0, axis=z)
    bt.pair("C", "revolute", "rod", "slider", C0, axis=z)
    bt.pair("S", "prismatic", "ground", "slider", C0, axis=x)
    bt.m.add_point("pin", "slider", at=tuple(C0))
    return bt, s


def test_offset_slider_crank_with_crank_acceleration():
    """Offset slider-crank (Norton sec. 4.6, 6.7, 7.3; rates derived by hand in
    closed_forms.slider_crank) over a full turn at 25 rad/s with 40 rad/s^2 crank angular
    acceleration: slider travel, speed, acceleration, rod angle and the slider pin point."""
    r, l, e = SLIDER.values()
    theta_0 = 0.3
    bt, s0 = build_slider_crank(r, l, e, theta_0)
    info = bt.m.check()
    assert (info.grubler, info.dof) == (-2, 1)
    assert info.grubler == info.dof + info.passive - info.redundant
    w, al = 25.0, 40.0
    qO = np.linspace(0.0, 2 * np.pi, 91)
    res = bt.m.sweep({"O": qO}, speeds={"O": w}, accelerations={"O": al})
    s = cf.slider_crank(r, l, e, theta_0 + qO, w, al)
    size = l
    # Lengths: TOL * size; rates: TOL * size * w and TOL * size * w^2 (and TOL relative).
    assert_allclose(res.q("S"), s["x"] - s0["x"], rtol=0.0, atol=TOL * size)
    assert_allclose(res.q_dot("S"), s["x_dot"], rtol=TOL, atol=TOL * size * w)
    assert_allclose(res.q_ddot("S"), s["x_ddot"], rtol=TOL, atol=TOL * size * w**2)
    rod = s["phi"] - (theta_0 + qO)
    assert_angles_close(res.q("B"), rod - (s0["phi"] - theta_0))
    assert_allclose(res.q_dot("B"), s["phi_dot"] - w, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_ddot("B"), s["phi_ddot"] - al, rtol=TOL, atol=TOL * w**2)
    assert_angles_close(res.q("C"), -(s["phi"] - s0["phi"]))  # the slider does not turn
    assert_allclose(res.q_dot("C"), -s["phi_dot"], rtol=TOL, atol=TOL * w)
    pin = np.stack([s["x"], np.full_like(qO, e), np.zeros_like(qO)], axis=1)
    assert_allclose(res.point("pin"), pin, rtol=0.0, atol=TOL * size)
    assert_allclose(res.point_velocity("pin")[:, 0], s["x_dot"], rtol=TOL, atol=TOL * size * w)
    assert_allclose(res.point_acceleration("pin")[:, 0], s["x_ddot"], rtol=TOL, atol=TOL * size * w**2)
    assert_allclose(res.point_velocity("pin")[:, 1:], 0.0, rtol=0.0, atol=TOL * size * w)
    assert_closed(res, bt.pairs, size)


# ------------------------------------------------------------------ Hooke joint
HOOKE_BETA = np.radians(30.0)


def build_hooke(model, in_plane, beta=HOOKE_BETA):
    """Input shaft along x (bearing at x = -0.1 m), cross at the origin, output shaft along
    (cos b, sin b, 0) (bearing 0.15 m out). ``in_plane``: the input pin lies in the plane of
    the shafts (then the output pin is normal to it), else the other way round. ``model``:
    one Hooke pair, or a cross link with two revolute pairs."""
    x1 = np.array([1.0, 0.0, 0.0])
    x2 = np.array([np.cos(beta), np.sin(beta), 0.0])
    if in_plane:
        pin_in, pin_out = np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])
    else:
        pin_in, pin_out = np.array([0.0, 0.0, 1.0]), np.array([-np.sin(beta), np.cos(beta), 0.0])
    centre = np.zeros(3)
    bt = Built(f"Hooke joint ({model})")
    bt.link("input", "output")
    bt.pair("IN", "revolute", "ground", "input", -0.1 * x1, axis=x1)
    if model == "hooke":
        bt.pair("U", "hooke", "input", "output", centre, axes=(pin_in, pin_out))
    else:
        bt.link("cross")
        bt.pair("U0", "revolute", "input", "cross", centre, axis=pin_in)
        bt.pair("U1", "revolute", "cross", "output", centre, axis=pin_out)
    bt.pair("OUT", "revolute", "ground", "output", 0.15 * x2, axis=x2)
    bt.m.add_point("yoke", "output", at=tuple(0.15 * x2 + 0.04 * pin_out))
    return bt


@pytest.mark.parametrize("in_plane", [True, False], ids=["input-pin-in-plane", "input-pin-normal"])
@pytest.mark.parametrize("model", ["hooke", "cross"])
def test_hooke_joint_at_30_degrees(model, in_plane):
    """Hooke joint at 30 deg: output angle tan(t2) = tan(t1)/cos(b) (input pin in the
    shafts' plane; Wikipedia "Universal joint") or tan(t2) = cos(b) tan(t1) (pin normal;
    velocity ratio cos b / (1 - sin^2 b sin^2 t1)), speed ratio and output acceleration,
    modelled as a Hooke pair and as two revolutes with a cross link."""
    bt = build_hooke(model, in_plane)
    info = bt.m.check()
    assert info.dof == 1
    assert info.grubler == info.dof + info.passive - info.redundant
    w, al = 10.0, 3.0
    q_in = np.linspace(0.0, 2 * np.pi, 121)
    res = bt.m.sweep({"IN": q_in}, speeds={"IN": w}, accelerations={"IN": al})
    t2, w2, a2, ratio = cf.hooke_joint(q_in, HOOKE_BETA, w, al, input_pin_in_plane=in_plane)
    assert_angles_close(res.q("OUT"), t2)
    assert_allclose(res.q_dot("OUT") / res.q_dot("IN"), ratio, rtol=TOL, atol=TOL)
    assert_allclose(res.q_dot("OUT"), w2, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_ddot("OUT"), a2, rtol=TOL, atol=TOL * w**2)
    # Extremes of the speed ratio: cos b and 1 / cos b, a quarter turn apart.
    assert_allclose([ratio.min(), ratio.max()], [np.cos(HOOKE_BETA), 1 / np.cos(HOOKE_BETA)], rtol=1e-12, atol=0.0)
    assert_closed(res, bt.pairs, 0.15)


# ------------------------------------------------------------------ spatial RSSR
def build_rssr(S2_design):
    g = RSSR
    bt = Built("RSSR")
    bt.link("crank", "coupler", "rocker")
    bt.pair("A", "revolute", "ground", "crank", g["A"], axis=g["u_A"])
    bt.pair("S1", "spherical", "crank", "coupler", g["S1_0"])
    bt.pair("S2", "spherical", "coupler", "rocker", S2_design)
    bt.pair("D", "revolute", "ground", "rocker", g["D"], axis=g["u_D"])
    bt.m.add_point("ball1", "crank", at=tuple(g["S1_0"]))
    bt.m.add_point("ball2", "rocker", at=tuple(S2_design))
    return bt


def rssr_other_branch_design():
    """Ball centre S2 at crank angle 0 on the branch that is not RSSR["S2_0"]'s."""
    g = RSSR
    args = (g["A"], g["u_A"], g["S1_0"], g["D"], g["u_D"], g["S2_0"])
    phis = [float(cf.rssr_rocker_angle(*args, 0.0, b)) for b in (-1, 1)]
    other = phis[int(np.argmax(np.abs(phis)))]  # the design's own branch gives phi = 0
    assert min(abs(p) for p in phis) < 1e-12 and abs(other) > 0.5
    return cf.rssr_points(*args, 0.0, other)[1]


def test_rssr_mobility():
    """Spatial RSSR: grubler 6*3 - (5+3+3+5) = 2, dof 1, one passive freedom (the coupler's
    spin about the line S1-S2), no redundant constraint (DESIGN.md, passive freedoms)."""
    info = build_rssr(RSSR["S2_0"]).m.check()
    assert (info.grubler, info.dof, info.passive, info.redundant) == (2, 1, 1, 0)


@pytest.mark.parametrize("branch_name", ["design branch", "other branch"])
def test_rssr_sweep_on_both_branches(branch_name):
    """Spatial RSSR, full crank turn on each assembly branch (the second model's design pose
    is the other root of P cos + Q sin = R at crank angle 0): rocker angle, speed and
    acceleration, and both ball centres, vs the closed form (closed_forms.rssr_*)."""
    g = RSSR
    S2_design = g["S2_0"] if branch_name == "design branch" else rssr_other_branch_design()
    bt = build_rssr(S2_design)
    args = (g["A"], g["u_A"], g["S1_0"], g["D"], g["u_D"], S2_design)
    branch = min((-1, 1), key=lambda b: abs(float(cf.rssr_rocker_angle(*args, 0.0, b))))
    w, al = 3.0, 0.5
    qA = np.linspace(0.0, 2 * np.pi, 121)
    res = bt.m.sweep({"A": qA}, speeds={"A": w}, accelerations={"A": al})
    phi = cf.rssr_rocker_angle(*args, qA, branch)
    phi_dot, phi_ddot = cf.rssr_rates(*args, qA, phi, w, al)
    assert_angles_close(res.q("D"), phi)
    assert_allclose(res.q_dot("D"), phi_dot, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_ddot("D"), phi_ddot, rtol=TOL, atol=TOL * w**2)
    S1, S2 = cf.rssr_points(*args, qA, phi)
    size = 0.1
    assert_allclose(res.point("ball1"), S1, rtol=0.0, atol=TOL * size)
    assert_allclose(res.point("ball2"), S2, rtol=0.0, atol=TOL * size)
    # The coupler length is kept (a spatial closure check independent of pair frames).
    L = np.linalg.norm(g["S1_0"] - S2_design)
    assert_allclose(np.linalg.norm(res.point("ball1") - res.point("ball2"), axis=1), L, rtol=0.0, atol=TOL * size)
    assert_closed(res, bt.pairs, size)
    # The two branches are really different: the other one differs by > 0.5 rad everywhere.
    phi_other = cf.rssr_rocker_angle(*args, qA, -branch)
    assert np.all(np.abs(cf.wrap(res.q("D") - phi_other)) > 0.5)


# ------------------------------------------------------------------ Bennett linkage
def build_bennett(theta1_0):
    a, alpha, beta = BENNETT.values()
    frames = cf.bennett_joint_frames(a, alpha, beta, theta1_0)
    bt = Built("Bennett")
    bt.link("L1", "L2", "L3")
    links = ["ground", "L1", "L2", "L3", "ground"]
    for i, F in enumerate(frames):
        bt.pair(f"J{i + 1}", "revolute", links[i], links[i + 1], F[:3, 3], axis=F[:3, 2])
    return bt


def test_bennett_mobility():
    """Bennett linkage (G. T. Bennett, Engineering 76 (1903) 777): 4R spatial loop, grubler
    6*3 - 4*5 = -2, yet dof 1 thanks to a/sin(alpha) = b/sin(beta), so three constraints
    are redundant and none is passive."""
    info = build_bennett(1.2).m.check()
    assert (info.grubler, info.dof) == (-2, 1)
    assert info.grubler == info.dof + info.passive - info.redundant
    assert info.redundant == 3 and info.passive == 0


def test_bennett_sweep_matches_closed_form():
    """Bennett linkage driven at joint 1 over a full turn: all four joint angles and the
    rates of joint 2 vs tan(t1/2) tan(t2/2) = sin((b+a)/2)/sin((b-a)/2), t3 = -t1,
    t4 = -t2 (Bennett 1903; Baker 1979), rates derived in closed_forms.bennett_rates."""
    a, alpha, beta = BENNETT.values()
    theta1_0 = 1.2
    bt = build_bennett(theta1_0)
    t_0 = cf.bennett_joint_angles(theta1_0, alpha, beta)
    w, al = 1.5, -0.8
    q1 = np.linspace(0.0, 2 * np.pi, 121)
    res = bt.m.sweep({"J1": q1}, speeds={"J1": w}, accelerations={"J1": al})
    t = cf.bennett_joint_angles(theta1_0 + q1, alpha, beta)
    for i in range(4):
        assert_angles_close(res.q(f"J{i + 1}"), t[i] - t_0[i])
    t2_dot, t2_ddot = cf.bennett_rates(theta1_0 + q1, alpha, beta, w, al)
    # |dt2/dt1| reaches K ~ 3.6, so rates up to ~5.4 rad/s: TOL relative, TOL * w * K floor.
    K = cf.bennett_constant(alpha, beta)
    assert_allclose(res.q_dot("J2"), t2_dot, rtol=TOL, atol=TOL * w * K)
    assert_allclose(res.q_dot("J3"), -w, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_dot("J4"), -t2_dot, rtol=TOL, atol=TOL * w * K)
    assert_allclose(res.q_ddot("J2"), t2_ddot, rtol=TOL, atol=TOL * w**2 * K**2)
    assert_allclose(res.q_ddot("J4"), -t2_ddot, rtol=TOL, atol=TOL * w**2 * K**2)
    assert_closed(res, bt.pairs, BENNETT["a"])


# ------------------------------------------------------------------ wobble plate
WOBBLE_GAMMA = np.radians(12.0)
WOBBLE_CENTRE = np.array([0.0, 0.0, 0.04])


def build_wobble_plate(gamma=WOBBLE_GAMMA, rim=0.05):
    c = WOBBLE_CENTRE
    n0 = np.array([np.sin(gamma), 0.0, np.cos(gamma)])
    bt = Built("wobble-plate drive")
    bt.link("shaft", "plate")
    bt.pair("SH", "revolute", "ground", "shaft", c - np.array([0.0, 0.0, 0.04]), axis=(0.0, 0.0, 1.0))
    bt.pair("PL", "revolute", "shaft", "plate", c, axis=n0)
    bt.pair("U", "hooke", "ground", "plate", c, axes=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)))
    bt.m.add_point("rim", "plate", at=tuple(c + rim * np.array([0.0, 1.0, 0.0])))
    return bt, n0


def test_wobble_plate_drive():
    """Wobble-plate (swash-plate) drive: shaft about z, plate on a revolute tilted 12 deg
    from the shaft, held by a Hooke joint (ground pin x, plate pin y). By hand
    (closed_forms.wobble_plate_hooke_angles): U.0 = -atan(tan g sin t) oscillates with
    amplitude exactly the tilt g; U.1 = asin(sin g cos t) - g; the plate normal sweeps the
    cone Rot_z(t) n0; a rim point on the plate pin rises and falls by rim sin g."""
    bt, n0 = build_wobble_plate()
    info = bt.m.check()
    assert (info.grubler, info.dof) == (-2, 1)
    assert info.grubler == info.dof + info.passive - info.redundant
    w, al = 50.0, 20.0  # about 480 rpm
    th = np.linspace(0.0, 2 * np.pi, 145)  # includes t = pi/2 and 3 pi/2
    res = bt.m.sweep({"SH": th}, speeds={"SH": w}, accelerations={"SH": al})
    (p1, p2), (d1, d2), (dd1, dd2) = cf.wobble_plate_hooke_angles(WOBBLE_GAMMA, th, w, al)
    assert_angles_close(res.q("U.0"), p1)
    assert_angles_close(res.q("U.1"), p2)
    assert_allclose(res.q("U"), np.stack([res.q("U.0"), res.q("U.1")], axis=1), rtol=0.0, atol=0.0)
    assert_allclose(res.q_dot("U.0"), d1, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_dot("U.1"), d2, rtol=TOL, atol=TOL * w)
    assert_allclose(res.q_ddot("U.0"), dd1, rtol=TOL, atol=TOL * w**2)
    assert_allclose(res.q_ddot("U.1"), dd2, rtol=TOL, atol=TOL * w**2)
    # The amplitude of the oscillation about the ground pin is the tilt angle.
    assert_allclose(np.abs(res.q("U.0")).max(), WOBBLE_GAMMA, rtol=0.0, atol=TOL)
    normal = res.pose("plate")[:, :3, :3] @ n0
    assert_allclose(normal, cf.rotation_matrix([0, 0, 1], th) @ n0, rtol=0.0, atol=TOL)
    rim_z = res.point("rim")[:, 2] - WOBBLE_CENTRE[2]
    assert_allclose(rim_z, 0.05 * np.sin(p1), rtol=0.0, atol=TOL * 0.05)
    assert_allclose(np.abs(rim_z).max(), 0.05 * np.sin(WOBBLE_GAMMA), rtol=0.0, atol=TOL * 0.05)
    assert_closed(res, bt.pairs, 0.05)


# =============================================================================
# 3. finite-difference checks of the solver's own rates
# =============================================================================
# Derivatives along a sweep are estimated from sweep samples at c + k h, k = -2..2, by
# Richardson's extrapolation of the central differences with steps h and 2h:
# D = (4 D_h - D_2h) / 3, truncation O(h^4) ~ 1e-12 with h = 1e-3 rad. Sweep positions
# are closed to the default tolerance (1e-10, relative to size), not to round-off, so each
# sample carries up to ~1e-10 of error and D about 1.5e-10 / h ~ 1.5e-7 (rad or m per unit
# driver speed, divided by the size for points). FD_TOL = 1e-6 (relative and absolute)
# covers that with margin, and is far below any error in the analytic formulas (O(1)).
FD_H = 1e-3
FD_TOL = 1e-6
OFFSETS = np.array([-2, -1, 0, 1, 2])


def stencil_values(centres, h=FD_H):
    """Driver values c - 3h (a lead-in), c - 2h, c - h, c, c + h, c + 2h for each centre.

    The lead-in sample makes every stencil sample a short step from the previous one, so
    these tests check differential consistency only; rates after long steps are the
    subject of :func:`test_rates_do_not_depend_on_the_sweep_step`.
    """
    return (np.asarray(centres)[:, None] + h * np.r_[-3, OFFSETS][None, :]).ravel()


def _stencils(samples):
    return np.asarray(samples).reshape((-1, 6) + np.shape(samples)[1:])[:, 1:]


def stencil_derivative(samples, h=FD_H):
    """Richardson-extrapolated central difference at each centre: samples (6 m, ...) -> (m, ...)."""
    f = _stencils(samples)
    d1 = (f[:, 3] - f[:, 1]) / (2 * h)
    d2 = (f[:, 4] - f[:, 0]) / (4 * h)
    return (4 * d1 - d2) / 3


def at_centres(samples):
    return _stencils(samples)[:, 2]


def rotation_vector(R):
    """Rotation vector of rotations (..., 3, 3) with angle < pi/2 (plain numpy, for small steps)."""
    skew = (R - np.swapaxes(R, -1, -2)) / 2
    v = np.stack([skew[..., 2, 1], skew[..., 0, 2], skew[..., 1, 0]], axis=-1)
    sin = np.linalg.norm(v, axis=-1, keepdims=True)
    cos = (np.trace(R, axis1=-2, axis2=-1)[..., None] - 1) / 2
    angle = np.arctan2(sin, cos)
    return v * np.where(sin > 0, angle / np.where(sin > 0, sin, 1.0), 1.0)


def test_four_bar_velocities_match_differences_of_positions():
    """Four-bar (Freudenstein geometry): solver q_dot and point velocity vs differences of
    closed sweep positions; q_ddot and point acceleration vs differences of the solver's
    own (analytic) velocities, with a driver acceleration:
    q'' = d(q')/d(theta) w + (q' / w) al for a driver at speed w and acceleration al."""
    a, b, c, d = FOUR_BAR.values()
    bt, _ = build_four_bar(a, b, c, d, 0.6, -1)
    values = stencil_values(np.linspace(0.2, 6.0, 8))
    w, al = 1.0, 0.4
    res = bt.m.sweep({"A": values}, speeds={"A": w}, accelerations={"A": al})
    for name in ("B", "C", "D"):
        q_dot = at_centres(res.q_dot(name))
        assert_allclose(q_dot, stencil_derivative(res.q(name)) * w, rtol=FD_TOL, atol=FD_TOL)
        expected = stencil_derivative(res.q_dot(name)) * w + q_dot / w * al
        assert_allclose(at_centres(res.q_ddot(name)), expected, rtol=FD_TOL, atol=FD_TOL)
    V = res.point_velocity("P")
    assert_allclose(at_centres(V), stencil_derivative(res.point("P")) * w, rtol=FD_TOL, atol=FD_TOL * d)
    expected = stencil_derivative(V) * w + at_centres(V) / w * al
    assert_allclose(at_centres(res.point_acceleration("P")), expected, rtol=FD_TOL, atol=FD_TOL * d)


def test_rssr_rates_match_differences_of_positions():
    """RSSR: rocker speed and acceleration vs differences of closed positions and of the
    solver's velocities (the coupler's passive spin plays no part in the rocker angle)."""
    bt = build_rssr(RSSR["S2_0"])
    values = stencil_values(np.linspace(0.3, 6.0, 6))
    w, al = 1.0, -0.3
    res = bt.m.sweep({"A": values}, speeds={"A": w}, accelerations={"A": al})
    q_dot = at_centres(res.q_dot("D"))
    assert_allclose(q_dot, stencil_derivative(res.q("D")) * w, rtol=FD_TOL, atol=FD_TOL)
    expected = stencil_derivative(res.q_dot("D")) * w + q_dot / w * al
    assert_allclose(at_centres(res.q_ddot("D")), expected, rtol=FD_TOL, atol=FD_TOL)


def build_rsur():
    """The RSSR with its second ball replaced by a Hooke joint (pin on the coupler normal to
    the coupler and the rocker axis; pin on the rocker along the rocker axis): the same
    rocker motion, but no passive spin (grubler 6*3 - (5+3+4+5) = 1 = dof)."""
    g = RSSR
    pin_coupler = np.cross(g["u_D"], g["S1_0"] - g["S2_0"])
    bt = Built("RSUR")
    bt.link("crank", "coupler", "rocker")
    bt.pair("A", "revolute", "ground", "crank", g["A"], axis=g["u_A"])
    bt.pair("S1", "spherical", "crank", "coupler", g["S1_0"])
    bt.pair("U", "hooke", "coupler", "rocker", g["S2_0"], axes=(pin_coupler, g["u_D"]))
    bt.pair("D", "revolute", "ground", "rocker", g["D"], axis=g["u_D"])
    return bt


def test_rsur_spherical_pair_rates_match_differences_of_positions():
    """RSUR (no passive freedom): the spherical pair's q_dot, the relative angular velocity
    in global design axes (DESIGN.md), equals log(R(t + h) R(t - h)^T) / 2h of the
    relative rotations the sweep reports (even in h, so Richardson applies); its value is
    the rotation vector of that rotation; the Hooke pair's rates match differences of its
    angles; the rocker follows the RSSR closed form."""
    g = RSSR
    bt = build_rsur()
    info = bt.m.check()
    assert (info.grubler, info.dof, info.passive, info.redundant) == (1, 1, 0, 0)
    values = stencil_values(np.linspace(0.3, 6.0, 6))
    w = 1.0
    res = bt.m.sweep({"A": values}, speeds={"A": w})
    args = (g["A"], g["u_A"], g["S1_0"], g["D"], g["u_D"], g["S2_0"])
    assert_angles_close(res.q("D"), cf.rssr_rocker_angle(*args, values, -1))
    rel = np.linalg.inv(res.pose("crank")) @ res.pose("coupler")
    R = _stencils(rel[:, :3, :3])
    Rt = np.swapaxes(R, -1, -2)
    d1 = rotation_vector(R[:, 3] @ Rt[:, 1]) / (2 * FD_H)  # left increments: the crank's axes
    d2 = rotation_vector(R[:, 4] @ Rt[:, 0]) / (4 * FD_H)
    assert_allclose(at_centres(res.q_dot("S1")), (4 * d1 - d2) / 3 * w, rtol=FD_TOL, atol=FD_TOL)
    assert_allclose(cf.pair_relative_motion("spherical", np.zeros(3), res.q("S1"))[:, :3, :3],
                    rel[:, :3, :3], rtol=0.0, atol=TOL)
    for name in ("U.0", "U.1"):
        assert_allclose(at_centres(res.q_dot(name)), stencil_derivative(res.q(name)) * w, rtol=FD_TOL, atol=FD_TOL)
    assert_closed(res, bt.pairs, 0.1)


def test_rates_do_not_depend_on_the_sweep_step():
    """Velocities and accelerations are functions of the configuration and the driver
    rates only, so they must not depend on how far the sweep stepped to reach a sample.
    Four-bar and Bennett swept straight to values 0.8 rad apart (and the four-bar to a
    single far value) vs the closed forms, at the same 1e-9 as the fine sweeps above."""
    a, b, c, d = FOUR_BAR.values()
    bt, (t2_0, t3_0, t4_0) = build_four_bar(a, b, c, d, 0.6, -1)
    w, al = 1.0, 0.4
    for qA in (np.linspace(0.2, 6.0, 8), np.array([3.0])):
        res = bt.m.sweep({"A": qA}, speeds={"A": w}, accelerations={"A": al})
        t2 = t2_0 + qA
        t3, t4 = cf.four_bar_angles(a, b, c, d, t2, -1)
        w3, w4 = cf.four_bar_velocities(a, b, c, t2, t3, t4, w)
        al3, al4 = cf.four_bar_accelerations(a, b, c, t2, t3, t4, w, w3, w4, al)
        assert_angles_close(res.q("D"), -(t4 - t4_0))
        assert_allclose(res.q_dot("D"), -w4, rtol=TOL, atol=TOL * w)
        assert_allclose(res.q_ddot("D"), -al4, rtol=TOL, atol=TOL * w**2)
    alpha, beta = BENNETT["alpha"], BENNETT["beta"]
    bt = build_bennett(1.2)
    q1 = np.linspace(0.0, 2 * np.pi, 9)
    res = bt.m.sweep({"J1": q1}, speeds={"J1": w}, accelerations={"J1": al})
    t2_dot, t2_ddot = cf.bennett_rates(1.2 + q1, alpha, beta, w, al)
    K = cf.bennett_constant(alpha, beta)
    assert_allclose(res.q_dot("J2"), t2_dot, rtol=TOL, atol=TOL * w * K)
    assert_allclose(res.q_ddot("J2"), t2_ddot, rtol=TOL, atol=TOL * w**2 * K**2)


# =============================================================================
# 4. a sweep that cannot go on
# =============================================================================
def test_driving_a_rocker_past_its_limit_raises_sweep_stopped():
    """Crank-rocker driven at the rocker (D, declared ground -> rocker) beyond its extreme
    (reached when crank and coupler are collinear, Norton sec. 4.10 "toggle positions"):
    SweepStopped, whose .partial holds only closed positions up to the limit and whose
    .reason names the driver and the value where it stopped."""
    a, b, c, d = FOUR_BAR.values()
    bt, (t2_0, t3_0, t4_0) = build_four_bar(a, b, c, d, 0.6, -1, rocker_first=False)
    # The rocker's extreme on this branch, from the closed form (a smooth maximum of t4(t2)).
    far = minimize_scalar(lambda t2: -float(cf.four_bar_angles(a, b, c, d, t2, -1)[1]),
                          bounds=(-np.pi, np.pi), method="bounded", options={"xatol": 1e-12})
    t4_max = -far.fun
    # Law-of-cosines check of the toggle: there |O2 B| = a + b (extended) or b - a (folded).
    t3_far, t4_far = cf.four_bar_angles(a, b, c, d, far.x, -1)
    B_far = np.array([d + c * np.cos(t4_far), c * np.sin(t4_far)])
    assert min(abs(np.linalg.norm(B_far) - (a + b)), abs(np.linalg.norm(B_far) - (b - a))) < 1e-6
    limit = t4_max - t4_0
    assert limit > 0.2
    step = 0.01
    values = np.arange(0.0, limit + 0.2, step)
    with pytest.raises(SweepStopped) as caught:
        bt.m.sweep({"D": values}, speeds={"D": 1.0})
    stop = caught.value
    partial = stop.partial
    qD = partial.q("D")
    assert len(qD) >= 1
    assert np.all(qD <= limit + 1e-9)
    # It went as far as the requested grid allows, give or take a few steps near the toggle.
    assert qD.max() >= limit - 3 * step
    # Every position it reports is closed, and consistent with its pair values.
    assert_closed(partial, bt.pairs, d)
    t4 = t4_0 + qD
    rocker_pin = to_global(FOUR_BAR_FRAME, [d + c * np.cos(t4_0), c * np.sin(t4_0)])
    expected_pin = to_global(FOUR_BAR_FRAME, np.stack([d + c * np.cos(t4), c * np.sin(t4)], axis=1))
    rocker = partial.pose("rocker")
    assert_allclose(rocker[:, :3, :3] @ rocker_pin + rocker[:, :3, 3], expected_pin, rtol=0.0, atol=TOL * d)
    # The reason names the driver and a value between the last reached and the first refused.
    reason = stop.reason
    assert isinstance(reason, str) and "D" in reason
    numbers = [float(x) for x in re.findall(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", reason)]
    first_refused = values[values > qD.max() + 1e-12][0]
    assert any(qD.max() - step - 1e-3 <= x <= first_refused + 1e-3 for x in numbers), reason
    # ... and the place it names is the toggle itself, to within half a grid step.
    assert any(abs(x - limit) < step / 2 for x in numbers), (reason, limit)
