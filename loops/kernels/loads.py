"""Applied loads as generalized forces (METHOD.md, "Dynamics (7)" and "Statics (E1)"), compiled.

Loads come in two forms every formulation shares:

* *pair forces* ``Q_q`` (n,): generalized forces in pair variables (N m or N): pair springs
  ``-k (q - q_free)``, viscous pair dampers ``-c q'``, external pair forces ``f(t)`` and
  bushings (METHOD.md, "The bushing family (B1)-(B3)"); a positive pair force does positive
  work when its variable increases;
* *link wrenches* ``W_i = (n_o, f)`` (L, 6): force ``f`` and its moment about the global
  origin on link i, paired with spatial velocities so that the power is ``W_i . V_i``: point
  forces, free moments ``(M, 0)`` (E9) and point-to-point spring-dampers (coil-overs).

With the transmission matrix ``G`` and the link Jacobians ``V_i^(s)`` the generalized forces
are ``Q_s = sum_i V_i^(s) . W_i + sum_j G_js Q_q,j``. Gravity is not here: the trace form
treats it as a potential, the Kane form as a force at each centre of mass.

Time-dependent values are tables ``(times, values)`` interpolated linearly and held beyond
their ends (a constant is a one-entry table), or Python functions of time, called back
through :func:`loops.loads.call_load` (numba's object mode) with the key the model
compiled them under.
"""

from __future__ import annotations

import numba
import numpy as np

from ._compile import callback_kernel, internal_kernel, kernel
from .arrays import copy_vector
from .points import point_position, point_velocity
from .rotations import cross

# The layer exception of the kernels: numba's object mode calls the Python load functions back
# through loops.loads, the one module above the kernels they import.
from ..loads import call_load_into

__all__ = ["table_value", "load_values", "applied_loads", "bushing_forces", "elastic_potential",
           "application_point", "application_point_rate"]


@internal_kernel(forceinline=True)
def _circle_direction(T, circle, axis, d):
    """``axis = R a`` (the circle's axis, global) and the unit ``d`` (3,) of the circle's plane
    farthest along ``toward``: ``u = g - (g . a) a``, ``d = u / |u|``; returns ``|u|``."""
    along = 0.0
    for r in range(3):
        axis[r] = T[r, 0] * circle[0] + T[r, 1] * circle[1] + T[r, 2] * circle[2]
        along += circle[4 + r] * axis[r]
    norm = 0.0
    for r in range(3):
        d[r] = circle[4 + r] - along * axis[r]
        norm += d[r] * d[r]
    norm = np.sqrt(norm)
    for r in range(3):
        d[r] /= norm
    return norm


@internal_kernel(forceinline=True)
def application_point(T, at, circle, out, scratch):
    """Where a point force acts (3,), m, global: its link's point ``T at`` (eq. 5), or with a
    circle (``circle`` (7,): axis, radius ``rho``, toward ``g``; ``LoadArrays.point_circle``) the
    circle's point farthest along ``g``, ``p = T at + rho d`` (E8). ``scratch``: (2, 3)."""
    point_position(T, at, out)
    radius = circle[3]
    if radius == 0.0:
        return
    _circle_direction(T, circle, scratch[0], scratch[1])
    for r in range(3):
        out[r] += radius * scratch[1, r]


@internal_kernel(forceinline=True)
def application_point_rate(T, at, circle, V, out, rate, scratch):
    """A point force's point of application ``out`` (3,) (:func:`application_point`) and its
    rate ``rate`` (3,) along the link's twist ``V`` (6,) (global, origin-referenced): the
    material point's velocity (eq. 6), or with a circle the rate of the circle's point itself,
    ``p' = v_C + rho (u' - d (d . u')) / |u|`` with ``a' = omega x a`` and
    ``u' = -(g . a') a - (g . a) a'`` (E8). ``scratch``: (4, 3)."""
    point_position(T, at, out)
    point_velocity(out, V, rate)
    radius = circle[3]
    if radius == 0.0:
        return
    axis, d, axis_rate, u_rate = scratch[0], scratch[1], scratch[2], scratch[3]
    norm = _circle_direction(T, circle, axis, d)
    cross(V[:3], axis, axis_rate)
    along, along_rate = 0.0, 0.0
    for r in range(3):
        along += circle[4 + r] * axis[r]
        along_rate += circle[4 + r] * axis_rate[r]
    normal = 0.0
    for r in range(3):
        u_rate[r] = -along_rate * axis[r] - along * axis_rate[r]
        normal += d[r] * u_rate[r]
    for r in range(3):
        out[r] += radius * d[r]
        rate[r] += radius * (u_rate[r] - d[r] * normal) / norm


@internal_kernel
def table_value(times, values, start, stop, t, out):
    """Linear interpolation of the table rows ``start:stop`` at ``t`` (held beyond its ends) into
    ``out`` (k,) (``values`` (T, k))."""
    if t <= times[start] or stop - start == 1:
        copy_vector(values[start], out)
        return
    if t >= times[stop - 1]:
        copy_vector(values[stop - 1], out)
        return
    lo, hi = start, stop - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if times[mid] <= t:
            lo = mid
        else:
            hi = mid
    w = (t - times[lo]) / (times[hi] - times[lo])
    for k in range(out.shape[0]):
        out[k] = (1.0 - w) * values[lo, k] + w * values[hi, k]


@callback_kernel
def _evaluate(keys, ptr, times, values, t, out):
    """Values of tabulated or called-back loads at ``t`` into ``out`` (count, k).

    The called-back values are written into ``out`` by Python (object mode cannot return
    an array to a kernel compiled without reference counting); ``out`` must be an array the
    kernels were given, not a view taken inside them (numba hands object mode the array a
    view was taken from: :func:`loops.loads.call_load_into` checks the shape)."""
    rows, columns = out.shape[0], out.shape[1]
    for i in range(rows):
        if keys[i] >= 0:
            key = keys[i]
            with numba.objmode():
                call_load_into(key, t, out, i, rows, columns)
        else:
            table_value(times, values, ptr[i], ptr[i + 1], t, out[i])


@kernel
def load_values(loads, t, pair_values, point_values, prescribed_values):
    """Pair force values (F, 1) N or N m, point force vectors then free moments (P + M, 3) N and
    N m (:class:`~loops.kernels.state.LoadArrays`) and prescribed motions (k, 3) (value, rate,
    second rate) at time ``t`` (s)."""
    _evaluate(loads.force_keys, loads.force_ptr, loads.force_times, loads.force_values, t, pair_values)
    _evaluate(loads.point_keys, loads.point_ptr, loads.point_times, loads.point_values, t, point_values)
    _evaluate(loads.prescribed_keys, loads.prescribed_ptr, loads.prescribed_times, loads.prescribed_values, t,
              prescribed_values)


@kernel
def applied_loads(loads, q, q_dot, T, V, pair_values, point_values, pair_forces, wrenches, powers, v3):
    """Pair forces ``Q_q`` (n,), link wrenches (L, 6) and ``powers = [dissipated, external]`` (W).

    The spring-dampers' tension ``k (length - free) + c v`` (or ``c v |v|``, a quadratic damper;
    ``v = length'``) pulls their points together; a free moment ``M`` adds ``(M, 0)`` to its link's
    wrench (E9); bushings by :func:`bushing_forces`. ``point_values`` (P + M, 3): the point
    forces, then the moments. ``v3``: (8, 3) scratch.
    """
    pair_forces[:] = 0.0
    wrenches[:, :] = 0.0
    dissipated = 0.0
    external = 0.0
    for i in range(loads.spring_cols.shape[0]):
        col = loads.spring_cols[i]
        damping = loads.spring_damping[i] * q_dot[col]
        pair_forces[col] += -loads.spring_stiffness[i] * (q[col] - loads.spring_free[i]) - damping
        dissipated += damping * q_dot[col]
    for i in range(loads.force_cols.shape[0]):
        col = loads.force_cols[i]
        pair_forces[col] += pair_values[i, 0]
        external += pair_values[i, 0] * q_dot[col]
    position, velocity, moment = v3[0], v3[1], v3[2]
    for i in range(loads.point_links.shape[0]):
        link = loads.point_links[i]
        application_point(T[link], loads.point_at[i], loads.point_circle[i], position, v3[3:5])
        point_velocity(position, V[link], velocity)  # the link's material point there: its power
        force = point_values[i]
        cross(position, force, moment)
        for r in range(3):
            wrenches[link, r] += moment[r]
            wrenches[link, 3 + r] += force[r]
            external += force[r] * velocity[r]
    first = loads.point_links.shape[0]
    for i in range(loads.moment_links.shape[0]):
        link = loads.moment_links[i]
        for r in range(3):
            wrenches[link, r] += point_values[first + i, r]
            external += point_values[first + i, r] * V[link, r]
    a, b, va, vb, on_a = v3[3], v3[4], v3[5], v3[6], v3[7]
    for i in range(loads.strut_link_a.shape[0]):
        la, lb = loads.strut_link_a[i], loads.strut_link_b[i]
        point_position(T[la], loads.strut_at_a[i], a)
        point_position(T[lb], loads.strut_at_b[i], b)
        point_velocity(a, V[la], va)
        point_velocity(b, V[lb], vb)
        length = np.sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2)
        rate = 0.0
        for r in range(3):
            rate += (b[r] - a[r]) / length * (vb[r] - va[r])
        damper = loads.strut_damping[i] * rate * (abs(rate) if loads.strut_quadratic[i] else 1.0)
        tension = loads.strut_stiffness[i] * (length - loads.strut_free[i]) + damper
        for r in range(3):
            on_a[r] = tension * (b[r] - a[r]) / length
        cross(a, on_a, moment)
        for r in range(3):
            wrenches[la, r] += moment[r]
            wrenches[la, 3 + r] += on_a[r]
        cross(b, on_a, moment)
        for r in range(3):
            wrenches[lb, r] -= moment[r]
            wrenches[lb, 3 + r] -= on_a[r]
        dissipated += damper * rate
    dissipated += bushing_forces(loads, q, q_dot, pair_forces, v3)
    powers[0] = dissipated
    powers[1] = external


@internal_kernel(forceinline=True)
def bushing_forces(loads, q, q_dot, pair_forces, v3):
    """Add each bushing's pair forces to ``pair_forces`` (n,); returns their dissipated power (W).

    A bushing's deflection is its six variables ``d`` (translations m, turns rad: METHOD.md,
    "The bushing family (B1)"), its rates ``d'``. Its generalized forces in them are
    ``f = p - K d - C d'`` (preload, stiffness, damping; B2): the forces of the potential
    ``1/2 d . K d - p . d`` and of the damping. ``v3`` is not used (kept for the callers'
    signature).
    """
    dissipated = 0.0
    for b in range(loads.bushing_start.shape[0]):
        c = loads.bushing_start[b]
        K, C, p = loads.bushing_stiffness[b], loads.bushing_damping[b], loads.bushing_preload[b]
        for row in range(6):
            elastic, viscous = p[row], 0.0
            for j in range(6):
                elastic -= K[row, j] * q[c + j]
                viscous -= C[row, j] * q_dot[c + j]
            pair_forces[c + row] += elastic + viscous
            dissipated -= viscous * q_dot[c + row]
    return dissipated


@internal_kernel
def elastic_potential(q, poses, loads, scratch):
    """Potential energy (J) of the pair springs ``1/2 k (q - q_free)^2``, the spring-dampers'
    springs ``1/2 k (length - free_length)^2`` and the bushings ``1/2 d . K d - p . d`` at the
    variables ``q`` (n,) and link poses ``poses`` (L, 4, 4). ``scratch``: (2, 3)."""
    total = 0.0
    for i in range(loads.spring_cols.shape[0]):
        stretch = q[loads.spring_cols[i]] - loads.spring_free[i]
        total += 0.5 * loads.spring_stiffness[i] * stretch * stretch
    a, b = scratch[0], scratch[1]
    for i in range(loads.strut_link_a.shape[0]):
        point_position(poses[loads.strut_link_a[i]], loads.strut_at_a[i], a)
        point_position(poses[loads.strut_link_b[i]], loads.strut_at_b[i], b)
        length = np.sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2)
        total += 0.5 * loads.strut_stiffness[i] * (length - loads.strut_free[i]) ** 2
    for k in range(loads.bushing_start.shape[0]):
        c = loads.bushing_start[k]
        K, p = loads.bushing_stiffness[k], loads.bushing_preload[k]
        for r in range(6):
            s = 0.0
            for j in range(6):
                s += K[r, j] * q[c + j]
            total += q[c + r] * (0.5 * s - p[r])
    return total
