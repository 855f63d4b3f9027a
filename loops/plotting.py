"""Plots of sweeps: point trajectories, curves of one column against another, a 3D snapshot
of the mechanism, and an animated GIF of a sweep.

This module imports matplotlib inside the functions (as :mod:`loops.figure_layout`, which
lays out the sheets' fixed grids, does), so ``import loops`` never pays for it. Figures are
built with the object API (:class:`matplotlib.figure.Figure`), never with pyplot's global
state, so every function works headless (no display, no backend choice needed) and leaves the
caller's pyplot figures alone. Each function either draws into an ``ax`` the caller gives (for example from
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
import io
from pathlib import Path

import numpy as np

from mechanism.pairs import KINDS, PAIR_TYPES

__all__ = [
    "figure_path",
    "new_figure",
    "save_figure",
    "plot_trajectories",
    "plot_curves",
    "plot_csv",
    "read_csv",
    "plot_snapshot",
    "animate_sweep",
    "PAIR_MARKERS",
]

#: Marker of each pair type in snapshots and animations (matplotlib marker codes), as the
#: pair types give them (:attr:`mechanism.pairs.PairType.marker`).
PAIR_MARKERS = {kind: PAIR_TYPES[kind].marker for kind in KINDS}

#: Points whose spread across their best-fit plane is below this fraction of their extent
#: are taken to lie in that plane (and get a 2D view besides the 3D one).
PLANAR_TOLERANCE = 1e-9


def figure_path(out, filename):
    """Where to write a figure: ``out`` is a folder (created if needed) or a file name; None is the
    current folder. Returns ``Path``; ``filename`` is used inside a folder."""
    out = Path.cwd() if out is None else Path(out)
    if out.is_dir() or not out.suffix:
        out.mkdir(parents=True, exist_ok=True)
        return out / filename
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


def new_figure(figsize, layout="constrained"):
    """A matplotlib Figure (object API, constrained layout unless ``layout`` says otherwise:
    ``None`` for a figure laid out by :func:`loops.figure_layout.lay_out_grid`), never pyplot's
    global state."""
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout=layout)


def save_figure(fig, path, dpi=120):
    """Save ``fig`` to ``path`` (format from the suffix, PNG without one), atomically: the
    image is made in memory, then written by :func:`mechanism.atomic.write_atomically` (a
    symbolic link is followed; a full disk leaves the previous file as it was). Returns ``fig``."""
    if path is not None:
        import io  # noqa: PLC0415

        from matplotlib import rcParams  # noqa: PLC0415

        from mechanism.atomic import target_path, write_atomically  # noqa: PLC0415

        target_path(path)  # a located error for what is not a file name, before drawing
        suffix = Path(path).suffix
        buffer = io.BytesIO()
        fig.savefig(buffer, dpi=dpi, format=suffix[1:].lower() if suffix else rcParams["savefig.format"])
        write_atomically(path, buffer.getvalue())
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
        fig = new_figure((11, 5) if plane else (6.5, 5.5))
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
    return save_figure(fig, path)


def _tracks(result, points):
    if isinstance(result, dict):
        names = list(result) if points is None else list(points)
        return {name: result[name] for name in names}
    names = list(result.point_names) if points is None else list(points)
    return {name: result.point(name) for name in names}


# -------------------------------------------------------------------------- curves
def plot_curves(x, curves, *, path=None, x_label="", y_label="", title=None, ax=None, first_color=0):
    """Curves ``y(x)``: ``curves`` maps a label to (N,) values sharing the (N,) ``x``.

    ``first_color`` skips that many colours of the cycle (a second, twin axis then gets
    colours of its own)."""
    if ax is None:
        fig = new_figure((7, 4.5))
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure
    x = np.asarray(x, dtype=float)
    for color, (label, y) in zip(_colors(len(curves) + first_color)[first_color:], curves.items()):
        ax.plot(x, np.asarray(y, dtype=float), color=color, label=label)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.grid(True, alpha=0.3)
    if len(curves) > 1:
        ax.legend(fontsize="small")
    if title:
        ax.set_title(title)
    return save_figure(fig, path)


def read_csv(path):
    """``(header list, (N, C) float array)`` of a kinematrix CSV file (lines starting with
    ``#`` are comments).

    Lines starting with ``#`` (the first line naming the file's units) are skipped. The text
    is UTF-8 (a byte-order mark is dropped) or Latin-1 (:func:`mechanism.tables.read_table_text`).
    Raises ValueError (one line) for a file that is not a numeric table with a header.
    """
    from mechanism.tables import read_table_text

    text = io.StringIO(read_table_text(path), newline="")
    numbered = [(number, row) for number, row in enumerate(csv.reader(text), start=1)
                if not (row and row[0].lstrip().startswith("#"))]
    if not numbered:
        raise ValueError("empty file, expected a header line of column names")
    header = [name.strip() for name in numbered[0][1]]
    data = []
    for number, row in numbered[1:]:
        if not row:
            continue
        if len(row) != len(header):
            raise ValueError(f"line {number}: {len(row)} values for {len(header)} columns")
        try:
            data.append([float(v) for v in row])
        except ValueError:
            raise ValueError(f"line {number}: not a number in {str(row)[:80]}") from None
    return header, np.array(data, dtype=float).reshape(len(data), len(header))


def column_units(path) -> dict:
    """``{column: unit}`` from the ``; columns: name=unit, ...`` end of a kinematrix CSV file's
    units line (:func:`loops.results.write_columns`); empty when the file has none."""
    from mechanism.tables import read_table_text
    from mechanism.units import COLUMNS_NOTE

    first = next(iter(read_table_text(path).splitlines()), "")
    at = first.rfind(COLUMNS_NOTE) if first.startswith("# units:") else -1
    if at < 0:
        return {}
    pairs = (item.partition("=") for item in first[at + len(COLUMNS_NOTE):].split("; "))
    return {name: unit for name, sep, unit in pairs if sep}


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
class _Scene:
    """What a snapshot or an animation frame draws, computed per sweep position.

    Each link is a polyline through its pair centres and its points (closed when it has
    more than two); pair centres sit on the pair's first link.
    """

    def __init__(self, result, points, length_scale):
        self.result = result
        self.points = list(result.point_names) if points is None else list(points)
        self.scale = length_scale
        model = result.model
        self.links = [link.name for link in model.links if not getattr(link, "virtual", False)]
        self.nodes = {name: [] for name in self.links}
        self.pairs = []
        for pair in model.pairs:
            if getattr(pair, "virtual", False):
                continue
            self.nodes.setdefault(pair.first, []).append(np.asarray(pair.frame_on_first, dtype=float)[:, 3])
            self.nodes.setdefault(pair.second, []).append(np.asarray(pair.frame_on_second, dtype=float)[:, 3])
            self.pairs.append((pair.name, pair.pair_type.kind, pair.first,
                               np.asarray(pair.frame_on_first, dtype=float)[:, 3]))
        point_links = {p.name: p.link for p in model.points}
        self.point_link = {name: point_links.get(name) for name in self.points}
        self.poses = {}
        for link in self.links:
            try:
                self.poses[link] = np.asarray(result.pose(link), dtype=float)
            except Exception:  # the ground, when the result does not list it, stays put
                self.poses[link] = np.broadcast_to(np.eye(4), (len(result), 4, 4))
        self.tracks = {name: np.asarray(result.point(name), dtype=float) * length_scale for name in self.points}
        self.kinds = list(dict.fromkeys(kind for _, kind, _, _ in self.pairs))

    def link_polyline(self, link, index):
        T = self.poses[link][index]
        xyz = [(T @ c)[:3] * self.scale for c in self.nodes.get(link, [])]
        xyz += [self.tracks[p][index] for p in self.points if self.point_link[p] == link]
        if len(xyz) > 2:
            xyz.append(xyz[0])
        return np.array(xyz).reshape(-1, 3)

    def pair_centre(self, first, centre, index):
        return (self.poses[first][index] @ centre)[:3] * self.scale

    def extent(self, indices):
        """Every drawn coordinate over the given positions: (M, 3)."""
        parts = [track[indices] for track in self.tracks.values()]
        for link, centres in self.nodes.items():
            if link in self.poses:
                for c in centres:
                    parts.append((self.poses[link][indices] @ c)[:, :3] * self.scale)
        return np.concatenate(parts) if parts else np.zeros((0, 3))

    def draw(self, ax, index):
        """Create the artists at position ``index``; returns an updater ``update(index)``."""
        from matplotlib.lines import Line2D

        colors = dict(zip(self.links, _colors(len(self.links))))
        link_lines = {}
        for link in self.links:
            xyz = self.link_polyline(link, index)
            ground = link == "ground"
            (line,) = ax.plot(xyz[:, 0], xyz[:, 1], xyz[:, 2], color="0.45" if ground else colors[link],
                              linestyle="--" if ground else "-", linewidth=1.2 if ground else 2.5)
            link_lines[link] = line
        pair_marks = []
        for name, kind, first, centre in self.pairs:
            xyz = self.pair_centre(first, centre, index)
            (mark,) = ax.plot([xyz[0]], [xyz[1]], [xyz[2]], linestyle="", marker=PAIR_MARKERS.get(kind, "o"),
                              markersize=8, color="k", zorder=5)
            pair_marks.append((mark, first, centre))
        point_marks = []
        for name in self.points:
            xyz = self.tracks[name][index]
            (mark,) = ax.plot([xyz[0]], [xyz[1]], [xyz[2]], linestyle="", marker=".", markersize=8,
                              color="tab:red")
            label = ax.text(xyz[0], xyz[1], xyz[2], f" {name}", fontsize="small", color="tab:red")
            point_marks.append((mark, label, name))
        if self.kinds:
            handles = [Line2D([], [], linestyle="", marker=PAIR_MARKERS.get(kind, "o"), color="k", label=kind)
                       for kind in self.kinds]
            ax.legend(handles=handles, loc="upper left", fontsize="small", title="pairs")

        def update(k):
            for link, line in link_lines.items():
                xyz = self.link_polyline(link, k)
                line.set_data_3d(xyz[:, 0], xyz[:, 1], xyz[:, 2])
            for mark, first, centre in pair_marks:
                xyz = self.pair_centre(first, centre, k)
                mark.set_data_3d([xyz[0]], [xyz[1]], [xyz[2]])
            for mark, label, name in point_marks:
                xyz = self.tracks[name][k]
                mark.set_data_3d([xyz[0]], [xyz[1]], [xyz[2]])
                label.set_position_3d(xyz)

        return update


def _set_view(ax, view, drawn):
    """``view`` is ``(elevation, azimuth)`` in degrees; None looks along the normal of a planar
    scene (so a planar mechanism is seen face-on) and keeps matplotlib's default otherwise."""
    if view is None:
        plane = _best_plane(drawn) if len(drawn) >= 3 else None
        if plane is None:
            return
        _, basis, _ = plane
        normal = np.cross(basis[0], basis[1])
        normal /= np.linalg.norm(normal)
        view = (np.degrees(np.arcsin(np.clip(normal[2], -1, 1))), np.degrees(np.arctan2(normal[1], normal[0])))
    ax.view_init(elev=view[0], azim=view[1])


def _label_3d(ax, length_unit):
    ax.set_xlabel(f"x [{length_unit}]")
    ax.set_ylabel(f"y [{length_unit}]")
    ax.set_zlabel(f"z [{length_unit}]")


def plot_snapshot(result, index=0, *, path=None, points=None, length_scale=1.0, length_unit="m",
                  title=None, ax=None, view=None, fit="sweep"):
    """The mechanism at sweep position ``index`` in 3D.

    Each link is drawn as lines through its pair centres and points (the ground dashed);
    each pair is marked at its centre with the marker of its type (:data:`PAIR_MARKERS`);
    points are red dots with their names. ``view`` is ``(elevation, azimuth)`` in degrees
    (default: face-on for a planar mechanism); ``fit="sweep"`` sizes the box for the whole
    motion (so trajectories drawn on top fit), ``"position"`` for this position only.
    """
    count = len(result)
    if not -count <= index < count:
        raise IndexError(f"sweep position {index} out of range (the sweep has {count})")
    index %= count
    if ax is None:
        fig = new_figure((6.5, 5.5))
        ax = fig.add_subplot(1, 1, 1, projection="3d")
    else:
        fig = ax.figure
    if fit not in ("sweep", "position"):
        raise ValueError(f"fit must be 'sweep' or 'position', not {fit!r}")
    scene = _Scene(result, points, length_scale)
    scene.draw(ax, index)
    _label_3d(ax, length_unit)
    drawn = scene.extent(slice(None) if fit == "sweep" else [index])
    _equal_3d(ax, drawn)
    _set_view(ax, view, drawn)
    ax.set_title(title or f"{result.model.name}: position {index + 1} of {count}")
    return save_figure(fig, path)


# ----------------------------------------------------------------------- animation
def animate_sweep(result, path, *, points=None, fps=20, length_scale=1.0, length_unit="m",
                  trails=True, every=None, max_frames=120, dpi=72, view=None):
    """Save an animated GIF of a sweep (frames drawn by matplotlib's Agg canvas, the GIF
    assembled by pillow; needs pillow).

    Parameters
    ----------
    result : loops.results.SweepResult
    path : str or path-like, the .gif file
    points : points drawn (with their trails when ``trails``); default all
    fps : frames per second
    every : draw every ``every``-th sweep position; default: enough to stay within
        ``max_frames`` frames. The last position is always drawn.
    view : ``(elevation, azimuth)`` in degrees; default face-on for a planar mechanism

    Returns
    -------
    path
    """
    try:
        import PIL  # noqa: F401  (the GIF's writer)
    except ImportError:
        raise RuntimeError("saving a GIF animation needs the pillow package (pip install pillow)") from None
    from mechanism.atomic import target_path, write_atomically

    count = len(result)
    if count == 0:
        raise ValueError("the sweep has no positions to animate")
    target_path(path)  # a located error for what is not a file name, before drawing
    if every is None:
        every = -(-count // max(int(max_frames), 1))
    frames = list(range(0, count, max(int(every), 1)))
    if frames[-1] != count - 1:
        frames.append(count - 1)

    scene = _Scene(result, points, length_scale)
    fig = new_figure((6, 5))
    fig.dpi = dpi
    ax = fig.add_subplot(1, 1, 1, projection="3d")
    update = scene.draw(ax, frames[0])
    trail_lines = {}
    if trails:
        for name, xyz in scene.tracks.items():
            (trail_lines[name],) = ax.plot(xyz[:1, 0], xyz[:1, 1], xyz[:1, 2], color="tab:red",
                                           linewidth=0.8, alpha=0.7)
    _label_3d(ax, length_unit)
    drawn = scene.extent(slice(None))
    _equal_3d(ax, drawn)  # fixed limits: the picture does not jump
    _set_view(ax, view, drawn)
    title = ax.set_title("")

    def draw(frame):
        update(frame)
        for name, line in trail_lines.items():
            xyz = scene.tracks[name][: frame + 1]
            line.set_data_3d(xyz[:, 0], xyz[:, 1], xyz[:, 2])
        title.set_text(f"{result.model.name}: position {frame + 1} of {count}")

    images = _frames(fig, ax, draw, frames)
    buffer = io.BytesIO()
    images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    write_atomically(path, buffer.getvalue())
    return path


def _frames(fig, ax, draw, frames):
    """The GIF's frames (pillow images, RGB where opaque) of the positions ``frames``, each drawn by
    ``draw(position)`` on ``ax`` of ``fig`` (constrained layout, Agg canvas).

    Limits, view and layout stay fixed, so the still part (panes, grid, ticks, axis labels) is
    drawn once, laid out with the first frame's artists, and every frame is that with the
    moving artists (lines, texts, the title, the legend that covers them) drawn over it in the
    order a whole draw uses: the pixels of a whole draw, without drawing again what stays.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = FigureCanvasAgg(fig)

    def image():  # an opaque frame as RGB, which pillow maps onto a GIF's palette better
        frame = Image.frombuffer("RGBA", canvas.get_width_height(), bytes(canvas.buffer_rgba()), "raw", "RGBA", 0, 1)
        return frame if frame.getextrema()[3][0] < 255 else frame.convert("RGB")

    draw(frames[0])
    moving = {id(artist) for artist in [*ax.lines, *ax.texts, ax.title, ax.get_legend()]}
    moving = sorted((a for a in ax.get_children() if id(a) in moving), key=lambda a: a.get_zorder())
    for artist in moving:
        artist.set_animated(True)  # left out of the canvas's draw of the still part
    canvas.draw()  # the still part, laid out with the first frame's moving artists
    fig.set_layout_engine("none")
    still = canvas.copy_from_bbox(fig.bbox)
    renderer = canvas.get_renderer()
    images = []
    for position in frames:
        draw(position)
        canvas.restore_region(still)
        for artist in moving:
            artist.draw(renderer)
        images.append(image())
    return images
