"""The one walk along the closure, for sweeps, inverse dynamics and the starts of simulations.

A :class:`Walk` holds a closed configuration of a compiled system with some of its
variables *driven* (drivers, held freedoms, independent coordinates: whatever the caller
fixes), the factorization of the square block of ``B`` for the others
(:mod:`loops.linear`) and the tangent ``G = dq/d(driven)``. It moves the driven values by
continuation (:mod:`loops.kernels.continuation`: predictor, Newton corrector, branch
checks, step control) and reports, when it cannot go on, where and why.

Limits (each ends a walk with a stop and a reason, never a hang): a step is halved at most
:data:`MAX_HALVINGS` times in a row; a walk takes at most :data:`MAX_STEPS` continuation
steps in all (a crank turn takes about 21 at the largest step, so that is some 47,000
turns).
"""

from __future__ import annotations

import math

import numpy as np

from mechanism.errors import ModelError

from .configuration import constraint_matrix, evaluate, new_work
from .kernels.state import (BRANCH_RATIO, CONDITIONING, CURVED_FLAGS, CONDITIONING_HERE, CORRECTOR_RESULT,
                            CORRECTOR_RESULT_SIZE, ERROR, HALVING_LIMIT, ITERATION_LIMIT, ITERATIONS, LAST_ERROR, LAST_ITERATIONS, MOTION_LIMIT,
                            NEWTON_STEP_LIMIT, RANK_TOLERANCE, REACHED, RECHOOSE_RCOND, SINGULAR_CONDITIONING,
                            SINGULAR_RCOND, STEP_BUDGET, STEPS_TAKEN, TANGENTS, TOLERANCE, TRUSTED_CONDITIONING,
                            VALID, WALK_COUNTERS, WALK_DIAGNOSTICS, WALK_PARAMETERS, WalkRecord, WalkState)
from .linear import new_factor, square_block_at
from .rates import empty_record

__all__ = ["DEFAULT_TOLERANCE", "MAX_TOLERANCE", "MIN_TOLERANCE", "closure_tolerance", "MAX_ITERATIONS",
           "iteration_count", "MAX_MOTION", "MAX_CORRECTION_RATIO", "DEAD_POINT_CONDITIONING", "MAX_HALVINGS",
           "MAX_STEPS", "TRUSTED_CONDITIONING", "Walk", "WalkStopped", "SpareWalks", "walk_parameters"]

#: Default closure tolerance: rotation defect (rad) and gap relative to the mechanism's size.
DEFAULT_TOLERANCE = 1e-10
#: Largest predicted motion in one continuation step (rad, or sizes for slides).
MAX_MOTION = 0.3
#: Correction over predicted motion above which a step is taken as a branch jump.
MAX_CORRECTION_RATIO = 0.3
#: Reciprocal condition number of the square block below which a stop is a dead point.
DEAD_POINT_CONDITIONING = 1e-3
#: Reciprocal condition number of a square block with rows left out below which its rows are
#: chosen anew (each new choice lowers the threshold tenfold below the new block's).
RECHOOSE_CONDITIONING = 1e-2
#: Halvings of one step before a walk gives up (the step is then ~1e-9 of its span).
MAX_HALVINGS = 30
#: Newton iterations per continuation step, and the largest Newton step (dimensionless).
NEWTON_ITERATIONS = 10
MAX_NEWTON_STEP = 0.5
#: Continuation steps one walk may take in all.
MAX_STEPS = 1_000_000
#: Steps per call of the compiled walk, between which Python sees Ctrl-C and updates progress.
STEPS_PER_CALL = 2000
#: Loosest closure tolerance accepted (dimensionless): looser would return open positions.
MAX_TOLERANCE = 1e-6
#: Tightest closure tolerance accepted: near the round-off of the closure equations.
MIN_TOLERANCE = 1e-14


def closure_tolerance(value, where="tolerance") -> float:
    """``value`` checked as a closure tolerance in ``[MIN_TOLERANCE, MAX_TOLERANCE]``."""
    if isinstance(value, bool):
        raise ModelError(where, f"expected a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ModelError(where, f"expected a number, got {str(value)[:40]!r}") from None
    if MIN_TOLERANCE <= number <= MAX_TOLERANCE:
        return number
    span = (f"[{MIN_TOLERANCE:g}, {MAX_TOLERANCE:g}] (dimensionless: rotation in rad, gap over the "
            "mechanism's size)")
    if math.isnan(number):
        raise ModelError(where, f"must be a number in {span}, got nan")
    if number > MAX_TOLERANCE:
        raise ModelError(where, f"{number!r} is looser than {MAX_TOLERANCE:g}, which would return positions "
                         f"whose loops are open: it must lie in {span}")
    if number <= 0:
        raise ModelError(where, f"must be positive, got {number!r}: it must lie in {span}")
    if number < MIN_TOLERANCE:
        raise ModelError(where, f"{number!r} is tighter than {MIN_TOLERANCE:g}, below the round-off of the closure "
                         f"equations: it must lie in {span}")
    return number


#: Most Newton iterations one closure may take.
MAX_ITERATIONS = 10_000


def iteration_count(value, where="max_iterations") -> int:
    """``value`` checked as a number of iterations in ``[1, MAX_ITERATIONS]``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_ITERATIONS:
        raise ModelError(where, f"expected a whole number in [1, {MAX_ITERATIONS}], got {str(value)[:40]!r}")
    return int(value)


def walk_parameters(tolerance, tangents=None, system=None, block=None) -> np.ndarray:
    """The compiled walk's and corrector's ``params`` (see :mod:`loops.kernels.continuation`) at
    a closure ``tolerance``: the limits of this module; rows are chosen anew below
    RECHOOSE_CONDITIONING only when ``block`` (of ``system``) leaves rows out (else never: 0);
    tangents are made for the first ``tangents`` driven columns (all of them but held ones
    that never move; None: all)."""
    rechoose = RECHOOSE_CONDITIONING if block is not None and _leaves_rows_out(system, block) else 0.0
    tangents = np.iinfo(np.int32).max if tangents is None else tangents
    params = np.zeros(WALK_PARAMETERS)
    params[TOLERANCE] = tolerance
    params[MOTION_LIMIT] = MAX_MOTION
    params[BRANCH_RATIO] = MAX_CORRECTION_RATIO
    params[HALVING_LIMIT] = MAX_HALVINGS
    params[ITERATION_LIMIT] = NEWTON_ITERATIONS
    params[NEWTON_STEP_LIMIT] = MAX_NEWTON_STEP
    params[SINGULAR_RCOND] = SINGULAR_CONDITIONING
    params[RECHOOSE_RCOND] = rechoose
    params[TANGENTS] = tangents
    return params


def _leaves_rows_out(system, block) -> bool:
    """True when the square ``block`` leaves closure equations out (redundant ones)."""
    return np.count_nonzero(block.row_position >= 0) < system.rows


class WalkStopped(Exception):
    """A walk could not reach its target (internal: callers turn it into their own stop).

    ``kind`` is ``"dead point"``, ``"closure"``, ``"steps"`` or ``"start"``; ``conditioning``
    the reciprocal condition number of the square block where the walk stopped; ``error``
    and ``iterations`` those of the last Newton correction tried.
    """

    def __init__(self, kind, conditioning=float("nan"), error=float("nan"), iterations=0):
        super().__init__(kind)
        self.kind, self.conditioning, self.error, self.iterations = kind, conditioning, error, iterations


class Walk:
    """A closed configuration with driven columns, and the machinery to move them.

    Parameters
    ----------
    system : loops.compiled.CompiledSystem
    driven : (d,) int, the driven columns
    q, rotations : start (default: the reference assembly); closed by Newton first
    tolerance : float, closure tolerance (dimensionless)

    Raises
    ------
    WalkStopped
        (kind ``"start"``) when the start cannot be closed, or the driven columns leave some
        freedom undetermined there.
    """

    def __init__(self, system, driven, q=None, rotations=None, tolerance=DEFAULT_TOLERANCE):
        from .kernels import continuation as kernels  # noqa: PLC0415 (kernels load on first use)

        self._kernels = kernels
        self.system = system
        self.driven = np.asarray(driven, dtype=np.int64)
        self.tolerance = float(tolerance)
        self.params = walk_parameters(tolerance)
        self.counters = np.zeros(WALK_COUNTERS, dtype=np.int64)
        self.counters[STEP_BUDGET] = MAX_STEPS
        self.diagnostics = np.zeros(WALK_DIAGNOSTICS)
        self.here = new_work(system, q, rotations)
        start = evaluate(system, self.here.q, self.here.rotations)
        self.block = self._block_at(start)
        self._set_rechoose_threshold(RECHOOSE_CONDITIONING)
        self._allocate()
        _, status = kernels.walk_positions(system.topology, system.geometry, self.block, self.state(),
                                           self._no_targets, self._no_targets, self._no_targets, 0, kernels.CLOSE,
                                           self.params, self.counters, self.diagnostics, self._no_record)
        if status != 0:
            result = self.diagnostics[CORRECTOR_RESULT:CORRECTOR_RESULT + CORRECTOR_RESULT_SIZE]
            raise WalkStopped("start", error=result[ERROR], iterations=int(result[ITERATIONS]))
        if self.factor.info[VALID] == 0.0:
            self._singular_start()

    # ---------------------------------------------------------------- set-up
    def _block_at(self, config):
        block = square_block_at(self.system, config, self.driven)
        if block is None:
            raise WalkStopped("start", conditioning=0.0)
        return block

    def _set_rechoose_threshold(self, value):
        """Watch the block's conditioning only when it leaves rows out (redundant equations)."""
        self.params[RECHOOSE_RCOND] = value if _leaves_rows_out(self.system, self.block) else 0.0

    def _allocate(self):
        system, d = self.system, len(self.driven)
        self.factor = new_factor(self.block)
        self.trial = new_work(system, self.here.q, self.here.rotations)
        self.trial_factor = new_factor(self.block)
        self.G = np.zeros((system.n, d))
        self.new_G = np.zeros((system.n, d))
        # The memory of the last two accepted steps (their starts' tangents, their driven
        # increments): the predictor's (loops.kernels.continuation._predict); zero: none yet.
        self.last_G = np.zeros((2, system.n, d))
        self.last_step = np.zeros((2, d))
        # Curvatures along the steps' line, recorded once steps prove long (see the kernels' module).
        self.curvature = np.zeros((2, system.n))
        self.curved = np.zeros(CURVED_FLAGS)
        # What the compiled walk takes where it records nothing (loops.kernels.continuation's modes).
        self._no_targets = np.zeros((0, d))
        self._no_record = empty_record(system, d)

    def _singular_start(self):
        """At a start on a singular position there is no incoming tangent: take the
        minimum-norm one (least squares on the whole of ``B``)."""
        system = self.system
        B = constraint_matrix(system, self.configuration(), scaled=True)
        free = self.block.free
        scale = system.column_scale
        rhs = -B[:, self.driven] / scale[self.driven]
        x = np.linalg.lstsq(B[:, free], rhs, rcond=RANK_TOLERANCE)[0]
        self.G[:] = 0.0
        self.G[self.driven, np.arange(len(self.driven))] = 1.0
        self.G[free] = x * scale[free, None]

    def copy(self) -> "Walk":
        """An independent walk standing where this one stands (its arrays copied; the compiled
        system, the square block and whatever else holds no writable number, shared)."""
        plan = self.__dict__.get("_copy_plan")
        if plan is None:
            plan = self._copy_plan = [(key, _copy_plan(value)) for key, value in self.__dict__.items()
                                      if key not in _SPARE_KEYS]
            plan[:] = [(key, how) for key, how in plan if how is not None]
        other = object.__new__(Walk)
        values = {key: value for key, value in self.__dict__.items() if key not in _SPARE_KEYS}
        for key, how in plan:
            value = values[key]
            values[key] = value.copy() if how is True else _copied(value, how)
        other.__dict__ = values
        return other

    def _packed(self) -> "Walk":
        """A copy (:meth:`copy`) whose copied arrays are views of one buffer, laid out the same
        for every packed copy of one walk: :meth:`_stand_as` puts it where another stands by one
        copy of that buffer (:class:`SpareWalks`)."""
        other = self.copy()
        plan = self.__dict__["_copy_plan"]
        leaves = []
        for key, how in plan:
            _leaves(getattr(other, key), how, leaves)
        offsets = np.cumsum([0] + [-(-leaf.nbytes // 64) * 64 for leaf in leaves])  # 64-byte aligned
        size = int(offsets[-1])
        whole = np.empty(size + 64, dtype=np.uint8)
        skip = -whole.ctypes.data % 64
        buffer = whole[skip:skip + size]
        views = [buffer[start:start + leaf.nbytes].view(leaf.dtype).reshape(leaf.shape)
                 for start, leaf in zip(offsets[:-1].tolist(), leaves)]
        for view, leaf in zip(views, leaves):
            view[...] = leaf
        views = iter(views)
        for key, how in plan:
            setattr(other, key, _rebuilt(getattr(other, key), how, views))
        other._buffer = buffer
        other._standing = dict(other.__dict__)
        return other

    def _stand_as(self, other):
        """Stand where ``other`` stands, both packed copies of one walk (:meth:`_packed`)."""
        np.copyto(self._buffer, other._buffer)
        self.__dict__.update(self._standing)

    def rechoose_rows(self):
        """Choose the square block's rows anew at the current position (the rows chosen before
        became dependent or ill conditioned: a spatial overconstrained loop); True when the new
        block is better conditioned. Either way the conditioning watched for the next choice
        drops tenfold below the block kept."""
        before = self.conditioning
        block = square_block_at(self.system, self.configuration(), self.driven)
        changed = block is not None and not (np.array_equal(block.row_position, self.block.row_position)
                                             and block.kl == self.block.kl and block.ku == self.block.ku)
        if changed:
            old = (self.block, self.factor, self.trial_factor, self.G.copy())
            incoming = self.G.copy()
            self.block = block
            self.factor = new_factor(block)
            self.trial_factor = new_factor(block)
            self._kernels.tangent_at(self.system.topology, self.system.geometry, block, self.here, self.factor,
                                     self.G, incoming, SINGULAR_CONDITIONING, int(self.params[TANGENTS]))
            if self.conditioning <= before:
                self.block, self.factor, self.trial_factor, G = old
                self.G[:] = G
                changed = False
        self._set_rechoose_threshold(min(RECHOOSE_CONDITIONING, 0.1 * self.conditioning))
        return changed

    # ------------------------------------------------------------------ state
    def state(self) -> WalkState:
        """The arrays the compiled walk takes (:class:`~loops.kernels.state.WalkState`), this
        walk's own (not copies)."""
        return WalkState(self.here, self.factor, self.G, self.trial, self.trial_factor, self.new_G, self.last_G,
                         self.last_step, self.curvature, self.curved)

    @property
    def q(self) -> np.ndarray:
        """Current variables (n,) (copy)."""
        return self.here.q.copy()

    @property
    def driven_values(self) -> np.ndarray:
        return self.here.q[self.driven].copy()

    @property
    def reached(self) -> int:
        """Positions recorded by the last :meth:`positions` call (the index it reached)."""
        return int(self.diagnostics[REACHED])

    @property
    def conditioning(self) -> float:
        """Reciprocal condition number (1-norm) of the square block here; 0 at a singular position."""
        return float(self.factor.info[CONDITIONING]) if self.factor.info[VALID] else 0.0

    def configuration(self):
        """The current :class:`loops.configuration.Configuration`."""
        return evaluate(self.system, self.here.q, self.here.rotations)

    def result(self, names, reason=None):
        """The position the walk stands on as a one-position :class:`loops.results.SweepResult`
        driven by ``names`` (the first of the driven columns; the rest are held), at rest:
        what a stopped walk keeps (``SweepStopped.partial``)."""
        from .results import SweepResult  # noqa: PLC0415 (results import this module's users)

        system, links = self.system, self.system.topology.links
        held = [system.variable_names[c] for c in self.driven[len(names):]]
        zeros = np.zeros((1, system.n))
        return SweepResult(system, list(names), self.here.q[None].copy(), zeros, zeros.copy(),
                           self.here.T[None].copy(), np.zeros((1, links, 6)), np.zeros((1, links, 6)), held=held,
                           stop_reason=reason, rotations=self.here.rotations[None].copy(), tangents=self.G[None].copy())

    # ------------------------------------------------------------------ moves
    def to(self, target):
        """Walk the driven values to ``target`` (d,); raises :class:`WalkStopped`."""
        target = np.asarray(target, dtype=float)
        if np.array_equal(target, self.here.q[self.driven]):
            return  # standing there (a simulation from the design pose): no kernel to load
        k = self._kernels
        system = self.system
        targets = np.ascontiguousarray(target).reshape(1, -1)
        retried = False
        while True:
            self.counters[STEP_BUDGET] = min(self.counters[STEPS_TAKEN] + STEPS_PER_CALL, MAX_STEPS)
            _, status = k.walk_positions(system.topology, system.geometry, self.block, self.state(), targets, targets,
                                         targets, 0, k.CONTINUE, self.params, self.counters, self.diagnostics,
                                         self._no_record)
            if status == k.OK:
                return
            if status == k.RECHOOSE:
                self.rechoose_rows()
                continue
            if status == k.BUDGET:
                if self.counters[STEPS_TAKEN] >= MAX_STEPS:
                    raise self._stopped("steps")
                continue
            if not retried and self.rechoose_rows():
                retried = True
                continue
            raise self._stopped()

    def positions(self, targets, speeds, accelerations, first, out):
        """Walk through ``targets[first:]`` recording into ``out`` (a dict of the arrays of a
        :class:`~loops.kernels.state.WalkRecord` by field name, see
        :func:`loops.kernels.continuation.walk_positions`) for at most :data:`STEPS_PER_CALL`
        steps. Returns ``(index reached, done)``; raises :class:`WalkStopped` at a stop."""
        k = self._kernels
        system = self.system
        self.counters[STEP_BUDGET] = min(int(self.counters[STEPS_TAKEN]) + STEPS_PER_CALL, MAX_STEPS)
        record = WalkRecord._make(map(out.__getitem__, WalkRecord._fields))
        index, status = k.walk_positions(system.topology, system.geometry, self.block, self.state(), targets, speeds,
                                         accelerations, first, k.RECORD, self.params, self.counters, self.diagnostics,
                                         record)
        if status == k.OK:
            return index, True
        if status == k.RECHOOSE:
            self.rechoose_rows()
            return index, False
        if status == k.BUDGET:
            if self.counters[STEPS_TAKEN] >= MAX_STEPS:
                raise self._stopped("steps")
            return index, False
        if self.rechoose_rows():
            return index, False
        raise self._stopped()

    def _stopped(self, kind=None):
        conditioning = float(self.diagnostics[CONDITIONING_HERE])
        if kind is None:
            kind = "dead point" if conditioning < DEAD_POINT_CONDITIONING else "closure"
        return WalkStopped(kind, conditioning, float(self.diagnostics[LAST_ERROR]),
                            int(self.diagnostics[LAST_ITERATIONS]))


def _copy_plan(value):
    """How :meth:`Walk.copy` copies an attribute ``value`` of a walk, worked out once per walk:
    None to share it (no array in it can be written: read-only or empty), True to copy an
    array, ``(kind, parts)`` for a named tuple of arrays with each field's plan."""
    if isinstance(value, np.ndarray):
        return True if value.flags.writeable and value.size else None
    kind = type(value)
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):
        parts = [_copy_plan(v) for v in value]
        return None if all(part is None for part in parts) else (kind, parts)
    return None


def _copied(value, plan):
    """A copy of the named tuple ``value`` by its :func:`_copy_plan` ``(kind, parts)``."""
    kind, parts = plan
    return kind._make([v if part is None else v.copy() if part is True else _copied(v, part)
                       for v, part in zip(value, parts)])


def _leaves(value, plan, out):
    """The arrays of ``value`` its :func:`_copy_plan` ``plan`` copies, in order, appended to ``out``."""
    if plan is True:
        out.append(value)
        return
    for v, part in zip(value, plan[1]):
        if part is not None:
            _leaves(v, part, out)


def _rebuilt(value, plan, views):
    """``value`` with the arrays its ``plan`` copies taken from the iterator ``views`` in order."""
    if plan is True:
        return next(views)
    kind, parts = plan
    return kind._make([v if part is None else _rebuilt(v, part, views) for v, part in zip(value, parts)])


#: A packed walk's own attributes (:meth:`Walk._packed`), which a copy does not take.
_SPARE_KEYS = ("_buffer", "_standing")


class SpareWalks:
    """Walks standing where ``walk`` stands, to walk from there again and again (a sweep from
    the reference assembly): :meth:`take` gives one, by one copy of a buffer when a walk given
    back (:meth:`give`) is at hand, else as a new packed copy (:meth:`Walk._packed`). The
    packed copy of ``walk`` they are put back to is never walked."""

    #: Walks kept for the next takers: one serves sweeps one after another; sweeps at the same
    #: time in other threads copy their own (a walk of a large model is megabytes).
    KEPT = 1

    def __init__(self, walk):
        self._start = walk._packed()
        self._spare = []

    def take(self) -> Walk:
        """A walk standing where ``walk`` stood, the caller's alone until it gives it back."""
        try:
            walk = self._spare.pop()
        except IndexError:
            return self._start._packed()
        walk._stand_as(self._start)
        return walk

    def give(self, walk):
        """Keep ``walk`` (one :meth:`take` gave) for a later taker; its caller is done with it."""
        if len(self._spare) < self.KEPT:
            self._spare.append(walk)
