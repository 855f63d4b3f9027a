"""The sheet of a design study: each metric's spread over the variants against the analysis's input.

:func:`plot_bands` draws one panel per metric against the analysis's input (wheel travel,
rack travel): the nominal design's curve, the band between two percentiles of the variants
(5 % and 95 % by default; variants that stopped are left out where they have no value), and
the smallest and largest values as thin lines. Axes are in the result's units (the model
file's, as the workbench's sheets, :mod:`loops.suspension.sheets`), with the unit on every
axis. Drawing goes through :mod:`loops.plotting` (object API, headless, atomic writes).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from mechanism.errors import ModelError
from mechanism.units import Units

from ..suspension.metrics import readable
from ..suspension.analyses import ANALYSES
from ..suspension.sheets import TEXT_SIZE, axis_label

__all__ = ["plot_bands", "default_metrics", "band_metrics", "panel_grid"]

#: Panels drawn when none are named.
DEFAULT_PANELS = 6


def default_metrics(result, count=DEFAULT_PANELS) -> list:
    """The first ``count`` metrics of the workbench's sheet for the study's analysis that the
    result holds (an axle's left wheel, ``camber_left``, where the metric is per wheel)."""
    out = []
    entry = ANALYSES.get(result.analysis)
    for metric in entry.panels if entry is not None else ():
        for name in (metric, f"{metric}_left"):
            if name in result.metrics and name not in out:
                out.append(name)
                break
    return (out or list(result.metrics))[:count]


def band_metrics(result, metrics, lower, upper) -> list:
    """The metrics a band sheet or page draws (``None``: :func:`default_metrics`), after checking
    them and the band's percentiles ``lower``, ``upper`` (0 <= lower < upper <= 100): a
    ModelError naming the argument (a metric the study does not have: the study's own error)."""
    for name, value in (("lower", lower), ("upper", upper)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
                or not 0.0 <= float(value) <= 100.0:
            raise ModelError(name, f"expected a percentile from 0 to 100, got {value!r}")
    if not lower < upper:
        raise ModelError("lower", f"the band's lower percentile must be below the upper one, got {lower!r} and "
                         f"{upper!r}")
    metrics = default_metrics(result) if metrics is None else list(metrics)
    if not metrics:
        raise ModelError("metrics", "name at least one metric to draw")
    for name in metrics:
        result.values(name)
    return metrics


def panel_grid(count, widest=3):
    """``(columns, rows)`` for ``count`` panels, at most ``widest`` columns: the fewest empty
    panels, then the fewest rows (4 panels: 2 x 2, not 3 x 2 with two empty)."""
    best = min(range(1, min(widest, count) + 1), key=lambda c: (-count % c, math.ceil(count / c)))
    return best, math.ceil(count / best)


def plot_bands(result, path=None, metrics=None, lower=5.0, upper=95.0, *, units=None, title=None):
    """One panel per metric: nominal curve, percentile band and min/max over the variants.

    Parameters
    ----------
    result : loops.study.StudyResult
    path : str or path-like, optional; the sheet is written there atomically (PNG, SVG, PDF)
    metrics : list of metric names, optional (default: :func:`default_metrics`)
    lower, upper : percentiles of the band, 0 <= lower < upper <= 100
    units : Units or (length, angle), optional (default: the result's, the model file's)
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ..figure_layout import lay_out_grid  # noqa: PLC0415
    from ..plotting import new_figure, save_figure  # noqa: PLC0415

    metrics = band_metrics(result, metrics, lower, upper)
    units = result.units if units is None else Units.of(units)
    x_name, (x_dimension, x_values) = next(iter(result.inputs.items()))
    x = np.asarray(x_values, dtype=float) * units.factor(x_dimension)
    columns, rows = panel_grid(len(metrics))
    fig = new_figure((5.2 * columns, 3.6 * rows + 0.6), layout=None)  # laid out once, lay_out_grid below
    grid = fig.add_gridspec(rows, columns)
    for k, name in enumerate(metrics):
        ax = fig.add_subplot(grid[k // columns, k % columns])
        dimension, values = result.metrics[name]
        scale = units.factor(dimension)
        low, high = result.band(name, lower, upper)
        with warnings.catch_warnings():  # a position where every variant stopped: NaN, drawn as a gap
            warnings.simplefilter("ignore", RuntimeWarning)
            smallest, largest = np.nanmin(values, axis=0), np.nanmax(values, axis=0)
        ax.fill_between(x, low * scale, high * scale, color="tab:blue", alpha=0.3, linewidth=0,
                        label=f"p{lower:g} to p{upper:g}")
        ax.plot(x, smallest * scale, color="tab:blue", linewidth=0.6, label="min, max")
        ax.plot(x, largest * scale, color="tab:blue", linewidth=0.6)
        ax.plot(x, np.asarray(result.nominal[name]) * scale, color="black", linewidth=1.6, label="nominal")
        ax.set_xlabel(axis_label(x_name, x_dimension, units))
        ax.set_ylabel(axis_label(name, dimension, units))
        ax.set_title(readable(name), fontsize="medium")
        ax.grid(True, alpha=0.3)
        if k == 0:
            ax.legend(fontsize=TEXT_SIZE)
    stopped = f", {len(result.reasons)} stopped" if result.reasons else ""
    fig.suptitle(title or f"design study: {result.analysis} analysis, {result.variants} variants{stopped}; "
                 f"{len(result.coordinates)} coordinate{'s' if len(result.coordinates) != 1 else ''} varied")
    lay_out_grid(fig, grid)
    if path is not None:
        save_figure(fig, path, dpi=90)
    return fig
