"""A replaced pair's axis turns the bushings that replace it (mechanism.bushings.moved_bushings,
Mechanism.moved, loops.study's (C7), and the hardpoint tables' --apply-hardpoints), on the
shipped axle on bushings.

References: the model file with the turned pivot and its bushings written out by hand (the
lower pivot axis turned within its vertical plane, x-z: its bushings' offsets from the pivot's
centre turned about y by the angle between the old and new axis, computed here with sines and
cosines, not with the code's rotation); a general turn against scipy's rotation about the
normal of the two axes; central differences of the compliance analysis re-run; the model file
rewritten by the command line (``kinematrix suspension --export-hardpoints`` and
``--apply-hardpoints``: through the installed command for the export, an edited pivot and a
reversed axis; the other edited tables through its function, ``dynamics.cli.main``, in this
process).
"""

import math
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.transform import Rotation

from command_line import run_kinematrix
from dynamics.cli import main
from loops.study.sensitivity import sensitivities
from loops.suspension import Suspension, compliance, load_suspension
from mechanism.bushings import smallest_rotation
from mechanism.errors import ModelError
from mechanism.hardpoints import hardpoints_of

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AXLE = EXAMPLES / "front_axle_bushings.toml"
TRAVEL = np.array([-0.02, 0.0, 0.02])
PIVOT = (0.0, 300.0, 120.0)  # lower_inner's centre in the file (mm)
OLD_AXIS, NEW_AXIS = (300.0, -24.0), (300.0, -36.0)  # its axis's (x, z); y is 0
BUSHINGS = {"lower_front": (149.52, 108.04), "lower_rear": (-149.52, 131.96)}  # their (x, z), y = 300
LOWER_AXES = "axes = [[300, 0, -24], [0, 1, 0], [24, 0, 300]]   # x along the pivot axis"


@pytest.fixture(scope="module")
def axle():
    return load_suspension(AXLE)


def turned_in_plane(x, z):
    """(x, z) of a lower bushing turned about the pivot's y line with its axis (by hand)."""
    angle = math.atan2(NEW_AXIS[1], NEW_AXIS[0]) - math.atan2(OLD_AXIS[1], OLD_AXIS[0])  # about -y: x toward -z
    dx, dz = x - PIVOT[0], z - PIVOT[2]
    # a turn by `angle` in the x-z plane from +x toward +z (the axis's z grows by the angle)
    return (PIVOT[0] + dx * math.cos(angle) - dz * math.sin(angle),
            PIVOT[2] + dx * math.sin(angle) + dz * math.cos(angle))


def hand_written(tmp_path):
    """The axle file with lower_inner's axis (300, 0, -36) and both lower bushings written turned."""
    text = AXLE.read_text()
    edits = {"axis = [300, 0, -24]": "axis = [300, 0, -36]"}
    for name, (x, z) in BUSHINGS.items():
        new_x, new_z = turned_in_plane(x, z)
        edits[f"at = [{x:.2f}, 300.00, {z:.2f}]"] = f"at = [{new_x!r}, 300, {new_z!r}]"
    for old, new in edits.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    assert text.count(LOWER_AXES) == 2
    text = text.replace(LOWER_AXES, "axes = [[300, 0, -36], [0, 1, 0], [36, 0, 300]]")
    path = tmp_path / "turned.toml"
    path.write_text(text)
    return path


def turned(axle, extra=()):
    axis = np.array([NEW_AXIS[0], 0.0, NEW_AXIS[1]])
    values = {"lower_inner_left.axis": axis, "lower_inner_right.axis": axis, **dict(extra)}
    return Suspension(axle.mechanism.moved(values), axle.corners, axle.vehicle, axle.units, axle.name)


def frames(suspension):
    model = suspension.mechanism.moved({})
    model.use_bushings(True)
    return {pair.name: pair.frame_on_first for pair in model.snapshot().pairs if pair.kind == "bushing"}


def test_a_turned_pivot_axis_is_the_file_with_its_bushings_turned_by_hand(axle, tmp_path):
    reference = load_suspension(hand_written(tmp_path))
    variant = turned(axle)
    expected = frames(reference)
    for name, frame in frames(variant).items():
        assert_allclose(frame, expected[name], rtol=0, atol=1e-12, err_msg=name)
    assert np.abs(frames(variant)["lower_front_left"] - frames(axle)["lower_front_left"]).max() > 1e-3
    found, wanted = compliance(variant, TRAVEL), compliance(reference, TRAVEL)
    nominal = compliance(axle, TRAVEL)
    for name, column in wanted.metrics.items():
        values = np.asarray(column.values)
        floor = 1e-9 * max(np.abs(values).max(), 1e-30)
        assert_allclose(found.metrics[name].values, values, rtol=1e-9, atol=floor, err_msg=name)
    steer = "compliance_steer_lateral_patch_left"
    assert not np.allclose(wanted.metric(steer), nominal.metric(steer), rtol=1e-6)  # the turn matters


def test_a_general_turn_is_the_rotation_about_the_two_axes_normal(axle):
    known = hardpoints_of(axle.model)
    old = known["upper_inner_left.axis"].value
    new = old + [0.01, 0.03, -0.02]
    variant = axle.mechanism.moved({"upper_inner_left.axis": new})
    unit = new / np.linalg.norm(new)
    normal = np.cross(old, unit)
    angle = math.atan2(np.linalg.norm(normal), old @ unit)
    turn = Rotation.from_rotvec(normal / np.linalg.norm(normal) * angle).as_matrix()
    centre = known["upper_inner_left"].value
    for name in ("upper_front_left", "upper_rear_left"):
        nominal = axle.mechanism.bushings[name]
        assert_allclose(variant.bushings[name].at, centre + turn @ (nominal.at - centre), rtol=0, atol=1e-15)
        assert_allclose(variant.bushings[name].axes, nominal.axes @ turn.T, rtol=0, atol=1e-14)
    assert_allclose(variant.bushings["upper_front_left"].axes[0], unit, rtol=0, atol=1e-14)  # x stays on the axis
    for name in ("upper_front_right", "lower_front_left"):  # other pivots' bushings stay
        assert_array_equal(variant.bushings[name].at, axle.mechanism.bushings[name].at)
        assert_array_equal(variant.bushings[name].axes, axle.mechanism.bushings[name].axes)


def test_centre_and_axis_in_one_call_turn_about_the_moved_centre_in_either_order(axle):
    known = hardpoints_of(axle.model)
    shift = np.array([0.001, -0.002, 0.003])
    axis = known["lower_inner_left.axis"].value + [0.0, 0.02, 0.01]
    centre = ("lower_inner_left", known["lower_inner_left"].value + shift)
    turn = ("lower_inner_left.axis", axis)
    first = axle.mechanism.moved(dict([centre, turn]))
    second = axle.mechanism.moved(dict([turn, centre]))
    rotation = smallest_rotation(known["lower_inner_left.axis"].value, axis / np.linalg.norm(axis), "here")
    for name in ("lower_front_left", "lower_rear_left"):
        nominal = axle.mechanism.bushings[name].at
        expected = known["lower_inner_left"].value + shift + rotation @ (nominal - known["lower_inner_left"].value)
        assert_allclose(first.bushings[name].at, expected, rtol=0, atol=1e-15)
        assert_array_equal(second.bushings[name].at, first.bushings[name].at)
        assert_array_equal(second.bushings[name].axes, first.bushings[name].axes)


def test_a_bushing_named_beside_a_turned_axis_keeps_its_centre_and_turns_its_axes(axle):
    known = hardpoints_of(axle.model)
    own = known["lower_front_left"].value + [0.001, 0.0, 0.0]
    for values in ([("lower_front_left", own)], []):
        variant = turned(axle, values)
        reference = turned(axle)
        if values:
            assert_array_equal(variant.mechanism.bushings["lower_front_left"].at, own)
        else:
            assert not np.array_equal(variant.mechanism.bushings["lower_front_left"].at, known["lower_front_left"].value)
        assert_array_equal(variant.mechanism.bushings["lower_front_left"].axes,
                           reference.mechanism.bushings["lower_front_left"].axes)
        assert_array_equal(variant.mechanism.bushings["lower_rear_left"].at,
                           reference.mechanism.bushings["lower_rear_left"].at)
    swapped = axle.mechanism.moved({"lower_front_left": own, "lower_inner_left.axis": [300, 0, -36]})
    assert_array_equal(swapped.bushings["lower_front_left"].at, own)


def test_the_smallest_rotation_is_refused_for_a_reversed_axis(axle):
    with pytest.raises(ModelError, match=r"^hardpoint 'lower_inner_left.axis': reverses the axis") as caught:
        axle.mechanism.moved({"lower_inner_left.axis": -hardpoints_of(axle.model)["lower_inner_left.axis"].value})
    assert "\n" not in str(caught.value)
    # a turn just short of the reversal (1e-3 rad) is a rotation still
    old = np.array([1.0, 0.0, 0.0])
    new = np.array([-math.cos(1e-3), math.sin(1e-3), 0.0])
    rotation = smallest_rotation(old, new, "here")
    assert_allclose(rotation @ old, new, rtol=0, atol=1e-12)
    assert_allclose(rotation @ rotation.T, np.eye(3), rtol=0, atol=1e-12)
    assert_allclose(rotation @ [0, 0, 1.0], [0, 0, 1.0], rtol=0, atol=1e-12)


def test_the_axis_sensitivity_is_no_longer_zero_and_is_the_central_difference(axle):
    """(C7) of an axis component of a replaced pivot against a central difference at +-1e-4 of the
    unit axis (truncation about 1e-6 of the derivative)."""
    tight, step, agree = 1e-13, 1e-4, 1e-5
    found = sensitivities(axle, ["lower_inner_left.axis.z"], TRAVEL, analysis="compliance", tolerance=tight)
    nominal = hardpoints_of(axle.model)["lower_inner_left.axis"].value
    up, down = ({name: column.values for name, column in compliance(Suspension(
        axle.mechanism.moved({"lower_inner_left.axis": nominal + [0.0, 0.0, sign * step]}), axle.corners, axle.vehicle,
        axle.units, axle.name), TRAVEL, tolerance=tight).metrics.items()} for sign in (1, -1))
    for column in (c for c in up if c != "wheel_travel"):
        scale = 1.0 if "_stiffness_" in column else (1e2 if "aligning" in column else 1e3)
        expected = (up[column] - down[column]) / (2 * step)
        left = column.replace("_right", "_left")
        floor = agree * np.abs(up[left] - down[left]).max() / (2 * step)
        assert_allclose(found[column][:, 0] * scale, expected, rtol=agree, atol=floor, err_msg=column)
    assert np.abs(found["compliance_steer_lateral_patch_left"][:, 0]).max() > 1e-9


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The hardpoint table ``kinematrix suspension axle.toml --export-hardpoints`` writes for a
    copy of the axle file: the command runs once, each test below edits a copy of its table (they
    share an ``xdist_group``, so that one worker runs it)."""
    folder = tmp_path_factory.mktemp("export")
    model = folder / "axle.toml"
    model.write_text(AXLE.read_text())
    proc = run_kinematrix("suspension", model, "--export-hardpoints", "hardpoints.csv", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return (folder / "hardpoints.csv").read_text()


def edited_table(tmp_path, exported, edits):
    """A copy of the axle file in ``tmp_path`` beside its exported hardpoint table with rows
    ``{name: new row}``."""
    model = tmp_path / "axle.toml"
    model.write_text(AXLE.read_text())
    lines = exported.splitlines()
    for name, row in edits.items():
        index = next(i for i, line in enumerate(lines) if line.startswith(f"{name},"))
        lines[index] = row
    (tmp_path / "hardpoints.csv").write_text("\n".join(lines) + "\n")
    return model


def applied(tmp_path, model, installed=False):
    """``kinematrix suspension MODEL --apply-hardpoints hardpoints.csv --save moved.toml`` in
    ``tmp_path``: the installed command when ``installed``, else the command line's function in
    this process (the same code, without a process's start)."""
    if installed:
        proc = run_kinematrix("suspension", model, "--apply-hardpoints", "hardpoints.csv", "--save", "moved.toml",
                              cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    else:
        assert main(["suspension", str(model), "--apply-hardpoints", str(tmp_path / "hardpoints.csv"), "--save",
                     str(tmp_path / "moved.toml")]) == 0
    return tmp_path / "moved.toml"


@pytest.mark.xdist_group("bushing-axis-export")
def test_an_edited_pivot_row_carries_its_bushings_through_the_command(tmp_path, axle, exported):
    model = edited_table(tmp_path, exported, {"lower_inner": "lower_inner,0,300,123,"})
    text = applied(tmp_path, model, installed=True).read_text()
    assert "at = [149.52, 300, 111.04]" in text and "at = [-149.52, 300, 134.96]" in text
    assert "at = [0, 300, 123]" in text
    moved = load_suspension(tmp_path / "moved.toml").mechanism
    known = hardpoints_of(axle.model)
    for name in ("lower_front_left", "lower_rear_right"):
        assert_allclose(moved.bushings[name].at, known[name].value + [0, 0, 0.003], rtol=0, atol=1e-15)
    for name in ("upper_front_left", "upper_rear_right"):
        assert_array_equal(moved.bushings[name].at, known[name].value)


@pytest.mark.xdist_group("bushing-axis-export")
def test_an_edited_pivot_and_bushing_row_keep_the_bushings_own_value(tmp_path, exported):
    model = edited_table(tmp_path, exported, {"lower_inner": "lower_inner,0,300,123,",
                                    "lower_front": "lower_front,150,300,109,"})
    text = applied(tmp_path, model).read_text()
    assert "at = [150, 300, 109]" in text and "at = [-149.52, 300, 134.96]" in text


@pytest.mark.xdist_group("bushing-axis-export")
def test_an_untouched_export_applied_changes_nothing(tmp_path, exported):
    model = edited_table(tmp_path, exported, {})
    assert applied(tmp_path, model).read_bytes() == AXLE.read_bytes()


@pytest.mark.xdist_group("bushing-axis-export")
def test_a_turned_axis_row_writes_the_turned_bushings(tmp_path, axle, exported):
    """A table may list a pair's axis (``PAIR.axis``): turned, the written file holds the bushings
    turned, and reads as the model turned by Mechanism.moved (and as the file turned by hand)."""
    model = edited_table(tmp_path, exported, {})
    with open(tmp_path / "hardpoints.csv", "a") as table:
        table.write("lower_inner.axis,300,0,-36,\n")
    moved = load_suspension(applied(tmp_path, model))
    expected = frames(load_suspension(hand_written(tmp_path)))
    for name, frame in frames(moved).items():
        assert_allclose(frame, expected[name], rtol=0, atol=1e-12, err_msg=name)
    assert_allclose(frames(moved)["lower_front_left"], frames(turned(axle))["lower_front_left"], rtol=0, atol=1e-12)


@pytest.mark.xdist_group("bushing-axis-export")
def test_rows_within_the_printed_digits_move_no_bushing(tmp_path, exported):
    """A pivot row one rounding off the file's (a table through another program) and an axis row
    of the same direction at another length (a study writes unit axes) carry nothing: the
    bushings' lines stay as they are."""
    model = edited_table(tmp_path, exported, {"lower_inner": "lower_inner,0,300,120.00000000000001,"})
    axis = np.array([300.0, 0.0, -24.0]) / np.hypot(300.0, 24.0)
    with open(tmp_path / "hardpoints.csv", "a") as table:
        table.write(f"lower_inner.axis,{float(axis[0])!r},0,{float(axis[2])!r},\n")
    text = applied(tmp_path, model).read_text()
    for line, count in (("at = [149.52, 300.00, 108.04]", 1), ("at = [-149.52, 300.00, 131.96]", 1), (LOWER_AXES, 2)):
        assert text.count(line) == count, line
    assert "at = [0, 300, 120.00000000000001]" in text  # the rows themselves are written as given


def test_a_bushing_without_axes_gets_its_turned_axes_written(tmp_path):
    """A bushing left on the global axes (no ``axes`` key) turned with its pivot: the file gains
    the turned axes on a line after its ``at``, and reads as the model turned in memory."""
    text = AXLE.read_text()
    assert text.count(LOWER_AXES + "\n") == 2
    (tmp_path / "global.toml").write_text(text.replace(LOWER_AXES + "\n", ""))
    source = load_suspension(tmp_path / "global.toml")
    model = tmp_path / "axle.toml"
    model.write_text(text.replace(LOWER_AXES + "\n", ""))
    (tmp_path / "hardpoints.csv").write_text("name,x,y,z\nlower_inner.axis,300,0,-36\n")
    moved = load_suspension(applied(tmp_path, model))
    assert (tmp_path / "moved.toml").read_text().count("axes = [[") == 4
    axis = np.array([300.0, 0.0, -36.0])
    expected = source.mechanism.moved({"lower_inner_left.axis": axis, "lower_inner_right.axis": axis})
    for name in ("lower_front_left", "lower_rear_right"):
        assert_allclose(moved.mechanism.bushings[name].axes, expected.bushings[name].axes, rtol=0, atol=1e-15)
        assert_allclose(moved.mechanism.bushings[name].at, expected.bushings[name].at, rtol=0, atol=1e-15)


@pytest.mark.xdist_group("bushing-axis-export")
def test_a_reversed_axis_row_is_one_located_line(tmp_path, exported):
    model = edited_table(tmp_path, exported, {})
    with open(tmp_path / "hardpoints.csv", "a") as table:
        table.write("lower_inner.axis,-300,0,24,\n")
    lines = (tmp_path / "hardpoints.csv").read_text().splitlines()
    proc = run_kinematrix("suspension", model, "--apply-hardpoints", "hardpoints.csv", "--save", "moved.toml",
                          cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"kinematrix: error: hardpoints.csv: line {len(lines)}: reverses the axis of a "
                                        "pair that bushings replace: no smallest rotation turns them (give the axis "
                                        "its old sense)"]
    assert not (tmp_path / "moved.toml").exists()


def test_a_negative_rate_in_a_model_file_reads_as_a_number(tmp_path):
    """The message shows the rate as a plain number (numpy 2 would print ``np.float64(...)``)."""
    text = AXLE.read_text().replace("stiffness = [500, 6000, 6000, 1000, 20000, 20000]",
                                    "stiffness = [-5, 6000, 6000, 1000, 20000, 20000]", 1)
    (tmp_path / "bad.toml").write_text(text)
    proc = run_kinematrix("suspension", "bad.toml", "--analysis", "compliance", "--travel", "0", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["kinematrix: error: bad.toml: bushings[0] ('lower_front'): stiffness[0]: "
                                        "negative rate -5000.0 (x)"]


def test_a_bushing_replacing_the_steering_pair_is_said_so(tmp_path):
    """Found auditing issue 26: a bushing that replaces the rack's slide left the compliant variant
    without its steering variable, said as a list of every variable that can steer."""
    text = AXLE.read_text() + ('\n[[bushings]]\nname = "rack_mount"\nlinks = ["ground", "rack"]\nat = [-130, 320, 180]\n'
                               'stiffness = [5000, 5000, 5000, 1000, 1000, 1000]\nreplaces = "rack_travel"\n')
    (tmp_path / "rack.toml").write_text(text)
    proc = run_kinematrix("suspension", "rack.toml", "--analysis", "compliance", "--travel", "0", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["kinematrix: error: corner.steering: 'rack_travel' is replaced by bushing "
                                        "'rack_mount' in the compliant variant, which then has no steering variable: "
                                        "the steering pair stays rigid (drop replaces = 'rack_travel' from bushing "
                                        "'rack_mount')"]


def test_a_fitted_pivot_axis_writes_the_bushings_it_turned(axle, tmp_path):
    """The optimiser turning both lower pivot axes: the model file it writes holds the bushings
    turned with them (centres from the fit, axes turned in the file), so the file read back is
    the fitted design."""
    from loops.study.optimise import optimise

    travel = np.array([0.0])
    targets = {"compliance_steer_lateral_patch_left": compliance(axle, travel).metric(
        "compliance_steer_lateral_patch_left")}
    names = ["lower_inner_left.axis.z", "lower_inner_right.axis.z"]
    fit = optimise(axle, names, bounds=([-0.05] * 2, [0.05] * 2), travel=travel, compliance_targets=targets,
                   start=[0.03, 0.03], max_evaluations=1)
    assert fit.offsets[0] == fit.offsets[1] != 0.0
    assert fit.write_model(AXLE, tmp_path / "fitted.toml") == ["lower_inner.axis", "lower_front", "lower_rear"]
    written = load_suspension(tmp_path / "fitted.toml")
    found, expected = frames(written), frames(fit.suspension)
    for name in ("lower_front_left", "lower_rear_right"):
        assert_allclose(found[name], expected[name], rtol=0, atol=1e-12, err_msg=name)
    assert np.abs(found["lower_front_left"] - frames(axle)["lower_front_left"]).max() > 1e-3
