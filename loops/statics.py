"""Static equilibrium: drivers held at values, the other freedoms settle where the loads balance.

:func:`equilibrium` holds the drivers (and the variables named in ``hold``) at their values
and lets every other freedom of the mechanism settle where gravity, pair springs, spring-dampers'
springs, point forces (at a link's point, or following a circle's point farthest along a fixed
direction, a wheel's contact patch: E8), pair forces and bushings balance (METHOD.md, "Statics"
(E1)-(E9)). The
free coordinates are the pair variables that complete the fixed ones to the mechanism's
freedoms (:func:`loops.held.held_freedoms` chooses them as a sweep chooses its held ones;
:func:`loops.held.reused_freedoms` takes a design variant's null space through its first model's choice).
At every position Newton on the reduced force ``g_u = G_u^T Q = 0`` (E5) with the analytic
reduced stiffness ``K = -dg/d(driven)`` (E4) settles the free coordinates, the loops closed
again after every step; a series of driver values is a continuation along the equilibrium
path ``du/dd = -K_uu^-1 K_ud`` (E6), as a sweep is one along the closure (the compiled
:func:`loops.kernels.equilibrium_walk.walk_equilibria`).

Every position returned is closed (the corrector's tolerance) and balanced (the reduced forces
in the free coordinates at most ``force_tolerance`` of the load scale, E5); what each fixed
variable holds is ``-g`` in its column, the generalized force a driver supplies (as
:func:`dynamics.inverse_dynamics` gives it, at rest), and the pair reactions are the one
implementation of :func:`loops.reactions.pair_reactions`.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError, SweepStopped

from .compiled import compile_model
from .configuration import evaluate, new_work
from .continuation import DEFAULT_TOLERANCE, MAX_MOTION, WalkStopped, closure_tolerance
from .held import hold_names, reused_freedoms
from .kernel_arrays import kernel_array
from .kernels.state import (CORRECTOR_RESULT_SIZE, FORCE_TOLERANCE, LOAD_SCALE, RESIDUAL, SETTLE_ITERATIONS,
                            SETTLE_STEP, STATICS_INFO, STATICS_PARAMETERS, EquilibriumRecord, StaticsScratch)
from .loads import compile_loads, compile_weights
from .reactions import PairReactions, pair_reactions
from .results import Trajectory
from .sweep import driver_table

__all__ = ["equilibrium", "EquilibriumResult", "DEFAULT_FORCE_TOLERANCE", "SETTLE_LIMIT", "NEUTRAL_RATIO"]

#: Default force tolerance: the largest reduced force in the free coordinates over the load
#: scale (the loads' generalized forces summed in magnitude), dimensionless.
DEFAULT_FORCE_TOLERANCE = 1e-12
#: Newton iterations one equilibrium may take.
SETTLE_LIMIT = 60
#: Smallest eigenvalue of the reduced stiffness (in column units: N m per rad or per size) over
#: its largest and the load scale below which an equilibrium is neutral, not stable.
NEUTRAL_RATIO = 1e-9


def _model_of(mechanism):
    """The frozen model of a :class:`~mechanism.Mechanism`, or a Model given as is."""
    if hasattr(mechanism, "snapshot"):
        return mechanism.snapshot()
    if hasattr(mechanism, "links") and hasattr(mechanism, "pairs") and hasattr(mechanism, "reference"):
        return mechanism
    raise ModelError("mechanism", f"expected a Mechanism, got {type(mechanism).__name__}")


def _positive(value, where):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected a positive number, got {str(value)[:40]!r}") from None
    if not number > 0.0 or not np.isfinite(number) or number >= 1e-2:
        raise ModelError(where, f"must lie in (0, 1e-2) (reduced forces over the load scale), got {value!r}")
    return number


class _Statics:
    """The compiled system, its loads and weights, and the statics' scratch at one driven set."""

    def __init__(self, model, driven, hold, tolerance):
        self.model = model
        self.system = system = compile_model(model)
        self.loads = compile_loads(system, model, self)
        self.weights = compile_weights(system, model)
        q0 = system.reference_q()
        start = evaluate(system, q0)
        if start.closure_error() > max(tolerance, 1e-8):
            raise ModelError("mechanism", f"the reference assembly does not close (defect "
                             f"{start.closure_error():.3g}); call Mechanism.assemble() first")
        hold = hold_names(hold)
        extra = reused_freedoms(system, start, driven, hold or None)
        self.fixed_columns = np.r_[driven, extra[:len(hold)]].astype(np.int64)
        self.free_columns = extra[len(hold):].astype(np.int64)
        self.columns = np.r_[self.fixed_columns, self.free_columns].astype(np.int64)
        self.q0 = q0
        self.start = None  # the walk standing on the reference assembly (_start), made once

    def scratch(self, block, loaded=True) -> StaticsScratch:
        """The statics' scratch for the square block ``block``; ``loaded``: holding the model's
        applied pair and point loads (their values at t = 0: statics has no time), else none
        (a load set of stiffnesses alone, as the rate of a bushing's)."""
        S = self._scratch(block)
        if loaded:
            from .kernels.loads import load_values  # noqa: PLC0415 (kernels load on first use)

            load_values(self.loads, 0.0, S.pair_values, S.point_values, np.zeros((len(self.loads.prescribed_cols), 3)))
        return S

    def _scratch(self, block) -> StaticsScratch:
        system = self.system
        n, L, P = system.n, system.topology.links, system.topology.pairs
        D, f = len(self.columns), len(self.fixed_columns)
        k = D - f
        m = len(system.spherical_pairs)
        return StaticsScratch(
            W=np.zeros((L, 6)), F=np.zeros((L, 6)), dW=np.zeros((L, 6)), dF=np.zeros((L, 6)), V=np.zeros((L, 6)),
            P=np.zeros(n), Q=np.zeros(n), dP=np.zeros(n), rates=np.zeros(n), step=np.zeros(n), Z=np.zeros((n, D)),
            mu=np.zeros(system.rows), Omega=np.zeros((P, 6)), forces=np.zeros(D), K=np.zeros((D, D)),
            reduced=np.zeros((k, k)), lu=np.zeros((k, k)), pivots=np.zeros(k, dtype=np.int64), du=np.zeros(k),
            slope=np.zeros((k, f)), pair_values=np.zeros((len(self.loads.force_cols), 1)),
            point_values=np.zeros((len(self.loads.point_keys), 3)), zero_rates=np.zeros(n),
            zero_links=np.zeros((L, 6)), saved_q=np.zeros(n), saved_rotations=np.zeros((m, 3, 3)),
            predicted=np.zeros(k), v3=np.zeros((16, 3)), v6=np.zeros((4, 6)), buffer=np.zeros(max(system.rows, n, 1)),
            info=np.zeros(STATICS_INFO))

    def record(self, count) -> EquilibriumRecord:
        system = self.system
        n, L, m = system.n, system.topology.links, len(system.spherical_pairs)
        f, k = len(self.fixed_columns), len(self.free_columns)
        return EquilibriumRecord(q=np.zeros((count, n)), rotations=np.zeros((count, m, 3, 3)),
                                 T=np.zeros((count, L, 4, 4)), G=np.zeros((count, n, f)), efforts=np.zeros((count, f)),
                                 K=np.zeros((count, k, k)), info=np.zeros((count, STATICS_INFO)),
                                 free_rates=np.zeros((count, k, n)), free_twists=np.zeros((count, k, L, 6)))


#: The set-ups made so far, by (model, driven columns, hold, tolerance): choosing the free
#: coordinates is a rank analysis of the closure (for a model of a hundred variables, as long
#: as the walk of 41 equilibria), the same at every call on the same frozen model.
_SETUPS = {}


def _statics_of(model, driven, hold, tolerance) -> _Statics:
    """The :class:`_Statics` of ``model`` with the ``driven`` columns and ``hold``, made once."""
    key = (id(model), tuple(int(c) for c in driven), tuple(hold_names(hold)), float(tolerance))
    try:
        hit = _SETUPS.get(key)
    except TypeError:  # a name that is no string: _Statics says where
        return _Statics(model, driven, hold, tolerance)
    if hit is not None and hit.model is model:
        return hit
    if len(_SETUPS) > 32:
        _SETUPS.clear()
    _SETUPS[key] = setup = _Statics(model, driven, hold, tolerance)
    return setup


class EquilibriumResult(Trajectory):
    """Static equilibria along a series of driver values (a :class:`loops.results.Trajectory` at rest).

    Reads like a sweep (``q``, ``point``, ``pose``, ``to_csv`` ...); the rates are zero and
    :meth:`along` follows the equilibrium path (its tangent ``dq/d(fixed)`` with the free
    coordinates settling).

    Attributes
    ----------
    drivers : list of str; held : list of str, variables held at their values (``hold=``)
    free : list of str, the free coordinates that settled
    free_rates : (N, k, n) every pair variable's rate per unit rate of each free coordinate, the
        drivers and held variables fixed (``G_u``, eq. 4: rad or m per rad or m)
    free_twists : (N, k, L, 6) every link's twist ``(omega, v_o)`` per unit rate of each free
        coordinate (global, origin-referenced), the motions the reduced forces are taken along
    stiffness : (N, k, k) reduced stiffness ``K_uu`` in the free coordinates (N/m, N m/rad, N
        per rad or N m per m across) (E4): symmetric at an equilibrium of conservative loads, not
        with a force on a circle (E8), whose point of application rolls over its link
    stable : (N,) bool, the symmetric part ``(K_uu + K_uu^T) / 2`` positive definite: every small
        motion of the free coordinates meets forces doing negative work (``du . K_uu du > 0``),
        so every eigenvalue of ``K_uu`` has a positive real part (no static divergence; the
        flutter a follower load may cause is dynamic and not judged here); for a symmetric
        ``K_uu``, ``K_uu`` positive definite
    stability : (N,) str, ``"stable"``, ``"neutral"`` (an eigenvalue of that symmetric part is
        zero within :data:`NEUTRAL_RATIO`) or ``"unstable"``
    load_scale : (N,) N m, the loads' generalized forces summed in magnitude (per unit rad or
        size); residual : (N,) the largest reduced force over it (E5)
    stop_reason : str or None
    """

    def __init__(self, statics, names, record, count, stop_reason=None):
        system = statics.system
        zeros = np.zeros((count, system.n))
        links = np.zeros((count, system.topology.links, 6))
        held = [system.variable_names[c] for c in statics.fixed_columns[len(names):]]
        super().__init__(system, names, record.q[:count].copy(), zeros, zeros.copy(), record.T[:count].copy(), links,
                         links.copy(), held=held, stop_reason=stop_reason, rotations=record.rotations[:count].copy(),
                         tangents=record.G[:count].copy())
        self._statics = statics
        self.free = [system.variable_names[c] for c in statics.free_columns]
        self._fixed = list(names) + held
        self._efforts = record.efforts[:count].copy()
        self.stiffness = record.K[:count].copy()
        self.free_rates = record.free_rates[:count]  # the record is this call's own: no copy
        self.free_twists = record.free_twists[:count]
        self.load_scale = record.info[:count, LOAD_SCALE].copy()
        self.residual = record.info[:count, RESIDUAL].copy()
        self.stability = self._stability(system)
        self.stable = self.stability == "stable"

    def _stability(self, system):
        count, k = self.stiffness.shape[:2]
        if not k:
            return np.full(count, "stable")
        scale = system.column_scale[self._statics.free_columns]
        dimensionless = scale[None, :, None] * self.stiffness * scale[None, None, :]
        symmetric = 0.5 * (dimensionless + np.swapaxes(dimensionless, 1, 2))
        # The Frobenius norm bounds the largest |eigenvalue| from above: where K less the floor made
        # with it is positive definite (a Cholesky factorization, a fraction of the eigenvalues'
        # cost), the smallest eigenvalue is above the floor, and K is stable.
        bound = NEUTRAL_RATIO * np.maximum(np.sqrt((symmetric ** 2).sum(axis=(1, 2))), self.load_scale)
        try:
            np.linalg.cholesky(symmetric - bound[:, None, None] * np.eye(k))
            return np.full(count, "stable", dtype="<U8")  # the dtype np.where gives below
        except np.linalg.LinAlgError:
            pass
        eigenvalues = np.linalg.eigvalsh(symmetric)
        floor = NEUTRAL_RATIO * np.maximum(np.abs(eigenvalues).max(axis=1), self.load_scale)
        smallest = eigenvalues[:, 0]
        return np.where(smallest < -floor, "unstable", np.where(smallest <= floor, "neutral", "stable"))

    def along(self, driver):
        """The same positions with the rates along the equilibrium path for a unit rate of
        ``driver`` (the free coordinates settling, E6): ``q_dot`` and the link velocities are
        derivatives ``d/d(driver)``; the second rates are not made (zero)."""
        from .kernels.velocity import link_velocities  # noqa: PLC0415 (kernels load on first use)

        if driver not in self.drivers:
            raise ModelError(f"driver {driver!r}", f"not a driver of this record (drivers: "
                             f"{', '.join(self.drivers) or 'none'})")
        k = self.drivers.index(driver)
        system = self.system
        q_dot = np.ascontiguousarray(self._tangents[:, :, k])
        V = np.zeros_like(self._velocities)
        for i in range(len(self)):
            config = evaluate(system, self._q[i], self._rotations[i])
            link_velocities(system.topology, kernel_array(config.twists), q_dot[i], V[i])
        return Trajectory(system, self.drivers, self._q, q_dot, np.zeros_like(q_dot), self._poses, V,
                          np.zeros_like(V), held=self.held, stop_reason=self.stop_reason, rotations=self._rotations,
                          tangents=self._tangents)

    def force(self, name):
        """(N,) generalized force the fixed variable ``name`` (a driver or a held variable)
        holds: N m for angles, N for slides, from its first link on its second, in addition to
        the model's own loads (as :meth:`dynamics.InverseDynamicsResult.force`)."""
        if name not in self._fixed:
            raise ModelError(f"driver {name!r}", f"not a driver or held variable (those: {', '.join(self._fixed)})")
        return self._efforts[:, self._fixed.index(name)].copy()

    def reactions(self) -> PairReactions:
        """Force and moment each pair transmits at every equilibrium (:func:`loops.reactions.pair_reactions`)."""
        statics, count = self._statics, len(self)
        drive = np.zeros((count, self.system.n))
        drive[:, statics.fixed_columns] = self._efforts
        return pair_reactions(self.system, statics.loads, statics.weights, self._q, self._q_dot, np.zeros(count),
                              drive, rotations=self._rotations)


def equilibrium(mechanism, drivers=None, *, hold=None, tolerance=DEFAULT_TOLERANCE,
                force_tolerance=DEFAULT_FORCE_TOLERANCE) -> EquilibriumResult:
    """Static equilibria of a mechanism with its drivers held at a series of values (E1)-(E9).

    Parameters
    ----------
    mechanism : mechanism.Mechanism (or its frozen snapshot)
    drivers : dict name -> (N,) values, optional
        Pair variables (rad, m) or point drivers (m) from the design pose, held at each value
        in turn (a series is a continuation along the equilibrium path). None or ``{}``: one
        equilibrium with every freedom free.
    hold : list of str, optional
        More variables held at their reference values (a steering rack, a wheel's spin: a
        freedom no load restrains is neutral, and Newton cannot settle it).
    tolerance : float
        Closure tolerance (dimensionless, as a sweep's).
    force_tolerance : float
        Largest reduced force in the free coordinates over the load scale (dimensionless).

    Returns
    -------
    EquilibriumResult

    Raises
    ------
    SweepStopped
        When no equilibrium can be reached (a load no pose carries, a neutral or folding
        equilibrium path, loops that would not close): ``.partial`` holds every position
        reached (closed and balanced), ``.reason`` says where and why in one line.
    ModelError
        Malformed drivers or hold, tolerances out of range, an over-driven mechanism.
    """
    from .kernels import statics as kernels  # noqa: PLC0415 (kernels load on first use)
    from .kernels.equilibrium_walk import walk_equilibria  # noqa: PLC0415

    tolerance = closure_tolerance(tolerance)
    force_tolerance = _positive(force_tolerance, "force_tolerance")
    model = _model_of(mechanism)
    system = compile_model(model)
    if drivers:
        names, table = driver_table(drivers)
        driven = system.driver_columns(names)
    else:
        names, table, driven = [], np.zeros((1, 0)), np.zeros(0, dtype=np.int64)
    statics = _statics_of(model, driven, hold, tolerance)
    count, fixed = len(table), len(statics.fixed_columns)
    targets = np.ascontiguousarray(np.column_stack([table, np.broadcast_to(statics.q0[statics.fixed_columns[len(names):]],
                                                                            (count, fixed - len(names)))]))
    walk = _start(statics, tolerance, names)
    S = statics.scratch(walk.block)
    parameters = np.zeros(STATICS_PARAMETERS)
    parameters[FORCE_TOLERANCE] = force_tolerance
    parameters[SETTLE_ITERATIONS] = SETTLE_LIMIT
    parameters[SETTLE_STEP] = MAX_MOTION
    record = statics.record(count)
    topology, geometry = system.topology, system.geometry
    result = np.zeros(CORRECTOR_RESULT_SIZE)
    status = kernels.settle(topology, geometry, walk.block, statics.loads, statics.weights, walk.here, walk.factor,
                            walk.G, S, fixed, walk.params, parameters, result, False)
    if status != kernels.OK:
        reason = _reason(statics, names, status, None, table[0], S)
        raise SweepStopped(reason, EquilibriumResult(statics, names, record, 0, reason))
    m = len(system.spherical_pairs)
    reached, status = walk_equilibria(topology, geometry, walk.block, statics.loads, statics.weights, walk.here,
                                      walk.factor, walk.G, S, np.zeros(system.n), np.zeros((m, 3, 3)),
                                      np.zeros((3, fixed)), fixed, targets, 0, count, walk.params, parameters, result,
                                      record)
    if reached < count:
        reason = _reason(statics, names, status, walk.here.q[statics.fixed_columns[:len(names)]], table[reached], S)
        raise SweepStopped(reason, EquilibriumResult(statics, names, record, reached, reason),
                           driver_values=dict(zip(names, table[reached])))
    _check(statics, record, count, tolerance, force_tolerance)
    return EquilibriumResult(statics, names, record, count)


def _start(statics, tolerance, names):
    """The walk standing on the reference assembly with the fixed and free columns."""
    from .continuation import Walk  # noqa: PLC0415

    if statics.start is not None:  # its square block is a rank analysis at the reference: made once
        return statics.start.copy()
    try:
        statics.start = Walk(statics.system, statics.columns, statics.q0, tolerance=tolerance)
        return statics.start.copy()
    except WalkStopped as stop:
        reason = (f"the drivers {', '.join(names) or '(none)'} and the free coordinates cannot move the reference "
                  f"assembly (defect {stop.error:.3g})")
        raise SweepStopped(reason, EquilibriumResult(statics, names, statics.record(0), 0, reason)) from None


def _reason(statics, names, status, reached, wanted, S):
    """One line: where the equilibrium walk stood, what it could not reach and why."""
    from .kernels import statics as kernels  # noqa: PLC0415

    system = statics.system
    driven = statics.fixed_columns[:len(names)]
    target = system.describe(driven, wanted, names) if names else "the loads"
    where = "at the reference assembly" if reached is None else \
        f"from {system.describe(driven, reached, names)}" if names else "from the reference assembly"
    free = ", ".join(system.variable_names[c] for c in statics.free_columns)
    if status == kernels.NEUTRAL:
        why = (f"the reduced stiffness in the free coordinates ({free}) is singular: a neutral equilibrium "
               "(a freedom no load restrains: hold it) or a load the mechanism cannot carry past a fold")
    elif status == kernels.OPEN:
        why = "the loops would not close"
    else:
        why = (f"Newton could not balance the loads in the free coordinates ({free}; reduced force "
               f"{S.info[RESIDUAL]:.3g} of the load scale): no pose near the path carries them")
    return f"no equilibrium for {target} {where}: {why}"


def _check(statics, record, count, tolerance, force_tolerance):
    """Every position returned closes and balances (a guard on the kernels' outcome)."""
    worst = float(np.max(record.info[:count, RESIDUAL], initial=0.0))
    if not worst <= force_tolerance:
        raise RuntimeError(f"equilibrium: a returned position is not balanced (reduced force {worst:.3g})")
    from .kernels.closure import configure  # noqa: PLC0415 (kernels load on first use)

    system = statics.system
    work = new_work(system)  # one work evaluated at every position anew (what evaluate() does, without its copies)
    for i in range(count):
        work.q[:], work.rotations[:] = record.q[i], record.rotations[i]
        defect = configure(system.topology, system.geometry, work)
        if not defect <= 10 * tolerance:
            raise RuntimeError(f"equilibrium: position {i} does not close (defect {defect:.3g})")


def statics_setup(record):
    """The compiled system, loads, weights and fixed and free columns an
    :class:`EquilibriumResult` was solved with (what :mod:`loops.statics_rates` takes the
    statics kernels again with, near its positions)."""
    return record._statics
