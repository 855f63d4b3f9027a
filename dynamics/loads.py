"""Applied loads as generalized forces (METHOD.md, "Dynamics (7)").

Loads are gathered in two forms that every formulation shares:

* *pair forces* ``Q_q`` (n,): generalized forces in pair variables (N m or N): torsion or
  linear pair springs ``-k (q - q_free)``, viscous pair dampers ``-c q'`` and external pair
  forces ``f(t)``. A positive pair force does positive work when its variable increases:
  it is the torque (force) the first link applies to the second about (along) the axis.
* *link wrenches* ``W_i = (n_o, f)`` (L, 6): force ``f`` and its moment ``n_o`` about the
  global origin acting on link i (world frame), paired with spatial velocities
  ``(omega, v_o)`` so that the power is ``W_i . V_i``. Point forces and point-to-point
  spring-dampers (coil-overs) are wrenches.

With the transmission matrix ``G`` (:mod:`dynamics.partitioning`) and the link Jacobians
``V_i^(s)`` the generalized forces in the coordinates are

    Q_s = sum_i V_i^(s) . W_i + sum_j G_js Q_q,j

(the pair terms "times the transmission ratio dq/du_s", the point forces "through the
point Jacobian"). Gravity is not here: the trace form treats it as a potential
(:mod:`dynamics.energy`), the Kane form as a force at each centre of mass.

Load values are numbers (or 3-vectors), functions of time ``f(t)``, or tables
``(times, values)`` interpolated linearly and held constant beyond their ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError
from mechanism.transforms import cross

__all__ = ["Loads", "AppliedLoads", "load_function"]


def load_function(value, size, where):
    """A function of time returning a float (``size`` 1) or a (3,) array, from a load value.

    Raises :class:`ModelError` (naming ``where``) when a function returns a non-finite value
    or the wrong number of components.
    """
    if callable(value):
        def evaluate(t):
            try:
                out = np.asarray(value(t), dtype=float)
            except (TypeError, ValueError) as exc:
                raise ModelError(where, f"f({t:.6g}) did not return numbers: {exc}") from None
            if size == 1:
                if out.size != 1:
                    raise ModelError(where, f"f({t:.6g}) returned {out.size} values, expected one")
                out = float(out.reshape(()))
                if not np.isfinite(out):
                    raise ModelError(where, f"f({t:.6g}) is not finite")
                return out
            if out.shape != (size,) or not np.all(np.isfinite(out)):
                raise ModelError(where, f"f({t:.6g}) must return {size} finite numbers, got {out!r}")
            return out
        return evaluate
    if isinstance(value, tuple) and len(value) == 2:
        times = np.asarray(value[0], dtype=float)
        values = np.asarray(value[1], dtype=float)
        if size == 1:
            values = values.reshape(len(times))
            return lambda t: float(np.interp(t, times, values))
        values = values.reshape(len(times), size)
        return lambda t: np.array([np.interp(t, times, values[:, k]) for k in range(size)])
    constant = np.asarray(value, dtype=float)
    if size == 1:
        number = float(constant.reshape(()))
        return lambda t: number
    constant = constant.reshape(size)
    return lambda t: constant


@dataclass
class AppliedLoads:
    """Loads at one instant.

    pair_forces : (n,) generalized forces in the pair variables (springs, dampers, f(t))
    link_wrenches : (L, 6) ``(moment about the origin, force)`` on each link, world frame
    dissipated_power : float, W, power absorbed by the dampers (>= 0)
    external_power : float, W, power of the external pair and point forces
    """

    pair_forces: np.ndarray
    link_wrenches: np.ndarray
    dissipated_power: float
    external_power: float

    def generalized(self, G, link_jacobians):
        """``Q_s = sum_i V_i^(s) . W_i + G^T Q_q`` (d,)."""
        return np.einsum("lsk,lk->s", link_jacobians, self.link_wrenches) + G.T @ self.pair_forces


class Loads:
    """Loads of a model compiled against its kinematic system.

    Parameters
    ----------
    system : loops.system.KinematicSystem
    model : mechanism.specs.Model
    """

    def __init__(self, system, model):
        self.system = system
        n_links = len(system.links)
        self.link_count = n_links
        springs = [s for s in model.pair_springs]
        self.spring_columns = np.array([system.variable_index[s.variable] for s in springs], dtype=int)
        self.spring_stiffness = np.array([s.stiffness for s in springs], dtype=float)
        self.spring_free = np.array([s.free_value for s in springs], dtype=float)
        self.spring_damping = np.array([s.damping for s in springs], dtype=float)
        self.pair_force_columns = np.array([system.variable_index[f.variable] for f in model.pair_forces],
                                           dtype=int)
        self.pair_force_functions = [load_function(f.force, 1, f"pair force on {f.variable!r}")
                                     for f in model.pair_forces]
        forces = list(model.point_forces)
        self.point_force_names = [f.name for f in forces]
        self.point_force_links = np.array([system.link_index[f.link] for f in forces], dtype=int)
        self.point_force_points = np.array([f.at for f in forces], dtype=float).reshape(-1, 3)
        self.point_force_functions = [load_function(f.force, 3, f"point force {f.name!r}") for f in forces]
        struts = list(model.spring_dampers)
        self.strut_names = [s.name for s in struts]
        self.strut_count = len(struts)
        self.strut_link_a = np.array([system.link_index[s.link_a] for s in struts], dtype=int)
        self.strut_link_b = np.array([system.link_index[s.link_b] for s in struts], dtype=int)
        self.strut_point_a = np.array([s.at_a for s in struts], dtype=float).reshape(-1, 3)
        self.strut_point_b = np.array([s.at_b for s in struts], dtype=float).reshape(-1, 3)
        self.strut_stiffness = np.array([s.stiffness for s in struts], dtype=float)
        self.strut_free_length = np.array([s.free_length for s in struts], dtype=float)
        self.strut_damping = np.array([s.damping for s in struts], dtype=float)
        self.time_dependent = bool(len(self.pair_force_functions) or len(self.point_force_functions))
        self.none = not (len(springs) or len(self.pair_force_columns) or len(forces) or self.strut_count)
        self._no_loads = AppliedLoads(np.zeros(system.n), np.zeros((n_links, 6)), 0.0, 0.0)
        self._no_loads.pair_forces.flags.writeable = False
        self._no_loads.link_wrenches.flags.writeable = False

    # --------------------------------------------------------------- evaluation
    def evaluate(self, t, config, q_dot, velocities) -> AppliedLoads:
        """Pair forces, link wrenches and powers at time ``t`` (s).

        ``config`` is the closed :class:`loops.system.Configuration`; ``q_dot`` (n,) the pair
        variable rates; ``velocities`` (L, 6) the link spatial velocities.
        """
        if self.none:
            return self._no_loads
        n = self.system.n
        pair_forces = np.zeros(n)
        wrenches = np.zeros((self.link_count, 6))
        dissipated = external = 0.0
        if len(self.spring_columns):
            cols = self.spring_columns
            rates = q_dot[cols]
            damping = self.spring_damping * rates
            np.add.at(pair_forces, cols, -self.spring_stiffness * (config.q[cols] - self.spring_free) - damping)
            dissipated += float(damping @ rates)
        if len(self.pair_force_columns):
            values = np.array([f(t) for f in self.pair_force_functions])
            np.add.at(pair_forces, self.pair_force_columns, values)
            external += float(values @ q_dot[self.pair_force_columns])
        if len(self.point_force_links):
            links = self.point_force_links
            poses = config.link_poses[links]
            positions = np.einsum("lij,lj->li", poses[:, :3, :3], self.point_force_points) + poses[:, :3, 3]
            forces = np.array([f(t) for f in self.point_force_functions])
            np.add.at(wrenches, links, np.concatenate([cross(positions, forces), forces], axis=1))
            point_velocities = cross(velocities[links, :3], positions) + velocities[links, 3:]
            external += float(np.sum(forces * point_velocities))
        if self.strut_count:
            strut = self.strut_state(config.link_poses, velocities)
            a, b, direction, length, rate = strut
            tension = (self.strut_stiffness * (length - self.strut_free_length)
                       + self.strut_damping * rate)
            on_a = tension[:, None] * direction  # pulls a towards b
            np.add.at(wrenches, self.strut_link_a, np.concatenate([cross(a, on_a), on_a], axis=1))
            np.add.at(wrenches, self.strut_link_b, np.concatenate([cross(b, -on_a), -on_a], axis=1))
            dissipated += float(np.sum(self.strut_damping * rate**2))
        return AppliedLoads(pair_forces, wrenches, dissipated, external)

    def strut_state(self, poses, velocities):
        """Attachment points a, b (S, 3), unit direction a->b, length (S,) and its rate (S,)."""
        Ta = poses[self.strut_link_a]
        Tb = poses[self.strut_link_b]
        a = np.einsum("lij,lj->li", Ta[:, :3, :3], self.strut_point_a) + Ta[:, :3, 3]
        b = np.einsum("lij,lj->li", Tb[:, :3, :3], self.strut_point_b) + Tb[:, :3, 3]
        va = cross(velocities[self.strut_link_a, :3], a) + velocities[self.strut_link_a, 3:]
        vb = cross(velocities[self.strut_link_b, :3], b) + velocities[self.strut_link_b, 3:]
        d = b - a
        length = np.linalg.norm(d, axis=1)
        if np.any(length <= 1e-12):
            name = self.strut_names[int(np.argmin(length))]
            raise ModelError(f"spring-damper {name!r}", "its attachment points meet: the force direction "
                             "is undefined")
        direction = d / length[:, None]
        rate = np.sum(direction * (vb - va), axis=1)
        return a, b, direction, length, rate
