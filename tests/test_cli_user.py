"""The command line as a user meets it (issue 24): the installed ``kinematrix`` command in a
subprocess, on files in tmp_path, checked by its exit status, its stderr and the files on
disk. No output may replace an input or another output; a stop or Ctrl-C keeps what was
reached; every mistake is one line and exit status 2; units are the file's, everywhere;
nothing is held or zeroed without a word."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    from tests.command_line import kinematrix_program, run_kinematrix
except ImportError:  # tests/ itself on sys.path
    from command_line import kinematrix_program, run_kinematrix

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def one_line_error(proc, *fragments):
    """Exit 2, one line on stderr starting ``kinematrix: error:``, no traceback, holding ``fragments``."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kinematrix: error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture
def work(tmp_path):
    """A folder holding copies of the shipped files the tests use."""
    for name in ("double_wishbone.toml", "double_wishbone_vary.toml", "front_axle.toml", "four_bar.toml",
                 "double_wishbone_steer.toml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


def snapshot(folder):
    """{name: bytes} of the files in ``folder`` (what a refused command must leave as it was)."""
    return {p.name: p.read_bytes() for p in sorted(Path(folder).iterdir()) if p.is_file()}


# ------------------------------------------------------------------ 1. no lost data
@pytest.mark.parametrize("args, fragments", [
    (["sweep", "four_bar.toml", "--drive", "A=0:10:5", "--out", "four_bar.toml"], ["--out four_bar.toml", "MODEL"]),
    (["sweep", "four_bar.toml", "--drive", "A=0:10:5", "--out", "a.png", "--plot", "a.png"], ["--plot a.png", "--out"]),
    (["simulate", "four_bar.toml", "--t-end", "0.01", "--out", "link.toml"], ["--out link.toml", "MODEL"]),
    (["suspension", "double_wishbone.toml", "--analysis", "parallel", "--travel", "0", "--out",
      "double_wishbone.toml"], ["--out double_wishbone.toml", "MODEL"]),
    (["suspension", "double_wishbone.toml", "--analysis", "parallel", "--travel", "0", "--out", "m.csv",
      "--plot", "m.csv"], ["--plot m.csv", "--out"]),
    (["suspension", "double_wishbone.toml", "--export-hardpoints", "hp.csv", "--apply-hardpoints", "hp.csv",
      "--save", "moved.toml"], ["--export-hardpoints hp.csv", "--apply-hardpoints"]),
    (["suspension", "double_wishbone.toml", "--apply-hardpoints", "hp.csv", "--save", "double_wishbone.toml"],
     ["--save double_wishbone.toml", "MODEL"]),
    (["suspension", "double_wishbone.toml", "front_axle.toml", "--analysis", "parallel", "--travel", "0",
      "--out", "m.csv", "--plot", "m-front_axle.csv"], ["--plot m-front_axle.csv", "--out"]),
    (["study", "double_wishbone.toml", "--vary", "double_wishbone_vary.toml", "--travel", "0", "--out",
      "double_wishbone_vary.toml"], ["--out double_wishbone_vary.toml", "--vary"]),
    (["study", "double_wishbone.toml", "--vary", "double_wishbone_vary.toml", "--travel", "0", "--out", "s.csv",
      "--summary", "s.csv"], ["--summary s.csv", "--out"]),
    (["plot", "res.csv", "--x", "A", "--y", "B", "--out", "picture.png"], ["--out picture.png", "FILE.csv res.csv"]),
])
def test_an_output_onto_an_input_or_another_output_is_refused(work, args, fragments):
    (work / "hp.csv").write_text("# units: length=mm\nname,x,y,z\n")
    (work / "res.csv").write_text("# units: length=mm angle=deg time=s\nA,B\n0,1\n1,2\n")
    (work / "link.toml").symlink_to(work / "four_bar.toml")  # the same file by another name
    (work / "picture.png").symlink_to(work / "res.csv")
    before = snapshot(work)
    one_line_error(run_kinematrix(*args, cwd=work), *fragments)
    assert snapshot(work) == before


def test_a_loop_of_symbolic_links_as_output_is_refused(work):
    (work / "a.csv").symlink_to(work / "b.csv")
    (work / "b.csv").symlink_to(work / "a.csv")
    one_line_error(run_kinematrix("sweep", "four_bar.toml", "--drive", "A=0:10:5", "--out", "a.csv", cwd=work),
                   "--out a.csv: a loop of symbolic links")
    assert (work / "a.csv").is_symlink() and (work / "b.csv").is_symlink()


def test_plot_never_replaces_an_image_it_was_not_told_to(work):
    """``plot four_bar.csv`` without --out draws four_bar.png beside it, unless that exists."""
    assert run_kinematrix("sweep", "four_bar.toml", "--drive", "A=0:20:10", "--speed", "A=1", "--out",
                          "four_bar.csv", "--plot", "four_bar.png", cwd=work).returncode == 0
    drawn = (work / "four_bar.png").read_bytes()
    one_line_error(run_kinematrix("plot", "four_bar.csv", "--x", "A", "--y", "C", cwd=work),
                   "four_bar.png exists", "--out")
    assert (work / "four_bar.png").read_bytes() == drawn
    proc = run_kinematrix("plot", "four_bar.csv", "--x", "A", "--y", "C", "--out", "four_bar.png", cwd=work)
    assert proc.returncode == 0, proc.stderr  # named: replaced
    assert (work / "four_bar.png").read_bytes() != drawn


def test_designs_whose_files_share_a_name_write_one_csv_each(work):
    for folder in ("a", "b"):
        (work / folder).mkdir()
        shutil.copy(EXAMPLES / "double_wishbone.toml", work / folder / "double_wishbone.toml")
    text = (work / "b" / "double_wishbone.toml").read_text().replace("wheel_radius = 300", "wheel_radius = 310")
    (work / "b" / "double_wishbone.toml").write_text(text)
    proc = run_kinematrix("suspension", "a/double_wishbone.toml", "b/double_wishbone.toml", "--analysis", "parallel",
                          "--travel", "-10:10:10", "--out", "m.csv", cwd=work)
    assert proc.returncode == 0, proc.stderr
    first, second = (work / "m-a-double_wishbone.csv").read_text(), (work / "m-b-double_wishbone.csv").read_text()
    assert first != second  # each design its own numbers (the wheel radius moves the contact patch)
    assert not (work / "m-double_wishbone.csv").exists()


def test_the_same_design_twice_is_refused_before_anything_is_written(work):
    before = snapshot(work)
    one_line_error(run_kinematrix("suspension", "double_wishbone.toml", "./double_wishbone.toml", "--analysis",
                                  "parallel", "--travel", "0", "--out", "m.csv", cwd=work),
                   "MODEL ./double_wishbone.toml", "given twice")
    assert snapshot(work) == before


def test_a_stop_after_no_position_keeps_the_earlier_result(work):
    (work / "roll.csv").write_text("an earlier result\n")
    proc = run_kinematrix("suspension", "front_axle.toml", "--analysis", "roll", "--roll", "-90:90:1", "--out",
                          "roll.csv", cwd=work)
    assert proc.returncode == 1, proc.stderr
    assert "analysis stopped after 0 positions" in proc.stderr and proc.stderr.rstrip().endswith("nothing written")
    assert (work / "roll.csv").read_text() == "an earlier result\n"


# ------------------------------------------------------------------ 2. Ctrl-C in suspension
INTERRUPT = """
import os, signal, sys
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


def test_ctrl_c_in_suspension_keeps_the_positions_reached_and_exits_130(work):
    """SIGINT arrives in the middle of a long sweep: the metrics of the positions reached are
    written (atomically), stderr says how many, the status is 130."""
    args = ["suspension", "double_wishbone.toml", "--analysis", "parallel", "--travel", "-80:80:0.1", "--out",
            "part.csv"]
    proc = subprocess.run([sys.executable, "-c", INTERRUPT.format(args=args)], cwd=work, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, MPLBACKEND="Agg"))
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = (work / "part.csv").read_text().splitlines()
    rows = [line for line in lines if not line.startswith("#")][1:]
    assert 10 < len(rows) < 1601
    assert [float(r.split(",")[0]) for r in rows[:3]] == [-80.0, -79.9, -79.8]
    assert re.fullmatch(rf"kinematrix: double_wishbone.toml: interrupted \(Ctrl-C\) after {len(rows)} of 1601 "
                        rf"positions, at travel = -?[\d.]+ mm; {len(rows)} positions written to part.csv",
                        proc.stderr.splitlines()[-1]), proc.stderr
    assert not list(work.glob(".*.tmp"))


# ------------------------------------------------------------------ 3. one line, exit 2
@pytest.mark.parametrize("option, target, fragment", [
    ("--save", "no/such/folder/moved.toml", "--save no/such/folder/moved.toml: no directory"),
    ("--export-hardpoints", "no/such/folder/hp.csv", "--export-hardpoints no/such/folder/hp.csv: no directory"),
    ("--save", "/dev/full", "cannot write /dev/full: No space left on device"),
    ("--export-hardpoints", "/dev/full", "cannot write /dev/full: No space left on device"),
])
def test_hardpoint_files_that_cannot_be_written_are_one_line(work, option, target, fragment):
    (work / "hp.csv").write_text("# units: length=mm\nname,x,y,z\nlower_ball,0,725,100\n")
    args = ["suspension", "double_wishbone.toml", option, target]
    if option == "--save":
        args += ["--apply-hardpoints", "hp.csv"]
    one_line_error(run_kinematrix(*args, cwd=work), fragment)


def test_a_csv_to_a_full_or_closed_standard_output_is_one_line(work):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([kinematrix_program(), "sweep", "four_bar.toml", "--drive", "A=0:20:10"], cwd=work,
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    one_line_error(proc, "cannot write to standard output: No space left on device")
    proc = subprocess.run(f"'{kinematrix_program()}' suspension double_wishbone.toml --analysis parallel "
                          "--travel 0 >&-", shell=True, cwd=work, stderr=subprocess.PIPE, text=True, timeout=300)
    one_line_error(proc, "standard output is closed")


@pytest.mark.parametrize("command", [
    ["suspension", "double_wishbone.toml", "--analysis", "parallel", "--travel", "{range}"],
    ["study", "double_wishbone.toml", "--vary", "double_wishbone_vary.toml", "--travel", "{range}"],
    ["sweep", "double_wishbone.toml", "--drive", "travel={range}"],
])
@pytest.mark.parametrize("text, fragment", [
    ("0:1:1e-320", "gives too many positions"),
    ("-1e308:1e308:1e307", "STOP - START is beyond the largest floating-point number"),
    ("-inf:inf:1", "'-inf' is not a finite number"),
])
def test_ranges_beyond_floating_point_are_one_line(work, command, text, fragment):
    args = [a.replace("{range}", text) for a in command]
    one_line_error(run_kinematrix(*args, cwd=work), fragment)


# A garbage --scheduler, one line at once: tests/test_study_cluster.py runs that command for both.


@pytest.mark.parametrize("extra, fragment", [
    (["--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", "0"], "--scheduler-timeout: expected seconds"),
    (["--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", "soon"], "--scheduler-timeout: 'soon' is not a"),
    (["--scheduler-timeout", "3"], "--scheduler-timeout: the wait for a --scheduler"),
    (["--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", "0.5"],
     "scheduler: cannot reach the Dask scheduler at 'tcp://127.0.0.1:1'"),
])
def test_the_scheduler_timeout_option_is_checked_and_used(work, extra, fragment):
    """``--scheduler-timeout SECONDS``: checked before any work; the wait it sets is the one
    the message reports (nothing answers on port 1, so the wait is the timeout: half a second)."""
    proc = run_kinematrix("study", "double_wishbone.toml", "--vary", "double_wishbone_vary.toml", "--travel",
                          "0", "--out", "s.csv", *extra, cwd=work, timeout=60)
    if extra[-1] == "0.5":  # a line saying where it connects and how long it waits, then the error
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        waiting, error = proc.stderr.splitlines()
        assert "waiting at most 0.5 s" in waiting and fragment in error and "after 0.5 s" in error, proc.stderr
    else:
        one_line_error(proc, fragment)
    assert not (work / "s.csv").exists()


def test_a_latin_1_hardpoint_table_is_read(work):
    """As spreadsheet programs write it: a degree sign in a comment, Latin-1 bytes."""
    table = "# units: length=mm\n# lower ball moved 5 mm outboard, 20 \xb0C\nname,x,y,z\nlower_ball,0,725,100\n"
    (work / "hp.csv").write_bytes(table.encode("latin-1"))
    proc = run_kinematrix("suspension", "double_wishbone.toml", "--apply-hardpoints", "hp.csv", "--save",
                          "moved.toml", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert "at = [0, 725, 100]" in (work / "moved.toml").read_text()


def test_plot_reads_a_byte_order_mark_and_refuses_a_table_without_rows(work):
    (work / "bom.csv").write_bytes("# units: length=mm angle=deg time=s\nA,C\n0,1\n1,2\n".encode("utf-8-sig"))
    proc = run_kinematrix("plot", "bom.csv", "--x", "A", "--y", "C", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert (work / "bom.png").read_bytes()[:4] == b"\x89PNG"
    (work / "empty.csv").write_text("# units: length=mm angle=deg time=s\nA,C\n")
    one_line_error(run_kinematrix("plot", "empty.csv", "--x", "A", "--y", "C", cwd=work),
                   "empty.csv: no rows of values below the header")
    assert not (work / "empty.png").exists()


def test_a_negative_track_is_reported_in_the_file_unit(work):
    path = work / "front_axle.toml"
    text = path.read_text()
    assert "track = 1560" in text
    path.write_text(text.replace("track = 1560", "track = -1560"))
    one_line_error(run_kinematrix("suspension", "front_axle.toml", "--analysis", "parallel", "--travel", "0",
                                  cwd=work), "vehicle.track", "got -1560 mm")


def test_an_initial_rate_without_its_coordinate_says_what_to_give(work):
    one_line_error(run_kinematrix("simulate", "four_bar.toml", "--t-end", "0.01", "--qd0", "A=1", cwd=work),
                   "--qd0 A: give its initial value too (--q0 A=VALUE)")


# ------------------------------------------------------------------ 4. options that do not apply
@pytest.mark.parametrize("args, message", [
    (["--analysis", "parallel", "--travel", "0", "--rack", "-10:10:10"],
     "--rack: only with --analysis steering or combined, not parallel"),
    (["--analysis", "opposite", "--travel", "0", "--steering-wheel", "-90:90:90"],
     "--steering-wheel: only with --analysis steering or combined, not opposite"),
    (["--analysis", "parallel", "--travel", "0", "--roll", "-1:1:1"], "--roll: only with --analysis roll, not parallel"),
    (["--analysis", "roll", "--roll", "-1:1:1", "--travel", "0"],
     "--travel: not with --analysis roll (the wheel travels follow the roll angle, --roll)"),
])
def test_options_that_do_not_apply_to_the_analysis_are_refused(work, args, message):
    line = one_line_error(run_kinematrix("suspension", "front_axle.toml", *args, cwd=work))
    assert line == f"kinematrix: error: {message}"


# ------------------------------------------------------------------ 5. units
def test_designs_in_different_units_are_not_compared_on_one_range(work):
    metres = (work / "double_wishbone.toml").read_text().replace('length = "mm"', 'length = "m"')
    assert 'length = "m"' in metres
    (work / "metres.toml").write_text(metres)  # not a sensible corner: refused before it is read as one
    before = snapshot(work)
    one_line_error(run_kinematrix("suspension", "double_wishbone.toml", "metres.toml", "--analysis", "parallel",
                                  "--travel", "-80:80:80", "--out", "m.csv", cwd=work),
                   "MODEL metres.toml: lengths in m", "double_wishbone.toml in mm")
    assert snapshot(work) == before


@pytest.fixture(scope="module")
def stopped_axle(tmp_path_factory):
    """An axle file in mm swept past its dead point: (CompletedProcess, folder); its tests share an
    ``xdist_group``, so that one worker runs it."""
    folder = tmp_path_factory.mktemp("axle")
    shutil.copy(EXAMPLES / "front_axle.toml", folder)
    proc = run_kinematrix("suspension", "front_axle.toml", "--analysis", "parallel", "--travel", "0:600:100",
                          "--out", "m.csv", cwd=folder)
    return proc, folder


@pytest.mark.xdist_group("cli-user-stopped-axle")
def test_a_stop_is_reported_in_the_file_units(stopped_axle):
    proc, _ = stopped_axle
    assert proc.returncode == 1, proc.stderr
    stop = next(line for line in proc.stderr.splitlines() if "analysis stopped" in line)
    assert re.search(r"dead point at travel_left = 343\.\d+ mm, travel_right = 343\.\d+ mm", stop), stop
    assert " m," not in stop and " m:" not in stop


@pytest.mark.xdist_group("cli-user-stopped-axle")
def test_the_csv_names_every_column_unit_and_pandas_reads_it(stopped_axle):
    pandas = pytest.importorskip("pandas")
    _, folder = stopped_axle
    first, header = (folder / "m.csv").read_text().splitlines()[:2]
    base, _, columns = first.partition("; columns: ")
    assert base == ("# units: length=mm angle=deg time=s force=N; analysis: parallel travel of 'front-axle', "
                    "wheel travel at the wheel centre")
    units = dict(item.split("=", 1) for item in columns.split("; "))
    assert list(units) == header.split(",")
    assert units["wheel_travel"] == "mm" and units["camber_left"] == "deg"
    assert units["camber_gain_left"] == "deg/mm" and units["bump_steer_left"] == "deg/mm"
    assert units["anti_dive_left"] == "%" and units["wheel_rate_left"] == "N/mm"
    table = pandas.read_csv(folder / "m.csv", comment="#")
    assert list(table.columns) == header.split(",") and len(table) == 4


@pytest.mark.xdist_group("cli-user-stopped-axle")
def test_plot_labels_its_axes_with_the_units_of_the_csv(stopped_axle):
    """The SVG keeps its text (``svg.fonttype: none`` in a matplotlibrc beside it)."""
    _, folder = stopped_axle
    (folder / "matplotlibrc").write_text("svg.fonttype: none\n")
    proc = run_kinematrix("plot", "m.csv", "--x", "wheel_travel", "--y", "camber_left,toe_left", "--out",
                          "c.svg", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    svg = (folder / "c.svg").read_text()
    assert "wheel_travel [mm]" in svg and "camber_left [deg], toe_left [deg]" in svg


# ------------------------------------------------------------------ 6. nothing silent
def test_sweep_names_what_it_holds_and_says_when_rates_are_zero(work):
    proc = run_kinematrix("sweep", "double_wishbone_steer.toml", "--drive", "travel=0:10:5", "--out", "s.csv",
                          cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "kinematrix: holding hub, rack_travel (no driver fixes their freedoms)",
        "kinematrix: no --speed: the velocity and acceleration columns are zero"]
    proc = run_kinematrix("sweep", "double_wishbone_steer.toml", "--drive", "travel=0:10:5", "--speed",
                          "travel=100", "--out", "s.csv", cwd=work)
    assert proc.stderr.splitlines() == ["kinematrix: holding hub, rack_travel (no driver fixes their freedoms)"]


def test_suspension_and_study_name_what_they_hold(work):
    proc = run_kinematrix("suspension", "double_wishbone.toml", "--analysis", "parallel", "--travel", "-10:10:10",
                          "--out", "m.csv", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "kinematrix: double_wishbone.toml: holding hub (no driver fixes its freedom)\n"
    (work / "vary.toml").write_text('design = "factorial"\nlevels = 2\n[[vary]]\nhardpoint = "lower_ball.z"\n'
                                    'range = [-0.5, 0.5]\n')
    proc = run_kinematrix("study", "double_wishbone.toml", "--vary", "vary.toml", "--travel", "-10:10:10", "--out",
                          "s.csv", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "kinematrix: double_wishbone.toml: holding hub (no driver fixes its freedom)\n"
