"""Design studies of the compliance analysis (loops.study.study, loops.study.cli): hardpoint
coordinates and bushing rates varied together on the shipped axle on bushings.

Reference: each variant's rows are the compliance analysis (``loops.suspension.compliance``) of
a copy of the model moved by hand (``Mechanism.moved`` and ``set_bushing_stiffness``), to the
bit; the command line writes the Python API's numbers in the file's units (N/mm, deg/kN). Bad
input (an unknown bushing, a rate made zero or negative, a rate on a rigid model or with a
kinematic analysis) is one located line, exit status 2 from the installed command.
"""

import csv
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from command_line import run_kinematrix
from loops.study import study as study_module
from loops.study.coordinates import BushingRate, parameters
from loops.study.designs import read_vary
from loops.study.study import run_study
from loops.suspension import Suspension, compliance, load_suspension
from mechanism.errors import ModelError, SweepInterrupted, SweepStopped
from mechanism.hardpoints import hardpoints_of

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AXLE = EXAMPLES / "front_axle_bushings.toml"
TRAVEL = np.array([-0.02, 0.0, 0.02])
NAMES = ["lower_ball_left.z", "lower_front_left.ky", "upper_rear_left.krx"]
#: Offsets (m, N/m, N m/rad) of three variants: the ball joint up and down, the radial rate
#: -1000 and +2000 N/mm, the torsion rate +-0.5 N m/deg.
OFFSETS = np.array([[0.002, -1e6, 0.5 * 180 / np.pi], [-0.003, 2e6, -0.5 * 180 / np.pi], [0.0, 0.0, 0.0]])
VARY = """design = "offsets"
[[offsets]]
"lower_ball_left.z" = 2.0
"lower_front_left.ky" = -1000
"upper_rear_left.krx" = 500
[[offsets]]
"lower_ball_left.z" = -3.0
"lower_front_left.ky" = 2000
"upper_rear_left.krx" = -500
"""


@pytest.fixture(scope="module")
def axle():
    return load_suspension(AXLE)


def moved_by_hand(axle, offsets):
    """The axle with the ball joint moved and the two rates changed, by the model's own API."""
    ball = hardpoints_of(axle.model)["lower_ball_left"].value
    mechanism = axle.mechanism.moved({"lower_ball_left": ball + np.array([0.0, 0.0, offsets[0]])})
    for (bushing, index), offset in zip((("lower_front_left", 1), ("upper_rear_left", 3)), offsets[1:]):
        stiffness = mechanism.bushings[bushing].stiffness_matrix().copy()
        stiffness[index, index] += offset
        mechanism.set_bushing_stiffness(bushing, stiffness)
    return Suspension(mechanism, axle.corners, axle.vehicle, axle.units, axle.name)


@pytest.fixture(scope="module")
def study(axle):
    return run_study(axle, NAMES, OFFSETS, analysis="compliance", travel=TRAVEL, chunk_size=2)


def test_each_variant_is_the_compliance_analysis_of_its_moved_model_to_the_bit(axle, study):
    assert [type(c) for c in study.coordinates][1:] == [BushingRate, BushingRate]
    assert study.reasons == {}
    for v, offsets in enumerate(OFFSETS):
        reference = compliance(moved_by_hand(axle, offsets), TRAVEL)
        names = [n for n in reference.metrics if n != "wheel_travel"]
        assert list(study.metrics) == names
        for name in names:
            assert_array_equal(study.values(name)[v], reference.metrics[name].values, err_msg=name)
    nominal = compliance(axle, TRAVEL)
    assert_array_equal(study.nominal["compliance_steer_lateral_patch_left"],
                       nominal.metric("compliance_steer_lateral_patch_left"))
    # a stiffer front radial rate, a lower ball joint: the compliances differ from the nominal's
    assert not np.allclose(study.values("compliance_steer_lateral_patch_left")[0],
                           nominal.metric("compliance_steer_lateral_patch_left"), rtol=1e-6, atol=0)
    # the varied rates' values in the table: nominal plus offset, the file's N/mm and N mm/deg
    text = study.to_csv()
    rows = list(csv.reader(text.splitlines()[1:]))
    header, first = rows[0], [float(v) for v in rows[1]]
    assert first[header.index("lower_front_left.ky")] == pytest.approx(6000 - 1000, rel=1e-12)
    assert first[header.index("upper_rear_left.krx")] == pytest.approx(1000 + 500, rel=1e-12)
    assert first[header.index("lower_ball_left.z")] == pytest.approx(
        parameters(axle.model, ["lower_ball_left.z"])[0].nominal * 1e3 + 2.0, rel=1e-12)


def test_the_command_line_writes_the_python_study_in_the_files_units(tmp_path, axle):
    (tmp_path / "vary.toml").write_text(VARY)
    proc = run_kinematrix("study", AXLE, "--vary", "vary.toml", "--analysis", "compliance", "--travel", "-20:20:20",
                          "--out", "study.csv", "--summary", "summary.csv", "--plot", "bands.png", cwd=tmp_path,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = (tmp_path / "study.csv").read_text().splitlines()
    assert lines[0].startswith("# units: length=mm angle=deg time=s force=N; design study: compliance, 2 variants, "
                               "0 stopped")
    assert "lower_front_left.ky=N/mm" in lines[0] and "compliance_steer_lateral_patch_left=deg/kN" in lines[0]
    rows = list(csv.reader(lines[1:]))
    header, table = rows[0], np.array([[float(v) for v in row] for row in rows[1:]])
    assert header[:6] == ["variant", "position", "lower_ball_left.z", "lower_front_left.ky", "upper_rear_left.krx",
                          "wheel_travel"]
    names, design = read_vary(tmp_path / "vary.toml", axle)
    assert_allclose(design, OFFSETS[:2], rtol=1e-12)
    api = run_study(axle, names, design, analysis="compliance", travel=TRAVEL)
    column = {name: table[:, i] for i, name in enumerate(header)}
    assert_allclose(column["compliance_steer_lateral_patch_left"].reshape(2, 3),
                    np.degrees(api.values("compliance_steer_lateral_patch_left")), rtol=1e-12, atol=0)
    assert_allclose(column["lateral_stiffness_centre_left"].reshape(2, 3),
                    api.values("lateral_stiffness_centre_left") / 1e3, rtol=1e-12, atol=0)
    assert (tmp_path / "bands.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "summary.csv").exists()


def _vary(text):
    return 'design = "latin-hypercube"\nvariants = 2\n[[vary]]\n' + text


@pytest.mark.parametrize("model, vary, analysis, expected", [
    (AXLE, _vary('hardpoint = "nothing_left.kz"\nrange = [-1, 1]\n'), "compliance",
     "vary.toml: vary[0] ('nothing_left.kz'): hardpoint: not a bushing rate of 'front-axle-bushings axle'"),
    (AXLE, _vary('hardpoint = "lower_front_left.ky"\nrange = [-7000, -1000]\n'), "compliance",
     "vary 'lower_front_left.ky': variant "),
    (EXAMPLES / "front_axle.toml", _vary('hardpoint = "lower_front_left.ky"\nrange = [-1, 1]\n'), "compliance",
     "vary.toml: vary[0] ('lower_front_left.ky'): hardpoint: 'front-axle axle' is a rigid model, with no bushings"),
    (EXAMPLES / "front_axle.toml", _vary('hardpoint = "lower_ball_left.z"\nrange = [-1, 1]\n'), "compliance",
     "bushings: 'front-axle' has no bushings: compliance needs the compliant variant"),
    (AXLE, _vary('hardpoint = "lower_front_left.ky"\nrange = [-1, 1]\n'), "parallel",
     "vary 'lower_front_left.ky': the parallel analysis is the rigid kinematics, which bushing rates do not change"),
])
def test_bad_bushing_rates_are_one_line_and_exit_2(tmp_path, model, vary, analysis, expected):
    (tmp_path / "vary.toml").write_text(vary)
    proc = run_kinematrix("study", model, "--vary", "vary.toml", "--analysis", analysis, "--travel", "0",
                          "--out", "study.csv", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"kinematrix: error: {expected}"), lines
    assert not (tmp_path / "study.csv").exists()


def test_a_rate_made_zero_is_refused_with_its_values(axle):
    with pytest.raises(ModelError, match=r"variant 1 makes it 0 N/mm \(nominal 6000 N/mm, offset -6000 N/mm\): a "
                       "bushing rate must stay positive") as caught:
        run_study(axle, ["lower_front_left.ky"], [[0.0], [-6e6]], analysis="compliance", travel=[0.0])
    assert "\n" not in str(caught.value)


def test_a_variant_that_is_no_design_stops_alone(axle):
    """The upper ball joint moved onto the lower one: no kingpin, no design. Alone in its chunk
    (whose columns then come from the nominal design) its rows are NaN with the reason."""
    offsets = np.zeros((3, 2))
    below = parameters(axle.model, ["lower_ball_left"])
    above = parameters(axle.model, ["upper_ball_left"])
    offsets[1] = [0.0, 0.0]
    offsets[1, 0] = below[2].nominal - above[2].nominal
    result = run_study(axle, ["upper_ball_left.z", "lower_front_left.kz"], offsets, analysis="compliance",
                       travel=TRAVEL, chunk_size=1)
    assert list(result.reasons) == [1]
    assert result.reasons[1].startswith("its hardpoints give no design to analyse: ")
    steer = result.values("compliance_steer_lateral_patch_left")
    assert np.all(np.isnan(steer[1])) and np.all(np.isfinite(steer[[0, 2]]))
    assert_array_equal(steer[0], steer[2])


def test_ctrl_c_stops_the_study_not_the_variant(axle, monkeypatch):
    def interrupted(*args, **kwargs):
        raise SweepInterrupted("interrupted", None)

    monkeypatch.setattr(study_module, "run_plan", interrupted)
    with pytest.raises(KeyboardInterrupt):
        study_module.run_chunk(axle, parameters(axle.model, ["lower_front_left.kz"]), np.zeros((2, 1)),
                               study_module.Plan("compliance", travel=TRAVEL))


def test_a_variant_whose_equilibrium_stops_keeps_the_positions_it_reached(axle, monkeypatch):
    """Variant 1's analysis stops after two positions (its SweepStopped carrying them): its
    reason is kept, its third row is NaN, the rows it reached and the other variants are theirs."""
    real = study_module.run_plan
    calls = []

    def second_stops(rows, plan, values=None, count=1):
        calls.append(rows)
        if len(calls) != 2:
            return real(rows, plan, values, count)
        reached = real(rows, study_module.Plan("compliance", travel=plan.travel[:2]))
        raise SweepStopped("no equilibrium at travel = 0.02", reached)

    monkeypatch.setattr(study_module, "run_plan", second_stops)
    coords = parameters(axle.model, ["lower_front_left.kz"])
    inputs, metrics, reasons = study_module.run_chunk(axle, coords, np.zeros((3, 1)),
                                                      study_module.Plan("compliance", travel=TRAVEL))
    assert reasons == {1: "no equilibrium at travel = 0.02"}
    steer = metrics["compliance_steer_lateral_patch_left"][1]
    assert np.isnan(steer[1, 2]) and np.all(np.isfinite(steer[1, :2]))
    assert_array_equal(steer[1, :2], steer[0, :2])
    assert_array_equal(steer[2], steer[0])
    assert_array_equal(inputs["wheel_travel"][1], TRAVEL)
