"""The interactive page of a suspension analysis: the corner or axle in 3-D beside its sheet.

:func:`suspension_view` draws one analysis, or several designs' analyses of the same kind
overlaid (one colour per design, a legend entry each that hides or shows the design
everywhere): the linkage moving with the slider, each wheel a disc on its spin axis, and the
panels of the analysis's sheet (:data:`loops.suspension.sheets.PANELS`) against its input,
in the model file's units, an axle's left wheel solid and its right wheel dashed, with a
marker on every curve at the slider's position. The camera buttons look from ahead, from
the left and from above (the vehicle's axes, :class:`~loops.suspension.corner.Corner`).

The same page shows inline in a notebook (a :class:`SuspensionResult`'s HTML).
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError
from mechanism.units import Units

from ..views.geometry import Wheel
from ..views.page import Page
from ..views.panels import Curve, Panel, add_panels
from ..views.scene import COLORS, add_scene, camera_along, design_of
from ..views.sweeps import PANEL_DOMAIN
from .sheets import PANELS

__all__ = ["suspension_view", "analysis_html", "wheels_of", "metric_columns", "analysis_inputs", "vehicle_camera",
           "vehicle_views"]



def metric_columns(result, metric) -> list:
    """``[(column, side)]`` holding ``metric`` in ``result``: the axle's or the corner's own
    column (side ``""``), else the left and right wheels' (``camber_left``, ``camber_right``)."""
    if metric in result.metrics:
        return [(metric, "")]
    return [(f"{metric}_{side}", side) for side in ("left", "right") if f"{metric}_{side}" in result.metrics]


def analysis_inputs(result) -> list:
    """The input columns of an analysis (the first of its metrics): wheel travel, roll angle
    or rack travel; a combined analysis has the travel levels, then the rack; a steering
    analysis by steering-wheel angle has that angle too."""
    names = list(result.metrics)
    count = 2 if result.analysis.startswith("combined") else 1
    if result.analysis in ("steering", "combined travel and steering") and "steering_wheel_angle" in names:
        count += 1
    return names[:count]


def wheels_of(result) -> list:
    """The wheels of an analysis's suspension, as :class:`~loops.views.geometry.Wheel`: each on
    the link carrying its wheel centre, its spin axis outboard from the spin-axis point."""
    suspension = getattr(result, "suspension", None)
    if suspension is None:
        return []
    out = []
    for side, corner in suspension.corners.items():
        centre, inner = result.model.point(corner.wheel_centre), result.model.point(corner.spin_axis_point)
        axis = np.asarray(centre.at, float) - np.asarray(inner.at, float)
        out.append(Wheel(centre.link, np.asarray(centre.at, float), axis / np.linalg.norm(axis),
                         float(corner.wheel_radius), f"{side} wheel" if len(suspension.corners) > 1 else "wheel"))
    return out


def _name(result):
    suspension = getattr(result, "suspension", None)
    return suspension.name if suspension is not None else result.model.name


def _groups(result):
    """The rows of each curve: one group, or one per travel level of a combined analysis."""
    if not result.analysis.startswith("combined"):
        return [np.arange(len(result))]
    levels = np.asarray(result.metrics["wheel_travel"].values)
    return [np.flatnonzero(levels == level) for level in dict.fromkeys(levels.tolist())]


def _panel(results, labels, metric, units, count):
    curves, x_label, dimension = [], "", None
    for design, (result, label) in enumerate(zip(results, labels)):
        color = COLORS[design % 10]
        inputs = analysis_inputs(result)
        x_name = inputs[1] if result.analysis.startswith("combined") else inputs[0]
        x_column = result.metrics[x_name]
        x = np.asarray(x_column.values, float) * units.factor(x_column.dimension)
        x_label = f"{x_name} [{units.label(x_column.dimension) or '-'}]"
        groups = _groups(result)
        for name, side in metric_columns(result, metric):
            column = result.metrics[name]
            dimension = column.dimension
            y = np.asarray(column.values, float) * units.factor(dimension)
            for g, rows in enumerate(groups):
                if len(groups) > 1 and side == "right":
                    continue  # a combined analysis: the left wheel, one line style per travel level
                where = np.full(count, -1)
                where[rows[rows < count]] = np.arange(len(rows))[rows < count]
                text = f"{label} {name}"
                if len(groups) > 1:
                    level = float(result.metrics["wheel_travel"].values[rows[0]]) * units.factor("length")
                    text += f", travel {level:g} {units.length}"
                dash = "dash" if side == "right" else ("solid", "dot", "dashdot", "longdash")[g % 4]
                curves.append(Curve(text, x[rows], y[rows], color, dash, rows=where, group=label))
    unit = units.label(dimension) if dimension is not None else ""
    return Panel(metric.replace("_", " "), x_label, f"{metric} [{unit or '-'}]", curves)


def suspension_view(results, *, labels=None, units=None, title=None):
    """The page of one analysis or of several designs' analyses of the same kind.

    Parameters
    ----------
    results : SuspensionResult or list of them (one per design, the same analysis)
    labels : list of str, optional, the designs' names (default: their suspensions' names)
    units : Units or (length, angle), optional (default: the first result's, its file's)
    title : str, optional

    Returns
    -------
    loops.views.View
    """
    results = [results] if not isinstance(results, (list, tuple)) else list(results)
    results = [r for r in results if len(r)]
    if not results:
        raise ModelError("results", "nothing to draw: no analysis reached a position")
    kinds = {r.analysis for r in results}
    if len(kinds) != 1:
        raise ModelError("results", f"the designs ran different analyses ({', '.join(sorted(kinds))})")
    analysis = results[0].analysis
    labels = list(labels) if labels is not None else [_name(r) for r in results]
    if len(set(labels)) != len(labels):
        labels = [f"{label} ({k + 1})" for k, label in enumerate(labels)]
    units = results[0].units if units is None else Units.of(units)
    count = max(len(r) for r in results)
    axle = any(len(getattr(r, "suspension", None).corners) == 2 for r in results if hasattr(r, "suspension"))
    stops = [f"{label} stopped after {len(r)} positions: {r.stop_reason}" for r, label in zip(results, labels)
             if r.stop_reason]
    subtitle = (f"lengths in {units.length}, angles in {units.angle} (the model file's units); wheel travel at the "
                f"{results[0].travel_at.replace('-', ' ')}" + ("; left wheel solid, right wheel dashed" if axle else "")
                + "".join(f"; {s}" for s in stops))
    longest = max(range(len(results)), key=lambda k: len(results[k]))
    start = int(np.argmin(sum(np.abs(np.asarray(results[longest].metrics[name].values, float))
                              for name in analysis_inputs(results[longest]))))
    page = Page(title or f"{analysis}: {' vs '.join(labels)}", count, subtitle=subtitle, start=start)
    designs = [design_of(r, label, COLORS[k % 10], wheels_of(r)) for k, (r, label) in enumerate(zip(results, labels))]
    views = vehicle_views(results[0])
    add_scene(page, designs, units, views=views, camera=vehicle_camera(results[0]))
    page.scene_width = 0.4
    panels = [m for m in PANELS[analysis] if any(metric_columns(r, m) for r in results)][:12]
    add_panels(page, [_panel(results, labels, m, units, count) for m in panels], domain=PANEL_DOMAIN, columns=4)
    reference = results[longest]
    for name in analysis_inputs(reference):
        column = reference.metrics[name]
        values = np.asarray(column.values, float) * units.factor(column.dimension)
        page.add_readout(name, values, units.label(column.dimension))
    return page.view()


def _vehicle_axes(result):
    suspension = getattr(result, "suspension", None)
    if suspension is None:
        return np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    corner = next(iter(suspension.corners.values()))
    forward, _, up = corner.axes
    return forward, corner.left


def vehicle_views(result):
    """Camera buttons of a suspension's 3-D view: from ahead, from the left, from above."""
    forward, left = _vehicle_axes(result)
    return {"front": forward, "left side": left, "top": np.array([0.0, 0.0, 1.0])}


def vehicle_camera(result):
    """The plotly camera of a suspension's 3-D view: from ahead, left and above (perspective)."""
    forward, left = _vehicle_axes(result)
    return camera_along(1.1 * forward + 0.9 * left + 0.6 * np.array([0.0, 0.0, 1.0]), orthographic=False)


def analysis_html(result) -> str:
    """An analysis in a notebook: its summary (analysis, suspension, positions, how it ended) and
    :func:`suspension_view`."""
    from ..views.notebook import notebook_html, record_rows  # noqa: PLC0415

    rows = [("analysis", result.analysis), ("suspension", _name(result)),
            ("wheel travel at the", result.travel_at.replace("-", " "))] + record_rows(result)[1:]
    return notebook_html("SuspensionResult", rows, lambda: suspension_view(result))
