"""Sheets (loops.suspension.sheets): what an engineer reads off them.

Built headless (the test suite sets MPLBACKEND=Agg) without saving, except one saved through
the atomic writer (the command-line test saves another): every curve panel has its unit on
both axes, the views are equal-aspect y-z and x-z in the file's length unit with the
instant centres and the roll centre marked, and several designs overlay their curves.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from loops.suspension import load_suspension, parallel_travel, roll, steering
from loops.suspension.metrics import readable
from loops.suspension.sheets import PANELS, plot_sheet
from mechanism import ModelError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def front():
    return load_suspension(EXAMPLES / "front_axle.toml")


def panels(fig):
    return [ax for ax in fig.axes if ax.get_title() in {readable(p) for ps in PANELS.values() for p in ps}]


def test_parallel_travel_sheet_has_units_on_every_axis_and_both_views(front, tmp_path):
    result = parallel_travel(front, np.linspace(-0.08, 0.08, 9))
    path = tmp_path / "sheet.png"
    fig = plot_sheet(result, path)
    curves = panels(fig)
    assert len(curves) == 12
    for ax in curves:
        assert ax.get_xlabel() == "wheel travel [mm]"
        assert ax.get_ylabel().endswith("]") and "[" in ax.get_ylabel()
        # a mirrored axle in parallel travel: left and right one curve, said so in the legend
        # (issue 24: the dashed right hid under the left); the axle's own roll centre one line
        assert len(ax.lines) == 1, ax.get_title()
        if ax.get_title() != "roll centre height":
            assert [t.get_text() for t in ax.get_legend().get_texts()] == ["front-axle left = right"]
            assert ax.get_legend().get_texts()[0].get_fontsize() >= 8  # readable (was about 6 pt)
    labels = {ax.get_title(): ax.get_ylabel() for ax in curves}
    assert labels["camber"] == "camber [deg]" and labels["camber gain"] == "camber gain [deg/mm]"
    assert labels["wheel rate"] == "wheel rate [N/mm]" and labels["motion ratio"] == "motion ratio [-]"
    assert labels["anti-dive"] == "anti-dive [%]"
    views = {ax.get_title(): ax for ax in fig.axes if "view" in ax.get_title()}
    front_view, side_view = views["front view (from ahead)"], views["side view of the left wheel"]
    assert (front_view.get_xlabel(), front_view.get_ylabel()) == ("y [mm]", "z [mm]")
    assert (side_view.get_xlabel(), side_view.get_ylabel()) == ("x [mm]", "z [mm]")
    marks = [text.get_text() for text in front_view.texts]
    assert "RC" in marks and marks.count("FVIC") == 2 and "SVIC" in [t.get_text() for t in side_view.texts]
    assert front_view.get_aspect() == 1.0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and not list(tmp_path.glob(".*"))


def test_designs_overlay_and_roll_and_steering_sheets(front):
    other = load_suspension(EXAMPLES / "double_wishbone_steer.toml").axle()
    racks = np.linspace(-0.04, 0.04, 5)
    sheet = plot_sheet([steering(front, racks), steering(other, racks)], labels=["front", "flat arms"])
    camber = next(ax for ax in panels(sheet) if ax.get_title() == "steer angle")
    assert {line.get_label() for line in camber.lines} == {"front left", "front right", "flat arms left",
                                                          "flat arms right"}
    assert camber.get_xlabel() == "rack travel [mm]"
    rolled = plot_sheet(roll(front, np.radians([-2.0, 0.0, 2.0])))
    titles = {ax.get_title(): ax for ax in panels(rolled)}
    assert titles["roll camber"].get_ylabel() == "roll camber [deg/deg]"
    assert titles["roll camber"].get_xlabel() == "roll angle [deg]"
    with pytest.raises(ModelError, match="nothing to draw"):
        plot_sheet([])
    with pytest.raises(ModelError, match="different analyses"):
        plot_sheet([steering(front, racks), parallel_travel(front, [0.0])])


def test_notes_read_as_a_reader_says_them_and_sit_apart_from_the_views(front):
    """The design position's instant centres and roll centres in words, one line per design
    below the views (issue 24: "-5692 mm ahead of the patch", "-0.0 mm left", one design's
    only, a box over the side view's axis): the front axle's side-view instant centre is
    5692 mm behind its patch; no negative number, no negative zero; each design named."""
    import re

    travel = np.linspace(-0.08, 0.08, 9)
    rear = load_suspension(EXAMPLES / "five_link_rear.toml")
    fig = plot_sheet([parallel_travel(front, travel), parallel_travel(rear, travel)])
    views = [ax for ax in fig.axes if "view" in ax.get_title()]
    assert not [t for ax in views for t in ax.texts if t.get_text() not in ("FVIC", "SVIC", "RC")]
    notes = [t.get_text() for ax in fig.axes for t in ax.texts if "design position" in t.get_text()]
    assert len(notes) == 2 and notes[0].startswith("front-axle: ") and notes[1].startswith("five-link-rear: ")
    assert "SVIC 556 mm above ground, 5692 mm behind the patch" in notes[0]
    assert "axle roll centre 62.9 mm above the road, on the centre plane" in notes[0]
    assert not re.search(r"-\d", " ".join(notes))
    anti_dive = next(ax for ax in panels(fig) if ax.get_title() == "anti-dive")
    shown = " ".join(t.get_text() for t in anti_dive.texts).replace("\n", " ")
    assert "not shown: five-link-rear: a rear axle" in shown  # and why: its anti-lift and anti-squat


def test_a_mirrored_axle_in_roll_draws_both_wheels(front):
    """Where the two wheels differ (roll), both are drawn, the right dashed, each in the
    legend."""
    fig = plot_sheet(roll(front, np.radians([-2.0, 0.0, 2.0])))
    camber = next(ax for ax in panels(fig) if ax.get_title() == "camber")
    assert [line.get_linestyle() for line in camber.lines] == ["-", "--"]
    assert [t.get_text() for t in camber.get_legend().get_texts()] == ["front-axle left", "front-axle right"]


def test_panels_views_and_labels_neither_overlap_nor_leave_the_page(front):
    """The sheet's grid is laid out once from its labels (loops.figure_layout.lay_out_grid), not
    by constrained layout at every draw: no axes' labels, ticks or title run into another's or
    off the page, and every panel is about as large as constrained layout makes it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    fig = plot_sheet(parallel_travel(front, np.linspace(-0.08, 0.08, 9)))
    assert not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = [(ax.get_title() or "notes", ax.get_tightbbox(renderer)) for ax in fig.axes]
    page = fig.bbox
    for name, box in boxes:
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1 and page.y0 - 1 <= box.y0 and box.y1 <= page.y1 + 1, name
    for k, (name, box) in enumerate(boxes):
        for other, other_box in boxes[k + 1:]:
            overlap_x = min(box.x1, other_box.x1) - max(box.x0, other_box.x0)
            overlap_y = min(box.y1, other_box.y1) - max(box.y0, other_box.y0)
            assert min(overlap_x, overlap_y) <= 1, (name, other)
    once = {ax.get_title(): ax.get_position().bounds for ax in panels(fig)}
    fig.set_layout_engine("constrained")
    canvas.draw()
    constrained = {ax.get_title(): ax.get_position().bounds for ax in panels(fig)}
    for title, (_, _, width, height) in once.items():
        assert abs(width / constrained[title][2] - 1) < 0.12 and abs(height / constrained[title][3] - 1) < 0.12, title
