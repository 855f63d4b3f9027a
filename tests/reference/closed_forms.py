"""Closed-form kinematics of classic linkages, in plain numpy, each with its source.

These are the outside references that ``tests/test_reference_kinematics.py`` and
``tests/test_properties.py`` hold kinematrix's sweeps against. Nothing here imports
kinematrix. Angles are in rad, lengths in m, and every function accepts arrays of driver
values (it broadcasts), returning arrays of the same shape.

Conventions used throughout
---------------------------
* Planar linkages lie in the xy-plane, angles counter-clockwise from +x.
* "Branch" selects one of the two assembly modes of a linkage. For the four-bar and the
  RSSR the two modes are the two roots of a quadratic (or of ``P cos + Q sin = R``); the
  sign that labels a mode is constant along any motion that avoids a dead point (where
  the discriminant vanishes), so it identifies the mode along a whole sweep.
* Returned angles are wrapped to ``(-pi, pi]`` unless stated otherwise; compare them
  modulo 2 pi (:func:`wrap`).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "wrap",
    "rotation_matrix",
    "four_bar_angles",
    "four_bar_velocities",
    "four_bar_accelerations",
    "four_bar_coupler_point",
    "slider_crank",
    "hooke_joint",
    "rssr_rocker_angle",
    "rssr_points",
    "rssr_rates",
    "bennett_b",
    "bennett_constant",
    "bennett_joint_angles",
    "bennett_rates",
    "dh_matrix",
    "bennett_joint_frames",
    "SYMPY_FOUR_BAR",
    "sympy_four_bar_joints",
    "wobble_plate_hooke_angles",
    "pair_relative_motion",
]


def wrap(angle):
    """Angle(s) wrapped to ``(-pi, pi]``; use to compare angles modulo 2 pi."""
    angle = np.asarray(angle, dtype=float)
    return np.pi - np.mod(np.pi - angle, 2.0 * np.pi)


def rotation_matrix(axis, angle):
    """Rotation by ``angle`` (rad, right-handed) about unit ``axis``; Rodrigues' formula.

    ``angle`` of shape ``S`` gives ``S + (3, 3)``. Source: O. Rodrigues (1840); any text,
    e.g. R. M. Murray, Z. Li, S. S. Sastry, *A Mathematical Introduction to Robotic
    Manipulation*, CRC 1994, eq. (2.14).
    """
    k = np.asarray(axis, dtype=float)
    k = k / np.linalg.norm(k)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    angle = np.asarray(angle, dtype=float)[..., None, None]
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


# --------------------------------------------------------------------------- four-bar
def four_bar_angles(a, b, c, d, theta2, branch):
    """Coupler and rocker angles of a planar four-bar from Freudenstein's equation.

    Ground pivots ``O2 = (0, 0)`` (crank) and ``O4 = (d, 0)`` (rocker); crank ``a = O2A``
    at ``theta2``, coupler ``b = AB`` at ``theta3``, rocker ``c = O4B`` at ``theta4``, all
    measured counter-clockwise from the ground line O2 -> O4.

    Source: F. Freudenstein, "Approximate synthesis of four-bar linkages", Trans. ASME 77
    (1955) 853-861; in the form of R. L. Norton, *Design of Machinery*, 5th ed.,
    McGraw-Hill 2012, sec. 4.5, eqs. (4.8)-(4.10):

        K1 cos(t4) - K2 cos(t2) + K3 = cos(t2 - t4),
        K1 = d/a, K2 = d/c, K3 = (a^2 - b^2 + c^2 + d^2) / (2 a c),
        A tan^2(t4/2) + B tan(t4/2) + C = 0,
        A = cos t2 - K1 - K2 cos t2 + K3, B = -2 sin t2, C = K1 - (K2 + 1) cos t2 + K3,
        t4 = 2 atan2(-B + branch sqrt(B^2 - 4 A C), 2 A)

    (``branch = -1`` is Norton's "open", ``+1`` his "crossed" circuit). The coupler angle
    then follows from the loop equation ``a e^{i t2} + b e^{i t3} = d + c e^{i t4}``
    (Norton eq. 4.5): ``t3 = atan2(c sin t4 - a sin t2, d + c cos t4 - a cos t2)``.

    Returns
    -------
    theta3, theta4 : ndarray, rad, wrapped to (-pi, pi]
    """
    if branch not in (-1, 1):
        raise ValueError(f"branch must be +1 or -1, got {branch!r}")
    t2 = np.asarray(theta2, dtype=float)
    K1, K2 = d / a, d / c
    K3 = (a**2 - b**2 + c**2 + d**2) / (2.0 * a * c)
    A = np.cos(t2) - K1 - K2 * np.cos(t2) + K3
    B = -2.0 * np.sin(t2)
    C = K1 - (K2 + 1.0) * np.cos(t2) + K3
    disc = B**2 - 4.0 * A * C
    if np.any(disc < 0.0):
        raise ValueError("the four-bar does not assemble at some crank angle (Freudenstein discriminant < 0)")
    t4 = wrap(2.0 * np.arctan2(-B + branch * np.sqrt(disc), 2.0 * A))
    t3 = np.arctan2(c * np.sin(t4) - a * np.sin(t2), d + c * np.cos(t4) - a * np.cos(t2))
    return t3, t4


def four_bar_velocities(a, b, c, theta2, theta3, theta4, omega2):
    """Coupler and rocker angular velocities ``(omega3, omega4)`` of a planar four-bar.

    Derived here by differentiating the loop equation
    ``a e^{i t2} + b e^{i t3} - c e^{i t4} - d = 0`` once:

        i a w2 e^{i t2} + i b w3 e^{i t3} - i c w4 e^{i t4} = 0.

    Multiply by ``e^{-i t4}`` and take the real part (``Re(i x e^{i f}) = -x sin f``; the w4
    term is purely imaginary and drops out); likewise with ``e^{-i t3}`` for w4:

        w3 = a w2 sin(t4 - t2) / (b sin(t3 - t4)),
        w4 = a w2 sin(t2 - t3) / (c sin(t4 - t3)).

    Same result as Norton, *Design of Machinery*, 5th ed., eq. (6.18).
    """
    w3 = a * omega2 * np.sin(theta4 - theta2) / (b * np.sin(theta3 - theta4))
    w4 = a * omega2 * np.sin(theta2 - theta3) / (c * np.sin(theta4 - theta3))
    return w3, w4


def four_bar_accelerations(a, b, c, theta2, theta3, theta4, omega2, omega3, omega4, alpha2):
    """Coupler and rocker angular accelerations ``(alpha3, alpha4)`` of a planar four-bar.

    Derived here by differentiating the loop equation twice:

        a (i al2 - w2^2) e^{i t2} + b (i al3 - w3^2) e^{i t3} - c (i al4 - w4^2) e^{i t4} = 0.

    Multiply by ``e^{-i t4}`` and take the real part, using
    ``Re((i al - w^2) e^{i f}) = -al sin f - w^2 cos f``; the al4 term is imaginary and
    drops out. With ``e^{-i t3}`` the al3 term drops out instead:

        al3 = (-a al2 sin(t2-t4) - a w2^2 cos(t2-t4) - b w3^2 cos(t3-t4) + c w4^2)
              / (b sin(t3 - t4)),
        al4 = (a al2 sin(t2-t3) + a w2^2 cos(t2-t3) + b w3^2 - c w4^2 cos(t4-t3))
              / (c sin(t4 - t3)).

    Equivalent to Norton, *Design of Machinery*, 5th ed., eq. (7.12), which solves the
    real and imaginary parts by Cramer's rule instead.
    """
    s24, c24 = np.sin(theta2 - theta4), np.cos(theta2 - theta4)
    s34, c34 = np.sin(theta3 - theta4), np.cos(theta3 - theta4)
    s23, c23 = np.sin(theta2 - theta3), np.cos(theta2 - theta3)
    al3 = (-a * alpha2 * s24 - a * omega2**2 * c24 - b * omega3**2 * c34 + c * omega4**2) / (b * s34)
    al4 = (a * alpha2 * s23 + a * omega2**2 * c23 + b * omega3**2 - c * omega4**2 * c34) / (-c * s34)
    return al3, al4


def four_bar_coupler_point(a, p, delta, theta2, theta3, omega2=0.0, omega3=0.0, alpha2=0.0, alpha3=0.0):
    """Position, velocity and acceleration (each ``(..., 2)``) of a four-bar coupler point.

    The point lies at distance ``p`` from the crank pin A, at angle ``delta`` from the line
    A -> B of the coupler: ``P = a e^{i t2} + p e^{i (t3 + delta)}`` (Norton, *Design of
    Machinery*, 5th ed., eq. (4.31)); its derivatives (Norton eqs. (6.36), (7.32)):

        P'  = i a w2 e^{i t2} + i p w3 e^{i (t3 + delta)},
        P'' = a (i al2 - w2^2) e^{i t2} + p (i al3 - w3^2) e^{i (t3 + delta)}.
    """
    t2 = np.asarray(theta2, dtype=float)
    t3p = np.asarray(theta3, dtype=float) + delta
    e2, e3 = np.exp(1j * t2), np.exp(1j * t3p)
    pos = a * e2 + p * e3
    vel = 1j * a * omega2 * e2 + 1j * p * omega3 * e3
    acc = a * (1j * alpha2 - omega2**2) * e2 + p * (1j * alpha3 - omega3**2) * e3

    def xy(z):
        return np.stack([z.real, z.imag], axis=-1)

    return xy(pos), xy(vel), xy(acc)


# ---------------------------------------------------------------------- slider-crank
def slider_crank(r, l, e, theta, omega=0.0, alpha=0.0, branch=1):
    """Offset slider-crank: slider position, velocity, acceleration and rod angle.

    Crank pivot at the origin, crank ``r`` at ``theta``; connecting rod ``l`` from the crank
    pin ``B = r e^{i theta}`` to the slider pin ``C = (x, e)``, which slides along the line
    ``y = e`` (offset ``e``). Rod angle ``phi`` (of B -> C) from the loop equation
    ``r e^{i theta} + l e^{i phi} = x + i e`` (Norton, *Design of Machinery*, 5th ed.,
    sec. 4.6, eq. (4.15), here written with the rod vector pointing from B to C):

        sin(phi) = (e - r sin theta) / l,   cos(phi) = branch sqrt(1 - sin^2 phi),
        x = r cos theta + l cos phi.

    Velocity and acceleration by differentiating the imaginary part (phi) and the real
    part (x) by hand, with crank speed ``omega`` and crank angular acceleration ``alpha``:

        phi'  = -r cos(theta) omega / (l cos phi),
        x'    = -r sin(theta) omega - l sin(phi) phi',
        phi'' = (r sin(theta) omega^2 - r cos(theta) alpha + l sin(phi) phi'^2) / (l cos phi),
        x''   = -r cos(theta) omega^2 - r sin(theta) alpha - l cos(phi) phi'^2 - l sin(phi) phi''.

    (Norton eqs. (6.20), (7.16) give the same with his angle conventions.)

    Returns
    -------
    dict with ``x, x_dot, x_ddot`` (m, m/s, m/s^2) and ``phi, phi_dot, phi_ddot``.
    """
    th = np.asarray(theta, dtype=float)
    s_phi = (e - r * np.sin(th)) / l
    if np.any(np.abs(s_phi) >= 1.0):
        raise ValueError("the slider-crank does not assemble (|e - r sin theta| >= l)")
    c_phi = branch * np.sqrt(1.0 - s_phi**2)
    phi = np.arctan2(s_phi, c_phi)
    x = r * np.cos(th) + l * c_phi
    phi_dot = -r * np.cos(th) * omega / (l * c_phi)
    x_dot = -r * np.sin(th) * omega - l * s_phi * phi_dot
    phi_ddot = (r * np.sin(th) * omega**2 - r * np.cos(th) * alpha + l * s_phi * phi_dot**2) / (l * c_phi)
    x_ddot = (-r * np.cos(th) * omega**2 - r * np.sin(th) * alpha
              - l * c_phi * phi_dot**2 - l * s_phi * phi_ddot)
    return {"x": x, "x_dot": x_dot, "x_ddot": x_ddot,
            "phi": phi, "phi_dot": phi_dot, "phi_ddot": phi_ddot}


# ----------------------------------------------------------------------- Hooke joint
def hooke_joint(theta1, beta, omega1=0.0, alpha1=0.0, *, input_pin_in_plane=True):
    """Output angle, speed and acceleration of a Hooke (Cardan) joint with shaft angle beta.

    Both shaft angles are measured from the same pose (the joint's design pose), where
    either the input yoke's pin lies in the plane of the two shafts
    (``input_pin_in_plane=True``; the output pin is then normal to that plane) or the
    other way round. Source: the constraint that the two pins stay perpendicular. With
    input shaft along x, output shaft ``x2 = (cos b, sin b, 0)``, input pin
    ``(0, cos t1, sin t1)`` and output pin ``(sin t2 sin b, -sin t2 cos b, cos t2)``
    (``input_pin_in_plane=True``), their dot product vanishes when

        tan(t2) = tan(t1) / cos(b),      w2 / w1 = cos b / (1 - sin^2 b cos^2 t1),

    which is the form of Wikipedia, "Universal joint", section "Equation of motion"
    (``tan g1 = cos b tan g2``, ``w2/w1 = cos b / (1 - sin^2 b cos^2 g1)``; its input pin
    ``x1 = (cos g1, sin g1, 0)`` starts in the plane of the two axles). Shifting both zeros
    by a quarter turn (``input_pin_in_plane=False``, the input pin normal to that plane)
    gives the other common form, derived here from the same constraint:

        tan(t2) = cos(b) tan(t1),        w2 / w1 = cos b / (1 - sin^2 b sin^2 t1).

    The acceleration follows by differentiating ``w2 = w1 r(t1)``:
    ``al2 = al1 r + w1^2 dr/dt1`` with, for the first form,
    ``dr/dt1 = -cos b sin^2 b sin(2 t1) / (1 - sin^2 b cos^2 t1)^2`` (and ``+`` with
    ``cos^2 -> sin^2`` for the second).

    The output angle is returned continuous (not wrapped): ``t2 - t1`` stays within
    ``(-pi/2, pi/2)``.

    Returns
    -------
    theta2, omega2, alpha2, ratio : ndarray
    """
    t1 = np.asarray(theta1, dtype=float)
    cb, sb2 = np.cos(beta), np.sin(beta) ** 2
    if input_pin_in_plane:
        t2_wrapped = np.arctan2(np.sin(t1), np.cos(t1) * cb)
        den = 1.0 - sb2 * np.cos(t1) ** 2
        ratio = cb / den
        ratio_prime = -cb * sb2 * np.sin(2.0 * t1) / den**2
    else:
        t2_wrapped = np.arctan2(np.sin(t1) * cb, np.cos(t1))
        den = 1.0 - sb2 * np.sin(t1) ** 2
        ratio = cb / den
        ratio_prime = cb * sb2 * np.sin(2.0 * t1) / den**2
    theta2 = t1 + wrap(t2_wrapped - t1)
    omega2 = omega1 * ratio
    alpha2 = alpha1 * ratio + omega1**2 * ratio_prime
    return theta2, omega2, alpha2, ratio


# ----------------------------------------------------------------------------- RSSR
def _rssr_coefficients(A, u_A, S1_0, D, u_D, S2_0, length, theta):
    u_A = np.asarray(u_A, float) / np.linalg.norm(u_A)
    u_D = np.asarray(u_D, float) / np.linalg.norm(u_D)
    S1 = np.asarray(A, float) + np.einsum("...ij,j->...i", rotation_matrix(u_A, theta),
                                          np.asarray(S1_0, float) - np.asarray(A, float))
    p = np.asarray(S2_0, float) - np.asarray(D, float)
    p_axial = (p @ u_D) * u_D
    p_perp = p - p_axial
    w = S1 - np.asarray(D, float)
    P = 2.0 * w @ p_perp
    Q = 2.0 * w @ np.cross(u_D, p_perp)
    R = np.sum((w - p_axial) ** 2, axis=-1) + p_perp @ p_perp - length**2
    return P, Q, R


def rssr_rocker_angle(A, u_A, S1_0, D, u_D, S2_0, theta, branch, length=None):
    """Rocker angle of a spatial RSSR linkage, closed form, both assembly branches.

    Crank: revolute at ``A`` with unit axis ``u_A``; its ball centre ``S1`` is at ``S1_0``
    when the crank angle ``theta`` is 0. Rocker: revolute at ``D``, axis ``u_D``; its ball
    centre is at ``S2_0`` when the rocker angle ``phi`` is 0. The coupler keeps
    ``|S1 - S2| = length`` (default ``|S1_0 - S2_0|``). Angles are right-handed about the
    given axes.

    Derivation (self-contained; the classic displacement analysis of the RSSR by the
    constant-distance condition of the S-S coupler, as in C. H. Suh and C. W. Radcliffe,
    *Kinematics and Mechanisms Design*, Wiley 1978): write ``p = S2_0 - D = p_ax + p_perp`` (along and normal to
    ``u_D``); Rodrigues gives ``S2 - D = p_ax + cos(phi) p_perp + sin(phi) u_D x p_perp``.
    With ``w = S1(theta) - D`` the condition ``|w - (S2 - D)|^2 = length^2`` becomes,
    because ``p_ax``, ``p_perp`` and ``u_D x p_perp`` are mutually orthogonal and the last two
    have the same length,

        P cos(phi) + Q sin(phi) = R,
        P = 2 w . p_perp,  Q = 2 w . (u_D x p_perp),  R = |w - p_ax|^2 + |p_perp|^2 - length^2,

    so ``phi = atan2(Q, P) + branch * acos(R / sqrt(P^2 + Q^2))``, ``branch = +1 or -1``.

    Returns
    -------
    phi : ndarray, rad, wrapped to (-pi, pi]
    """
    if branch not in (-1, 1):
        raise ValueError(f"branch must be +1 or -1, got {branch!r}")
    if length is None:
        length = float(np.linalg.norm(np.asarray(S1_0, float) - np.asarray(S2_0, float)))
    P, Q, R = _rssr_coefficients(A, u_A, S1_0, D, u_D, S2_0, length, theta)
    ratio = R / np.hypot(P, Q)
    if np.any(np.abs(ratio) > 1.0):
        raise ValueError("the RSSR does not assemble at some crank angle (|R| > sqrt(P^2 + Q^2))")
    return wrap(np.arctan2(Q, P) + branch * np.arccos(ratio))


def rssr_points(A, u_A, S1_0, D, u_D, S2_0, theta, phi):
    """Ball centres ``S1(theta)``, ``S2(phi)`` (each ``(..., 3)``) of an RSSR (Rodrigues)."""
    A, D = np.asarray(A, float), np.asarray(D, float)
    S1 = A + np.einsum("...ij,j->...i", rotation_matrix(u_A, theta), np.asarray(S1_0, float) - A)
    S2 = D + np.einsum("...ij,j->...i", rotation_matrix(u_D, phi), np.asarray(S2_0, float) - D)
    return S1, S2


def rssr_rates(A, u_A, S1_0, D, u_D, S2_0, theta, phi, omega=0.0, alpha=0.0):
    """Rocker angular velocity and acceleration of an RSSR, derived here by hand.

    Differentiate ``|d|^2 = length^2`` with ``d = S1 - S2``, ``r1 = S1 - A``, ``r2 = S2 - D``:

        d . d' = 0,   d' = omega u_A x r1 - phi' u_D x r2
        =>  phi' = omega (d . u_A x r1) / (d . u_D x r2);

        |d'|^2 + d . d'' = 0,
        d'' = alpha u_A x r1 + omega^2 u_A x (u_A x r1) - phi'' u_D x r2 - phi'^2 u_D x (u_D x r2)
        =>  phi'' = (|d'|^2 + d . [alpha u_A x r1 + omega^2 u_A x (u_A x r1)
                     - phi'^2 u_D x (u_D x r2)]) / (d . u_D x r2).

    Returns
    -------
    phi_dot, phi_ddot : ndarray (rad/s, rad/s^2)
    """
    u_A = np.asarray(u_A, float) / np.linalg.norm(u_A)
    u_D = np.asarray(u_D, float) / np.linalg.norm(u_D)
    S1, S2 = rssr_points(A, u_A, S1_0, D, u_D, S2_0, theta, phi)
    r1, r2 = S1 - np.asarray(A, float), S2 - np.asarray(D, float)
    d = S1 - S2
    t1, t2 = np.cross(u_A, r1), np.cross(u_D, r2)
    den = np.sum(d * t2, axis=-1)
    phi_dot = omega * np.sum(d * t1, axis=-1) / den
    d_dot = omega * t1 - phi_dot[..., None] * t2
    rhs = (np.sum(d_dot**2, axis=-1)
           + np.sum(d * (alpha * t1 + omega**2 * np.cross(u_A, t1)
                         - phi_dot[..., None] ** 2 * np.cross(u_D, t2)), axis=-1))
    return phi_dot, rhs / den


# -------------------------------------------------------------------------- Bennett
def bennett_b(a, alpha, beta):
    """Second link length of a Bennett linkage from Bennett's condition ``a/sin(alpha) = b/sin(beta)``.

    Source: G. T. Bennett, "A new mechanism", *Engineering* 76 (1903) 777-778; J. E. Baker,
    "The Bennett, Goldberg and Myard linkages - in perspective", *Mechanism and Machine
    Theory* 14 (1979) 239-253.
    """
    return a * np.sin(beta) / np.sin(alpha)


def bennett_constant(alpha, beta):
    """``K = sin((beta + alpha)/2) / sin((beta - alpha)/2)`` of Bennett's angle relation."""
    return np.sin((beta + alpha) / 2.0) / np.sin((beta - alpha) / 2.0)


def dh_matrix(a, alpha, theta, d=0.0):
    """Classic Denavit-Hartenberg matrix ``Rot_z(theta) Trans_z(d) Trans_x(a) Rot_x(alpha)`` (4x4).

    Source: J. Denavit, R. S. Hartenberg, "A kinematic notation for lower-pair mechanisms
    based on matrices", J. Appl. Mech. 22 (1955) 215-221. Written out here (not taken from
    kinematrix) so the reference stays independent.
    """
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def bennett_joint_angles(theta1, alpha, beta):
    """Joint angles ``(t1, t2, t3, t4)`` of a Bennett linkage driven at joint 1.

    The loop is the DH chain ``T(t1; a, alpha) T(t2; b, beta) T(t3; a, alpha) T(t4; b, beta) = E``
    (``T(t; l, tw) = Rot_z(t) Trans_x(l) Rot_x(tw)``, :func:`dh_matrix`), with
    ``a/sin(alpha) = b/sin(beta)``. Bennett's closure relations (Bennett 1903; Baker 1979,
    eq. (3); the sign and which angle is which were verified numerically here: the chain
    closes to round-off for the ``+K`` root and not for ``-K``, see
    ``tests/test_reference_kinematics.py::test_bennett_closed_form_closes_the_chain``):

        t3 = -t1 (= 2 pi - t1),   t4 = -t2,
        tan(t1/2) tan(t2/2) = K = sin((beta + alpha)/2) / sin((beta - alpha)/2),

    evaluated as ``t2 = 2 atan2(K cos(t1/2), sin(t1/2))``, continuous for t1 in (-2 pi, 2 pi).
    """
    t1 = np.asarray(theta1, dtype=float)
    K = bennett_constant(alpha, beta)
    t2 = 2.0 * np.arctan2(K * np.cos(t1 / 2.0), np.sin(t1 / 2.0))
    return t1, t2, -t1, -t2


def bennett_rates(theta1, alpha, beta, omega1=0.0, alpha1=0.0):
    """``(t2', t2'')`` of a Bennett linkage driven at joint 1 (derived here by hand).

    From ``tan(t2/2) = K cot(t1/2)``: with ``s = sin(t1/2)``, ``c = cos(t1/2)``,

        dt2/dt1 = r(t1) = -K / (s^2 + K^2 c^2),
        dr/dt1 = K s c (1 - K^2) / (s^2 + K^2 c^2)^2,
        t2' = r w1,   t2'' = r al1 + dr/dt1 w1^2.

    (t3 = -t1 and t4 = -t2 give the other rates by sign.)
    """
    t1 = np.asarray(theta1, dtype=float)
    K = bennett_constant(alpha, beta)
    s, c = np.sin(t1 / 2.0), np.cos(t1 / 2.0)
    den = s**2 + K**2 * c**2
    r = -K / den
    r_prime = K * s * c * (1.0 - K**2) / den**2
    return r * omega1, r * alpha1 + r_prime * omega1**2


def bennett_joint_frames(a, alpha, beta, theta1):
    """Frames ``F_1..F_4`` (each 4x4) of the four joint axes of a Bennett linkage at ``theta1``.

    ``F_1 = E``, ``F_{i+1} = F_i T_i`` (DH, :func:`dh_matrix`). Z of ``F_i`` is joint i's axis
    and its origin lies on that axis; joint i turns link i (joint i -> i+1) relative to
    link i-1, by ``t_i`` about that Z. Link 4 (joint 4 -> joint 1) is the ground.
    """
    b = bennett_b(a, alpha, beta)
    thetas = bennett_joint_angles(theta1, alpha, beta)
    frames = [np.eye(4)]
    for t, (length, twist) in zip(thetas[:3], [(a, alpha), (b, beta), (a, alpha)]):
        frames.append(frames[-1] @ dh_matrix(length, twist, float(t)))
    return frames


# ------------------------------------------------------------------ SymPy four-bar
#: SymPy's closed four-bar, ``sympy/physics/mechanics/tests/test_jointsmethod.py::
#: test_four_bar_linkage_with_manual_constraints`` (SymPy 1.14). Link 1 is the ground
#: (frame N, mass centre at the origin, along N.x); joint J1 is at ``+l1/2 N.x``, and each
#: PinJoint about z joins the end ``+l/2 x`` of one link to the end ``-l/2 x`` of the next,
#: so ``q1`` is the angle of link 2 from N.x, ``q2`` that of link 3 from link 2, ``q3`` that
#: of link 4 from link 3; the loop constraint puts the far end of link 4 at ``-l1/2 N.x``.
#: ``u`` are the pin speeds (``u_i = q_i'``, PinJoint's default) that satisfy the velocity
#: constraint; the test states both "Satisfies fh" / "Satisfies fhd".
SYMPY_FOUR_BAR = {
    "lengths": (0.13, 0.24, 0.21, 0.34),
    "q": (2.1, 0.6655470375077588, 2.527408138024188),
    "u": (0.2, -0.17963733938852067, 0.1309060540601612),
}


def sympy_four_bar_joints(lengths, q):
    """Joint centres ``J1, J2, J3, J4`` (each (3,), m, frame N) of SymPy's four-bar at ``q``.

    ``J1 = (l1/2, 0)``, ``J2 = J1 + l2 e^{i q1}``, ``J3 = J2 + l3 e^{i (q1 + q2)}``,
    ``J4 = J3 + l4 e^{i (q1 + q2 + q3)}``, which closes at ``(-l1/2, 0)`` (see
    :data:`SYMPY_FOUR_BAR`).
    """
    l1, l2, l3, l4 = lengths
    q1, q2, q3 = q
    J1 = np.array([l1 / 2.0, 0.0, 0.0])
    J2 = J1 + l2 * np.array([np.cos(q1), np.sin(q1), 0.0])
    J3 = J2 + l3 * np.array([np.cos(q1 + q2), np.sin(q1 + q2), 0.0])
    J4 = J3 + l4 * np.array([np.cos(q1 + q2 + q3), np.sin(q1 + q2 + q3), 0.0])
    return J1, J2, J3, J4


# ---------------------------------------------------------------- wobble plate
def wobble_plate_hooke_angles(gamma, theta, omega=0.0, alpha=0.0):
    """Hooke angles of a wobble plate held to the ground by a Hooke joint (derived here).

    Geometry (all pairs through one centre): the shaft turns by ``theta`` about z; the
    plate turns on the shaft about the shaft-fixed axis ``n = Rot_z(theta) n0``,
    ``n0 = (sin g, 0, cos g)`` (tilt ``g = gamma`` about y); a Hooke joint holds the plate,
    with its first pin ``e_x`` on the ground and its second pin ``e_y`` on the plate (normal
    to ``n0`` at the design pose). The plate's rotation from the design pose is
    ``Rot_x(phi1) Rot_y(phi2)`` (Hooke: about the ground pin, then the carried pin), and it
    must carry ``n0`` to ``n``:

        Rot_x(phi1) Rot_y(phi2) n0
          = (sin(g + phi2), -sin(phi1) cos(g + phi2), cos(phi1) cos(g + phi2))
          = (sin g cos theta, sin g sin theta, cos g),

    hence ``phi1 = -atan(tan g sin theta)`` and ``phi2 = asin(sin g cos theta) - g``: the
    plate oscillates about the ground pin with amplitude exactly ``g`` (at theta = -+90
    deg), the wobble-plate (swash-plate) drive's stroke. Derivatives, by hand, with
    ``k = tan g``, ``W = 1 - sin^2 g cos^2 theta``:

        phi1'(theta)  = -k cos(theta) / (1 + k^2 sin^2 theta),
        phi1''(theta) = k sin(theta) (1 + k^2 sin^2 theta + 2 k^2 cos^2 theta) / (1 + k^2 sin^2 theta)^2,
        phi2'(theta)  = -sin g sin(theta) / sqrt(W),
        phi2''(theta) = -sin g cos^2 g cos(theta) / W^(3/2),

    and ``phi' = phi'(theta) omega``, ``phi'' = phi''(theta) omega^2 + phi'(theta) alpha``.

    Returns
    -------
    (phi1, phi2), (phi1_dot, phi2_dot), (phi1_ddot, phi2_ddot)
    """
    th = np.asarray(theta, dtype=float)
    k, sg, cg = np.tan(gamma), np.sin(gamma), np.cos(gamma)
    s, c = np.sin(th), np.cos(th)
    phi1 = -np.arctan(k * s)
    phi2 = np.arcsin(sg * c) - gamma
    den1 = 1.0 + k**2 * s**2
    d1 = -k * c / den1
    dd1 = k * s * (den1 + 2.0 * k**2 * c**2) / den1**2
    W = 1.0 - sg**2 * c**2
    d2 = -sg * s / np.sqrt(W)
    dd2 = -sg * cg**2 * c / W**1.5
    return ((phi1, phi2),
            (d1 * omega, d2 * omega),
            (dd1 * omega**2 + d1 * alpha, dd2 * omega**2 + d2 * alpha))


# ------------------------------------------------------------ pair convention
def pair_relative_motion(kind, at, q, *, axis=None, axes=None, pitch=None):
    """Rigid motion ``pose(first)^-1 pose(second)`` (``(N, 4, 4)``) a pair's values imply.

    Source: the public convention of DESIGN.md ("Public API"): pair variables are zero at
    the design pose and describe the motion of the second link relative to the first,
    in the first link's frame, which is the global frame at the design pose; rotation
    right-handed about the declared axis through ``at``, slide along it; a Hooke pair
    turns by ``q[0]`` about the first pin, then by ``q[1]`` about the second pin as carried
    by the cross; a spherical pair's value is the rotation vector about ``at``; a helical
    pair slides ``pitch * angle / 2 pi``. Written from that text alone (Rodrigues'
    formula), without kinematrix.

    ``q`` has shape ``(N,)`` for one-variable pairs and ``(N, k)`` otherwise.
    """
    at = np.asarray(at, dtype=float)
    q = np.asarray(q, dtype=float)
    n = q.shape[0]
    R = np.broadcast_to(np.eye(3), (n, 3, 3)).copy()
    slide = np.zeros((n, 3))
    if kind == "revolute":
        R = rotation_matrix(axis, q)
    elif kind == "prismatic":
        slide = q[:, None] * (np.asarray(axis, float) / np.linalg.norm(axis))
    elif kind == "cylindrical":
        R = rotation_matrix(axis, q[:, 0])
        slide = q[:, 1:2] * (np.asarray(axis, float) / np.linalg.norm(axis))
    elif kind == "helical":
        R = rotation_matrix(axis, q)
        slide = (pitch * q / (2.0 * np.pi))[:, None] * (np.asarray(axis, float) / np.linalg.norm(axis))
    elif kind == "hooke":
        pin1, pin2 = (np.asarray(a, float) / np.linalg.norm(a) for a in axes)
        R = rotation_matrix(pin1, q[:, 0]) @ rotation_matrix(pin2, q[:, 1])
    elif kind == "spherical":
        angle = np.linalg.norm(q, axis=1)
        R = np.stack([rotation_matrix(w, a) if a > 0.0 else np.eye(3) for w, a in zip(q, angle)])
    else:
        raise ValueError(f"unknown pair kind {kind!r}")
    T = np.zeros((n, 4, 4))
    T[:, :3, :3] = R
    T[:, :3, 3] = at - np.einsum("nij,j->ni", R, at) + slide
    T[:, 3, 3] = 1.0
    return T
