"""Hardpoint loads of a load case (:mod:`.load_cases`) at every position of a wheel-travel sweep.

:func:`load_case` applies a case's force and moment to each wheel (the wheel link spinning on
the upright, held by its hub as an outboard brake holds it; the upright when there is no
wheel link) at the contact patch or the wheel centre of every position, and solves the
statics of the corner or axle with the model's own loads (gravity on every link, spring-dampers'
springs, pair springs). Either

* ``held_by="driver"`` (inverse statics): the wheel-travel drivers hold each wheel at the
  travels given; ``travel_force`` is the vertical force a driver holds at the wheel centre (N,
  + up on the wheel), what the spring does not carry. The pose does not depend on the load,
  so the pair reactions are one Newton-Euler solve per position
  (:func:`loops.reactions.pair_reactions`) with the case's wrench added to the wheel and the
  drivers' efforts completed by virtual work, ``tau_j = -W . V_j`` (``V_j`` the wheel's twist
  for a unit rate of fixed variable ``j``, :meth:`loops.results.Trajectory.rates_along`); or
* ``held_by="spring"``: the travel is free and each wheel settles where its spring carries
  the load: the travels at which the drivers hold nothing (Newton on every wheel's
  ``travel_force = 0``, its derivatives by central differences; an axle's wheels each at their
  own travel, coupled by an anti-roll bar if there is one). ``scale`` applies fractions of the
  case in turn, each settling from the last (a continuation along the load: the wheel's path
  as the load grows, until the spring can carry no more within the linkage's travel); one
  position, the whole case, by default. The table's first column is then ``load_scale``.

Columns (N; per position): ``wheel_travel`` (held by the spring: ``load_scale``, then the mean
``wheel_travel`` and on an axle each wheel's ``wheel_travel_left``, ``_right``); ``travel_force`` (per side on an axle); for
every pair ``P`` the force on its body side (the link nearer the body: the body for an inner
pivot, the arm for a ball joint) in vehicle axes, ``P_fx P_fy P_fz``, and in the pair's frame
(on its first link; z along the pair's axis), ``P_fx_pair P_fy_pair P_fz_pair``; for every
two-force member (a link between two spherical pairs: tie rod, toe link, push rod)
``<link>_axial``, the mean of its two ends' force along it, tension positive (exact when it
carries no other load; its weight makes the ends differ by its own component); for every
spring-damper ``<name>_force`` along it, compression positive (its spring at rest: a damper
carries nothing in statics); the steering variable's ``<rack>_force`` (what holds the rack,
N, along its slide).
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError, SweepStopped

from ..configuration import evaluate
from ..continuation import DEFAULT_TOLERANCE
from ..loads import compile_loads, compile_weights
from ..reactions import pair_reactions
from ..results import Column
from ..statics import equilibrium
from .corner import UP
from .load_cases import case_for
from .measure import contact_patch
from .model import SuspensionResult
from .motion import Motion

__all__ = ["load_case", "LoadCaseResult", "HELD_BY", "WheelLoads", "travel_drivers"]

#: What holds the wheel at each position: the travel drivers, or the suspension spring.
HELD_BY = ("driver", "spring")
#: Newton iterations of the spring-held travel, and its travel step for the stiffness (m).
SPRING_ITERATIONS, SPRING_STEP = 30, 1e-4


class LoadCaseResult(SuspensionResult):
    """A :class:`~loops.suspension.model.SuspensionResult` whose CSV's first line also names the
    load case and what holds the wheel."""

    @property
    def csv_note(self):
        case = self.case
        return (f"analysis: load case {case.name} ({case.longitudinal:g}, {case.lateral:g}, {case.vertical:g} "
                f"{case.unit} forward, outboard, up; moment {', '.join(f'{m:g}' for m in case.moment)} N m; at the "
                f"{case.at.replace('-', ' ')}) held by the {self.held_by} of {self.suspension.name!r}"
                + (" (the case times load_scale, the wheel travel settling)" if self.held_by == "spring" else ""))


class WheelLoads:
    """The corners' loaded links, hubs, axes and the case's force and moment in vehicle axes.

    ``link`` {side: the loaded link} (the wheel spinning on the upright, else the upright),
    ``hubs`` the pairs between them (held: a hub's spin carries no load), ``axes`` {side: (3, 3)
    rows forward, outboard, up: that wheel's own}, ``force`` and ``moment`` {side: (3,)} the case's,
    N and N m, global (a case in g needs the vehicle's corner load): written in the left wheel's
    axes and the same in vehicle axes on every wheel."""

    def __init__(self, susp, case):
        corner_load = None if susp.vehicle is None else susp.vehicle.corner_load()
        local = case.force_newtons(corner_load)
        self.case, self.sides = case, list(susp.corners)
        self.link, self.force, self.moment, self.hubs = {}, {}, {}, []
        self.axes = {side: _wheel_axes(side, corner) for side, corner in susp.corners.items()}
        # A case is written in one wheel's axes (the left, the outer one in cornering) and every
        # wheel takes it alike in vehicle axes: both tyres push the same way in a turn.
        axes = self.axes["left" if "left" in susp.corners else self.sides[0]]
        for side, corner in susp.corners.items():
            resolved = susp.resolved[side]
            self.force[side] = local @ axes
            self.moment[side] = np.asarray(case.moment) @ axes
            wheels = sorted(resolved.wheel_links - {corner.upright})
            self.link[side] = wheels[0] if len(wheels) == 1 else corner.upright
            for pair in susp.model.pairs:
                if not pair.virtual and {pair.first, pair.second} == {corner.upright, self.link[side]}:
                    self.hubs.append(pair.name)

    def wrenches(self, susp, result, scale):
        """{side: (N, 6)} the case's wrench on the wheel times ``scale`` (N,), ``(r x F + M, F)``
        about the origin, and {side: (N, 3)} where it acts."""
        out, where = {}, {}
        motion = Motion.of(result)
        for side, corner in susp.corners.items():
            if self.case.at == "contact-patch":
                point = contact_patch(result, corner)
            else:
                located = susp.resolved[side].wheel_centre
                pose = motion.pose(located.link)
                point = np.einsum("nij,j->ni", pose[:, :3, :3], located.r) + pose[:, :3, 3]
            force = scale[:, None] * self.force[side]
            out[side] = np.concatenate([np.cross(point, force) + scale[:, None] * self.moment[side], force], axis=1)
            where[side] = point
        return out, where


def load_case(susp, case, travel=None, *, held_by="driver", scale=None, travel_at="wheel-centre",
              tolerance=DEFAULT_TOLERANCE):
    """Hardpoint loads of ``case`` at every position (the module docstring).

    Parameters
    ----------
    susp : Suspension (a corner or an axle)
    case : str (a standard case's name or an own case's text), dict or LoadCase
    travel : (N,) wheel travel at the wheel centre, m (+ bump); both wheels of an axle alike.
        Required with ``held_by="driver"``; none with ``"spring"`` (the load sets it).
    held_by : {"driver", "spring"}
    scale : (N,) with ``held_by="spring"``, the fractions of the case applied in turn, each
        position settling from the last (default: the whole case, one position); numbers
        (the command line reads ``--scale START:STOP:STEP`` as any range)
    travel_at : "wheel-centre" (the travel drivers')
    tolerance : closure tolerance (dimensionless)

    Returns
    -------
    LoadCaseResult (a SuspensionResult)
        analysis ``"load case"``; ``case`` (the LoadCase), ``held_by``, ``reactions``
        (:class:`loops.reactions.PairReactions`, every pair), ``body_forces`` {pair: (N, 3)}
        and ``applied`` {side: (point (N, 3), force (3,), moment (3,))} besides the columns.

    Raises
    ------
    ModelError
        Unknown or malformed case, a case in g without ``[vehicle] mass``, bad ``held_by``,
        ``travel`` missing or given against ``held_by``, ``scale`` malformed or without the
        spring; held by the spring, a fraction of the case that no wheel travel balances.
    SweepStopped
        When the positions cannot be reached (``.partial``: none kept).
    """
    from .travel import input_values  # noqa: PLC0415

    if held_by not in HELD_BY:
        raise ModelError("held_by", f"expected 'driver' or 'spring', got {held_by!r}")
    if travel_at != "wheel-centre":
        raise ModelError("travel_at", "load cases take wheel travel at the wheel centre (the travel drivers')")
    wheels = WheelLoads(susp, case_for(case, susp.vehicle))
    if held_by == "driver":
        if travel is None:
            raise ModelError("travel", "held by the travel drivers: give the wheel travels (--travel)")
        if scale is not None:
            raise ModelError("scale", "held by the travel drivers the case is applied whole: give --scale with "
                             "--held-by spring")
        travel = input_values(travel, "travel")
        scale = np.ones(len(travel))
    elif travel is not None:
        raise ModelError("travel", "held by the spring, the load sets the wheel travel: give no travel "
                         "(or hold the wheel by its driver)")
    else:
        scale = _fractions(scale)
        travel = _spring_travels(susp, wheels, scale, tolerance)
    solved = _solve(susp, wheels, travel, scale, tolerance)
    return _finish(susp, wheels, travel, scale, held_by, solved)


def _fractions(scale):
    """The case's fractions (N,) from ``scale`` (None: the whole case; otherwise numbers, the
    command line's ``--scale START:STOP:STEP`` already read as a range); ModelError at
    ``scale`` otherwise."""
    if scale is None:
        return np.ones(1)
    if isinstance(scale, str):  # numpy would read "0.5" as a number and "0:1:0.1" not at all
        raise ModelError("scale", f"expected numbers (fractions of the case), got the text {scale[:40]!r}")
    try:
        values = np.asarray(scale, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ModelError("scale", f"expected numbers, got {str(scale)[:40]!r}") from None
    if not len(values) or not np.isfinite(values).all():
        raise ModelError("scale", f"expected finite fractions of the case, got {str(scale)[:40]!r}")
    return values


def _wheel_axes(side, corner):
    """(3, 3) rows forward, outboard, up of the wheel on ``side`` (vehicle axes, global)."""
    forward = np.array([1.0 if corner.forward == "+x" else -1.0, 0.0, 0.0])
    return np.array([forward, corner.left if side == "left" else -corner.left, UP])


def travel_drivers(susp, travel):
    """{driver: (N,)}: every corner's travel driver at ``travel`` (m; (N,) for every wheel alike,
    or (N, sides) one per wheel), the steering at its design value."""
    travel = np.asarray(travel, dtype=float)
    count = len(travel)
    columns = travel if travel.ndim == 2 else np.repeat(travel[:, None], len(susp.corners), axis=1)
    drivers = {susp.resolved[side].travel: columns[:, i] for i, side in enumerate(susp.corners)}
    drivers.update({name: np.zeros(count) for name in susp.steering})
    return drivers


def _held(susp, wheels, travel, scale, tolerance):
    """The equilibrium at ``travel`` held by the drivers, ``scale`` times the case's wrench added:
    ``(eq, efforts {fixed name: (N,)}, wrench {side: (N, 6)}, where {side: (N, 3)})``, the
    efforts by virtual work (the module docstring)."""
    eq = equilibrium(susp.mechanism, drivers=travel_drivers(susp, travel), hold=wheels.hubs, tolerance=tolerance)
    if eq.free:
        raise ModelError("corner", f"the travel, steering and hubs leave freedoms {', '.join(eq.free)} free: "
                         "load cases need a corner they fix")
    system, count = eq.system, len(eq)
    wrench, where = wheels.wrenches(susp, eq, scale)
    fixed = eq.drivers + eq.held
    efforts = {}
    for j, name in enumerate(fixed):
        unit = np.zeros((count, len(fixed)))
        unit[:, j] = 1.0
        along = eq.rates_along(unit)[2]
        work = sum(np.einsum("ni,ni->n", wrench[s], along[:, system.link_index[wheels.link[s]]])
                   for s in wheels.sides)
        efforts[name] = eq.force(name) - work
    return eq, efforts, wrench, where


def _solve(susp, wheels, travel, scale, tolerance):
    """:func:`_held` and the pair reactions: ``(eq, efforts, reactions, where)``."""
    eq, efforts, wrench, where = _held(susp, wheels, travel, scale, tolerance)
    system, count = eq.system, len(eq)
    extra = np.zeros((count, system.topology.links, 6))
    for side in wheels.sides:
        extra[:, system.link_index[wheels.link[side]]] += wrench[side]
    q, rotations, columns = eq.closed_positions()
    drive = np.zeros((count, system.n))
    for j, name in enumerate(eq.drivers + eq.held):
        drive[:, columns[j]] = efforts[name]
    model = eq.model
    reactions = pair_reactions(system, compile_loads(system, model, eq), compile_weights(system, model), q,
                               np.zeros_like(q), np.zeros(count), drive, extra=extra, rotations=rotations)
    return eq, efforts, reactions, where


def _spring_travels(susp, wheels, scale, tolerance):
    """The travels (N, sides) at which the travel drivers hold nothing under each fraction
    ``scale[i]`` of the case: Newton on the drivers' forces in the wheels' travels, their
    derivatives by central differences, each fraction starting from the last one's travels (a
    continuation along the load)."""
    names = [susp.resolved[side].travel for side in wheels.sides]
    sides = len(names)
    probe = np.vstack([np.zeros(sides), np.kron(np.eye(sides), [[1.0], [-1.0]]) * SPRING_STEP])

    def forces(values, fraction):
        """The drivers' forces (sides,) at ``values`` and their Jacobian (sides, sides)."""
        try:
            _, efforts, _, _ = _held(susp, wheels, values[None, :] + probe, np.full(len(probe), fraction),
                                     tolerance)
        except SweepStopped as stop:
            raise ModelError("held_by", f"held by the spring: no wheel travel balances load case "
                             f"{wheels.case.name!r} (at {fraction:g} of it the search reached "
                             f"{', '.join(f'{v:.6g}' for v in values)} m: {stop.reason})") from None
        table = np.array([efforts[name] for name in names]).T  # (probes, sides)
        slopes = (table[1::2] - table[2::2]).T / (2.0 * SPRING_STEP)
        return table[0], slopes

    out = np.zeros((len(scale), sides))
    values = np.zeros(sides)
    for i, fraction in enumerate(scale):
        force, slopes = forces(values, fraction)
        step = np.full(sides, np.inf)
        for _ in range(SPRING_ITERATIONS):
            try:
                step = -np.linalg.solve(slopes, force)
            except np.linalg.LinAlgError:
                break
            values = values + step
            force, slopes = forces(values, fraction)
            if np.abs(step).max() < 1e-12:
                break
        if not np.abs(step).max() < 1e-12:
            raise ModelError("held_by", f"held by the spring: no wheel travel balances load case "
                             f"{wheels.case.name!r} (at {fraction:g} of it the travel drivers hold "
                             f"{', '.join(f'{f:.6g}' for f in force)} N at {', '.join(f'{v:.6g}' for v in values)} m)")
        out[i] = values
    return out


def _body_side(model):
    """{link: its distance from the body in pairs} over the real pairs."""
    from mechanism.specs import GROUND  # noqa: PLC0415

    distance, frontier = {GROUND: 0}, [GROUND]
    pairs = [p for p in model.pairs if not p.virtual]
    while frontier:
        link = frontier.pop(0)
        for pair in pairs:
            for a, b in ((pair.first, pair.second), (pair.second, pair.first)):
                if a == link and b not in distance:
                    distance[b] = distance[a] + 1
                    frontier.append(b)
    return distance


def _members(model, wheel_links):
    """{link: (pair at end A, pair at end B)}: links between exactly two spherical pairs."""
    out = {}
    pairs = [p for p in model.pairs if not p.virtual]
    for link in model.links:
        ends = [p for p in pairs if link.name in (p.first, p.second)]
        if len(ends) == 2 and all(p.kind == "spherical" for p in ends) and link.name not in wheel_links:
            out[link.name] = tuple(ends)
    return out


def _finish(susp, wheels, travel, scale, held_by, solved):
    eq, efforts, reactions, where = solved
    model, system = eq.model, eq.system
    distance = _body_side(model)
    columns = []
    for side in wheels.sides:
        name = "travel_force" if len(wheels.sides) == 1 else f"travel_force_{side}"
        columns.append(Column(name, efforts[susp.resolved[side].travel], "force", 0))
    for name in susp.steering:
        columns.append(Column(f"{name}_force", efforts[name], "force", 0))
    body_forces = {}
    by_name = {p.name: p for p in model.pairs}
    for name in reactions.pairs:
        pair = by_name.get(name)
        if pair is None or pair.virtual:  # a point driver's
            continue
        sign = -1.0 if distance.get(pair.first, 1e9) <= distance.get(pair.second, 1e9) else 1.0
        body_forces[name] = sign * reactions.force(name)
        local = sign * reactions.force_local(name)
        columns += [Column(f"{name}_f{a}", body_forces[name][:, k], "force", 0) for k, a in enumerate("xyz")]
        columns += [Column(f"{name}_f{a}_pair", local[:, k], "force", 0) for k, a in enumerate("xyz")]
    wheel_links = set().union(*(susp.resolved[s].wheel_links for s in wheels.sides))
    for link, (a, b) in _members(model, wheel_links).items():
        ends = []
        for pair in (a, b):
            on_member = reactions.force(pair.name) * (1.0 if pair.second == link else -1.0)
            ends.append((reactions.frame(pair.name)[:, :3, 3], on_member))
        axis = ends[1][0] - ends[0][0]
        axis /= np.linalg.norm(axis, axis=1, keepdims=True)
        tension = 0.5 * (np.einsum("ni,ni->n", ends[1][1], axis) - np.einsum("ni,ni->n", ends[0][1], axis))
        columns.append(Column(f"{link}_axial", tension, "force", 0))
    reference = evaluate(system, system.reference_q()).link_poses
    for spring in model.spring_dampers:
        ends = []
        for link, at in ((spring.link_a, spring.at_a), (spring.link_b, spring.at_b)):
            ref = reference[system.link_index[link]]
            local = ref[:3, :3].T @ (np.asarray(at) - ref[:3, 3])
            pose = eq.pose(link)
            ends.append(np.einsum("nij,j->ni", pose[:, :3, :3], local) + pose[:, :3, 3])
        length = np.linalg.norm(ends[1] - ends[0], axis=1)
        columns.append(Column(f"{spring.name}_force", spring.stiffness * (spring.free_length - length), "force", 0))
    travel = np.asarray(travel, dtype=float)
    if held_by == "driver":
        inputs = [Column("wheel_travel", travel, "length", 0)]
    else:  # the case's fraction is the input; the travels (their mean, and each wheel's on an axle) settle
        inputs = [Column("load_scale", scale, "dimensionless", 0)]
        settled = [Column("wheel_travel", travel.mean(axis=1), "length", 0)]
        if len(wheels.sides) > 1:
            settled += [Column(f"wheel_travel_{side}", travel[:, i], "length", 0) for i, side in enumerate(wheels.sides)]
        columns = settled + columns
    result = susp.finish(eq, "load case", "wheel-centre", inputs, columns, None)
    result.__class__ = LoadCaseResult
    result.case, result.held_by, result.reactions, result.body_forces = wheels.case, held_by, reactions, body_forces
    result.applied = {side: (where[side], wheels.force[side], wheels.moment[side]) for side in wheels.sides}
    result.load_scale = scale
    result.loaded_links = dict(wheels.link)
    return result
