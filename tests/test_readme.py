"""The README's promises: its Python example runs, and CI runs exactly its test command."""

import pathlib
import re

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_python_examples_run_and_report_their_numbers(tmp_path, monkeypatch, capsys):
    """The README's Python blocks execute as written: camber zero at the design pose and
    negative (top inboard) in bump, as a double wishbone gains; the four-bar drop conserves
    energy and lands on the benchmark's reference crank angle."""
    code = "\n".join(re.findall(r"```python\n(.*?)```", README, re.S))
    monkeypatch.chdir(ROOT)
    code = code.replace('bump.to_csv("bump.csv")', f'bump.to_csv({str(tmp_path / "bump.csv")!r})')
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    camber = namespace["camber"]
    assert abs(camber[80]) < 1e-9  # the axle is horizontal at the design pose
    assert camber[-1] < -1.0 < 0.5 < camber[0]
    out = capsys.readouterr().out
    assert "camber +1.00 deg at -80 mm, -2.16 deg at +80 mm" in out
    assert abs(namespace["drift"]) < 1e-8  # conservative four-bar at rtol 1e-10
    assert "crank at 2 s: -3.21653" in out  # benchmarks/dynamics.py's reference: -3.216536572 rad
    assert (tmp_path / "bump.csv").stat().st_size > 10_000
    assert np.isfinite(camber).all()


def test_ci_runs_the_readme_test_command():
    """.ci/run ends with the README's test command, character for character."""
    blocks = re.findall(r"```\n(.*?)```", README, re.S)
    test_command = next(b.strip() for b in blocks if "pytest" in b)
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1].strip() == test_command
