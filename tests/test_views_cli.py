"""Interactive pages from the command line: ``--plot FILE.html`` wherever ``--plot FILE.png`` works
(suspension, study, sweep, simulate; ``plot --out``), and ``kinematrix view MODEL.toml``.

Each writes one self-contained page (the player and plotly.js inlined) with the CSV it wrote
before, unchanged; without plotly a page is one line naming the extra, status 2, before any
work. tests/test_views_browser.py opens such pages in Chromium.
"""

from __future__ import annotations

import pathlib
import shutil
import sys

import pytest

from dynamics.cli import main

pytest.importorskip("plotly")

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def _page(path):
    text = pathlib.Path(path).read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "kinematrixView(" in text and "<script src" not in text
    return text


def test_suspension_plot_html_beside_the_same_csv(tmp_path, capsys):
    model = str(EXAMPLES / "front_axle.toml")
    args = ["suspension", model, "--analysis", "parallel", "--travel", "-80:80:20"]
    assert main(args + ["--out", str(tmp_path / "alone.csv")]) == 0
    assert main(args + ["--out", str(tmp_path / "html.csv"), "--plot", str(tmp_path / "sheet.html")]) == 0
    assert (tmp_path / "html.csv").read_bytes() == (tmp_path / "alone.csv").read_bytes()
    page = _page(tmp_path / "sheet.html")
    assert "parallel travel: front-axle" in page and "camber gain" in page
    macpherson = str(EXAMPLES / "macpherson.toml")
    assert main(["suspension", model, macpherson, "--analysis", "parallel", "--travel", "-40:40:20",
                 "--plot", str(tmp_path / "compare.htm")]) == 0
    assert "front-axle vs macpherson" in _page(tmp_path / "compare.htm")
    capsys.readouterr()


def test_sweep_simulate_and_plot_pages(tmp_path, capsys):
    four_bar = str(EXAMPLES / "four_bar.toml")
    csv = tmp_path / "four_bar.csv"
    assert main(["sweep", four_bar, "--drive", "A=0:360:30", "--out", str(csv), "--plot", str(tmp_path / "s.html"),
                 "--animate", str(tmp_path / "a.html")]) == 0
    assert "four-bar: sweep of A" in _page(tmp_path / "s.html") and _page(tmp_path / "a.html")
    assert main(["plot", str(csv), "--x", "A", "--y", "C,D", "--out", str(tmp_path / "curves.html")]) == 0
    assert capsys.readouterr().out.strip().endswith("curves.html")
    assert "four_bar.csv" in _page(tmp_path / "curves.html")
    pendulum = str(EXAMPLES / "spring_pendulum.toml")
    assert main(["simulate", pendulum, "--t-end", "0.2", "--q0", "theta=0.3", "--q0", "r=0", "--samples", "11",
                 "--out", str(tmp_path / "sim.csv"), "--plot", str(tmp_path / "sim.html")]) == 0
    assert "spring pendulum: simulation to t = 0.2 s" in _page(tmp_path / "sim.html")


def test_study_page_with_the_nominal_design(tmp_path, capsys):
    vary = tmp_path / "vary.toml"
    vary.write_text('design = "latin-hypercube"\nvariants = 6\nseed = 1\n[[vary]]\nhardpoint = "lower_ball"\n'
                    'range = [-5, 5]\n', encoding="utf-8")
    assert main(["study", str(EXAMPLES / "double_wishbone.toml"), "--vary", str(vary), "--analysis", "parallel",
                 "--travel", "-40:40:20", "--plot", str(tmp_path / "bands.html"), "--metrics", "camber,toe"]) == 0
    page = _page(tmp_path / "bands.html")
    assert "design study: parallel analysis, 6 variants" in page and '"scene":{"data"' in page
    capsys.readouterr()


def test_view_writes_model_html_here_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["view", str(EXAMPLES / "four_bar.toml")]) == 0
    assert capsys.readouterr().err == "kinematrix: wrote four_bar.html\n"
    page = _page(tmp_path / "four_bar.html")
    assert "Degrees of freedom: 1" in page and "loop 1" in page
    assert main(["view", str(EXAMPLES / "four_bar.toml"), "--drive", "A=0:360:10", "--out", "moving.html"]) == 0
    assert '"count":37' in _page(tmp_path / "moving.html")
    capsys.readouterr()
    # the default page is not replaced unasked; --out names it
    assert main(["view", str(EXAMPLES / "four_bar.toml")]) == 2
    assert capsys.readouterr().err == ("kinematrix: error: four_bar.html exists: name the page with --out (to replace "
                                       "it, or another)\n")
    assert main(["view", str(EXAMPLES / "four_bar.toml"), "--out", "four_bar.html"]) == 0


@pytest.mark.parametrize("argv, message", [
    (["--out", "page.png"], "--out page.png: the page is an HTML file (name it FILE.html)"),
    (["--drive", "Z=0:1:1"], "--drive Z: not a pair variable or point driver"),
    (["--out", "missing/page.html"], "--out missing/page.html: no directory"),
])
def test_view_user_errors(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(["view", str(EXAMPLES / "four_bar.toml")] + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kinematrix: error: {message}") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_view_never_writes_over_the_model(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "four_bar.toml", tmp_path / "model.html")  # a model file named like its page
    before = (tmp_path / "model.html").read_bytes()
    assert main(["view", "model.html"]) == 2
    assert "model.html exists: name the page with --out" in capsys.readouterr().err
    assert main(["view", "model.html", "--out", "./model.html"]) == 2
    assert "--out ./model.html: the same file as MODEL model.html" in capsys.readouterr().err
    assert (tmp_path / "model.html").read_bytes() == before


def test_view_of_a_stopped_sweep_shows_what_it_reached(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    # the rocker of a crank-rocker cannot turn half a turn: the sweep stops at its dead point
    assert main(["view", str(EXAMPLES / "four_bar.toml"), "--drive", "D=0:180:10"]) == 1
    err = capsys.readouterr().err
    assert "sweep stopped after" in err and err.endswith("kinematrix: wrote four_bar.html\n")
    assert (tmp_path / "four_bar.html").exists()


def test_without_plotly_a_page_is_one_line_naming_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "plotly", None)  # import plotly raises ImportError
    monkeypatch.chdir(tmp_path)
    for argv in (["sweep", str(EXAMPLES / "four_bar.toml"), "--drive", "A=0:90:10", "--out", "s.csv", "--plot",
                  "s.html"],
                 ["suspension", str(EXAMPLES / "front_axle.toml"), "--analysis", "parallel", "--travel", "-10:10:10",
                  "--out", "m.csv", "--plot", "m.html"],
                 ["view", str(EXAMPLES / "four_bar.toml")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.endswith("an interactive page needs plotly: pip install 'kinematrix[views]'\n")
        assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # stopped before any work


def test_a_picture_without_a_page_says_so():
    from loops.cli.arguments import UserError
    from loops.cli.outputs import plot_call

    with pytest.raises(UserError, match="x.html: this picture has no interactive page"):
        plot_call(lambda path: None, path="x.html")
