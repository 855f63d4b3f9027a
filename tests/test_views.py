"""Interactive views without a browser: what a page holds (tests/test_views_browser.py opens them).

The scene's moving vertices are the record's points at every position (the arithmetic the
player repeats in the page), in the model file's units; pages carry their size limits; a
missing plotly is one line naming the extra; the pages' guards give located errors.
"""

from __future__ import annotations

import base64
import pathlib
import sys

import numpy as np
import pytest

from loops.views.page import plotly_js
from mechanism import load_model
from mechanism.errors import ModelError

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"

pytest.importorskip("plotly")


@pytest.fixture(scope="module")
def four_bar_sweep():
    return load_model(str(EXAMPLES / "four_bar.toml")).sweep({"A": np.radians(np.arange(0.0, 361.0, 10.0))})


@pytest.fixture(scope="module")
def front_axle_bump():
    from loops.suspension import load_suspension, parallel_travel

    return parallel_travel(load_suspension(str(EXAMPLES / "front_axle.toml")), np.linspace(-0.08, 0.08, 161))


def _decode(spec):
    dtype = {"f4": "<f4", "f8": "<f8", "i4": "<i4"}[spec["dtype"]]
    return np.frombuffer(base64.b64decode(spec["bdata"]), dtype=dtype)


def _placed(view, body, position):
    """A body's vertices at ``position`` as the player computes them (loops/views/player.js)."""
    pose_set = view.player["poses"][body["set"]]
    poses = _decode(pose_set["data"]).reshape(pose_set["count"], pose_set["links"], 12).astype(float)
    links, local = _decode(body["links"]), _decode(body["local"]).reshape(-1, 3).astype(float)
    T = poses[min(position, pose_set["count"] - 1)]
    out = np.full(local.shape, np.nan)
    out[links == -2] = local[links == -2]
    moving = links >= 0
    R, p = T[links[moving], :9].reshape(-1, 3, 3), T[links[moving], 9:]
    out[moving] = np.einsum("vij,vj->vi", R, local[moving]) + p
    return out


def _trace_named(view, prefix):
    for index, trace in enumerate(view.figures["scene"]["data"]):
        if trace.get("type") == "scatter3d" and any(str(t).startswith(prefix) for t in trace.get("text", [])):
            return index, [str(t).startswith(prefix) for t in trace["text"]].index(True)
    raise AssertionError(f"no 3-D trace with {prefix!r}")


def test_encoded_arrays_read_back():
    from loops.views.page import encode_array

    values = np.array([0.0, -1.5, 1e-300, np.pi])
    assert np.array_equal(_decode(encode_array(values, "f8")), values)
    assert np.array_equal(_decode(encode_array([3, -1, 7], "i4")), [3, -1, 7])
    assert _decode(encode_array(values, "f4")).dtype == np.float32


def test_sweep_scene_follows_the_record_in_file_units(four_bar_sweep):
    from loops.views import sweep_view

    view = sweep_view(four_bar_sweep)
    trace, row = _trace_named(view, "<b>P</b> (point)")
    body = next(b for b in view.player["bodies"] if b["trace"] == trace)
    for position in (0, 9, len(four_bar_sweep) - 1):
        # float32 poses: 7 significant digits of the mechanism's 300 mm
        np.testing.assert_allclose(_placed(view, body, position)[row], four_bar_sweep.point("P")[position] * 1e3,
                                   rtol=0, atol=1e-4)
    layout = view.figures["scene"]["layout"]
    assert layout["scene"]["xaxis"]["title"]["text"] == "x [mm]"
    assert "mm" in view.figures["scene"]["data"][trace]["hovertemplate"]
    assert view.player["readouts"][0]["unit"] == "deg" and view.player["readouts"][0]["decimals"] == 1  # 0 to 360
    np.testing.assert_allclose(_decode(view.player["readouts"][0]["values"]), np.arange(0.0, 361.0, 10.0),
                               rtol=0, atol=1e-9)


def test_initial_pose_is_the_players(four_bar_sweep):
    from loops.views import sweep_view

    view = sweep_view(four_bar_sweep)
    for body in view.player["bodies"]:
        trace = view.figures["scene"]["data"][body["trace"]]
        drawn = np.column_stack([trace["x"], trace["y"], trace["z"]])
        np.testing.assert_allclose(drawn, _placed(view, body, view.player["start"]), rtol=0, atol=1e-4)


def test_suspension_page_of_161_positions(front_axle_bump):
    from loops.suspension.views import suspension_view, wheels_of

    view = suspension_view(front_axle_bump)
    page = view.to_html()
    assert len(page.encode()) < 6e6  # plotly.js (its partial bundle) is 1.75 MB of it
    assert plotly_js() in page
    assert "<script src" not in page and "<link" not in page  # everything inlined
    trace, row = _trace_named(view, "<b>lower_ball_left</b>")
    marker = view.figures["scene"]["data"][trace]
    # the page opens at zero travel: the design pose, each hardpoint where the file puts it (mm)
    assert view.player["start"] == 80
    np.testing.assert_allclose([marker["x"][row], marker["y"][row], marker["z"][row]],
                               front_axle_bump.model.pair("lower_ball_left").at * 1e3, rtol=0, atol=1e-6)
    # every panel of the sheet, each curve with a marker that follows the slider
    panels = [a["text"] for a in view.figures["panels"]["layout"]["annotations"]]
    assert panels[:4] == ["<b>camber</b>", "<b>toe</b>", "<b>camber gain</b>", "<b>bump steer</b>"]
    curves = [t for t in view.figures["panels"]["data"] if t["type"] == "scatter" and t["mode"] == "lines"]
    assert len(view.player["followers"]) == len(curves) == len(view.figures["panels"]["layout"]["shapes"])
    assert [wheel.label for wheel in wheels_of(front_axle_bump)] == ["left wheel", "right wheel"]


def test_designs_share_the_scene_each_with_its_legend_entry(front_axle_bump):
    from loops.suspension import load_suspension, parallel_travel
    from loops.suspension.views import suspension_view

    strut = parallel_travel(load_suspension(str(EXAMPLES / "macpherson.toml")), np.linspace(-0.08, 0.08, 41))
    view = suspension_view([front_axle_bump, strut])
    entries = [t["name"] for t in view.figures["scene"]["data"] if t.get("showlegend")]
    assert entries == ["front-axle", "macpherson"]
    groups = {t.get("legendgroup") for t in view.figures["panels"]["data"]}
    assert groups == {"front-axle", "macpherson"}  # a design's curves hide with its legend entry
    # the shorter design's curves end: their markers hide past its last position
    rows = [_decode(f["rows"]) for f in view.player["followers"] if "rows" in f]
    assert any(r[-1] == -1 for r in rows) and any(r[-1] == 160 for r in rows)
    with pytest.raises(ModelError, match="different analyses"):
        from loops.suspension import roll  # noqa: PLC0415

        suspension_view([front_axle_bump, roll(front_axle_bump.suspension, np.radians([0.0, 1.0]))])


def test_model_alone_with_its_loops():
    from loops.views import mechanism_view

    axle = load_model(str(EXAMPLES / "front_axle.toml"))
    report = axle.check()
    view = mechanism_view(axle, report)
    loops = [t for t in view.figures["scene"]["data"] if t.get("legendgroup") in {loop.name for loop in report.loops}]
    assert len(loops) == len(report.loops) >= 2
    assert view.summary == str(report) and view.player["count"] == 1
    assert "<aside" in view.to_html()


def test_study_bands_and_nominal():
    from loops.study.designs import read_vary
    from loops.study.study import Plan, run_study
    from loops.study.views import study_view
    from loops.suspension import load_suspension

    corner = load_suspension(str(EXAMPLES / "double_wishbone.toml"))
    names, offsets = read_vary(str(EXAMPLES / "double_wishbone_vary.toml"), corner)
    study = run_study(corner, names, offsets[:8], Plan("parallel", travel=np.linspace(-0.08, 0.08, 9)), workers=1)
    view = study_view(study, metrics=["camber", "toe"])
    bands = [t for t in view.figures["panels"]["data"] if t.get("fill") == "toself"]
    assert len(bands) == 2
    low, high = study.band("camber")
    np.testing.assert_allclose(bands[0]["y"][:9], np.degrees(high), rtol=1e-12)
    nominal = [t for t in view.figures["panels"]["data"] if t.get("name") == "nominal"]
    np.testing.assert_allclose(nominal[0]["y"], np.degrees(study.nominal["camber"]), rtol=1e-12)
    with pytest.raises(ModelError, match="lower percentile must be below the upper one"):  # the sheet's check
        study_view(study, lower=95, upper=5)
    with pytest.raises(ModelError, match="camber_rate"):
        study_view(study, metrics=["camber_rate"])


def test_every_pair_type_has_a_3d_marker():
    """Each type of the registry names its marker in the scene (its view_symbol), one plotly's
    scatter3d draws."""
    from plotly.graph_objects import scatter3d

    from loops.views.scene import PAIR_SYMBOLS
    from mechanism.pairs import KINDS, PAIR_TYPES

    assert set(PAIR_SYMBOLS) == set(KINDS)
    for kind in KINDS:
        assert PAIR_SYMBOLS[kind] == PAIR_TYPES[kind].view_symbol
        scatter3d.Marker(symbol=PAIR_SYMBOLS[kind])  # plotly refuses a symbol scatter3d does not have
    assert PAIR_SYMBOLS["revolute"] == "circle" and PAIR_SYMBOLS["spherical"] == "diamond"


def test_page_guards():
    from loops.views.page import Page

    with pytest.raises(ModelError, match="no position"):
        Page("empty", 0)
    page = Page("p", 3)
    with pytest.raises(ValueError, match=r"\(N, L, 4, 4\)"):
        page.add_poses(np.zeros((3, 4, 4)))
    with pytest.raises(ValueError, match="2 link indices for 3 vertices"):
        page.add_body(0, 0, [0, 1], np.zeros((3, 3)))
    with pytest.raises(ValueError, match="2 values for 3 positions"):
        page.add_readout("t", [0.0, 1.0])
    # the page's plotly.js draws only its bundle's trace types
    with pytest.raises(ValueError, match=r"trace 'bars': type 'bar' is not drawn by the page's plotly.js "
                                         r"\(plotly-gl3d.min.js: cone, .*scatter, scatter3d"):
        page.panels.add({"type": "bar", "name": "bars", "x": [1], "y": [2]})
    assert page.scene.add({"type": "scatter3d", "x": [0], "y": [0], "z": [0]}) == 0


def test_without_plotly_one_line_names_the_extra(four_bar_sweep, monkeypatch):
    from loops.views import sweep_view
    from loops.views.notebook import notebook_html

    view = sweep_view(four_bar_sweep)
    monkeypatch.setitem(sys.modules, "plotly", None)  # import plotly raises ImportError
    with pytest.raises(ModelError, match=r"needs plotly: pip install 'kinematrix\[views\]'"):
        view.to_html()
    shown = notebook_html("SweepResult", [("positions", "37")], lambda: view)
    assert ">positions</th>" in shown and "kinematrix[views]" in shown and "<script" not in shown


def test_notebook_html_includes_plotly_once(four_bar_sweep, monkeypatch):
    from loops.views import page as page_module
    from loops.views import sweep_view

    monkeypatch.setattr(page_module, "_PLOTLY_LOADED_IN_NOTEBOOK", False)
    view = sweep_view(four_bar_sweep)
    first, second = view._repr_html_(), view._repr_html_()
    assert plotly_js() in first and len(first) > len(plotly_js()) > len(second)
    # loaded unless the notebook has a plotly.js already (plotly's own, full: kept)
    assert 'if (typeof window.Plotly === "undefined") {' in first
    assert first.count('class="kx-view"') == second.count('class="kx-view"') == 1


def test_notebook_displays(four_bar_sweep, front_axle_bump, monkeypatch):
    from loops.views import page as page_module
    from loops.study.designs import read_vary
    from loops.study.study import Plan, run_study
    from loops.suspension import load_suspension

    monkeypatch.setattr(page_module, "_PLOTLY_LOADED_IN_NOTEBOOK", True)  # plotly.js once, elsewhere
    four_bar = load_model(str(EXAMPLES / "four_bar.toml"))
    shown = four_bar._repr_html_()
    assert ">degrees of freedom</th><td" in shown and "1 (passive 0, redundant 3)" in shown
    assert 'class="kx-view"' in shown and "loop 1" in shown
    assert repr(four_bar) == "Mechanism('four-bar': 4 links, 4 pairs, 1 points)"  # the text stays
    shown = four_bar_sweep._repr_html_()
    assert ">positions</th><td" in shown and "none: complete" in shown and 'class="kx-view"' in shown
    shown = front_axle_bump._repr_html_()
    assert "parallel travel" in shown and "camber gain" in shown
    corner = load_suspension(str(EXAMPLES / "double_wishbone.toml"))
    names, offsets = read_vary(str(EXAMPLES / "double_wishbone_vary.toml"), corner)
    study = run_study(corner, names, offsets[:4], Plan("parallel", travel=np.linspace(-0.02, 0.02, 3)), workers=1)
    shown = study._repr_html_()
    assert ">variants</th><td" in shown and "lower_inner.x" in shown and 'class="kx-view"' in shown
    monkeypatch.setattr("loops.views.notebook.INLINE_VIEWS", False)
    assert "kx-view" not in four_bar_sweep._repr_html_() and ">positions</th>" in four_bar_sweep._repr_html_()
    monkeypatch.setattr("loops.views.notebook.INLINE_VIEWS", True)
    # a record of no position: the summary and why there is no view
    stopped = load_model(str(EXAMPLES / "four_bar.toml")).sweep({"A": [0.0]})
    empty = type(stopped).empty(stopped.system, ["A"], "dead point at A = 0")
    shown = empty._repr_html_()
    assert "dead point" in shown and "no interactive view: view: nothing to show" in shown
    assert "kx-view" not in shown


def test_simulation_display():
    from dynamics import simulate

    pendulum = load_model(str(EXAMPLES / "spring_pendulum.toml"))
    result = simulate(pendulum, t_end=0.5, q0={"theta": 0.3, "r": 0.0}, qd0={"theta": 0.0, "r": 0.0},
                      t_eval=np.linspace(0.0, 0.5, 26))
    shown = result._repr_html_()
    assert ">samples</th><td" in shown and "0.5 s" in shown and "energy" in shown


def test_names_cannot_end_the_page_s_scripts():
    """A name with markup (a model called ``a</script>b``) stays text: escaped in the heading and
    in the scripts' JSON."""
    from mechanism import Mechanism
    from loops.views import mechanism_view

    m = Mechanism("a</script><b>b")
    m.add_link("crank")
    m.add_pair("A</script>", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))  # a readout's name
    m.add_point("P", "crank", at=(1, 0, 0))
    page = mechanism_view(m, sweep=m.sweep({"A</script>": [0.0, 0.1]})).to_html()
    assert page.count("</script>") == page.count("<script>") == 3  # plotly.js, the player, the call
    assert "a&lt;/script&gt;&lt;b&gt;b: the model</h1>" in page
    assert "a</script>" not in page and "A</script>" not in page


def test_view_guards(front_axle_bump):
    from loops.study.designs import read_vary
    from loops.study.study import Plan, run_study
    from loops.study.views import study_view
    from loops.suspension import load_suspension
    from loops.suspension.views import suspension_view

    with pytest.raises(ModelError, match="nothing to draw: no analysis reached a position"):
        suspension_view([_empty(front_axle_bump)])
    corner = load_suspension(str(EXAMPLES / "double_wishbone.toml"))
    names, offsets = read_vary(str(EXAMPLES / "double_wishbone_vary.toml"), corner)
    study = run_study(corner, names, offsets[:2], Plan("parallel", travel=np.linspace(-0.01, 0.01, 3)), workers=1)
    with pytest.raises(ModelError, match="name at least one metric"):
        study_view(study, metrics=[])
    # the band's percentiles, checked as the sheet checks them (loops.study.sheets.band_metrics)
    with pytest.raises(ModelError, match=r"^upper: expected a percentile from 0 to 100, got 101"):
        study_view(study, upper=101)
    # two designs of one name keep two legend entries
    view = suspension_view([front_axle_bump, front_axle_bump])
    assert [t["name"] for t in view.figures["scene"]["data"] if t.get("showlegend")] == [
        "front-axle (1)", "front-axle (2)"]


def _empty(result):
    """An analysis that reached no position (its sweep stopped at once)."""
    from loops.suspension import SuspensionResult

    empty = type(result).empty(result.system, result.drivers, "stopped at once")
    return SuspensionResult.of(empty, result.analysis, result.travel_at, result.units, [])
