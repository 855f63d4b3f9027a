"""A user error is answered before the engine and the heavy libraries load: every option, range,
file name and model table a command can check without computing is checked first (the model
read without assembling it, :func:`mechanism.model_file.read_model`'s ``assemble=False``; a
corner or axle file read before it is built, :func:`loops.suspension.files.read_suspension`),
and numba (with the kernels), scipy, Dask and matplotlib are imported only when the
computation starts. A mistake then costs python, numpy and the model reader, not the 0.2 to
0.5 s of processor time of those imports."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numba", "scipy", "dask", "distributed", "matplotlib")

#: Each command line, and a piece of the one line it must say (the status: 2).
USER_ERRORS = [
    (["sweep", "four_bar.toml", "--drive", "Z=0:10:1"], "--drive Z: not a pair variable"),
    (["sweep", "four_bar.toml", "--drive", "A=0:10:-1"], "STEP -1 does not lead from 0 to 10"),
    (["sweep", "four_bar.toml", "--drive", "A=0:10:1", "--speed", "B=1"], "--speed B: not a driver"),
    (["sweep", "four_bar.toml", "--drive", "A=0:10:1", "--drive", "D=0:5:1"], "driver value arrays differ in length"),
    (["sweep", "four_bar.toml", "--drive", "A=0:10:1", "--plot", "p.png", "--points", "P,Q"], "unknown point 'Q'"),
    (["simulate", "four_bar.toml", "--t-end", "-1"], "--t-end: must be positive"),
    (["simulate", "four_bar.toml", "--t-end", "0.01", "--qd0", "A=1"], "--qd0 A: give its initial value too"),
    (["view", "four_bar.toml", "--drive", "Z=0:10:1", "--out", "v.html"], "--drive Z: not a pair variable"),
    (["plot", "missing.csv", "--x", "A", "--y", "C"], "cannot read missing.csv"),
    (["suspension", "double_wishbone.toml", "--analysis", "parallel", "--travel", "-inf:inf:1"],
     "'-inf' is not a finite number"),
    (["suspension", "front_axle.toml", "--analysis", "pitch", "--pitch", "1"], "--rear: required by --analysis pitch"),
    (["suspension", "double_wishbone.toml", "--apply-hardpoints", "nan.csv", "--save", "moved.toml"],
     "nan.csv: line 3: non-finite coordinate"),
    (["study", "double_wishbone.toml", "--vary", "double_wishbone_vary.toml", "--travel", "0:1:1e-320"],
     "gives too many positions"),
    (["study", "double_wishbone.toml", "--vary", "double_wishbone_vary.toml", "--travel", "0", "--out", "s.csv",
      "--summary", "s.csv"], "--summary s.csv: the same file as --out s.csv"),
    (["study", "double_wishbone.toml", "--vary", "double_wishbone_vary.toml", "--travel", "0", "--out", "s.csv",
      "--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", "soon"], "--scheduler-timeout: 'soon' is not a number"),
]

#: One fresh interpreter runs every command line through the dispatcher, as the entry point
#: does, and says after each what it said, its status and which heavy modules it loaded.
PROGRAM = """
import contextlib, io, json, sys
from dynamics.cli import main

heavy, out = {heavy!r}, []
for argv in json.loads(sys.argv[1]):
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        status = main(argv)
    out.append([status, said.getvalue().strip(), [m for m in heavy if m in sys.modules]])
print(json.dumps(out))
"""


def test_user_errors_load_no_engine_and_no_heavy_library(tmp_path):
    for name in ("four_bar.toml", "double_wishbone.toml", "double_wishbone_vary.toml", "front_axle.toml"):
        shutil.copy(ROOT / "examples" / name, tmp_path / name)
    (tmp_path / "nan.csv").write_text("# units: length=mm\nname,x,y,z\nlower_ball,nan,0,0\n")
    argvs = [argv for argv, _ in USER_ERRORS]
    done = subprocess.run([sys.executable, "-c", PROGRAM.format(heavy=HEAVY), json.dumps(argvs)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    for (argv, fragment), (status, said, loaded) in zip(USER_ERRORS, json.loads(done.stdout)):
        assert status == 2 and said.startswith("kinematrix: error: ") and fragment in said, (argv, said)
        assert "\n" not in said, (argv, said)
        assert loaded == [], f"kinematrix {' '.join(argv)} loaded {', '.join(loaded)} before saying: {said}"



def _open_bennett(folder):
    """examples/bennett.toml without its [assemble.guess]: loops that do not close at zero pair values."""
    text = (ROOT / "examples" / "bennett.toml").read_text()
    path = folder / "bennett.toml"
    path.write_text(text[:text.rindex("[assemble.guess]")])
    return path


NOT_CLOSED = ("bennett.toml: assemble.guess: the loops do not close (loop 1 (J3): J1-J2-J3-J4, defect 2.74) at zero "
              "pair values: a model declared by link-local frames needs [assemble.guess] with rough pair values")


def test_read_later_the_model_is_still_assembled_and_refused_when_its_loops_do_not_close(tmp_path):
    from mechanism.errors import ModelError
    from mechanism.model_file import read_model

    path = _open_bennett(tmp_path)
    loaded = read_model(path, assemble=False)  # every table checked, the engine not run
    assert [p.name for p in loaded.mechanism.snapshot().pairs] == ["J1", "J2", "J3", "J4"]
    for attempt in (lambda: read_model(path), loaded.assembled):
        try:
            attempt()
        except ModelError as error:
            assert str(error) == NOT_CLOSED
        else:
            raise AssertionError("a model whose loops do not close was accepted")
    guessed = read_model(ROOT / "examples" / "bennett.toml", assemble=False)
    mechanism = guessed.assembled()
    assert mechanism is guessed.assembled() is guessed.mechanism  # assembled once
    at_once = read_model(ROOT / "examples" / "bennett.toml").mechanism.snapshot().reference
    assert [(n, list(v)) for n, v in mechanism.snapshot().reference] == [(n, list(v)) for n, v in at_once]


def test_every_command_still_refuses_a_model_whose_loops_do_not_close(tmp_path):
    _open_bennett(tmp_path)
    for argv in (["sweep", "bennett.toml", "--drive", "J1=0:10:5"], ["simulate", "bennett.toml", "--t-end", "0.1"],
                 ["view", "bennett.toml", "--out", "b.html"]):
        done = subprocess.run([sys.executable, "-m", "dynamics", *argv], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert (done.returncode, done.stderr) == (2, f"kinematrix: error: {NOT_CLOSED}\n"), argv
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bennett.toml"]  # nothing written
