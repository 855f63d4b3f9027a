"""A bushing's centre as a hardpoint (mechanism.hardpoints, Mechanism.moved, loops.study, the
hardpoint tables of loops.suspension.hardpoints), on the shipped axle on bushings.

References: the model file rebuilt with the bushing (or the pivot and its bushings) declared at
the moved place, by editing its text and reading it again; the compliance analysis of a copy
moved by hand (``Mechanism.moved``); central differences of the compliance analysis re-run.
Bad names and values are one located line.
"""

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from command_line import run_kinematrix
from loops import equilibrium
from loops.study.coordinates import coordinates
from loops.study.sensitivity import sensitivities
from loops.study.study import run_study
from loops.suspension import Suspension, compliance, load_suspension
from loops.suspension.hardpoints import apply_hardpoints, hardpoints, write_hardpoints
from mechanism import Mechanism
from mechanism.errors import ModelError
from mechanism.hardpoints import hardpoints_of

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AXLE = EXAMPLES / "front_axle_bushings.toml"
TRAVEL = np.array([-0.02, 0.0, 0.02])
LOWER_FRONT = "at = [149.52, 300.00, 108.04]"  # the file's lower front bushing (mm)
LOWER_REAR = "at = [-149.52, 300.00, 131.96]"
LOWER_INNER = "at = [0, 300, 120]"  # the pivot both replace
#: The rebuilt file's numbers are read from mm, the moved model's are nominal + offset in m: they
#: differ by rounding (1e-17 m), which the equilibria (closed to 1e-12 of the size) carry on.
ROUND_OFF = 1e-9
HELD = ["hub_left", "hub_right", "rack_travel"]


@pytest.fixture(scope="module")
def axle():
    return load_suspension(AXLE)


def rebuilt(tmp_path, edits):
    """The axle read from a copy of its file with the ``edits`` ``{old line: new line}`` made."""
    text = AXLE.read_text()
    for old, new in edits.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "moved.toml"
    path.write_text(text)
    return load_suspension(path)


def moved(axle, values):
    return Suspension(axle.mechanism.moved(values), axle.corners, axle.vehicle, axle.units, axle.name)


def columns(result):
    return {name: column.values for name, column in result.metrics.items()}


def assert_same_compliance(found, expected):
    for name, values in expected.items():
        floor = ROUND_OFF * max(np.abs(values).max(), 1e-30)
        assert_allclose(found[name], values, rtol=ROUND_OFF, atol=floor, err_msg=name)


def test_bushing_centres_are_hardpoints_after_the_others(axle):
    known = hardpoints_of(axle.model)
    bushings = [b.name for b in axle.model.bushings]
    assert list(known)[-len(bushings):] == bushings
    hp = known["lower_front_left"]
    assert (hp.table, hp.owner, hp.key) == ("bushings", "lower_front_left", "at")
    assert_array_equal(hp.value, axle.mechanism.bushings["lower_front_left"].at)
    rigid = load_suspension(EXAMPLES / "front_axle.toml")
    assert all(hp.table != "bushings" for hp in hardpoints_of(rigid.model).values())


def test_a_bushing_that_shares_a_point_name_is_bushings_dot_name():
    m = Mechanism("shared")
    m.add_link("arm")
    m.add_pair("pivot", "revolute", "ground", "arm", at=[0, 0, 0], axis=[0, 1, 0])
    m.add_point("mount", "arm", at=[1.0, 0, 0])
    m.add_bushing("mount", "ground", "arm", at=[1.0, 0, 0.5], stiffness=[1e5] * 6)
    known = hardpoints_of(m.snapshot())
    assert known["mount"].table == "points"
    assert known["bushings.mount"].table == "bushings"
    moved_mechanism = m.moved({"bushings.mount": [1.0, 0, 0.7]})
    assert_array_equal(moved_mechanism.bushings["mount"].at, [1.0, 0, 0.7])
    assert_array_equal(moved_mechanism.snapshot().points[0].at, [1.0, 0, 0])


def test_a_moved_bushing_centre_is_the_model_rebuilt_with_the_bushing_there(axle, tmp_path):
    """Both sides' lower front bushing 2 mm up (the file holds one corner, mirrored)."""
    reference = rebuilt(tmp_path, {LOWER_FRONT: "at = [149.52, 300.00, 110.04]"})
    values = {name: hardpoints_of(axle.model)[name].value + [0.0, 0.0, 0.002]
              for name in ("lower_front_left", "lower_front_right")}
    variant = moved(axle, values)
    assert_allclose(variant.mechanism.bushings["lower_front_left"].at,
                    reference.mechanism.bushings["lower_front_left"].at, rtol=0, atol=1e-15)
    expected = columns(compliance(reference, TRAVEL))
    assert_same_compliance(columns(compliance(variant, TRAVEL)), expected)
    # it moves the compliance: not the nominal's
    nominal = compliance(axle, TRAVEL).metric("compliance_steer_lateral_patch_left")
    assert not np.allclose(expected["compliance_steer_lateral_patch_left"], nominal, rtol=1e-6)
    # and the compliant variant's pose: where its bushings settle under gravity and the springs
    # (the hubs' spin and the rack held)
    poses = []
    for mechanism in (axle.mechanism.moved(values), reference.mechanism):
        mechanism.use_bushings(True)
        poses.append(equilibrium(mechanism, hold=HELD).point("wheel_centre_left"))
    assert_allclose(poses[0], poses[1], rtol=0, atol=ROUND_OFF)
    nominal = axle.mechanism.moved({})
    nominal.use_bushings(True)
    nominal_pose = equilibrium(nominal, hold=HELD).point("wheel_centre_left")
    assert np.abs(poses[0] - nominal_pose).max() > 1e-7


def test_the_pivot_carries_the_bushings_that_replace_it(axle, tmp_path):
    """``lower_inner`` 3 mm up on both sides moves its two bushings by 3 mm: the model rebuilt
    with the pivot and both bushings moved."""
    reference = rebuilt(tmp_path, {LOWER_INNER: "at = [0, 300, 123]", LOWER_FRONT: "at = [149.52, 300.00, 111.04]",
                                   LOWER_REAR: "at = [-149.52, 300.00, 134.96]"})
    known = hardpoints_of(axle.model)
    variant = moved(axle, {name: known[name].value + [0.0, 0.0, 0.003] for name in ("lower_inner_left",
                                                                                   "lower_inner_right")})
    for name in ("lower_front_left", "lower_rear_left", "lower_front_right", "lower_rear_right"):
        assert_allclose(variant.mechanism.bushings[name].at, reference.mechanism.bushings[name].at, atol=1e-15)
    assert_same_compliance(columns(compliance(variant, TRAVEL)), columns(compliance(reference, TRAVEL)))


def test_a_bushing_named_beside_its_pivot_takes_its_own_value(axle):
    known = hardpoints_of(axle.model)
    front = known["lower_front_left"].value
    pivot = ("lower_inner_left", known["lower_inner_left"].value + [0, 0, 0.003])
    bushing = ("lower_front_left", front + [0.001, 0, 0])
    for values in ([pivot, bushing], [bushing, pivot]):  # in either order
        variant = axle.mechanism.moved(dict(values))
        assert_array_equal(variant.bushings["lower_front_left"].at, front + [0.001, 0, 0])
        assert_array_equal(variant.bushings["lower_rear_left"].at, known["lower_rear_left"].value + [0, 0, 0.003])
    assert_array_equal(variant.bushings["lower_front_right"].at, known["lower_front_right"].value)
    # a turned axis turns them (tests/test_bushing_axis_turn.py), the other side's stay
    turned = axle.mechanism.moved({"lower_inner_left.axis": known["lower_inner_left.axis"].value + [0, 0, 0.01]})
    for name in ("lower_front_left", "lower_rear_left"):
        assert np.abs(turned.bushings[name].at - known[name].value).max() > 1e-4
        assert_array_equal(turned.bushings[name.replace("left", "right")].at, known[name.replace("left", "right")].value)


def test_a_study_of_a_bushing_height_is_the_compliance_of_the_moved_model(axle):
    offsets = np.array([[0.002], [-0.003]])
    study = run_study(axle, ["lower_front_left.z"], offsets, analysis="compliance", travel=TRAVEL)
    assert study.reasons == {}
    nominal = hardpoints_of(axle.model)["lower_front_left"].value
    for v, (dz,) in enumerate(offsets):
        reference = compliance(moved(axle, {"lower_front_left": nominal + [0.0, 0.0, dz]}), TRAVEL)
        for name in study.metrics:
            assert_array_equal(study.values(name)[v], reference.metrics[name].values, err_msg=name)


def test_the_hardpoint_sensitivity_of_a_bushing_centre_is_the_central_difference(axle):
    """(C7) against a central difference of the compliance analysis re-run at +-0.1 mm (truncation
    about 1e-6 of the derivative, as the ball joint's in tests/test_bushing_rate_sensitivities.py)."""
    tight, step, agree = 1e-13, 1e-4, 1e-5
    found = sensitivities(axle, ["lower_front_left.y", "upper_rear_left.z"], TRAVEL, analysis="compliance",
                          tolerance=tight)
    known = hardpoints_of(axle.model)
    for j, (name, axis) in enumerate((("lower_front_left", 1), ("upper_rear_left", 2))):
        shift = np.zeros(3)
        shift[axis] = step
        up = columns(compliance(moved(axle, {name: known[name].value + shift}), TRAVEL, tolerance=tight))
        down = columns(compliance(moved(axle, {name: known[name].value - shift}), TRAVEL, tolerance=tight))
        for column in (c for c in up if c != "wheel_travel"):
            scale = 1.0 if "_stiffness_" in column else (1e2 if "aligning" in column else 1e3)
            expected = (up[column] - down[column]) / (2 * step)
            left = column.replace("_right", "_left")  # the other wheel's: zero up to the moved side's size
            floor = agree * np.abs(up[left] - down[left]).max() / (2 * step)
            assert_allclose(found[column][:, j] * scale, expected, rtol=agree, atol=floor, err_msg=f"{column}/{name}")
    assert np.abs(found["compliance_steer_lateral_patch_left"][:, 0]).max() > 1e-9  # rad/N per m: not zeros


@pytest.mark.parametrize("name, match", [
    ("lower_front_left.w", r"^vary 'lower_front_left.w': not a hardpoint of .* or one of its coordinates"),
    ("lower_frnt_left.z", r"^vary 'lower_frnt_left.z': not a hardpoint of"),
])
def test_a_bad_bushing_coordinate_is_one_located_line(axle, name, match):
    with pytest.raises(ModelError, match=match) as caught:
        coordinates(axle.model, [name])
    assert "\n" not in str(caught.value)


def test_a_bad_bushing_centre_value_is_one_located_line(axle):
    with pytest.raises(ModelError, match=r"^hardpoint 'lower_front_left'") as caught:
        axle.mechanism.moved({"lower_front_left": [0.0, np.nan, 0.0]})
    assert "\n" not in str(caught.value)
    with pytest.raises(ModelError, match=r"^hardpoint 'lower_frnt_left': not a hardpoint"):
        axle.mechanism.moved({"lower_frnt_left": [0.0, 0.0, 0.0]})


def test_the_hardpoint_table_lists_bushing_centres_and_applies_them(tmp_path):
    model = tmp_path / "axle.toml"
    model.write_text(AXLE.read_text())
    table = tmp_path / "hardpoints.csv"
    names = write_hardpoints(model, table)
    assert names[-4:] == ["lower_front", "lower_rear", "upper_front", "upper_rear"]
    lines = table.read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("lower_front,"))
    assert lines[row] == "lower_front,149.52,300,108.04,"
    lines[row] = "lower_front,149.52,300,110.5,"
    table.write_text("\n".join(lines) + "\n")
    assert apply_hardpoints(model, table) == ["lower_front"]
    assert LOWER_FRONT.replace("108.04", "110.5").replace("300.00", "300") in model.read_text()
    listed, values, _ = hardpoints(model)
    assert_array_equal(values[listed.index("lower_front")], [149.52, 300.0, 110.5])
    assert_allclose(load_suspension(model).mechanism.bushings["lower_front_left"].at, [0.14952, 0.3, 0.1105],
                    rtol=1e-15)


def test_a_bushing_centre_in_a_kinematic_study_is_one_line_and_exit_2(tmp_path, axle):
    """The kinematic analyses take the rigid variant, which a bushing's centre does not move."""
    with pytest.raises(ModelError, match=r"^vary 'lower_front_left.z': the parallel analysis is the rigid "
                       r"kinematics, which a bushing's centre does not change") as caught:
        run_study(axle, ["lower_ball_left.z", "lower_front_left.z"], [[0.0, 0.001]], analysis="parallel",
                  travel=[0.0])
    assert "\n" not in str(caught.value)
    (tmp_path / "vary.toml").write_text('design = "latin-hypercube"\nvariants = 2\n[[vary]]\n'
                                        'hardpoint = "lower_front_left.z"\nrange = [-1, 1]\n')
    proc = run_kinematrix("study", AXLE, "--vary", "vary.toml", "--analysis", "parallel", "--travel", "0",
                          "--out", "study.csv", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kinematrix: error: vary 'lower_front_left.z': the parallel "
                                                   "analysis is the rigid kinematics"), lines
    assert not (tmp_path / "study.csv").exists()


def test_a_fitted_pivot_writes_the_bushings_it_carried(axle, tmp_path):
    """The optimiser moving both lower pivots (compliance targets): its table and the model file
    it writes hold the bushings moved with them, so the file read back is the fitted design."""
    from loops.study.optimise import optimise

    travel = np.array([0.0])
    targets = {"compliance_steer_lateral_patch_left": compliance(axle, travel).metric(
        "compliance_steer_lateral_patch_left")}
    fit = optimise(axle, ["lower_inner_left.z", "lower_inner_right.z"], bounds=([-0.005] * 2, [0.005] * 2),
                   travel=travel, compliance_targets=targets, start=[0.002, 0.002], max_evaluations=1)
    dz = fit.offsets[0]
    assert fit.offsets[1] == dz and dz != 0.0
    known = hardpoints_of(axle.model)
    for name in ("lower_front_left", "lower_rear_left", "lower_front_right", "lower_rear_right"):
        assert_allclose(fit.hardpoints[name], known[name].value + [0.0, 0.0, dz], rtol=0, atol=1e-15)
    model = tmp_path / "fitted.toml"
    fit.write_model(AXLE, model)
    written = load_suspension(model)
    for name in ("lower_front_left", "lower_rear_right", "lower_inner_left"):
        assert_allclose(hardpoints_of(written.model)[name].value, hardpoints_of(fit.suspension.model)[name].value,
                        rtol=0, atol=1e-12)
