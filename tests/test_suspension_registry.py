"""The registry of analyses and the metric catalogue (loops.suspension.analyses,
loops.suspension.metrics): what each entry says holds, and what reads them follows them.

References: the entries themselves against what the workbench computes with them on the
shipped front axle (every metric's column, label and sensitivities; every analysis's inputs
through the command line's options, studies, sensitivities and the optimiser).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from loops.study.optimise import ANALYSES as OPTIMISED
from loops.study.sensitivity import ANALYSES as DIFFERENTIATED
from loops.study.sensitivity import sensitivities
from loops.study.study import ANALYSES as STUDIED
from loops.suspension import load_suspension
from loops.suspension.analyses import ANALYSES, BUSHING_RATES, ROAD
from loops.suspension.cli import add_input_options, input_options
from loops.suspension.metrics import (AXLE, CATALOGUE, INPUT_LABELS, METRICS, ROLL, WHEEL_RATE, WHEEL_SUFFIXES,
                                      readable, wheel_metric)
from loops.suspension.sheets import plot_sheet

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TRAVEL = np.linspace(-0.04, 0.04, 3)
#: The catalogue's metrics the front axle's analyses do not have: travel measured at the
#: contact patch gives the wheel centre's; anti-squat is a rear axle's.
ABSENT = ("wheel_centre_travel", "anti_squat")
#: The inputs given by name, not by quantity: the load case and what holds the wheel (texts),
#: and the case's fractions (none: the travel drivers hold the wheel).
TEXTS = {"case": "cornering", "held_by": "driver", "scale": None}


@pytest.fixture(scope="module")
def front():
    return load_suspension(EXAMPLES / "front_axle.toml")


@pytest.fixture(scope="module")
def results(front):
    """Every analysis of the registry on the front axle (on its bushings for those that need
    them), its inputs by their quantities (one of each one-of group; a second model, the
    shipped rear corner)."""
    bushed = load_suspension(EXAMPLES / "front_axle_bushings.toml")
    values = {"length": TRAVEL, "angle": np.radians([-1.0, 0.0, 1.0]), "steering": np.linspace(-0.01, 0.01, 3)}
    out = {}
    for name, entry in ANALYSES.items():
        given, groups = {}, set()
        for item in entry.inputs:
            if item.single or item.one_of is not None and item.one_of in groups:
                continue
            groups.add(item.one_of)
            given[item.name] = load_suspension(EXAMPLES / "five_link_rear.toml") if item.quantity == "model" \
                else TEXTS[item.name] if item.name in TEXTS else values[item.quantity]
        out[name] = entry.run(bushed if entry.bushings else front, **given)
    return out


def test_every_analysis_runs_from_its_entry_and_carries_its_title_and_inputs(results):
    for name, entry in ANALYSES.items():
        result = results[name]
        assert result.analysis == entry.title
        assert result.suspension.model.use_bushings == entry.bushings
        assert result.input_names == list(result.metrics)[:len(result.input_names)]
        for metric in entry.own_metrics:
            assert f"{metric}_left" in result.metrics, (name, metric)


def test_the_rest_of_the_house_reads_the_registry():
    """Studies, sensitivities and the optimiser take exactly the analyses whose entries say so;
    both commands' options are the entries' inputs, each once."""
    assert STUDIED == tuple(n for n, e in ANALYSES.items() if e.study)
    assert DIFFERENTIATED == tuple(n for n, e in ANALYSES.items() if e.sensitivities)
    assert OPTIMISED == tuple(n for n, e in ANALYSES.items() if e.optimise)
    assert {ROAD, BUSHING_RATES} <= {e.sensitivities for e in ANALYSES.values()}
    assert "compliance" in DIFFERENTIATED and "compliance" in OPTIMISED
    for study in (False, True):
        parser = argparse.ArgumentParser()
        add_input_options(parser, study=study)
        options = {a.option_strings[0] for a in parser._actions if a.option_strings and a.dest != "help"}
        assert options == {"--analysis", *input_options(study)}
        analysis = next(a for a in parser._actions if a.dest == "analysis")
        assert list(analysis.choices) == [n for n, e in ANALYSES.items() if e.study or not study]


def test_every_metric_of_the_catalogue_is_a_column_with_a_label(results):
    """Each entry's column appears in some analysis of the front axle (per wheel with its
    side), every column of every analysis is the catalogue's or an input's, and each has a
    readable label on a sheet."""
    columns = {name for result in results.values() for name in result.metrics}
    for metric in CATALOGUE:
        names = {metric.name} if metric.kind == AXLE else {f"{metric.name}_left", f"{metric.name}_right"}
        if metric.name in ABSENT:
            continue
        assert names & columns, metric.name
        assert readable(metric.name) == metric.label and "_" not in metric.label
    for kind, result in results.items():
        if not ANALYSES[kind].catalogue:  # a table of its own (the load case's forces)
            continue
        for name in result.metrics:
            if name in result.input_names:
                continue
            base, _, suffix = name.rpartition("_")
            base = base if suffix in WHEEL_SUFFIXES else name
            assert wheel_metric(base) is not None or name in {m.name for m in CATALOGUE if m.kind == AXLE}, name


def test_the_sensitivities_follow_the_catalogue(front):
    """Every per-wheel metric the catalogue says has sensitivities has them (parallel travel
    of the front axle: those of a steering variable with the steering, the roll's with the
    roll), and none whose entry says it has none."""
    coords = ["lower_ball_left.z"]
    have = set(sensitivities(front, coords, TRAVEL).values)
    have |= set(sensitivities(front, coords, analysis="steering", rack=np.linspace(-0.01, 0.01, 3)).values)
    have |= set(sensitivities(front, coords, analysis="roll", roll_angle=np.radians([-1.0, 1.0])).values)
    for metric in CATALOGUE:
        name = metric.name if metric.kind == AXLE else f"{metric.name}_left"
        if metric.name in ABSENT:
            continue
        assert (name in have) == bool(metric.sensitivities), metric.name
    assert all(m.name == "wheel_rate" for m in CATALOGUE if m.kind == WHEEL_RATE and m.sensitivities)
    assert {m.name for m in CATALOGUE if m.kind == ROLL} <= set(ANALYSES["roll"].own_metrics)
    assert set(INPUT_LABELS) <= {"wheel_travel", "roll_angle", "pitch_angle", "steering_wheel_angle"}
    assert "camber" in METRICS and readable("anti_dive_front") == "anti-dive, front"


def test_any_metric_can_be_a_panel_of_a_sheet(results):
    """A sheet draws the metrics asked for, labelled from the catalogue; one it does not have
    is one located line."""
    fig = plot_sheet(results["parallel"], metrics=["half_track", "kingpin_offset_wheel_centre"])
    titles = [ax.get_title() for ax in fig.axes][:2]
    assert titles == ["half track", "kingpin offset at the wheel centre"]
    assert fig.axes[0].get_ylabel() == "half track [mm]"
    with pytest.raises(ValueError, match="not a metric of the parallel travel analysis") as info:
        plot_sheet(results["parallel"], metrics=["roll_camber"])
    assert info.value.where == "metric 'roll_camber'"
