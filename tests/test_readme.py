"""The README's promises: its Python example runs, and CI runs exactly its test command."""

import pathlib
import re

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_python_examples_run_and_report_their_numbers(tmp_path, monkeypatch, capsys):
    """The README's Python blocks execute as written and print what the workbench computes:
    the DataFrame in mm and deg (camber zero at the design pose, the travel exactly as
    asked), roll camber, Ackermann and steering ratio of the front axle (held against hand
    geometry in test_suspension_references.py), the wheel centre's path, and the four-bar
    drop that conserves energy and lands on the benchmark's reference crank angle."""
    # the self-contained blocks; those that continue one run in tests/test_readme_as_written.py
    code = "\n".join(block for block in re.findall(r"```python\n(.*?)```", README, re.S)
                     if not block.startswith("# continues the snippet above"))
    monkeypatch.chdir(ROOT)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    table = namespace["table"]
    assert table["wheel_travel"].tolist()[::8] == [-80.0, -40.0, 0.0, 40.0, 80.0]
    assert abs(table["camber_left"][16]) < 1e-9  # deg: the wheel is upright at the design pose
    out = capsys.readouterr().out
    assert "roll camber 0.734 deg/deg, Ackermann 15.9 %, steering ratio 17.32" in out
    assert "wheel centre moves" in out
    assert "bump steer is most sensitive to rack_end_left.z" in out  # the tie rod's height sets bump steer
    assert "worst bump steer 0.059 -> 0.044 deg per 10 mm" in out
    assert abs(namespace["drift"]) < 1e-8  # conservative four-bar at rtol 1e-10
    assert "crank at 2 s: -3.21653" in out  # benchmarks/dynamics.py's reference: -3.216536572 rad
    assert np.isfinite(table.to_numpy()[:, :3]).all()
    # the compliance of the front axle on bushings (tests/test_suspension_compliance.py holds it
    # against central differences of equilibria) and the toe its bushings add in 1 g cornering, the
    # load at the contact patch of every equilibrium (tests/test_kc_patch.py)
    assert "compliance steer [-0.0318 -0.0309 -0.0306] deg/kN, lateral stiffness [12852. 13304. 13482.] N/mm" in out
    assert "toe in the turn [0.112 0.11  0.116] deg beside the rigid axle" in out


def test_readme_leads_with_the_suspension_workbench():
    """The set-up command runs the workbench on a shipped corner file, and the pictures it
    shows are in the repository."""
    blocks = re.findall(r"```(?:sh|text)?\n(.*?)```", README, re.S)
    assert "kinematrix suspension examples/front_axle.toml --analysis parallel --travel -80:80:5 --out " \
           "metrics.csv --plot sheet.png" in blocks[0]
    for image in re.findall(r"\]\((examples/images/[^)]+)\)", README):
        assert (ROOT / image).stat().st_size > 10_000, image


def test_ci_runs_the_readme_test_command():
    """.ci/run ends with the README's test command, character for character."""
    blocks = re.findall(r"```(?:sh|text)?\n(.*?)```", README, re.S)
    test_command = next(b.strip() for b in blocks if "pytest" in b)
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1].strip() == test_command
