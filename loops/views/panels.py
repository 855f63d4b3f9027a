"""The 2-D panels of a view: curves against an input, bands, and a marker on every curve that
follows the slider.

:func:`add_panels` lays :class:`Panel` objects out in a grid in the page's panels graph, each
with its title and axis labels (the unit in brackets), its curves (hover gives the curve's
name and both values), optional bands (a study's percentile band) and, per curve, a marker
at the slider's position (a follower of the page). Zoom and pan are plotly's; a double
click restores the view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Curve", "Band", "Panel", "add_panels"]


@dataclass
class Curve:
    """One curve of a panel.

    Attributes
    ----------
    name : str, shown on hover (and in the panel's legend when it has one)
    x, y : (M,) values in the page's units
    color : str, dash : str ("solid", "dash", "dot", ...), width : float (px)
    rows : (N,) int, optional: the curve's point at each of the page's positions (-1: none);
        default position ``k`` is point ``k``
    group : str, optional: the legend group (a design), hidden and shown with it
    marker : bool, a marker follows the slider on this curve
    in_legend : bool, an entry in the page's legend (for a group: its entry)
    """

    name: str
    x: np.ndarray
    y: np.ndarray
    color: str = "#1f77b4"
    dash: str = "solid"
    width: float = 1.8
    rows: np.ndarray | None = None
    group: str | None = None
    marker: bool = True
    in_legend: bool = False


@dataclass
class Band:
    """A filled band between ``low`` and ``high`` (M,) over ``x`` (M,): a study's percentiles."""

    name: str
    x: np.ndarray
    low: np.ndarray
    high: np.ndarray
    color: str = "rgba(31, 119, 180, 0.25)"
    group: str | None = None
    in_legend: bool = False


@dataclass
class Panel:
    """One panel: ``curves`` and ``bands`` against a common x, with labelled axes.

    ``legend`` puts a small legend of the curves' names inside the panel; ``equal`` draws
    both axes to one scale (a plane view of trajectories).
    """

    title: str
    x_label: str
    y_label: str
    curves: list = field(default_factory=list)
    bands: list = field(default_factory=list)
    legend: bool = False
    equal: bool = False


def _format(values) -> str:
    """A d3 number format that shows ``values`` to about 5 significant digits."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    largest = float(np.abs(finite).max()) if len(finite) else 1.0
    if largest == 0.0:
        return ".4f"
    decimals = int(np.clip(4 - math.floor(math.log10(largest)), 0, 8))
    return f".{decimals}f"


def add_panels(page, panels, *, domain=None, columns=3, gap=(0.07, 0.09)):
    """Draw ``panels`` into ``page``'s panels graph in a grid of ``columns`` within ``domain``
    (``{"x": [x0, x1], "y": [y0, y1]}`` in fractions of the graph; default all of it).

    Returns the trace index of each panel's curves, in order (a list of lists).
    """
    domain = dict(domain or {"x": [0.0, 1.0], "y": [0.0, 1.0]})
    if any(c.in_legend for p in panels for c in p.curves) or any(b.in_legend for p in panels for b in p.bands):
        domain["y"] = [max(domain["y"][0], 0.08), domain["y"][1]]  # room below for the legend's row
    columns = max(1, min(columns, len(panels)))
    rows = max(1, math.ceil(len(panels) / columns))
    (x0, x1), (y0, y1) = domain["x"], domain["y"]
    width = (x1 - x0 - gap[0] * (columns - 1)) / columns
    height = (y1 - y0 - gap[1] * (rows - 1)) / rows
    out = []
    layout = page.panels.layout
    annotations = layout.setdefault("annotations", [])
    first = sum(1 for key in layout if key.startswith("xaxis")) + 1
    for k, panel in enumerate(panels):
        number = first + k
        suffix = "" if number == 1 else str(number)
        row, column = divmod(k, columns)
        left = x0 + column * (width + gap[0])
        top = y1 - row * (height + gap[1])
        layout[f"xaxis{suffix}"] = {"domain": _span(left, left + width), "anchor": f"y{suffix}",
                                         "title": {"text": panel.x_label, "font": {"size": 11}, "standoff": 4},
                                         **_AXIS_STYLE}
        layout[f"yaxis{suffix}"] = {"domain": _span(top - height, top), "anchor": f"x{suffix}",
                                         "title": {"text": panel.y_label, "font": {"size": 11}, "standoff": 4},
                                         **_AXIS_STYLE}
        if panel.equal:
            layout[f"yaxis{suffix}"].update(scaleanchor=f"x{suffix}", scaleratio=1)
        annotations.append({"text": f"<b>{panel.title}</b>", "x": left + width / 2, "y": top, "xref": "paper",
                            "yref": "paper", "xanchor": "center", "yanchor": "bottom", "showarrow": False,
                            "font": {"size": 12}})
        legend = None
        if panel.legend:
            legend = f"legend{number + 1}"
            layout[legend] = {"x": left + width, "y": top, "xanchor": "right", "yanchor": "top",
                                   "bgcolor": "rgba(255,255,255,0.75)", "bordercolor": "#d0d4da", "borderwidth": 1,
                                   "font": {"size": 10}}
        axes = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
        for band in panel.bands:
            _band(page, band, axes)
        out.append([_curve(page, panel, curve, axes, legend) for curve in panel.curves])
    layout["legend"].update(orientation="h", x=0.0, y=0.0, xanchor="left", yanchor="bottom")
    return out


def _span(low, high):
    """A domain ``[low, high]`` within [0, 1] (sums of fractions may fall a rounding outside)."""
    return [min(max(round(low, 9), 0.0), 1.0), min(max(round(high, 9), 0.0), 1.0)]


_AXIS_STYLE = {"showline": True, "linecolor": "#9aa3ad", "mirror": True, "gridcolor": "#e3e6ea",
               "zerolinecolor": "#b8bfc7", "ticks": "outside", "ticklen": 3, "tickfont": {"size": 10},
               "automargin": True}


def _curve(page, panel, curve, axes, legend):
    x_format, y_format = _format(curve.x), _format(curve.y)
    hover = (f"<b>{curve.name}</b><br>{panel.x_label} = %{{x:{x_format}}}<br>{panel.y_label} = "
             f"%{{y:{y_format}}}<extra></extra>")
    trace = {"type": "scatter", "mode": "lines", "x": np.asarray(curve.x, dtype=float),
             "y": np.asarray(curve.y, dtype=float), "name": curve.name,
             "line": {"color": curve.color, "dash": curve.dash, "width": curve.width},
             "hovertemplate": hover, **axes}
    if legend is not None:
        trace.update(legend=legend, showlegend=True)
        if curve.group:
            trace["legendgroup"] = curve.group
    else:
        trace["showlegend"] = curve.in_legend
        if curve.group:
            trace["legendgroup"] = curve.group
    index = page.panels.add(trace)
    if curve.marker:
        page.add_follower(index, curve.color, curve.rows)
    return index


def _band(page, band, axes):
    x, low, high = (np.asarray(v, dtype=float) for v in (band.x, band.low, band.high))
    keep = np.isfinite(x) & np.isfinite(low) & np.isfinite(high)
    x, low, high = x[keep], low[keep], high[keep]
    trace = {"type": "scatter", "mode": "lines", "x": np.concatenate([x, x[::-1]]),
             "y": np.concatenate([high, low[::-1]]), "fill": "toself", "fillcolor": band.color,
             "line": {"width": 0}, "hoverinfo": "skip", "name": band.name, "showlegend": band.in_legend, **axes}
    if band.group:
        trace["legendgroup"] = band.group
    return page.panels.add(trace)
