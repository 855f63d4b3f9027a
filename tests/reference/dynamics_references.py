"""Independent dynamics references, derived with SymPy (``sympy.physics.mechanics``).

These are the outside references that kinematrix's dynamics (trace-form Lagrange, the
Kane-form cross-check, ``simulate`` and inverse dynamics) is held against. Nothing here
imports kinematrix: the equations of motion come from vector kinematics in SymPy
(Kane's method or Lagrange's method on particles and rigid bodies), or from a closed
form written out in the docstring, so a defect in the library cannot leak into them.
SymPy is a test-only dependency and is imported lazily; each derivation runs once per
session (``functools.lru_cache``) and is turned into a NumPy function by ``lambdify``.

Cases
-----
(a) :func:`double_pendulum_trajectory`: planar double pendulum of two uniform rods.
(b) :func:`solar_array_trajectory`: two-panel solar array deploying on torsion springs,
    with :func:`solar_array_equations` checking the published equations of the issue.
(c) :func:`spring_pendulum_trajectory`: point mass on a linear spring about a pivot.
(d) :func:`governor_steady_arm_angle`: Watt (Porter-type) centrifugal governor at
    constant spin, steady arm angle by virtual work; :func:`governor_residual` is the
    SymPy equations of motion to check it against.
(e) :func:`slider_crank_torque`: crank torque of an offset slider-crank driven at
    constant speed (inverse dynamics by virtual work / power balance).

Conventions used throughout
---------------------------
* SI units and radians. Planar cases lie in the xy-plane, angles counter-clockwise
  about +z, and gravity acts along -y unless stated; the governor is spatial with its
  spindle along +z and gravity along -z.
* Every angle is named as in kinematrix: an *absolute* angle is the rotation of a link
  from a stated reference direction; a *relative* angle is the rotation of the second
  link of a revolute pair relative to the first, right-handed about the pair axis,
  which is what kinematrix reads as the pair variable (up to its design-pose offset).
* Inertias of planar links are central moments ``J`` about the axis normal to the
  plane (kg m^2). Any 3x3 tensor with ``I_zz = J`` and ``I_xz = I_yz = 0`` gives the
  same planar motion; admissible choices (triangle inequality) are ``J (1 - u u^T)``
  for a thin link along the unit vector ``u`` in the plane, or ``diag(J/2, J/2, J)``
  (``diag(0, 0, J)`` is not admissible).
* Trajectories are integrated with ``scipy.integrate.solve_ivp`` (DOP853,
  ``rtol = atol = 1e-12``) and returned as :class:`Trajectory`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

__all__ = [
    "Trajectory",
    "RodDoublePendulum",
    "double_pendulum_mass_matrix",
    "double_pendulum_accelerations",
    "double_pendulum_energy",
    "double_pendulum_trajectory",
    "SolarArray",
    "solar_array_equations",
    "published_solar_array_equations",
    "solar_array_points",
    "solar_array_accelerations",
    "solar_array_energy",
    "solar_array_trajectory",
    "SpringPendulum",
    "spring_pendulum_accelerations",
    "spring_pendulum_energy",
    "spring_pendulum_trajectory",
    "WattGovernor",
    "governor_points",
    "governor_arm_link",
    "governor_moment_of_inertia",
    "governor_potential_energy",
    "governor_steady_arm_angle",
    "governor_residual",
    "SliderCrank",
    "slider_crank_points",
    "slider_crank_energy",
    "slider_crank_torque",
]

RTOL = 1e-12
ATOL = 1e-12


class Trajectory(NamedTuple):
    """A reference motion: ``t`` (N,) s; ``q`` and ``q_dot`` (N, n) in the case's coordinates."""

    t: np.ndarray
    q: np.ndarray
    q_dot: np.ndarray


def _integrate(accelerations, times, q0, q_dot0) -> Trajectory:
    """Integrate ``q'' = accelerations(q, q')`` from ``times[0]`` and sample at ``times``."""
    times = np.asarray(times, dtype=float)
    q0 = np.asarray(q0, dtype=float)
    n = len(q0)

    def rhs(_t, state):
        return np.concatenate([state[n:], accelerations(state[:n], state[n:])])

    solution = solve_ivp(rhs, (times[0], times[-1]), np.concatenate([q0, np.asarray(q_dot0, float)]),
                         method="DOP853", t_eval=times, rtol=RTOL, atol=ATOL)
    if not solution.success:
        raise RuntimeError(f"reference integration failed: {solution.message}")
    return Trajectory(solution.t, solution.y[:n].T.copy(), solution.y[n:].T.copy())


def _lambdify(arguments, expression):
    """``sympy.lambdify`` of a Matrix into a NumPy function with common subexpressions."""
    import sympy as sp

    return sp.lambdify(arguments, expression, modules="numpy", cse=True)


def _plain_symbols(functions_of_time, names):
    """Replace ``q(t)``, ``q'(t)`` by plain symbols so ``lambdify`` sees ordinary arguments."""
    import sympy as sp

    return dict(zip(functions_of_time, sp.symbols(names)))


# ---------------------------------------------------------------------------------------
# (a) Double pendulum of two uniform rods
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RodDoublePendulum:
    """Two uniform thin rods in the xy-plane, hinged about +z, under gravity along -y.

    ``length_1``, ``length_2`` m; ``mass_1``, ``mass_2`` kg; ``gravity`` m/s^2. Rod i has
    its centre of mass at its midpoint and central moment ``mass_i length_i^2 / 12``.
    """

    length_1: float = 1.0
    length_2: float = 0.7
    mass_1: float = 1.0
    mass_2: float = 0.5
    gravity: float = 9.81

    def values(self):
        return (self.length_1, self.length_2, self.mass_1, self.mass_2, self.gravity)


@functools.lru_cache(maxsize=None)
def _double_pendulum_functions():
    """Kane's equations of the rod double pendulum (sympy.physics.mechanics), lambdified."""
    import sympy as sp
    import sympy.physics.mechanics as me

    theta_1, theta_2 = me.dynamicsymbols("theta_1 theta_2")
    omega_1, omega_2 = me.dynamicsymbols("omega_1 omega_2")
    l1, l2, m1, m2, g = sp.symbols("l1 l2 m1 m2 g", positive=True)

    ground = me.ReferenceFrame("N")
    rod_1 = ground.orientnew("A", "Axis", (theta_1, ground.z))
    rod_2 = rod_1.orientnew("B", "Axis", (theta_2, rod_1.z))
    rod_1.set_ang_vel(ground, omega_1 * ground.z)
    rod_2.set_ang_vel(rod_1, omega_2 * rod_1.z)

    pivot = me.Point("O")
    pivot.set_vel(ground, 0)
    centre_1 = pivot.locatenew("G1", l1 / 2 * rod_1.x)
    elbow = pivot.locatenew("A", l1 * rod_1.x)
    centre_2 = elbow.locatenew("G2", l2 / 2 * rod_2.x)
    centre_1.v2pt_theory(pivot, ground, rod_1)
    elbow.v2pt_theory(pivot, ground, rod_1)
    centre_2.v2pt_theory(elbow, ground, rod_2)

    bodies = [
        me.RigidBody("rod1", centre_1, rod_1, m1,
                     (me.inertia(rod_1, 0, m1 * l1**2 / 12, m1 * l1**2 / 12), centre_1)),
        me.RigidBody("rod2", centre_2, rod_2, m2,
                     (me.inertia(rod_2, 0, m2 * l2**2 / 12, m2 * l2**2 / 12), centre_2)),
    ]
    loads = [(centre_1, -m1 * g * ground.y), (centre_2, -m2 * g * ground.y)]
    kane = me.KanesMethod(ground, q_ind=[theta_1, theta_2], u_ind=[omega_1, omega_2],
                          kd_eqs=[theta_1.diff() - omega_1, theta_2.diff() - omega_2])
    kane.kanes_equations(bodies, loads)

    plain = _plain_symbols([theta_1, theta_2, omega_1, omega_2], "q1 q2 u1 u2")
    q1, q2, u1, u2 = plain.values()
    mass_matrix = kane.mass_matrix.subs(plain)
    forcing = kane.forcing.subs(plain)
    parameters = (l1, l2, m1, m2, g)
    return (_lambdify((q1, q2, *parameters), mass_matrix),
            _lambdify((q1, q2, u1, u2, *parameters), forcing))


def double_pendulum_mass_matrix(params: RodDoublePendulum, angles):
    """Mass matrix ``M(q)`` (2, 2), kg m^2, of the rod double pendulum (Kane, SymPy).

    Coordinates as in :func:`double_pendulum_trajectory`.
    """
    mass_matrix, _ = _double_pendulum_functions()
    return np.asarray(mass_matrix(angles[0], angles[1], *params.values()), dtype=float)


def double_pendulum_accelerations(params: RodDoublePendulum, angles, rates):
    """``q'' = M^-1 f`` (rad/s^2, shape (2,)) of the rod double pendulum (Kane, SymPy)."""
    mass_matrix, forcing = _double_pendulum_functions()
    M = np.asarray(mass_matrix(angles[0], angles[1], *params.values()), dtype=float)
    f = np.asarray(forcing(angles[0], angles[1], rates[0], rates[1], *params.values()), dtype=float)
    return np.linalg.solve(M, f.ravel())


def double_pendulum_energy(params: RodDoublePendulum, angles, rates):
    """Kinetic, potential and total energy (J) of the rod double pendulum, closed form.

    ``angles``, ``rates``: shape (..., 2) as in :func:`double_pendulum_trajectory`.
    Potential is zero with both centres of mass at height y = 0.
    """
    l1, l2, m1, m2, g = params.values()
    angles = np.asarray(angles, dtype=float)
    rates = np.asarray(rates, dtype=float)
    theta_1, theta_2 = angles[..., 0], angles[..., 1]
    omega_1 = rates[..., 0]
    omega_abs_2 = rates[..., 0] + rates[..., 1]
    # Velocity of the centre of rod 2: l1 w1 e(theta_1 + pi/2) + l2/2 w2abs e(theta_1 + theta_2 + pi/2).
    v2_squared = ((l1 * omega_1) ** 2 + (l2 / 2 * omega_abs_2) ** 2
                  + l1 * l2 * omega_1 * omega_abs_2 * np.cos(theta_2))
    kinetic = (0.5 * (m1 * l1**2 / 3) * omega_1**2
               + 0.5 * m2 * v2_squared + 0.5 * (m2 * l2**2 / 12) * omega_abs_2**2)
    height_1 = l1 / 2 * np.sin(theta_1)
    height_2 = l1 * np.sin(theta_1) + l2 / 2 * np.sin(theta_1 + theta_2)
    potential = g * (m1 * height_1 + m2 * height_2)
    return kinetic, potential, kinetic + potential


def double_pendulum_trajectory(params: RodDoublePendulum, times, angles0, rates0) -> Trajectory:
    """Free motion of a planar double pendulum of two uniform rods (no friction).

    Geometry and conventions
    ------------------------
    Pivot O fixed at the origin; rod 1 from O to the elbow A (``length_1``), rod 2 from A
    to its free tip (``length_2``); both hinges about +z, gravity ``(0, -gravity, 0)``.
    Coordinates ``q = (theta_1, theta_2)``: ``theta_1`` is the absolute angle of rod 1
    from +x (counter-clockwise), ``theta_2`` the angle of rod 2 *relative to rod 1*. In
    kinematrix build it at a design pose with both rods along +x (O = (0, 0, 0),
    A = (length_1, 0, 0), tip = (length_1 + length_2, 0, 0)), pairs
    ``("ground", "rod1")`` at O and ``("rod1", "rod2")`` at A, axis (0, 0, 1), coms at the
    midpoints and inertia ``diag(0, m l^2/12, m l^2/12)``: the pair variables are then
    exactly ``theta_1`` and ``theta_2``.

    Parameters
    ----------
    params : RodDoublePendulum
    times : array_like, shape (N,), s
        Increasing sample times; integration starts at ``times[0]``.
    angles0, rates0 : array_like, shape (2,)
        ``(theta_1, theta_2)`` in rad and their rates in rad/s at ``times[0]``.

    Returns
    -------
    Trajectory
        ``q``, ``q_dot`` of shape (N, 2).

    Source
    ------
    Kane's equations from ``sympy.physics.mechanics.KanesMethod`` (derived in
    :func:`_double_pendulum_functions`); the mass matrix equals the textbook one,
    ``M11 = m1 l1^2/3 + m2 (l1^2 + l2^2/3 + l1 l2 cos theta_2)``,
    ``M12 = m2 (l2^2/3 + l1 l2 cos theta_2 / 2)``, ``M22 = m2 l2^2/3``.
    """
    return _integrate(lambda q, u: double_pendulum_accelerations(params, q, u), times, angles0, rates0)


# ---------------------------------------------------------------------------------------
# (b) Two-panel solar array
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SolarArray:
    """Two-panel solar array (the issue's notation), in the xy-plane, no gravity.

    ``half_length_1`` (L1, m): panel 1 is O-A of length 2 L1, centre of mass at L1 from O.
    ``com_distance_2`` (L2, m): panel 2's centre of mass is L2 from its hinge A.
    ``mass_1``, ``mass_2`` (kg); ``inertia_1``, ``inertia_2`` (J1, J2, kg m^2): central
    moments about +z. Springs (N m/rad, rad): root ``T1 = -stiffness_root (phi1 -
    free_angle_root)``, hinge ``T12 = -stiffness_hinge (phi2 - free_angle_hinge)``.
    Defaults: uniform 1 m panels of 2 kg (J = m L^2 / 3), deploying towards straight.
    """

    half_length_1: float = 0.5
    com_distance_2: float = 0.5
    mass_1: float = 2.0
    mass_2: float = 2.0
    inertia_1: float = 2.0 * 0.5**2 / 3
    inertia_2: float = 2.0 * 0.5**2 / 3
    stiffness_root: float = 0.5
    free_angle_root: float = np.pi / 2
    stiffness_hinge: float = 1.0
    free_angle_hinge: float = np.pi

    def inertial_values(self):
        return (self.half_length_1, self.com_distance_2, self.mass_1, self.mass_2,
                self.inertia_1, self.inertia_2)

    def spring_torques(self, angles):
        """``(T1, T12)`` in N m for ``angles = (phi1, phi2)``."""
        return (-self.stiffness_root * (angles[0] - self.free_angle_root),
                -self.stiffness_hinge * (angles[1] - self.free_angle_hinge))


def _solar_array_symbols():
    import sympy as sp
    import sympy.physics.mechanics as me

    phi_1, phi_2 = me.dynamicsymbols("phi1 phi2")
    names = sp.symbols("L1 L2 m1 m2 J1 J2", positive=True)
    torques = sp.symbols("T1 T12")
    return phi_1, phi_2, names, torques


@functools.lru_cache(maxsize=None)
def solar_array_equations(direction_sign: int = 1):
    """SymPy equations of the two-panel array in the published ``F + F* = 0`` form.

    Geometry
    --------
    Hinge O fixed at the origin, hinge axes +z. Panel 1 points along
    ``e(phi1) = (cos phi1, sin phi1, 0)``; A = 2 L1 e(phi1), its centre G1 = L1 e(phi1).
    Panel 2 points from A to its centre G2 = A + L2 e(psi) with the absolute direction
    ``psi = phi1 + pi + direction_sign * phi2``: ``phi2 = 0`` is folded back onto panel 1
    and ``phi2 = pi`` is straight for either sign. ``direction_sign = +1`` measures phi2
    in the same rotational sense as phi1 (counter-clockwise about +z: then phi2 is the
    kinematrix pair variable of a pair ("panel1", "panel2") about +z at A).

    Loads: ``T1`` is the torque about +z from the base on panel 1; ``T12`` is the torque
    about +z that panel 1 exerts on panel 2 at A (panel 2 pushes back with ``-T12``).

    Derivation: ``sympy.physics.mechanics.LagrangesMethod`` on two rigid bodies with the
    torques above as loads; the Lagrange expressions ``d/dt dL/dq' - dL/dq - Q`` are
    negated to read like the published ones (generalized active plus inertia forces).

    Returns
    -------
    (sympy.ImmutableMatrix, tuple)
        The two equations (expressions equal to zero) in ``phi1(t)``, ``phi2(t)`` and
        their derivatives, and the symbols ``(phi1, phi2, (L1, L2, m1, m2, J1, J2),
        (T1, T12))``.
    """
    import sympy as sp
    import sympy.physics.mechanics as me

    if direction_sign not in (1, -1):
        raise ValueError(f"direction_sign: expected +1 or -1, got {direction_sign!r}")
    phi_1, phi_2, (L1, L2, m1, m2, J1, J2), (T1, T12) = _solar_array_symbols()

    ground = me.ReferenceFrame("N")
    panel_1 = me.ReferenceFrame("P1")
    panel_2 = me.ReferenceFrame("P2")
    panel_1.orient_axis(ground, ground.z, phi_1)
    # psi = phi1 + pi + direction_sign * phi2, built as a rotation relative to panel 1.
    panel_2.orient_axis(panel_1, panel_1.z, sp.pi + direction_sign * phi_2)

    hinge_o = me.Point("O")
    hinge_o.set_vel(ground, 0)
    centre_1 = hinge_o.locatenew("G1", L1 * panel_1.x)
    hinge_a = hinge_o.locatenew("A", 2 * L1 * panel_1.x)
    centre_2 = hinge_a.locatenew("G2", L2 * panel_2.x)
    for point in (centre_1, hinge_a, centre_2):
        point.set_vel(ground, point.pos_from(hinge_o).dt(ground))

    body_1 = me.RigidBody("panel1", centre_1, panel_1, m1, (me.inertia(panel_1, 0, 0, J1), centre_1))
    body_2 = me.RigidBody("panel2", centre_2, panel_2, m2, (me.inertia(panel_2, 0, 0, J2), centre_2))
    lagrangian = me.Lagrangian(ground, body_1, body_2)
    loads = [(panel_1, (T1 - T12) * ground.z), (panel_2, T12 * ground.z)]
    lagrange = me.LagrangesMethod(lagrangian, [phi_1, phi_2], forcelist=loads, frame=ground)
    equations = (-lagrange.form_lagranges_equations()).applyfunc(lambda e: sp.expand(e, trig=True))
    return sp.ImmutableMatrix(equations), (phi_1, phi_2, (L1, L2, m1, m2, J1, J2), (T1, T12))


def published_solar_array_equations():
    """The equations quoted in the issue, as SymPy expressions equal to zero.

    ``-J1 phi1'' - L1^2 (m1 + 4 m2) phi1'' - (J2 + L2^2 m2)(phi1'' + phi2'')
    + 2 L1 L2 m2 ((2 phi1'' + phi2'') cos phi2 - (2 phi1' + phi2') phi2' sin phi2) + T1 = 0``

    ``2 L1 L2 m2 (phi1'^2 sin phi2 + phi1'' cos phi2) - (J2 + L2^2 m2)(phi1'' + phi2'')
    + T12 = 0``

    Same symbols as :func:`solar_array_equations` (shared SymPy symbols).
    """
    import sympy as sp

    phi_1, phi_2, (L1, L2, m1, m2, J1, J2), (T1, T12) = _solar_array_symbols()
    t = phi_1.free_symbols.pop()
    d1, d2 = phi_1.diff(t), phi_2.diff(t)
    dd1, dd2 = phi_1.diff(t, 2), phi_2.diff(t, 2)
    first = (-J1 * dd1 - L1**2 * (m1 + 4 * m2) * dd1 - (J2 + L2**2 * m2) * (dd1 + dd2)
             + 2 * L1 * L2 * m2 * ((2 * dd1 + dd2) * sp.cos(phi_2) - (2 * d1 + d2) * d2 * sp.sin(phi_2))
             + T1)
    second = (2 * L1 * L2 * m2 * (d1**2 * sp.sin(phi_2) + dd1 * sp.cos(phi_2))
              - (J2 + L2**2 * m2) * (dd1 + dd2) + T12)
    return sp.ImmutableMatrix([first, second])


@functools.lru_cache(maxsize=None)
def _solar_array_functions():
    """``M(q)`` and ``f(q, q', T)`` of the (verified, direction_sign = +1) equations."""
    import sympy as sp

    equations, (phi_1, phi_2, parameters, torques) = solar_array_equations(1)
    t = phi_1.free_symbols.pop()
    accelerations = [phi_1.diff(t, 2), phi_2.diff(t, 2)]
    # equations = f - M q'' (the F + F* = 0 form): M = -d(eq)/d(q''), f = eq at q'' = 0.
    mass_matrix = -equations.jacobian(accelerations)
    forcing = equations.subs({a: 0 for a in accelerations})
    plain = _plain_symbols([phi_1.diff(t), phi_2.diff(t), phi_1, phi_2], "u1 u2 q1 q2")
    u1, u2, q1, q2 = plain.values()
    # Sequential substitution, derivatives before the coordinates themselves.
    mass_matrix = mass_matrix.subs(list(plain.items()))
    forcing = forcing.subs(list(plain.items()))
    return (_lambdify((q1, q2, *parameters), mass_matrix),
            _lambdify((q1, q2, u1, u2, *parameters, *torques), forcing))


def solar_array_points(params: SolarArray, angles):
    """Global points (m, shape (..., 3)) of the array for ``angles = (phi1, phi2)`` (..., 2).

    Returns a dict with ``"O"`` (root hinge), ``"A"`` (panel hinge), ``"G1"``, ``"G2"``
    (centres of mass), using the verified convention ``psi = phi1 + phi2 + pi``. For a
    kinematrix model take the design pose phi1 = pi/2, phi2 = 0 (folded, as in the issue):
    O = (0, 0, 0), A = (0, 2 L1, 0), G1 = (0, L1, 0), G2 = (0, 2 L1 - L2, 0); pairs
    ("ground", "panel1") at O and ("panel1", "panel2") at A, axis (0, 0, 1). The pair
    variables are then ``phi1 - pi/2`` and ``phi2``.
    """
    angles = np.asarray(angles, dtype=float)
    phi_1, phi_2 = angles[..., 0], angles[..., 1]
    psi = phi_1 + phi_2 + np.pi
    zeros = np.zeros_like(phi_1)

    def direction(angle):
        return np.stack([np.cos(angle), np.sin(angle), zeros], axis=-1)

    L1, L2 = params.half_length_1, params.com_distance_2
    hinge_a = 2 * L1 * direction(phi_1)
    return {"O": np.zeros(phi_1.shape + (3,)), "A": hinge_a, "G1": L1 * direction(phi_1),
            "G2": hinge_a + L2 * direction(psi)}


def solar_array_accelerations(params: SolarArray, angles, rates, torques=None):
    """``(phi1'', phi2'')`` (rad/s^2) from the verified equations; torques default to the springs."""
    mass_matrix, forcing = _solar_array_functions()
    if torques is None:
        torques = params.spring_torques(angles)
    values = params.inertial_values()
    M = np.asarray(mass_matrix(angles[0], angles[1], *values), dtype=float)
    f = np.asarray(forcing(angles[0], angles[1], rates[0], rates[1], *values, *torques), dtype=float)
    return np.linalg.solve(M, f.ravel())


def solar_array_energy(params: SolarArray, angles, rates):
    """Kinetic, spring-potential and total energy (J), closed form; shapes (..., 2) -> (...).

    ``K = 1/2 (J1 + m1 L1^2 + 4 m2 L1^2) phi1'^2 + 1/2 (J2 + m2 L2^2)(phi1' + phi2')^2
    - 2 m2 L1 L2 phi1' (phi1' + phi2') cos phi2`` (with psi = phi1 + phi2 + pi).
    """
    L1, L2, m1, m2, J1, J2 = params.inertial_values()
    angles = np.asarray(angles, dtype=float)
    rates = np.asarray(rates, dtype=float)
    w1, w_abs_2 = rates[..., 0], rates[..., 0] + rates[..., 1]
    kinetic = (0.5 * (J1 + m1 * L1**2 + 4 * m2 * L1**2) * w1**2 + 0.5 * (J2 + m2 * L2**2) * w_abs_2**2
               - 2 * m2 * L1 * L2 * w1 * w_abs_2 * np.cos(angles[..., 1]))
    potential = (0.5 * params.stiffness_root * (angles[..., 0] - params.free_angle_root) ** 2
                 + 0.5 * params.stiffness_hinge * (angles[..., 1] - params.free_angle_hinge) ** 2)
    return kinetic, potential, kinetic + potential


def solar_array_trajectory(params: SolarArray, times, angles0=(np.pi / 2, 0.0),
                           rates0=(0.0, 0.0)) -> Trajectory:
    """Deployment of the two-panel array on linear torsion springs (no damping, no gravity).

    Geometry and conventions as in :func:`solar_array_equations` with
    ``direction_sign = +1`` (the one under which the published equations hold):
    ``q = (phi1, phi2)``, phi1 the absolute angle of panel 1 from +x, phi2 the angle of
    panel 2 relative to panel 1 (counter-clockwise about +z), 0 folded, pi straight.
    Generalized forces ``T1 = -k1 (phi1 - phi1_free)``, ``T12 = -k12 (phi2 - phi2_free)``
    (:meth:`SolarArray.spring_torques`); ``T12`` is then also the physical torque of
    panel 1 on panel 2 about +z, so in kinematrix it is a pair spring in the hinge pair
    (``stiffness = k12``, ``free_value = phi2_free``) and the root spring has
    ``free_value = phi1_free - pi/2`` when the design pose is phi1 = pi/2.

    Parameters
    ----------
    params : SolarArray
    times : array_like, shape (N,), s
    angles0, rates0 : (2,), rad and rad/s; default the issue's start, folded at rest.

    Returns
    -------
    Trajectory with ``q``, ``q_dot`` of shape (N, 2).

    Source
    ------
    Issue text (published equations), checked against a SymPy Lagrange derivation in
    :func:`solar_array_equations`.
    """
    return _integrate(lambda q, u: solar_array_accelerations(params, q, u), times, angles0, rates0)


# ---------------------------------------------------------------------------------------
# (c) Spring pendulum
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpringPendulum:
    """Point mass (kg) on a massless linear spring (N/m, free length m, damping N s/m)."""

    mass: float = 1.0
    stiffness: float = 40.0
    free_length: float = 1.0
    damping: float = 0.0
    gravity: float = 9.81


def spring_pendulum_accelerations(params: SpringPendulum, state, rates):
    """``(r'', theta'')`` of the spring pendulum, closed form (see the trajectory's docstring).

    ``state = (r, theta)`` (m, rad), ``rates = (r', theta')``; arrays broadcast, shape (..., 2).
    """
    state = np.asarray(state, dtype=float)
    rates = np.asarray(rates, dtype=float)
    r, theta = state[..., 0], state[..., 1]
    r_dot, theta_dot = rates[..., 0], rates[..., 1]
    m, k, l0, c, g = params.mass, params.stiffness, params.free_length, params.damping, params.gravity
    r_ddot = r * theta_dot**2 + g * np.cos(theta) - (k * (r - l0) + c * r_dot) / m
    theta_ddot = -(g * np.sin(theta) + 2.0 * r_dot * theta_dot) / r
    return np.stack([r_ddot, theta_ddot], axis=-1)


def spring_pendulum_energy(params: SpringPendulum, state, rates):
    """Kinetic, potential (spring + gravity, zero at the pivot height) and total energy, J."""
    state = np.asarray(state, dtype=float)
    rates = np.asarray(rates, dtype=float)
    r, theta = state[..., 0], state[..., 1]
    kinetic = 0.5 * params.mass * (rates[..., 0] ** 2 + (r * rates[..., 1]) ** 2)
    potential = (0.5 * params.stiffness * (r - params.free_length) ** 2
                 - params.mass * params.gravity * r * np.cos(theta))
    return kinetic, potential, kinetic + potential


def spring_pendulum_trajectory(params: SpringPendulum, times, state0, rates0) -> Trajectory:
    """Planar spring pendulum: a point mass on a linear spring swinging about a fixed pivot.

    Geometry and conventions
    ------------------------
    Pivot at the origin, motion in the xy-plane, gravity ``(0, -gravity, 0)``. The mass
    is at ``r (sin theta, -cos theta, 0)``: ``r`` the spring length (m), ``theta`` the
    angle from the downward vertical, counter-clockwise about +z (rad). Spring force
    ``-(k (r - l0) + c r')`` along the spring. In kinematrix: a massless "arm" on a
    revolute pair ("ground", "arm") at the pivot, axis (0, 0, 1), and the "bob" (the
    mass, zero inertia) on a prismatic pair ("arm", "bob") along the arm pointing away
    from the pivot, with a pair spring ``stiffness = k``, ``free_value = l0 - r_design``.
    With the design pose hanging at ``r_design`` along -y, the pair variables are
    ``theta`` and ``r - r_design``.

    Equations (Lagrange, ``L = m/2 (r'^2 + r^2 theta'^2) + m g r cos theta
    - k/2 (r - l0)^2``)::

        m r''         = m r theta'^2 + m g cos theta - k (r - l0) - c r'
        m r^2 theta'' = -m g r sin theta - 2 m r r' theta'

    Source: the classical elastic ("swinging spring") pendulum, derived here from the
    Lagrangian above; checked in the tests against SymPy's ``LagrangesMethod``.

    Parameters
    ----------
    params : SpringPendulum
    times : array_like, shape (N,), s
    state0, rates0 : (2,), ``(r, theta)`` in (m, rad) and their rates.

    Returns
    -------
    Trajectory with ``q = (r, theta)`` and ``q_dot`` of shape (N, 2).
    """
    return _integrate(lambda q, u: spring_pendulum_accelerations(params, q, u), times, state0, rates0)


# ---------------------------------------------------------------------------------------
# (d) Watt centrifugal governor at constant spin
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WattGovernor:
    """A symmetric two-ball governor (Porter type: loaded sleeve), spindle along +z.

    ``arm_length`` l (m): hinge O (on the spindle axis) to the ball centre;
    ``ball_mass`` (kg, point mass at the arm end); ``arm_mass`` (kg, uniform thin rod O to
    ball); ``link_attachment`` b (m): distance from O along the arm to the link's pin B;
    ``link_length`` c (m): massless link B-D; ``sleeve_hinge_radius`` e (m): radial
    distance of the link's pin D on the sleeve from the axis; ``sleeve_mass`` (kg, on the
    axis); ``gravity`` (m/s^2, along -z).

    A kinematrix model at a design arm angle theta_0 (spindle angle 0, points from
    :func:`governor_points`): links ``spindle`` (massless or any inertia symmetric about
    z), ``arm_1``, ``arm_2`` (each arm with its ball, :func:`governor_arm_link`),
    ``link_1``, ``link_2`` (massless), ``sleeve`` (``sleeve_mass`` at ``"sleeve"``); pairs
    ("ground", "spindle") revolute at O about (0, 0, 1); ("spindle", "arm_1") at O,
    ("arm_1", "link_1") at B_1, ("link_1", "sleeve") at D_1, all revolute about
    (0, -1, 0); the same for side 2 about (0, 1, 0); ("spindle", "sleeve") prismatic
    along (0, 0, 1) at the sleeve. The arm pair variables are then ``theta - theta_0``.
    The two arm-link-sleeve loops are planar, so kinematrix reports redundant
    constraints; the true mobility is 2 (spin and arm angle).
    """

    arm_length: float = 0.30
    ball_mass: float = 1.5
    arm_mass: float = 0.2
    link_attachment: float = 0.15
    link_length: float = 0.18
    sleeve_hinge_radius: float = 0.03
    sleeve_mass: float = 3.0
    gravity: float = 9.81

    def values(self):
        return (self.arm_length, self.ball_mass, self.arm_mass, self.link_attachment,
                self.link_length, self.sleeve_hinge_radius, self.sleeve_mass, self.gravity)

    def __post_init__(self):
        b, c, e = self.link_attachment, self.link_length, self.sleeve_hinge_radius
        if not c > max(abs(b - e), e):
            raise ValueError("link_length: must exceed |link_attachment - sleeve_hinge_radius| "
                             "and sleeve_hinge_radius so the sleeve hangs below the arms")


def _sleeve_height(params: WattGovernor, arm_angle):
    """Sleeve pin height z_D(theta) (m, negative: below O) and its derivative dz_D/dtheta."""
    b, c, e = params.link_attachment, params.link_length, params.sleeve_hinge_radius
    gap = b * np.sin(arm_angle) - e
    vertical = np.sqrt(c**2 - gap**2)
    height = -b * np.cos(arm_angle) - vertical
    slope = b * np.sin(arm_angle) + gap * b * np.cos(arm_angle) / vertical
    return height, slope


def governor_points(params: WattGovernor, arm_angle, spin_angle=0.0):
    """Global points (m) of the governor at arm angle theta and spindle angle phi (rad).

    Returns a dict of (3,) arrays: ``"O"`` hinge of both arms (origin, on the axis);
    ``"ball_1"``, ``"ball_2"`` ball centres; ``"B_1"``, ``"B_2"`` link pins on the arms;
    ``"D_1"``, ``"D_2"`` link pins on the sleeve; ``"sleeve"`` the sleeve's centre of mass
    (on the axis at the height of D). Arm 1 swings in the spindle's x-z half-plane towards
    +x (hinge axis ``-y`` of the spindle), arm 2 towards -x (hinge axis ``+y``). With
    ``phi = 0`` the spindle axes are the global ones.
    """
    c_phi, s_phi = np.cos(spin_angle), np.sin(spin_angle)
    radial = np.array([c_phi, s_phi, 0.0])
    up = np.array([0.0, 0.0, 1.0])
    height, _ = _sleeve_height(params, arm_angle)
    s, c = np.sin(arm_angle), np.cos(arm_angle)
    l, b, e = params.arm_length, params.link_attachment, params.sleeve_hinge_radius
    points = {"O": np.zeros(3), "sleeve": height * up}
    for name, side in (("1", 1.0), ("2", -1.0)):
        points["ball_" + name] = l * (side * s * radial - c * up)
        points["B_" + name] = b * (side * s * radial - c * up)
        points["D_" + name] = side * e * radial + height * up
    return points


def governor_arm_link(params: WattGovernor, arm_angle, side: int = 1):
    """Mass (kg), centre of mass (3,) m and central inertia (3, 3) kg m^2 of arm + ball.

    Global axes with the spindle at angle 0 and the arms at ``arm_angle``; ``side`` 1 is
    the arm swinging towards +x, 2 towards -x. The arm is a thin uniform rod O-ball
    (central inertia ``m_arm l^2/12 (1 - u u^T)``), the ball a point mass at its end, so
    the combined link is a thin rod too: ``inertia = (sum of m_i d_i^2 + m_arm l^2/12)
    (1 - u u^T)`` with ``d_i`` the distances of the rod centre and the ball from the
    combined centre of mass.
    """
    if side not in (1, 2):
        raise ValueError(f"side: expected 1 or 2, got {side!r}")
    sign = 1.0 if side == 1 else -1.0
    u = np.array([sign * np.sin(arm_angle), 0.0, -np.cos(arm_angle)])
    l, m_arm, m_ball = params.arm_length, params.arm_mass, params.ball_mass
    mass = m_arm + m_ball
    com_distance = (m_arm * l / 2 + m_ball * l) / mass
    moment = (m_arm * l**2 / 12 + m_arm * (l / 2 - com_distance) ** 2
              + m_ball * (l - com_distance) ** 2)
    return mass, com_distance * u, moment * (np.eye(3) - np.outer(u, u))


def governor_moment_of_inertia(params: WattGovernor, arm_angle):
    """Moment of inertia about the spindle axis (kg m^2) of balls and arms: ``2 (m_b + m_a/3) l^2 sin^2``."""
    l = params.arm_length
    return 2.0 * (params.ball_mass + params.arm_mass / 3.0) * l**2 * np.sin(arm_angle) ** 2


def governor_potential_energy(params: WattGovernor, arm_angle):
    """Gravity potential (J, zero at the height of O): balls, arm centres and the sleeve."""
    height, _ = _sleeve_height(params, arm_angle)
    l, g = params.arm_length, params.gravity
    return g * (-2.0 * (params.ball_mass + params.arm_mass / 2.0) * l * np.cos(arm_angle)
                + params.sleeve_mass * height)


def _governor_generalized_force(params: WattGovernor, spin_rate, arm_angle):
    """``1/2 Omega^2 dI/dtheta - dV/dtheta`` (N m): zero at a steady state (virtual work)."""
    l, g = params.arm_length, params.gravity
    s, c = np.sin(arm_angle), np.cos(arm_angle)
    _, slope = _sleeve_height(params, arm_angle)
    centrifugal = spin_rate**2 * 2.0 * (params.ball_mass + params.arm_mass / 3.0) * l**2 * s * c
    weight = g * ((2.0 * params.ball_mass + params.arm_mass) * l * s + params.sleeve_mass * slope)
    return centrifugal - weight


def governor_steady_arm_angle(params: WattGovernor, spin_rate: float) -> float:
    """Steady arm angle theta* (rad, from the downward spindle) at constant spin, by virtual work.

    Geometry (see :class:`WattGovernor` and :func:`governor_points`): the spindle turns
    about +z at the constant rate ``spin_rate`` (rad/s); both arms hang from O on the
    axis at angle theta from -z; link pins ``B = b (sin theta, 0, -cos theta)`` in the
    arm's plane; sleeve pins ``D = (e, 0, z_D)`` with
    ``z_D = -b cos theta - sqrt(c^2 - (b sin theta - e)^2)`` (sleeve below the arms).

    Virtual work in the frame turning with the spindle (links massless, pins frictionless):
    with ``I(theta) = 2 (m_ball + m_arm/3) l^2 sin^2 theta`` the moment of inertia about
    the axis (thin rods; balls as points) and
    ``V(theta) = g (-(2 m_ball + m_arm) l cos theta + m_sleeve z_D)``, the steady state
    satisfies ``1/2 Omega^2 dI/dtheta = dV/dtheta``::

        2 (m_ball + m_arm/3) l^2 Omega^2 sin cos
            = g ((2 m_ball + m_arm) l sin + m_sleeve dz_D/dtheta),
        dz_D/dtheta = b sin + (b sin - e) b cos / sqrt(c^2 - (b sin - e)^2).

    Returns the smallest root in (0, pi/2) (brentq to 1e-14). Source: derived here by hand
    from the principle of virtual work (the classical treatment of the loaded, Porter-type
    governor, here with thin-rod arms and an off-axis sleeve pin); checked in the tests
    against SymPy's Kane equations (:func:`governor_residual`).

    Raises
    ------
    ValueError
        If the arms do not lift at this speed (no root in (0, pi/2)).
    """
    grid = np.linspace(1e-6, np.pi / 2 - 1e-6, 4001)
    # Divide by sin(theta): for e = 0, theta = 0 is always a (trivial) equilibrium.
    reduced = _governor_generalized_force(params, spin_rate, grid) / np.sin(grid)
    changes = np.nonzero(np.sign(reduced[:-1]) != np.sign(reduced[1:]))[0]
    if len(changes) == 0:
        raise ValueError(f"spin_rate: the arms do not lift at {spin_rate!r} rad/s")
    i = changes[0]
    return brentq(lambda th: _governor_generalized_force(params, spin_rate, th) / np.sin(th),
                  grid[i], grid[i + 1], xtol=1e-14, rtol=4 * np.finfo(float).eps)


@functools.lru_cache(maxsize=None)
def _governor_functions():
    """Kane's equations (sympy.physics.mechanics) of the governor in (phi, theta)."""
    import sympy as sp
    import sympy.physics.mechanics as me

    phi, theta = me.dynamicsymbols("phi theta")
    spin, arm_rate = me.dynamicsymbols("Omega omega")
    l, m_ball, m_arm, b, c, e, m_sleeve, g = sp.symbols("l m_ball m_arm b c e m_sleeve g", positive=True)
    drive_torque = sp.Symbol("tau")

    ground = me.ReferenceFrame("N")
    spindle = ground.orientnew("S", "Axis", (phi, ground.z))
    spindle.set_ang_vel(ground, spin * ground.z)
    hinge = me.Point("O")
    hinge.set_vel(ground, 0)

    bodies, loads = [], []
    for name, axis_sign in (("1", -1), ("2", 1)):
        arm = spindle.orientnew("A" + name, "Axis", (theta, axis_sign * spindle.y))
        arm.set_ang_vel(spindle, axis_sign * arm_rate * spindle.y)
        arm_centre = hinge.locatenew("G" + name, -l / 2 * arm.z)
        ball = hinge.locatenew("ball" + name, -l * arm.z)
        arm_centre.v2pt_theory(hinge, ground, arm)
        ball.v2pt_theory(hinge, ground, arm)
        rod_inertia = me.inertia(arm, m_arm * l**2 / 12, m_arm * l**2 / 12, 0)
        bodies += [me.RigidBody("arm" + name, arm_centre, arm, m_arm, (rod_inertia, arm_centre)),
                   me.Particle("ballmass" + name, ball, m_ball)]
        loads += [(arm_centre, -m_arm * g * ground.z), (ball, -m_ball * g * ground.z)]

    sleeve_height = -b * sp.cos(theta) - sp.sqrt(c**2 - (b * sp.sin(theta) - e) ** 2)
    sleeve = hinge.locatenew("sleeve", sleeve_height * ground.z)
    sleeve.set_vel(ground, sleeve_height.diff(me.dynamicsymbols._t).subs(theta.diff(), arm_rate) * ground.z)
    bodies.append(me.Particle("sleevemass", sleeve, m_sleeve))
    loads += [(sleeve, -m_sleeve * g * ground.z), (spindle, drive_torque * ground.z)]

    kane = me.KanesMethod(ground, q_ind=[phi, theta], u_ind=[spin, arm_rate],
                          kd_eqs=[phi.diff() - spin, theta.diff() - arm_rate])
    kane.kanes_equations(bodies, loads)
    plain = _plain_symbols([phi, theta, spin, arm_rate], "q_phi q_theta u_phi u_theta")
    q_phi, q_theta, u_phi, u_theta = plain.values()
    parameters = (l, m_ball, m_arm, b, c, e, m_sleeve, g)
    return (_lambdify((q_phi, q_theta, *parameters), kane.mass_matrix.subs(plain)),
            _lambdify((q_phi, q_theta, u_phi, u_theta, *parameters, drive_torque),
                      kane.forcing.subs(plain)))


def governor_residual(params: WattGovernor, spin_angle, arm_angle, spin_rate, arm_rate,
                      spin_acceleration=0.0, arm_acceleration=0.0, drive_torque=0.0):
    """Residual ``M(q) u' - f(q, u, tau)`` (shape (2,): N m) of the governor's Kane equations.

    Coordinates ``(phi, theta)``: spindle angle about +z and arm angle from -z (both arms
    move together, tied by the sleeve); ``drive_torque`` (N m) acts on the spindle about
    +z. Derived with ``sympy.physics.mechanics.KanesMethod`` (arms as thin rigid rods,
    balls and sleeve as particles, the sleeve height eliminated in closed form; the
    massless links' forces do no virtual work). Zero residual means the motion is
    dynamically consistent; at ``theta' = theta'' = phi'' = 0`` and zero drive torque it
    holds exactly at :func:`governor_steady_arm_angle`. The spindle's own inertia is not
    modelled (it multiplies ``phi''`` only).
    """
    mass_matrix, forcing = _governor_functions()
    M = np.asarray(mass_matrix(spin_angle, arm_angle, *params.values()), dtype=float)
    f = np.asarray(forcing(spin_angle, arm_angle, spin_rate, arm_rate, *params.values(), drive_torque),
                   dtype=float)
    return M @ np.array([spin_acceleration, arm_acceleration], dtype=float) - f.ravel()


# ---------------------------------------------------------------------------------------
# (e) Slider-crank inverse dynamics at constant crank speed
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliderCrank:
    """Offset slider-crank in the xy-plane, gravity along -y.

    ``crank_length`` r, ``rod_length`` l, ``offset`` e (slider line y = e), m.
    Crank: ``crank_mass`` kg, centre at ``crank_com`` m from O along O->A, central moment
    ``crank_inertia`` kg m^2. Rod: ``rod_mass``, centre at ``rod_com`` from A along A->B,
    ``rod_inertia``. Slider: ``slider_mass`` kg (translates only). ``piston_force`` N along
    +x on the slider (constant). ``gravity`` m/s^2.
    """

    crank_length: float = 0.1
    rod_length: float = 0.35
    offset: float = 0.02
    crank_mass: float = 2.0
    crank_com: float = 0.03
    crank_inertia: float = 0.004
    rod_mass: float = 1.2
    rod_com: float = 0.12
    rod_inertia: float = 0.015
    slider_mass: float = 0.8
    gravity: float = 9.81
    piston_force: float = 0.0

    def values(self):
        return (self.crank_length, self.rod_length, self.offset, self.crank_mass, self.crank_com,
                self.crank_inertia, self.rod_mass, self.rod_com, self.rod_inertia, self.slider_mass,
                self.gravity, self.piston_force)


def slider_crank_points(params: SliderCrank, crank_angle):
    """Positions (m, shape (..., 3)) and the rod angle (rad) for crank angle(s) theta.

    Returns a dict: ``"O"`` crank pivot (origin), ``"A"`` crank pin ``r (cos, sin, 0)``,
    ``"B"`` wrist pin ``(r cos + sqrt(l^2 - (e - r sin)^2), e, 0)`` (slider to the right,
    +x branch), ``"G_crank"``, ``"G_rod"`` centres of mass, and ``"rod_angle"`` the
    absolute angle of A->B from +x.
    """
    theta = np.asarray(crank_angle, dtype=float)
    r, l, e = params.crank_length, params.rod_length, params.offset
    zeros = np.zeros_like(theta)
    crank_pin = np.stack([r * np.cos(theta), r * np.sin(theta), zeros], axis=-1)
    wrist = np.stack([r * np.cos(theta) + np.sqrt(l**2 - (e - r * np.sin(theta)) ** 2),
                      np.full_like(theta, e), zeros], axis=-1)
    along_rod = (wrist - crank_pin) / l
    return {
        "O": np.zeros(theta.shape + (3,)),
        "A": crank_pin,
        "B": wrist,
        "G_crank": params.crank_com / r * crank_pin,
        "G_rod": crank_pin + params.rod_com * along_rod,
        "rod_angle": np.arctan2(along_rod[..., 1], along_rod[..., 0]),
    }


def slider_crank_energy(params: SliderCrank, crank_angle, crank_speed):
    """Kinetic and gravity potential energy (J) at constant crank speed, from SymPy's closed form."""
    _, energy = _slider_crank_functions()
    kinetic, potential = energy(np.asarray(crank_angle, dtype=float), crank_speed, *params.values())
    return kinetic, potential


@functools.lru_cache(maxsize=None)
def _slider_crank_functions():
    """Driving torque ``tau(theta, omega)`` by virtual work, and ``K``, ``V`` (SymPy)."""
    import sympy as sp

    theta, omega = sp.symbols("theta omega")
    (r, l, e, m_crank, a_crank, J_crank, m_rod, a_rod, J_rod, m_slider, g,
     piston_force) = symbols = sp.symbols("r l e m_c a_c J_c m_r a_r J_r m_s g F")

    crank_pin = sp.Matrix([r * sp.cos(theta), r * sp.sin(theta)])
    wrist = sp.Matrix([r * sp.cos(theta) + sp.sqrt(l**2 - (e - r * sp.sin(theta)) ** 2), e])
    rod_angle = sp.atan2(e - r * sp.sin(theta), wrist[0] - crank_pin[0])
    crank_centre = a_crank / r * crank_pin
    rod_centre = crank_pin + a_rod / l * (wrist - crank_pin)

    def speed_squared(position):  # |dP/dt|^2 at theta' = omega
        velocity = position.diff(theta) * omega
        return (velocity.T * velocity)[0, 0]

    kinetic = (sp.Rational(1, 2) * (m_crank * speed_squared(crank_centre) + J_crank * omega**2)
               + sp.Rational(1, 2) * (m_rod * speed_squared(rod_centre)
                                      + J_rod * (rod_angle.diff(theta) * omega) ** 2)
               + sp.Rational(1, 2) * m_slider * speed_squared(wrist))
    potential = g * (m_crank * crank_centre[1] + m_rod * rod_centre[1] + m_slider * wrist[1])
    # Power balance at constant omega: tau omega + F x_B' = dK/dt + dV/dt, d/dt = omega d/dtheta.
    torque = kinetic.diff(theta) + potential.diff(theta) - piston_force * wrist[0].diff(theta)
    arguments = (theta, omega, *symbols)
    return (sp.lambdify(arguments, torque, modules="numpy", cse=True),
            sp.lambdify(arguments, (kinetic, potential), modules="numpy", cse=True))


def slider_crank_torque(params: SliderCrank, crank_angle, crank_speed):
    """Crank torque (N m, about +z, from the ground on the crank) for constant crank speed.

    Geometry and conventions
    ------------------------
    Crank O-A turns about +z through O = (0, 0, 0); ``theta`` is its angle from +x
    (counter-clockwise), held at ``theta' = crank_speed`` (rad/s, constant). Rod A-B, wrist
    pin B on the slider, which moves along the line y = e on the +x side (see
    :func:`slider_crank_points`). Gravity ``(0, -gravity, 0)``; ``piston_force`` acts on
    the slider along +x. No friction. In kinematrix: revolute pairs ("ground", "crank") at
    O, ("crank", "rod") at A, ("rod", "slider") at B, all about (0, 0, 1), and a prismatic
    pair ("slider", "ground") or ("ground", "slider") along (1, 0, 0) at B; the crank pair
    variable is ``theta - theta_design``.

    Method: virtual work / power balance. With ``K(theta, omega)`` and ``V(theta)`` the
    kinetic and gravity potential energy, ``tau omega + F x_B' = dK/dt + dV/dt`` and at
    constant speed ``d/dt = omega d/dtheta``, so
    ``tau = dK/dtheta + dV/dtheta - F dx_B/dtheta`` (SymPy differentiates the closed-form
    positions; lambdified once).

    Parameters
    ----------
    params : SliderCrank
    crank_angle : array_like, shape (N,) or scalar, rad
    crank_speed : float, rad/s

    Returns
    -------
    ndarray, same shape as ``crank_angle``, N m.
    """
    torque, _ = _slider_crank_functions()
    theta = np.asarray(crank_angle, dtype=float)
    return np.broadcast_to(torque(theta, crank_speed, *params.values()), theta.shape).astype(float)
