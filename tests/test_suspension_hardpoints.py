"""Hardpoint tables (loops.suspension.hardpoints): out to CSV, edited, back into the model file.

References: the model files' own numbers read with ``tomllib``, and the kingpin
inclination of a moved ball joint by hand (atan of the lateral over the vertical distance
between the balls).
"""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

import numpy as np
import pytest

from loops.suspension import load_suspension, parallel_travel
from loops.suspension.hardpoints import apply_hardpoints, hardpoints, write_hardpoints
from mechanism import ModelError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# examples/*_vary.toml are design-study vary files, not models
SHIPPED = sorted(p for p in EXAMPLES.glob("*.toml") if not p.stem.endswith("_vary"))


def read_table(path):
    with open(path, newline="") as handle:
        lines = handle.read().splitlines()
    assert lines[0].startswith("# units: length=")
    rows = list(csv.reader(lines[1:]))
    assert rows[0] == ["name", "x", "y", "z"]
    return {row[0]: [float(v) for v in row[1:]] for row in rows[1:]}


@pytest.mark.parametrize("model", SHIPPED, ids=[p.name for p in SHIPPED])
def test_export_then_apply_unchanged_gives_the_same_bytes(tmp_path, model):
    table = tmp_path / "hardpoints.csv"
    copy = tmp_path / model.name
    copy.write_bytes(model.read_bytes())
    names = write_hardpoints(copy, table)
    assert names == list(read_table(table))
    apply_hardpoints(copy, table, tmp_path / "again.toml")
    assert (tmp_path / "again.toml").read_bytes() == model.read_bytes()


def test_export_lists_every_hardpoint_in_file_units(tmp_path):
    path = EXAMPLES / "front_axle.toml"
    data = tomllib.loads(path.read_text())
    write_hardpoints(path, tmp_path / "hp.csv")
    table = read_table(tmp_path / "hp.csv")
    expected = {p["name"]: p["at"] for p in data["pairs"]}
    expected.update({p["name"]: p["at"] for p in data["points"]})
    expected.update({f"{s['name']}.{key}": s[key] for s in data["spring_dampers"] for key in ("at_a", "at_b")})
    assert table == {name: [float(v) for v in xyz] for name, xyz in expected.items()}
    assert (tmp_path / "hp.csv").read_text().splitlines()[0] == "# units: length=mm"
    names, values, units = hardpoints(path)
    assert units.length == "mm" and values.shape == (len(names), 3)


def test_moving_a_ball_joint_in_the_table_moves_it_in_the_model(tmp_path):
    """The upper ball 15 mm inboard: only its line changes, comments stay, and the kingpin
    inclination at the design pose follows by hand: atan((720 - 665) / (440 - 100))."""
    source = EXAMPLES / "front_axle.toml"
    model = tmp_path / "front.toml"
    model.write_bytes(source.read_bytes())
    table = tmp_path / "hp.csv"
    write_hardpoints(model, table)
    text = table.read_text().replace("upper_ball,-10,680,440", "upper_ball,-10,665,440")
    assert text != table.read_text()
    table.write_text(text)
    moved = apply_hardpoints(model, table)
    assert "upper_ball" in moved
    before, after = source.read_text().splitlines(), model.read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after) and changed == [("at = [-10, 680, 440]", "at = [-10, 665, 440]")]
    result = parallel_travel(load_suspension(model), [0.0])
    assert result.metric("kingpin_inclination_left")[0] == pytest.approx(np.arctan2(720 - 665, 440 - 100), abs=1e-12)


def test_a_table_in_metres_moves_a_model_in_millimetres(tmp_path):
    model = tmp_path / "front.toml"
    model.write_bytes((EXAMPLES / "front_axle.toml").read_bytes())
    table = tmp_path / "hp.csv"
    table.write_text("# units: length=m\nname,x,y,z\nlower_ball,0.001,0.72,0.1\n")
    apply_hardpoints(model, table, tmp_path / "out.toml")
    data = tomllib.loads((tmp_path / "out.toml").read_text())
    assert next(p for p in data["pairs"] if p["name"] == "lower_ball")["at"] == [1, 720, 100]


@pytest.mark.parametrize("rows, where, text", [
    ("knuckle,0,0,0\n", "hp.csv: line 3", "'knuckle' is not a hardpoint of front.toml"),
    ("lower_ball,0,x,0\n", "hp.csv: line 3", "not a number"),
    ("lower_ball,0,1\n", "hp.csv: line 3", "expected 4 cells"),
    ("lower_ball,0,1,2\nlower_ball,0,1,2\n", "hp.csv: line 4", "listed twice"),
])
def test_table_mistakes_are_located(tmp_path, rows, where, text):
    model = tmp_path / "front.toml"
    model.write_bytes((EXAMPLES / "front_axle.toml").read_bytes())
    table = tmp_path / "hp.csv"
    table.write_text("# units: length=mm\nname,x,y,z\n" + rows)
    with pytest.raises(ModelError) as info:
        apply_hardpoints(model, table)
    assert info.value.where == where and text in str(info.value)
    assert model.read_bytes() == (EXAMPLES / "front_axle.toml").read_bytes()  # untouched


def test_an_array_over_several_lines_is_not_rewritten_blindly(tmp_path):
    model = tmp_path / "front.toml"
    model.write_text((EXAMPLES / "front_axle.toml").read_text().replace("at = [0, 720, 100]",
                                                                         "at = [0,\n  720, 100]"))
    table = tmp_path / "hp.csv"
    table.write_text("name,x,y,z\nlower_ball,0,721,100\n")
    with pytest.raises(ModelError, match="cannot rewrite this array in place") as info:
        apply_hardpoints(model, table)
    assert info.value.where == "front.toml: pairs[2]: at"


@pytest.mark.parametrize("content, where, text", [
    ("", "hp.csv", "empty table"),
    ("x,y,z,name\n", "hp.csv: line 1", "expected the header name,x,y,z"),
    ("name,x,y,z\nlower_ball,0,nan,0\n", "hp.csv: line 2", "non-finite coordinate"),
    ("# units: length=in\nname,x,y,z\n", "hp.csv: line 1", "unknown length unit 'in'"),
])
def test_malformed_tables(tmp_path, content, where, text):
    table = tmp_path / "hp.csv"
    table.write_text(content)
    with pytest.raises(ModelError) as info:
        apply_hardpoints(EXAMPLES / "front_axle.toml", table, tmp_path / "out.toml")
    assert info.value.where == where and text in str(info.value)
