"""The standard analyses of a corner or an axle: parallel and opposite wheel travel, steering
and combined steering at several heights (roll and pitch: :mod:`.body_motion`; all of them
listed, with their inputs, in the registry :mod:`.analyses`).

Each analysis sweeps the mechanism (:func:`loops.sweep.sweep`) and returns the trajectory
record as a :class:`~loops.suspension.model.SuspensionResult`: every pair variable, point
and pose of the sweep, plus ``metrics``, the analysis's inputs (``wheel_travel``, the
steering input) followed by the metrics of :mod:`loops.suspension.metrics` (``camber``,
``toe``, ...; ``camber_left``, ``camber_right``, ... and the axle's ``roll_centre_height``,
``track``, ... for an axle). ``SuspensionResult.to_csv`` writes those columns in the model
file's units with a first line naming them; ``SuspensionResult.to_dataframe`` gives the same
table as a ``pandas.DataFrame``.

Wheel travel is the vertical motion of the wheel centre (the corner's point driver,
``Corner.travel``; the analyses add one when the model has none) or, with
``travel_at="contact-patch"`` (SHARK's convention), of the contact patch: the wheel-centre
travel that puts the patch at the requested height is found by Newton's method on the
sweep (:mod:`.travel`), each step's derivative from the velocity solution, to 1e-12 m.
Freedoms no input fixes (a steering rack in a travel analysis, a wheel's spin) are held at
their design values; the steering variable, when the corner has one, is a driver of every
analysis (at its design value unless steered), so that rates with respect to it are
available.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError

from ..results import Column
from .measure import suspension_columns
from .model import Suspension, SuspensionResult
from .travel import TravelPlan, check_travel_at, input_values, solve_travel, steering_plan
from loops.continuation import DEFAULT_TOLERANCE

__all__ = ["parallel_travel", "opposite_travel", "steering", "combined"]


def parallel_travel(susp: Suspension, travel, *, travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE) -> SuspensionResult:
    """Both wheels (or the one corner) through the same wheel travel.

    Parameters
    ----------
    susp : Suspension
    travel : (N,) wheel travel, m (+ bump), at the wheel centre or the contact patch
    travel_at : {"wheel-centre", "contact-patch"}
    tolerance : closure tolerance of the sweeps (dimensionless)

    Returns
    -------
    SuspensionResult
        Columns ``wheel_travel`` and the metrics.

    Raises
    ------
    SweepStopped
        When the sweep cannot go on: ``.partial`` is the :class:`SuspensionResult` of the
        positions reached.
    """
    check_travel_at(travel_at)
    travel = input_values(travel, "travel")
    plan = TravelPlan({side: travel for side in susp.corners}, steering_plan(susp, len(travel)))
    record, stop = solve_travel(susp, plan, travel_at, tolerance)
    inputs = [Column("wheel_travel", travel[:len(record)], "length", 0)]
    return susp.finish(record, "parallel travel", travel_at, inputs, suspension_columns(susp, record, travel_at), stop)


def opposite_travel(susp: Suspension, travel, *, travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE) -> SuspensionResult:
    """The left wheel through ``travel``, the right one through ``-travel`` (an axle; a
    corner is mirrored into one). Columns ``wheel_travel`` (the left wheel's) and the
    metrics with ``_left``/``_right``, then the axle's."""
    check_travel_at(travel_at)
    susp = susp.axle()
    travel = input_values(travel, "travel")
    plan = TravelPlan({"left": travel, "right": -travel}, steering_plan(susp, len(travel)))
    record, stop = solve_travel(susp, plan, travel_at, tolerance)
    inputs = [Column("wheel_travel", travel[:len(record)], "length", 0)]
    return susp.finish(record, "opposite travel", travel_at, inputs, suspension_columns(susp, record, travel_at), stop)


def _steering_input(susp, rack, steering_wheel):
    names = susp.steering
    if not names:
        raise ModelError("corner.steering", "the corner has no steering variable (give [corner] steering = "
                         "the rack's pair)")
    if len(names) != 1:
        raise ModelError("corner.steering", f"the two corners steer by different variables ({', '.join(names)}): "
                         "steer them with parallel_travel and explicit drivers instead")
    (name,) = names
    if (rack is None) == (steering_wheel is None):
        raise ModelError("steering", "give either the rack travel or the steering-wheel angle")
    quantities = {}
    for pair in susp.model.pairs:
        for variable, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
            quantities[variable] = "angle" if rotational else "length"
    if rack is not None:
        values = input_values(rack, "rack")
        return name, values, [Column(name, values, quantities[name], 0)]
    ratio = None if susp.vehicle is None else susp.vehicle.rack_travel_per_turn
    if ratio is None:
        raise ModelError("vehicle.rack_travel_per_turn", "steering by the steering-wheel angle needs the rack "
                         "travel per turn of the steering wheel ([vehicle] rack_travel_per_turn)")
    angle = input_values(steering_wheel, "steering_wheel")
    values = angle * ratio / (2.0 * np.pi)
    return name, values, [Column("steering_wheel_angle", angle, "angle", 0),
                          Column(name, values, quantities[name], 0)]


def steering(susp: Suspension, rack=None, *, steering_wheel=None, travel=0.0, travel_at="wheel-centre",
             tolerance=DEFAULT_TOLERANCE) -> SuspensionResult:
    """Steer at a fixed wheel travel: the steering variable through ``rack`` (its values, m
    for a rack), or the steering wheel through ``steering_wheel`` (rad), the rack moving
    ``Vehicle.rack_travel_per_turn`` per turn. Columns: the input(s), then the metrics (an
    axle adds Ackermann and, with the rack ratio, the steering ratio)."""
    check_travel_at(travel_at)
    name, values, inputs = _steering_input(susp, rack, steering_wheel)
    height = np.full(len(values), float(travel))
    plan = TravelPlan({side: height for side in susp.corners}, {name: values})
    record, stop = solve_travel(susp, plan, travel_at, tolerance)
    inputs = [Column(c.name, c.values[:len(record)], c.dimension, 0) for c in inputs]
    return susp.finish(record, "steering", travel_at, inputs, suspension_columns(susp, record, travel_at, True), stop)


def combined(susp: Suspension, travel, rack=None, *, steering_wheel=None, travel_at="wheel-centre",
             tolerance=DEFAULT_TOLERANCE) -> SuspensionResult:
    """Steering sweeps at several wheel travels (parallel): for each value of ``travel`` the
    whole steering input, one after the other. Columns ``wheel_travel``, the steering
    input(s), then the metrics."""
    check_travel_at(travel_at)
    name, values, inputs = _steering_input(susp, rack, steering_wheel)
    levels = input_values(travel, "travel")
    heights = np.repeat(levels, len(values))
    plan = TravelPlan({side: heights for side in susp.corners}, {name: np.tile(values, len(levels))})
    record, stop = solve_travel(susp, plan, travel_at, tolerance)
    count = len(record)
    inputs = [Column("wheel_travel", heights[:count], "length", 0)] + [
        Column(c.name, np.tile(c.values, len(levels))[:count], c.dimension, 0) for c in inputs]
    return susp.finish(record, "combined travel and steering", travel_at, inputs,
                       suspension_columns(susp, record, travel_at, True), stop)
