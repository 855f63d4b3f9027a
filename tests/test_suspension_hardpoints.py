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


def read_table(path, aliases=False):
    """``{name: [x, y, z]}`` of an exported table's rows; with ``aliases`` every name, each alias
    with its row's values."""
    with open(path, newline="") as handle:
        lines = [line for line in handle.read().splitlines()]
    assert lines[0].startswith("# units: length=")
    rows = list(csv.reader(line for line in lines[1:] if not line.startswith("#")))
    assert rows[0] == ["name", "x", "y", "z", "aliases"]
    out = {}
    for row in rows[1:]:
        for name in [row[0]] + (row[4].split() if aliases else []):
            out[name] = [float(v) for v in row[1:4]]
    return out


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
    table = read_table(tmp_path / "hp.csv", aliases=True)
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


def test_one_location_is_one_row_and_its_aliases_move_together(tmp_path):
    """The front axle's coincident hardpoints are one row each, the others under aliases
    (issue 24: ``rack_travel`` = ``rack_end``, ``hub`` = ``wheel_centre``, ``coil_lower`` =
    ``coil.at_a``, ``coil_upper`` = ``coil.at_b``); moving ``coil_lower`` alone moves the
    spring's end with the damper's; an old-style table that moves one alias and keeps the
    other is refused, located, and nothing is written."""
    model = tmp_path / "front.toml"
    model.write_bytes((EXAMPLES / "front_axle.toml").read_bytes())
    write_hardpoints(model, tmp_path / "hp.csv")
    rows = list(csv.reader(line for line in (tmp_path / "hp.csv").read_text().splitlines()
                           if not line.startswith("#")))[1:]
    aliases = {row[0]: row[4] for row in rows}
    assert aliases["rack_travel"] == "rack_end" and aliases["hub"] == "wheel_centre"
    assert aliases["coil_lower"] == "coil.at_a" and aliases["coil_upper"] == "coil.at_b"
    assert len(rows) == 10 and "rack_end" not in aliases
    table = tmp_path / "edit.csv"
    table.write_text("name,x,y,z\ncoil_lower,0,610,130\n")
    moved = apply_hardpoints(model, table, tmp_path / "out.toml")
    assert set(moved) == {"coil_lower", "coil.at_a"}
    data = tomllib.loads((tmp_path / "out.toml").read_text())
    assert next(p for p in data["points"] if p["name"] == "coil_lower")["at"] == [0, 610, 130]
    assert data["spring_dampers"][0]["at_a"] == [0, 610, 130]
    table.write_text("name,x,y,z\ncoil_lower,0,610,130\ncoil.at_a,0,600,130\n")
    with pytest.raises(ModelError, match="aliases: one location of front.toml") as info:
        apply_hardpoints(model, table, tmp_path / "never.toml")
    assert info.value.where == "edit.csv: line 3" and "'coil_lower' (edit.csv: line 2)" in str(info.value)
    assert not (tmp_path / "never.toml").exists()


@pytest.mark.parametrize("encoding", ["latin-1", "utf-8-sig", "utf-16", "cp1252"])
def test_a_table_as_spreadsheet_programs_write_it(tmp_path, encoding):
    """Latin-1 (a comment with an accent), a UTF-8 byte-order mark, UTF-16 and Windows line
    ends are read (issue 24); a table with ';' between its cells says so in one line."""
    model = tmp_path / "front.toml"
    model.write_bytes((EXAMPLES / "front_axle.toml").read_bytes())
    table = tmp_path / "hp.csv"
    table.write_bytes("# déplacé\r\nname,x,y,z\r\nlower_ball,0,721,100\r\n".encode(encoding))
    assert apply_hardpoints(model, table, tmp_path / "out.toml") == ["lower_ball"]
    table.write_bytes("name;x;y;z\r\nlower_ball;0;721,5;100\r\n".encode(encoding))
    with pytest.raises(ModelError, match="separated by ';'") as info:
        apply_hardpoints(model, table, tmp_path / "out.toml")
    assert info.value.where == "hp.csv: line 1"


def test_a_value_beyond_the_limits_is_located_in_the_table(tmp_path):
    """1e30 in a hardpoint table names the table, its line, the hardpoint and the coordinate,
    not the model file written (issue 24); a moved hardpoint the model refuses (two ball
    joints made one) is located at its row too."""
    model = tmp_path / "front.toml"
    model.write_bytes((EXAMPLES / "front_axle.toml").read_bytes())
    table = tmp_path / "hp.csv"
    table.write_text("# units: length=mm\nname,x,y,z\nupper_ball,0,1e30,440\n")
    with pytest.raises(ModelError, match="beyond") as info:
        apply_hardpoints(model, table, tmp_path / "out.toml")
    assert info.value.where == "hp.csv: line 3: upper_ball.y"
    assert not (tmp_path / "out.toml").exists()


def test_a_mirrored_axle_file_takes_the_axle_names(tmp_path):
    """A mirrored axle file's table takes ``lower_ball_left`` (the file's own corner) and
    ``lower_ball_right`` (mirrored back about the centre plane); both given, they must be
    mirror images; the shared rack by its own name."""
    model = tmp_path / "front.toml"
    model.write_bytes((EXAMPLES / "front_axle.toml").read_bytes())
    table = tmp_path / "hp.csv"
    table.write_text("name,x,y,z\nlower_ball_left,1,720,100\nlower_ball_right,1,-720,100\n")
    assert apply_hardpoints(model, table, tmp_path / "out.toml") == ["lower_ball"]
    data = tomllib.loads((tmp_path / "out.toml").read_text())
    assert next(p for p in data["pairs"] if p["name"] == "lower_ball")["at"] == [1, 720, 100]
    table.write_text("name,x,y,z\nupper_ball_right,-10,-690,440\n")
    apply_hardpoints(model, table, tmp_path / "out.toml")
    data = tomllib.loads((tmp_path / "out.toml").read_text())
    assert next(p for p in data["pairs"] if p["name"] == "upper_ball")["at"] == [-10, 690, 440]
    table.write_text("name,x,y,z\nlower_ball_left,1,720,100\nlower_ball_right,2,-720,100\n")
    with pytest.raises(ModelError, match="mirror images in this mirrored axle file") as info:
        apply_hardpoints(model, table, tmp_path / "out.toml")
    assert info.value.where == "hp.csv: line 3"


def test_a_table_past_the_limit_is_refused_before_it_is_read_whole(tmp_path):
    """A 'hardpoint table' larger than 16 MiB (a wrong file, /dev/zero) is one line at the
    table, read no further than the limit."""
    table = tmp_path / "huge.csv"
    table.write_bytes(b"# " + b"x" * (16 * 2**20) + b"\nname,x,y,z\n")
    with pytest.raises(ModelError, match="larger than 16777216 bytes: not a hardpoint table") as info:
        apply_hardpoints(EXAMPLES / "front_axle.toml", table, tmp_path / "out.toml")
    assert info.value.where == "huge.csv"
