"""Hardpoint optimisation: move chosen hardpoint coordinates, within bounds, so that metric
curves meet targets.

The unknowns are offsets ``x`` (k,) of hardpoint coordinates (:mod:`.coordinates`: metres
for locations, the change of the unit axis for an axis component) from the suspension's
own design. The residual stacks, for every target, ``weight * (metric(x) - target)`` at
every position of its analysis; :func:`optimise` minimises ``1/2 |residual|^2`` by
scipy's bounded least squares (trust-region reflective, ``method="trf"``). Each
evaluation sweeps the moved design (:meth:`mechanism.Mechanism.moved`, the analyses of
:mod:`loops.suspension.analyses`); the Jacobian is exact, from the sensitivities of
:mod:`.sensitivity` at that design (no finite differences). An axis offset is applied to
the nominal unit axis, which is normalised again (:func:`.coordinates.moved_hardpoints`),
so its column is the sensitivity at the moved design divided by the length of the
offset axis.

Targets are per analysis: ``targets`` for parallel wheel travel at ``travel``,
``steering_targets`` for steering at ``rack`` (at wheel travel ``steering_travel``) and
``roll_targets`` for the roll at ``roll_angle`` (an axle: its metrics relative to the road,
camber and toe per side, the wheel travels, their rates, ``roll_camber`` and
``roll_steer``). An axle's own metrics (``roll_centre_height``, ``track``, ...) are targets
of every analysis, and every metric has sensitivities; a target the corner does not have (a
spring's metric without a spring) is refused before any sweep.

The result (:class:`Optimised`) holds the offsets, the moved mechanism and suspension,
the metric curves before and after with their targets, the cost, and writes the moved
hardpoints as a table (``name,x,y,z`` in the model file's length unit, the format of
:mod:`loops.suspension.hardpoints`, which ``kinematrix suspension --apply-hardpoints`` takes;
an axle's names ``lower_ball_left`` go back to a mirrored axle file), as a new model file
(only the moved hardpoints' numbers rewritten,
:func:`~loops.suspension.hardpoints.apply_hardpoint_values`) and as a sheet of target, before
and after curves.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass

import numpy as np

from mechanism.atomic import write_text_atomically
from mechanism.errors import ModelError, SweepStopped
from mechanism.hardpoints import hardpoints_of

from ..suspension.analyses import ANALYSES as REGISTRY
from ..suspension.model import Suspension
from ..suspension.hardpoints import apply_hardpoint_values, axle_hardpoint_names
from ..suspension.travel import input_values
from ..suspension.metrics import AXLE_METRICS, CATALOGUE, METRICS, PART_METRICS, POSITION, ROLL_METRICS
from .coordinates import coordinates, moved_hardpoints
from .sensitivity import sensitivities_of
from .sensitivity.bushing_rates import (BushingRate, bushing_rates, compliance_metrics, is_bushing_rate,
                                        rate_derivatives, rated_mechanism)
from .sensitivity.compliance_hardpoints import hardpoint_derivatives
from loops.continuation import DEFAULT_TOLERANCE

__all__ = ["optimise", "Optimised", "Target", "ANALYSES"]

#: The analyses a target can belong to (the registry's that say so), by name; their targets
#: are ``targets`` (parallel), ``steering_targets`` and ``roll_targets``.
ANALYSES = tuple(name for name, entry in REGISTRY.items() if entry.optimise)


@dataclass(frozen=True)
class Target:
    """One targeted curve: ``metric`` of ``analysis`` (one of :data:`ANALYSES`) should
    equal ``values`` (N,) (SI) at the analysis's positions; its residual is ``weight *
    (metric - values)`` (``weight`` (N,), per SI unit of the metric); ``dimension`` the
    metric's."""

    analysis: str
    metric: str
    values: np.ndarray
    weight: np.ndarray
    dimension: str

    @property
    def label(self) -> str:
        return self.metric if self.analysis == "parallel" else f"{self.metric} ({self.analysis})"


def _without_part(suspension, metric):
    """Why the corners of ``suspension`` have no ``metric`` (a spring's or a damper's), or None."""
    if metric not in PART_METRICS:
        return None
    what, attribute = PART_METRICS[metric]
    if any(getattr(resolved, attribute) is None for resolved in suspension.resolved.values()):
        return f"the corner has no {what}, so no {metric}"
    return None


def _targets(table, analysis, count, where, suspension, own=None):
    """:class:`Target` list of ``{metric: values or (values, weight)}`` for ``count`` positions
    (an axle's metrics end in ``_left`` or ``_right``); ``own``: the analysis's metrics by name ->
    dimension, when they are not the catalogue's (the compliance's)."""
    if table is None:
        return []
    axle = suspension.is_axle
    if not isinstance(table, dict):
        raise ModelError(where, "expected a dict metric -> target values (N,) or (values, weight)")
    out = []
    for metric, spec in table.items():
        label = f"{where}[{metric!r}]"
        axle_metric = axle and isinstance(metric, str) and metric in AXLE_METRICS
        base = metric.removesuffix("_left").removesuffix("_right") if axle and isinstance(metric, str) else metric
        if axle_metric:
            base = metric
        reason = None if axle_metric or own is not None or not isinstance(base, str) else \
            _without_part(suspension, base)
        if reason is not None:
            raise ModelError(label, reason)
        known = {**METRICS, **{name: ROLL_METRICS[name] for name in REGISTRY[analysis].own_metrics}}
        if own is not None:
            known, base = own, metric
            if metric not in own:
                raise ModelError(label, f"not a metric of the {analysis} (metrics: {', '.join(own)})")
        elif axle_metric:
            known = AXLE_METRICS
        elif not isinstance(metric, str) or base not in known or (axle and base == metric):
            wheel = "per-wheel metric with _left or _right, or an axle metric" if axle else "per-wheel metric"
            names = [*known, *AXLE_METRICS] if axle else known
            raise ModelError(label, f"not a {wheel} (metrics: {', '.join(names)})")
        if isinstance(spec, tuple) and len(spec) == 2:
            values, weight = spec
        else:
            values, weight = spec, 1.0
        values = np.asarray(values, dtype=float)
        if values.shape != (count,) or not np.all(np.isfinite(values)):
            raise ModelError(label, f"expected {count} finite target values (one per position), got shape "
                             f"{values.shape}")
        weight = np.broadcast_to(np.asarray(weight, dtype=float), (count,)).copy() \
            if np.ndim(weight) in (0, 1) and np.size(weight) in (1, count) else None
        if weight is None or not np.all(np.isfinite(weight)) or np.any(weight < 0):
            raise ModelError(label, f"the weight must be a non-negative number or {count} of them")
        out.append(Target(analysis, metric, values, weight, known[base]))
    return out


def _bounds(bounds, count):
    """``(lower (k,), upper (k,))`` from a number ``b`` (``-b, b``) or a pair (numbers or (k,))."""
    try:
        if np.ndim(bounds) == 0:
            b = float(bounds)
            lower, upper = np.full(count, -b), np.full(count, b)
        else:
            lower, upper = (np.broadcast_to(np.asarray(v, dtype=float), (count,)).copy() for v in bounds)
    except (TypeError, ValueError):
        raise ModelError("bounds", f"expected a number b (offsets in [-b, b]) or (lower, upper), each a number or "
                         f"{count} of them (SI)") from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)) and np.all(lower < upper)):
        raise ModelError("bounds", "each lower bound must be finite and below its upper bound")
    return lower, upper


class _Problem:
    """The least-squares problem: residuals and their exact Jacobian at offsets ``x``, from
    the moved design's analyses (the last design kept: scipy asks for both at one ``x``)."""

    def __init__(self, suspension, coords, targets, plans, tolerance, rates=()):
        self.suspension, self.coords, self.targets, self.plans = suspension, coords, targets, plans
        #: the bushing rates varied after the hardpoint coordinates (offsets N/m, N m/rad)
        self.bushing_rates = list(rates)
        self.tolerance = tolerance
        rates = {m.name for m in CATALOGUE if m.kind != POSITION}
        #: analysis -> whether one of its targets is not a position metric of the catalogue (a
        #: rate, a velocity-field metric, the wheel rate, an axle's: its second-order solve is
        #: then needed)
        self.rates = {}
        for t in targets:
            is_rate = t.metric.removesuffix("_left").removesuffix("_right") in rates
            self.rates[t.analysis] = self.rates.get(t.analysis, False) or is_rate
        self.names = [c.name for c in coords]
        self.evaluations = 0
        self._last = None

    def variant(self, x):
        susp, h = self.suspension, len(self.coords)
        moved = susp.mechanism.moved(moved_hardpoints(self.coords, x[:h]))
        rated_mechanism(moved, self.bushing_rates, x[h:])
        return Suspension(moved, susp.corners, susp.vehicle, susp.units, susp.name)

    def at(self, x):
        """``(suspension, {analysis: result})`` of the design with offsets ``x``."""
        x = np.asarray(x, dtype=float)
        if self._last is not None and np.array_equal(self._last[0], x):
            return self._last[1]
        susp = self.variant(x)
        results = {}
        try:
            for analysis, inputs in self.plans.items():
                results[analysis] = REGISTRY[analysis].run(susp, tolerance=self.tolerance, **inputs)
        except SweepStopped as stop:
            raise ModelError("optimise", f"the design with offsets {_describe(self.coords, x)} cannot be swept: "
                             f"{stop.reason} (narrow the bounds)") from None
        self.evaluations += 1
        self._last = (x.copy(), (susp, results))
        return susp, results

    def axis_lengths(self, x):
        """Per coordinate the length of its offset axis (1 for a location): the factor between
        the moved design's sensitivity and the derivative with respect to the offset."""
        out = np.ones(len(self.coords))
        raw = moved_hardpoints(self.coords, x[:len(self.coords)])
        for j, c in enumerate(self.coords):
            if c.hardpoint.is_direction:
                out[j] = float(np.linalg.norm(raw[c.hardpoint.name]))
        return out

    def curves(self, x):
        """The targeted curves (N,) of the design with offsets ``x``, one per target (SI)."""
        _, results = self.at(x)
        return [results[t.analysis].metric(t.metric) for t in self.targets]

    def residual(self, x):
        """``weight * (metric - target)`` of every target, stacked."""
        return np.concatenate([t.weight * (v - t.values) for t, v in zip(self.targets, self.curves(x))])

    def jacobian(self, x):
        """d residual / d x: the sensitivities of the design with offsets ``x`` (an axis
        component's over the length of its offset axis), weighted."""
        susp, results = self.at(x)
        scale = 1.0 / self.axis_lengths(x)
        blocks, sensitivities = [], {}
        for t in self.targets:
            if t.analysis not in sensitivities:
                sensitivities[t.analysis] = self._sensitivities(susp, results, t.analysis)
            blocks.append(t.weight[:, None] * sensitivities[t.analysis](t.metric, scale))
        return np.concatenate(blocks, axis=0)

    def _sensitivities(self, susp, results, analysis):
        """``metric, scale -> (N, k + R)``: the analysis's derivatives in the hardpoint coordinates
        (times ``scale``) and the bushing rates. The kinematic analyses take the rigid variant
        (no bushing rate moves them); the compliance's are to both (:mod:`.sensitivity.bushing_rates`
        (C4)-(C6), :mod:`.sensitivity.compliance_hardpoints` (C7)), at the moved design."""
        count, rates = len(results[analysis]), len(self.bushing_rates)
        if analysis == "compliance":
            travel = self.plans[analysis]["travel"]
            by_rate = rate_derivatives(susp, self.bushing_rates, travel, tolerance=self.tolerance)[1] \
                if rates else None
            by_point = hardpoint_derivatives(susp, self.names, travel, tolerance=self.tolerance) \
                if self.coords else None
            return lambda metric, scale: np.hstack([
                by_point[metric] * scale if by_point is not None else np.zeros((count, 0)),
                by_rate[metric] if by_rate is not None else np.zeros((count, 0))])
        wanted = {u.metric for u in self.targets if u.analysis == analysis}
        found = sensitivities_of(results[analysis], self.names, rates=self.rates[analysis], only=wanted) \
            if self.coords else None
        return lambda metric, scale: np.hstack([found[metric] * scale if found is not None else np.zeros((count, 0)),
                                                np.zeros((count, rates))])


def _describe(coords, x):
    return ", ".join(f"{c.name} {v:+.6g}" for c, v in zip(coords, x))


def optimise(suspension, coords, targets=None, *, bounds, travel=None, rack=None, steering_targets=None,
             steering_travel=0.0, roll_angle=None, roll_targets=None, start=None, tolerance=DEFAULT_TOLERANCE,
             max_evaluations=100, x_tolerance=1e-12, f_tolerance=1e-12, g_tolerance=1e-12, compliance_targets=None):
    """Fit hardpoint coordinates, within bounds, to target metric curves (see the module
    docstring).

    Parameters
    ----------
    suspension : loops.suspension.Suspension (a corner or an axle); its design is offset 0
    coords : list of coordinate names (``"lower_ball.z"``, ``"lower_ball"`` for x, y, z,
        ``"upper_inner.axis.x"``) (k) and bushing rates (``"lower_front.kz"``,
        :mod:`.sensitivity.bushing_rates`; offsets in N/m, N m/rad, after the hardpoints')
    targets : dict metric -> (N,) target values at the wheel travels ``travel`` (SI), or ->
        ``(values, weight)`` with ``weight`` a number or (N,) per SI unit of the metric
        (default 1: radians and metres weigh alike); the names of the analysis's columns
        (``camber``; an axle's ``camber_left``, ``camber_right`` and its own
        ``roll_centre_height``, ``track``, ...)
    bounds : number b (every offset in [-b, b]) or (lower, upper), each a number or (k,), SI
    travel : (N,) wheel travel, m, of the parallel-travel analysis
    rack, steering_targets, steering_travel : the steering analysis (values of the steering
        variable, targets as ``targets``, its fixed wheel travel)
    compliance_targets : the compliance analysis at the wheel travels ``travel``, targets as
        ``targets`` (``compliance_steer_lateral_patch``, ``lateral_stiffness_centre``, ...; in
        memory units: rad per kN, N/m); hardpoint coordinates and bushing rates move it
    roll_angle, roll_targets : the roll analysis of an axle (roll angles (M,), rad, ISO 8855;
        targets as ``targets``, per side: ``camber_left``, ``toe_right``, ``roll_camber_left``)
    start : (k,) initial offsets (default 0), within the bounds
    tolerance : closure tolerance of the sweeps
    max_evaluations : sweeps of the moved design at most
    x_tolerance, f_tolerance, g_tolerance : scipy's ``xtol``, ``ftol``, ``gtol``

    Returns
    -------
    Optimised

    Raises
    ------
    ModelError
        Located ``vary 'NAME'`` for a coordinate that is not one (or has no derivative,
        :mod:`.sensitivity`), ``targets['camber']`` for a target of the wrong length,
        ``bounds``, ``start``, ``roll_angle``, ``roll_targets`` (a corner); a target the corner
        does not have (``targets['wheel_rate']`` without a spring); ``optimise`` when a design in the bounds cannot be swept.
    """
    from scipy.optimize import least_squares  # noqa: PLC0415

    problem = _problem(suspension, coords, targets, travel, rack, steering_targets, steering_travel, tolerance,
                       roll_angle, roll_targets, compliance_targets)
    k = len(problem.coords) + len(problem.bushing_rates)
    lower, upper = _bounds(bounds, k)
    x0 = np.zeros(k) if start is None else np.asarray(start, dtype=float)
    if x0.shape != (k,) or not np.all((lower <= x0) & (x0 <= upper)):
        raise ModelError("start", f"expected {k} offsets within the bounds")
    before = problem.curves(x0)
    start_cost = 0.5 * float(np.sum(problem.residual(x0) ** 2))
    fit = least_squares(problem.residual, x0, jac=problem.jacobian, bounds=(lower, upper), method="trf",
                        x_scale="jac", xtol=x_tolerance, ftol=f_tolerance, gtol=g_tolerance, max_nfev=max_evaluations)
    after = problem.curves(fit.x)
    susp, results = problem.at(fit.x)
    inputs = {analysis: _input(results[analysis]) for analysis in problem.plans}
    return Optimised(problem.coords + problem.bushing_rates, fit.x, x0, (lower, upper), susp, problem.targets, before, after, inputs,
                     float(fit.cost), start_cost, problem.evaluations, fit.message, bool(fit.success), suspension)


def _problem(suspension, coords, targets, travel, rack, steering_targets, steering_travel, tolerance, roll_angle=None,
             roll_targets=None, compliance_targets=None):
    """The :class:`_Problem` of :func:`optimise`'s arguments, checked."""
    coords, rates = _coordinates_and_rates(suspension, coords)
    plans, wanted = {}, []
    if targets:
        if travel is None:
            raise ModelError("travel", "the parallel-travel targets need the wheel travel values")
        travel = input_values(travel, "travel")
        plans["parallel"] = {"travel": travel}
        wanted += _targets(targets, "parallel", len(travel), "targets", suspension)
    if steering_targets:
        if rack is None:
            raise ModelError("rack", "the steering targets need the values of the steering variable")
        rack = input_values(rack, "rack")
        plans["steering"] = {"rack": rack, "travel": float(steering_travel)}
        wanted += _targets(steering_targets, "steering", len(rack), "steering_targets", suspension)
    if roll_targets:
        if roll_angle is None:
            raise ModelError("roll_angle", "the roll targets need the roll angles")
        if not suspension.is_axle:
            raise ModelError("roll_targets", "roll targets need an axle (a corner rolls as its mirror image, whose "
                             "hardpoints are the axle's, per side): give the axle model")
        roll_angle = input_values(roll_angle, "roll_angle")
        plans["roll"] = {"roll_angle": roll_angle}
        wanted += _targets(roll_targets, "roll", len(roll_angle), "roll_targets", suspension)
    if compliance_targets:
        wanted += _compliance_targets(suspension, compliance_targets, travel, plans)
    if not wanted:
        raise ModelError("targets", "nothing to fit: give targets (and travel), steering_targets (and rack) or "
                         "roll_targets (and roll_angle)")
    if rates and suspension.mechanism.compliant and set(plans) - {"compliance"}:
        raise ModelError(f"vary {rates[0].name!r}", "the model sweeps on its bushings (use_bushings = true): "
                         "bushing rates are varied only with compliance targets alone")
    return _Problem(suspension, coords, wanted, plans, tolerance, rates)


def _coordinates_and_rates(suspension, names):
    """``(hardpoint coordinates, bushing rates)`` of the names ``vary`` (each kind in order)."""
    if isinstance(names, str) or not hasattr(names, "__iter__"):
        return coordinates(suspension.model, names, "vary"), []
    names = list(names)
    rated = [n for n in names if is_bushing_rate(n)]
    rates = bushing_rates(suspension.mechanism.snapshot(), rated) if rated else []
    others = [n for n in names if not is_bushing_rate(n)]
    return (coordinates(suspension.model, others, "vary") if others or not rated else []), rates


def _compliance_targets(suspension, table, travel, plans):
    """The compliance analysis's :class:`Target` list at ``travel``, its plan set in ``plans``."""
    if travel is None:
        raise ModelError("travel", "the compliance targets need the wheel travel values")
    travel = input_values(travel, "travel")
    plans["compliance"] = {"travel": travel}
    return _targets(table, "compliance", len(travel), "compliance_targets", suspension, compliance_metrics(suspension))


def _input(result):
    """The column a result's curves are drawn against (wheel travel, or the steering input)."""
    return next(iter(result.metrics.values()))


class Optimised:
    """The result of :func:`optimise`.

    Attributes
    ----------
    coordinates : list of Coordinate (k); offsets : (k,) the optimal offsets (SI); start :
        (k,) the initial ones; bounds : (lower, upper)
    hardpoints : dict name -> (3,) the moved hardpoints' new values (SI; an axis as given
        to :meth:`mechanism.Mechanism.moved`, not normalised), then the centres of the bushings
        a moved pivot carried (those that replace it)
    bushing_rates : dict rate name -> its new value (N/m, N m/rad), the bushing rates varied
        (:class:`~.sensitivity.bushing_rates.BushingRate` among ``coordinates``, after the
        hardpoints')
    suspension : the optimised Suspension; mechanism : its Mechanism
    targets : list of Target; before, after : lists of (N,) curves, one per target (SI)
    inputs : dict analysis -> Column, the input of each analysis (wheel travel, rack)
    cost, start_cost : ``1/2 |residual|^2`` at the optimum and at the start
    evaluations : sweeps of a moved design; message, success : scipy's
    """

    def __init__(self, coords, offsets, start, bounds, suspension, targets, before, after, inputs, cost, start_cost,
                 evaluations, message, success, original):
        self.coordinates, self.offsets, self.start, self.bounds = list(coords), offsets, start, bounds
        self.suspension, self.mechanism = suspension, suspension.mechanism
        hardpoint_coordinates = [c for c in self.coordinates if not isinstance(c, BushingRate)]
        self.hardpoints = moved_hardpoints(hardpoint_coordinates, offsets[:len(hardpoint_coordinates)])
        # the bushings a moved pivot carried (Mechanism.moved): moved hardpoints too, so that the
        # table and the model file written hold the fitted compliant variant
        nominal = hardpoints_of(original.mechanism.snapshot())
        for name, hp in hardpoints_of(self.mechanism.snapshot()).items():
            if hp.table == "bushings" and name not in self.hardpoints and not np.array_equal(hp.value,
                                                                                               nominal[name].value):
                self.hardpoints[name] = hp.value
        self.bushing_rates = {c.name: c.nominal + x for c, x in zip(self.coordinates, offsets)
                              if isinstance(c, BushingRate)}
        self.targets, self.before, self.after, self.inputs = targets, before, after, inputs
        self.cost, self.start_cost, self.evaluations = cost, start_cost, evaluations
        self.message, self.success = message, success
        self._original = original

    def __repr__(self):
        return (f"Optimised({len(self.coordinates)} coordinates, cost {self.start_cost:.3g} -> {self.cost:.3g} in "
                f"{self.evaluations} sweeps of the design: {self.message})")

    def table(self, units=None):
        """The moved hardpoints as a hardpoint table's text (``name,x,y,z`` in ``units``'
        length unit, default the model file's; an axis as its unit vector)."""
        from mechanism.units import Units  # noqa: PLC0415

        units = self._original.units if units is None else Units.of(units)
        buffer = io.StringIO()
        buffer.write(f"# units: length={units.length}\n")
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["name", "x", "y", "z"])
        for name, value in self._table_values(units):
            writer.writerow([name] + [repr(float(v)) for v in value])
        return buffer.getvalue()

    def _table_values(self, units):
        """``(name, (3,))`` of each moved hardpoint in ``units``' length unit (an axis as its
        unit vector)."""
        for name, value in self.hardpoints.items():
            if name.endswith(".axis"):
                yield name, np.asarray(value) / np.linalg.norm(value)
            else:
                yield name, units.from_si(np.asarray(value, dtype=float), "length")

    def write_hardpoints(self, path, units=None):
        """Write :meth:`table` to ``path`` (CSV, atomically)."""
        write_text_atomically(path, self.table(units))

    def write_model(self, model_path, out_path):
        """A new model file ``out_path``: ``model_path`` (the model file the suspension was read
        from) with the moved hardpoints' numbers rewritten
        (:func:`~loops.suspension.hardpoints.apply_hardpoint_values`: an axle's ``_left`` and
        ``_right`` names go back to a mirrored axle file's one corner, which both sides must
        then move alike, and a moved hardpoint moves its aliases). Returns the file's
        hardpoints moved."""
        from mechanism.model_file import read_model  # noqa: PLC0415

        units = read_model(model_path).units
        values = {name: (f"fitted {name}", xyz) for name, xyz in self._table_values(units)}
        axle_names = axle_hardpoint_names(model_path)
        for name in values:
            mirrors = [other for other, (file_name, _) in axle_names.items()
                       if name in axle_names and file_name == axle_names[name][0] and other != name]
            for other in mirrors:
                if other not in values:
                    raise ModelError(f"fitted {name}", f"{os.path.basename(os.fspath(model_path))} is a mirrored axle "
                                     f"file, one corner for both sides, and the fit moved {name} but not {other}: "
                                     f"fit both alike ({name}, {other}), or write an axle of two corner files")
        return apply_hardpoint_values(model_path, values, out_path)

    def plot(self, path=None, *, units=None, title=None):
        """The before/after sheet: one panel per target, its target, starting and optimised
        curves against the analysis's input, in ``units`` (default the model file's); written
        to ``path`` atomically when given. Returns the matplotlib Figure."""
        from mechanism.units import Units  # noqa: PLC0415

        from ..figure_layout import lay_out_grid  # noqa: PLC0415
        from ..plotting import new_figure, save_figure  # noqa: PLC0415
        from ..suspension.metrics import readable  # noqa: PLC0415
        from ..suspension.sheets import TEXT_SIZE, axis_label  # noqa: PLC0415

        units = self._original.units if units is None else Units.of(units)
        count = len(self.targets)
        columns = min(count, 3)
        rows = math.ceil(count / columns)
        fig = new_figure((5.2 * columns, 3.8 * rows), layout=None)  # laid out once, lay_out_grid below
        grid = fig.add_gridspec(rows, columns)
        for i, (target, before, after) in enumerate(zip(self.targets, self.before, self.after)):
            ax = fig.add_subplot(grid[i // columns, i % columns])
            x_column = self.inputs[target.analysis]
            x = np.asarray(x_column.values) * units.factor(x_column.dimension)
            dimension = target.dimension
            factor = units.factor(dimension)
            ax.plot(x, before * factor, color="tab:gray", linewidth=1.2, label="before")
            ax.plot(x, after * factor, color="tab:blue", linewidth=2.4, alpha=0.7, label="after")
            ax.plot(x, target.values * factor, color="black", linestyle="--", linewidth=1.2, label="target")
            ax.set_xlabel(axis_label(x_column.name, x_column.dimension, units))
            ax.set_ylabel(axis_label(target.metric, dimension, units))
            ax.set_title(readable(target.metric) + ("" if target.analysis == "parallel" else f" ({target.analysis})"),
                         fontsize="medium")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=TEXT_SIZE)
        fig.suptitle(title or f"{self._original.name}: {len(self.coordinates)} hardpoint coordinates fitted, cost "
                     f"{self.start_cost:.3g} -> {self.cost:.3g}")
        lay_out_grid(fig, grid)
        save_figure(fig, path)
        return fig
