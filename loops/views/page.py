"""One interactive page: two plotly graphs (a 3-D scene, 2-D panels), the positions they step
through, and the page's HTML.

A :class:`Page` collects what an application draws (plotly traces and layouts as plain
dicts, in its :attr:`~Page.scene` and :attr:`~Page.panels` graphs) and what moves: *bodies*,
scene traces whose vertices ride on links (each vertex a link index and a point in that
link's frame, placed by the link's pose at each position), and *followers*, markers (shapes
of the panels' layout) that sit on a curve at the current position. :meth:`Page.view`
freezes it into a :class:`View`, which writes one self-contained HTML file (plotly.js and
the player inlined: it opens with no network) or shows itself in a notebook.

The plotly.js inlined is plotly's own partial bundle "gl3d" (:data:`PLOTLY_BUNDLE`, beside this
file with its MIT licence): the trace types of :data:`BUNDLE_TRACE_TYPES`, which hold the two a
page draws (``scatter3d``, ``scatter``), at a third of the full bundle's size; a browser parses
it in a third of the time, most of a page's opening. To update it: ``npm pack
plotly.js-gl3d-dist-min@VERSION`` and copy its ``plotly-gl3d.min.js`` here (the plotly.js
version of the installed plotly package, which writes the figures). plotly (Python) still
validates and writes every figure.

The player (``player.js`` beside this file) places the bodies from the poses, moves the
followers, keeps a legend group's visibility the same in both graphs, and drives the
slider, the play/pause button and the readout of the inputs. Poses and vertices travel as
float32 (display only: 7 significant digits), curves as plotly's own float64 arrays, so
that hover readouts show the values computed.

plotly is an optional dependency (the ``views`` extra); :func:`require_plotly` says which
extra to install when it is missing.
"""

from __future__ import annotations

import base64
import html
import json
import uuid
from importlib import resources
from pathlib import Path

import numpy as np

from mechanism.errors import ModelError

__all__ = ["Page", "View", "require_plotly", "INSTALL_HINT", "FIGURE_HEIGHT", "encode_array", "plotly_js",
           "PLOTLY_BUNDLE", "BUNDLE_TRACE_TYPES"]

#: What to install for HTML views (one line, as the command line prints it).
INSTALL_HINT = "needs plotly: pip install 'kinematrix[views]'"
#: Height of the figure in a page, pixels (its width follows the window).
FIGURE_HEIGHT = 860
#: The positions the player shows per second while playing.
PLAY_RATE = 20.0

#: The plotly.js file every page inlines (npm package plotly.js-gl3d-dist-min 4.1.1), beside this module.
PLOTLY_BUNDLE = "plotly-gl3d.min.js"
#: The trace types :data:`PLOTLY_BUNDLE` draws (its README; tests/test_views_browser.py asks the
#: bundle itself); a graph takes no other.
BUNDLE_TRACE_TYPES = frozenset({"cone", "isosurface", "mesh3d", "scatter", "scatter3d", "streamtube", "surface",
                                "volume"})

_PLOTLY_LOADED_IN_NOTEBOOK = False


def require_plotly():
    """The ``plotly`` module; a ModelError (one line naming the extra to install) without it."""
    try:
        import plotly  # noqa: PLC0415 (optional dependency, imported when a view is made)
    except ImportError:
        raise ModelError("HTML view", INSTALL_HINT) from None
    return plotly


def encode_array(values, dtype) -> dict:
    """``values`` as plotly's typed-array spec ``{"dtype": dtype, "bdata": base64}`` (little
    endian; ``dtype`` one of "f4", "f8", "i4"), which plotly.js and the player both decode."""
    array = np.ascontiguousarray(np.asarray(values).ravel(), dtype=np.dtype(dtype).newbyteorder("<"))
    return {"dtype": dtype, "bdata": base64.b64encode(array.tobytes()).decode("ascii")}


def plotly_js() -> str:
    """The text of :data:`PLOTLY_BUNDLE`, the plotly.js a page inlines."""
    return _read(PLOTLY_BUNDLE)


def _graph_layout() -> dict:
    return {"template": "plotly_white", "height": FIGURE_HEIGHT, "hovermode": "closest",
            "margin": {"l": 8, "r": 8, "t": 30, "b": 8},
            "font": {"family": "Helvetica Neue, Arial, sans-serif", "size": 12},
            "legend": {"bgcolor": "rgba(255,255,255,0)", "font": {"size": 11}, "groupclick": "togglegroup"}}


class Graph:
    """One plotly graph of a page: its traces and layout (plain dicts, plotly's keys)."""

    def __init__(self):
        self.traces: list[dict] = []
        self.layout: dict = _graph_layout()

    def add(self, trace: dict) -> int:
        """Add a plotly trace (a dict with its ``type``, one of :data:`BUNDLE_TRACE_TYPES`);
        returns its index."""
        if trace.get("type") not in BUNDLE_TRACE_TYPES:
            raise ValueError(f"trace {trace.get('name', len(self.traces))!r}: type {trace.get('type')!r} is not drawn "
                             f"by the page's plotly.js ({PLOTLY_BUNDLE}: {', '.join(sorted(BUNDLE_TRACE_TYPES))})")
        self.traces.append(trace)
        return len(self.traces) - 1

    def figure(self) -> dict | None:
        return {"data": self.traces, "layout": self.layout} if self.traces else None


class Page:
    """What one view draws and what moves in it, built trace by trace.

    A page has two plotly graphs side by side, either of them empty: :attr:`scene` (the 3-D
    view) and :attr:`panels` (the 2-D panels). Kept apart, a step of the slider redraws only
    the scene's few traces, and the panels' markers are shapes, redrawn alone.

    Parameters
    ----------
    title : str, the page's heading
    count : int, positions (or time samples) the slider steps through (at least 1)
    subtitle : str, a line under the heading (the units, the analysis)
    summary : str, optional, monospaced text shown beside the graphs (a mobility report)
    start : int, the position shown first
    """

    def __init__(self, title, count, *, subtitle="", summary=None, start=0):
        if count < 1:
            raise ModelError("view", "nothing to show: the record has no position")
        self.title, self.subtitle, self.summary = str(title), str(subtitle), summary
        self.count = int(count)
        self.rate = PLAY_RATE  # positions per second while playing
        self.start = int(min(max(start, 0), self.count - 1))
        self.scene, self.panels = Graph(), Graph()
        #: The scene's share of the page's width when both graphs are drawn.
        self.scene_width = 0.42
        self._pose_sets, self._bodies, self._followers, self._readouts = [], [], [], []

    # ------------------------------------------------------------------ building
    def add_poses(self, poses) -> int:
        """Register link poses ``(N, L, 4, 4)`` in the page's length unit (translations scaled);
        returns the pose set's index for :meth:`add_body`. ``N`` may be below the page's count
        (a design that stopped early): past its end a body stays at its last position."""
        poses = np.asarray(poses, dtype=float)
        if poses.ndim != 4 or poses.shape[2:] != (4, 4) or len(poses) < 1:
            raise ValueError(f"poses: expected shape (N, L, 4, 4) with N >= 1, got {poses.shape}")
        packed = np.concatenate([poses[:, :, :3, :3].reshape(len(poses), poses.shape[1], 9),
                                 poses[:, :, :3, 3]], axis=2)
        self._pose_sets.append({"count": len(poses), "links": poses.shape[1], "data": encode_array(packed, "f4")})
        return len(self._pose_sets) - 1

    def add_body(self, trace, pose_set, links, local):
        """Make scene trace ``trace`` move: vertex ``i`` is ``local[i]`` (3,) in the frame of link
        ``links[i]`` of pose set ``pose_set``; a link index of -1 is a gap (NaN), -2 a vertex
        that stays at ``local[i]`` (on the ground)."""
        links = np.asarray(links, dtype=np.int32)
        local = np.asarray(local, dtype=float).reshape(-1, 3)
        if len(links) != len(local):
            raise ValueError(f"body: {len(links)} link indices for {len(local)} vertices")
        self._bodies.append({"trace": int(trace), "set": int(pose_set), "links": encode_array(links, "i4"),
                             "local": encode_array(np.nan_to_num(local), "f4")})

    def add_follower(self, source, color, rows=None):
        """A marker on panel curve ``source`` (a trace index of :attr:`panels`) at the current
        position: at the curve's point ``rows[k]`` for position ``k`` (default ``k``; -1 hides
        it). It is a shape of the panels' layout (a circle of 9 pixels in ``color``), hidden with
        its curve."""
        trace = self.panels.traces[source]
        given = rows is not None
        rows = np.asarray(rows, dtype=np.int32) if given else np.arange(self.count)
        row = int(rows[self.start]) if self.start < len(rows) else -1
        inside = 0 <= row < len(trace["x"])
        shape = {"type": "circle", "xref": trace.get("xaxis", "x"), "yref": trace.get("yaxis", "y"),
                 "xsizemode": "pixel", "ysizemode": "pixel", "x0": -4.5, "x1": 4.5, "y0": -4.5, "y1": 4.5,
                 "xanchor": float(trace["x"][row]) if inside else 0.0,
                 "yanchor": float(trace["y"][row]) if inside else 0.0, "visible": inside,
                 "fillcolor": color, "line": {"color": "#000000", "width": 1}, "layer": "above"}
        self.panels.layout.setdefault("shapes", []).append(shape)
        entry = {"shape": len(self.panels.layout["shapes"]) - 1, "source": int(source)}
        if given:
            entry["rows"] = encode_array(rows, "i4")
        self._followers.append(entry)

    def add_readout(self, name, values, unit="", decimals=None):
        """Show ``values[k]`` (N,) beside the slider at position ``k``: ``name = value unit``, with
        ``decimals`` digits after the point (default: four significant digits of the largest)."""
        values = np.asarray(values, dtype=float).ravel()
        if len(values) != self.count:
            raise ValueError(f"readout {name!r}: {len(values)} values for {self.count} positions")
        if decimals is None:
            finite = np.abs(values[np.isfinite(values)])
            largest = float(finite.max()) if len(finite) and finite.max() > 0 else 1.0
            decimals = int(np.clip(3 - np.floor(np.log10(largest)), 0, 6))
        self._readouts.append({"name": str(name), "unit": str(unit), "decimals": int(decimals),
                               "values": encode_array(values, "f8")})

    def body_vertices(self, pose_set_poses, links, local, index):
        """Global vertices ``(V, 3)`` of a body at position ``index`` (what the player computes),
        for the trace's initial ``x``, ``y``, ``z``: NaN at gaps."""
        poses = np.asarray(pose_set_poses, dtype=float)
        index = min(index, len(poses) - 1)
        links = np.asarray(links, dtype=int)
        local = np.asarray(local, dtype=float).reshape(-1, 3)
        out = np.full(local.shape, np.nan)
        fixed = links == -2
        out[fixed] = local[fixed]
        moving = links >= 0
        T = poses[index, links[moving]]
        out[moving] = np.einsum("vij,vj->vi", T[:, :3, :3], local[moving]) + T[:, :3, 3]
        return out

    def view(self) -> "View":
        """The finished page."""
        player = {"count": self.count, "start": self.start, "rate": self.rate, "poses": self._pose_sets,
                  "bodies": self._bodies, "followers": self._followers, "readouts": self._readouts}
        figures = {"scene": self.scene.figure(), "panels": self.panels.figure()}
        if figures["scene"] and figures["panels"]:
            player["split"] = self.scene_width
        return View(figures, player, self.title, self.subtitle, self.summary)


class View:
    """A finished interactive page: write it (:meth:`write_html`), get its text
    (:meth:`to_html`), or show it in a notebook (the object's HTML, or :meth:`show`).

    Attributes
    ----------
    figures : dict ``{"scene": figure or None, "panels": figure or None}``, each plotly's
        ``{"data": [...], "layout": {...}}``
    player : dict, what moves (poses, bodies, followers, readouts), as the player reads it
    title, subtitle : str
    summary : str or None, text shown beside the graphs
    """

    def __init__(self, figures, player, title, subtitle="", summary=None):
        self.figures, self.player = figures, player
        self.title, self.subtitle, self.summary = title, subtitle, summary

    def __repr__(self):
        traces = sum(len(f["data"]) for f in self.figures.values() if f)
        return f"View({self.title!r}, {self.player['count']} positions, {traces} traces)"

    # ------------------------------------------------------------------ output
    def _figures_json(self) -> str:
        require_plotly()
        from plotly import graph_objects  # noqa: PLC0415

        parts = []
        for key in ("scene", "panels"):
            figure = self.figures.get(key)
            # validated by plotly (every key and value), then written as plotly writes figures
            parts.append("null" if figure is None else
                         graph_objects.Figure(figure["data"], figure["layout"]).to_json())
        return f'{{"scene":{parts[0]},"panels":{parts[1]}}}'

    def _body(self, element_id, plotly_script) -> str:
        """The page's content (styles, heading, controls, graphs, scripts) for ``element_id``;
        ``plotly_script`` (the script that loads plotly.js) first, unless None."""
        player = json.dumps(self.player, separators=(",", ":"))
        summary = ""
        if self.summary:
            summary = f'<aside class="kx-side"><pre>{html.escape(self.summary)}</pre></aside>'
        single = self.player["count"] < 2
        controls = "" if single else (
            '<div class="kx-controls"><button type="button" class="kx-play" title="play / pause (space)">'
            '&#9654; play</button><input type="range" class="kx-slider" min="0" '
            f'max="{self.player["count"] - 1}" step="1" value="{self.player["start"]}" aria-label="position">'
            '<span class="kx-readout"></span></div>')
        graphs = "".join(f'<div class="kx-{key}"></div>' for key in ("scene", "panels") if self.figures.get(key))
        plotly_script = f"<script>{plotly_script}</script>" if plotly_script else ""
        return (f'<style>{_read("page.css")}</style>'
                f'<div class="kx-view" id="{element_id}" tabindex="-1"><header class="kx-head">'
                f'<h1>{html.escape(self.title)}</h1><p>{html.escape(self.subtitle)}</p></header>{controls}'
                f'<div class="kx-main">{graphs}{summary}</div></div>'
                f'{plotly_script}<script>{_read("player.js")}</script>'
                f'<script>kinematrixView("{element_id}", {_script_safe(self._figures_json())}, '
                f'{_script_safe(player)});</script>')

    def to_html(self) -> str:
        """The whole page: one self-contained HTML document (plotly.js inlined)."""
        body = self._body("kx-view", plotly_js())
        return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(self.title)}'
                f'</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>'
                f'<body>{body}</body></html>\n')

    def write_html(self, path) -> Path:
        """Write :meth:`to_html` to ``path`` atomically (a temporary file beside it, then a
        rename); returns the path written."""
        from mechanism.atomic import target_path, write_text_atomically  # noqa: PLC0415

        target_path(path)
        write_text_atomically(path, self.to_html())
        return Path(path)

    def _repr_html_(self) -> str:
        """The view in a notebook: plotly.js is included with the first view a session shows
        (as plotly's own offline notebook mode does); the later ones use it. A notebook whose
        plotly figures already loaded the full plotly.js keeps it (the partial bundle would
        leave them without their other trace types)."""
        global _PLOTLY_LOADED_IN_NOTEBOOK
        script = None
        if not _PLOTLY_LOADED_IN_NOTEBOOK:
            script = f'if (typeof window.Plotly === "undefined") {{\n{plotly_js()}\n}}'
        _PLOTLY_LOADED_IN_NOTEBOOK = True
        return self._body(f"kx-{uuid.uuid4().hex}", script)

    def show(self):
        """Display the view: inline in a notebook (IPython), else in the web browser (the page
        is written to a temporary file that stays for the browser to read)."""
        try:
            from IPython import get_ipython  # noqa: PLC0415
            from IPython.display import display  # noqa: PLC0415
        except ImportError:
            get_ipython = None
        if get_ipython is not None and get_ipython() is not None:
            display(self)
            return None
        import tempfile  # noqa: PLC0415
        import webbrowser  # noqa: PLC0415

        with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False, encoding="utf-8") as handle:
            handle.write(self.to_html())
        webbrowser.open(Path(handle.name).as_uri())
        return Path(handle.name)


def _read(name) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _script_safe(text) -> str:
    """JSON text that can stand inside a ``<script>`` element (no ``</`` to end it early)."""
    return text.replace("</", "<\\/")
