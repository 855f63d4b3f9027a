"""Equations of motion ``M(u) u'' = f(u, u', t)`` in the independent coordinates.

:class:`DynamicModel` compiles a frozen model once for dynamics: its kinematic system
(:func:`loops.compiled.compile_model`, point-driver road loops included), the mass
properties of its links, its loads (:mod:`loops.loads`) and its mobility
(``check().dof``, ``.passive``). :func:`equations_of_motion` is the public entry: it walks
the independent coordinates from the design pose to the requested values (the one
continuation of :mod:`loops.continuation`, as a sweep does) and evaluates the mass matrix
and forces there by the trace form (:mod:`dynamics.kernels.trace`, Pavlov eq. 7) or Kane's
form (:mod:`dynamics.kernels.kane`).

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

from loops.compiled import compile_model
from loops.configuration import evaluate
from loops.continuation import Walk, WalkStopped
from loops.linear import closure_matrix, null_space
from loops.loads import compile_loads, compile_weights
from loops.mobility import mobility_report
from loops.results import SweepResult
from mechanism.errors import ModelError, SweepStopped

from .motion import Inertia, state_from_walk
from .pseudo_inertia import pseudo_inertia

__all__ = ["DynamicModel", "EquationsOfMotion", "equations_of_motion", "dynamic_model", "METHODS",
           "ASSEMBLY_TOLERANCE", "snapshot_of", "finite_values", "evaluate_state", "method_code", "no_inertia_message"]

METHODS = ("lagrange", "kane")
#: Closure tolerance (dimensionless) of the states the dynamics starts from and steps through.
ASSEMBLY_TOLERANCE = 1e-12


def snapshot_of(mechanism, where="mechanism"):
    """The frozen model of a :class:`~mechanism.Mechanism` (or a Model given as is)."""
    if hasattr(mechanism, "snapshot"):
        return mechanism.snapshot()
    if hasattr(mechanism, "links") and hasattr(mechanism, "pairs") and hasattr(mechanism, "reference"):
        return mechanism
    raise ModelError(where, f"expected a Mechanism, got {type(mechanism).__name__}")


def method_code(method, where="method"):
    """0 for "lagrange", 1 for "kane"; a located ModelError otherwise."""
    try:
        return METHODS.index(method)
    except (ValueError, TypeError):
        raise ModelError(where, f"unknown method {str(method)[:40]!r} (expected 'lagrange' or 'kane')") from None


def _best_independent(system, motions, candidates, count) -> np.ndarray:
    """The ``count`` candidate columns that move most independently along ``motions`` (n, k):
    a pivoted QR of their scaled rows (an approximately maximal volume)."""
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    scaled = motions / system.column_scale[:, None]
    _, _, pivots = scipy.linalg.qr(scaled[candidates].T, mode="economic", pivoting=True)
    return np.sort(candidates[pivots[:count]]).astype(np.int64)


class DynamicModel:
    """A frozen model compiled for dynamics (see the module docstring).

    Attributes
    ----------
    model : mechanism.specs.Model
    system : loops.compiled.CompiledSystem (with point-driver road loops)
    dof, passive : int, from :func:`loops.mobility.mobility_report`
    J : (L, 4, 4) pseudo-inertias; masses (L,), coms (L, 3), inertias (L, 3, 3)
    gravity : (3,) m/s^2
    loads : loops.loads.LoadArrays (no prescribed motions); weights : loops.loads.Weights
    """

    def __init__(self, model):
        self.model = model
        self.system = compile_model(model)
        report = mobility_report(model)
        self.dof, self.passive = report.dof, report.passive
        links = self.system.links
        self.masses = np.array([link.mass for link in links], dtype=float)
        self.coms = np.array([link.com for link in links], dtype=float).reshape(-1, 3)
        self.inertias = np.array([link.inertia for link in links], dtype=float).reshape(-1, 3, 3)
        self.J = pseudo_inertia(self.masses, self.coms, self.inertias) if len(links) else np.zeros((0, 4, 4))
        self.gravity = np.asarray(model.gravity, dtype=float)
        self.massive = np.flatnonzero(np.abs(self.J).reshape(len(links), -1).max(axis=1) > 0).astype(np.int64)
        self.loads = compile_loads(self.system, model, self)
        self.weights = compile_weights(self.system, model)

    def inertia(self, method="lagrange") -> Inertia:
        """Mass properties for the kernels with the formulation ``method``."""
        return Inertia(self.J, self.masses, self.coms, self.inertias, self.gravity, self.massive,
                       method_code(method))

    def loads_with(self, prescribed):
        """The loads with prescribed motions ``[(column, f or number, name), ...]``."""
        return compile_loads(self.system, self.model, self, prescribed) if prescribed else self.loads

    # ----------------------------------------------------------- coordinates
    def coordinates_of(self, values, key, kind, role):
        """Names and columns of a dict with one entry per degree of freedom (``check().dof``)."""
        if not isinstance(values, dict) or not values:
            raise ModelError(key, f"give a dict of the {self.dof} {kind}(s) -> value")
        names = list(values)
        if len(names) != self.dof:
            raise ModelError(key, f"expected {self.dof} {kind}(s) (check().dof = {self.dof}), "
                             f"got {len(names)}: {', '.join(map(str, names))}")
        return names, self.columns(names, role)

    def columns(self, names, where):
        """Columns of coordinate names, validated (public, additive, distinct)."""
        return self.system.driver_columns(names, role=where)

    def free_motions(self, config):
        """Basis (n, k) of the motions keeping every loop closed at ``config`` (physical units)."""
        return null_space(closure_matrix(self.system, config)) * self.system.column_scale[:, None]

    def automatic_coordinates(self, count, exclude=()):
        """``count`` well-conditioned independent columns at the reference assembly, the
        ``exclude`` columns (prescribed) at rest; public variables preferred."""
        system = self.system
        exclude = np.asarray(exclude, dtype=np.int64)
        motions = self.free_motions(evaluate(system, system.reference_q()))
        if len(exclude):
            motions = motions @ scipy.linalg.null_space(motions[exclude] / system.column_scale[exclude, None])
        mask = np.array(system.additive)
        mask[exclude] = False
        candidates = np.flatnonzero(mask)
        public = candidates[system.public[candidates]]
        return _best_independent(system, motions, public if len(public) >= count else candidates, count)

    def switch_candidates(self, motions, exclude, count):
        """The best ``count`` independent columns for the motions ``motions`` (n, m)."""
        mask = np.array(self.system.additive)
        mask[np.asarray(exclude, dtype=np.int64)] = False
        return _best_independent(self.system, motions, np.flatnonzero(mask), count)

    # ----------------------------------------------------------------- starts
    def start(self, driven, values, where="q0", tolerance=ASSEMBLY_TOLERANCE) -> Walk:
        """A :class:`loops.continuation.Walk` with the ``driven`` columns at ``values``, walked from
        the design pose. Raises ModelError (at ``where``) when the coordinates do not determine the
        motion at the design pose, and SweepStopped when the design pose does not close or the
        values cannot be reached (``.partial``: the position where the walk stopped)."""
        system = self.system
        names = [system.variable_names[c] for c in driven]
        try:
            walk = Walk(system, driven, system.reference_q(), tolerance=tolerance)
        except WalkStopped as stop:
            if stop.kind == "start" and stop.conditioning == 0.0:
                hint = self.automatic_coordinates(len(driven))
                raise ModelError(where, f"the coordinates {', '.join(names)} are not independent at the design "
                                 f"pose (they leave some freedom undetermined); for example "
                                 f"{', '.join(system.variable_names[c] for c in hint)} are") from None
            reason = (f"the reference assembly does not close (defect {stop.error:.3g}); call Mechanism.assemble() "
                      "first")
            raise SweepStopped(reason, SweepResult.empty(system, names, reason), residual=stop.error) from None
        try:
            walk.to(np.asarray(values, dtype=float))
        except WalkStopped as stop:
            reached = system.describe(driven, walk.driven_values)
            wanted = system.describe(driven, np.asarray(values, dtype=float))
            why = "a dead point" if stop.kind == "dead point" else "the loops would not close"
            reason = f"{where}: cannot reach {wanted} from the design pose: {why} at {reached}"
            raise SweepStopped(reason, walk.result(names, reason), driver_values=dict(zip(names, values)),
                               residual=stop.error, iterations=stop.iterations) from None
        return walk

    def energies(self, poses, velocities, q):
        """Kinetic and potential energy (J), each (N,), at N samples."""
        from .kernels.energy import energies  # noqa: PLC0415

        count = len(poses)
        kinetic, potential = np.zeros(count), np.zeros(count)
        if count:
            energies(np.ascontiguousarray(poses), np.ascontiguousarray(velocities), np.ascontiguousarray(q), self.J,
                     self.gravity, self.massive, self.loads, kinetic, potential)
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
    compiled_model = DynamicModel(model)
    _CACHE[key] = compiled_model
    return compiled_model


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
            raise ModelError(f"{where} {name!r}", f"expected a number, got {str(value)[:40]!r}") from None
        if not math.isfinite(number):
            raise ModelError(f"{where} {name!r}", f"non-finite value {value!r}")
        out.append(number)
    return np.array(out, dtype=float)


def evaluate_state(dyn, state, block, inertia, loads, rates, t, m, prescribed_accelerations=()):
    """Run :func:`dynamics.kernels.motion.dynamics_at` at a closed ``state`` (loads at ``t``);
    returns its status."""
    from loops.kernels.loads import load_values  # noqa: PLC0415
    from .kernels.motion import dynamics_at  # noqa: PLC0415

    system = dyn.system
    kin = state.kin
    load_values(loads, float(t), kin.pair_values, kin.point_values, kin.prescribed)
    accelerations = np.asarray(prescribed_accelerations, dtype=float).reshape(-1)
    return dynamics_at(system.topology, system.geometry, block, inertia, loads, state.work, state.factor, state.G,
                       np.asarray(rates, dtype=float), accelerations, int(m), kin,
                       np.zeros((0, 0, 0)))


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
        determine the motion, values out of reach, a coordinate that carries no inertia.
    """
    method_code(method)
    try:
        t = float(t)
    except (TypeError, ValueError):
        raise ModelError("t", f"expected a number, got {str(t)[:40]!r}") from None
    if not math.isfinite(t):
        raise ModelError("t", "non-finite time")
    model = snapshot_of(mechanism)
    dyn = dynamic_model(model)
    names, cols = dyn.coordinates_of(q, "q", "independent coordinate", "q")
    values = finite_values(q, names, "q")
    rates = finite_values(qd, names, "qd")
    walk = dyn.start(cols, values, where="q")
    m = len(cols)
    state = state_from_walk(walk, dyn.loads, m)
    status = evaluate_state(dyn, state, walk.block, dyn.inertia(method), dyn.loads, rates, t, m)
    kin = state.kin
    if status != 0:
        raise ModelError("q", no_inertia_message(dyn, cols, kin.M) if status == 3
                         else "the closure is singular at this state (a change point)")
    M, h, Q = kin.M.copy(), kin.h.copy(), kin.Q.copy()
    return EquationsOfMotion(
        coordinates=names, mass_matrix=M, forces=Q - h, method=method, t=t, values=values, rates=rates,
        generalized_forces=Q, velocity_terms=h, transmission=state.G.copy(), variable_names=list(dyn.system.variable_names),
        q_all=state.work.q.copy())


def no_inertia_message(dyn, cols, M):
    """One line naming the coordinate that carries no inertia (the smallest diagonal of ``M``)."""
    m = len(cols)
    diagonal = np.abs(np.diag(M)[:m]) if m else np.zeros(0)
    worst = dyn.system.variable_names[cols[int(np.argmin(diagonal))]] if m else "?"
    return (f"the mass matrix is singular: coordinate {worst!r} carries no inertia (give the links it moves a "
            "mass or inertia, or prescribe it)")


