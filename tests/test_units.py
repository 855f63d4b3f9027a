"""mechanism/units.py: one rule for the units of every file written (DESIGN.md, "Model files and
command line"): the caller chooses them, the default is the model's own (its file's; SI for a
model built in Python), the file states them, numbers are the shortest that read back exactly."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core_models import four_bar
from mechanism import Mechanism, ModelError, load_model, save_model
from mechanism.units import SI, Units, dimension_powers
from loops.results import Column

MM_DEG = Units("mm", "deg")
FOUR_BAR = Path(__file__).resolve().parents[1] / "examples" / "four_bar.toml"


# ------------------------------------------------------------------- dimensions
@pytest.mark.parametrize("dimension, factor", [
    ("length", 1e3),
    ("angle", 180 / math.pi),
    ("angle/length", (180 / math.pi) / 1e3),     # camber gain: deg/mm
    ("length/angle", 1e3 / (180 / math.pi)),     # mm/deg
    ("force/length", 1e-3),                      # N/mm
    ("force*length/angle", 1e3 / (180 / math.pi)),
    ("mass*length^2", 1e6),                      # kg mm^2
    ("length/time^2", 1e3),                      # mm/s^2
    ("angle/time", 180 / math.pi),               # a rate per second
    ("dimensionless", 1.0), ("", 1.0), ("none", 1.0),
    ("angular_stiffness", 1e3 / (180 / math.pi)),  # a named quantity of model files
    ("1/length", 1e-3),
])
def test_compound_dimensions_scale_by_their_powers(dimension, factor):
    assert MM_DEG.factor(dimension) == pytest.approx(factor, rel=1e-15)
    assert SI.factor(dimension) == 1.0


@pytest.mark.parametrize("dimension, label", [
    ("angle/length", "deg/mm"), ("length/angle", "mm/deg"), ("force/length", "N/mm"),
    ("force*length*time/angle", "N mm s/deg"), ("inertia", "kg mm^2"), ("acceleration", "mm/s^2"),
    ("pitch", "mm/rev"), ("dimensionless", ""), ("1/length", "1/mm"),
])
def test_labels_name_the_unit(dimension, label):
    assert MM_DEG.label(dimension) == label


def test_rates_are_per_second():
    assert MM_DEG.label("angle", order=1) == "deg/s" and MM_DEG.label("length", order=2) == "mm/s^2"


@pytest.mark.parametrize("bad", ["furlong", "length/", "length^x", "length**2", None, 3])
def test_unknown_dimensions_are_located_errors(bad):
    with pytest.raises(ModelError) as info:
        dimension_powers(bad)
    assert str(info.value).startswith("dimension: ")


@pytest.mark.parametrize("units, where", [(("km", "deg"), "units: length"), (("mm", "grad"), "units: angle"),
                                          (("mm",), "units"), ({"length": "mm", "time": "h"}, "units"),
                                          ([["mm"], "deg"], "units: length")])
def test_unknown_units_are_located_errors(units, where):
    with pytest.raises(ModelError) as info:
        Units.of(units)
    assert info.value.where == where


def test_the_csv_comment_names_the_units():
    assert MM_DEG.comment() == "# units: length=mm angle=deg time=s"
    assert SI.comment() == "# units: length=m angle=rad time=s"


# ---------------------------------------------------------- shortest numbers
@settings(max_examples=200, deadline=None)
@given(written=st.decimals(min_value=-10000, max_value=10000, places=3).map(float),
       dimension=st.sampled_from(["length", "angle", "angle/length", "force*length/angle", "mass*length^2"]))
def test_a_decimal_in_file_units_comes_back_as_written(written, dimension):
    """A value typed in file units (3 decimals) is written back as the same short number."""
    assert MM_DEG.from_si(MM_DEG.to_si(written, dimension), dimension) == written


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True), min_size=1, max_size=8),
       dimension=st.sampled_from(["length", "angle", "angle/length", "force/length", "dimensionless"]))
def test_a_cells_text_is_the_repr_of_its_number_in_file_units(values, dimension):
    """The CSV writer's text of each value (kept from the search for the shortest number) is
    ``repr`` of what :meth:`Units.from_si` gives: generic values, typed ones, zeros, non-finite."""
    si = np.array(values + [0.415, -0.0, 1e-320], dtype=float)
    assert MM_DEG.texts(si, dimension) == [repr(x) for x in MM_DEG.from_si(si, dimension).tolist()]


def test_save_model_writes_the_shortest_numbers(tmp_path):
    """Values typed in SI come out in mm as typed (415.0, never 415.00000000000006)."""
    m = Mechanism("short")
    rng = np.random.default_rng(12)
    typed = np.round(rng.uniform(-2, 2, (40, 3)), 3)  # m, 3 decimals
    names = []
    for i, at in enumerate(typed):
        m.add_link(f"l{i}")
        m.add_pair(f"P{i}", "revolute", "ground", f"l{i}", at=tuple(at), axis=(0, 0, 1))
        names.append(f"P{i}")
    m.add_link("x")
    m.add_pair("X", "revolute", "ground", "x", at=(0.415, 0, 0), axis=(0, 0, 1))
    path = tmp_path / "short.toml"
    save_model(m, path, units=("mm", "deg"))
    text = path.read_text()
    assert "at = [415.0, 0.0, 0.0]" in text
    for value in typed.ravel():
        assert repr(float(round(value * 1000))) in text
    assert "0000000" not in text and "9999999" not in text


# ---------------------------------------------------------- the model's units
def test_a_loaded_model_remembers_its_units_and_saves_in_them(tmp_path):
    example = load_model(FOUR_BAR)
    assert example.units == MM_DEG and example.snapshot().units == MM_DEG
    path = tmp_path / "again.toml"
    save_model(example, path)  # default: the model's own units
    assert 'length = "mm"' in path.read_text() and load_model(path).units == MM_DEG
    save_model(example, path, units=None)
    assert 'angle = "deg"' in path.read_text()
    save_model(example, path, units=("m", "rad"))  # the caller chooses
    assert load_model(path).units == SI


def test_a_model_built_in_python_is_si_and_its_units_can_be_set():
    m = four_bar()
    assert m.units == SI
    m.units = ("mm", "deg")
    assert m.snapshot().units == MM_DEG
    with pytest.raises(ModelError) as info:
        m.units = ("inch", "deg")
    assert info.value.where == "units: length"


# ------------------------------------------------------------------------ CSV
def test_csv_default_is_the_model_units_and_the_caller_may_choose(tmp_path):
    example = load_model(FOUR_BAR)
    res = example.sweep({"A": np.radians([0.0, 15.0, 30.0])}, speeds={"A": np.radians(90.0)})
    default = res.to_csv(None)
    lines = default.splitlines()
    assert lines[0].startswith("# units: length=mm angle=deg time=s; columns: A=deg; B=deg; C=deg; D=deg; P.x=mm;")
    assert lines[1].split(",")[:5] == ["A", "B", "C", "D", "P.x"]
    assert [row.split(",")[0] for row in lines[2:]] == ["0.0", "15.0", "30.0"]  # deg, as typed
    assert lines[2].split(",")[4] == "250.0"  # P.x at the design pose, mm, as in the file
    assert lines[3].split(",")[lines[1].split(",").index("A_dot")] == "90.0"
    si = res.to_csv(None, units=("m", "rad")).splitlines()
    assert si[0].startswith("# units: length=m angle=rad time=s; columns: A=rad; B=rad; C=rad; D=rad; P.x=m;")
    assert si[2].split(",")[4] == "0.25"
    res.to_csv(tmp_path / "res.csv")
    assert (tmp_path / "res.csv").read_text() == default


def test_metric_columns_scale_by_their_dimension():
    """Columns added by other analyses (``metrics``) are written in the file's units too."""
    res = load_model(FOUR_BAR).sweep({"A": np.radians([0.0, 10.0])})
    res.metrics["gain"] = Column("gain", np.array([np.radians(1.5) / 1e-3, 0.0]), "angle/length", 0)
    res.metrics["rate"] = Column("rate", np.array([2.0, 4.0]), "force/length", 0)
    res.metrics["ratio"] = Column("ratio", np.array([0.5, 0.25]), "dimensionless", 0)
    lines = res.to_csv(None).splitlines()
    assert lines[0].endswith("; gain=deg/mm; rate=N/mm; ratio=1")  # each column's unit, last
    header = lines[1].split(",")
    first = dict(zip(header, lines[2].split(",")))
    assert header[-3:] == ["gain", "rate", "ratio"]
    assert (first["gain"], first["rate"], first["ratio"]) == ("1.5", "0.002", "0.5")  # deg/mm, N/mm, 1
