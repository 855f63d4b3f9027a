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
from loops.suspension.sheets import PANELS, plot_sheet
from mechanism import ModelError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def front():
    return load_suspension(EXAMPLES / "front_axle.toml")


def panels(fig):
    return [ax for ax in fig.axes if ax.get_title() in {p.replace("_", " ") for ps in PANELS.values() for p in ps}]


def test_parallel_travel_sheet_has_units_on_every_axis_and_both_views(front, tmp_path):
    result = parallel_travel(front, np.linspace(-0.08, 0.08, 9))
    path = tmp_path / "sheet.png"
    fig = plot_sheet(result, path)
    curves = panels(fig)
    assert len(curves) == 12
    for ax in curves:
        assert ax.get_xlabel() == "wheel_travel [mm]"
        assert ax.get_ylabel().endswith("]") and "[" in ax.get_ylabel()
        # left solid, right dashed; the axle's own roll centre one line
        assert len(ax.lines) == (1 if ax.get_title() == "roll centre height" else 2), ax.get_title()
    labels = {ax.get_title(): ax.get_ylabel() for ax in curves}
    assert labels["camber"] == "camber [deg]" and labels["camber gain"] == "camber_gain [deg/mm]"
    assert labels["wheel rate"] == "wheel_rate [N/mm]" and labels["motion ratio"] == "motion_ratio [-]"
    assert labels["anti dive"] == "anti_dive [%]"
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
    assert camber.get_xlabel() == "rack_travel [mm]"
    rolled = plot_sheet(roll(front, np.radians([-2.0, 0.0, 2.0])))
    titles = {ax.get_title(): ax for ax in panels(rolled)}
    assert titles["roll camber"].get_ylabel() == "roll_camber [deg/deg]"
    assert titles["roll camber"].get_xlabel() == "roll_angle [deg]"
    with pytest.raises(ModelError, match="nothing to draw"):
        plot_sheet([])
    with pytest.raises(ModelError, match="different analyses"):
        plot_sheet([steering(front, racks), parallel_travel(front, [0.0])])
