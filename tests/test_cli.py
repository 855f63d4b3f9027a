"""The command line (dynamics/cli/ and its subcommand modules), driven as the installed ``kinematrix``
command on files in tmp_path:
values in the file's units both ways, exit status 0/1/2, one-line errors, CSV and PNG output."""

import csv
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from numpy.testing import assert_allclose
import pytest

from dynamics.cli import main
from loops.cli.arguments import parse_range

try:
    from tests.command_line import run_kinematrix
except ImportError:  # tests/ itself on sys.path
    from command_line import run_kinematrix
try:
    from tests.reference.closed_forms import four_bar_angles, four_bar_coupler_point, four_bar_velocities, wrap
except ImportError:  # tests/ itself on sys.path
    from reference.closed_forms import four_bar_angles, four_bar_coupler_point, four_bar_velocities, wrap

REPO = Path(__file__).resolve().parents[1]

# Crank-rocker (Grashof: shortest + longest = 160 <= 180 = sum of the others), mm.
CRANK, COUPLER, ROCKER, GROUND = 40.0, 120.0, 80.0, 100.0
# Coupler-rocker pin C at the design pose (crank along +x): intersection of two circles.
C_X = (COUPLER**2 - ROCKER**2 - CRANK**2 + GROUND**2) / (2 * (GROUND - CRANK))
C_Y = math.sqrt(COUPLER**2 - (C_X - CRANK) ** 2)
POINT = (60.0, 50.0)  # coupler point P, mm


def crank_rocker_toml(axis_c="[0, 0, 1]", units='length = "mm"\nangle = "deg"'):
    return f"""\
name = "crank-rocker"
[units]
{units}

[[links]]
name = "crank"
[[links]]
name = "coupler"
[[links]]
name = "rocker"

[[pairs]]
name = "A"
type = "revolute"
links = ["ground", "crank"]
at = [0, 0, 0]
axis = [0, 0, 1]

[[pairs]]
name = "B"
type = "revolute"
links = ["crank", "coupler"]
at = [{CRANK!r}, 0, 0]
axis = [0, 0, 1]

[[pairs]]
name = "C"
type = "revolute"
links = ["coupler", "rocker"]
at = [{C_X!r}, {C_Y!r}, 0]
axis = {axis_c}

[[pairs]]
name = "D"
type = "revolute"
links = ["ground", "rocker"]
at = [{GROUND!r}, 0, 0]
axis = [0, 0, 1]

[[points]]
name = "P"
link = "coupler"
at = [{POINT[0]!r}, {POINT[1]!r}, 0]
"""


def run(*args, cwd):
    """``kinematrix ARGS`` (the installed entry point) -> CompletedProcess (headless)."""
    return run_kinematrix(*args, cwd=cwd)


def read_table(path, units="length=mm angle=deg time=s"):
    """Columns by name and the header of a CSV file whose first line names ``units`` (and, at
    its end, each column's unit)."""
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    assert len(rows[0]) == 1 and rows[0][0].startswith(f"# units: {units}; columns: ")
    header = rows[1]
    data = np.array([[float(v) for v in row] for row in rows[2:]]).reshape(len(rows) - 2, len(header))
    return {name: data[:, i] for i, name in enumerate(header)}, header


def assert_user_error(proc, expected=None):
    """Exit 2, one line on stderr, no traceback (and the exact line when given)."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("kinematrix: error: ")
    if expected is not None:
        assert lines[0] == f"kinematrix: error: {expected}"


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "four_bar.toml"
    path.write_text(crank_rocker_toml())
    return path


def swept_once(tmp_path_factory, name, *options, links=False):
    """``kinematrix sweep four_bar.toml OPTIONS`` run once in a folder of its own (with the
    output links of :func:`test_out_on_a_symbolic_link_writes_its_target` when ``links``), for
    the tests that check the same run: ``(CompletedProcess, folder)``. Those tests share an
    ``xdist_group``, so that one worker runs it."""
    folder = tmp_path_factory.mktemp(name)
    (folder / "four_bar.toml").write_text(crank_rocker_toml())
    if links:
        target = folder / "results" / "res.csv"
        target.parent.mkdir()
        target.write_text("previous\n")
        (folder / "link.csv").symlink_to(target)
        (folder / "plot.png").symlink_to(folder / "results" / "plot.png")
    return run("sweep", folder / "four_bar.toml", *options, cwd=folder), folder


#: The full turn of the crank at 30 deg/s (mm, deg): its CSV is checked against the closed form,
#: against ``SweepResult.to_csv`` and plotted.
FULL_TURN = ("--drive", "A=0:360:5", "--speed", "A=30.0", "--out", "res.csv")


@pytest.fixture(scope="module")
def full_turn(tmp_path_factory):
    return swept_once(tmp_path_factory, "full_turn", *FULL_TURN)


@pytest.fixture(scope="module")
def stopped_sweep(tmp_path_factory):
    """The rocker driven past its dead point (see test_stopped_sweep_keeps_partial_csv_and_exits_1)."""
    return swept_once(tmp_path_factory, "stopped", "--drive", "D=0:180:1", "--out", "part.csv")


@pytest.fixture(scope="module")
def plotted_through_links(tmp_path_factory):
    """A full turn drawn with its coupler point, its CSV and image written through symbolic links."""
    return swept_once(tmp_path_factory, "linked", "--drive", "A=0:360:2", "--out", "link.csv", "--plot", "plot.png",
                      "--points", "P", links=True)


def copy_of_full_turn(full_turn, tmp_path):
    """``res.csv`` of the full turn, copied into ``tmp_path`` (each test plots its own copy)."""
    proc, folder = full_turn
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "res.csv").write_bytes((folder / "res.csv").read_bytes())


# ------------------------------------------------------------------------- ranges
@pytest.mark.parametrize("text, expected", [
    ("0:360:90", [0, 90, 180, 270, 360]),
    ("0:10:3", [0, 3, 6, 10]),            # 9 is within half a step of 10: the last step lands on 10
    ("0:10:4", [0, 4, 8, 10]),            # 12 would overshoot by half a step: stop at 10
    ("10:0:-2.5", [10, 7.5, 5, 2.5, 0]),
    ("0:0.2:1", [0, 0.2]),                # STOP less than half a step away
    ("5:5:1", [5]),
    ("30", [30]),
])
def test_ranges_end_exactly_on_stop(text, expected):
    np.testing.assert_array_equal(parse_range(text), expected)


def test_long_range_has_every_step_and_stop_exactly():
    values = parse_range("0:1:0.001")
    assert len(values) == 1001 and values[-1] == 1.0
    np.testing.assert_allclose(np.diff(values), 0.001, rtol=1e-9, atol=0)


# ------------------------------------------------------------------------- check
def test_check_prints_the_mobility_report(model):
    """Through the installed entry point (the shipped models' check: tests/test_entry_points.py)."""
    done = run("check", model, cwd=model.parent)
    report, errors = done.stdout, done.stderr
    assert done.returncode == 0, errors
    assert errors == ""
    assert "crank-rocker" in report
    assert "Degrees of freedom: 1" in report


# ------------------------------------------------------------------------- sweep
@pytest.mark.xdist_group("cli-full-turn")
def test_sweep_in_mm_and_deg_matches_freudenstein(full_turn):
    speed = 30.0  # deg/s, FULL_TURN's
    proc, folder = full_turn
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal
    table, header = read_table(folder / "res.csv")
    assert header[:7] == ["A", "B", "C", "D", "P.x", "P.y", "P.z"]
    assert header[7:11] == ["A_dot", "B_dot", "C_dot", "D_dot"]
    assert "P.z_ddot" == header[-1]
    theta2_deg = table["A"]
    np.testing.assert_array_equal(theta2_deg, np.arange(0.0, 361.0, 5.0))  # written in deg

    theta2 = np.radians(theta2_deg)
    # The design pose picks the branch: the one whose rocker angle at theta2 = 0 is C's.
    theta4_design = math.atan2(C_Y, C_X - GROUND)
    theta3_design = math.atan2(C_Y, C_X - CRANK)
    branch = min((-1, 1), key=lambda s: abs(wrap(four_bar_angles(CRANK, COUPLER, ROCKER, GROUND, 0.0, s)[1]
                                                - theta4_design)))
    theta3, theta4 = four_bar_angles(CRANK, COUPLER, ROCKER, GROUND, theta2, branch)
    rocker = theta4 - theta4_design           # pair D: ground -> rocker
    coupler = theta3 - theta3_design          # absolute turn of the coupler
    # Angles come from a closure solved to 1e-10 (dimensionless); compare at 1e-9 rad, modulo 2 pi.
    for column, expected in (("D", rocker), ("B", coupler - theta2), ("C", rocker - coupler)):
        error = wrap(np.radians(table[column]) - expected)
        assert np.abs(error).max() < 1e-9, (column, np.abs(error).max())

    # Coupler point, mm: distance p from the crank pin and angle delta from the line B -> C.
    offset = np.array(POINT) - [CRANK, 0.0]
    p, delta = np.hypot(*offset), math.atan2(offset[1], offset[0]) - theta3_design
    omega2 = np.radians(speed)
    omega3, omega4 = four_bar_velocities(CRANK, COUPLER, ROCKER, theta2, theta3, theta4, omega2)
    position, velocity, _ = four_bar_coupler_point(CRANK, p, delta, theta2, theta3, omega2, omega3)
    np.testing.assert_allclose(np.column_stack([table["P.x"], table["P.y"]]), position, rtol=0, atol=1e-9 * 100)
    np.testing.assert_allclose(table["P.z"], 0.0, rtol=0, atol=1e-12)
    # Rates in file units per second: deg/s and mm/s.
    np.testing.assert_allclose(np.radians(table["D_dot"]), omega4, rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.column_stack([table["P.x_dot"], table["P.y_dot"]]), velocity,
                               rtol=0, atol=1e-9 * 100)
    np.testing.assert_array_equal(table["A_dot"], speed)


@pytest.mark.parametrize("units, drive, speed, values, rate", [
    ('length = "m"\nangle = "rad"', "A=0:1:0.25", "A=2", [0.0, 0.25, 0.5, 0.75, 1.0], 2.0),
    # the full turn's run (FULL_TURN), which the mm-and-deg test checks too
    ('length = "mm"\nangle = "deg"', "A=0:360:5", "A=30.0", np.radians(np.arange(0.0, 361.0, 5.0)), np.radians(30)),
])
@pytest.mark.xdist_group("cli-full-turn")
def test_sweep_writes_what_to_csv_writes(tmp_path, request, units, drive, speed, values, rate):
    """The command line and ``SweepResult.to_csv`` (default: the file's units) write the same bytes."""
    from mechanism import load_model

    if FULL_TURN[:4] == ("--drive", drive, "--speed", speed):
        proc, folder = request.getfixturevalue("full_turn")
        path, written = folder / "four_bar.toml", folder / "res.csv"
        assert crank_rocker_toml(units=units) == path.read_text()
        assert proc.returncode == 0, proc.stderr
    else:  # in this process (the installed command: the full turn's run)
        path, written = tmp_path / "model.toml", tmp_path / "cli.csv"
        path.write_text(crank_rocker_toml(units=units))
        assert main(["sweep", str(path), "--drive", drive, "--speed", speed, "--out", str(written)]) == 0
    result = load_model(path).sweep({"A": values}, speeds={"A": rate})
    result.to_csv(tmp_path / "api.csv")
    assert written.read_bytes() == (tmp_path / "api.csv").read_bytes()


def test_sweep_without_out_writes_csv_to_stdout(model, capsys):
    """In this process (the installed command's standard output: tests/test_cli_user.py)."""
    status = main(["sweep", str(model), "--drive", "A=0:20:10"])
    out, errors = capsys.readouterr()
    assert status == 0, errors
    lines = out.splitlines()
    assert lines[0].startswith("# units: length=mm angle=deg time=s; columns: A=deg; B=deg; C=deg; D=deg; P.x=mm; "
                               "P.y=mm; P.z=mm; A_dot=deg/s")
    assert lines[1].startswith("A,B,C,D,P.x,P.y,P.z,A_dot")
    assert len(lines) == 5 and lines[4].startswith("20.0,")


@pytest.mark.xdist_group("cli-linked")
def test_sweep_plot_is_a_real_png(plotted_through_links):
    from matplotlib import image

    proc, folder = plotted_through_links
    assert proc.returncode == 0, proc.stderr
    png = folder / "results" / "plot.png"  # through the link plot.png
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000
    pixels = image.imread(png)
    colours = np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)
    assert len(colours) > 10


@pytest.mark.xdist_group("cli-stopped-sweep")
def test_stopped_sweep_keeps_partial_csv_and_exits_1(stopped_sweep):
    # The rocker of a crank-rocker swings through less than 180 deg: driving it from the
    # design pose to 180 deg meets a dead point (crank and coupler in line) on the way.
    proc, folder = stopped_sweep
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    message = proc.stderr.strip()
    assert message.startswith("kinematrix: sweep stopped after ")
    assert "of 181 positions" in message and "last position reached: D = " in message
    table, header = read_table(folder / "part.csv")
    reached = len(table["D"])
    assert 1 < reached < 181
    assert f"stopped after {reached} of 181" in message
    np.testing.assert_array_equal(table["D"], np.arange(reached, dtype=float))  # deg, every one reached
    assert header[0] == "D"  # the driver comes first


# ------------------------------------------------------------------------ plot
@pytest.mark.xdist_group("cli-full-turn")
def test_plot_subcommand_draws_csv_columns(full_turn, tmp_path):
    copy_of_full_turn(full_turn, tmp_path)
    proc = run("plot", "res.csv", "--x", "A", "--y", "C,D", "--out", "curves.png", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "curves.png").stat().st_size > 10_000
    proc = run("plot", "res.csv", "--x", "A", "--y", "P.y", cwd=tmp_path)  # default: beside the CSV
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "res.png").exists() and proc.stdout.strip() == "res.png"


# -------------------------------------------------------------------- user errors
def test_bad_model_file_is_one_located_line(tmp_path):
    path = tmp_path / "four_bar.toml"
    path.write_text(crank_rocker_toml(axis_c="[0, 0, 0]"))
    for command in (["check", path], ["sweep", path, "--drive", "A=0:10:1"]):
        assert_user_error(run(*command, cwd=tmp_path),
                          "four_bar.toml: pairs[2] ('C'): axis: zero-length direction [0, 0, 0]")


def test_toml_syntax_error_exits_2(tmp_path):
    path = tmp_path / "four_bar.toml"
    path.write_text(crank_rocker_toml().replace("at = [0, 0, 0]", "at = [0, 0, 0"))
    proc = run("check", path, cwd=tmp_path)
    assert_user_error(proc)
    assert "four_bar.toml: line " in proc.stderr and "TOML syntax error" in proc.stderr


@pytest.mark.parametrize("args, expected", [
    (["sweep", "{model}", "--drive", "Z=0:10:1"],
     "--drive Z: not a pair variable or point driver of the model (known: A, B, C, D)"),
    (["sweep", "{model}", "--drive", "A=0:10"], "--drive A: '0:10' is neither a number nor START:STOP:STEP"),
    (["sweep", "{model}", "--drive", "A"], "--drive 'A': expected NAME=VALUE"),
    (["sweep", "{model}", "--drive", "A=0:10:0"], "--drive A: STEP 0 does not lead from 0 to 10"),
    (["sweep", "{model}", "--drive", "A=0:10:-1"], "--drive A: STEP -1 does not lead from 0 to 10"),
    (["sweep", "{model}", "--drive", "A=zero:10:1"], "--drive A: 'zero' is not a number"),
    (["sweep", "{model}", "--drive", "A=0:10:1", "--speed", "B=1"],
     "--speed B: not a driver of this sweep (drivers: A)"),
    (["sweep", "{model}", "--drive", "A=0:10:1", "--speed", "A=fast"], "--speed A: 'fast' is not a number"),
    (["sweep", "{model}", "--drive", "A=0:10:1", "--plot", "p.png", "--points", "P,Q"],
     "--points: unknown point 'Q' (known: P)"),
    (["sweep", "{model}", "--drive", "A=0:10:1", "--drive", "A=0:5:1"], "--drive A: given twice"),
    (["sweep", "{model}", "--drive", "A=0:10:1", "--drive", "D=0:5:1"], None),  # lengths differ
    (["sweep", "{model}"], "the following arguments are required: --drive (see 'kinematrix sweep --help')"),
    (["sweep", "absent.toml", "--drive", "A=0:10:1"], None),
    (["sweep", "{model}", "--drive", "A=0:10:1", "--out", "no/such/dir/res.csv"], None),
    (["frobnicate", "{model}"], None),
    ([], None),
    (["plot", "missing.csv", "--x", "A", "--y", "C"], None),
    (["simulate", "{model}", "--t-end", "-1"], None),
    (["simulate", "{model}", "--t-end", "1e300"],
     "t_end: 1e+300 s is longer than the 1e+06 s a simulation may last (its smallest step is 1e-14 t_end)"),
    (["simulate", "{model}", "--t-end", "1", "--samples", "100000000000"],
     "--samples: 100000000000 times would take 9.24e+04 GiB of samples, more than the 2 GiB a simulation may hold"),
])
def test_user_errors_exit_2_with_one_line(model, tmp_path, args, expected):
    args = [str(model) if a == "{model}" else a for a in args]
    proc = run(*args, cwd=tmp_path)
    assert_user_error(proc, expected)
    if "absent.toml" in args:
        assert "absent.toml: cannot read the model file" in proc.stderr


@pytest.mark.xdist_group("cli-full-turn")
def test_plot_of_an_unknown_column_exits_2(full_turn, tmp_path):
    copy_of_full_turn(full_turn, tmp_path)
    proc = run("plot", "res.csv", "--x", "A", "--y", "E", cwd=tmp_path)
    assert_user_error(proc)
    assert "res.csv: no column 'E' (columns: A, B, C, D, P.x" in proc.stderr


def test_simulate_writes_the_api_trajectory_in_file_units(tmp_path):
    """``simulate MODEL --t-end --q0 --qd0 --out`` runs the real dynamics: its CSV is the Python
    API's trajectory (mm, deg) at the same times, to the CSV's printed precision."""
    from dynamics import simulate
    from mechanism import load_model

    model = REPO / "examples" / "four_bar.toml"  # mm, deg, with masses

    proc = run("simulate", model, "--t-end", "0.5", "--q0", "A=10", "--qd0", "A=90", "--out", "sim.csv",
               "--plot", "sim.png", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    units, header, *rows = (tmp_path / "sim.csv").read_text().splitlines()
    assert units.startswith("# units: length=mm angle=deg time=s; columns: t=s; A=deg;")
    columns = header.split(",")
    table = np.array([[float(x) for x in row.split(",")] for row in rows])
    mechanism = load_model(model)
    sim = simulate(mechanism, t_end=0.5, q0={"A": np.radians(10)}, qd0={"A": np.radians(90)},
                   t_eval=table[:, 0])
    # Same integration in one process and the other: agreement to the CSV's repr (round-off).
    assert_allclose(table[:, columns.index("A")], np.degrees(sim.q("A")), rtol=1e-12, atol=1e-9)
    assert_allclose(table[:, columns.index("C_dot")], np.degrees(sim.q_dot("C")), rtol=1e-12, atol=1e-9)
    assert_allclose(table[:, columns.index("P.y")], sim.point("P")[:, 1] * 1e3, rtol=1e-12, atol=1e-9)
    assert (tmp_path / "sim.png").stat().st_size > 5000


def test_main_returns_the_status_in_process(model, tmp_path, capsys):
    assert main(["sweep", str(model), "--drive", "A=0:20:10", "--out", str(tmp_path / "r.csv")]) == 0
    capsys.readouterr()  # the note that, without --speed, the rate columns are zero
    assert main(["sweep", str(model), "--drive", "Z=0:20:10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--drive Z" in err


def test_simulate_passes_si_values_and_writes_file_units(model, tmp_path, monkeypatch, capsys):
    """The command converts --q0/--qd0 from the file's units to SI, and writes what the API's
    ``to_csv`` writes in the file's units (the same bytes)."""
    import dynamics

    calls = []
    real_simulate = dynamics.simulate

    def spy(mechanism, t_end, q0, qd0, **options):
        calls.append((t_end, q0, qd0, options))
        result = real_simulate(mechanism, t_end=t_end, q0=q0, qd0=qd0, **options)
        calls.append(result)
        return result

    massive = tmp_path / "massive.toml"
    massive.write_text(model.read_text().replace('name = "crank"', 'name = "crank"\nmass = 1.0\ncom = [20, 0, 0]'))
    monkeypatch.setattr(dynamics, "simulate", spy, raising=False)
    out = tmp_path / "sim.csv"
    status = main(["simulate", str(massive), "--t-end", "0.01", "--q0", "A=90", "--qd0", "A=180", "--samples", "3",
                   "--out", str(out), "--plot", str(tmp_path / "sim.png")])
    assert status == 0, capsys.readouterr().err
    (t_end, q0, qd0, options), result = calls
    assert t_end == 0.01 and list(options) == ["t_eval"]
    np.testing.assert_allclose([q0["A"], qd0["A"]], [np.pi / 2, np.pi], rtol=1e-15, atol=0)  # deg -> rad
    assert out.read_text() == result.to_csv(None, units=("mm", "deg"))
    table, header = read_table(out)
    assert header[:6] == ["t", "A", "B", "C", "D", "P.x"]
    assert table["A"][0] == 90.0 and table["A_dot"][0] == 180.0  # rad -> deg, shortest numbers
    np.testing.assert_allclose(table["P.x"], result.point("P")[:, 0] * 1e3, rtol=1e-15, atol=0)  # m -> mm
    assert (tmp_path / "sim.png").stat().st_size > 5_000


def test_simulate_rejects_unknown_coordinates(model, tmp_path, monkeypatch, capsys):
    import dynamics

    monkeypatch.setattr(dynamics, "simulate", lambda *a, **k: None, raising=False)
    assert main(["simulate", str(model), "--t-end", "1", "--q0", "Z=1"]) == 2
    assert "--q0 Z: not a pair variable or point driver" in capsys.readouterr().err
    assert main(["simulate", str(model), "--t-end", "0"]) == 2
    assert "--t-end: must be positive" in capsys.readouterr().err


# ------------------------------------------------------------------ files written
@pytest.mark.xdist_group("cli-linked")
def test_out_on_a_symbolic_link_writes_its_target(plotted_through_links):
    """link.csv -> results/res.csv (holding "previous") and plot.png -> results/plot.png (none yet)."""
    proc, folder = plotted_through_links
    target = folder / "results" / "res.csv"
    assert proc.returncode == 0, proc.stderr
    assert (folder / "link.csv").is_symlink() and (folder / "plot.png").is_symlink()
    assert target.read_text().startswith("# units: length=mm angle=deg time=s; columns: A=deg; B=deg; C=deg; D=deg")
    assert (folder / "results" / "plot.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in target.parent.iterdir()) == ["plot.png", "res.csv"]


@pytest.mark.parametrize("option", ["--out", "--plot", "--animate"])
def test_a_full_disk_is_one_line_and_leaves_no_file(model, tmp_path, monkeypatch, capsys, option):
    """ENOSPC while writing (simulated): exit 2, one line naming the file, nothing left behind."""
    import errno

    from mechanism import atomic

    def no_space(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic, "_write_all", no_space)
    name = {"--out": "res.csv", "--plot": "plot.png", "--animate": "sweep.gif"}[option]
    args = ["sweep", str(model), "--drive", "A=0:20:10", option, str(tmp_path / name)]
    if option != "--out":
        args += ["--out", os.devnull]
    assert main(args) == 2
    assert capsys.readouterr().err == f"kinematrix: error: cannot write {tmp_path / name}: No space left on device\n"
    assert not (tmp_path / name).exists() and [p.name for p in tmp_path.iterdir()] == ["four_bar.toml"]


@pytest.mark.parametrize("command", [["sweep", "--drive", "A=0:20:10"], ["simulate", "--t-end", "0.1"]])
def test_an_image_format_matplotlib_cannot_write_is_refused_before_the_run(model, tmp_path, command):
    proc = run(command[0], model, *command[1:], "--out", "res.csv", "--plot", "traj.xyz", cwd=tmp_path)
    assert_user_error(proc)
    assert "--plot traj.xyz: cannot write a 'xyz' image (formats: " in proc.stderr
    assert not (tmp_path / "res.csv").exists()


# ------------------------------------------------------------------ issue 12
INTERRUPT_SWEEP = """
import os, signal, sys
sys.path.insert(0, {repo!r})
import loops.continuation as continuation
from dynamics.cli import main
continuation.STEPS_PER_CALL = 10
real, calls = continuation.Walk.positions, []
def positions(self, *args):
    out = real(self, *args)
    calls.append(out)
    if len(calls) == 3:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of the walk
    return out
continuation.Walk.positions = positions
sys.exit(main({args!r}))
"""

INTERRUPT_SIMULATION = """
import os, signal, sys
sys.path.insert(0, {repo!r})
from dynamics.kernels import integrate
from dynamics.cli import main
real, calls = integrate.integrate, []
def stepping(*args):
    status = real(*args)
    calls.append(status)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGINT)
    return status
integrate.integrate = stepping
sys.exit(main({args!r}))
"""


def run_interrupted(script, args, cwd):
    env = dict(os.environ, MPLBACKEND="Agg")
    code = script.format(repo=str(REPO), args=[str(a) for a in args])
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_ctrl_c_on_a_sweep_writes_the_positions_reached_and_exits_130(model, tmp_path):
    proc = run_interrupted(INTERRUPT_SWEEP, ["sweep", model, "--drive", "A=0:3600:1", "--out", "part.csv",
                                            "--plot", "part.png"], tmp_path)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    table, header = read_table(tmp_path / "part.csv")
    reached = len(table["A"])
    assert 10 < reached < 3601
    np.testing.assert_array_equal(table["A"], np.arange(reached, dtype=float))  # deg, each one closed and written
    assert proc.stderr == (f"kinematrix: interrupted (Ctrl-C) after {reached} of 3601 positions; last position reached: "
                           f"A = {reached - 1} deg; {reached} positions written to part.csv\n"
                           "kinematrix: no --speed: the velocity and acceleration columns are zero\n")
    assert (tmp_path / "part.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["four_bar.toml", "part.csv", "part.png"]


def test_ctrl_c_on_a_simulation_writes_the_samples_reached_and_exits_130(tmp_path):
    model = REPO / "examples" / "four_bar.toml"
    proc = run_interrupted(INTERRUPT_SIMULATION, ["simulate", model, "--t-end", "100", "--q0", "A=0", "--out", "sim.csv"],
                           tmp_path)
    assert proc.returncode == 130, proc.stderr
    units, header, *rows = (tmp_path / "sim.csv").read_text().splitlines()
    assert units.startswith("# units: length=mm angle=deg time=s; columns: t=s; ") and header.startswith("t,")
    last = float(rows[-1].split(",")[0])
    assert 0 < last < 100 and len(rows) > 100
    assert re.fullmatch(rf"kinematrix: interrupted \(Ctrl-C\) at t = {last:.6g} s after \d+ steps; {len(rows)} samples "
                        r"written to sim.csv\n", proc.stderr), proc.stderr


def test_a_sweep_that_reaches_no_position_writes_nothing(model, tmp_path, capsys):
    """It used to write a CSV holding only a header, as if that were a result. In this process
    (a stopped sweep from the installed command: test_stopped_sweep_keeps_partial_csv_and_exits_1)."""
    (tmp_path / "old.csv").write_text("previous\n")
    status = main(["sweep", str(model), "--drive", "D=170:180:1", "--out", str(tmp_path / "old.csv")])
    errors = capsys.readouterr().err
    assert status == 1
    assert re.fullmatch(r"kinematrix: sweep stopped after 0 of 11 positions: dead point at D = -?[\d.]+ deg: .* so "
                        r"D = 170 deg cannot be reached on this branch; nothing written\n", errors), errors
    assert (tmp_path / "old.csv").read_text() == "previous\n"


@pytest.mark.xdist_group("cli-stopped-sweep")
def test_a_stopped_sweep_reports_in_the_file_units(stopped_sweep):
    """The file is in mm and deg: the dead point is reported in deg (it used to say rad)."""
    proc, _ = stopped_sweep
    assert proc.returncode == 1
    assert " rad" not in proc.stderr and re.search(r"dead point at D = [\d.]+ deg", proc.stderr), proc.stderr


@pytest.mark.parametrize("text", ["", "   \n", "# a comment\n", 'name = "x"\n'])
def test_an_empty_model_file_is_one_line(tmp_path, text, capsys):
    path = tmp_path / "empty.toml"
    path.write_text(text)
    expected = "kinematrix: error: empty.toml: pairs: the model has no pairs: a mechanism needs at least one [[pairs]] table\n"
    for args in (["check", path], ["sweep", path, "--drive", "A=0:10:1"], ["simulate", path, "--t-end", "1"]):
        assert main([str(a) for a in args]) == 2
        assert capsys.readouterr().err == expected
    if not text:  # and as a command: no traceback
        assert_user_error(run("check", path, cwd=tmp_path), expected[len("kinematrix: error: "):-1])


def test_a_deeply_nested_file_is_one_line(model, tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text(model.read_text().replace("at = [0, 0, 0]", "at = " + "[" * 3000 + "]" * 3000))
    proc = run("check", path, cwd=tmp_path)
    assert_user_error(proc)
    assert "deep.toml: line " in proc.stderr and "nested more than 16 deep" in proc.stderr


def test_version():
    proc = run("--version", cwd=REPO)
    assert proc.returncode == 0 and re.fullmatch(r"kinematrix \d+\.\d+\.\d+\n", proc.stdout), proc.stdout


def test_out_to_a_named_pipe_writes_into_it(model, tmp_path, capsys):
    """``--out /dev/null`` (or any file that is not a regular one) is written into, never replaced.
    In this process, a thread of it reading the pipe."""
    import threading

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    status = main(["sweep", str(model), "--drive", "A=0:20:10", "--out", str(fifo)])
    reader.join(timeout=60)
    assert status == 0, capsys.readouterr().err
    assert received and received[0].startswith("# units: length=mm angle=deg time=s; columns: A=deg; B=deg")
    assert fifo.is_fifo()


@pytest.mark.parametrize("text, expected", [("0:10:3", [0, 3, 6, 10]), ("0:10:4", [0, 4, 8, 10]),
                                            ("0:0.2:1", [0, 0.2]), ("0:10:4.1", [0, 4.1, 10])])
def test_the_readme_states_the_stop_rule_as_implemented(text, expected):
    """README.md's examples of START:STOP:STEP are what parse_range gives."""
    readme = (REPO / "README.md").read_text()
    shown = f"`{text}` gives {', '.join(f'{v:g}' for v in expected)}"
    if text != "0:10:4.1":
        assert shown in readme
    np.testing.assert_array_equal(parse_range(text), expected)


# ----------------------------------------------------------------- kinematrix suspension
EXAMPLES = REPO / "examples"


def metric_table(path):
    """(comment line, {column: values}) of a metric CSV: the units line (ending with the columns'
    units), then the header."""
    lines = Path(path).read_text().splitlines()
    assert "; columns: " in lines[0]
    rows = list(csv.reader(lines[1:]))
    data = np.array([[float(v) for v in row] for row in rows[1:]])
    return lines[0].partition("; columns: ")[0], {name: data[:, i] for i, name in enumerate(rows[0])}


def test_suspension_command_of_the_design_contract(tmp_path):
    """DESIGN.md's line, with two designs compared: one CSV each (file units, units stated,
    wheel_travel first, _left/_right for the axle) and one sheet."""
    from loops.suspension import load_suspension, parallel_travel

    proc = run("suspension", EXAMPLES / "front_axle.toml", EXAMPLES / "double_wishbone_steer.toml",
               "--analysis", "parallel", "--travel", "-80:80:5", "--out", "metrics.csv", "--plot", "sheet.png",
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    comment, table = metric_table(tmp_path / "metrics-front_axle.csv")
    # DESIGN.md: one comment line naming the units; the analysis and where travel is measured in the same line
    assert comment == ("# units: length=mm angle=deg time=s force=N; analysis: parallel travel of 'front-axle', "
                       "wheel travel at the wheel centre")
    names = list(table)
    assert names[:2] == ["wheel_travel", "camber_left"] and "camber_right" in names and "track" in names
    assert table["wheel_travel"].tolist() == list(np.arange(-80.0, 81.0, 5.0))
    api = parallel_travel(load_suspension(EXAMPLES / "front_axle.toml"), np.arange(-80, 81, 5) / 1000.0)
    assert_allclose(table["camber_left"], np.degrees(api.metric("camber_left")), rtol=1e-12, atol=1e-12)
    assert_allclose(table["bump_steer_left"], np.degrees(api.metric("bump_steer_left")) / 1000, rtol=1e-12)
    _, corner = metric_table(tmp_path / "metrics-double_wishbone_steer.csv")
    assert list(corner)[:2] == ["wheel_travel", "camber"] and "camber_left" not in corner
    png = (tmp_path / "sheet.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically


def test_suspension_to_standard_output_and_contact_patch_travel(tmp_path, capsys):
    assert main(["suspension", str(EXAMPLES / "double_wishbone.toml"), "--analysis", "parallel",
                 "--travel", "-20:20:20", "--travel-at", "contact-patch", "--out", str(tmp_path / "m.csv")]) == 0
    analysis, table = metric_table(tmp_path / "m.csv")
    assert analysis.endswith("wheel travel at the contact patch")
    assert table["wheel_travel"].tolist() == [-20.0, 0.0, 20.0] and "wheel_centre_travel" in table
    assert main(["suspension", str(EXAMPLES / "macpherson.toml"), "--analysis", "roll", "--roll", "-2:2:2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# units: length=mm") and "; columns: roll_angle=deg; camber_left=deg;" in out[0]
    assert out[1].startswith("roll_angle,camber_left,")
    assert len(out) == 5


@pytest.mark.parametrize("args, expected", [
    (["--analysis", "parallel"], "--travel: required by --analysis parallel"),
    (["--analysis", "steering"], "--analysis steering: give --rack or --steering-wheel"),
    (["--analysis", "banana"], None),
    ([], "--analysis: required (parallel, opposite, roll, steering, combined, pitch, loads, compliance or kc)"),
    (["--analysis", "parallel", "--travel", "0", "--save", "x.toml"], "--save: only with --apply-hardpoints"),
    (["--analysis", "steering", "--rack", "-10:10:10", "--travel", "-10:10:10"],
     "--travel: a steering analysis takes one wheel travel (use --analysis combined for several)"),
])
def test_suspension_user_errors_exit_2(tmp_path, capsys, args, expected):
    assert main(["suspension", str(EXAMPLES / "front_axle.toml"), *args]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("kinematrix: error: ")
    if expected is not None:
        assert err[0] == f"kinematrix: error: {expected}"


def test_suspension_input_mistake_is_one_located_line(tmp_path, capsys):
    """The issue's case: a wheel radius in metres in a mm file."""
    path = tmp_path / "front.toml"
    path.write_text((EXAMPLES / "front_axle.toml").read_text().replace("wheel_radius = 300", "wheel_radius = 0.3"))
    assert main(["suspension", str(path), "--analysis", "parallel", "--travel", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("kinematrix: error: front.toml: corner.wheel_radius: wheel_radius ")


def test_suspension_stopped_analysis_keeps_its_positions_and_exits_1(tmp_path, capsys):
    out = tmp_path / "m.csv"
    assert main(["suspension", str(EXAMPLES / "front_axle.toml"), "--analysis", "parallel", "--travel", "0:600:100",
                 "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "front_axle.toml: analysis stopped after" in err
    _, table = metric_table(out)
    assert 0 < len(table["wheel_travel"]) < 7


def test_suspension_hardpoints_out_and_back_in(tmp_path):
    table, moved = tmp_path / "hp.csv", tmp_path / "moved.toml"
    assert main(["suspension", str(EXAMPLES / "front_axle.toml"), "--export-hardpoints", str(table)]) == 0
    table.write_text(table.read_text().replace("lower_ball,0,720,100", "lower_ball,0,725,100"))
    assert main(["suspension", str(EXAMPLES / "front_axle.toml"), "--apply-hardpoints", str(table), "--save",
                 str(moved), "--analysis", "parallel", "--travel", "0", "--out", str(tmp_path / "m.csv")]) == 0
    assert "at = [0, 725, 100]" in moved.read_text()
    _, metrics = metric_table(tmp_path / "m.csv")
    # the lower ball 5 mm outboard: kingpin inclination atan((725 - 680) / 340) by hand
    assert metrics["kingpin_inclination_left"][0] == pytest.approx(np.degrees(np.arctan2(45, 340)), abs=1e-10)


@pytest.mark.parametrize("args, expected", [
    (["{dw}", "{dw}", "--analysis", "parallel", "--travel", "0"],
     "several designs: name --out (one CSV each) or --plot (one sheet)"),
    (["{dw}", "--apply-hardpoints", "hp.csv"], "--apply-hardpoints: give one model file and --save NEW.toml"),
    (["{dw}", "{dw}", "--export-hardpoints", "hp.csv"], "--export-hardpoints: give one model file"),
])
def test_suspension_option_mistakes_exit_2(tmp_path, capsys, args, expected):
    args = [str(EXAMPLES / "double_wishbone.toml") if a == "{dw}" else a for a in args]
    assert main(["suspension", *args]) == 2
    assert capsys.readouterr().err.splitlines() == [f"kinematrix: error: {expected}"]


def test_plot_reads_a_metric_csv(tmp_path, capsys):
    """``kinematrix plot`` draws columns of the suspension command's CSV (its comment lines
    are skipped)."""
    out = tmp_path / "m.csv"
    assert main(["suspension", str(EXAMPLES / "double_wishbone.toml"), "--analysis", "parallel", "--travel",
                 "-40:40:20", "--out", str(out)]) == 0
    assert main(["plot", str(out), "--x", "wheel_travel", "--y", "camber,toe", "--out", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 5000


# ------------------------------------------------------------------ the dispatcher
def test_every_subcommand_module_has_the_small_interface():
    """``dynamics.cli.COMMANDS``: one module per subcommand, each with NAME, HELP (one line),
    add_arguments and run; the parser lists them in that order."""
    from dynamics.cli import COMMANDS, build_parser

    names = [command.NAME for command in COMMANDS]
    assert names == ["check", "view", "sweep", "simulate", "plot", "suspension", "study"]
    for command in COMMANDS:
        assert isinstance(command.HELP, str) and "\n" not in command.HELP
        assert callable(command.add_arguments) and callable(command.run)
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(subparsers.choices) == names


def test_the_command_line_names_the_analyses_of_the_registry():
    from loops.suspension.analyses import ANALYSES
    from loops.suspension.cli import ANALYSIS_CHOICES

    assert ANALYSIS_CHOICES == tuple(ANALYSES)


def test_help_imports_neither_numpy_nor_the_engine():
    """``kinematrix --help`` builds the parser of every subcommand without numpy, matplotlib or
    the engine (the packages import their names on first use)."""
    code = ("import sys; from dynamics.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('numpy', 'matplotlib', 'scipy', 'loops.sweep', 'loops.suspension.standard', "
            "'loops.suspension.model') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "[]\n"


def test_a_simulation_with_a_compiled_integrator_does_not_import_scipy_integrate(tmp_path):
    """``kinematrix simulate`` (DOP853) reads its coefficients without ``scipy.integrate`` (0.4 s of
    processor time of imports); only scipy's own steppers import it."""
    out = str(tmp_path / "s.csv")
    code = ("import sys; from dynamics.cli import main\n"
            f"status = main(['simulate', 'examples/four_bar.toml', '--t-end', '0.2', '--out', {out!r}])\n"
            "print(status, 'scipy.integrate' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "0 False"


ZERO_AXIS = """\
name = "bad"
[[links]]
name = "crank"
[[pairs]]
name = "A"
type = "revolute"
links = ["ground", "crank"]
at = [0, 0, 0]
axis = [0, 0, 0]
"""
#: Per command, arguments around a bad model file (a zero axis), after --help and an unknown option.
BAD_MODEL_ARGUMENTS = {"check": [], "view": [], "sweep": ["--drive", "A=0:10:5"], "simulate": ["--t-end", "1"],
                       "suspension": ["--analysis", "parallel", "--travel", "-10:10:10"],
                       "study": ["--vary", "vary.toml", "--analysis", "parallel", "--travel", "-10:10:10"]}


@pytest.mark.parametrize("command", [None, "check", "view", "sweep", "simulate", "plot", "suspension", "study"])
def test_help_version_and_user_errors_import_no_heavy_package(tmp_path, command):
    """``--help``, ``--version``, an unknown option and a bad model file (each command, run as
    the process's own command) end before numba, scipy, networkx or matplotlib load: a user's
    mistake costs the start of the command line, not the engine's (0.14 s against 0.4 s)."""
    (tmp_path / "bad.toml").write_text(ZERO_AXIS)
    if command is None:
        runs = [["--help"], ["--version"], ["--bogus"]]
    else:
        runs = [[command, "--help"], [command, "bad.toml", "--bogus"]]
        if command in BAD_MODEL_ARGUMENTS:
            runs.append([command, "bad.toml", *BAD_MODEL_ARGUMENTS[command]])
    code = ("import sys\nfrom dynamics.cli import main\n"
            f"for argv in {runs!r}:\n"
            "    sys.argv = ['kinematrix', *argv]\n"
            "    try:\n"
            "        status = main()\n"
            "    except SystemExit as exit:\n"
            "        status = exit.code\n"
            "    print('imported:', status, sorted(m for m in ('numba', 'scipy', 'networkx', 'matplotlib') "
            "if m in sys.modules))")
    env = dict(os.environ, KINEMATRIX_KERNELS="compiled")  # the choice of kernels: tests/test_first_run.py
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    statuses = [0] * (1 + (command is None)) + [2] * (len(runs) - 1 - (command is None))
    said = [line for line in proc.stdout.splitlines() if line.startswith("imported: ")]
    assert said == [f"imported: {status} []" for status in statuses], proc.stderr


def test_the_parser_reads_the_version_only_for_version():
    """Building the parser (every command) reads no package metadata: ``--version`` reads it when given."""
    code = "import sys; from dynamics.cli import build_parser; build_parser(); print('importlib.metadata' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "False\n"


@pytest.mark.parametrize("given, expected", [(None, "1 1"), ("2", "2 1")])
def test_the_commands_run_on_one_blas_thread_unless_told(given, expected):
    """The command line sets one BLAS thread before numpy loads (small matrices: threads only
    contend); a number the user set is kept."""
    code = ("import os; from dynamics.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['MKL_NUM_THREADS'])")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == expected


def test_only_the_processs_own_command_freezes_its_objects_for_the_exit(tmp_path):
    """Run as the process's own command (``argv`` None), the command line moves its objects out
    of the cycle collector's reach as it ends, so that the interpreter's exit does not walk them;
    called from Python with ``argv`` it leaves the caller's collector alone."""
    code = ("import gc, sys; from dynamics.cli import main\n"
            "called = main(['check', 'missing.toml']); after_call = gc.get_freeze_count()\n"
            "sys.argv = ['kinematrix', 'check', 'missing.toml']; own = main()\n"
            "print(called, after_call, own, gc.get_freeze_count() > 0)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "2 0 2 True\n", proc.stdout


def test_python_m_dynamics_is_the_command_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "dynamics", "--version"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and re.fullmatch(r"kinematrix \d+\.\d+\.\d+\n", proc.stdout), proc.stdout


def test_python_m_mechanism_says_where_the_command_line_is(tmp_path):
    """The model layer imports nothing above it: ``python -m mechanism`` only points the way."""
    proc = subprocess.run([sys.executable, "-m", "mechanism", "check", "x.toml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "kinematrix: run the command line as `kinematrix ...` or `python -m dynamics ...`\n"
