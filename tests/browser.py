"""Headless Chromium for the tests of interactive views (``@pytest.mark.browser``).

:func:`launch` starts Debian's Chromium (``/usr/bin/chromium``, or ``$KINEMATRIX_CHROMIUM``)
through Playwright, with the network off for every page: :meth:`Browser.open` serves
``file://`` requests only and fails any other, so a page that needs the network shows it as
a console error. Where Chromium or Playwright is missing, :data:`MISSING` says what to install
and the browser tests skip with that line.

A :class:`Opened` page gives what the tests check: console errors, the time of the first
drawing (``performance.now()`` when the player marked the page drawn, ms since navigation
began), screenshots (PNG bytes, and their pixel spread: a blank page has none), the player's
position after moving the slider, a trace's vertices, and the hover label over a hardpoint
(projected from the scene's camera to the screen).
"""

from __future__ import annotations

import io
import math
import os
import shutil
import tempfile

import numpy as np

#: Chromium's switches for a quiet, sandbox-free, offline headless run. WebGL is drawn by the
#: software renderer (SwiftShader); without multisampling, its costliest step (plotly already
#: draws a scene at twice the screen's resolution: the screenshots hardly differ), a scene page
#: opens with a fifth less of the GPU process's time; without V8's optimising compiler, a page
#: that lives a few seconds spends a tenth less of the renderer's (no assertion looks at either).
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--webgl-msaa-sample-count=0", "--js-flags=--no-opt"]
VIEWPORT = {"width": 1600, "height": 1000}


def chromium_path():
    """The Chromium executable, or None."""
    return os.environ.get("KINEMATRIX_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def _missing():
    try:
        import playwright  # noqa: F401 (installed?)
    except ImportError:
        return "to run them, install Playwright: pip install -e '.[test]'"
    if chromium_path() is None:
        return "to run them, install Chromium: apt-get install chromium (as .ci/run does)"
    return None


#: Why the browser tests cannot run here (one line), or None.
MISSING = _missing()

# Where a point of a 3-D trace lands on the screen: plotly's camera matrices (column-major) applied
# to the point scaled as the scene draws it, then the scene's box.
_PROJECT = """([trace, index]) => {
  const gd = document.querySelector('.kx-scene');
  const t = gd._fullData[trace];
  const scene = gd._fullLayout[t.scene]._scene;
  const v = [t.x[index] * scene.dataScale[0], t.y[index] * scene.dataScale[1], t.z[index] * scene.dataScale[2], 1];
  const mul = (m, a) => { const o = [0, 0, 0, 0];
    for (let i = 0; i < 4; i++) for (let k = 0; k < 4; k++) o[k] += m[4 * i + k] * a[i]; return o; };
  const c = scene.glplot.cameraParams;
  const p = mul(c.projection, mul(c.view, mul(c.model, v)));
  const r = scene.container.getBoundingClientRect();
  return [r.left + (p[0] / p[3] + 1) / 2 * r.width, r.top + (1 - p[1] / p[3]) / 2 * r.height];
}"""

_FIND = """(name) => {
  const data = document.querySelector('.kx-scene')._fullData;
  for (let i = 0; i < data.length; i++) {
    const t = data[i];
    if (t.type !== 'scatter3d' || !t.text || !String(t.mode).includes('markers')) continue;
    const k = Array.from(t.text).findIndex((s) => s && s.startsWith('<b>' + name + '</b>'));
    if (k >= 0) return [i, k];
  }
  return null;
}"""


_HOVER_TEXT = "() => Array.from(document.querySelectorAll('.hovertext')).map((e) => e.textContent).join(' ')"
#: How long a hover label is waited for before the mouse is nudged, ms (a few frames of a busy machine).
_HOVER_WAIT_MS = 400


class Opened:
    """One page open in the browser."""

    def __init__(self, page, errors):
        self.page, self.errors = page, errors

    @property
    def rendered_ms(self) -> float:
        return float(self.page.evaluate("document.querySelector('.kx-view').dataset.rendered"))

    def screenshot(self, path=None, clip=None) -> bytes:
        return self.page.screenshot(path=None if path is None else str(path), clip=clip)

    def scene_box(self):
        """The 3-D scene's box on the screen in whole pixels, ``{x, y, width, height}`` (a
        screenshot's ``clip``, and the crop :func:`changed_fraction` takes)."""
        box = self.page.evaluate("""() => { const gd = document.querySelector('.kx-scene');
            const r = gd._fullLayout.scene._scene.container.getBoundingClientRect();
            return {x: r.left, y: r.top, width: r.width, height: r.height}; }""")
        x, y = int(box["x"]), int(box["y"])
        return {"x": x, "y": y, "width": int(box["x"] + box["width"]) - x, "height": int(box["y"] + box["height"]) - y}

    def markers(self):
        """The panels' markers that follow the slider: ``[(x, y, visible)]``."""
        return self.page.evaluate("""() => (document.querySelector('.kx-panels').layout.shapes || [])
            .map((s) => [s.xanchor, s.yanchor, s.visible])""")

    def move_slider(self, position, timeout_ms=30000):
        """Set the slider to ``position`` as a user does (an input event); returns once the
        player has drawn it and the scene has shown the frame after (two animation frames:
        the scene redraws on the first after a restyle)."""
        self.page.evaluate("""([k, timeout]) => new Promise((done, fail) => {
            const view = document.querySelector('.kx-view'), s = document.querySelector('.kx-slider');
            s.value = String(k);
            s.dispatchEvent(new Event('input', {bubbles: true}));
            const frame = (then) => requestAnimationFrame(then);
            const wait = () => view.dataset.position === String(k) ? frame(() => frame(done)) : frame(wait);
            wait();
            setTimeout(() => fail(new Error(`the player did not show position ${k} in ${timeout} ms`)), timeout);
        })""", [position, timeout_ms])

    def trace_xyz(self, index):
        """The drawn vertices of scene trace ``index``: (V, 3), NaN at gaps."""
        xyz = self.page.evaluate("""(i) => { const t = document.querySelector('.kx-scene')._fullData[i];
            return [Array.from(t.x), Array.from(t.y), Array.from(t.z || [])]; }""", index)
        return np.array([[np.nan if v is None else v for v in axis] for axis in xyz], dtype=float).T

    def hover_text(self, name, tries=12) -> str:
        """Move the mouse onto hardpoint ``name`` in the 3-D scene; the hover label's text.

        The mouse goes to the middle of the pixel the hardpoint is projected into, and the
        scene picks what lies there on its next frame (every mouse move costs the scene a
        picking frame). Where no label names the hardpoint within a few frames (a line drawn
        over it at that pixel), the mouse is nudged by a pixel and the label waited for again,
        ``tries`` times at most."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        found = self.page.evaluate(_FIND, name)
        assert found is not None, f"no hardpoint {name!r} in the scene"
        x, y = (math.floor(v) + 0.5 for v in self.page.evaluate(_PROJECT, found))
        self.page.mouse.move(x, y)
        text = ""
        for attempt in range(tries):
            try:
                self.page.wait_for_function(f"(name) => ({_HOVER_TEXT})().includes(name)", arg=name,
                                            timeout=_HOVER_WAIT_MS)
            except PlaywrightTimeout:
                pass
            text = self.page.evaluate(_HOVER_TEXT)
            if name in text:
                break
            self.page.mouse.move(x + (attempt % 3) - 1, y + (attempt % 2))
        return text


class Browser:
    """A headless Chromium (one per test module: starting it takes about a second)."""

    def __init__(self):
        from playwright.sync_api import sync_playwright

        self._profile = tempfile.mkdtemp(prefix="kinematrix-chromium-")
        self._playwright = sync_playwright().start()
        self._context = self._playwright.chromium.launch_persistent_context(
            self._profile, executable_path=chromium_path(), args=ARGS, headless=True, viewport=VIEWPORT)
        self._errors = []  # the console errors of the page open now
        # the tab a persistent context opens with
        self._page = self._context.pages[0] if self._context.pages else self._context.new_page()
        self._page.on("console",
                      lambda message: self._errors.append(message.text) if message.type == "error" else None)
        self._page.on("pageerror", lambda error: self._errors.append(str(error)))
        self._page.route("**/*", self._offline)

    def open(self, path, timeout_ms=60000) -> Opened:
        """Open the HTML file ``path`` with the network off; returns once the player has drawn it.

        Every page opens in the same tab, which leaves the page before: a page left open keeps
        its scene's drawing loop running (about 0.08 s of processor time a second, each), and
        the tab's renderer keeps the compiled plotly.js for the next page (half a second less
        per page, as a user's tab does when a second view is opened in it)."""
        self._errors = errors = []
        self._page.mouse.move(0, 0)  # where a new tab's mouse starts: no hover label from the page before
        self._page.goto(f"file://{os.path.abspath(path)}")
        self._page.wait_for_selector(".kx-view[data-rendered]", state="attached", timeout=timeout_ms)
        return Opened(self._page, errors)

    def _offline(self, route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            self._errors.append(f"network request {route.request.url}")
            route.abort()

    def close(self):
        self._context.close()
        self._playwright.stop()
        shutil.rmtree(self._profile, ignore_errors=True)


def pixel_spread(png: bytes) -> float:
    """Standard deviation of a screenshot's grey levels (0 for a blank one)."""
    from PIL import Image

    return float(np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float).std())


def changed_fraction(png_a: bytes, png_b: bytes, box=None) -> float:
    """Share of pixels that differ between two screenshots of the same page, within ``box``
    (``{x, y, width, height}`` in whole pixels, default all); a screenshot of ``box``'s size is
    one clipped to it already."""
    from PIL import Image

    def grey(png):
        image = Image.open(io.BytesIO(png)).convert("L")
        if box is not None and image.size != (box["width"], box["height"]):
            image = image.crop((box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]))
        return np.asarray(image, dtype=int)

    return float(np.mean(np.abs(grey(png_a) - grey(png_b)) > 8))
