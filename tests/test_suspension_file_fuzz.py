"""Property: corner and axle files, vary files and hardpoint tables are each either read and
analysed, or refused with one located line: never a traceback, never a hang.

The model-file properties (tests/test_model_file_fuzz.py) extended to the files of the
suspension workbench and of design studies, driven through their public readers:

* corner and axle files: the shipped corner files (examples/*.toml with ``[corner]``) with
  their ``[corner]``, ``[vehicle]`` and ``[axle]`` tables mutated (keys deleted or unknown,
  values of the wrong type, huge, NaN and infinite numbers, nested arrays, whole tables
  replaced), through :func:`loops.suspension.load_suspension` and a three-position parallel
  travel;
* vary files: generated from scratch (every design, good and bad counts and seeds, hardpoint
  names real and not, ranges and spreads of every kind, unknown keys), then mutated as bytes
  (other encodings, a byte-order mark, bytes changed), through
  :func:`loops.study.designs.read_vary` and a study of two of their variants;
* hardpoint tables: the exported table of a shipped corner with rows, cells, numbers, the
  header and the units line mutated, in UTF-8 or with a byte-order mark, through
  :func:`loops.suspension.hardpoints.apply_hardpoints` and the moved file read back;

and, for a few hostile files of each kind, through the installed command line (exit 2, one
line on stderr, no traceback).

The rule: the reader returns and the short analysis completes (or stops with a reason, or
refuses in one line); or the reader raises :class:`~mechanism.errors.ModelError` whose
message is one line of at most ``MAX_MESSAGE`` characters beginning with the name of a file
involved (the file read, or the model or output file it goes with). Each case has a
wall-clock budget (an alarm). The search is derandomized and small (``max_examples``) so the
module runs in seconds.

Defects found this way are kept as cases of their own below (``known defects``, now fixed),
each with its reproducer.
"""

from __future__ import annotations

import codecs
import csv
import io
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from installed import kinematrix
from loops.study.designs import DESIGNS, read_vary
from loops.study.study import run_study
from loops.suspension import load_suspension, parallel_travel
from loops.suspension.hardpoints import apply_hardpoints, write_hardpoints
from mechanism import ModelError, SweepStopped
from mechanism.errors import ClosureError
from mechanism.limits import MAX_MESSAGE
from test_model_file_fuzz import STRANGE, budget, toml_document

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CORNERS = sorted(p.name for p in EXAMPLES.glob("*.toml") if "[corner]" in p.read_text())
SOURCES = {name: (EXAMPLES / name).read_text(encoding="utf-8") for name in CORNERS}
#: Seconds one case may take (read, a three-position analysis or a two-variant study).
BUDGET = 20
FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
TRAVEL = np.array([-0.01, 0.0, 0.01])  # m



# ------------------------------------------------------------------------ the rule
def one_located_line(error, *files):
    message = str(error)
    assert "\n" not in message and len(message) <= MAX_MESSAGE, message
    assert message.startswith(tuple(f"{name}: " for name in files)), (files, message)


def analyses(suspension):
    """A three-position parallel travel: completes, stops with its reason, or refuses."""
    try:
        parallel_travel(suspension, TRAVEL)
    except (SweepStopped, ModelError, ClosureError) as stop:
        assert "\n" not in str(stop), str(stop)


def suspension_rule(path, *others):
    with budget(BUDGET):
        try:
            suspension = load_suspension(path)
        except ModelError as error:
            one_located_line(error, path.name, *others)
            return "refused"
        analyses(suspension)
        return "loaded"


# --------------------------------------------------------------- corner and axle files
def nested(depth):
    value = [1]
    for _ in range(depth - 1):
        value = [value]
    return value


EXTRA = STRANGE | st.sampled_from(["left", "right", "front", "rear", "inboard", "upright", "ground", "hub",
                                   ["upright", "ground"], ["nowhere", "x"], -1e30, 1e30, 1e-30, 0.0, -0.0,
                                   {"a": {"b": 1}}, nested(5), nested(20), "é" * 3])


@st.composite
def corner_files(draw):
    """(file name, bytes) of a shipped corner file with its workbench tables mutated, in UTF-8
    (mostly) or another encoding."""
    name = draw(st.sampled_from(CORNERS))
    data = tomllib.loads(SOURCES[name])
    for _ in range(draw(st.integers(1, 3))):
        table = draw(st.sampled_from(["corner", "vehicle", "axle"]))
        holder = data.setdefault(table, {} if table != "axle" else {"mirror": True})
        action = draw(st.sampled_from(["delete", "strange", "unknown", "replace table", "scale"]))
        if action == "replace table":
            data[table] = draw(st.sampled_from([1, "x", [1, 2], [], True]))
            continue
        if not isinstance(holder, dict):
            continue
        key = draw(st.sampled_from(sorted(holder) or ["mirror"]))
        if action == "delete":
            holder.pop(key, None)
        elif action == "strange":
            holder[key] = draw(EXTRA)
        elif action == "unknown":
            holder[draw(st.sampled_from(["Wheel_radius", "sidee", "x y", "é", "mirror", "left", "right"]))] = \
                draw(EXTRA)
        elif action == "scale" and isinstance(holder.get(key), (int, float)) and not isinstance(holder[key], bool):
            holder[key] = holder[key] * draw(st.sampled_from([-1.0, 1e-300, 1e-6, 30.0, 1e6, 1e300]))
    text = toml_document(data)
    how = draw(st.sampled_from(["utf-8"] * 7 + ["bom", "utf-16", "latin-1"]))
    if how == "bom":
        return name, codecs.BOM_UTF8 + text.encode()
    if how == "latin-1":
        return name, text.replace('name = "', 'name = "é', 1).encode("latin-1")
    return name, text.encode(how)


@FUZZ
@given(case=corner_files())
def test_a_mutated_corner_file_is_analysed_or_refused_in_one_line(tmp_path_factory, case):
    name, raw = case
    folder = tmp_path_factory.mktemp("corner")
    path = folder / name
    path.write_bytes(raw)
    try:
        axle = tomllib.loads(raw.decode("utf-8")).get("axle")
    except ValueError:  # not UTF-8, or not TOML: no other file to name
        axle = None
    others = [v for v in axle.values() if isinstance(v, str)] if isinstance(axle, dict) else []
    event(suspension_rule(path, *[Path(o).name for o in others]))


def test_every_shipped_corner_file_is_analysed():
    assert CORNERS
    for name in CORNERS:
        assert suspension_rule(EXAMPLES / name) == "loaded", name


def test_an_axle_of_two_files_whose_corner_file_is_hostile_names_that_file(tmp_path):
    """``[axle] left = ..., right = ...``: a corner file that is missing, empty, not TOML or
    has a bad [corner] table is named by its own name."""
    corner = SOURCES["double_wishbone.toml"]
    (tmp_path / "fl.toml").write_text(corner)
    axle = 'name = "axle"\n[units]\nlength = "mm"\nangle = "deg"\n[axle]\nleft = "fl.toml"\nright = "fr.toml"\n'
    (tmp_path / "axle.toml").write_text(axle)
    for text in (None, "", "[[[", corner.replace("wheel_radius = ", "wheel_radius = -")):
        target = tmp_path / "fr.toml"
        target.unlink(missing_ok=True)
        if text is not None:
            target.write_text(text)
        assert suspension_rule(tmp_path / "axle.toml", "fr.toml") == "refused"


# -------------------------------------------------------------------------- vary files
#: Good values, then mistakes (a hostile file draws a mistake for a field one time in four).
HARDPOINTS = (["lower_ball", "upper_ball.z", "lower_inner.axis.x", "rack_end", "steer_ball.y", "upper_inner"],
              ["hub", "nowhere", "lower_ball.w", "", "lower_ball.axis", "travel", "wheel_centre", 3, ["lower_ball"]])
NUMBER = ([-5, 5, 0.5, 2.5, -2.0, 1], [0, 1e30, -1e30, float("nan"), float("inf"), -float("inf"), 1e308, 5e-324,
                                       10**30, True, "5", 600])
RANGE = ([[-5, 5], [-1, 2], [0, 0.5], [-2.5, -1]], [[5, -5], [1, 1], [0], [0, 1, 2], "5", [float("nan"), 1],
                                                    [-1e30, 1e30], [0, 600], [True, 2]])
COUNT = ([2, 3], [1, 0, -1, 2.5, 10**7, 10**30, True, "3"])
DESIGN = (list(DESIGNS), ["Factorial", "latin_hypercube", "", 3])
DISTRIBUTION = (["normal", "uniform"], ["gauss", 1, ""])


@st.composite
def vary_documents(draw):
    """A vary file's tables: a good one, or one with mistakes in some of its fields."""
    hostile = draw(st.booleans())
    mistake = st.sampled_from([False] * 3 + [True]) if hostile else st.just(False)

    def pick(pools):
        good, bad = pools
        return draw(st.sampled_from(bad if draw(mistake) else good))

    design = pick(DESIGN)
    data = {"design": design}
    random = design in ("latin-hypercube", "monte-carlo")
    if random or draw(mistake):
        data["variants"] = pick(COUNT)
    if design == "factorial" or draw(mistake):
        data["levels"] = pick(COUNT)
    if (random and draw(st.booleans())) or draw(mistake):
        data["seed"] = pick(COUNT)
    names = draw(st.lists(st.sampled_from(HARDPOINTS[0]), min_size=1, max_size=3, unique=True))
    names = [pick(([name], HARDPOINTS[1])) for name in names]
    if draw(mistake):
        names = names[:0] if draw(st.booleans()) else names + names[:1]  # none, or one twice
    if design == "offsets":
        rows = []
        for _ in range(draw(st.integers(1, 3))):
            row = {}
            for name in names:
                if isinstance(name, str):
                    row[name] = pick(NUMBER) if "." in name else [pick(NUMBER) for _ in "xyz"]
            rows.append(row)
        data["offsets"] = rows
    else:
        entries = []
        for name in names:
            entry = {"hardpoint": name}
            if design == "monte-carlo":
                spread = pick(NUMBER)
                entry["spread"] = abs(spread) if isinstance(spread, (int, float)) and not draw(mistake) else spread
                if draw(st.booleans()):
                    entry["distribution"] = pick(DISTRIBUTION)
            else:
                entry["range"] = pick(RANGE)
            if draw(mistake):
                entry[draw(st.sampled_from(["rnage", "levels", "spread", "x"]))] = 1
            entries.append(entry)
        data["vary"] = entries
    if draw(mistake):
        data[draw(st.sampled_from(["desing", "units", "model"]))] = draw(st.sampled_from([1, "x", {"a": 1}]))
    return data


@st.composite
def vary_files(draw):
    """(bytes) of a vary file: a generated one in UTF-8, or in another encoding, with a mark,
    or with bytes changed."""
    data = draw(vary_documents())
    text = toml_document({k: v for k, v in data.items() if v is not None and not (isinstance(v, list) and not v)})
    how = draw(st.sampled_from(["utf-8"] * 6 + ["bom", "utf-16", "latin-1", "bytes"]))
    if how == "bom":
        return codecs.BOM_UTF8 + text.encode()
    if how == "utf-16":
        return text.encode("utf-16")
    if how == "latin-1":
        return text.replace("lower_ball", "lower_bäll").encode("latin-1")
    raw = bytearray(text.encode())
    if how == "bytes":
        for _ in range(draw(st.integers(1, 3))):
            at = draw(st.integers(0, len(raw)))
            raw[at:at + draw(st.integers(0, 3))] = draw(st.binary(min_size=0, max_size=4))
    return bytes(raw)


@pytest.fixture(scope="module")
def wishbone():
    return load_suspension(EXAMPLES / "double_wishbone.toml")


def vary_rule(path, suspension):
    with budget(BUDGET):
        try:
            names, offsets = read_vary(path, suspension)
        except ModelError as error:
            one_located_line(error, path.name)
            return "refused"
        assert offsets.ndim == 2 and offsets.shape[1] == len(names) >= 1 and len(offsets) >= 1
        assert np.isfinite(offsets).all()
        try:
            study = run_study(suspension, names, offsets[:2], analysis="parallel", travel=TRAVEL)
        except ModelError as error:  # a variant moved so far that the nominal checks refuse it
            assert "\n" not in str(error) and error.where, str(error)
            return "refused by the study"
        assert study.variants == min(2, len(offsets))
        return "studied"


@FUZZ
@given(raw=vary_files())
def test_a_generated_vary_file_is_studied_or_refused_in_one_line(tmp_path_factory, wishbone, raw):
    path = tmp_path_factory.mktemp("vary") / "vary.toml"
    path.write_bytes(raw)
    event(vary_rule(path, wishbone))


def test_the_shipped_vary_file_is_studied(wishbone):
    assert vary_rule(EXAMPLES / "double_wishbone_vary.toml", wishbone) == "studied"


# --------------------------------------------------------------------- hardpoint tables
@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The exported hardpoint table of each shipped corner file (a file of one folder)."""
    folder = tmp_path_factory.mktemp("exported")
    tables = {}
    for name in CORNERS:
        write_hardpoints(EXAMPLES / name, folder / f"{name}.csv")
        tables[name] = (folder / f"{name}.csv").read_text(encoding="utf-8")
    return tables


CELL = st.sampled_from(["nan", "inf", "-inf", "1e308", "-1e308", "1e30", "1e-320", "", " ", "x", "1,5", "0x10", "1e5",
                        "-0", "12345678901234567890", '"3"', "1e6", "-1e6"])


@st.composite
def table_edits(draw):
    """(corner file, list of edits) to apply to its exported table."""
    name = draw(st.sampled_from(CORNERS))
    edits = draw(st.lists(st.tuples(st.sampled_from(["number", "name", "duplicate", "delete", "cells", "header",
                                                     "units", "blank", "bom", "shift"]),
                                    st.integers(0, 40), CELL, st.integers(0, 3)), min_size=1, max_size=3))
    return name, edits


def edited_table(text, edits):
    """The exported table ``text`` with ``edits`` made; returns its bytes."""
    lines = text.splitlines()
    bom = False
    for action, at, cell, column in edits:
        rows = list(range(2, len(lines)))
        if action == "units":
            lines[0] = ["# units: length=km", "# units: length=m", "# units:", "#", "# units: length=mm"][at % 5]
            continue
        if action == "header":
            lines[1] = ["name,x,y", "Name,X,Y,Z", "name,y,x,z", "x,y,z,name", ""][at % 5]
            continue
        if action == "bom":
            bom = True
            continue
        if not rows:
            continue
        row = rows[at % len(rows)]
        cells = next(csv.reader([lines[row]]))
        if action == "number" and cells:
            cells[1 + column % 3 if len(cells) > 1 else 0] = cell
        elif action == "name" and cells:
            cells[0] = ["nowhere", "", "lower ball", "LOWER_BALL", "points.lower_ball", "coil.at_c",
                        "hub.axis", "travel"][at % 8]
        elif action == "duplicate":
            lines.insert(row, lines[row])
            continue
        elif action == "delete":
            del lines[row]
            continue
        elif action == "cells":
            cells = cells[:column] if column < len(cells) else cells + ["1"] * column
        elif action == "blank":
            lines.insert(row, "")
            continue
        elif action == "shift" and len(cells) == 4:
            cells[1:] = [str(float(c) + [0.5, -3, 7, 100][column]) for c in cells[1:]]
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow(cells)
        lines[row] = out.getvalue()
    data = ("\n".join(lines) + "\n").encode("utf-8")
    return codecs.BOM_UTF8 + data if bom else data


def hardpoint_rule(model, table, out):
    with budget(BUDGET):
        try:
            apply_hardpoints(model, table, out)
        except ModelError as error:
            one_located_line(error, table.name, model.name, out.name)
            assert not out.exists(), "a refused table wrote its output"
            return "refused"
        return suspension_rule(out)


@FUZZ
@given(case=table_edits())
def test_an_edited_hardpoint_table_is_applied_or_refused_in_one_line(tmp_path_factory, exported, case):
    name, edits = case
    folder = tmp_path_factory.mktemp("table")
    table = folder / "hardpoints.csv"
    table.write_bytes(edited_table(exported[name], edits))
    event(hardpoint_rule(EXAMPLES / name, table, folder / "moved.toml"))


def test_an_exported_table_applies_back_unchanged(tmp_path, exported):
    for name in CORNERS:
        (tmp_path / "hp.csv").write_text(exported[name])
        assert hardpoint_rule(EXAMPLES / name, tmp_path / "hp.csv", tmp_path / f"moved-{name}") == "loaded"
        assert (tmp_path / f"moved-{name}").read_text() == SOURCES[name]


# ------------------------------------------- known defects (issue 24), each its reproducer
def test_a_latin_1_hardpoint_table_is_one_located_line(tmp_path, exported):
    """Reproducer: a table saved by a spreadsheet in Latin-1 (a name with an accent)."""
    table = tmp_path / "hp.csv"
    table.write_bytes(exported["double_wishbone.toml"].replace("hub_inner", "hub_innér").encode("latin-1"))
    assert hardpoint_rule(EXAMPLES / "double_wishbone.toml", table, tmp_path / "moved.toml") == "refused"


def test_a_corner_file_nested_5000_deep_is_one_located_line(tmp_path):
    """Reproducer: ``[corner]`` with ``shared = [[[...]]]`` 5,000 deep."""
    path = tmp_path / "deep.toml"
    path.write_text(SOURCES["double_wishbone.toml"] + "\n[extra]\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    assert suspension_rule(path) == "refused"


def test_a_hardpoint_table_moving_a_point_to_1e30_names_the_table(tmp_path, exported):
    """Reproducer: one coordinate of one row set to 1e30."""
    lines = exported["double_wishbone.toml"].splitlines()
    cells = lines[2].split(",")
    lines[2] = ",".join([cells[0], "1e30"] + cells[2:])
    table = tmp_path / "hp.csv"
    table.write_text("\n".join(lines) + "\n")
    with pytest.raises(ModelError) as error:
        apply_hardpoints(EXAMPLES / "double_wishbone.toml", table, tmp_path / "moved.toml")
    assert str(error.value).startswith("hp.csv: line 3"), str(error.value)


# ------------------------------------------------------- through the installed command
HOSTILE = {
    "corner: a wheel radius that is text": ("corner.toml", lambda: SOURCES["double_wishbone.toml"].replace(
        "wheel_radius = ", 'wheel_radius = "big" #'), ["suspension", "corner.toml", "--analysis", "parallel",
                                                        "--travel", "-10:10:10"]),
    "vary: a NaN range in UTF-16": ("vary.toml", lambda: ('design = "factorial"\nlevels = 2\n[[vary]]\n'
                                                          'hardpoint = "lower_ball"\nrange = [nan, 1]\n')
                                    .encode("utf-16"),
                                    ["study", EXAMPLES / "double_wishbone.toml", "--vary", "vary.toml",
                                     "--analysis", "parallel", "--travel", "-10:10:10"]),
    "table: a NaN coordinate": ("hp.csv", lambda: "# units: length=mm\nname,x,y,z\nlower_ball,nan,0,0\n",
                                ["suspension", EXAMPLES / "double_wishbone.toml", "--apply-hardpoints", "hp.csv",
                                 "--save", "moved.toml"]),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_file_on_the_command_line_is_exit_2_and_one_line(case, tmp_path):
    name, content, args = HOSTILE[case]
    data = content()
    (tmp_path / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    done = kinematrix(*args, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kinematrix: error: "), done.stderr
    assert name in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "moved.toml").exists()
