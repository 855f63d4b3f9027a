"""Hypothesis properties of sweeps on random four-bar and RSSR geometries that assemble.

Geometries are drawn directly in an assembled pose (so the design pose always closes),
placed anywhere in space, and kept only when the closed form (tests/reference) says the
swept range stays well away from dead points. Properties, each on every drawn geometry:

* closure after the sweep: the two links of every pair agree on the pair centre (the
  origins of both pair frames) and on the axis, at every sample;
* the mobility report is consistent: dof 1 and grubler == dof + passive - redundant,
  with the textbook numbers (four-bar -2, 1, 0, 3; RSSR 2, 1, 1, 0);
* the solver's velocities agree with differences of its own closed positions.

Examples are derandomized and capped at 30 per property (STYLE.md: seeded, fast).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from mechanism import Mechanism
from reference import closed_forms as cf

PROPERTY_SETTINGS = settings(max_examples=30, derandomize=True, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# Closure: the sweep closes to 1e-10 relative to the mechanism size; allow 10x.
CLOSURE_TOL = 1e-9
# Velocities vs Richardson-extrapolated central differences (h = 1e-3, truncation O(h^4)
# ~ 1e-12; closure noise ~1e-10 / h ~ 1e-7 for positions closed to tolerance): 1e-6.
FD_H = 1e-3
FD_TOL = 1e-6
SPAN = 0.3  # rad of crank travel per sweep


def angle(lo=-np.pi, hi=np.pi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def length(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def unit_vector(polar, azimuth):
    return np.array([np.sin(polar) * np.cos(azimuth), np.sin(polar) * np.sin(azimuth), np.cos(polar)])


def normal_to(u, turn):
    """A unit vector normal to unit ``u``, turned by ``turn`` about ``u``."""
    helper = np.eye(3)[int(np.argmin(np.abs(u)))]
    e1 = np.cross(u, helper)
    e1 /= np.linalg.norm(e1)
    return np.cos(turn) * e1 + np.sin(turn) * np.cross(u, e1)


def placement(rotation, offset):
    T = np.eye(4)
    w = np.asarray(rotation, float)
    T[:3, :3] = cf.rotation_matrix(w, np.linalg.norm(w)) if np.linalg.norm(w) > 0 else np.eye(3)
    T[:3, 3] = offset
    return T


def stencil(centre, h=FD_H):
    """Driver values: a lead-in at c - 3h, then c - 2h .. c + 2h (short steps throughout)."""
    return centre + h * np.arange(-3, 3)


def richardson(f, h=FD_H):
    """Derivative at the stencil centre from samples at c-3h..c+2h: (4 D_h - D_2h) / 3."""
    f = np.asarray(f)
    return (4 * (f[4] - f[2]) / (2 * h) - (f[5] - f[1]) / (4 * h)) / 3


def assert_pairs_coincide(res, pairs, size):
    """At every sample both links of every pair put the pair centre (and axis) in the same place."""
    for name, first, second, at, axis in pairs:
        P1, P2 = res.pose(first), res.pose(second)
        assert_allclose(P1[:, :3, :3] @ at + P1[:, :3, 3], P2[:, :3, :3] @ at + P2[:, :3, 3],
                        rtol=0.0, atol=CLOSURE_TOL * size, err_msg=f"pair {name}")
        if axis is not None:
            assert_allclose(P1[:, :3, :3] @ axis, P2[:, :3, :3] @ axis, rtol=0.0, atol=CLOSURE_TOL,
                            err_msg=f"pair {name} axis")


# ------------------------------------------------------------------------- four-bar
@st.composite
def four_bars(draw):
    """A planar four-bar in an assembled pose, anywhere in space, far from dead points
    over the crank travel [theta2_0, theta2_0 + SPAN]."""
    a = draw(length(0.02, 0.10))
    c = draw(length(0.03, 0.15))
    d = draw(length(0.05, 0.20))
    t2_0 = draw(angle())
    t4_0 = draw(angle())
    B = a * np.array([np.cos(t2_0), np.sin(t2_0)])
    C = np.array([d + c * np.cos(t4_0), c * np.sin(t4_0)])
    b = float(np.linalg.norm(C - B))
    assume(b > 0.02)
    t2 = t2_0 + np.linspace(0.0, SPAN, 31)
    K1, K2, K3 = d / a, d / c, (a**2 - b**2 + c**2 + d**2) / (2 * a * c)
    A_ = np.cos(t2) - K1 - K2 * np.cos(t2) + K3
    C_ = K1 - (K2 + 1) * np.cos(t2) + K3
    # Assembles over the travel (Freudenstein's discriminant, closed_forms.four_bar_angles),
    # with a margin so the design pose is not at a toggle.
    assume(np.all(4 * np.sin(t2) ** 2 - 4 * A_ * C_ > 1e-3))
    # Which branch the drawn pose is on (exactly one of them reproduces t4_0).
    branch = min((-1, 1), key=lambda s: abs(float(cf.wrap(cf.four_bar_angles(a, b, c, d, t2_0, s)[1] - t4_0))))
    t3, t4 = cf.four_bar_angles(a, b, c, d, t2, branch)
    assume(np.all(np.abs(np.sin(t3 - t4)) > 0.25))  # transmission angle well away from 0 and pi
    assume(np.all(np.abs(np.sin(t3 - t2)) > 0.05))  # crank and coupler not folded
    frame = placement(draw(st.tuples(angle(), angle(), angle())),
                      draw(st.tuples(length(-0.5, 0.5), length(-0.5, 0.5), length(-0.5, 0.5))))
    return dict(a=a, b=b, c=c, d=d, t2_0=t2_0, branch=branch, frame=frame)


def build_four_bar(g):
    a, d, frame = g["a"], g["d"], g["frame"]
    t3_0, t4_0 = cf.four_bar_angles(a, g["b"], g["c"], d, g["t2_0"], g["branch"])
    local = {"A": [0.0, 0.0], "B": [a * np.cos(g["t2_0"]), a * np.sin(g["t2_0"])],
             "C": [d + g["c"] * np.cos(t4_0), g["c"] * np.sin(t4_0)], "D": [d, 0.0]}
    axis = frame[:3, 2]
    m = Mechanism("random four-bar")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    joints = [("A", "ground", "crank"), ("B", "crank", "coupler"), ("C", "coupler", "rocker"), ("D", "rocker", "ground")]
    pairs = []
    for name, first, second in joints:
        at = frame[:3, :3] @ np.r_[local[name], 0.0] + frame[:3, 3]
        m.add_pair(name, "revolute", first, second, at=at, axis=axis)
        pairs.append((name, first, second, at, axis))
    return m, pairs, (t3_0, t4_0)


@PROPERTY_SETTINGS
@given(four_bars())
def test_four_bar_sweep_closes_and_follows_freudenstein(g):
    """Closure of every pair at every sample, and the rocker angle on Freudenstein's branch."""
    m, pairs, (t3_0, t4_0) = build_four_bar(g)
    qA = np.linspace(0.0, SPAN, 7)
    res = m.sweep({"A": qA})
    size = max(g["a"], g["b"], g["c"], g["d"])
    assert_pairs_coincide(res, pairs, size)
    t3, t4 = cf.four_bar_angles(g["a"], g["b"], g["c"], g["d"], g["t2_0"] + qA, g["branch"])
    # Away from dead points (transmission |sin| > 0.25) angle errors stay within a small
    # multiple of the closure tolerance: 1e-8 rad.
    assert_allclose(cf.wrap(res.q("D") + (t4 - t4_0)), 0.0, rtol=0.0, atol=1e-8)


@PROPERTY_SETTINGS
@given(four_bars())
def test_four_bar_mobility_report(g):
    """Any planar four-bar, anywhere in space: grubler -2, dof 1, passive 0, redundant 3."""
    m, _, _ = build_four_bar(g)
    info = m.check()
    assert info.dof == 1
    assert info.grubler == info.dof + info.passive - info.redundant
    assert (info.grubler, info.passive, info.redundant) == (-2, 0, 3)


@PROPERTY_SETTINGS
@given(four_bars(), st.floats(0.1, 0.9 * SPAN))
def test_four_bar_velocities_match_differences(g, where):
    """q_dot of every pair equals the derivative of the swept positions (Richardson)."""
    m, _, _ = build_four_bar(g)
    values = stencil(where)
    w = 1.0
    res = m.sweep({"A": values}, speeds={"A": w})
    for name in ("B", "C", "D"):
        assert_allclose(res.q_dot(name)[3], richardson(res.q(name)) * w, rtol=FD_TOL, atol=FD_TOL)


# ----------------------------------------------------------------------------- RSSR
@st.composite
def rssrs(draw):
    """A spatial RSSR in an assembled pose: crank axis and rocker axis in general position,
    well conditioned (|R| / sqrt(P^2 + Q^2) < 0.9 and a good transmission) over the travel."""
    A = np.array(draw(st.tuples(length(-0.1, 0.1), length(-0.1, 0.1), length(-0.1, 0.1))))
    u_A = unit_vector(draw(angle(0.0, np.pi)), draw(angle()))
    S1_0 = A + draw(length(0.02, 0.05)) * normal_to(u_A, draw(angle()))
    D = A + draw(length(0.06, 0.15)) * unit_vector(draw(angle(0.0, np.pi)), draw(angle()))
    u_D = unit_vector(draw(angle(0.0, np.pi)), draw(angle()))
    S2_0 = D + draw(length(0.03, 0.08)) * normal_to(u_D, draw(angle())) + draw(length(-0.02, 0.02)) * u_D
    L = float(np.linalg.norm(S1_0 - S2_0))
    assume(L > 0.03)
    args = (A, u_A, S1_0, D, u_D, S2_0)
    th = np.linspace(0.0, SPAN, 31)
    P, Q, R = cf._rssr_coefficients(*args, L, th)
    assume(np.all(np.abs(R) < 0.9 * np.hypot(P, Q)))  # assembles, away from the dead points
    branch = min((-1, 1), key=lambda s: abs(float(cf.rssr_rocker_angle(*args, 0.0, s))))
    phi = cf.rssr_rocker_angle(*args, th, branch)
    S1, S2 = cf.rssr_points(*args, th, phi)
    dvec = (S1 - S2) / L
    r2 = S2 - D
    transmission = np.einsum("ni,ni->n", dvec, np.cross(u_D, r2)) / np.linalg.norm(np.cross(u_D, r2), axis=1)
    assume(np.all(np.abs(transmission) > 0.25))
    return dict(A=A, u_A=u_A, S1_0=S1_0, D=D, u_D=u_D, S2_0=S2_0, branch=branch)


def build_rssr(g):
    m = Mechanism("random RSSR")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=g["A"], axis=g["u_A"])
    m.add_pair("S1", "spherical", "crank", "coupler", at=g["S1_0"])
    m.add_pair("S2", "spherical", "coupler", "rocker", at=g["S2_0"])
    m.add_pair("D", "revolute", "ground", "rocker", at=g["D"], axis=g["u_D"])
    m.add_point("ball1", "coupler", at=g["S1_0"])
    m.add_point("ball2", "coupler", at=g["S2_0"])
    pairs = [("A", "ground", "crank", g["A"], g["u_A"]), ("S1", "crank", "coupler", g["S1_0"], None),
             ("S2", "coupler", "rocker", g["S2_0"], None), ("D", "ground", "rocker", g["D"], g["u_D"])]
    return m, pairs


@PROPERTY_SETTINGS
@given(rssrs())
def test_rssr_sweep_closes_and_keeps_the_coupler_length(g):
    """Closure of every pair at every sample, the S-S distance kept, and the rocker on the
    closed-form branch of the design pose."""
    m, pairs = build_rssr(g)
    qA = np.linspace(0.0, SPAN, 7)
    res = m.sweep({"A": qA})
    size = float(np.linalg.norm(g["D"] - g["A"])) + 0.1
    assert_pairs_coincide(res, pairs, size)
    L = np.linalg.norm(g["S1_0"] - g["S2_0"])
    assert_allclose(np.linalg.norm(res.point("ball1") - res.point("ball2"), axis=1), L,
                    rtol=0.0, atol=CLOSURE_TOL * size)
    args = (g["A"], g["u_A"], g["S1_0"], g["D"], g["u_D"], g["S2_0"])
    phi = cf.rssr_rocker_angle(*args, qA, g["branch"])
    # Transmission > 0.25 keeps the rocker angle within a small multiple of the closure tolerance.
    assert_allclose(cf.wrap(res.q("D") - phi), 0.0, rtol=0.0, atol=1e-8)


@PROPERTY_SETTINGS
@given(rssrs())
def test_rssr_mobility_report(g):
    """A general RSSR: grubler 2, dof 1, one passive freedom (coupler spin), no redundancy."""
    m, _ = build_rssr(g)
    info = m.check()
    assert info.dof == 1
    assert info.grubler == info.dof + info.passive - info.redundant
    assert (info.grubler, info.passive, info.redundant) == (2, 1, 0)


@PROPERTY_SETTINGS
@given(rssrs(), st.floats(0.1, 0.9 * SPAN))
def test_rssr_velocities_match_differences(g, where):
    """Rocker q_dot equals the derivative of the swept rocker angle (Richardson)."""
    m, _ = build_rssr(g)
    res = m.sweep({"A": stencil(where)}, speeds={"A": 1.0})
    assert_allclose(res.q_dot("D")[3], richardson(res.q("D")), rtol=FD_TOL, atol=FD_TOL)
    assert_allclose(res.q_dot("A")[3], 1.0, rtol=0.0, atol=1e-15)  # the driver speed is imposed
