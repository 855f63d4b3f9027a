"""Interactive views opened in a real browser (headless Chromium, the network off).

Each kind of page (a four-bar sweep, the front axle's parallel travel, the front axle against
the MacPherson, a design study's bands with the nominal design, a spring pendulum's
simulation, a model alone, curves of a table) is opened from disk: it must draw without a
console error or a network request, its screenshot must not be blank, moving the slider must
move the mechanism (the screenshots differ, and the drawn vertices are the record's at the new
position) and a marker on every curve, and the hover over a hardpoint must name it.
Screenshots are kept in pytest's temporary folder.

Run: ``python -m pytest -q -m browser tests/test_views_browser.py``; Chromium is Debian's
``chromium`` (``.ci/run`` installs it), driven by Playwright (the ``test`` extra).
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from browser import MISSING, Browser, changed_fraction, pixel_spread

#: The tests share one test process and its one Chromium (about 1.2 s of processor time to start and close).
pytestmark = [pytest.mark.browser, pytest.mark.skipif(MISSING is not None, reason=f"no browser here; {MISSING}"),
              pytest.mark.xdist_group("browser")]

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
#: A screenshot's grey levels spread at least this much (a blank page: 0; a drawn one: 30 or more).
MIN_SPREAD = 10.0


@pytest.fixture(scope="module")
def browser():
    opened = Browser()
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("view_screenshots")


def _front_axle_bump(count=161):
    from loops.suspension import load_suspension, parallel_travel

    return parallel_travel(load_suspension(str(EXAMPLES / "front_axle.toml")), np.linspace(-0.08, 0.08, count))


def _check_page(browser, path, shots, name, position, hardpoint=None, moved=None):
    """Open ``path``; the checks every page passes. Returns the opened page."""
    page = browser.open(path)
    first = page.screenshot(shots / f"{name}.png")
    assert page.errors == []
    assert page.rendered_ms > 0
    assert pixel_spread(first) > MIN_SPREAD
    markers = page.markers()
    page.move_slider(position)
    after = page.markers()
    assert markers and len(after) == len(markers)
    assert all(a[:2] != b[:2] for a, b in zip(markers, after) if a[2] and b[2])  # every marker moved
    scene = page.scene_box() if hardpoint is not None else None  # what the second screenshot is compared in
    second = page.screenshot(shots / f"{name}-moved.png", clip=scene)
    if moved is not None:
        moved(page)
    if hardpoint is not None:  # the mechanism moved in the 3-D scene
        assert changed_fraction(first, second, scene) > 0.002
        assert hardpoint in page.hover_text(hardpoint)
    else:
        assert changed_fraction(first, second) > 0.0005
    assert page.errors == []
    return page


def _vertices_follow(record, trace_name, point, position, scale):
    """A check that the scene's points trace shows ``point`` of ``record`` at ``position``."""

    def check(page):
        data = page.page.evaluate("""(name) => { const d = document.querySelector('.kx-scene')._fullData;
            for (let i = 0; i < d.length; i++) if (d[i].type === 'scatter3d' && d[i].text &&
                Array.from(d[i].text).some((s) => s && s.startsWith('<b>' + name + '</b> (point)'))) return i;
            return -1; }""", point)
        assert data >= 0
        text = page.page.evaluate("(i) => Array.from(document.querySelector('.kx-scene')._fullData[i].text)", data)
        row = next(k for k, s in enumerate(text) if s.startswith(f"<b>{point}</b> (point)"))
        drawn = page.trace_xyz(data)[row]
        # float32 poses and vertices in the page: 7 significant digits of the scene's size
        np.testing.assert_allclose(drawn, record.point(point)[position] * scale, rtol=0, atol=1e-5 * scale)

    return check


def test_four_bar_sweep(browser, shots, tmp_path):
    from mechanism import load_model
    from loops.views import sweep_view

    result = load_model(str(EXAMPLES / "four_bar.toml")).sweep({"A": np.radians(np.arange(0.0, 361.0, 2.0))})
    path = sweep_view(result).write_html(tmp_path / "four_bar.html")
    _check_page(browser, path, shots, "four_bar_sweep", 45, hardpoint="B",
                moved=_vertices_follow(result, "points", "P", 45, 1000.0))


def test_front_axle_parallel_travel(browser, shots, tmp_path):
    from loops.suspension.views import suspension_view

    bump = _front_axle_bump()
    path = suspension_view(bump).write_html(tmp_path / "front_axle.html")
    assert path.stat().st_size < 6e6
    _check_page(browser, path, shots, "front_axle_parallel", 150, hardpoint="upper_inner_left",
                moved=_vertices_follow(bump, "points", "wheel_centre_left", 150, 1000.0))


def test_front_axle_against_macpherson(browser, shots, tmp_path):
    from loops.suspension import load_suspension, parallel_travel
    from loops.suspension.views import suspension_view

    strut = parallel_travel(load_suspension(str(EXAMPLES / "macpherson.toml")), np.linspace(-0.08, 0.08, 81))
    path = suspension_view([_front_axle_bump(81), strut]).write_html(tmp_path / "compare.html")
    page = _check_page(browser, path, shots, "front_axle_vs_macpherson", 10, hardpoint="top_mount")
    legend = page.page.evaluate("Array.from(document.querySelectorAll('.legendtext')).map((e) => e.textContent)")
    assert {"front-axle", "macpherson"} <= set(legend)
    # the legend hides a design: its curves in every panel with it
    shown = "() => (document.querySelector('.kx-panels').layout.shapes || []).map((s) => s.visible)"
    before = page.page.evaluate(shown)
    page.page.locator(".legendtext", has_text="macpherson").click(force=True)  # the toggle lies over the text
    hidden = """() => ['.kx-scene', '.kx-panels'].map((g) => Array.from(document.querySelector(g)._fullData)
        .filter((t) => t.legendgroup === 'macpherson').map((t) => t.visible))"""
    scene, panels = page.page.evaluate(hidden)
    assert len(scene) > 5 and len(panels) >= 10  # the linkage's traces; its curves
    # plotly waits out a double click before it acts on a single one; the player then hides the
    # design's traces in the other graph, then redraws the markers
    page.page.wait_for_function(f"({hidden})().flat().every((v) => v === 'legendonly')", timeout=5000)
    page.page.wait_for_function(f"(before) => JSON.stringify(({shown})()) !== JSON.stringify(before)", arg=before,
                                timeout=5000)
    visible = [m[2] for m in page.markers()]
    assert visible.count(False) == len(panels)  # the MacPherson's markers hidden with its curves
    assert page.errors == []


def test_design_study_bands(browser, shots, tmp_path):
    from loops.study.designs import read_vary
    from loops.study.study import Plan, run_study
    from loops.study.views import study_view
    from loops.suspension import load_suspension, parallel_travel

    corner = load_suspension(str(EXAMPLES / "double_wishbone.toml"))
    names, offsets = read_vary(str(EXAMPLES / "double_wishbone_vary.toml"), corner)
    travel = np.linspace(-0.08, 0.08, 41)
    study = run_study(corner, names, offsets[:24], Plan("parallel", travel=travel), workers=1)
    path = study_view(study, nominal=parallel_travel(corner, travel)).write_html(tmp_path / "study.html")
    page = _check_page(browser, path, shots, "study_bands", 30, hardpoint="upper_inner")
    bands = page.page.evaluate("""() => Array.from(document.querySelector('.kx-panels')._fullData)
        .filter((t) => t.fill === 'toself').length""")
    assert bands == 6


def test_spring_pendulum_simulation(browser, shots, tmp_path):
    from dynamics import simulate
    from dynamics.views import simulation_view
    from mechanism import load_model

    pendulum = load_model(str(EXAMPLES / "spring_pendulum.toml"))
    result = simulate(pendulum, t_end=2.0, q0={"theta": 0.6, "r": 0.1}, qd0={"theta": 0.0, "r": 0.0},
                      t_eval=np.linspace(0.0, 2.0, 201))
    path = simulation_view(result).write_html(tmp_path / "pendulum.html")
    _check_page(browser, path, shots, "spring_pendulum", 120, hardpoint="theta",
                moved=_vertices_follow(result, "points", result.point_names[0], 120, 1.0))


def test_model_alone(browser, shots, tmp_path):
    from mechanism import load_model
    from loops.views import mechanism_view

    path = mechanism_view(load_model(str(EXAMPLES / "front_axle.toml"))).write_html(tmp_path / "model.html")
    page = browser.open(path)
    png = page.screenshot(shots / "front_axle_model.png")
    assert page.errors == [] and pixel_spread(png) > MIN_SPREAD
    assert page.page.locator(".kx-slider").count() == 0  # one position: no slider
    assert "Degrees of freedom" in page.page.locator(".kx-side").inner_text()
    assert "lower_ball" in page.hover_text("lower_ball")


def test_curves_of_a_table(browser, shots, tmp_path):
    from loops.views import curves_view

    x = np.linspace(0.0, 360.0, 73)
    path = curves_view(x, {"C": np.sin(np.radians(x)), "D": np.cos(np.radians(x))}, x_label="A [deg]",
                       y_label="C, D", title="four_bar.csv").write_html(tmp_path / "curves.html")
    _check_page(browser, path, shots, "curves", 40)


def test_bundle_draws_the_trace_types_named(browser, tmp_path):
    """The inlined plotly.js (a partial bundle) registers exactly the trace types the page module
    lets a graph hold (every page inlines the same bundle: a page of curves, without a 3-D scene,
    opens fastest)."""
    from loops.views import curves_view
    from loops.views.page import BUNDLE_TRACE_TYPES

    x = np.linspace(0.0, 360.0, 7)
    path = curves_view(x, {"C": np.sin(np.radians(x))}, x_label="A [deg]", y_label="C").write_html(
        tmp_path / "curves.html")
    page = browser.open(path)
    registered = page.page.evaluate("Object.keys(Plotly.PlotSchema.get().traces)")
    assert set(registered) == BUNDLE_TRACE_TYPES
    assert page.errors == []


def test_notebook_keeps_a_full_plotly(browser, tmp_path, monkeypatch):
    """A notebook whose plotly figures loaded the full plotly.js keeps it when a view comes
    (the partial bundle would take their other trace types away); the view draws with it."""
    from plotly.offline import get_plotlyjs

    from loops.views import mechanism_view
    from loops.views import page as page_module
    from mechanism import load_model

    monkeypatch.setattr(page_module, "_PLOTLY_LOADED_IN_NOTEBOOK", False)
    shown = mechanism_view(load_model(str(EXAMPLES / "four_bar.toml")))._repr_html_()
    path = tmp_path / "notebook.html"
    path.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><script>{get_plotlyjs()}'
                    f'</script><script>window.fullPlotly = window.Plotly;</script>{shown}</body></html>',
                    encoding="utf-8")
    page = browser.open(path)
    assert page.page.evaluate("window.Plotly === window.fullPlotly && 'bar' in Plotly.PlotSchema.get().traces")
    assert page.errors == [] and pixel_spread(page.screenshot()) > MIN_SPREAD
