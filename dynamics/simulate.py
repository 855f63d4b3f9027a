"""Forward dynamics: integrate ``M(u) u'' = f(u, u', t)`` with the loops closed at every step.

The state integrated is ``y = (u, z, u', W_d, W_e, W_p)``: the independent coordinates, the
dependent pair variables ``z`` (spherical pairs as rotation vectors), the independent
rates, and three work integrals for the energy bookkeeping (energy dissipated by the
dampers, work of the external pair and point forces, work of the prescribed drivers).

At a stage of the integrator the mechanism is evaluated at the ``q`` the integrator
carries: the link matrices (eq. 5), the linearized closure ``B`` (eq. 3) and its
dependent block's factorization give the transmission matrix ``G`` and ``z' = G (u', p')``
(eq. 4), the velocity-product accelerations (:mod:`dynamics.partitioning`), and the mass
matrix and forces by the trace form (:mod:`dynamics.lagrange`, eq. 7) or the Kane form
(:mod:`dynamics.kane`). Since ``B q' = 0`` keeps a closed configuration closed, ``q``
leaves the closure only by the integrator's own truncation error; after every accepted
step it is projected back (Newton on eq. 3 with the driven values held), so every state
the integrator starts a step from, and every stored sample, closes to ``1e-3 rtol``. This
costs one evaluation of the mechanism per stage, where re-closing every stage by Newton
cost two or more.

Near a singular position of the partition (the dependent block's conditioning below
:data:`STAGE_CLOSING_CONDITIONING`) the linearization off the closure is unreliable: the
small singular value amplifies the drift, and a stage's ``q`` may lie nearer a crossing
branch. There every stage is closed first, by Newton from a second-order prediction along
the branch from the last accepted state (:func:`dynamics.partitioning.close`); a step whose
stages come near such a position is redone that way. Solvers that keep their own history
(LSODA) close every stage.

Integrators are scipy's ``solve_ivp`` methods (``DOP853`` by default, an explicit
8th-order Runge-Kutta; ``Radau`` or ``BDF`` for stiff springs), stepped one accepted step
at a time as ``solve_ivp`` does, so that after each step

* the projected state replaces the integrator's (:func:`_take_state`),
* outputs at ``t_eval`` are taken from the step's dense output (each projected),
* the partition is checked: when a dependent variable moves more than
  :data:`~dynamics.partitioning.SWITCH_RATIO` times faster than the independent
  coordinates (near a dead point of those coordinates), the integration restarts from the
  same state in the best-conditioned coordinates (a pivoted QR of the transmission
  matrix). The run passes singular positions of the mechanism itself (a parallelogram
  folding flat) on its branch, since the prediction and Newton hold the driven values;
* a closure failure or a dead point of a prescribed motion stops the run with
  :class:`~mechanism.errors.SimulationStopped`, its ``.partial`` the trajectory so far.

Prescribed (rheonomic) coordinates: ``prescribed={"spin": f}`` with ``f(t) -> (value,
rate, second rate)`` moves a pair variable as given (a spindle at constant speed); the
force it takes is the driver's effort, and its work is booked in ``driver_work``.

Examples
--------
>>> import numpy as np
>>> from mechanism import Mechanism
>>> from dynamics import simulate
>>> m = Mechanism("pendulum")
>>> m.add_link("rod", mass=1.0, com=(0.5, 0, 0), inertia=np.diag([0, 1, 1]) / 12)
>>> m.add_pair("O", "revolute", "ground", "rod", at=(0, 0, 0), axis=(0, 0, 1))
>>> m.set_gravity((0, -9.81, 0))
>>> sim = simulate(m, t_end=0.5, q0={"O": 0.0}, t_eval=np.linspace(0, 0.5, 6), rtol=1e-10)
>>> energy = sim.energy()
>>> bool(np.ptp(energy.total) < 1e-9), round(float(sim.q("O")[-1]), 6)
(True, -1.661148)
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, Radau

from loops.results import Column, SweepResult
from mechanism.atomic import write_text_atomically
from mechanism.errors import ModelError, SimulationStopped
from mechanism.pairs import Spherical

from .equations import METHODS, dynamic_model, finite_values, snapshot_of

from .partitioning import (
    SWITCH_RATIO,
    ClosureFailed,
    best_independent,
    candidate_columns,
    close,
    closed_state,
    newton_from,
    transmission_ratio,
    with_curvature,
)

__all__ = ["simulate", "SimulationResult", "EnergyHistory", "INTEGRATORS"]

INTEGRATORS = {"DOP853": DOP853, "RK45": RK45, "RK23": RK23, "Radau": Radau, "BDF": BDF, "LSODA": LSODA}
#: Scaled transmission ratio of a prescribed coordinate taken as a dead point of its motion.
DEAD_POINT_RATIO = 1e4
#: Smallest-to-largest singular value of ``B`` below which a position counts as singular.
SINGULAR_CONDITIONING = 1e-3
#: Conditioning of the dependent block (:attr:`~dynamics.partitioning.BlockSolver.conditioning`)
#: below which a stage's configuration is closed before it is used.
STAGE_CLOSING_CONDITIONING = 0.1
#: Wall time (s) a run lasts before its progress bar appears on a terminal.
PROGRESS_DELAY = 1.0
#: Closure failures tolerated at one time (each retried with a step eight times shorter).
MAX_RETRIES = 4


# ----------------------------------------------------------------------- results
@dataclass
class EnergyHistory:
    """Energy bookkeeping at the stored times (J, each (N,)).

    ``total = kinetic + potential`` (gravity, pair springs, point-to-point springs);
    ``dissipated`` by the dampers since t = 0; ``external_work`` of the pair and point
    forces; ``driver_work`` of the prescribed drivers. ``balance = total + dissipated -
    external_work - driver_work`` stays at its initial value (to the integration
    tolerance). Unpacks as ``kinetic, potential, total``.
    """

    kinetic: np.ndarray
    potential: np.ndarray
    dissipated: np.ndarray
    external_work: np.ndarray
    driver_work: np.ndarray

    @property
    def total(self):
        return self.kinetic + self.potential

    @property
    def balance(self):
        return self.total + self.dissipated - self.external_work - self.driver_work

    def __iter__(self):
        return iter((self.kinetic, self.potential, self.total))


class SimulationResult:
    """A simulated motion at the stored times.

    Attributes
    ----------
    t : (N,) s
    coordinates : list of str, the independent coordinates at the start
    prescribed : list of str, the prescribed coordinates
    switches : list of (t, old coordinates, new coordinates), partition switches
    stop_reason : str or None
    evaluations : int, right-hand side evaluations; steps : int, accepted steps
    model : mechanism.specs.Model

    Pair variables, points and links are read as from a sweep (:class:`loops.results.SweepResult`):
    ``q(name)``, ``q_dot``, ``q_ddot``, ``point``, ``point_velocity``, ``point_acceleration``,
    ``pose``, ``link_velocity``, ``link_acceleration``.
    """

    def __init__(self, dyn, t, q, q_dot, q_ddot, poses, velocities, accelerations, work, drive,
                 coordinates, prescribed, switches, stop_reason, evaluations, steps):
        self._dyn = dyn
        self.model = dyn.model
        self.t = t
        self._q, self._q_dot, self._q_ddot = q, q_dot, q_ddot
        self._poses, self._velocities, self._accelerations = poses, velocities, accelerations
        self._work = work
        self._drive = drive
        self.coordinates = list(coordinates)
        self.prescribed = list(prescribed)
        self.switches = list(switches)
        self.stop_reason = stop_reason
        self.evaluations = evaluations
        self.steps = steps
        self._kinematics = SweepResult(dyn.system, self.coordinates + self.prescribed, q, q_dot, q_ddot,
                                       poses, velocities, accelerations, stop_reason)
        self.variable_names = self._kinematics.variable_names
        self.point_names = self._kinematics.point_names

    def __len__(self):
        return len(self.t)

    def __repr__(self):
        state = "complete" if self.stop_reason is None else f"stopped: {self.stop_reason}"
        end = f"{self.t[-1]:.6g}" if len(self.t) else "-"
        return f"SimulationResult({len(self)} samples of {self.model.name!r} to t = {end} s, {state})"

    def q(self, name):
        """Values of pair variable ``name`` (rad or m from the design pose): (N,) or (N, k)."""
        return self._kinematics.q(name)

    def q_dot(self, name):
        return self._kinematics.q_dot(name)

    def q_ddot(self, name):
        return self._kinematics.q_ddot(name)

    def point(self, name):
        """Global coordinates (N, 3) m of a named point."""
        return self._kinematics.point(name)

    def point_velocity(self, name):
        return self._kinematics.point_velocity(name)

    def point_acceleration(self, name):
        return self._kinematics.point_acceleration(name)

    def pose(self, link):
        return self._kinematics.pose(link)

    def link_velocity(self, link):
        return self._kinematics.link_velocity(link)

    def link_acceleration(self, link):
        return self._kinematics.link_acceleration(link)

    def driver_force(self, name):
        """Generalized force (N m or N) a prescribed driver applies to keep its motion, (N,)."""
        if name not in self.prescribed:
            raise ModelError(f"driver {name!r}", f"not a prescribed coordinate ({', '.join(self.prescribed) or 'none'})")
        return self._drive[:, self._dyn.system.variable_index[name]].copy()

    def energy(self) -> EnergyHistory:
        """Kinetic, potential, dissipated energy and work of the loads at the stored times."""
        dyn = self._dyn
        kinetic, potential = dyn.energies(self._poses, self._velocities, self._q)
        return EnergyHistory(kinetic, potential, self._work[:, 0].copy(), self._work[:, 1].copy(),
                             self._work[:, 2].copy())

    def reactions(self):
        """Force and moment transmitted by each pair at the stored times (:class:`PairReactions`)."""
        from .inverse_dynamics import pair_reactions

        return pair_reactions(self._dyn, self._q, self._q_dot, self._accelerations, self.t, self._drive,
                              velocities=self._velocities)

    def columns(self, points=None):
        """CSV columns: ``t``, then the sweep columns (variables, points, rates)."""
        return [Column("t", self.t, "time", 0)] + self._kinematics.columns(points)

    def to_csv(self, path, points=None):
        """Write ``t`` and every column (SI units) to ``path`` atomically."""
        columns = self.columns(points)
        lines = [",".join(c.name for c in columns)]
        data = np.column_stack([c.values for c in columns]) if len(self.t) else np.zeros((0, len(columns)))
        lines += [",".join(repr(float(x)) for x in row) for row in data]
        write_text_atomically(path, "\n".join(lines) + "\n")


# --------------------------------------------------------------------- integrand
@dataclass
class _Evaluation:
    state: object
    dynamics: object
    accelerations: np.ndarray
    efforts: np.ndarray
    prescribed_rates: np.ndarray
    closed: bool  # state is closed (given, or closed first near a singular position), not y's q


_NOTHING = np.zeros(0)
_NOTHING.flags.writeable = False


@dataclass
class _Prescribed:
    names: list
    columns: np.ndarray
    functions: list = field(default_factory=list)

    def __call__(self, t):
        k = len(self.functions)
        if not k:
            return _NOTHING, _NOTHING, _NOTHING
        values, rates, accelerations = np.zeros(k), np.zeros(k), np.zeros(k)
        for i, (name, f) in enumerate(zip(self.names, self.functions)):
            try:
                out = np.asarray(f(t), dtype=float).ravel()
            except (TypeError, ValueError) as exc:
                raise ModelError(f"prescribed {name!r}", f"f({t:.6g}) did not return numbers: {exc}") from None
            if out.shape != (3,) or not np.all(np.isfinite(out)):
                raise ModelError(f"prescribed {name!r}", f"f({t:.6g}) must return 3 finite numbers "
                                 f"(value, rate, second rate), got {out!r}")
            values[i], rates[i], accelerations[i] = out
        return values, rates, accelerations


class _NearSingular(Exception):
    """A linearized stage came near a singular position: the step is redone with closed stages."""


class _Integrand:
    """``y' = F(t, y)`` for ``y = (u, z, u', W)``.

    ``u`` are the independent coordinates, ``z`` the dependent pair variables (the free
    columns of the partition; spherical pairs as rotation vectors), ``u'`` the independent
    rates and ``W`` the three work integrals. At a stage the mechanism is evaluated at the
    ``q`` the integrator carries, linearized there (eq. 3) and its rates solved (eq. 4):
    ``z' = G_free (u', p')`` (a spherical pair's relative angular velocity turned into the
    rate of its rotation vector). Since ``B q' = 0`` keeps a closed ``q`` closed, the
    integrator drifts off the closure only by its own truncation error; the stepping loop
    projects back onto the closure after every accepted step.
    """

    def __init__(self, dyn, base, prescribed, method, tolerance, linearize):
        self.dyn, self.prescribed, self.method, self.tolerance = dyn, prescribed, method, tolerance
        self.linearize = linearize  # False: every stage closed (a solver that keeps its own state)
        self.close_stages = False
        self.system = dyn.system
        self.evaluations = 0
        self.set_base(base)

    def set_base(self, base):
        """The last accepted (closed) state; a new partition if it comes with one.

        The next step's stages are linearized where the integrator puts them while the
        dependent block is well conditioned, else closed. Once a step has come near a
        singular position, stages stay closed until the conditioning has doubled past the
        threshold (no back and forth at its edge).
        """
        self.base = base
        if base.partition is not getattr(self, "partition", None):
            self._set_partition(base.partition)
        threshold = STAGE_CLOSING_CONDITIONING * (2.0 if self.close_stages else 1.0)
        if self.linearize and base.solver.conditioning >= threshold:
            self.close_stages = False
            self.forget()
        else:
            self.closing()

    def closing(self):
        """Close every stage from now on (until the next :meth:`set_base`)."""
        self.close_stages = True
        if self.base.curvature is None:
            with_curvature(self.base)
        self.forget()

    def _set_partition(self, partition):
        self.partition = partition
        self.m = partition.m
        self.nf = len(partition.free)
        # Positions within z of the spherical pairs' components (always free: not additive).
        where = np.full(self.system.n, -1)
        where[partition.free] = np.arange(self.nf)
        self._spherical = where[self.system.spherical_columns]

    def cached(self, t, y):
        """The evaluation at ``(t, y)`` if it is the last one made, else None."""
        return self._value if self._key == (float(t), y.tobytes()) else None

    def forget(self):
        """Drop the cached evaluation (after the partition's rows change)."""
        self._key, self._value = None, None

    def state_vector(self, q, rates, work):
        """``y`` for pair variables ``q`` (n,), independent rates (m,) and work integrals (3,)."""
        partition = self.partition
        return np.concatenate([q[partition.independent], q[partition.free], rates, work])

    def pair_variables(self, t, y):
        """All pair variables (n,) at ``(t, y)``: ``u`` and ``z`` from ``y``, ``p(t)`` prescribed."""
        partition, m = self.partition, self.m
        q = np.empty(self.system.n)
        q[partition.independent] = y[:m]
        q[partition.free] = y[m:m + self.nf]
        if len(partition.prescribed):
            q[partition.prescribed] = self.prescribed(t)[0]
        return q

    def evaluate(self, t, y, state=None) -> _Evaluation:
        """Dynamics at ``(t, y)``; ``state``: the closed state of ``y``'s ``q``, when known."""
        hit = self.cached(t, y)
        if hit is not None:
            return hit
        m, nf = self.m, self.nf
        p, p_dot, p_ddot = self.prescribed(t)
        closed = state is not None or self.close_stages
        if state is None and self.close_stages:
            # Near a singular position the linearization off the closure is unreliable (the
            # small singular value amplifies the drift), and a stage's q (a low-order
            # prediction) may lie nearer a crossing branch: every stage of the step is closed
            # from the last accepted state, predicted along its own branch (second order in u).
            target = np.concatenate([y[:m], p])
            state = close(self.base, target, self.tolerance)
        elif state is None:
            state = closed_state(self.partition, self.pair_variables(t, y))
            if state.solver.conditioning < STAGE_CLOSING_CONDITIONING:
                raise _NearSingular()
        rates = y[m + nf:2 * m + nf]
        if len(p):
            rates = np.concatenate([rates, p_dot])
        dynamics = self.dyn.evaluate(state, rates, t, p_ddot, self.method)
        accelerations = dynamics.accelerations()
        efforts = dynamics.efforts(accelerations) if len(p) else np.zeros(m)
        if not (math.isfinite(accelerations.sum()) and math.isfinite(efforts.sum())):
            raise ClosureFailed("non-finite accelerations (singular position)")
        value = _Evaluation(state, dynamics, accelerations, efforts, p_dot, closed)
        self._key, self._value = (float(t), y.tobytes()), value
        return value

    def __call__(self, t, y):
        self.evaluations += 1
        e = self.evaluate(t, y)
        m, nf = self.m, self.nf
        dy = np.empty_like(y)
        dy[:m] = y[m + nf:2 * m + nf]
        z_dot = e.dynamics.kin.q_dot[self.partition.free]
        if len(self._spherical):
            theta = y[m:m + nf][self._spherical]
            z_dot[self._spherical] = Spherical.value_rates(theta, z_dot[self._spherical])
        dy[m:m + nf] = z_dot
        dy[m + nf:2 * m + nf] = e.accelerations
        applied = e.dynamics.applied
        dy[-3] = applied.dissipated_power
        dy[-2] = applied.external_power
        dy[-1] = e.efforts[m:] @ e.prescribed_rates if len(e.prescribed_rates) else 0.0
        return dy


class _Recorder:
    def __init__(self, dyn):
        self.dyn = dyn
        self.rows = {k: [] for k in ("t", "q", "qd", "qdd", "T", "V", "A", "W", "drive")}

    def add(self, t, y, evaluation):
        """Store a sample: ``y`` and its evaluation at a closed state."""
        state, dynamics = evaluation.state, evaluation.dynamics
        kin = dynamics.kin
        partition = state.partition
        q_ddot = kin.q_ddot(evaluation.accelerations)
        drive = np.zeros(len(state.q))
        drive[partition.prescribed] = evaluation.efforts[partition.m:]
        rows = self.rows
        rows["t"].append(float(t))
        rows["q"].append(state.q.copy())
        rows["qd"].append(kin.q_dot)
        rows["qdd"].append(q_ddot)
        rows["T"].append(state.config.link_poses)
        rows["V"].append(kin.velocities)
        rows["A"].append(kin.link_accelerations(evaluation.accelerations))
        rows["W"].append(np.array(y[-3:]))
        rows["drive"].append(drive)

    def result(self, coordinates, prescribed, switches, stop_reason, evaluations, steps):
        system = self.dyn.system
        n, L = system.n, len(system.links)
        shapes = {"t": (), "q": (n,), "qd": (n,), "qdd": (n,), "T": (L, 4, 4), "V": (L, 6), "A": (L, 6),
                  "W": (3,), "drive": (n,)}
        a = {k: np.array(v, dtype=float) if v else np.zeros((0,) + shapes[k]) for k, v in self.rows.items()}
        return SimulationResult(self.dyn, a["t"], a["q"], a["qd"], a["qdd"], a["T"], a["V"], a["A"], a["W"],
                                a["drive"], coordinates, prescribed, switches, stop_reason, evaluations, steps)


def _singular_position(system, B, mobility):
    """True when the closure matrix itself loses rank (a singular position of the mechanism).

    At a regular position ``B`` (scaled) has rank ``n - mobility``; its smallest such singular
    value over the largest tends to zero at a bifurcation, for every choice of coordinates.
    """
    scaled = B * system.row_scale[:, None] * system.column_scale[None, :]
    s = np.linalg.svd(scaled, compute_uv=False)
    rank = system.n - mobility
    if rank <= 0 or rank > len(s) or s[0] == 0.0:
        return False
    return bool(s[rank - 1] < SINGULAR_CONDITIONING * s[0])


# ------------------------------------------------------------------- validation
def _progress_bar(t_end):
    """A progress bar over simulated time on a terminal (stderr), shown only for runs that last
    more than a second; None in pipes and CI logs."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=t_end, unit="s", unit_scale=True, delay=PROGRESS_DELAY, file=sys.stderr, leave=False,
                bar_format="{l_bar}{bar}| t = {n:.3g} of {total:.3g} s [{elapsed}<{remaining}]")


def _positive(value, where):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected a number, got {value!r}") from None
    if not (math.isfinite(number) and number > 0):
        raise ModelError(where, f"must be a positive finite number, got {value!r}")
    return number


def _prescribed(dyn, prescribed):
    if prescribed is None:
        return _Prescribed([], np.zeros(0, dtype=int))
    if not isinstance(prescribed, dict):
        raise ModelError("prescribed", "expected a dict of coordinate name -> f(t) returning (value, rate, "
                         "second rate), or a number to hold")
    names = list(prescribed)
    cols = dyn.columns(names, "prescribed")
    functions = []
    for name in names:
        f = prescribed[name]
        if callable(f):
            functions.append(f)
            continue
        try:
            held = float(f)
        except (TypeError, ValueError):
            raise ModelError(f"prescribed {name!r}", f"expected f(t) or a number, got {f!r}") from None
        if not math.isfinite(held):
            raise ModelError(f"prescribed {name!r}", "non-finite value")
        functions.append(lambda t, held=held: (held, 0.0, 0.0))
    return _Prescribed(names, cols, functions)


def _times(t_eval, t_end):
    if t_eval is None:
        return None
    try:
        times = np.array(t_eval, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ModelError("t_eval", "expected an increasing sequence of times") from None
    if times.size == 0 or not np.all(np.isfinite(times)):
        raise ModelError("t_eval", "expected finite times")
    if np.any(np.diff(times) <= 0):
        raise ModelError("t_eval", "times must increase strictly")
    if times[0] < 0 or times[-1] > t_end * (1 + 1e-12):
        raise ModelError("t_eval", f"times must lie within [0, t_end = {t_end:g}]")
    return np.minimum(times, t_end)


# --------------------------------------------------------------------- simulate
def simulate(mechanism, t_end, q0=None, qd0=None, t_eval=None, rtol=1e-8, atol=None, method="DOP853", *,
             prescribed=None, formulation="lagrange", max_step=np.inf, switching=True):
    """Integrate the equations of motion from ``t = 0`` to ``t_end``.

    Parameters
    ----------
    mechanism : mechanism.Mechanism (or its frozen snapshot)
    t_end : float, s
    q0 : dict name -> value
        Initial independent coordinates (rad or m from the design pose), as many as
        ``check().dof`` minus the prescribed ones. The start is the assembly reached by
        walking them from the design pose. ``None`` or ``{}``: coordinates chosen
        automatically, starting at the design pose.
    qd0 : dict name -> rate, optional (missing rates are zero)
    t_eval : (N,) s, optional
        Times to store (within ``[0, t_end]``); default every accepted step.
    rtol, atol : float
        Integration tolerances; ``atol`` defaults to ``rtol`` (SI magnitudes). The closure is
        solved to ``1e-3 rtol`` (dimensionless, at least 1e-14).
    method : {"DOP853", "RK45", "RK23", "Radau", "BDF", "LSODA"}
        A ``solve_ivp`` integrator; ``Radau`` or ``BDF`` for stiff springs.
    prescribed : dict name -> f(t) -> (value, rate, second rate), or a number (held)
        Rheonomic coordinates moved as given (rad, rad/s, rad/s^2 or m, m/s, m/s^2).
    formulation : {"lagrange", "kane"}
        The route to the equations (they agree to round-off).
    max_step : float, s
    switching : bool
        Switch the independent coordinates when their partition becomes ill conditioned.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ModelError
        Bad input: wrong or too few coordinates, non-finite values, unknown method.
    SimulationStopped
        At a closure failure or a dead point of a prescribed motion; ``.partial`` is the
        result up to the last accepted step, ``.reason`` says when and why.
    """
    t_end = _positive(t_end, "t_end")
    rtol = _positive(rtol, "rtol")
    atol = rtol if atol is None else _positive(atol, "atol")
    if method not in INTEGRATORS:
        raise ModelError("method", f"unknown integrator {method!r} (expected one of {', '.join(INTEGRATORS)})")
    if formulation not in METHODS:
        raise ModelError("formulation", f"unknown formulation {formulation!r} (expected 'lagrange' or 'kane')")
    max_step = float(max_step)
    times = _times(t_eval, t_end)
    model = snapshot_of(mechanism)
    dyn = dynamic_model(model)
    driven = _prescribed(dyn, prescribed)
    count = dyn.dof - len(driven.names)
    if count < 0:
        raise ModelError("prescribed", f"{len(driven.names)} prescribed coordinates for {dyn.dof} degree(s) "
                         "of freedom")
    if q0 is not None and not isinstance(q0, dict):
        raise ModelError("q0", f"expected a dict of coordinate name -> value, got {type(q0).__name__}")
    if q0:
        names = list(q0)
        if len(names) != count:
            extra = f" besides the {len(driven.names)} prescribed" if driven.names else ""
            raise ModelError("q0", f"expected {count} independent coordinate(s){extra} (check().dof = "
                             f"{dyn.dof}), got {len(names)}: {', '.join(map(str, names))}")
        cols = dyn.columns(names, "q0")
        overlap = set(cols) & set(driven.columns)
        if overlap:
            raise ModelError("q0", f"{dyn.system.variable_names[overlap.pop()]!r} is also prescribed")
        values = finite_values(q0, names, "q0")
    else:
        cols = dyn.automatic_coordinates(count, driven.columns)
        names = [dyn.system.variable_names[c] for c in cols]
        values = dyn.system.reference_q()[cols]
    rates = finite_values(qd0, names, "qd0")
    p0, p_dot0, _ = driven(0.0)
    partition = dyn.partition(cols, driven.columns)
    start = dyn.start(partition, np.concatenate([values, p0]), where="q0")
    tolerance = min(1e-10, max(1e-14, 1e-3 * rtol))
    integration = _Integration(dyn, start, driven, formulation, tolerance, INTEGRATORS[method], rtol, atol,
                               max_step, switching, t_end, times)
    return integration.run(rates, names)


#: Integrators whose state can be replaced by the projected one between steps (BDF through
#: its difference array as well); with any other every stage is closed.
_EDITABLE = (DOP853, RK45, RK23, Radau, BDF)


def _take_state(solver, y):
    """Put the projected ``y`` into a running solver (others close every stage: nothing to do).

    One-step methods start each step from ``solver.y`` (their derivative there, ``solver.f``,
    is kept: it differs by the projection, far below the step's error); BDF predicts from
    its difference array, whose first row is ``y``.
    """
    if isinstance(solver, _EDITABLE):
        solver.y = y
        if isinstance(solver, BDF):
            solver.D[0] = y


class _Integration:
    """The stepping loop (one solve_ivp integrator at a time, restarted at switches)."""

    def __init__(self, dyn, start, driven, formulation, tolerance, solver_class, rtol, atol, max_step,
                 switching, t_end, times):
        self.dyn, self.driven, self.tolerance = dyn, driven, tolerance
        self.solver_class, self.rtol, self.atol, self.max_step = solver_class, rtol, atol, max_step
        self.switching, self.t_end, self.times = switching, t_end, times
        self.start = start
        self.integrand = _Integrand(dyn, start, driven, formulation, tolerance,
                                    linearize=issubclass(solver_class, _EDITABLE))
        self.recorder = _Recorder(dyn)
        self.switches = []
        self.steps = 0
        self._declined = 0.0  # transmission ratio at the last declined switch

    def _solver(self, t, y, first_step=None):
        options = dict(rtol=self.rtol, atol=self.atol, max_step=self.max_step)
        if first_step is not None:
            options["first_step"] = min(first_step, self.t_end - t)
        return self.solver_class(self.integrand, t, y, self.t_end, **options)

    def _stop(self, reason):
        integrand = self.integrand
        partial = self.recorder.result(self.coordinates, self.driven.names, self.switches, reason,
                                       integrand.evaluations, self.steps)
        raise SimulationStopped(reason, partial)

    def run(self, rates, names):
        integrand = self.integrand
        self.coordinates = list(names)
        y = integrand.state_vector(self.start.q, rates, np.zeros(3))
        times = self.times
        try:
            first = integrand.evaluate(0.0, y, self.start)
        except ClosureFailed as exc:
            self._stop(f"the initial state cannot be evaluated: {exc}")
        sample = 0
        if times is None or times[0] == 0.0:
            self.recorder.add(0.0, y, first)
            sample = 1 if times is not None else 0
        bar = _progress_bar(self.t_end)
        try:
            return self._steps(self._solver(0.0, y), integrand, times, sample, bar)
        finally:
            if bar is not None:
                bar.close()

    def _closed(self, t, y, evaluate=True):
        """``y`` projected onto the closure, and its evaluation there (or, when not
        ``evaluate``, only its :class:`~dynamics.partitioning.ClosedState`).

        Newton (eq. 3, driven columns held) from ``y``'s own ``q``. When the integrator's
        last stage was at ``(t, y)`` (its derivative at a step's end), the stage gives the
        first Newton step, or is used as it is if it was closed already (near a singular
        position). Raises :class:`ClosureFailed` when the loops do not close from ``y``.
        """
        integrand = self.integrand
        partition = integrand.partition
        m, nf = integrand.m, integrand.nf
        closed = y.copy()
        stage = integrand.cached(t, y)
        if stage is not None and stage.closed:
            closed[m:m + nf] = stage.state.q[partition.free]
            return closed, stage if evaluate else stage.state
        if stage is None:
            q, config, solver = integrand.pair_variables(t, y), None, None
        else:
            q, config, solver = stage.state.q.copy(), stage.state.config, stage.state.solver
        q, config, _, _ = newton_from(partition, q, self.tolerance, config=config, solver=solver)
        closed[m:m + nf] = q[partition.free]
        state = closed_state(partition, q, config)
        return closed, integrand.evaluate(t, closed, state) if evaluate else state

    def _steps(self, solver, integrand, times, sample, bar):
        """Accepted steps until ``t_end`` (or a stop); the body of :meth:`run`."""
        retries, last_h = 0, None
        while solver.status == "running":
            t_old, y_old = solver.t, solver.y.copy()
            try:
                message = solver.step()
                if solver.status == "failed":
                    stage = integrand._value.state if integrand._value is not None else None
                    ratio = transmission_ratio(stage) if stage is not None else float("nan")
                    self._stop(f"integration failed at t = {solver.t:.6g} s: {message} (transmission ratio "
                               f"{ratio:.3g}: near a singular position)")
                t_new, y_new = solver.t, solver.y
                y_closed, accepted = self._closed(t_new, y_new, evaluate=False)
                sample = self._record(solver, t_new, times, sample)
            except _NearSingular:
                h = getattr(solver, "h_abs", None) or last_h or (self.t_end * 1e-3)
                integrand.closing()
                solver = self._solver(t_old, y_old, first_step=h)
                continue
            except ClosureFailed as exc:
                retries += 1
                if retries > MAX_RETRIES:
                    self._stop(f"closure failure at t = {t_old:.6g} s: {exc} (in coordinates "
                               f"{', '.join(integrand.partition.names)})")
                h = getattr(solver, "h_abs", None) or last_h or (self.t_end * 1e-3)
                integrand.forget()
                solver = self._solver(t_old, y_old, first_step=h / 8.0)
                continue
            except ModelError:
                raise
            retries = 0
            self.steps += 1
            last_h = t_new - t_old
            _take_state(solver, y_closed)
            if times is None or (sample < len(times) and times[sample] == t_new):
                try:
                    self.recorder.add(t_new, y_closed, integrand.evaluate(t_new, y_closed, accepted))
                except ClosureFailed as exc:
                    self._stop(f"the state at t = {t_new:.6g} s cannot be evaluated: {exc}")
                sample += times is not None
            integrand.set_base(accepted)
            self._check_prescribed(t_new, accepted)
            if bar is not None:
                bar.update(t_new - bar.n)
            switched = self._maintain(t_new, y_closed, accepted)
            if switched is not None and solver.status == "running":
                solver = self._solver(t_new, switched, first_step=last_h)
        return self.recorder.result(self.coordinates, self.driven.names, self.switches, None,
                                    self.integrand.evaluations, self.steps)

    def _record(self, solver, t_new, times, sample):
        """Store the samples of ``t_eval`` inside the step just taken (each projected onto the
        closure); returns the index of the next sample."""
        if times is None:
            return sample
        dense = None
        while sample < len(times) and times[sample] < t_new:
            ts = times[sample]
            dense = dense or solver.dense_output()
            try:
                ys, evaluation = self._closed(ts, dense(ts))
            except ClosureFailed as exc:
                self._stop(f"closure failure at t = {ts:.6g} s: {exc}")
            self.recorder.add(ts, ys, evaluation)
            sample += 1
        return sample

    def _check_prescribed(self, t, state):
        partition = state.partition
        if not len(partition.prescribed) or not len(partition.free):
            return
        G = state.G[partition.free][:, partition.m:]
        ratio = np.abs(G * (partition.driven_scale[None, partition.m:] / partition.free_scale[:, None])).max()
        if ratio > DEAD_POINT_RATIO:
            self._stop(f"dead point at t = {t:.6g} s: the prescribed motion of "
                       f"{', '.join(partition.prescribed_names)} cannot be followed (transmission ratio "
                       f"{ratio:.3g})")

    def _maintain(self, t, y, base):
        """Keep the partition well conditioned at the closed state ``base`` (of ``y``); returns
        the new state vector after a switch."""
        integrand = self.integrand
        partition = base.partition
        m = partition.m
        # The square solve's rows must stay independent (spatial redundant loops).
        if partition.rows is not None:
            # Only the rows left out can go wrong (the solve satisfies the chosen ones): for
            # planar loops they are identically zero, for spatial redundant ones they drift.
            dropped = np.ones(base.B.shape[0], dtype=bool)
            dropped[partition.rows] = False
            B = base.B[dropped] * partition.system.row_scale[dropped, None]
            residual = B[:, partition.free] @ base.G[partition.free] + B[:, partition.driven]
            size = np.abs(B).max(initial=0.0) * max(np.abs(base.G).max(), 1.0)
            if residual.size and np.abs(residual).max() > 1e-8 * size:
                partition.choose_rows(base.B)
                base = closed_state(partition, base.q, base.config)
                integrand.set_base(base)
        elif not partition.passive and len(partition.free):
            if partition.choose_rows(base.B):
                base = closed_state(partition, base.q, base.config)
                integrand.set_base(base)
        if not self.switching or m == 0:
            return None
        ratio = transmission_ratio(base)
        if ratio <= SWITCH_RATIO or ratio < 2.0 * self._declined:
            return None
        system = partition.system
        if _singular_position(system, base.B, self.dyn.dof + self.dyn.passive - len(system.gauges)):
            # Every partition is ill conditioned here (a parallelogram folding flat): keep
            # the coordinates; the projection holds them and the motion stays on its branch.
            self._declined = ratio
            return None
        candidates = candidate_columns(system, partition.prescribed)
        chosen = best_independent(system, base.G[:, :m], candidates, m)
        if set(chosen) == set(partition.independent):
            return None
        new_partition = partition.with_independent(chosen)
        new_partition.choose_rows(base.B)
        new_base = closed_state(new_partition, base.q, base.config)
        new_ratio = transmission_ratio(new_base)
        if new_ratio >= 0.5 * ratio or new_ratio > SWITCH_RATIO:
            self._declined = ratio
            return None  # no better coordinates here
        rates = y[m + integrand.nf:2 * m + integrand.nf]
        q_dot = base.G @ np.concatenate([rates, self.driven(t)[1]])
        self.switches.append((float(t), list(partition.names), list(new_partition.names)))
        integrand.set_base(new_base)
        self._declined = 0.0
        return integrand.state_vector(base.q, q_dot[chosen], y[-3:])
