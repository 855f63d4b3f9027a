"""The 3-D scene of a view: one or more designs of a mechanism, moving through their positions.

:func:`add_scene` draws each :class:`Design` into a :class:`~loops.views.page.Page`: its
links as lines between their pair centres and points, each pair marked at its centre by
its type (with a short stroke along its axis), points, spring-dampers, wheels as discs on
their spin axes, the ground's pivots fixed, the trajectories of chosen points, and an axis
triad; coordinates in the page's length unit, with each hardpoint's name, type and
coordinates on hover. Everything that moves is a body of the page (its vertices ride on
links), so the player places it from the links' poses at the slider's position.

Several designs share the scene, each in its colour (one legend entry per design, which
hides or shows it here and in every panel); one design gets a legend entry per part.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mechanism.pairs import KINDS, PAIR_TYPES
from mechanism.specs import GROUND

from .geometry import link_outlines, model_extent, pair_centres, plane_normal, wheel_rim

__all__ = ["Design", "design_of", "add_scene", "COLORS", "PAIR_SYMBOLS", "camera_along"]

#: Colours of designs (and of links, loops and curves within one design), in order.
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
          "#17becf"]
#: plotly's 3-D marker of each pair type, its hook ``view_symbol`` in the registry (mechanism.pairs).
PAIR_SYMBOLS = {kind: PAIR_TYPES[kind].view_symbol for kind in KINDS}
#: Colour of each pair type's markers when one design is drawn.
PAIR_COLORS = {"revolute": "#1a1a1a", "prismatic": "#8c564b", "cylindrical": "#9467bd", "helical": "#e377c2",
               "hooke": "#ff7f0e", "spherical": "#d62728"}
_GROUND_COLOR = "#555555"
_AXIS_COLORS = {"x": "#d62728", "y": "#2ca02c", "z": "#1f77b4"}


@dataclass
class Design:
    """One design drawn in a scene.

    Attributes
    ----------
    name : str, its legend entry
    model : mechanism.specs.Model
    poses : dict link -> (N, 4, 4) SI, the pose of every real link but the ground at each position
    color : str, a CSS colour
    wheels : list of :class:`~loops.views.geometry.Wheel`
    tracks : dict point -> (N, 3) m, global: trajectories drawn as fixed lines
    """

    name: str
    model: object
    poses: dict
    color: str = COLORS[0]
    wheels: list = field(default_factory=list)
    tracks: dict = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(next(iter(self.poses.values()))) if self.poses else 1


def design_of(record, name=None, color=COLORS[0], wheels=(), tracks=()):
    """A :class:`Design` from a trajectory record (a sweep, an analysis, a simulation): the
    poses of its real links, and the trajectories of the points named in ``tracks``."""
    links = [link.name for link in record.model.links if not link.virtual and link.name != GROUND]
    poses = {link: record.pose(link) for link in links}
    return Design(name or record.model.name, record.model, poses, color, list(wheels),
                  {point: record.point(point) for point in tracks})


def camera_along(direction, up=(0.0, 0.0, 1.0), distance=1.6, orthographic=True) -> dict:
    """A plotly scene camera looking along ``-direction`` (the eye on the ``direction`` side)."""
    direction = np.asarray(direction, dtype=float)
    direction = direction / np.linalg.norm(direction)
    up = np.asarray(up, dtype=float)
    if abs(float(direction @ up)) > 0.99:
        up = np.array([0.0, 1.0, 0.0])
    eye = distance * direction * (1.0 if orthographic else 1.75)
    camera = {"eye": dict(zip("xyz", eye.tolist())), "up": dict(zip("xyz", up.tolist())),
              "center": {"x": 0, "y": 0, "z": 0}}
    camera["projection"] = {"type": "orthographic" if orthographic else "perspective"}
    return camera


class _Vertices:
    """A body's vertex list under construction: link indices (-1 gap, -2 ground), local
    coordinates in the page's unit, hover texts."""

    def __init__(self):
        self.links, self.local, self.text = [], [], []

    def add(self, link, xyz, text=""):
        self.links.append(link)
        self.local.append(np.asarray(xyz, dtype=float))
        self.text.append(text)

    def gap(self):
        self.add(-1, np.zeros(3))

    def __len__(self):
        return len(self.links)


class _SceneBuilder:
    def __init__(self, page, designs, units, scene, loops):
        self.page, self.designs, self.units, self.scene, self.loops = page, designs, units, scene, loops
        self.scale = units.factor("length")
        self.unit = units.length
        self.single = len(designs) == 1
        self.drawn = []  # every vertex at every position: the scene's box
        self.linkage = []  # the links' vertices at every position: is the mechanism planar?
        self.decimals = 2

    def hover(self, label="%{text}"):
        d, u = self.decimals, self.unit
        return f"{label}<br>x %{{x:.{d}f}} {u}<br>y %{{y:.{d}f}} {u}<br>z %{{z:.{d}f}} {u}<extra></extra>"

    def body(self, vertices, trace):
        """Add ``trace`` moved by ``vertices`` on the current design's links; its initial x, y, z
        at the page's start."""
        links = np.array(vertices.links, dtype=int)
        local = np.array(vertices.local).reshape(-1, 3)
        poses = self.poses
        initial = self.page.body_vertices(poses, links, local, self.page.start)
        trace.update(x=initial[:, 0], y=initial[:, 1], z=initial[:, 2], scene=self.scene)
        if "text" not in trace:
            trace["text"] = vertices.text
        index = self.page.scene.add(trace)
        self.page.add_body(index, self.pose_set, links, local)
        moving = links >= 0
        T = poses[:, links[moving]]
        self.drawn.append((np.einsum("nvij,vj->nvi", T[..., :3, :3], local[moving]) + T[..., :3, 3]).reshape(-1, 3))
        self.drawn.append(local[links == -2])
        return index

    def group(self, part):
        """Legend fields of a trace: one entry per design, or per part for a single design."""
        design = self.design
        if self.single:
            return {"name": part, "legendgroup": part, "showlegend": True}
        return {"name": design.name, "legendgroup": design.name, "showlegend": part == "links"}

    def where(self, link):
        """The current design's index of ``link`` in its pose set (-2: the ground, fixed)."""
        return self.index.get(link, -2)

    def draw(self, design):
        """Every part of ``design``, moving with its poses."""
        model = design.model
        links = list(design.poses)
        count = design.count
        poses = np.empty((count, len(links), 4, 4))
        for i, link in enumerate(links):
            poses[:, i] = design.poses[link]
        poses[:, :, :3, 3] *= self.scale
        self.design, self.poses, self.index = design, poses, {link: i for i, link in enumerate(links) if link != GROUND}
        self.pose_set = self.page.add_poses(poses)
        outlines = link_outlines(model)
        size = model_extent(np.concatenate([np.array([r for _, r in nodes]).reshape(-1, 3)
                                            for nodes in outlines.values()])) * self.scale
        self.decimals = int(np.clip(5 - np.floor(np.log10(size)), 0, 8))
        self._links(outlines)
        self._pairs(size)
        self._points()
        self._springs()
        self._wheels()
        self._tracks()
        if self.loops and self.single:
            self._loops()

    def _links(self, outlines):
        design, where = self.design, self.where
        parts = [(link, nodes) for link, nodes in outlines.items() if link != GROUND and nodes]
        kinds = {pair.name: f"{pair.kind} pair" for pair in design.model.pairs}
        kinds.update({point.name: "point" for point in design.model.points})
        vertices, shade = _Vertices(), []
        for k, (link, nodes) in enumerate(parts):
            outline = _outline(link, nodes, where(link), self.scale, kinds)
            for i in range(len(outline)):
                vertices.add(outline.links[i], outline.local[i], outline.text[i])
            vertices.gap()
            shade += [k] * (len(outline) + 1)
        line = {"color": design.color, "width": 6}
        if self.single and len(parts) > 1:  # one colour per link, in one trace (one legend entry)
            count = len(parts)
            line = {"color": shade, "cmin": 0, "cmax": count - 1, "width": 6,
                    "colorscale": [[k / (count - 1), COLORS[k % 10]] for k in range(count)]}
        trace = {"type": "scatter3d", "mode": "lines", "line": line, "hovertemplate": self.hover(),
                 **self.group("links")}
        self.body(vertices, trace)
        self.linkage.append(self.drawn[-2])
        ground = outlines.get(GROUND, [])
        if ground:
            vertices = _Vertices()
            for label, r in ground:
                vertices.add(-2, r * self.scale, f"<b>{label}</b> on the ground (fixed)")
            trace = {"type": "scatter3d", "mode": "markers+lines" if len(ground) <= 3 else "markers",
                     "marker": {"symbol": "square", "size": 5, "color": _GROUND_COLOR},
                     "line": {"color": _GROUND_COLOR, "width": 2, "dash": "dash"},
                     "hovertemplate": self.hover(), **self.group("ground (fixed)")}
            if len(ground) > 3:
                del trace["line"]
            self.body(vertices, trace)

    def _pairs(self, size):
        design, model, where = self.design, self.design.model, self.where
        by_kind = {}
        for name, kind, first, centre, axis in pair_centres(model):
            by_kind.setdefault(kind, []).append((name, first, centre, axis))
        strokes = _Vertices()
        for kind, pairs in by_kind.items():
            vertices = _Vertices()
            for name, first, centre, axis in pairs:
                pair = model.pair(name)
                text = f"<b>{name}</b> ({kind})<br>{pair.first} \u2013 {pair.second}"
                vertices.add(where(first), centre * self.scale, text)
                if kind in ("revolute", "prismatic", "cylindrical", "helical", "hooke"):
                    half = 0.035 * size * axis
                    strokes.add(where(first), centre * self.scale - half, f"axis of {name}")
                    strokes.add(where(first), centre * self.scale + half, f"axis of {name}")
                    strokes.gap()
            color = PAIR_COLORS.get(kind, "#1a1a1a") if self.single else design.color
            trace = {"type": "scatter3d", "mode": "markers", "hovertemplate": self.hover(),
                     "marker": {"symbol": PAIR_SYMBOLS[kind], "size": 6, "color": color,
                                "line": {"color": "#000", "width": 1}},
                     **self.group(f"{kind} pairs")}
            self.body(vertices, trace)
        if len(strokes):
            trace = {"type": "scatter3d", "mode": "lines", "line": {"color": "#444", "width": 3},
                     "hoverinfo": "skip", **self.group("pair axes")}
            self.body(strokes, trace)

    def _points(self):
        design, model, where = self.design, self.design.model, self.where
        vertices = _Vertices()
        for point in model.points:
            vertices.add(where(point.link), np.asarray(point.at, float) * self.scale,
                         f"<b>{point.name}</b> (point)<br>on {point.link}")
        if not len(vertices):
            return
        trace = {"type": "scatter3d", "mode": "markers", "hovertemplate": self.hover(),
                 "marker": {"symbol": "circle", "size": 4, "color": "#d62728" if self.single else design.color},
                 **self.group("points")}
        self.body(vertices, trace)

    def _springs(self):
        model, where = self.design.model, self.where
        springs = list(model.spring_dampers)
        if not springs:
            return
        vertices = _Vertices()
        for spring in springs:
            text = f"<b>{spring.name}</b> (spring-damper)"
            for link, at in ((spring.link_a, spring.at_a), (spring.link_b, spring.at_b)):
                vertices.add(where(link), np.asarray(at, float) * self.scale, f"{text}<br>on {link}")
            vertices.gap()
        trace = {"type": "scatter3d", "mode": "lines", "line": {"color": "#7f7f00", "width": 9, "dash": "dot"},
                 "opacity": 0.8, "hovertemplate": self.hover(), **self.group("spring-dampers")}
        self.body(vertices, trace)

    def _wheels(self):
        """Each wheel as its rim and six spokes (lines: they hide no hardpoint from the hover)."""
        design, where = self.design, self.where
        if not design.wheels:
            return
        vertices = _Vertices()
        for wheel in design.wheels:
            rim = wheel_rim(wheel) * self.scale
            centre = np.asarray(wheel.centre, float) * self.scale
            link = where(wheel.link)
            text = f"<b>{wheel.label}</b>, radius {wheel.radius * self.scale:.{self.decimals}f} {self.unit}"
            for xyz in rim:
                vertices.add(link, xyz, text)
            vertices.gap()
            for xyz in rim[:-1:len(rim) // 6]:
                vertices.add(link, centre, text)
                vertices.add(link, xyz, text)
                vertices.gap()
        trace = {"type": "scatter3d", "mode": "lines", "line": {"color": "#333" if self.single else design.color,
                                                                "width": 4},
                 "hovertemplate": self.hover(), **self.group("wheels")}
        self.body(vertices, trace)

    def _tracks(self):
        design = self.design
        for k, (point, xyz) in enumerate(design.tracks.items()):
            xyz = np.asarray(xyz, dtype=float) * self.scale
            trace = {"type": "scatter3d", "mode": "lines", "x": xyz[:, 0], "y": xyz[:, 1], "z": xyz[:, 2],
                     "line": {"color": design.color if not self.single else "#d62728", "width": 2},
                     "text": [f"path of <b>{point}</b>"] * len(xyz), "hovertemplate": self.hover(),
                     "scene": self.scene, **self.group(f"path of {point}")}
            self.page.scene.add(trace)
            self.drawn.append(xyz)

    def _loops(self):
        model, where = self.design.model, self.where
        centres = {name: (first, centre) for name, _, first, centre, _ in pair_centres(model)}
        for k, loop in enumerate(self.loops):
            vertices = _Vertices()
            names = [name for name in loop if name in centres]
            for name in names + names[:1]:
                first, centre = centres[name]
                vertices.add(where(first), centre * self.scale, f"{loop.name}: {' - '.join(names)}")
            trace = {"type": "scatter3d", "mode": "lines", "opacity": 0.35, "hoverinfo": "skip",
                     "line": {"color": COLORS[(k + 3) % 10], "width": 16}, "name": f"{loop.name}: {' - '.join(names)}",
                     "legendgroup": loop.name, "showlegend": True}
            self.body(vertices, trace)


def _outline(link, nodes, index, scale, kinds):
    """A link's polyline through its nodes (closed for more than two), hover naming each node."""
    vertices = _Vertices()
    ordered = list(nodes) + (list(nodes[:1]) if len(nodes) > 2 else [])
    for label, r in ordered:
        vertices.add(index, r * scale, f"<b>{label}</b> ({kinds.get(label, 'node')})<br>on {link}")
    return vertices


def add_scene(page, designs, units, *, domain=None, scene="scene", views=None, camera=None, loops=None):
    """Draw ``designs`` (list of :class:`Design`) into ``page``'s 3-D scene ``scene``.

    Parameters
    ----------
    page : loops.views.page.Page
    designs : list of Design (their positions aligned with the page's)
    units : mechanism.units.Units, the units shown (the model file's)
    domain : dict, the scene's place in the scene's graph (default all of it)
    views : dict label -> direction (3,): camera buttons (default: along x, y and z), besides "3-D"
    camera : dict, the plotly camera shown first and by the "3-D" button (default: face-on for a
        planar mechanism, else from x, y and z all positive)
    loops : list of loops.loop_basis.Loop, optional: draw each independent loop (tuples of pair
        names, as a mobility report lists them) as a wide translucent band in its colour (one design)
    """
    builder = _SceneBuilder(page, designs, units, scene, loops)
    for design in designs:
        builder.draw(design)
    drawn = np.concatenate([d for d in builder.drawn if len(d)])
    drawn = drawn[np.all(np.isfinite(drawn), axis=1)]
    low, high = drawn.min(axis=0), drawn.max(axis=0)
    span = float((high - low).max()) or 1.0
    low, high = low - 0.06 * span, high + 0.06 * span
    labels = _triad(page, low, span, scene)
    ranges = np.maximum(high - low, 1e-3 * span)
    unit = units.length
    axes = {f"{axis}axis": {"title": {"text": f"{axis} [{unit}]"}, "range": [float(low[i]), float(high[i])],
                            "backgroundcolor": "#f7f8fa", "gridcolor": "#d9dde3", "zerolinecolor": "#9aa3ad",
                            "showspikes": False}
            for i, axis in enumerate("xyz")}
    normal = plane_normal(np.concatenate(builder.linkage)) if builder.linkage else None
    if normal is not None:  # looked at as drawn: the yz plane from +x, xz from -y, xy from +z (right-handed)
        axis = int(np.argmax(np.abs(normal)))
        normal = normal * (np.sign(normal[axis]) * (-1.0 if axis == 1 else 1.0))
    if camera is None:
        camera = camera_along(normal) if normal is not None else camera_along((1.0, 0.9, 0.7), orthographic=False)
    if normal is not None and np.max(np.abs(normal)) > 1 - 1e-9:  # seen face-on, this axis is a dot: no labels
        axes[f"{'xyz'[int(np.argmax(np.abs(normal)))]}axis"].update(showticklabels=False, title={"text": ""})
    page.scene.layout[scene] = {"domain": domain or {"x": [0.0, 1.0], "y": [0.0, 1.0]}, **axes,
                          "aspectmode": "manual",
                          "aspectratio": dict(zip("xyz", (ranges / ranges.max() * 1.4).tolist())),
                          "camera": camera, "dragmode": "orbit", "annotations": labels}
    _view_buttons(page, scene, views or {"along x": (1, 0, 0), "along y": (0, 1, 0), "along z": (0, 0, 1)},
                  camera, domain or {"x": [0.0, 1.0], "y": [0.0, 1.0]})
    page.scene.layout["legend"].update(orientation="h", x=0.0, y=0.0, xanchor="left", yanchor="top")
    return builder


def _triad(page, origin, span, scene):
    """x, y, z strokes at the low corner of the scene's box (a tenth of its size), in one trace,
    labelled by the scene's annotations (SVG text: WebGL text would cost the scene's opening)."""
    length = 0.1 * span
    xyz, colors, labels = [], [], []
    for i, axis in enumerate("xyz"):
        tip = origin.copy()
        tip[i] += length
        xyz += [origin, tip, np.full(3, np.nan)]
        colors += [i, i, i]
        labels.append({"x": float(tip[0]), "y": float(tip[1]), "z": float(tip[2]), "text": f"<b>{axis}</b>",
                       "showarrow": False, "yshift": 9, "font": {"color": _AXIS_COLORS[axis], "size": 13}})
    xyz = np.array(xyz)
    page.scene.add({"type": "scatter3d", "mode": "lines", "x": xyz[:, 0], "y": xyz[:, 1], "z": xyz[:, 2],
                    "line": {"color": colors, "cmin": 0, "cmax": 2, "width": 6,
                             "colorscale": [[k / 2, _AXIS_COLORS[a]] for k, a in enumerate("xyz")]},
                    "hoverinfo": "skip", "showlegend": False, "scene": scene})
    return labels


def _view_buttons(page, scene, views, camera, domain):
    if camera["projection"]["type"] == "orthographic":  # a face-on start: "3-D" turns it
        camera = camera_along((1.0, 0.9, 0.7), orthographic=False)
    buttons = [{"label": "3-D", "method": "relayout", "args": [{f"{scene}.camera": camera}]}]
    for label, direction in views.items():
        buttons.append({"label": label, "method": "relayout", "args": [{f"{scene}.camera": camera_along(direction)}]})
    menus = page.scene.layout.setdefault("updatemenus", [])
    menus.append({"type": "buttons", "direction": "right", "buttons": buttons, "showactive": False,
                  "x": domain["x"][0], "xanchor": "left", "y": domain["y"][1], "yanchor": "bottom",
                  "pad": {"t": 2, "b": 2}, "font": {"size": 11}, "bgcolor": "#ffffff", "bordercolor": "#9aa3ad"})
