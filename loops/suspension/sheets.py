"""The standard sheet of a suspension analysis: metric curves and front and side views.

:func:`plot_sheet` draws one analysis, or several designs' analyses of the same kind
overlaid (one colour per design), as an engineer reads them: the analysis's metric curves
against its input, in the model file's units with the unit on every axis (an axle's left
wheel solid, its right wheel dashed), and the corner or axle drawn as links in the front
view (y-z) and in the side view of the left wheel (x-z): at the design position and at the
two extremes of the analysis (thin), with the ground, the contact patches, the front-view
and side-view instant centres with the lines to them from the contact patches, and the
roll centre (the axle's, or the corner's on the centre plane).

Drawing goes through :mod:`loops.plotting` (figures by the object API, headless, atomic
writes); this module imports no matplotlib itself.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from mechanism.errors import ModelError
from mechanism.units import Units
from mechanism.specs import GROUND

from .measure import contact_patch
from .analyses import ANALYSES, titled
from .metrics import AXLE_METRICS, PART_METRICS, readable

__all__ = ["plot_sheet", "PANELS", "axis_label", "TEXT_SIZE"]

#: Metric panels of each analysis's sheet by its title (the registry's, at most 12 drawn).
PANELS = {a.title: list(a.panels) for a in ANALYSES.values()}
_STYLES = ("-", "--", ":", "-.")
#: Legends and notes in points: readable on a sheet printed on A4 landscape.
TEXT_SIZE = 8.5
#: An axle's left and right curves are drawn as one ("left = right") when they differ by no
#: more than this fraction of the curve's range (a mirrored axle in symmetric travel).
SAME_CURVES = 1e-9


def axis_label(name, dimension, units):
    """A sheet axis's label: the column's readable name (:func:`~loops.suspension.metrics.
    readable`) and its unit in ``units`` (``"camber gain [deg/mm]"``; ``[-]`` for a ratio)."""
    return f"{readable(name)} [{units.label(dimension) or '-'}]"


def _columns(result, metric):
    """``[(column name, wheel)]`` holding ``metric`` in ``result``: the axle's or the corner's
    own column, else the left and right wheels'."""
    if metric in result.metrics:
        return [(metric, "")]
    return [(f"{metric}_{side}", side) for side in ("left", "right") if f"{metric}_{side}" in result.metrics]


def _x_and_levels(result):
    """The sheet's x axis (the first input that is not the registry's levels) and the levels
    column (``wheel_travel`` of combined: one curve per level), or None."""
    entry = titled(result.analysis)
    levels = entry.levels if entry is not None else None
    x_name = next(name for name in result.input_names if name != levels)
    return x_name, levels


def plot_sheet(results, path=None, *, labels=None, units=None, title=None, metrics=None):
    """The standard sheet of one analysis or of several designs' analyses of the same kind.

    Parameters
    ----------
    results : SuspensionResult or list of them (one per design, the same analysis)
    path : str or path-like, optional; the sheet is written there atomically (PNG, SVG, PDF)
    labels : list of str, optional, the designs' names (default: their models' names)
    units : Units or (length, angle), optional (default: the first result's file units)
    title : str, optional
    metrics : list of metric names, optional: the panels (per-wheel metrics drawn left and
        right), at most 12 (default: the registry's panels of the analysis,
        :mod:`loops.suspension.analyses`)

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ..figure_layout import lay_out_grid  # noqa: PLC0415
    from ..plotting import new_figure, save_figure  # noqa: PLC0415

    results = [results] if not isinstance(results, (list, tuple)) else list(results)
    if not results:
        raise ModelError("results", "nothing to draw")
    if results[0].analysis == "load case":
        if len(results) != 1 or metrics is not None:
            raise ModelError("results", "a load case's sheet draws one design, its own panels")
        return _load_sheet(results[0], path, results[0].units if units is None else Units.of(units), title)
    kinds = {r.analysis for r in results}
    if len(kinds) != 1:
        raise ModelError("results", f"the designs ran different analyses ({', '.join(sorted(kinds))})")
    analysis = results[0].analysis
    labels = list(labels) if labels is not None else [_name(r) for r in results]
    results, labels = _with_companions(results, labels)
    units = results[0].units if units is None else Units.of(units)
    if metrics is None:
        entry = titled(analysis)
        panels = [m for m in (entry.panels if entry else ()) if any(_columns(r, m) for r in results)][:12]
    else:
        panels = list(metrics)
        for name in panels:
            if not any(_columns(r, name) for r in results):
                raise ModelError(f"metric {name!r}", f"not a metric of the {analysis} analysis of these designs")
        if not 0 < len(panels) <= 12:
            raise ModelError("metrics", f"expected 1 to 12 metrics, got {len(panels)}")
    fig = new_figure((19, 11.2), layout=None)  # the grid is fixed: laid out once, lay_out_grid below
    grid = fig.add_gridspec(4, 6, height_ratios=(1, 1, 1, 0.08 + 0.08 * len(results)))
    colors = _colors(len(results))
    for k, metric in enumerate(panels):
        ax = fig.add_subplot(grid[k // 4, k % 4])
        _curves(ax, results, labels, colors, metric, units)
    front = fig.add_subplot(grid[0:2, 4:6])
    side = fig.add_subplot(grid[2, 4:6])
    extents = {"front": [], "side": []}
    for design, (result, label, color) in enumerate(zip(results, labels, colors)):
        _views(front, side, result, label, color, units, extremes=design == 0, extents=extents)
    for ax, key, (h, v) in ((front, "front", (1, 2)), (side, "side", (0, 2))):
        _fit(ax, np.concatenate(extents[key]), h, v)
    notes = fig.add_subplot(grid[3, :])
    _notes(notes, results, labels, colors, units)
    front.set_title("front view (from ahead)")
    side.set_title("side view of the left wheel")
    for ax, horizontal in ((front, "y"), (side, "x")):
        ax.set_xlabel(f"{horizontal} [{units.length}]")
        ax.set_ylabel(f"z [{units.length}]")
        ax.set_aspect("equal", adjustable="box")
        ax.grid(True, alpha=0.3)
    front.legend(fontsize=TEXT_SIZE, loc="upper right")
    name = " vs ".join(labels)
    fig.suptitle(title or f"{analysis}: {name} (wheel travel at the {results[0].travel_at.replace('-', ' ')})")
    lay_out_grid(fig, grid)
    if path is not None:
        save_figure(fig, path, dpi=90)
    return fig


def _with_companions(results, labels):
    """Each result followed by the curve it is drawn beside (K&C: ``rigid``, the rigid variant's
    kinematics), labelled ``loaded`` and ``rigid``; results without one as they are."""
    if not any(getattr(r, "rigid", None) is not None for r in results):
        return results, labels
    out, names = [], []
    for result, label in zip(results, labels):
        out.append(result)
        rigid = getattr(result, "rigid", None)
        case = getattr(result, "case", None)
        design = f"{label} " if len(results) > 1 else ""  # one design: its name is in the title
        names.append(label if rigid is None else f"{design}loaded" + (f" ({case.name})" if case else ""))
        if rigid is not None:
            out.append(rigid)
            names.append(f"{design}rigid")
    return out, names


def _colors(count):
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
               "tab:olive", "tab:cyan", "tab:gray"]
    return [palette[i % len(palette)] for i in range(count)]


def _same(a, b):
    """Whether two curves are one to the eye (and to SAME_CURVES of their range)."""
    span = np.nanmax(np.abs(np.concatenate([a, b])), initial=0.0)
    return bool(np.all((np.abs(a - b) <= SAME_CURVES * max(span, 1e-300)) | (np.isnan(a) & np.isnan(b))))


def _wheel_curves(result, metric, units):
    """``[(suffix of the legend, y (N,), line style)]``: the corner's own curve, or an axle's
    left (solid) and right (dashed) ones, drawn once as ``left = right`` when they are one."""
    columns = _columns(result, metric)
    curves = [(side, np.asarray(result.metrics[name].values, dtype=float) * units.factor(
        result.metrics[name].dimension)) for name, side in columns]
    if len(curves) == 2 and _same(curves[0][1], curves[1][1]):
        return [("left = right", curves[0][1], "-")]
    return [(side, y, "--" if side == "right" else "-") for side, y in curves]


def _curves(ax, results, labels, colors, metric, units):
    dimension, x_label, missing = None, None, []
    for result, label, color in zip(results, labels, colors):
        if not _columns(result, metric):
            missing.append(f"{label}: {_missing(result, metric)}")
            continue
        x_name, levels = _x_and_levels(result)
        x_column = result.metrics[x_name]
        x = np.asarray(x_column.values) * units.factor(x_column.dimension)
        x_label = axis_label(x_name, x_column.dimension, units)
        dimension = result.metrics[_columns(result, metric)[0][0]].dimension
        groups = [np.arange(len(result))]
        if levels is not None:
            values = np.asarray(result.metrics[levels].values)
            groups = [np.flatnonzero(values == level) for level in dict.fromkeys(values.tolist())]
        for side, y, style in _wheel_curves(result, metric, units):
            if levels is not None and side == "right":
                continue  # the left wheel only: the level's line style is the distinction
            for g, rows in enumerate(groups):
                text = label + (f" {side}" if side else "")
                if levels is not None:
                    column = result.metrics[levels]
                    level = float(column.values[rows[0]]) * units.factor(column.dimension)
                    text += f", {readable(levels)} {level:g} {units.label(column.dimension)}"
                    style = _STYLES[g % len(_STYLES)]
                ax.plot(x[rows], y[rows], color=color, linestyle=style, linewidth=1.4, label=text)
    ax.set_xlabel(x_label)
    ax.set_ylabel(axis_label(metric, dimension, units))
    ax.set_title(readable(metric), fontsize="medium")
    ax.grid(True, alpha=0.3)
    if len(ax.lines) > 1 or any(line.get_label().endswith(("left", "right")) for line in ax.lines):
        ax.legend(fontsize=TEXT_SIZE)
    if missing:
        note = ax.text(0.02, 0.02, textwrap.fill("not shown: " + "; ".join(missing), 36), transform=ax.transAxes,
                       fontsize=TEXT_SIZE, va="bottom", bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "0.8"})
        note.set_in_layout(False)


def _missing(result, metric):
    """Why ``result`` has no ``metric`` (a rear axle has no anti-dive, a corner no spring)."""
    suspension = getattr(result, "suspension", None)
    vehicle = None if suspension is None else suspension.vehicle
    if metric in ("anti_dive", "anti_lift", "anti_squat"):
        if vehicle is None or vehicle.wheelbase is None or vehicle.cg_height is None:
            return "no [vehicle] wheelbase and cg_height"
        if metric == "anti_dive" and not vehicle.front or metric == "anti_squat" and vehicle.front:
            own = "anti-dive, anti-lift" if vehicle.front else "anti-lift, anti-squat"
            return f"a {vehicle.axle} axle (its anti-geometry: {own})"
        return "no brake or drive share in [vehicle]"
    if metric in PART_METRICS:
        return f"no {PART_METRICS[metric][0]}"
    if metric == "steer_rate":
        return "no steering variable"
    if suspension is not None and not suspension.is_axle and metric in AXLE_METRICS:
        return "a corner, not an axle"
    return "not computed for it"


def _signed(value, positive, negative, unit, digits=0, zero=None):
    """``"12 mm above ground"`` from a value and the words for its two signs (no negative zero;
    ``zero`` for a value that rounds to 0, ``"at infinity"`` for none)."""
    if not math.isfinite(value):
        return "at infinity"
    rounded = round(value, digits)
    if rounded == 0:
        return zero or f"0 {unit} {positive}"
    word = positive if rounded > 0 else negative
    return f"{abs(rounded):.{digits}f} {unit} {word}"


def _design_notes(result, units):
    """One line: the design position's instant centres and roll centre, in words."""
    suspension = getattr(result, "suspension", None)
    if suspension is None or not _columns(result, "fvic_height"):
        return ""
    index = _design_index(result)
    scale = units.factor("length")
    side = "left" if len(suspension.corners) == 2 else None
    unit = units.length

    def value(name):
        return _value(result, name, side, index) * scale

    parts = [f"FVIC {_signed(value('fvic_height'), 'above', 'below', unit, zero='at')} ground, "
             f"{_signed(value('fvsa_length'), 'inboard of', 'outboard of', unit, zero='at')} the patch",
             f"SVIC {_signed(value('svic_height'), 'above', 'below', unit, zero='at')} ground, "
             f"{_signed(value('svsa_length'), 'ahead of', 'behind', unit, zero='at')} the patch"]
    if "roll_centre_lateral" in result.metrics:
        height = float(result.metrics["roll_centre_height"].values[index]) * scale
        lateral = float(result.metrics["roll_centre_lateral"].values[index]) * scale
        parts.append(f"axle roll centre {_signed(height, 'above', 'below', unit, 1)} the road, "
                     f"{_signed(lateral, 'left', 'right', unit, 1, zero='on the centre plane')}")
    else:
        parts.append(f"roll centre {_signed(value('roll_centre_height'), 'above', 'below', unit, 1)} the road")
    where = "left wheel, " if side else ""
    return f"{where}at the design position: " + "; ".join(parts)


def _notes(ax, results, labels, colors, units):
    """The designs' instant centres and roll centres in words, one line each, below the views."""
    ax.axis("off")
    lines = [(f"{label}: {_design_notes(result, units)}", color)
             for result, label, color in zip(results, labels, colors) if _design_notes(result, units)]
    for k, (text, color) in enumerate(lines):
        ax.text(0.0, 1.0 - k / max(len(lines), 3), text, transform=ax.transAxes, fontsize=TEXT_SIZE + 1,
                va="top", color=color).set_in_layout(False)


# ------------------------------------------------------------------ views
def _link_lines(result, index):
    """``{link: (k, 3)}`` polylines through each link's pair centres and points at a position
    (closed for more than two nodes), and the ground's pivots (M, 3); global, m."""
    model = result.model
    nodes = {}
    for pair in model.pairs:
        if pair.virtual:
            continue
        nodes.setdefault(pair.first, []).append(np.asarray(pair.frame_on_first, float)[:3, 3])
        nodes.setdefault(pair.second, []).append(np.asarray(pair.frame_on_second, float)[:3, 3])
    for point in model.points:
        nodes.setdefault(point.link, []).append(np.asarray(point.at, float))
    lines, pivots = {}, np.zeros((0, 3))
    for link, local in nodes.items():
        local = np.array(local)
        if link == GROUND:
            pivots = local
            continue
        T = result.pose(link)[index]
        xyz = local @ T[:3, :3].T + T[:3, 3]
        if len(xyz) > 2:
            xyz = np.vstack([xyz, xyz[:1]])
        lines[link] = xyz
    return lines, pivots


def _design_index(result):
    score = sum(np.abs(np.asarray(result.metrics[name].values, float)) for name in result.input_names)
    return int(np.argmin(score))


def _fit(ax, xyz, h, v):
    """View limits around the drawn linkage (instant centres far away fall outside)."""
    low, high = xyz.min(axis=0), xyz.max(axis=0)
    span = max(high[h] - low[h], high[v] - low[v])
    margin = 0.12 * span
    ax.set_xlim(low[h] - margin, high[h] + margin)
    ax.set_ylim(low[v] - margin, high[v] + margin)


def _views(front, side, result, label, color, units, extremes, extents):
    scale = units.factor("length")
    design = _design_index(result)
    suspension = getattr(result, "suspension", None)
    corners = {} if suspension is None else suspension.corners
    left_links = None
    if "left" in corners and len(corners) == 2:
        left_links = {name for name in (link.name for link in result.model.links) if not name.endswith("_right")}
    indices = [design] + ([0, len(result) - 1] if extremes and len(result) > 1 else [])
    for k, index in enumerate(indices):
        lines, pivots = _link_lines(result, index)
        width, alpha = (1.8, 1.0) if k == 0 else (0.7, 0.45)
        for link, xyz in lines.items():
            xyz = xyz * scale
            extents["front"].append(xyz)
            if left_links is None or link in left_links:
                extents["side"].append(xyz)
            front.plot(xyz[:, 1], xyz[:, 2], color=color, linewidth=width, alpha=alpha,
                       label=label if (k == 0 and link == next(iter(lines))) else None)
            if left_links is None or link in left_links:
                side.plot(xyz[:, 0], xyz[:, 2], color=color, linewidth=width, alpha=alpha)
        if k == 0 and len(pivots):
            front.plot(pivots[:, 1] * scale, pivots[:, 2] * scale, linestyle="", marker="s", markersize=3,
                       color="0.3")
        for side_name, corner in corners.items():
            patch = contact_patch(result, corner)[index] * scale
            centre = _point(result, corner.wheel_centre, index) * scale
            top = 2 * centre - patch
            extents["front"].append(np.array([patch, top]))
            if side_name == "left" or len(corners) == 1:
                reach = float(np.linalg.norm(centre - patch)) * np.array([1.0, 0.0, 0.0])
                extents["side"].append(np.array([patch, top, centre + reach, centre - reach]))
            front.plot([patch[1], top[1]], [patch[2], top[2]], color=color, linewidth=3 * width, alpha=0.35 * alpha,
                       solid_capstyle="butt")
            if side_name == "left" or len(corners) == 1:
                radius = float(np.linalg.norm(centre - patch))
                angle = np.linspace(0, 2 * math.pi, 73)
                side.plot(centre[0] + radius * np.cos(angle), centre[2] + radius * np.sin(angle), color=color,
                          linewidth=width, alpha=0.35 * alpha)
            if k == 0:
                _instant_centres(front, side, result, corner, side_name if len(corners) == 2 else None, design,
                                 patch, color, units, draw_side=side_name == "left" or len(corners) == 1)
    _roll_centre(front, result, design, color, units)


def _load_sheet(result, path, units, title):
    """A load case's sheet: the body-side force of every pair drawn as an arrow on the front
    and side views at the design position (the applied load red at the wheel), a bar per
    hardpoint (its force at the design position, and the largest over the positions light),
    and the driver, rack, spring and member forces against wheel travel."""
    from ..figure_layout import lay_out_grid  # noqa: PLC0415
    from ..plotting import new_figure, save_figure  # noqa: PLC0415

    fig = new_figure((19, 11.2), layout=None)  # the grid is fixed: laid out once, lay_out_grid below
    grid = fig.add_gridspec(2, 3, width_ratios=(1.2, 1.0, 1.0))
    front, side, bars = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[:, 1])
    curves, members = fig.add_subplot(grid[0, 2]), fig.add_subplot(grid[1, 2])
    index, length = _design_index(result), units.factor("length")
    lines, _ = _link_lines(result, index)
    drawn = np.concatenate(list(lines.values())) * length
    span = float(np.ptp(drawn, axis=0).max())
    forces = result.body_forces
    biggest = max([float(np.linalg.norm(f[index])) for f in forces.values()]
                  + [float(np.linalg.norm(a[1])) for a in result.applied.values()] + [1e-12])
    arrows = [(result.reactions.frame(name)[index, :3, 3], f[index], "tab:blue") for name, f in forces.items()]
    arrows += [(where[index], force, "tab:red") for where, force, _ in result.applied.values()]
    for ax, (h, v) in ((front, (1, 2)), (side, (0, 2))):
        for xyz in lines.values():
            ax.plot(xyz[:, h] * length, xyz[:, v] * length, color="0.35", linewidth=1.4)
        for at, force, color in arrows:
            tip = force * 0.3 * span / biggest
            ax.annotate("", xy=(at[h] * length + tip[h], at[v] * length + tip[v]), xytext=(at[h] * length, at[v] * length),
                        arrowprops={"arrowstyle": "->", "color": color, "linewidth": 1.5})
        _fit(ax, np.vstack([drawn, drawn.min(axis=0) - 0.3 * span, drawn.max(axis=0) + 0.3 * span]), h, v)
        ax.set_aspect("equal", adjustable="box")
        ax.grid(True, alpha=0.3)
        ax.set_xlabel(f"{'yx'[h == 0]} [{units.length}]")
        ax.set_ylabel(f"z [{units.length}]")
    front.set_title(f"front view: forces on the body side (blue), the load (red); {biggest:.4g} N = "
                    f"{0.3 * span:.3g} {units.length}", fontsize=TEXT_SIZE)
    side.set_title("side view", fontsize=TEXT_SIZE)
    names = list(forces)
    at_design = [float(np.linalg.norm(forces[n][index])) for n in names]
    largest = [float(np.linalg.norm(forces[n], axis=1).max()) for n in names]
    bars.barh(names, largest, color="tab:blue", alpha=0.3, label="largest over the positions")
    bars.barh(names, at_design, color="tab:blue", label="at the design position")
    bars.invert_yaxis()
    bars.set_xlabel("force on the body side [N]")
    bars.legend(fontsize=TEXT_SIZE, loc="lower right")
    bars.tick_params(axis="y", labelsize=TEXT_SIZE)
    travel = result.metric("wheel_travel") * length
    for ax, pick in ((curves, lambda n: "_force" in n), (members, lambda n: n.endswith("_axial"))):
        for name in (n for n in result.metrics if pick(n)):
            ax.plot(travel, result.metric(name), marker="o" if len(travel) == 1 else None, label=readable(name))
        ax.set_xlabel(f"wheel travel [{units.length}]")
        ax.set_ylabel("N")
        ax.grid(True, alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=TEXT_SIZE)
    curves.set_title("driver (+ up), rack and spring (+ compression) forces", fontsize=TEXT_SIZE)
    members.set_title("two-force members' axial force (+ tension)", fontsize=TEXT_SIZE)
    case = result.case
    fig.suptitle(title or f"load case {case.name} of {_name(result)}: held by the {result.held_by}; force "
                 f"{case.longitudinal:g}, {case.lateral:g}, {case.vertical:g} {case.unit} (forward, outboard, up) "
                 f"at the {case.at.replace('-', ' ')}")
    lay_out_grid(fig, grid)
    if path is not None:
        save_figure(fig, path, dpi=90)
    return fig


def _point(result, name, index):
    return result.point(name)[index]


def _value(result, name, side, index):
    """A per-wheel metric at a position: ``name_side`` on an axle (``side`` given), ``name``
    on a corner; NaN when the analysis lacks it."""
    key = name if side is None else f"{name}_{side}"
    return float(result.metrics[key].values[index]) if key in result.metrics else float("nan")


def _instant_centres(front, side, result, corner, side_name, index, patch, color, units, draw_side):
    scale = units.factor("length")
    forward, outboard, up = corner.axes
    fvic_height = _value(result, "fvic_height", side_name, index) * scale
    fvsa = _value(result, "fvsa_length", side_name, index) * scale
    svic_height = _value(result, "svic_height", side_name, index) * scale
    svsa = _value(result, "svsa_length", side_name, index) * scale
    front.axhline(patch[2], color="0.5", linewidth=0.8)
    if math.isfinite(fvic_height) and math.isfinite(fvsa):
        ic = patch + fvic_height * up - fvsa * outboard
        front.plot([patch[1], ic[1]], [patch[2], ic[2]], color=color, linewidth=0.8, linestyle=":")
        front.plot([ic[1]], [ic[2]], marker="o", markersize=6, markerfacecolor="none", color=color)
        front.annotate("FVIC", (ic[1], ic[2]), fontsize=TEXT_SIZE, color=color, xytext=(3, 3),
                       textcoords="offset points", annotation_clip=True)
    if draw_side:
        side.axhline(patch[2], color="0.5", linewidth=0.8)
        if math.isfinite(svic_height) and math.isfinite(svsa):
            ic = patch + svsa * forward + svic_height * up
            side.plot([patch[0], ic[0]], [patch[2], ic[2]], color=color, linewidth=0.8, linestyle=":")
            side.plot([ic[0]], [ic[2]], marker="o", markersize=6, markerfacecolor="none", color=color)
            side.annotate("SVIC", (ic[0], ic[2]), fontsize=TEXT_SIZE, color=color, xytext=(3, 3),
                          textcoords="offset points", annotation_clip=True)


def _roll_centre(front, result, index, color, units):
    scale = units.factor("length")
    suspension = getattr(result, "suspension", None)
    if suspension is None:
        return
    corner = next(iter(suspension.corners.values()))
    left = corner.left
    if "roll_centre_lateral" in result.metrics:
        height = float(result.metrics["roll_centre_height"].values[index])
        lateral = float(result.metrics["roll_centre_lateral"].values[index])
        patches = [contact_patch(result, c)[index] for c in suspension.corners.values()]
        ground = float(np.mean([p[2] for p in patches]))
        y = corner.centre_plane_y + lateral * left[1]
        z = ground + height
    elif "roll_centre_z" in result.metrics:
        y, z = corner.centre_plane_y, float(result.metrics["roll_centre_z"].values[index])
    else:
        return
    if math.isfinite(y) and math.isfinite(z):
        front.plot([y * scale], [z * scale], marker="X", markersize=9, color=color, linestyle="")
        front.annotate("RC", (y * scale, z * scale), fontsize="small", color=color, xytext=(4, -10),
                       textcoords="offset points")


def _name(result):
    suspension = getattr(result, "suspension", None)
    return suspension.name if suspension is not None else result.model.name
