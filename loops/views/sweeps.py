"""The engine's pages: a mechanism at its design pose, a sweep, and curves of a table.

* :func:`mechanism_view`: the model alone (its design pose, or moving through a sweep), its
  links, pairs and points, each independent loop in its colour, and the mobility report
  beside it: the check a user makes before analysing (``kinematrix view``).
* :func:`sweep_view`: a sweep's mechanism moving with the slider, the trajectories of its
  points, and panels of every pair variable (and point) against the first driver.
* :func:`curves_view`: columns of a table against one of them (``kinematrix plot``).

Values are shown in the model's own units (``model.units``: its file's), as its files are
written (:mod:`mechanism.units`).
"""

from __future__ import annotations

import numpy as np

from mechanism.specs import GROUND

from .geometry import plane_normal
from .page import Page
from .panels import Curve, Panel, add_panels
from .scene import COLORS, Design, add_scene, design_of

__all__ = ["mechanism_view", "sweep_view", "curves_view", "variable_dimensions", "design_poses",
           "point_panels",
           "PANEL_DOMAIN"]

#: Where the panels sit in their graph (room above them for the titles).
PANEL_DOMAIN = {"x": [0.0, 1.0], "y": [0.0, 0.96]}
#: Curves drawn in one panel of variables (the rest are left out, and the panel says so).
MAX_CURVES = 8


def variable_dimensions(model) -> dict:
    """Pair variable (and point driver) name -> ``"angle"`` or ``"length"``."""
    out = {}
    for pair in model.pairs:
        if pair.virtual:
            continue
        for name, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
            out[name] = "angle" if rotational else "length"
    for driver in model.point_drivers:
        out[driver.name] = "length"
    return out


def _units_line(units) -> str:
    return f"lengths in {units.length}, angles in {units.angle} (the model file's units)"


def design_poses(model) -> dict:
    """``{link: (1, 4, 4)}``: every real link's pose at the reference assembly (the design pose
    of a model given by global geometry: the identity)."""
    from ..compiled import compile_model  # noqa: PLC0415
    from ..configuration import evaluate  # noqa: PLC0415

    system = compile_model(model, with_point_drivers=False)
    poses = evaluate(system, system.reference_q()).link_poses
    return {link.name: np.asarray(poses[system.link_index[link.name]], dtype=float)[None]
            for link in model.links if not link.virtual and link.name != GROUND}


def mechanism_view(model, report=None, sweep=None, *, title=None):
    """The model alone, with its loops coloured and its mobility report beside it.

    Parameters
    ----------
    model : mechanism.Mechanism or mechanism.specs.Model
    report : loops.mobility.MobilityReport, optional (default: computed, ``check()``)
    sweep : loops.results.SweepResult, optional: move through its positions instead of
        standing at the design pose
    title : str, optional

    Returns
    -------
    loops.views.View
    """
    from ..mobility import mobility_report  # noqa: PLC0415

    model = model.snapshot() if hasattr(model, "snapshot") else model
    report = mobility_report(model) if report is None else report
    units = model.units
    if sweep is not None and len(sweep):
        design = design_of(sweep, model.name, tracks=[p.name for p in model.points])
        count = len(sweep)
    else:
        design, count = Design(model.name, model, design_poses(model)), 1
    subtitle = f"{_units_line(units)}; {report.dof} degree(s) of freedom, {len(report.loops)} independent loop(s)"
    if count > 1:
        subtitle += f"; {count} positions of a sweep"
    page = Page(title or f"{model.name}: the model", count, subtitle=subtitle, summary=str(report))
    add_scene(page, [design], units, loops=report.loops)
    if sweep is not None and len(sweep):
        _driver_readouts(page, sweep, units)
    return page.view()


def _driver_readouts(page, record, units):
    dimensions = variable_dimensions(record.model)
    for name in record.drivers:
        dimension = dimensions.get(name, "length")
        page.add_readout(name, record.q(name) * units.factor(dimension), units.label(dimension))


def _variable_panels(record, x, x_label, units, skip=()):
    """Panels of the record's variables against ``x``: angles, slides, and their rates when the
    record has any."""
    dimensions = variable_dimensions(record.model)
    names = [name for name in record.variable_names if name in dimensions and name not in skip]
    panels = []
    titles = {"angle": ("pair angles", "pair angle rates"),
              "length": ("pair slides and point drivers", "slide and point-driver rates")}
    for dimension in ("angle", "length"):
        chosen = [name for name in names if dimensions[name] == dimension]
        if not chosen:
            continue
        label = units.label(dimension)
        for order, getter in enumerate((record.q, record.q_dot)):
            values = {name: getter(name) * units.factor(dimension) for name in chosen[:MAX_CURVES]}
            if order and not any(np.any(v != 0.0) for v in values.values()):
                continue
            unit = units.label(dimension, order)
            more = f" (first {MAX_CURVES} of {len(chosen)})" if len(chosen) > MAX_CURVES else ""
            curves = [Curve(name, x, v, COLORS[k % 10]) for k, (name, v) in enumerate(values.items())]
            panels.append(Panel(f"{titles[dimension][order]}{more}", x_label, f"[{unit}]" if order else f"[{label}]",
                                curves, legend=True))
    return panels


def point_panels(tracks, x, x_label, units):
    """A plane view of the points' paths when they lie in a plane, then each point's x, y, z."""
    panels = []
    unit = units.length
    scale = units.factor("length")
    stacked = np.concatenate(list(tracks.values())) if tracks else np.zeros((0, 3))
    normal = plane_normal(stacked)
    if normal is not None and np.max(np.abs(normal)) > 1 - 1e-9:
        kept = [i for i in range(3) if i != int(np.argmax(np.abs(normal)))]
        h, v = ("xyz"[kept[0]], "xyz"[kept[1]])
        curves = [Curve(name, xyz[:, kept[0]] * scale, xyz[:, kept[1]] * scale, COLORS[(k + 3) % 10])
                  for k, (name, xyz) in enumerate(tracks.items())]
        panels.append(Panel(f"paths in the {h}{v} plane", f"{h} [{unit}]", f"{v} [{unit}]", curves, legend=True,
                            equal=True))
    for k, (name, xyz) in enumerate(list(tracks.items())[:3]):
        curves = [Curve(f"{name}.{axis}", x, xyz[:, i] * scale, ("#d62728", "#2ca02c", "#1f77b4")[i])
                  for i, axis in enumerate("xyz")]
        panels.append(Panel(f"point {name}", x_label, f"[{unit}]", curves, legend=True))
    return panels


def sweep_view(result, points=None, *, title=None):
    """A sweep's page: the mechanism moving with the slider (the paths of ``points`` drawn),
    and panels of its variables and points against the first driver.

    Parameters
    ----------
    result : loops.results.SweepResult (or any trajectory record with drivers)
    points : list of str, the points whose paths are drawn (default: all)
    title : str, optional

    Returns
    -------
    loops.views.View
    """
    model = result.model
    units = model.units
    points = list(result.point_names) if points is None else list(points)
    tracks = {name: result.point(name) for name in points}
    design = design_of(result, model.name)
    design.tracks = tracks
    dimensions = variable_dimensions(model)
    driver = result.drivers[0] if result.drivers else None
    if driver is None:
        x, x_label = np.arange(len(result), dtype=float), "position"
    else:
        dimension = dimensions.get(driver, "length")
        x, x_label = result.q(driver) * units.factor(dimension), f"{driver} [{units.label(dimension)}]"
    held = f"; held: {', '.join(result.held)}" if result.held else ""
    ended = "" if result.stop_reason is None else f"; stopped: {result.stop_reason}"
    page = Page(title or f"{model.name}: sweep of {', '.join(result.drivers) or 'no driver'}", len(result),
                subtitle=f"{_units_line(units)}; {len(result)} positions{held}{ended}")
    add_scene(page, [design], units)
    panels = point_panels(tracks, x, x_label, units) + _variable_panels(result, x, x_label, units, skip=[driver])
    add_panels(page, panels[:9], domain=PANEL_DOMAIN, columns=2 if len(panels) <= 4 else 3)
    _driver_readouts(page, result, units)
    return page.view()


def curves_view(x, curves, *, x_label="", y_label="", title="curves", subtitle=""):
    """Curves ``y(x)`` in one panel, a marker on each following the slider through the rows.

    ``curves`` maps a label to (N,) values sharing the (N,) ``x``; the labels carry their units
    as the table's columns do."""
    x = np.asarray(x, dtype=float)
    page = Page(title, len(x), subtitle=subtitle)
    drawn = [Curve(name, x, np.asarray(y, dtype=float), COLORS[k % 10]) for k, (name, y) in enumerate(curves.items())]
    add_panels(page, [Panel(title, x_label, y_label, drawn, legend=True)], domain=PANEL_DOMAIN)
    page.add_readout(x_label, x)
    return page.view()
