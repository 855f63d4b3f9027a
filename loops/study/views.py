"""The interactive page of a design study: each metric's spread over the variants, with the
nominal design moving in 3-D.

:func:`study_view` draws one panel per metric against the analysis's input, as the band sheet
(:func:`loops.study.sheets.plot_bands`) does: the band between two percentiles of the
variants, the smallest and largest values as thin lines and the nominal curve, with a marker
on the nominal curve at the slider's position; values in the result's units (the model
file's). Given the nominal design's analysis (a
:class:`~loops.suspension.analyses.SuspensionResult` of the same inputs), the page also shows
it in 3-D, moving with the slider, beside the bands.
"""

from __future__ import annotations

import warnings

import numpy as np

from mechanism.units import Units

from ..suspension.views import vehicle_camera, vehicle_views, wheels_of
from ..views.page import Page
from ..views.panels import Band, Curve, Panel, add_panels
from ..views.scene import add_scene, design_of
from ..views.sweeps import PANEL_DOMAIN
from .sheets import band_metrics

__all__ = ["study_view", "study_html"]

_BAND = "rgba(31, 119, 180, 0.28)"
_EDGE = "#1f77b4"


def study_view(result, nominal=None, metrics=None, lower=5.0, upper=95.0, *, units=None, title=None):
    """The page of a design study.

    Parameters
    ----------
    result : loops.study.StudyResult
    nominal : loops.suspension.SuspensionResult, optional: the nominal design's analysis (the
        same inputs), drawn in 3-D beside the bands
    metrics : list of metric names, optional (default: :func:`~loops.study.sheets.default_metrics`)
    lower, upper : percentiles of the band, 0 <= lower < upper <= 100 (checked as the sheet checks
        them: :func:`~loops.study.sheets.band_metrics`)
    units : Units or (length, angle), optional (default: the result's, the model file's)
    title : str, optional

    Returns
    -------
    loops.views.View
    """
    metrics = band_metrics(result, metrics, lower, upper)
    units = result.units if units is None else Units.of(units)
    x_name, (x_dimension, x_values) = next(iter(result.inputs.items()))
    x = np.asarray(x_values, dtype=float) * units.factor(x_dimension)
    x_label = f"{x_name} [{units.label(x_dimension) or '-'}]"
    stopped = f", {len(result.reasons)} stopped" if result.reasons else ""
    varied = ", ".join(c.name for c in result.coordinates[:6]) + (" ..." if len(result.coordinates) > 6 else "")
    page = Page(title or f"design study: {result.analysis} analysis, {result.variants} variants{stopped}",
                result.positions, start=int(np.argmin(np.abs(x))),
                subtitle=f"lengths in {units.length}, angles in {units.angle} (the model file's units); band "
                         f"p{lower:g} to p{upper:g} of the variants, thin lines their min and max, black the nominal "
                         f"design; varied: {varied}")
    panels = [_panel(result, name, x, x_label, units, lower, upper, k == 0) for k, name in enumerate(metrics)]
    if nominal is not None and len(nominal):
        design = design_of(nominal, "nominal design", "#333333", wheels_of(nominal))
        add_scene(page, [design], units, views=vehicle_views(nominal), camera=vehicle_camera(nominal))
        page.scene_width = 0.4
    add_panels(page, panels, domain=PANEL_DOMAIN, columns=min(3, len(panels)))
    for name, (dimension, values) in result.inputs.items():
        page.add_readout(name, np.asarray(values, float) * units.factor(dimension), units.label(dimension))
    return page.view()


def _panel(result, name, x, x_label, units, lower, upper, first):
    dimension, values = result.metrics[name]
    scale = units.factor(dimension)
    low, high = result.band(name, lower, upper)
    with warnings.catch_warnings():  # a position where every variant stopped: NaN, a gap
        warnings.simplefilter("ignore", RuntimeWarning)
        smallest, largest = np.nanmin(values, axis=0), np.nanmax(values, axis=0)
    band = Band(f"p{lower:g} to p{upper:g}", x, low * scale, high * scale, _BAND, group="band", in_legend=first)
    curves = [Curve("min, max", x, smallest * scale, _EDGE, width=0.8, group="extremes", marker=False,
                    in_legend=first),
              Curve("max", x, largest * scale, _EDGE, width=0.8, group="extremes", marker=False),
              Curve("nominal", x, np.asarray(result.nominal[name], float) * scale, "#000000", width=2.2,
                    group="nominal", in_legend=first)]
    unit = units.label(dimension) or "-"
    return Panel(name.replace("_", " "), x_label, f"{name} [{unit}]", curves, bands=[band])



def study_html(result) -> str:
    """A study in a notebook: its summary (analysis, variants, positions, stops, varied
    coordinates) and :func:`study_view` (the bands; the nominal design's 3-D view needs its
    analysis, which the study does not keep)."""
    from ..views.notebook import notebook_html  # noqa: PLC0415

    rows = [("analysis", result.analysis), ("variants", result.variants), ("positions", result.positions),
            ("stopped", len(result.reasons)), ("varied", ", ".join(c.name for c in result.coordinates))]
    return notebook_html("StudyResult", rows, lambda: study_view(result))
