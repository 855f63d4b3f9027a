"""Equations of motion ``M(u) u'' = f(u, u', t)`` in the independent coordinates.

:class:`DynamicModel` compiles a frozen model once for dynamics: its kinematic system
(:func:`loops.system.compile_model`, point-driver road loops included), the pseudo-inertias
of its links, its loads, its mobility (``check().dof``, ``.passive``). Its
:meth:`~DynamicModel.evaluate` gives, at a closed state and given rates, the mass matrix
and the generalized forces by either route:

* ``"lagrange"``: the trace form (:mod:`dynamics.lagrange`, Pavlov eq. 7);
* ``"kane"``: partial velocities and Newton-Euler inertia forces (:mod:`dynamics.kane`).

:func:`equations_of_motion` is the public entry: it walks the independent coordinates
from the design pose to the requested values (continuation with the closure solved at
every step, as a sweep does) and returns :class:`EquationsOfMotion`.

Examples
--------
>>> import numpy as np
>>> from mechanism import Mechanism
>>> from dynamics import equations_of_motion
>>> m = Mechanism("pendulum")
>>> m.add_link("rod", mass=2.0, com=(0.5, 0, 0), inertia=np.diag([0, 1 / 6, 1 / 6]))
>>> m.add_pair("O", "revolute", "ground", "rod", at=(0, 0, 0), axis=(0, 0, 1))
>>> m.set_gravity((0, -9.81, 0))
>>> eom = equations_of_motion(m, q={"O": 0.0}, qd={"O": 0.0})
>>> eom.coordinates, round(float(eom.mass_matrix[0, 0]), 12), round(float(eom.forces[0]), 12)
(['O'], 0.666666666667, -9.81)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from loops.mobility import mobility_report
from loops.system import compile_model
from mechanism.errors import ModelError

from .energy import gravity_potential, kinetic_energy, link_pseudo_inertias, pair_spring_potential, \
    spring_damper_potential
from .kane import newton_euler_terms
from .lagrange import trace_terms
from .loads import Loads
from .partitioning import (
    ClosureFailed,
    Partition,
    best_independent,
    candidate_columns,
    closed_state,
    kinematics,
    null_motions,
    reference_state,
    walk,
)

__all__ = ["DynamicModel", "Dynamics", "EquationsOfMotion", "equations_of_motion", "dynamic_model",
           "METHODS"]

METHODS = ("lagrange", "kane")
#: Closure tolerance (dimensionless) for assembling the start of an analysis.
ASSEMBLY_TOLERANCE = 1e-13


def snapshot_of(mechanism, where="mechanism"):
    """The frozen model of a :class:`~mechanism.Mechanism` (or a Model given as is)."""
    if hasattr(mechanism, "snapshot"):
        return mechanism.snapshot()
    if hasattr(mechanism, "links") and hasattr(mechanism, "pairs") and hasattr(mechanism, "reference"):
        return mechanism
    raise ModelError(where, f"expected a Mechanism, got {type(mechanism).__name__}")


@dataclass
class Dynamics:
    """Equations at one state, in all driven coordinates (independent, then prescribed).

    kin : dynamics.partitioning.Kinematics
    mass_matrix : (d, d)
    bias : (d,) velocity-product terms (with the prescribed accelerations)
    generalized_forces : (d,) applied (gravity, springs, dampers, pair and point forces)
    applied : dynamics.loads.AppliedLoads
    """

    kin: object
    mass_matrix: np.ndarray
    bias: np.ndarray
    generalized_forces: np.ndarray
    applied: object

    @property
    def forces(self):
        """``f = Q - h`` (d,): right-hand side of ``M d'' = f`` at zero prescribed reactions."""
        return self.generalized_forces - self.bias

    def accelerations(self):
        """Independent accelerations ``u''`` (m,) with the prescribed coordinates enforced."""
        m = self.kin.state.partition.m
        if m == 0:
            return np.zeros(0)
        M = self.mass_matrix[:m, :m]
        f = self.forces[:m]
        # M is symmetric and positive definite unless a coordinate carries no inertia; a
        # non-positive pivot (m = 1) or a failed LU says so (Cholesky would cost twice as much).
        if m == 1:
            if not M[0, 0] > 0.0:
                raise ClosureFailed("the mass matrix is singular: some coordinate carries no inertia")
            return f / M[0, 0]
        try:
            return np.linalg.solve(M, f)
        except np.linalg.LinAlgError:
            raise ClosureFailed("the mass matrix is singular: some coordinate carries no inertia") from None

    def efforts(self, accelerations):
        """Generalized forces (d,) the drivers must add for the independent ``accelerations``.

        ``M[:, :m] u'' + h - Q``: zero on the independent rows when ``u''`` solves the
        equations; on the prescribed rows, the force (torque) that keeps the prescribed motion.
        """
        m = self.kin.state.partition.m
        return self.mass_matrix[:, :m] @ np.asarray(accelerations, dtype=float) - self.forces


class DynamicModel:
    """A frozen model compiled for dynamics (see the module docstring).

    Attributes
    ----------
    model : mechanism.specs.Model
    system : loops.system.KinematicSystem (with point-driver road loops)
    dof, passive : int, from :func:`loops.mobility.mobility_report`
    J : (L, 4, 4) pseudo-inertias; masses (L,), coms (L, 3), inertias (L, 3, 3)
    loads : dynamics.loads.Loads
    gravity : (3,) m/s^2
    """

    def __init__(self, model):
        self.model = model
        self.system = compile_model(model)
        report = mobility_report(model)
        self.dof, self.passive = report.dof, report.passive
        links = self.system.links
        self.J = link_pseudo_inertias(links)
        self.masses = np.array([link.mass for link in links], dtype=float)
        self.coms = np.array([link.com for link in links], dtype=float).reshape(-1, 3)
        self.inertias = np.array([link.inertia for link in links], dtype=float).reshape(-1, 3, 3)
        massive = np.flatnonzero(np.abs(self.J).reshape(len(links), -1).max(axis=1) > 0)
        # Selecting the links with mass pays only when many are massless (road loops' virtual links).
        self.massive = massive if 2 * len(massive) < len(links) else None
        self.loads = Loads(self.system, model)
        self.gravity = np.asarray(model.gravity, dtype=float)

    # ----------------------------------------------------------- coordinates
    def coordinates_of(self, values, key, kind, role):
        """Names and columns of a dict with one entry per degree of freedom (``check().dof``).

        ``key`` locates errors about the whole dict (``"q"``, ``"drivers"``), ``role`` those about
        one entry (``"q 'A'"``, ``"driver 'A'"``); ``kind`` names the entries in messages.
        """
        if not isinstance(values, dict) or not values:
            raise ModelError(key, f"give a dict of the {self.dof} {kind}(s) -> value")
        names = list(values)
        if len(names) != self.dof:
            raise ModelError(key, f"expected {self.dof} {kind}(s) (check().dof = {self.dof}), "
                             f"got {len(names)}: {', '.join(map(str, names))}")
        return names, self.columns(names, role)

    def columns(self, names, where):
        """Columns of coordinate names, validated (public, additive, distinct); errors at
        ``"<where> 'X'"``."""
        return self.system.driver_columns(names, role=where)

    def automatic_coordinates(self, count, exclude=()):
        """``count`` well-conditioned independent columns at the reference assembly.

        The motions that keep the loops closed (null space of ``B``) with the ``exclude``
        columns (prescribed coordinates) at rest; the variables that move most
        independently along them (:func:`dynamics.partitioning.best_independent`).
        """
        system = self.system
        exclude = np.asarray(exclude, dtype=int)
        state = reference_state(Partition(system, [], [], self.passive), ASSEMBLY_TOLERANCE)
        motions = null_motions(system, state.B)
        if len(exclude):
            motions = motions @ scipy.linalg.null_space(motions[exclude])
        candidates = candidate_columns(system, exclude)
        # Prefer public variables: road-loop slides are internal.
        public = candidates[system.public[candidates]]
        return best_independent(system, motions, public if len(public) >= count else candidates, count)

    def partition(self, independent, prescribed=()):
        """:class:`Partition` with its rows chosen at the reference assembly."""
        return Partition(self.system, independent, prescribed, self.passive)

    def start(self, partition, values, where="q0"):
        """Closed state with the driven columns at ``values``, walked from the design pose.

        Raises :class:`ModelError` (at ``where``) when the coordinates do not determine the
        motion there or the values cannot be reached.
        """
        system = self.system
        state = reference_state(partition, ASSEMBLY_TOLERANCE)
        partition.choose_rows(state.B)
        state = closed_state(partition, state.q, state.config)
        self._check_independent(partition, state, where)
        try:
            state = walk(state, values, ASSEMBLY_TOLERANCE, what="coordinates " + ", ".join(
                system.variable_names[c] for c in partition.driven))
        except ClosureFailed as exc:
            raise ModelError(where, f"cannot reach the requested values from the design pose: {exc}") from None
        return closed_state(partition, state.q, state.config)

    def _check_independent(self, partition, state, where):
        system = self.system
        scaled = state.B * system.row_scale[:, None] * system.column_scale[None, :]
        s_all = np.linalg.svd(scaled, compute_uv=False) if scaled.size else np.zeros(0)
        free_scaled = scaled[:, partition.free]
        s_free = np.linalg.svd(free_scaled, compute_uv=False) if free_scaled.size else np.zeros(0)
        tol = 1e-9 * max(s_all[0] if len(s_all) else 0.0, 1.0)
        rank_all = int(np.sum(s_all > tol))
        rank_free = int(np.sum(s_free > tol))
        if rank_free < rank_all:
            names = [system.variable_names[c] for c in partition.driven]
            motions = null_motions(system, state.B)
            hint = best_independent(system, motions, candidate_columns(system), len(partition.driven))
            raise ModelError(where, f"the coordinates {', '.join(names)} are not independent at the design "
                             f"pose (they leave {rank_all - rank_free} freedom(s) undetermined); for example "
                             f"{', '.join(system.variable_names[c] for c in hint)} are")

    # ------------------------------------------------------------- dynamics
    def evaluate(self, state, rates, t=0.0, prescribed_accelerations=(), method="lagrange") -> Dynamics:
        """Mass matrix and generalized forces at a closed state (all driven coordinates)."""
        kin = kinematics(state, rates, prescribed_accelerations)
        if method == "lagrange":
            M, h, Q_gravity = trace_terms(kin, self.J, self.gravity, self.massive)
        else:
            M, h, Q_gravity = newton_euler_terms(kin, self.masses, self.coms, self.inertias, self.gravity,
                                                 self.massive)
        applied = self.loads.evaluate(t, state.config, kin.q_dot, kin.velocities)
        Q = Q_gravity if self.loads.none else applied.generalized(state.G, kin.link_jacobians) + Q_gravity
        return Dynamics(kin, M, h, Q, applied)

    def energies(self, poses, velocities, q):
        """Kinetic and potential energy (J), stacked over leading axes."""
        kinetic = kinetic_energy(poses, velocities, self.J)
        potential = (gravity_potential(poses, self.J, self.gravity) + pair_spring_potential(self.loads, q)
                     + spring_damper_potential(self.loads, poses))
        return kinetic, potential


_CACHE: dict = {}


def dynamic_model(model) -> DynamicModel:
    """Compiled :class:`DynamicModel` of a frozen model, cached per snapshot."""
    key = id(model)
    hit = _CACHE.get(key)
    if hit is not None and hit.model is model:
        return hit
    if len(_CACHE) > 32:
        _CACHE.clear()
    compiled = DynamicModel(model)
    _CACHE[key] = compiled
    return compiled


def finite_values(values, names, where):
    """Values of ``names`` from a dict (missing: 0), checked finite; unknown keys rejected."""
    values = {} if values is None else values
    if not isinstance(values, dict):
        raise ModelError(where, f"expected a dict of coordinate name -> value, got {type(values).__name__}")
    unknown = [k for k in values if k not in names]
    if unknown:
        raise ModelError(f"{where} {unknown[0]!r}", f"not one of the coordinates ({', '.join(names) or 'none'})")
    out = []
    for name in names:
        value = values.get(name, 0.0)
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"{where} {name!r}", f"expected a number, got {value!r}") from None
        if not math.isfinite(number):
            raise ModelError(f"{where} {name!r}", f"non-finite value {value!r}")
        out.append(number)
    return np.array(out, dtype=float)


@dataclass
class EquationsOfMotion:
    """``M(u) u'' = f(u, u', t)`` at one state, in the independent coordinates.

    Attributes
    ----------
    coordinates : list of str, the independent coordinates (order of the rows)
    mass_matrix : (m, m) generalized mass matrix (kg m^2 for angles, kg for slides)
    forces : (m,) ``f = Q - h``: generalized applied forces minus velocity-product terms
    method : "lagrange" or "kane"
    t : float, s
    values, rates : (m,) the coordinates and their rates
    generalized_forces : (m,) ``Q`` (gravity, springs, dampers, pair and point forces)
    velocity_terms : (m,) ``h``
    transmission : (n, m) ``dq/du`` for every pair variable (``variable_names`` order)
    variable_names : list of str, every variable of the compiled system
    """

    coordinates: list
    mass_matrix: np.ndarray
    forces: np.ndarray
    method: str
    t: float
    values: np.ndarray
    rates: np.ndarray
    generalized_forces: np.ndarray
    velocity_terms: np.ndarray
    transmission: np.ndarray
    variable_names: list
    q_all: np.ndarray

    def accelerations(self):
        """``u'' = M^-1 f`` (m,)."""
        return np.linalg.solve(self.mass_matrix, self.forces)

    def q(self, name):
        """Value of any pair variable at this assembly (rad or m)."""
        return float(self.q_all[self.variable_names.index(name)])


def equations_of_motion(mechanism, q, qd=None, method="lagrange", t=0.0) -> EquationsOfMotion:
    """Mass matrix and forces of ``M(u) u'' = f(u, u', t)`` at one state.

    Parameters
    ----------
    mechanism : mechanism.Mechanism (or its frozen snapshot)
    q : dict name -> value
        The independent coordinates (as many as ``check().dof``; rad or m from the design
        pose). The state is the assembly reached by walking them from the design pose.
    qd : dict name -> rate, optional
        Their rates (rad/s, m/s); missing ones are zero.
    method : {"lagrange", "kane"}
        Trace form (Pavlov eq. 7) or Kane's form; they agree to round-off.
    t : float
        Time (s) at which time-dependent loads are evaluated.

    Returns
    -------
    EquationsOfMotion

    Raises
    ------
    ModelError
        Wrong keys or count, non-finite values, unknown method, coordinates that do not
        determine the motion, or values out of reach.
    """
    if method not in METHODS:
        raise ModelError("method", f"unknown method {method!r} (expected 'lagrange' or 'kane')")
    try:
        t = float(t)
    except (TypeError, ValueError):
        raise ModelError("t", f"expected a number, got {t!r}") from None
    if not math.isfinite(t):
        raise ModelError("t", "non-finite time")
    model = snapshot_of(mechanism)
    dyn = dynamic_model(model)
    names, cols = dyn.coordinates_of(q, "q", "independent coordinate", "q")
    values = finite_values(q, names, "q")
    rates = finite_values(qd, names, "qd")
    partition = dyn.partition(cols)
    state = dyn.start(partition, values, where="q")
    try:
        result = dyn.evaluate(state, rates, t, method=method)
    except ClosureFailed as exc:
        raise ModelError("q", str(exc)) from None
    return EquationsOfMotion(
        coordinates=names, mass_matrix=result.mass_matrix, forces=result.forces, method=method, t=t,
        values=values, rates=rates, generalized_forces=result.generalized_forces, velocity_terms=result.bias,
        transmission=state.G.copy(), variable_names=list(dyn.system.variable_names), q_all=state.q.copy())
