"""IFToMM spatial rigid slider-crank: an independent one-freedom Lagrange derivation (SymPy).

Source: IFToMM Technical Committee for Multibody Dynamics, Library of Computational
Benchmark Problems, "Spatial rigid slider-crank mechanism"
(https://www.iftomm-multibody.org/benchmark/problem/Spatial_rigid_slider-crank_mechanism/).
Data (SI), as stated to us (and as Exudyn's implementation of the benchmark,
``slidercrank3DbenchmarkIftomm.py``, builds it):

* gravity ``(0, 0, -9.81)``;
* crank: revolute about the global x axis at ``A = (0, 0.1, 0.12)``, length 0.08 (crank
  pin ``B = A + (0, 0, 0.08)`` at crank angle 0), mass 0.12, centre of mass at ``A``,
  central inertia ``diag(1e-4, 1e-5, 1e-4)``;
* connecting rod: 0.3 from ``B`` to ``C``, mass 0.5, centre of mass at its middle, central
  inertia 4e-4 about its own axis and 4e-3 about the two transverse axes; spherical pair
  at ``B`` (crank-rod), Hooke pair at ``C`` with one pin along the slider's x axis and the
  other along the rod's transverse axis ``y_rod`` (rod frame at the start: ``x_rod`` along
  ``C - B``, ``z_rod`` the unit component of ``A`` perpendicular to ``x_rod``,
  ``y_rod = -x_rod x z_rod``; the two pins make 104.4 deg);
* slider: mass 2, inertia ``diag(1e-4, 1e-4, 1e-4)``, prismatic along the x axis through
  the origin, at ``C = (0.2, 0, 0)`` at the start;
* released at crank angle 0 with crank speed 6 rad/s, free under gravity, for 5 s.

That is :data:`STATED`. The benchmark's published reference solution (the file named
"Gonzalez" among the IFToMM solutions that Exudyn keeps in
``docs/verification/Slidercrank3DiftommBenchmark/``; slider position every 0.01 s) is *not*
reproduced by these data: at t = 0.5 s it has the slider at 0.18495 m where they give
0.19059 m. It is reproduced (to 4e-5 m over the 5 s, the spread one expects of a
submitted solution; 2e-7 m at 0.5 s) by :data:`PUBLISHED`: the crank's centre of mass at
the middle of the crank (as in Haug's original spatial slider-crank, from which the
benchmark derives) and a right-angle cross at ``C`` (rod pin normal to both the rod and
the slider pin). :data:`GONZALEZ_SLIDER` holds samples of that solution.

Nothing here imports kinematrix. The derivation is the textbook one for a one-freedom
closed chain, written with exact rationals:

* ``B(theta) = A + 0.08 (0, -sin theta, cos theta)`` (right-handed about +x);
* ``C = (x_C, 0, 0)`` with ``x_C = sqrt(0.3^2 - B_y^2 - B_z^2)`` (the positive root);
* rod axis ``u = (C - B) / 0.3``. The Hooke cross keeps its two pins at a fixed angle
  ``beta`` (``cos beta = X . p0`` at the start, X the slider pin, p0 the rod pin), and the
  rod pin ``p`` is fixed in the rod, normal to ``u``. Hence ``p`` is the unit vector with
  ``p . u = 0`` and ``p . X = cos beta``, in closed form
  ``p = cos(beta) (X - u_x u) / (1 - u_x^2) + s sqrt(1 - cos^2(beta) / (1 - u_x^2)) (u x X) / sqrt(1 - u_x^2)``
  with the sign ``s`` that gives ``p = p0`` at the start (``|cos beta| < sqrt(1 - u_x^2)``
  along the whole turn, so the sign never changes); the rod's rotation is ``[u, p, u x p]``;
* the rod's angular velocity per unit crank rate is ``vee(R' R^T)`` with ``R' = dR/dtheta``;
* ``T = 1/2 M(theta) theta'^2`` with ``M = I_crank,xx + m_crank |c'|^2 + m_rod |G'|^2
  + w^T (R I_rod R^T) w + m_slider x_C'^2`` (``c`` the crank's and ``G`` the rod's centre
  of mass, ``w`` the rod's angular velocity per unit crank rate);
  ``V = g (m_crank c_z + m_rod G_z)``;
* Lagrange: ``M(theta) theta'' + 1/2 M'(theta) theta'^2 + V'(theta) = Q`` (Q the crank torque;
  zero for the free run), with ``M'`` and ``V'`` differentiated symbolically.

The functions are lambdified once per session and variant (``functools.lru_cache``); the
free run is integrated with ``scipy.integrate.solve_ivp`` (DOP853, ``rtol = atol = 1e-12``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.integrate import solve_ivp

__all__ = [
    "Variant", "STATED", "PUBLISHED", "GONZALEZ_SLIDER", "A", "B0", "C0", "CRANK", "ROD",
    "GRAVITY", "CRANK_MASS", "CRANK_INERTIA", "ROD_MASS", "ROD_INERTIA_AXIAL", "ROD_INERTIA_TRANSVERSE",
    "SLIDER_MASS", "SLIDER_INERTIA", "OMEGA0", "T_END", "rod_frame_at_start", "rod_pin_at_start",
    "crank_centre_at_start", "mass", "crank_torque", "slider_x", "points", "rod_rotation", "energy",
    "free_run", "Run",
]

# Benchmark data (SI).
A = np.array([0.0, 0.1, 0.12])
CRANK = 0.08
ROD = 0.3
B0 = A + np.array([0.0, 0.0, CRANK])
C0 = np.array([0.2, 0.0, 0.0])
GRAVITY = 9.81
CRANK_MASS = 0.12
CRANK_INERTIA = np.diag([1e-4, 1e-5, 1e-4])
ROD_MASS = 0.5
ROD_INERTIA_AXIAL = 4e-4
ROD_INERTIA_TRANSVERSE = 4e-3
SLIDER_MASS = 2.0
SLIDER_INERTIA = np.diag([1e-4, 1e-4, 1e-4])
OMEGA0 = 6.0
T_END = 5.0
RTOL = 1e-12
ATOL = 1e-12


@dataclass(frozen=True)
class Variant:
    """A reading of the benchmark's data.

    ``crank_com``: where the crank's centre of mass lies, as a fraction of ``A -> B``
    (0: on the axis at ``A``; 0.5: at the middle of the crank). ``rod_pin``: ``"y_rod"``
    (the rod pin along the stated ``y_rod``) or ``"normal"`` (normal to the rod and to the
    slider pin: a right-angle cross).
    """

    crank_com: float = 0.0
    rod_pin: str = "y_rod"


STATED = Variant(0.0, "y_rod")
PUBLISHED = Variant(0.5, "normal")

# (t s, slider x m): samples of the published reference solution (file "Gonzalez", see the
# module docstring), every 0.25 s, as printed there (9 digits).
GONZALEZ_SLIDER = np.array([
    (0.25, 0.284855404), (0.5, 0.184952803), (0.75, 0.251252901), (1.0, 0.211754668),
    (1.25, 0.22441354), (1.5, 0.25696554), (1.75, 0.20320669), (2.0, 0.289063554),
    (2.25, 0.185932589), (2.5, 0.256509783), (2.75, 0.20529745), (3.0, 0.228450093),
    (3.25, 0.248819524), (3.5, 0.206512886), (3.75, 0.289991578), (4.0, 0.188208161),
    (4.25, 0.262034238), (4.5, 0.199295373), (4.75, 0.232687247), (5.0, 0.240761815),
])


def rod_frame_at_start():
    """The stated rod frame at the start: columns ``x_rod, y_rod, z_rod`` (3, 3)."""
    x = (C0 - B0) / np.linalg.norm(C0 - B0)
    z = A - (A @ x) * x
    z /= np.linalg.norm(z)
    y = -np.cross(x, z)
    return np.column_stack([x, y, z])


def rod_pin_at_start(variant=STATED):
    """Unit rod pin of the Hooke pair at the start (3,): ``y_rod``, or normal to the rod and x."""
    if variant.rod_pin == "y_rod":
        return rod_frame_at_start()[:, 1]
    if variant.rod_pin == "normal":
        p = np.cross(rod_frame_at_start()[:, 0], [1.0, 0.0, 0.0])
        return p / np.linalg.norm(p)
    raise ValueError(f"unknown rod pin {variant.rod_pin!r}")


def crank_centre_at_start(variant=STATED):
    """The crank's centre of mass at the start (3,)."""
    return A + variant.crank_com * (B0 - A)


@functools.lru_cache(maxsize=None)
def _functions(variant):
    """Lambdified ``theta -> (M, M', V, V', x_C)`` and ``theta -> (B, C, R)`` for ``variant``."""
    import sympy as sp

    theta = sp.symbols("theta", real=True)
    a = sp.Matrix([0, sp.Rational(1, 10), sp.Rational(3, 25)])
    crank, rod, g = sp.Rational(2, 25), sp.Rational(3, 10), sp.Rational(981, 100)
    m_crank, m_rod, m_slider = sp.Rational(12, 100), sp.Rational(1, 2), sp.Integer(2)
    i_crank = sp.Rational(1, 10000)
    i_axial, i_transverse = sp.Rational(4, 10000), sp.Rational(4, 1000)
    f_crank = sp.nsimplify(variant.crank_com)
    unit_x = sp.Matrix([1, 0, 0])

    arm = crank * sp.Matrix([0, -sp.sin(theta), sp.cos(theta)])
    b = a + arm
    crank_centre = a + f_crank * arm
    x_c = sp.sqrt(rod**2 - b[1] ** 2 - b[2] ** 2)
    c = sp.Matrix([x_c, 0, 0])
    u = (c - b) / rod

    # The rod pin at theta = 0 (exact), hence cos(beta) and the branch sign.
    u0 = u.subs(theta, 0)
    if variant.rod_pin == "y_rod":
        z0 = a - a.dot(u0) * u0
        z0 = z0 / sp.sqrt(z0.dot(z0))
        p0 = -u0.cross(z0)
    elif variant.rod_pin == "normal":
        p0 = u0.cross(unit_x)
        p0 = p0 / sp.sqrt(p0.dot(p0))
    else:
        raise ValueError(f"unknown rod pin {variant.rod_pin!r}")
    cos_beta = sp.nsimplify(sp.simplify(p0.dot(unit_x)))

    ux = u[0]
    along = cos_beta * (unit_x - ux * u) / (1 - ux**2)
    sideways = sp.sqrt(1 - cos_beta**2 / (1 - ux**2)) * u.cross(unit_x) / sp.sqrt(1 - ux**2)
    sign = 1 if float((along + sideways - p0).subs(theta, 0).norm()) < 1e-12 else -1
    p = along + sign * sideways
    rotation = sp.Matrix.hstack(u, p, u.cross(p))

    # Angular velocity per unit crank rate: vee(dR/dtheta R^T).
    omega_hat = rotation.diff(theta) * rotation.T
    w = sp.Matrix([omega_hat[2, 1], omega_hat[0, 2], omega_hat[1, 0]])
    inertia_rod = rotation * sp.diag(i_axial, i_transverse, i_transverse) * rotation.T
    rod_centre = (b + c) / 2
    d_crank, d_rod = crank_centre.diff(theta), rod_centre.diff(theta)
    mass_expr = (i_crank + m_crank * d_crank.dot(d_crank) + m_rod * d_rod.dot(d_rod)
                 + (w.T * inertia_rod * w)[0, 0] + m_slider * sp.diff(x_c, theta) ** 2)
    potential = g * (m_crank * crank_centre[2] + m_rod * rod_centre[2])
    outputs = (mass_expr, sp.diff(mass_expr, theta), potential, sp.diff(potential, theta), x_c)
    scalars = sp.lambdify(theta, outputs, modules="math", cse=True)
    geometry = sp.lambdify(theta, (b, c, rotation), modules="numpy", cse=True)
    return scalars, geometry


def _scalars(theta, variant):
    """(N, 5) array of ``M, M', V, V', x_C`` at the angles ``theta`` (flattened)."""
    f = _functions(variant)[0]
    return np.array([f(float(t)) for t in np.ravel(theta)]).reshape(-1, 5)


def mass(theta, variant=STATED):
    """Generalized mass ``M(theta)`` (kg m^2) and its derivative ``M'(theta)``, arrays like ``theta``."""
    s = _scalars(theta, variant)
    return s[:, 0].reshape(np.shape(theta)), s[:, 1].reshape(np.shape(theta))


def crank_torque(theta, omega, alpha=0.0, variant=STATED):
    """Crank torque (N m) for the motion ``theta``, ``theta' = omega``, ``theta'' = alpha`` (arrays
    broadcast): ``M alpha + 1/2 M' omega^2 + V'``; for ``omega = alpha = 0``, minus the gravity
    generalized force."""
    theta, omega, alpha = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (theta, omega, alpha)))
    s = _scalars(theta, variant)
    out = s[:, 0] * alpha.ravel() + 0.5 * s[:, 1] * omega.ravel() ** 2 + s[:, 3]
    return out.reshape(theta.shape)


def slider_x(theta, variant=STATED):
    """Slider position ``x_C`` (m) at crank angle(s) ``theta``."""
    return _scalars(theta, variant)[:, 4].reshape(np.shape(theta))


def points(theta, variant=STATED):
    """Crank pin ``B`` and rod end ``C`` (m), each (3,), at one crank angle."""
    b, c, _ = _functions(variant)[1](float(theta))
    return np.asarray(b, dtype=float).ravel(), np.asarray(c, dtype=float).ravel()


def rod_rotation(theta, variant=STATED):
    """Rotation (3, 3) of the rod frame ``[u, p, u x p]`` (rod axis, rod pin) at one crank angle."""
    return np.asarray(_functions(variant)[1](float(theta))[2], dtype=float)


def energy(theta, omega, variant=STATED):
    """Kinetic and gravity potential energy (J) at one state (potential zero at z = 0)."""
    m, _, v, _, _ = _functions(variant)[0](float(theta))
    return 0.5 * m * omega**2, v


class Run(NamedTuple):
    """The free run: ``t`` (N,) s, crank angle ``theta`` (N,) rad, its rate ``omega`` (N,) rad/s."""

    t: np.ndarray
    theta: np.ndarray
    omega: np.ndarray


@functools.lru_cache(maxsize=None)
def _free_run(times, variant):
    f = _functions(variant)[0]

    def rhs(_t, state):
        m, dm, _, dv, _ = f(state[0])
        return [state[1], -(0.5 * dm * state[1] ** 2 + dv) / m]

    sol = solve_ivp(rhs, (0.0, times[-1]), [0.0, OMEGA0], method="DOP853", t_eval=np.array(times),
                    rtol=RTOL, atol=ATOL)
    if not sol.success:
        raise RuntimeError(f"reference integration failed: {sol.message}")
    return Run(sol.t, sol.y[0], sol.y[1])


def free_run(times, variant=STATED):
    """The benchmark's free run (from crank angle 0 at 6 rad/s) sampled at ``times`` (from 0, increasing)."""
    times = tuple(float(t) for t in times)
    if times[0] != 0.0:
        raise ValueError("times must start at 0")
    run = _free_run(times, variant)
    return Run(run.t.copy(), run.theta.copy(), run.omega.copy())
