"""The interactive page of a simulation: the mechanism moving in time beside its curves.

:func:`simulation_view` draws the simulated motion in 3-D (the paths of its points drawn),
with panels against time: the independent coordinates, the other pair variables, the
energies (kinetic, potential, their sum: a conservative run keeps it flat) and the points'
paths; the slider and play/pause step through the stored times (played at about real time,
within 5 to 60 samples a second). Values in the model file's units.
"""

from __future__ import annotations

import numpy as np

from loops.views.page import Page
from loops.views.panels import Curve, Panel, add_panels
from loops.views.scene import COLORS, add_scene, design_of
from loops.views.sweeps import PANEL_DOMAIN, point_panels, variable_dimensions

__all__ = ["simulation_view", "simulation_html"]


def simulation_view(result, points=None, *, title=None):
    """The page of a simulation.

    Parameters
    ----------
    result : dynamics.simulate.SimulationResult
    points : list of str, the points whose paths are drawn (default: all)
    title : str, optional

    Returns
    -------
    loops.views.View
    """
    model = result.model
    units = model.units
    points = list(result.point_names) if points is None else list(points)
    t = np.asarray(result.t, dtype=float)
    ended = "complete" if result.stop_reason is None else f"stopped: {result.stop_reason}"
    page = Page(title or f"{model.name}: simulation to t = {t[-1]:.4g} s", len(result),
                subtitle=f"lengths in {units.length}, angles in {units.angle} (the model file's units); "
                         f"{len(result)} samples; {ended}")
    duration = float(t[-1] - t[0]) if len(t) > 1 else 0.0
    page.rate = float(np.clip((len(t) - 1) / duration, 5.0, 60.0)) if duration > 0 else 20.0
    design = design_of(result, model.name, tracks=points)
    add_scene(page, [design], units)
    dimensions = variable_dimensions(model)
    panels = []
    for title_text, names in (("independent coordinates", list(result.coordinates) + list(result.prescribed)),
                              ("other pair variables", [n for n in result.variable_names if n in dimensions and
                                                        n not in result.coordinates and n not in result.prescribed])):
        for dimension in ("angle", "length"):
            chosen = [n for n in names if dimensions.get(n) == dimension][:8]
            if chosen:
                curves = [Curve(n, t, result.q(n) * units.factor(dimension), COLORS[k % 10])
                          for k, n in enumerate(chosen)]
                panels.append(Panel(f"{title_text} ({'angles' if dimension == 'angle' else 'slides'})", "t [s]",
                                    f"[{units.label(dimension)}]", curves, legend=True))
    energy = result.energy()
    panels.append(Panel("energy", "t [s]", "[J]", [
        Curve("kinetic", t, energy.kinetic, COLORS[0]), Curve("potential", t, energy.potential, COLORS[1]),
        Curve("total", t, energy.total, "#000000", width=2.2)], legend=True))
    tracks = {name: result.point(name) for name in points}
    panels += point_panels(tracks, t, "t [s]", units)
    add_panels(page, panels[:9], domain=PANEL_DOMAIN, columns=2 if len(panels) <= 4 else 3)
    page.add_readout("t", t, "s")
    return page.view()


def simulation_html(result) -> str:
    """A simulation in a notebook: its summary (samples, end time, coordinates, how it ended) and
    :func:`simulation_view`."""
    from loops.views.notebook import notebook_html  # noqa: PLC0415

    end = f"{result.t[-1]:.6g} s" if len(result.t) else "-"
    rows = [("model", result.model.name), ("samples", len(result)), ("t end", end),
            ("coordinates", ", ".join(result.coordinates)),
            ("stop reason", result.stop_reason or "none: complete")]
    return notebook_html("SimulationResult", rows, lambda: simulation_view(result))
