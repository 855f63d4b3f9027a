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
* ``held_by="spring"``: the travel is free and the corner settles where its spring carries
  the load: the travel at which the drivers hold nothing (Newton on ``travel_force = 0``, its
  derivative the equilibrium's stiffness by a central difference), one position.

Columns (N; per position): ``wheel_travel``; ``travel_force`` (per side on an axle); for
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
                f"{case.at.replace('-', ' ')}) held by the {self.held_by} of {self.suspension.name!r}")


class WheelLoads:
    """The corners' loaded links, hubs, axes and the case's force and moment in vehicle axes.

    ``link`` {side: the loaded link} (the wheel spinning on the upright, else the upright),
    ``hubs`` the pairs between them (held: a hub's spin carries no load), ``axes`` {side: (3, 3)
    rows forward, outboard, up}, ``force`` and ``moment`` {side: (3,)} the case's, N and N m,
    global (a case in g needs the vehicle's corner load)."""

    def __init__(self, susp, case):
        corner_load = None if susp.vehicle is None else susp.vehicle.corner_load()
        local = case.force_newtons(corner_load)
        self.case, self.sides = case, list(susp.corners)
        self.link, self.force, self.moment, self.hubs, self.axes = {}, {}, {}, [], {}
        for side, corner in susp.corners.items():
            resolved = susp.resolved[side]
            forward = np.array([1.0 if corner.forward == "+x" else -1.0, 0.0, 0.0])
            outboard = corner.left if side == "left" else -corner.left
            axes = self.axes[side] = np.array([forward, outboard, UP])
            self.force[side] = local @ axes
            self.moment[side] = np.asarray(case.moment) @ axes
            wheels = sorted(resolved.wheel_links - {corner.upright})
            self.link[side] = wheels[0] if len(wheels) == 1 else corner.upright
            for pair in susp.model.pairs:
                if not pair.virtual and {pair.first, pair.second} == {corner.upright, self.link[side]}:
                    self.hubs.append(pair.name)

    def wrenches(self, susp, result):
        """{side: (N, 6)} the case's wrench on the wheel, ``(r x F + M, F)`` about the origin,
        and {side: (N, 3)} where it acts."""
        out, where = {}, {}
        motion = Motion.of(result)
        for side, corner in susp.corners.items():
            if self.case.at == "contact-patch":
                point = contact_patch(result, corner)
            else:
                located = susp.resolved[side].wheel_centre
                pose = motion.pose(located.link)
                point = np.einsum("nij,j->ni", pose[:, :3, :3], located.r) + pose[:, :3, 3]
            force = np.broadcast_to(self.force[side], point.shape)
            out[side] = np.concatenate([np.cross(point, force) + self.moment[side], force], axis=1)
            where[side] = point
        return out, where


def load_case(susp, case, travel=None, *, held_by="driver", travel_at="wheel-centre",
              tolerance=DEFAULT_TOLERANCE):
    """Hardpoint loads of ``case`` at every position (the module docstring).

    Parameters
    ----------
    susp : Suspension (a corner or an axle)
    case : str (a standard case's name or an own case's text), dict or LoadCase
    travel : (N,) wheel travel at the wheel centre, m (+ bump); both wheels of an axle alike.
        Required with ``held_by="driver"``; none with ``"spring"`` (the load sets it).
    held_by : {"driver", "spring"}
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
        ``travel`` missing or given against ``held_by``.
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
        travel = input_values(travel, "travel")
    elif travel is not None:
        raise ModelError("travel", "held by the spring, the load sets the wheel travel: give no travel "
                         "(or hold the wheel by its driver)")
    else:
        travel = _spring_travel(susp, wheels, tolerance)
    solved = _solve(susp, wheels, travel, tolerance)
    return _finish(susp, wheels, travel, held_by, solved)


def travel_drivers(susp, travel):
    """{driver: (N,)}: every corner's travel driver at ``travel`` (m), the steering at its design value."""
    count = len(travel)
    drivers = {susp.resolved[side].travel: np.asarray(travel, dtype=float) for side in susp.corners}
    drivers.update({name: np.zeros(count) for name in susp.steering})
    return drivers


def _solve(susp, wheels, travel, tolerance):
    """The equilibrium at ``travel`` held by the drivers, the case's wrench added: ``(eq,
    efforts {fixed name: (N,)}, reactions, where {side: (N, 3)})``."""
    eq = equilibrium(susp.mechanism, drivers=travel_drivers(susp, travel), hold=wheels.hubs, tolerance=tolerance)
    if eq.free:
        raise ModelError("corner", f"the travel, steering and hubs leave freedoms {', '.join(eq.free)} free: "
                         "load cases need a corner they fix")
    system, count = eq.system, len(eq)
    wrench, where = wheels.wrenches(susp, eq)
    extra = np.zeros((count, system.topology.links, 6))
    for side in wheels.sides:
        extra[:, system.link_index[wheels.link[side]]] += wrench[side]
    fixed = eq.drivers + eq.held
    q, rotations, columns = eq.closed_positions()
    drive = np.zeros((count, system.n))
    efforts = {}
    for j, name in enumerate(fixed):
        speeds = np.zeros((count, len(fixed)))
        speeds[:, j] = 1.0
        twists = eq.rates_along(speeds)[2]
        work = sum(np.einsum("ni,ni->n", wrench[s], twists[:, system.link_index[wheels.link[s]]])
                   for s in wheels.sides)
        efforts[name] = eq.force(name) - work
        drive[:, columns[j]] = efforts[name]
    model = eq.model
    reactions = pair_reactions(system, compile_loads(system, model, eq), compile_weights(system, model), q,
                               np.zeros_like(q), np.zeros(count), drive, extra=extra, rotations=rotations)
    return eq, efforts, reactions, where


def _spring_travel(susp, wheels, tolerance):
    """The travel (1,) at which the travel drivers hold nothing (both wheels of an axle alike:
    their mean force): Newton on that force, its slope by a central difference."""
    names = [susp.resolved[side].travel for side in wheels.sides]

    def held(value):
        try:
            _, efforts, _, _ = _solve(susp, wheels, np.array([value]), tolerance)
        except SweepStopped as stop:
            raise ModelError("held_by", f"held by the spring: no wheel travel balances load case "
                             f"{wheels.case.name!r} (the search reached {value:.6g} m: {stop.reason})") from None
        return float(np.mean([efforts[name][0] for name in names]))

    value, force = 0.0, held(0.0)
    for _ in range(SPRING_ITERATIONS):
        slope = (held(value + SPRING_STEP) - held(value - SPRING_STEP)) / (2.0 * SPRING_STEP)
        if not abs(slope) > 0.0:
            break
        step = -force / slope
        value += step
        force = held(value)
        if abs(step) < 1e-12:
            return np.array([value])
    raise ModelError("held_by", f"held by the spring: no wheel travel balances load case {wheels.case.name!r} "
                     f"(the travel drivers hold {force:.6g} N at {value:.6g} m)")


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


def _finish(susp, wheels, travel, held_by, solved):
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
    inputs = [Column("wheel_travel", np.asarray(travel, dtype=float), "length", 0)]
    result = susp.finish(eq, "load case", "wheel-centre", inputs, columns, None)
    result.__class__ = LoadCaseResult
    result.case, result.held_by, result.reactions, result.body_forces = wheels.case, held_by, reactions, body_forces
    result.applied = {side: (where[side], wheels.force[side], wheels.moment[side]) for side in wheels.sides}
    result.loaded_links = dict(wheels.link)
    return result
