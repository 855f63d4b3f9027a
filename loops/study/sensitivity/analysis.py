"""The design sensitivities of an analysis: :func:`sensitivities` runs it, and
:func:`sensitivities_of` differentiates an analysis already run: the motion along every
coordinate (:mod:`.motion`, :mod:`.directions`), then each metric's chain rule
(:mod:`.metrics`, :mod:`.wheel_rate`; the roll's :mod:`.roll`).
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError

from ...suspension.analyses import ANALYSES as REGISTRY
from ...suspension.analyses import BUSHING_RATES, ROAD, titled
from ...suspension.metrics import AXLE_METRICS, METRICS, ROLL_METRICS
from ..coordinates import Coordinate, coordinates
from .bushing_rates import compliance_sensitivities
from .closure import Closure
from .directions import Directions
from .driver_rates import second_rates_along
from .metrics import axle_sensitivities, corner_sensitivities
from .motion import moves
from .result import Sensitivities
from .roll import roll_sensitivities, wheel_metric
from loops.continuation import DEFAULT_TOLERANCE

__all__ = ["ANALYSES", "sensitivities", "sensitivities_of"]


#: The analyses whose sensitivities are available (the registry's that say so).
ANALYSES = tuple(name for name, entry in REGISTRY.items() if entry.sensitivities)


def sensitivities(suspension, coords, travel=None, *, analysis="parallel", rack=None, roll_angle=None,
                  travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE, rates=True) -> Sensitivities:
    """Derivatives of every position metric (and the exact rate metrics) of an analysis with
    respect to hardpoint coordinates, at every position (see the module docstring).

    Parameters
    ----------
    suspension : loops.suspension.Suspension (a corner or an axle)
    coords : list of coordinate names (``"lower_ball.z"``, ``"lower_ball"`` for x, y, z,
        ``"upper_inner.axis.x"``) or of :class:`~loops.study.coordinates.Coordinate`
    travel : (N,) wheel travel, m, for ``"parallel"``, ``"opposite"`` and ``"combined"``;
        the fixed wheel travel (float, default 0) for ``"steering"``
    analysis : one of :data:`ANALYSES` (the registry's, :mod:`loops.suspension.analyses`); the
        compliance's (registry :data:`~loops.suspension.analyses.BUSHING_RATES`) are to bushing
        rates (``"lower_front.kz"``, :mod:`.bushing_rates`) and hardpoint coordinates
        (:mod:`.compliance_hardpoints`, METHOD.md (C7)), at the ``travel`` given
    rack : (N,) values of the steering variable for ``"steering"`` and ``"combined"``
    roll_angle : (N,) rad (ISO 8855: positive right side down) for ``"roll"``; its
        coordinates are the axle's (a corner is mirrored into one: ``"lower_ball_left.z"``)
    travel_at : "wheel-centre" (the contact-patch convention is not available)
    tolerance : closure tolerance of the analysis's sweep
    rates : also the rate metrics (``camber_gain``, ``bump_steer``, ``steer_rate``, motion
        ratios; in roll ``roll_camber`` and ``roll_steer``) and the velocity-field metrics
        (instant centres, roll centre, anti-geometry; none in roll); False skips the
        second-order solve

    Returns
    -------
    Sensitivities

    Raises
    ------
    ModelError
        Located ``vary 'NAME'`` for a name that is not a hardpoint coordinate; ``analysis``,
        ``travel_at``, ``travel``, ``rack`` or ``roll_angle`` for inputs this does not take.
    """
    if analysis not in ANALYSES:
        raise ModelError("analysis", f"expected one of {', '.join(ANALYSES)}, got {analysis!r}")
    _check_travel_at(travel_at)
    entry = REGISTRY[analysis]
    if entry.sensitivities == BUSHING_RATES:
        return compliance_sensitivities(suspension, coords, travel, tolerance=tolerance)
    given = {"travel": travel, "rack": rack, "roll_angle": roll_angle}
    taken = [i for i in entry.inputs if i.name in given]
    inputs = {}
    for item in taken:
        value = given[item.name]
        if item.single:
            inputs[item.name] = item.default if value is None else float(value)
        elif value is not None:
            inputs[item.name] = value
        elif item.required and not any(given[other.name] is not None for other in taken
                                       if item.one_of is not None and other.one_of == item.one_of):
            raise ModelError(item.name, f"the {analysis} analysis needs {item.what}")
    result = entry.run(suspension, tolerance=tolerance, **inputs)
    return sensitivities_of(result, coords, rates=rates)


def _check_travel_at(travel_at):
    if travel_at != "wheel-centre":
        raise ModelError("travel_at", f"sensitivities are taken at fixed wheel-centre travel; got {travel_at!r} "
                         "(the contact-patch convention is not available)")


def sensitivities_of(result, coords, *, rates=True, only=None) -> Sensitivities:
    """:func:`sensitivities` of an analysis already run (a SuspensionResult of
    :func:`~loops.suspension.parallel_travel`, :func:`~loops.suspension.steering`, ...):
    ``coords`` names or Coordinates of its model. ``only``: the names of the metrics wanted
    (default all); a roll then skips the second-order groups (R5, R6, R7) none of them
    needs (the others may be left out too)."""
    where = "vary"
    susp = getattr(result, "suspension", None)
    if susp is None or not hasattr(result, "analysis"):
        raise ModelError("result", "expected the result of a suspension analysis (parallel_travel, steering, ...)")
    _check_travel_at(result.travel_at)
    if result.stop_reason is not None:
        raise ModelError("result", f"the analysis stopped ({result.stop_reason}): no sensitivities")
    model = result.model
    if coords and all(isinstance(c, Coordinate) for c in coords):
        coords = list(coords)
    else:
        coords = coordinates(model, coords, where)
    system = result.system
    hardpoint_moves = moves(system, coords, where)
    _check_kingpin_axes(susp, coords, where)
    count = len(result)
    if not count:
        raise ModelError("result", "the analysis reached no position")
    closure = Closure(system, *result.closed_positions(), where)
    driver_names = list(result.drivers)
    driver_columns = np.array([system.variable_index[n] for n in driver_names], dtype=np.int64)
    directions = Directions(closure, hardpoint_moves, driver_columns, where)
    values, dimensions = {}, {}
    on_the_road = titled(result.analysis).sensitivities == ROAD
    if on_the_road:
        values = roll_sensitivities(susp, result, closure, directions, driver_names, rates, where, only)
        dimensions = {name: AXLE_METRICS[name] if name in AXLE_METRICS else
                      {**METRICS, **ROLL_METRICS}[wheel_metric(name)] for name in values}
    wheels = {}
    accelerations = second_rates_along(result) if rates else None
    for side, corner in susp.corners.items() if not on_the_road else ():
        suffix = f"_{side}" if susp.is_axle else ""
        per_wheel, wheels[side] = corner_sensitivities(susp, side, corner, closure, directions, driver_names, rates,
                                                        accelerations)
        for name, value in per_wheel.items():
            if not susp.is_axle and name == "wheel_travel":
                continue
            values[name + suffix] = value
            dimensions[name + suffix] = METRICS[name]
    if susp.is_axle and not on_the_road:
        for name, value in axle_sensitivities(susp, wheels, "ackermann_percent" in result.metrics, count).items():
            values[name] = value
            dimensions[name] = AXLE_METRICS[name]
    inputs = [result.metrics[name] for name in result.input_names]
    return Sensitivities(coords, values, dimensions, inputs, result, directions)


def _check_kingpin_axes(susp, coords, where):
    for corner in susp.corners.values():
        if isinstance(corner.kingpin, str):
            for c in coords:
                if c.hardpoint.key == "axis" and c.hardpoint.owner == corner.kingpin:
                    raise ModelError(f"{where} {c.name!r}", f"{corner.kingpin!r} is the corner's steering axis: "
                                     "sensitivities to its axis are not available (vary its centre)")
