"""Every example script and every subcommand on every shipped example.

The other tests reach the scripts through their functions (``examples/x.py``'s ``main()``
imported, ``python -m mechanism``); a user types ``python examples/x.py``. Here each script runs in
a process of its own, ``python examples/x.py``, with ``MPLBACKEND=Agg``, from a temporary copy of
the examples folder (its current folder), where it writes its picture by default (and its
animation, for a script that has ``--gif``, asked for). This is each script's one drawing:
tests/test_examples.py checks the numbers of its ``analyse()`` in the test's process. A script the
README runs as a command (its block runs in tests/test_readme_as_written.py) is not run again here.

For each shipped model file: ``check``, ``sweep`` (a short range of its first driver, with a
speed), ``plot`` of that sweep's CSV and ``simulate`` (a hundredth of a second); for each
corner or axle file also ``suspension`` and ``study`` (a few variants), unless the README's
block runs that subcommand on that file (:data:`BY_README`); each exit status is
checked, and each file written (a CSV with its units line, header and rows; a PNG that is a
picture). Ranges are short (a few positions) to keep the suite's time: the point is that
each command on each file runs end to end; the numbers are checked by the other tests. These
run through :func:`dynamics.cli.main` (what the entry point calls) in the test's process, in a
temporary current folder: what a file changes is the command's work, not the process around it.
The installed ``kinematrix`` entry point runs every subcommand in processes of its own in
tests/test_readme_as_written.py (the README's blocks), tests/test_cli.py and
tests/test_cli_user.py (exit statuses, one-line errors, Ctrl-C, streams).
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from dynamics.cli import main
from installed import ROOT, user_environment

EXAMPLES = ROOT / "examples"
PNG = b"\x89PNG\r\n\x1a\n"

#: Per shipped model: the sweep's driver and range (file units: mm, deg; m, rad for the two
#: SI files), a column to plot against it, and whether the model can move under its own
#: inertia (a massless linkage cannot be simulated: see test_every_model_file_runs_every_subcommand).
MODELS = {
    "bennett.toml": ("J1=0:60:30", "J3", False),
    "double_wishbone.toml": ("travel=-20:20:20", "wheel_centre.y", True),
    "double_wishbone_steer.toml": ("travel=-20:20:20", "wheel_centre.y", True),
    "five_link_rear.toml": ("travel=-20:20:20", "wheel_centre.y", True),
    "four_bar.toml": ("A=0:60:30", "C", True),
    "front_axle.toml": ("travel=-20:20:20", "wheel_centre.y", True),
    "front_axle_bushings.toml": ("travel=-20:20:20", "wheel_centre.y", True),
    "governor.toml": ("spin=0:60:30", "arm1", True),
    "hooke_joint.toml": ("input=0:60:30", "output", False),
    "landing_gear.toml": ("actuator=0:-200:-100", "trunnion", True),
    "macpherson.toml": ("travel=-20:20:20", "wheel_centre.y", True),
    "mower_wobble_drive.toml": ("input=0:60:30", "knife_guide", True),
    "rssr.toml": ("crank_angle=0:60:30", "rocker_angle", False),
    "slider_crank.toml": ("crank_angle=0:60:30", "cylinder", True),
    "solar_array.toml": ("root=0:0.2:0.1", "hinge", True),
    "spring_pendulum.toml": ("theta=0:0.2:0.1", "r", True),
}
#: Per corner or axle file: its analysis on the command line, and a hardpoint of it to vary.
CORNERS = {
    "double_wishbone.toml": (["--analysis", "parallel", "--travel", "-40:40:40"], "lower_ball"),
    "double_wishbone_steer.toml": (["--analysis", "steering", "--rack", "-20:20:20"], "lower_ball"),
    "five_link_rear.toml": (["--analysis", "parallel", "--travel", "-40:40:40"], "upper_front_outer"),
    "front_axle.toml": (["--analysis", "opposite", "--travel", "-40:40:40"], "lower_ball_left"),
    "front_axle_bushings.toml": (["--analysis", "parallel", "--travel", "-40:40:40"], "lower_ball_left"),
    "macpherson.toml": (["--analysis", "roll", "--roll", "-2:2:2", "--axle"], "lower_ball"),
}
#: Subcommands on files that a ``sh`` block of README.md runs end to end through the entry point
#: (run as written and checked by tests/test_readme_as_written.py): not again here. The front
#: axle's suspension stays: its analysis here (opposite wheel travel) is run by no other.
BY_README = {("suspension", "front_axle_bushings.toml"), ("study", "double_wishbone.toml")}
VARY = """design = "latin-hypercube"
variants = 4
seed = 1
[[vary]]
hardpoint = "{hardpoint}"
range = [-2, 2]
"""


def model_files():
    return sorted(p.name for p in EXAMPLES.glob("*.toml") if not p.stem.endswith("_vary"))


def scripts():
    return sorted(p.name for p in EXAMPLES.glob("*.py"))


def table(path: Path, rows=1):
    """The header of a CSV file written by kinematrix, after checking its units line and rows."""
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# units: "), lines[:2]
    assert len(lines) >= 2 + rows, f"{path.name}: {len(lines) - 2} rows"
    return lines[1].split(",")


def picture(path: Path, size=10_000):
    data = path.read_bytes()
    assert data.startswith(PNG) and len(data) > size, path.name


def ok(done, *what):
    assert done.returncode == 0, f"{' '.join(map(str, what))}: exit {done.returncode}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr, done.stderr


def readme_commands():
    """``(subcommand, model file)`` of each ``kinematrix`` line of the README's ``sh`` blocks."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```$", readme, re.S | re.M)
    return {found for body in blocks for found in re.findall(r"\bkinematrix (\w+) examples/([\w.]+\.toml)", body)}


def kinematrix(*args, cwd):
    """``kinematrix ARGS`` in the folder ``cwd``, through :func:`dynamics.cli.main` in this
    process: its status, standard output and error as a finished process has them."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in args])
    return SimpleNamespace(returncode=status, stdout=out.getvalue(), stderr=err.getvalue())


def test_every_shipped_model_and_script_is_listed():
    """A new example gets its line above (a driver to sweep), or this fails."""
    assert sorted(MODELS) == model_files()
    assert set(CORNERS) == {name for name in model_files() if "[corner]" in (EXAMPLES / name).read_text()}
    assert scripts()
    assert BY_README <= readme_commands() and {file for _, file in BY_README} <= set(CORNERS)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_file_runs_every_subcommand(name, tmp_path):
    """check, sweep, plot, simulate (and suspension, study for a corner), each to its end."""
    model = EXAMPLES / name
    drive, column, moves = MODELS[name]
    driver = drive.split("=")[0]

    done = kinematrix("check", model, cwd=tmp_path)
    ok(done, "check", name)
    assert "Degrees of freedom:" in done.stdout

    done = kinematrix("sweep", model, "--drive", drive, "--speed", f"{driver}=1", "--out", "sweep.csv", cwd=tmp_path)
    ok(done, "sweep", name)
    header = table(tmp_path / "sweep.csv", rows=3)
    assert header[0] == driver and column in header and f"{column}_dot" in header

    done = kinematrix("plot", "sweep.csv", "--x", driver, "--y", column, "--out", "plot.png", cwd=tmp_path)
    ok(done, "plot", name)
    picture(tmp_path / "plot.png")

    done = kinematrix("simulate", model, "--t-end", "0.01", "--samples", "3", "--out", "sim.csv", cwd=tmp_path)
    if moves:
        ok(done, "simulate", name)
        assert table(tmp_path / "sim.csv", rows=3)[0] == "t"
    else:  # no inertia: a model that cannot be simulated is a user error, one line, nothing written
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "carries no inertia" in done.stderr, done.stderr
        assert not (tmp_path / "sim.csv").exists()

    if name in CORNERS:
        analysis, hardpoint = CORNERS[name]
        if ("suspension", name) not in BY_README:
            done = kinematrix("suspension", model, *analysis, "--out", "metrics.csv", cwd=tmp_path)
            ok(done, "suspension", name)
            assert table(tmp_path / "metrics.csv", rows=3)[0] in ("wheel_travel", "roll_angle", "rack_travel",
                                                                 "steering_wheel_angle")
        if ("study", name) in BY_README:
            return
        (tmp_path / "vary.toml").write_text(VARY.format(hardpoint=hardpoint))
        study = [a for a in analysis if a != "--axle"]
        done = kinematrix("study", model, "--vary", "vary.toml", *study, "--out", "study.csv", cwd=tmp_path)
        if "--axle" in analysis:  # a study of a roll takes an axle file, and says so
            assert done.returncode == 2 and "is a corner; study an axle file" in done.stderr, done.stderr
        else:
            ok(done, "study", name)
            assert table(tmp_path / "study.csv", rows=4 * 3)[:2] == ["variant", "position"]


@pytest.fixture(scope="module")
def examples_copy(tmp_path_factory):
    """A copy of examples/ (scripts, model files, pictures), as a user's checkout has it."""
    return Path(shutil.copytree(EXAMPLES, tmp_path_factory.mktemp("checkout") / "examples"))


#: What a script prints that says it ran through (checked against references in test_examples.py).
PRINTS = {"hooke_joint.py": "velocity ratio from 0.866025"}
#: The scripts with an animation option: their command asks for it.
ANIMATED = {"four_bar.py", "landing_gear.py"}


def readme_scripts():
    """The example scripts a ``sh`` block of README.md runs as commands (``python3 examples/x.py``)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```$", readme, re.S | re.M)
    return {name for body in blocks for name in re.findall(r"^python3 examples/(\w+\.py)\b", body, re.M)}


def test_every_script_runs_as_a_command_here_or_in_the_readme():
    """Each script runs once as a command: below, or as the README's block says (run as written by
    tests/test_readme_as_written.py, which checks its exit status and its picture); the animated
    ones have the option."""
    assert readme_scripts() and readme_scripts() < set(scripts())
    assert {name for name in scripts() if "--gif" in (EXAMPLES / name).read_text()} == ANIMATED


@pytest.mark.parametrize("script", sorted(set(scripts()) - readme_scripts()))
def test_every_example_script_runs_as_a_command(script, examples_copy):
    """``python examples/x.py`` (no options but ``--gif``) in a copy of the checkout, headless, as
    the README's reader runs it: exit 0, its picture (and animation) written to the current
    folder, the path it says it wrote."""
    checkout = examples_copy.parent
    options = ["--gif"] if script in ANIMATED else []
    done = subprocess.run([sys.executable, f"examples/{script}", *options], cwd=checkout, env=user_environment(),
                          capture_output=True, text=True, timeout=600)
    ok(done, "python", script)
    png = checkout / f"{Path(script).stem}.png"
    picture(png, size=20_000)
    assert f"wrote {png}" in done.stdout.splitlines(), done.stdout[-2000:]
    if script in ANIMATED:
        assert png.with_suffix(".gif").read_bytes()[:4] == b"GIF8"
    assert PRINTS.get(script, "") in done.stdout
