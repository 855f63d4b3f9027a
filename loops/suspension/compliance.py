"""Compliance analyses of a corner or axle on bushings: what a K&C rig measures.

Both analyses take the model's **compliant variant** (:meth:`mechanism.Mechanism.use_bushings`:
the pairs the bushings replace give way to them; a model without bushings is refused, saying
how to add them) and hold every wheel by its travel driver at the travels given, the steering
at its design value and each wheel's spin on its hub, as a K&C rig's wheel pads and clamps
do; the bushings settle where the model's own loads (gravity, the springs) balance
(:func:`loops.equilibrium`).

:func:`compliance` (``--analysis compliance``): at every position, the compliance under a unit
load on each wheel, exact from the linearised equilibrium (METHOD.md "Compliance" (C1)-(C3),
:func:`loops.compliance.load_response`; no load applied, no step size), the toe and camber
rates by the metrics' own jets (:mod:`.wheel`). The loads, in the corner's axes (as a
:class:`~loops.suspension.load_cases.LoadCase`: + forward, + outboard, + up), on the wheel:

=====================  =========================================================
load                   what
=====================  =========================================================
``lateral_patch``      1 N outboard at the contact patch (cornering, the inner wheel)
``lateral_centre``     1 N outboard at the wheel centre
``longitudinal_patch`` 1 N forward at the contact patch (minus braking, outboard brakes)
``longitudinal_centre`` 1 N forward at the wheel centre (traction; braking with inboard brakes)
``aligning``           1 N m about the vertical, turning the wheel's front outboard (toe-out)
=====================  =========================================================

Columns, per load: ``compliance_steer_<load>`` (toe, + toe-in) and ``compliance_camber_<load>``
(camber, + top outboard) in angle per kN (per 100 N m for ``aligning``; in memory rad per kN
and rad per 100 N m, the file's angle unit on the CSV: deg/kN); then the stiffnesses
``lateral_stiffness_patch``, ``lateral_stiffness_centre``, ``longitudinal_stiffness_patch``,
``longitudinal_stiffness_centre`` (N/m, N/mm in a mm file): the load over the displacement it
makes along itself of the point it acts at (the contact patch of :mod:`.wheel`, or the wheel
centre). An axle's columns end in ``_left`` and ``_right``. With ``case`` the compliance is
taken about the loaded equilibrium (the case's force held on the wheels).

:func:`kc_curves` (``--analysis kc``): parallel travel of the compliant variant under the
constant load ``case`` (its force and moment on each wheel, :mod:`.load_cases`), beside the
rigid variant's kinematic curve: columns ``toe``, ``camber`` (loaded), ``toe_rigid``,
``camber_rigid`` and their differences ``toe_change``, ``camber_change``; the sheet draws
the loaded and the rigid curves on the same axes.

Where a held load acts, in both: at the wheel centre, the wheel's own point (it moves with the
wheel); at the contact patch, at the patch of :mod:`.wheel` of every equilibrium, the wheel's
lowest point on its loaded radius under the ground normal, whichever point of the wheel sits
there as the upright pitches and steers. The compliant variant holds it as a point force on
the wheel's circle (centre, spin axis, loaded radius) at the circle's point farthest down
(:meth:`mechanism.Mechanism.add_point_force` with ``circle``, METHOD.md (E8)): its generalized
force is the wheel's material point there, and its stiffness, in the linearised equilibrium
:func:`compliance` takes about a loaded pose, has the term of that point sliding over the
wheel (zero at no load; the reduced stiffness is then not symmetric, and stability is judged
on its symmetric part, :class:`loops.statics.EquilibriumResult`). Holding the load at the
material point at the design patch instead, the upright's pitch over the travel (castor
change) would carry it off the patch by the loaded radius times the pitch: 1.1 to 1.6 % of a
lateral load's steer at the shipped axle's +-40 mm (tests/test_kc_patch.py measures both). A
case's moment is a free moment on the wheel's link (:meth:`mechanism.Mechanism.add_link_moment`,
METHOD.md (E9)): constant in vehicle axes whatever the wheel's turns.
"""

from __future__ import annotations

import copy

import numpy as np

from mechanism.errors import ModelError, SweepStopped

from ..compliance import load_response
from ..continuation import DEFAULT_TOLERANCE
from ..results import Column
from ..statics import equilibrium
from . import jets
from .hardpoint_loads import WheelLoads, travel_drivers
from .load_cases import LoadCase, case_for
from .model import Suspension
from .motion import Frame, Motion
from .standard import parallel_travel
from .travel import input_values
from .wheel import Wheel, camber, toe

__all__ = ["compliance", "kc_curves", "compliant_variant", "compliance_columns", "unit_wrenches", "settle_compliance",
           "COMPLIANCE_LOADS", "PER_KILONEWTON", "PER_100_NM"]

#: The unit loads of :func:`compliance`: (name, direction in the corner's axes, where), the
#: direction ``"toe-out"`` a moment about the vertical turning the wheel's front outboard
#: (``forward x outboard``: up on a left wheel, down on a right one, mirror images).
COMPLIANCE_LOADS = (("lateral_patch", "outboard", "contact-patch"), ("lateral_centre", "outboard", "wheel-centre"),
                    ("longitudinal_patch", "forward", "contact-patch"),
                    ("longitudinal_centre", "forward", "wheel-centre"), ("aligning", "toe-out", "moment"))
#: A compliance's column quantity and scale: rad per kN (force loads), rad per 100 N m (moment).
PER_KILONEWTON, PER_100_NM = "angle_per_kilonewton", "angle_per_100_newton_metres"
_SCALE = {PER_KILONEWTON: 1e3, PER_100_NM: 1e2}
_AXES = {"forward": 0, "outboard": 1}
_NO_LOAD = LoadCase("none", unit="N")


#: The compliant variants made so far, by the suspension, its mechanism's frozen model (a new
#: one after any change of the mechanism) and the forces held on the wheels: a variant is a
#: deep copy of the mechanism and a Suspension set up anew, and a new variant is a new model,
#: whose compiled system and free coordinates (:func:`loops.equilibrium`) are made anew too.
_VARIANTS = {}


def compliant_variant(susp, wheels=None) -> Suspension:
    """``susp`` in its compliant variant (a copy; ``susp`` is unchanged), with the force and
    moment of ``wheels`` (:class:`~loops.suspension.hardpoint_loads.WheelLoads`, or None) held
    on each loaded link: the force at the contact patch or the wheel's centre (:func:`_held_forces`),
    the moment as a free moment on the link.

    The copy is made once per suspension, state of its mechanism and held forces, and given
    again while its own mechanism is unchanged (a change to either mechanism makes a new one).

    Raises
    ------
    ModelError
        At ``bushings`` for a model without bushings.
    """
    model = susp.model
    if not model.bushings:
        raise ModelError("bushings", f"{susp.name!r} has no bushings: compliance needs the compliant variant. Add "
                         "[[bushings]] tables (name, links, at, axes, stiffness, replaces = the pair each stands for) "
                         "to the model file, or Mechanism.add_bushing, as examples/front_axle_bushings.toml does")
    held = _held_forces(susp, wheels)
    source = susp.mechanism.snapshot()
    key = (id(susp), id(source), held)
    hit = _VARIANTS.get(key)
    if hit is not None and hit[0] is susp and hit[1] is source and hit[2].mechanism.snapshot() is hit[2].model:
        return hit[2]
    mechanism = copy.deepcopy(susp.mechanism)
    mechanism.use_bushings(True)
    for name, link, at, force, circle in held:
        if at is None:
            mechanism.add_link_moment(name, link, force)
        else:
            mechanism.add_point_force(name, link, at, force, circle)
    variant = Suspension(mechanism, susp.corners, susp.vehicle, susp.units, susp.name)
    if len(_VARIANTS) >= 8:
        _VARIANTS.clear()
    _VARIANTS[key] = (susp, source, variant)
    return variant


def _held_forces(susp, wheels):
    """The loads that hold ``wheels``' forces and moments: a tuple of ``(name, link, at (3,), force
    (3,), circle)``, plain floats (a key of :data:`_VARIANTS`). A force at the contact patch
    acts on the wheel's circle (centre, spin axis, loaded radius) at its point farthest down
    (:meth:`mechanism.Mechanism.add_point_force`, METHOD.md (E8)): the patch of :mod:`.wheel`
    at every pose; one at the wheel centre at the link's point. A moment is ``(name, link,
    None, moment (3,) N m, None)``: a free moment on the link (METHOD.md (E9))."""
    out = []
    for side in () if wheels is None else wheels.sides:
        design, corner = susp.design[side], susp.corners[side]
        link = wheels.link[side]
        if np.any(wheels.force[side]):
            circle = None  # at the wheel centre, a point of the link
            if wheels.case.at == "contact-patch":
                down = tuple(map(float, -np.asarray(corner.axes[2])))
                circle = (tuple(map(float, design.spin)), float(corner.wheel_radius), down)
            out.append((f"case_{side}", link, design.centre, wheels.force[side], circle))
        moment = wheels.moment[side]
        if np.any(moment):
            out.append((f"case_moment_{side}", link, None, moment, None))
    return tuple((name, link, None if at is None else tuple(map(float, at)), tuple(map(float, force)), circle)
                 for name, link, at, force, circle in out)


def _settle(susp, travel, wheels, tolerance):
    """The compliant variant's equilibria at ``travel`` held by the travel drivers:
    ``(variant, EquilibriumResult, stop)`` (``stop`` a SweepStopped with its positions reached)."""
    variant = compliant_variant(susp, wheels)
    try:
        return variant, equilibrium(variant.mechanism, drivers=travel_drivers(variant, travel), hold=wheels.hubs,
                                    tolerance=tolerance), None
    except SweepStopped as stop:
        return variant, stop.partial, stop


def _suffix(susp, side):
    return f"_{side}" if susp.is_axle else ""


def _wheel(variant, side, motion):
    corner = variant.corners[side]
    return Wheel(variant.resolved[side], corner, variant.design[side], motion, Frame.body(corner))


def unit_wrenches(variant, record, wheels):
    """(N, K, L, 6) the unit loads of :data:`COMPLIANCE_LOADS` on each side's loaded link (K = 5
    per side, sides in order), about the origin, at the positions' contact patches and wheel
    centres."""
    system = record.system
    count, links = len(record), system.topology.links
    out = np.zeros((count, len(COMPLIANCE_LOADS) * len(wheels.sides), links, 6))
    rest = Motion.of(record)
    for s, side in enumerate(wheels.sides):
        wheel = _wheel(variant, side, rest)
        link = system.link_index[wheels.link[side]]
        forward, outboard, _ = wheels.axes[side]
        directions = {"forward": forward, "outboard": outboard, "toe-out": np.cross(forward, outboard)}
        for j, (_, direction, where) in enumerate(COMPLIANCE_LOADS):
            unit = directions[direction]
            k = s * len(COMPLIANCE_LOADS) + j
            if where == "moment":
                out[:, k, link, :3] = unit
                continue
            point = wheel.P.value if where == "contact-patch" else wheel.C.value
            out[:, k, link, :3] = np.cross(point, unit)
            out[:, k, link, 3:] = unit
    return out


class _Loads(Motion):
    """The motions of ``loads`` unit loads one after another along the rows (``loads N`` rows):
    the record's poses repeated, each load's twists ``twists`` (N, loads, L, 6); a point given
    per position (a design study's variants, (N, 3)) repeated alike. One wheel along it takes
    every load's metrics at once."""

    def __init__(self, record, twists):
        count, loads = twists.shape[:2]
        index = record.system.link_index
        super().__init__(lambda link: np.tile(record.pose(link), (loads, 1, 1)),
                         lambda link: twists[:, :, index[link]].transpose(1, 0, 2).reshape(loads * count, 6))
        self.count, self.loads = count, loads

    def point(self, located):
        r = np.tile(np.broadcast_to(located.r, (self.count, 3)), (self.loads, 1))
        return jets.point_jet(self.pose(located.link), self.twist(located.link), None, r)


def compliance_columns(variant, record, wheels, response=None):
    """The columns of :func:`compliance` (module docstring) at the positions of ``record``, from
    ``response`` (a :class:`~loops.compliance.LoadResponse` to the :func:`unit_wrenches`; default
    the record's own, (C2))."""
    if response is None:
        response = load_response(record, unit_wrenches(variant, record, wheels))
    columns, stiffness = [], []
    count, per_side = len(record), len(COMPLIANCE_LOADS)
    for s, side in enumerate(wheels.sides):
        suffix = _suffix(variant, side)
        wheel = _wheel(variant, side, _Loads(record, response.twists[:, s * per_side:(s + 1) * per_side]))
        steer, tilt = (metric(wheel).d.reshape(per_side, count) for metric in (toe, camber))
        patch, centre = (point.d.reshape(per_side, count, 3) for point in (wheel.P, wheel.C))
        for j, (name, direction, where) in enumerate(COMPLIANCE_LOADS):
            quantity = PER_100_NM if where == "moment" else PER_KILONEWTON
            for label, rate in (("steer", steer), ("camber", tilt)):
                columns.append(Column(f"compliance_{label}_{name}{suffix}", rate[j] * _SCALE[quantity], quantity, 0))
            if where != "moment":
                moved = patch[j] if where == "contact-patch" else centre[j]
                along = moved @ wheels.axes[side][_AXES[direction]]
                with np.errstate(divide="ignore"):
                    stiffness.append(Column(f"{name.split('_')[0]}_stiffness_{name.split('_')[1]}{suffix}",
                                            1.0 / along, "force/length", 0))
    return columns + stiffness


def compliance(susp, travel, case=None, *, travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE):
    """Compliance steer and camber, wheel-centre and patch stiffness at every wheel travel
    (the module docstring; METHOD.md (C1)-(C3)).

    Parameters
    ----------
    susp : Suspension (a corner or an axle) whose model has bushings
    travel : (N,) wheel travel at the wheel centre, m (+ bump); both wheels of an axle alike
    case : str, dict or LoadCase, optional: a load held on the wheels, the compliance taken
        about that loaded equilibrium (default: the model's own loads only)
    travel_at : "wheel-centre" (the travel drivers')
    tolerance : closure tolerance (dimensionless)

    Returns
    -------
    SuspensionResult
        analysis ``"compliance"``; columns ``wheel_travel`` and those of the module docstring
        (in memory rad per kN, rad per 100 N m, N/m); ``suspension`` the compliant variant.

    Raises
    ------
    ModelError
        A model without bushings, ``travel_at`` not the wheel centre, a bad case.
    SweepStopped
        When an equilibrium cannot be reached (``.partial``: the positions reached, with their columns).
    """
    travel, wheels = _inputs(susp, travel, case, travel_at)
    variant, record, stop = _settle(susp, travel, wheels, tolerance)
    inputs = [Column("wheel_travel", travel[:len(record)], "length", 0)]
    columns = compliance_columns(variant, record, wheels) if len(record) else []
    return variant.finish(record, "compliance", "wheel-centre", inputs, columns, stop)


def _inputs(susp, travel, case, travel_at):
    if travel_at != "wheel-centre":
        raise ModelError("travel_at", "compliance analyses hold the wheels by their travel drivers: wheel travel at "
                         "the wheel centre")
    travel = input_values(travel, "travel")
    return travel, WheelLoads(susp, _NO_LOAD if case is None else case_for(case, susp.vehicle))


def _position_columns(variant, record, names, tag=""):
    """``toe`` and ``camber`` (and ``_left``/``_right``) of ``record``'s positions, named with ``tag``."""
    out = []
    rest = Motion.of(record)
    for side in variant.corners:
        wheel = _wheel(variant, side, rest)
        for name, metric in names:
            out.append(Column(f"{name}{tag}{_suffix(variant, side)}", metric(wheel).value, "angle", 0))
    return out


def kc_curves(susp, travel, case, *, travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE):
    """Parallel travel under the constant load ``case`` beside the rigid curve (the module
    docstring).

    Parameters
    ----------
    susp : Suspension (a corner or an axle) whose model has bushings
    travel : (N,) wheel travel at the wheel centre, m (+ bump); both wheels of an axle alike
    case : str, dict or LoadCase, the load on every wheel (:mod:`.load_cases`)
    travel_at : "wheel-centre"
    tolerance : closure tolerance (dimensionless)

    Returns
    -------
    SuspensionResult
        analysis ``"K&C curves"``; columns ``wheel_travel``, ``toe``, ``camber`` (loaded, the
        compliant variant), ``toe_rigid``, ``camber_rigid`` (the rigid variant's kinematics),
        ``toe_change``, ``camber_change`` (loaded less rigid), rad; ``rigid`` the rigid
        curve as a result of its own (its ``toe``, ``camber`` and zero changes: what the sheet
        draws beside; None when it reached no position), ``case`` the LoadCase.

    Raises
    ------
    ModelError, SweepStopped
        As :func:`compliance` (the rigid columns are NaN past a position the rigid sweep
        cannot reach).
    """
    travel, wheels = _inputs(susp, travel, case, travel_at)
    variant, record, stop = _settle(susp, travel, wheels, tolerance)
    count = len(record)
    rigid_model = copy.deepcopy(susp.mechanism)
    rigid_model.use_bushings(False)
    rigid = Suspension(rigid_model, susp.corners, susp.vehicle, susp.units, susp.name)
    try:
        kinematic = parallel_travel(rigid, travel[:count], tolerance=tolerance) if count else None
    except SweepStopped as rigid_stop:  # the rigid curve ends there: NaN beyond
        kinematic = rigid_stop.partial
    names = (("toe", toe), ("camber", camber))
    loaded = _position_columns(variant, record, names) if count else []
    reached = 0 if kinematic is None else len(kinematic)
    still = _position_columns(rigid, kinematic, names) if reached else []
    padded = [np.r_[c.values, np.full(count - reached, np.nan)] for c in still] or [np.full(count, np.nan)] * len(
        loaded)
    tagged = [Column(c.name.replace("toe", "toe_rigid", 1).replace("camber", "camber_rigid", 1), v, "angle", 0)
              for c, v in zip(loaded, padded)]
    changes = [Column(c.name.replace("toe", "toe_change", 1).replace("camber", "camber_change", 1), c.values - v,
                      "angle", 0) for c, v in zip(loaded, padded)]
    inputs = [Column("wheel_travel", travel[:count], "length", 0)]
    # the rigid curve as a result of its own, its changes from itself zero: the sheet's reference line
    zero = [Column(c.name.replace("toe", "toe_change", 1).replace("camber", "camber_change", 1),
                   np.zeros(reached), "angle", 0) for c in still]
    beside = None if not reached else rigid.finish(kinematic, "K&C curves", "wheel-centre",
                                                     [Column("wheel_travel", travel[:reached], "length", 0)],
                                                     still + zero, None)
    try:
        result = variant.finish(record, "K&C curves", "wheel-centre", inputs, loaded + tagged + changes, stop)
    except SweepStopped as stopped:
        stopped.partial.rigid, stopped.partial.case = beside, wheels.case
        raise
    result.rigid, result.case = beside, wheels.case
    return result


def settle_compliance(susp, travel, case=None, *, travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE):
    """What :func:`compliance` stands on: ``(variant, record, wheels, stop)``, the compliant
    variant, its :class:`~loops.statics.EquilibriumResult` at ``travel``, the
    :class:`~loops.suspension.hardpoint_loads.WheelLoads` of ``case`` and the SweepStopped of an
    equilibrium not reached (or None); the inputs checked as :func:`compliance` checks them."""
    travel, wheels = _inputs(susp, travel, case, travel_at)
    variant, record, stop = _settle(susp, travel, wheels, tolerance)
    return variant, record, wheels, stop
