"""Laying out a figure whose grid is fixed (a suspension sheet), in one pass over its labels.

:func:`lay_out_grid` places the axes of a GridSpec as matplotlib's constrained layout would
(each column and row with the room its axes' labels need, the rest shared by the grid's ratios),
measuring every axes' tick labels, axis labels and title once per pass where constrained layout
measures each axis's decorations many times over at every draw. Like :mod:`loops.plotting`,
it imports matplotlib inside the functions only.
"""

from __future__ import annotations

__all__ = ["lay_out_grid", "LAYOUT_PAD"]

#: Room (points) around each axes' labels, and between the figure's title and the axes, in a
#: figure laid out by :func:`lay_out_grid` (constrained layout's pads, 3 points, and a little).
LAYOUT_PAD = 4.0


def lay_out_grid(fig, grid, passes=2):
    """Place the axes of ``grid`` (a GridSpec of ``fig`` holding them all) from the sizes of
    their labels, measured once per pass (``passes``): to the eye what constrained layout makes
    of a fixed grid, without its work at every draw. Returns ``fig``, its layout engine none
    (a figure drawn larger or given more labels afterwards is not laid out again).

    Each column of the grid gets on its left the room its axes' y labels, y tick labels and
    ticks need, on its right the overhang of their last x tick label; each row above it the
    room of their titles (or y offset texts), below it that of their x tick labels, x labels
    and x offset texts; every room with :data:`LAYOUT_PAD` points around. Axes that are off
    (notes) need none; an axes spanning columns or rows takes the rooms of its first and last.
    The columns share what is left of the width by the grid's width ratios, the rows the height
    by its height ratios, below the figure's texts (its suptitle), which sit at the top. The
    second pass measures again at the positions of the first: how many ticks an axis gets
    depends on its length. (Constrained layout, which reaches the same positions, measures
    every axis's decorations many times over: a third of a sheet's drawing.)
    """
    from matplotlib import rcParams
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig.set_layout_engine("none")
    renderer = FigureCanvasAgg(fig).get_renderer()
    width, height = fig.get_size_inches()
    pad = LAYOUT_PAD / 72.0
    rows, columns = grid.get_geometry()
    axes = [ax for ax in fig.axes if ax.get_subplotspec() is not None
            and ax.get_subplotspec().get_gridspec() is grid]
    titles = [text for text in fig.texts if text.get_in_layout() and text.get_visible() and text.get_text()]
    top = max([_text_size(text, renderer, fig.dpi)[1] + pad for text in titles], default=0.0)
    for text in titles:
        text.set_y(1.0 - pad / height)
    for _ in range(passes):
        left, right, above, below = ([pad] * columns, [pad] * columns, [pad] * rows, [pad] * rows)
        for ax in axes:
            spec, need = ax.get_subplotspec(), _decorations(ax, renderer, fig.dpi, rcParams)
            first_column, last_column = spec.colspan.start, spec.colspan.stop - 1
            left[first_column] = max(left[first_column], need["left"] + pad)
            right[last_column] = max(right[last_column], need["right"] + pad)
            above[spec.rowspan.start] = max(above[spec.rowspan.start], need["above"] + pad)
            below[spec.rowspan.stop - 1] = max(below[spec.rowspan.stop - 1], need["below"] + pad)
        x_edges = _cells(width, left, right, grid.get_width_ratios() or [1.0] * columns)
        y_edges = _cells(height - top, above, below, grid.get_height_ratios() or [1.0] * rows)
        for ax in axes:
            spec = ax.get_subplotspec()
            x0, x1 = x_edges[spec.colspan.start][0], x_edges[spec.colspan.stop - 1][1]
            y0, y1 = y_edges[spec.rowspan.start][0], y_edges[spec.rowspan.stop - 1][1]  # from the top
            ax.set_position([x0 / width, 1.0 - (top + y1) / height, (x1 - x0) / width, (y1 - y0) / height])
    return fig


def _cells(length, before, after, ratios):
    """``[(start, end)]`` (inches from the start) of cells along ``length`` with the rooms
    ``before`` and ``after`` each, sharing the rest by ``ratios``."""
    share = (length - sum(before) - sum(after)) / sum(ratios)
    edges, at = [], 0.0
    for room_before, room_after, ratio in zip(before, after, ratios):
        at += room_before
        edges.append((at, at + ratio * share))
        at += ratio * share + room_after
    return edges


def _text_size(text, renderer, dpi):
    """``(width, height)`` in inches of a shown text on the figure, (0, 0) for none."""
    if text is None or not text.get_visible() or not text.get_text():
        return 0.0, 0.0
    box = text.get_window_extent(renderer)
    return box.width / dpi, box.height / dpi


def _decorations(ax, renderer, dpi, rc):
    """The room (inches) the labels of ``ax`` need on each side of it: ``left`` (y label, y tick
    labels, ticks), ``right`` (the last x tick label's overhang past the axes), ``below`` (x tick
    labels, ticks, x label, x offset text), ``above`` (the title or the y offset text); none for
    an axes that is off."""
    if not ax.axison:
        return dict(left=0.0, right=0.0, below=0.0, above=0.0)
    y_widths = [_text_size(label, renderer, dpi)[0] for _, label in _shown_labels(ax.yaxis)]
    x_shown = _shown_labels(ax.xaxis)
    x_sizes = [_text_size(label, renderer, dpi) for _, label in x_shown]
    # tick marks stick out by their size; their labels sit a pad beyond them
    ticks = {axis: (rc[f"{axis}tick.major.size"] + (rc[f"{axis}tick.major.pad"] if shown else 0.0)) / 72.0
             for axis, shown in (("x", x_sizes), ("y", y_widths))}
    y_label = _text_size(ax.yaxis.label, renderer, dpi)[0]
    x_label = _text_size(ax.xaxis.label, renderer, dpi)[1]
    title = _text_size(ax.title, renderer, dpi)[1]
    overhang = 0.0
    if x_shown:
        low, high = ax.get_xlim()
        inches = ax.get_position().width * ax.get_figure().get_figwidth()
        last = max(range(len(x_shown)), key=lambda k: x_shown[k][0] if high >= low else -x_shown[k][0])
        overhang = x_sizes[last][0] / 2 - abs(high - x_shown[last][0]) / abs(high - low) * inches
    return dict(
        left=max(y_widths, default=0.0) + ticks["y"] + (y_label + ax.yaxis.labelpad / 72.0 if y_label else 0.0),
        right=max(overhang, 0.0),
        below=max((h for _, h in x_sizes), default=0.0) + ticks["x"]
        + (x_label + ax.xaxis.labelpad / 72.0 if x_label else 0.0)
        + _text_size(ax.xaxis.get_offset_text(), renderer, dpi)[1],
        above=max((title + rc["axes.titlepad"] / 72.0) if title else 0.0,
                  _text_size(ax.yaxis.get_offset_text(), renderer, dpi)[1]))


def _shown_labels(axis):
    """``[(position, label)]`` of the major ticks of ``axis`` inside its view (data units, Text),
    their labels' texts set for the view."""
    axis.get_majorticklabels()  # formats the labels of the ticks the locator gives now
    positions = axis.get_majorticklocs()
    low, high = sorted(axis.get_view_interval())
    slack = 1e-9 * (high - low)
    return [(position, tick.label1) for position, tick in zip(positions, axis.get_major_ticks(len(positions)))
            if low - slack <= position <= high + slack and tick.label1.get_visible()]
