"""Plots of sweeps: point trajectories, curves of one column against another, a 3D snapshot
of the mechanism, and an animated GIF of a sweep.

This is the only module of kinematrix that imports matplotlib, and it does so inside the
functions, so ``import loops`` never pays for it. Figures are built with the object API
(:class:`matplotlib.figure.Figure`), never with pyplot's global state, so every function
works headless (no display, no backend choice needed) and leaves the caller's pyplot
figures alone. Each function either draws into an ``ax`` the caller gives (for example from
``plt.subplots``) or makes its own figure, saves it when ``path`` is given, and returns the
figure.

Results hold SI values; ``length_scale`` and ``length_unit`` (for example ``1000.0`` and
``"mm"``) draw them in a model file's units.

Examples
--------
>>> import numpy as np
>>> from loops.plotting import plot_curves
>>> x = np.linspace(0.0, 360.0, 37)
>>> fig = plot_curves(x, {"C": np.sin(np.radians(x))}, x_label="A [deg]", y_label="C [rad]")
>>> len(fig.axes[0].lines)
1
"""

from __future__ import annotations

import csv

import numpy as np

__all__ = [
    "plot_trajectories",
    "plot_curves",
    "plot_csv",
    "read_csv",
    "plot_snapshot",
    "animate_sweep",
    "PAIR_MARKERS",
]

#: Marker of each pair type in snapshots and animations (matplotlib marker codes).
PAIR_MARKERS = {
    "revolute": "o",
    "prismatic": "s",
    "cylindrical": "D",
    "helical": "*",
    "hooke": "X",
    "spherical": "^",
}

#: Points whose spread across their best-fit plane is below this fraction of their extent
#: are taken to lie in that plane (and get a 2D view besides the 3D one).
PLANAR_TOLERANCE = 1e-9


def _new_figure(figsize):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def _save(fig, path, dpi=120):
    if path is not None:
        fig.savefig(path, dpi=dpi)
    return fig


def _colors(count):
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(count)]


def _best_plane(points):
    """``(origin, basis (2, 3), labels)`` of the plane holding every row of ``points``
    (within :data:`PLANAR_TOLERANCE` of their extent), or None when they are not planar."""
    points = np.asarray(points, dtype=float)
    points = points[np.all(np.isfinite(points), axis=1)]
    if len(points) < 3:
        return None
    origin = points.mean(axis=0)
    centred = points - origin
    extent = np.abs(centred).max()
    if extent == 0.0:
        return None
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    if singular[-1] > PLANAR_TOLERANCE * extent * np.sqrt(len(points)):
        return None
    normal = vt[-1]
    axis = int(np.argmax(np.abs(normal)))
    if abs(abs(normal[axis]) - 1.0) < 1e-9:  # a coordinate plane: keep the global axes
        kept = [i for i in range(3) if i != axis]
        basis = np.eye(3)[kept]
        labels = ["xyz"[i] for i in kept]
        return np.zeros(3), basis, labels
    return origin, vt[:2], ["u", "v"]


def _equal_3d(ax, points):
    """Equal scale on the three axes of a 3D plot holding ``points`` (M, 3)."""
    points = np.asarray(points, dtype=float)
    points = points[np.all(np.isfinite(points), axis=1)]
    if not len(points):
        return
    low, high = points.min(axis=0), points.max(axis=0)
    centre = (low + high) / 2
    half = max(float((high - low).max()) / 2, 1e-12)
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_box_aspect((1, 1, 1))


# -------------------------------------------------------------------- trajectories
def plot_trajectories(result, points=None, *, path=None, length_scale=1.0, length_unit="m",
                      title=None, ax=None):
    """Trajectories of named points over a sweep: a 3D view, plus a 2D view in their plane
    when all of them lie in one plane (a planar linkage, or a point on a rocker).

    Parameters
    ----------
    result : loops.results.SweepResult, or dict name -> (N, 3) positions (m, global)
    points : list of str, default every point of the result
    path : str or path-like, optional; the figure is saved there (format from the suffix)
    length_scale, length_unit : drawing units (``1000.0, "mm"``)
    ax : a 3D matplotlib Axes to draw into (then no 2D view is added)

    Returns
    -------
    matplotlib.figure.Figure
    """
    tracks = _tracks(result, points)
    tracks = {name: np.asarray(xyz, dtype=float) * length_scale for name, xyz in tracks.items()}
    stacked = np.concatenate(list(tracks.values())) if tracks else np.zeros((0, 3))
    plane = _best_plane(stacked) if ax is None else None
    if ax is None:
        fig = _new_figure((11, 5) if plane else (6.5, 5.5))
        ax3d = fig.add_subplot(1, 2 if plane else 1, 1, projection="3d")
    else:
        fig, ax3d = ax.figure, ax
    colors = _colors(len(tracks))
    for color, (name, xyz) in zip(colors, tracks.items()):
        ax3d.plot(xyz[:, 0], xyz[:, 1], xyz[:, 2], color=color, label=name)
        ax3d.scatter(*xyz[0], color=color, marker="o", s=18)
    ax3d.set_xlabel(f"x [{length_unit}]")
    ax3d.set_ylabel(f"y [{length_unit}]")
    ax3d.set_zlabel(f"z [{length_unit}]")
    _equal_3d(ax3d, stacked)
    if tracks:
        ax3d.legend(loc="upper left", fontsize="small")
    if plane is not None:
        origin, basis, labels = plane
        ax2d = fig.add_subplot(1, 2, 2)
        for color, (name, xyz) in zip(colors, tracks.items()):
            uv = (xyz - origin) @ basis.T
            ax2d.plot(uv[:, 0], uv[:, 1], color=color, label=name)
            ax2d.plot(uv[0, 0], uv[0, 1], "o", color=color, markersize=4)
        ax2d.set_xlabel(f"{labels[0]} [{length_unit}]")
        ax2d.set_ylabel(f"{labels[1]} [{length_unit}]")
        ax2d.set_aspect("equal", adjustable="datalim")
        ax2d.grid(True, alpha=0.3)
        ax2d.set_title("in the plane of the points" if labels == ["u", "v"] else f"{labels[0]}{labels[1]} plane")
    fig.suptitle(title or "point trajectories (o: first position)")
    return _save(fig, path)


def _tracks(result, points):
    if isinstance(result, dict):
        names = list(result) if points is None else list(points)
        return {name: result[name] for name in names}
    names = list(result.point_names) if points is None else list(points)
    return {name: result.point(name) for name in names}


# -------------------------------------------------------------------------- curves
def plot_curves(x, curves, *, path=None, x_label="", y_label="", title=None, ax=None):
    """Curves ``y(x)``: ``curves`` maps a label to (N,) values sharing the (N,) ``x``."""
    if ax is None:
        fig = _new_figure((7, 4.5))
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure
    x = np.asarray(x, dtype=float)
    for color, (label, y) in zip(_colors(len(curves)), curves.items()):
        ax.plot(x, np.asarray(y, dtype=float), color=color, label=label)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.grid(True, alpha=0.3)
    if len(curves) > 1:
        ax.legend(fontsize="small")
    if title:
        ax.set_title(title)
    return _save(fig, path)


def read_csv(path):
    """``(header list, (N, C) float array)`` of a kinematrix CSV file.

    Raises ValueError (one line) for a file that is not a numeric table with a header.
    """
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        raise ValueError("empty file, expected a header line of column names")
    header = [name.strip() for name in rows[0]]
    data = []
    for number, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise ValueError(f"line {number}: {len(row)} values for {len(header)} columns")
        try:
            data.append([float(v) for v in row])
        except ValueError:
            raise ValueError(f"line {number}: not a number in {row!r}") from None
    return header, np.array(data, dtype=float).reshape(len(data), len(header))


def plot_csv(csv_path, x, y, *, path=None, title=None):
    """Columns ``y`` (a name or list of names) against column ``x`` of a CSV file."""
    header, table = read_csv(csv_path)
    names = [y] if isinstance(y, str) else list(y)
    for name in [x] + names:
        if name not in header:
            raise KeyError(f"no column {name!r} in {csv_path} (columns: {', '.join(header)})")
    curves = {name: table[:, header.index(name)] for name in names}
    return plot_curves(table[:, header.index(x)], curves, path=path, x_label=x,
                       y_label=", ".join(names), title=title)


# ------------------------------------------------------------------------ snapshot
def _link_geometry(result):
    """Per link: (pair centres in link coordinates (k, 4), pair names); and per pair its
    (link, centre) on the first link, for markers."""
    model = result.model
    nodes = {link.name: [] for link in model.links}
    pairs = []
    for pair in model.pairs:
        if getattr(pair, "virtual", False):
            continue
        on_first = np.asarray(pair.frame_on_first, dtype=float)[:, 3]
        on_second = np.asarray(pair.frame_on_second, dtype=float)[:, 3]
        nodes.setdefault(pair.first, []).append(on_first)
        nodes.setdefault(pair.second, []).append(on_second)
        pairs.append((pair, on_first))
    return nodes, pairs


def _pose(result, link, index):
    try:
        return np.asarray(result.pose(link)[index], dtype=float)
    except Exception:  # the ground (or a link the result does not track) stays put
        return np.eye(4)


def _draw_mechanism(ax, result, index, nodes, pairs, points, length_scale, with_legend=True):
    """Draw links, pairs and points at sweep position ``index``; returns the artists' points."""
    from matplotlib.lines import Line2D

    drawn = []
    real_links = [link.name for link in result.model.links if not getattr(link, "virtual", False)]
    colors = dict(zip(real_links, _colors(len(real_links))))
    point_xyz = {}
    for point in points:
        point_xyz[point] = np.asarray(result.point(point)[index], dtype=float) * length_scale
    point_links = {p.name: p.link for p in result.model.points}
    for link in real_links:
        T = _pose(result, link, index)
        centres = [(T @ c)[:3] * length_scale for c in nodes.get(link, [])]
        centres += [point_xyz[p] for p in points if point_links.get(p) == link]
        if len(centres) < 2:
            continue
        xyz = np.array(centres + ([centres[0]] if len(centres) > 2 else []))
        ground = link == "ground"
        ax.plot(xyz[:, 0], xyz[:, 1], xyz[:, 2], color="0.45" if ground else colors[link],
                linestyle="--" if ground else "-", linewidth=1.2 if ground else 2.5)
        drawn.append(xyz)
    kinds_seen = []
    for pair, centre in pairs:
        xyz = (_pose(result, pair.first, index) @ centre)[:3] * length_scale
        kind = pair.pair_type.kind
        ax.scatter(*xyz, marker=PAIR_MARKERS.get(kind, "o"), s=60, color="k", depthshade=False, zorder=5)
        drawn.append(xyz[None])
        if kind not in kinds_seen:
            kinds_seen.append(kind)
    for name, xyz in point_xyz.items():
        ax.scatter(*xyz, marker=".", s=40, color="tab:red", depthshade=False)
        ax.text(*xyz, f" {name}", fontsize="small", color="tab:red")
        drawn.append(xyz[None])
    if with_legend and kinds_seen:
        handles = [Line2D([], [], linestyle="", marker=PAIR_MARKERS.get(kind, "o"), color="k", label=kind)
                   for kind in kinds_seen]
        ax.legend(handles=handles, loc="upper left", fontsize="small", title="pairs")
    return np.concatenate(drawn) if drawn else np.zeros((0, 3))


def plot_snapshot(result, index=0, *, path=None, points=None, length_scale=1.0, length_unit="m",
                  title=None, ax=None):
    """The mechanism at sweep position ``index`` in 3D.

    Each link is drawn as lines through its pair centres and points (the ground dashed);
    each pair is marked at its centre with the marker of its type (:data:`PAIR_MARKERS`).
    """
    count = len(result)
    if not -count <= index < count:
        raise IndexError(f"sweep position {index} out of range (the sweep has {count})")
    points = list(result.point_names) if points is None else list(points)
    if ax is None:
        fig = _new_figure((6.5, 5.5))
        ax = fig.add_subplot(1, 1, 1, projection="3d")
    else:
        fig = ax.figure
    nodes, pairs = _link_geometry(result)
    drawn = _draw_mechanism(ax, result, index, nodes, pairs, points, length_scale)
    ax.set_xlabel(f"x [{length_unit}]")
    ax.set_ylabel(f"y [{length_unit}]")
    ax.set_zlabel(f"z [{length_unit}]")
    _equal_3d(ax, drawn)
    ax.set_title(title or f"{result.model.name}: position {index % count + 1} of {count}")
    return _save(fig, path)


# ----------------------------------------------------------------------- animation
def animate_sweep(result, path, *, points=None, fps=20, length_scale=1.0, length_unit="m",
                  trails=True, every=1, dpi=80):
    """Save an animated GIF of a sweep (matplotlib's PillowWriter; needs pillow).

    Parameters
    ----------
    result : loops.results.SweepResult
    path : str or path-like, the .gif file
    points : points drawn (with their trails when ``trails``); default all
    fps : frames per second
    every : draw every ``every``-th sweep position
    """
    from matplotlib import animation

    try:
        import PIL  # noqa: F401  (PillowWriter's dependency)
    except ImportError:
        raise RuntimeError("saving a GIF animation needs the pillow package (pip install pillow)") from None
    count = len(result)
    if count == 0:
        raise ValueError("the sweep has no positions to animate")
    points = list(result.point_names) if points is None else list(points)
    frames = list(range(0, count, max(int(every), 1)))
    if frames[-1] != count - 1:
        frames.append(count - 1)

    nodes, pairs = _link_geometry(result)
    # Fixed limits over the whole sweep, so the picture does not jump.
    everything = []
    tracks = {p: np.asarray(result.point(p), dtype=float) * length_scale for p in points}
    everything += list(tracks.values())
    for link in result.model.links:
        for c in nodes.get(link.name, []):
            try:
                poses = np.asarray(result.pose(link.name), dtype=float)
            except Exception:
                continue
            everything.append((poses @ c)[:, :3] * length_scale)
    extent = np.concatenate(everything) if everything else np.zeros((0, 3))

    fig = _new_figure((6, 5))
    ax = fig.add_subplot(1, 1, 1, projection="3d")

    def draw(frame):
        ax.cla()
        _draw_mechanism(ax, result, frame, nodes, pairs, points, length_scale)
        if trails:
            for name, xyz in tracks.items():
                ax.plot(xyz[: frame + 1, 0], xyz[: frame + 1, 1], xyz[: frame + 1, 2],
                        color="tab:red", linewidth=0.8, alpha=0.7)
        ax.set_xlabel(f"x [{length_unit}]")
        ax.set_ylabel(f"y [{length_unit}]")
        ax.set_zlabel(f"z [{length_unit}]")
        _equal_3d(ax, extent)
        ax.set_title(f"{result.model.name}: position {frame + 1} of {count}")
        return []

    movie = animation.FuncAnimation(fig, draw, frames=frames, blit=False, repeat=False)
    movie.save(path, writer=animation.PillowWriter(fps=fps), dpi=dpi)
    return path
