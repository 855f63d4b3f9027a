"""Design studies (loops.study): every variant equals a separate analysis of that variant.

The reference for each variant is the workbench run on ``Mechanism.moved`` (a model built,
validated and compiled anew from the moved hardpoints), independent of the batched walk,
the stacked geometry and the per-row design values under test. Agreement to 1e-12: both
close every position to the same tolerance with a polishing Newton step, so positions agree
to round-off (a few 1e-15 m); metrics are compared relative to max(1, |value|) in SI (rates
per metre reach ~1, lengths are under 1 m).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from loops.compiled import compile_model
from loops.study.coordinates import coordinates, moved_hardpoints
from loops.variants import VariantGeometry, VariantSetup
from loops.study.study import Plan, run_study
from loops.study.suspension import VariantSuspension
from loops.suspension import Suspension, combined, parallel_travel, roll, steering
from loops.suspension.body_motion import static_roll_centre
from loops.suspension.files import load_suspension
from mechanism.errors import ModelError, SweepStopped
from mechanism.hardpoints import hardpoints_of

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TRAVEL = np.linspace(-0.08, 0.08, 11)
ROLL = np.radians(np.linspace(-3.0, 3.0, 7))


@pytest.fixture(scope="module")
def wishbone():
    return load_suspension(EXAMPLES / "double_wishbone.toml")


def _every_hardpoint(model):
    return [name for name, hp in hardpoints_of(model).items() if hp.key != "axis"]


def _moved(susp, coords, offsets):
    """The suspension of ``Mechanism.moved``: one variant built, checked and compiled anew."""
    return Suspension(susp.mechanism.moved(moved_hardpoints(coords, offsets)), susp.corners, susp.vehicle,
                      susp.units)


def _single(susp, coords, offsets, analysis=parallel_travel, **options):
    return analysis(_moved(susp, coords, offsets), **options)


#: Metrics that divide one velocity component by another: the instant centres and swing
#: arms. Where the arms are nearly parallel in a view (side view of this wishbone) the
#: divisor is ~1e-5 of the dividend (a swing arm of tens of km), so round-off of 1e-16 in the
#: velocities becomes ~1e-11 of the metric: they are compared to 1e-10 relative.
RATIOS = {"fvic_height", "fvsa_length", "svic_height", "svsa_length"}


def _worst(result, study, v):
    """Largest difference over the metrics, relative to max(1, |value|), in units of each
    metric's tolerance (1e-12; 1e-10 for RATIOS): below 1 passes. A metric NaN in one and
    not the other (Ackermann straight ahead is NaN in both) is an infinite difference; so is
    a study row past the positions ``result`` reached (a stopped run's partial) that is not NaN."""
    worst = 0.0
    for name in study.metrics:
        reference, value = result.metric(name), study.values(name)[v]
        reached = len(reference)
        if not np.all(np.isnan(value[reached:])):
            return np.inf
        value = value[:reached]
        if not np.array_equal(np.isnan(reference), np.isnan(value)):
            return np.inf
        error = np.abs(reference - value) / np.maximum(1.0, np.abs(reference))
        worst = max(worst, float(np.nanmax(error, initial=0.0)) / (1e-10 if name in RATIOS else 1e-12))
    return worst


def test_two_hundred_variants_equal_separate_sweeps(wishbone):
    names = _every_hardpoint(wishbone.model) + ["upper_inner.axis.y", "lower_inner.axis.z"]
    coords = coordinates(wishbone.model, names)
    rng = np.random.default_rng(11)
    offsets = rng.uniform(-0.005, 0.005, (200, len(coords)))
    offsets[:, -2:] *= 0.02  # axis components: about 0.1 rad
    study = run_study(wishbone, names, offsets, travel=TRAVEL, chunk_size=64)
    assert study.reasons == {}
    assert study.values("camber").shape == (200, len(TRAVEL))
    worst = max(_worst(_single(wishbone, coords, offsets[v], travel=TRAVEL), study, v) for v in range(200))
    assert worst < 1.0
    nominal = parallel_travel(wishbone, TRAVEL)
    for name, values in study.nominal.items():
        assert np.allclose(values, nominal.metric(name), rtol=0, atol=1e-12 * max(1.0, np.abs(values).max()))
    # the variants differ from each other: the comparison above is not of copies of the nominal
    assert np.ptp(study.values("toe")[:, 0]) > 1e-4


def test_steering_study_equals_separate_sweeps():
    susp = load_suspension(EXAMPLES / "double_wishbone_steer.toml")
    names = ["steer_ball", "rack_end.y"]
    coords = coordinates(susp.model, names)
    offsets = np.random.default_rng(3).uniform(-0.004, 0.004, (6, len(coords)))
    rack = np.linspace(-0.03, 0.03, 7)
    study = run_study(susp, names, offsets, analysis="steering", rack=rack)
    for v in range(len(offsets)):
        assert _worst(_single(susp, coords, offsets[v], steering, rack=rack), study, v) < 1.0


def test_a_variant_that_stops_keeps_its_reason_and_the_others_go_on(wishbone):
    # Moving the lower ball 360 mm inboard leaves an arm too short for the full bump travel.
    offsets = np.array([[0.0], [-0.30], [-0.36], [0.002]])
    study = run_study(wishbone, ["lower_ball.y"], offsets, travel=TRAVEL)
    assert list(study.reasons) == [2]
    coords = coordinates(wishbone.model, ["lower_ball.y"])
    with pytest.raises(SweepStopped) as stopped:
        _single(wishbone, coords, offsets[2], travel=TRAVEL)
    assert study.reasons[2] == stopped.value.reason
    reached = len(stopped.value.partial)
    camber = study.values("camber")
    assert np.all(np.isnan(camber[2, reached:])) and not np.any(np.isnan(camber[2, :reached]))
    assert np.allclose(camber[2, :reached], stopped.value.partial.metric("camber"), rtol=0, atol=1e-12)
    assert not np.any(np.isnan(camber[[0, 1, 3]]))
    assert _worst(_single(wishbone, coords, offsets[3], travel=TRAVEL), study, 3) < 1.0


def test_contact_patch_travel_goes_on_past_a_stopped_variant(wishbone):
    # At the contact patch every Newton step on the travels sweeps again: the stopped
    # variant's NaN rows are positions it is not walked to, and its reason stands.
    offsets = np.array([[0.0], [-0.36], [0.002]])
    study = run_study(wishbone, ["lower_ball.y"], offsets, travel=TRAVEL, travel_at="contact-patch")
    assert list(study.reasons) == [1]
    coords = coordinates(wishbone.model, ["lower_ball.y"])
    with pytest.raises(SweepStopped) as stopped:
        _single(wishbone, coords, offsets[1], travel=TRAVEL, travel_at="contact-patch")
    assert study.reasons[1] == stopped.value.reason
    assert 0 < len(stopped.value.partial) < len(TRAVEL)
    assert _worst(stopped.value.partial, study, 1) < 1.0
    assert _worst(_single(wishbone, coords, offsets[2], travel=TRAVEL, travel_at="contact-patch"), study, 2) < 1.0


# ------------------------------------------------------------------ an axle: roll and combined
@pytest.fixture(scope="module")
def front_axle():
    return load_suspension(EXAMPLES / "front_axle.toml")


#: Hardpoints of both corners of the mirrored axle (each side's move on their own, so the
#: variants are asymmetric), the tie rod's outer ball among them.
AXLE_HARDPOINTS = ["lower_ball_left", "upper_inner_left.z", "steer_ball_left.z", "lower_ball_right.z",
                   "upper_ball_right"]


def _axle_variants(axle, count, seed):
    coords = coordinates(axle.model, AXLE_HARDPOINTS)
    return coords, np.random.default_rng(seed).uniform(-0.005, 0.005, (count, len(coords)))


def test_static_roll_centre_is_per_row_for_variants(front_axle):
    coords, offsets = _axle_variants(front_axle, 3, 2)
    centres = static_roll_centre(VariantSuspension(front_axle, coords, offsets, 2))
    assert centres.shape == (6, 3)  # (variant, position) rows
    for v in range(3):
        single = static_roll_centre(_moved(front_axle, coords, offsets[v]))
        # an intersection of two lines (like the instant centres of RATIOS): 1e-12 m holds here
        assert np.allclose(centres[2 * v:2 * v + 2], single, rtol=0, atol=1e-12)
    assert static_roll_centre(front_axle).shape == (3,)  # one design: one point, as before
    assert np.ptp(centres[:, 2]) > 1e-3


def test_roll_study_equals_separate_rolls(front_axle):
    coords, offsets = _axle_variants(front_axle, 30, 7)
    study = run_study(front_axle, AXLE_HARDPOINTS, offsets, analysis="roll", roll=ROLL)
    assert study.reasons == {}
    assert study.values("roll_camber_left").shape == (30, len(ROLL))
    assert np.array_equal(study.inputs["roll_angle"][1], ROLL)
    worst = max(_worst(_single(front_axle, coords, offsets[v], roll, roll_angle=ROLL), study, v) for v in range(30))
    assert worst < 1.0
    nominal = roll(front_axle, ROLL)
    for name, values in study.nominal.items():
        assert np.allclose(values, nominal.metric(name), rtol=0, atol=1e-12 * max(1.0, np.abs(values).max()))
    # every variant rolls about its own roll centre, millimetres apart
    assert np.ptp(study.values("roll_centre_height")[:, len(ROLL) // 2]) > 1e-3


def test_combined_study_equals_separate_runs(front_axle):
    coords, offsets = _axle_variants(front_axle, 20, 8)
    # No straight-ahead rack position: there Ackermann is a ratio of the ~1e-3 rad bump steer
    # angles, conditioned only as well as their difference is far from zero.
    levels, rack = np.array([-0.03, 0.0, 0.03]), np.linspace(-0.02, 0.02, 4)
    study = run_study(front_axle, AXLE_HARDPOINTS, offsets, analysis="combined", travel=levels, rack=rack)
    assert study.reasons == {}
    assert np.array_equal(study.inputs["wheel_travel"][1], np.repeat(levels, len(rack)))
    assert np.array_equal(study.inputs["rack_travel"][1], np.tile(rack, len(levels)))
    worst = max(_worst(_single(front_axle, coords, offsets[v], combined, travel=levels, rack=rack), study, v)
                for v in range(20))
    assert worst < 1.0


def test_a_variant_that_stops_in_roll_keeps_its_reason_and_the_others_go_on(front_axle):
    # The left tie rod's outer ball 330 mm inboard meets a dead point at the sixth roll angle,
    # 360 mm inboard before the first: each stops as its separate roll stops.
    offsets = np.array([[0.0], [-0.33], [-0.36], [0.002]])
    study = run_study(front_axle, ["steer_ball_left.y"], offsets, analysis="roll", roll=ROLL)
    assert list(study.reasons) == [1, 2]
    coords = coordinates(front_axle.model, ["steer_ball_left.y"])
    for v, reached in ((1, 5), (2, 0)):
        with pytest.raises(SweepStopped) as stopped:
            _single(front_axle, coords, offsets[v], roll, roll_angle=ROLL)
        assert study.reasons[v] == stopped.value.reason
        assert len(stopped.value.partial) == reached
        if reached:
            assert _worst(stopped.value.partial, study, v) < 1.0
        else:
            assert all(np.all(np.isnan(study.values(name)[v])) for name in study.metrics)
    assert _worst(_single(front_axle, coords, offsets[3], roll, roll_angle=ROLL), study, 3) < 1.0


def test_variant_geometry_equals_the_compiled_moved_model(wishbone):
    model = wishbone.model
    names = ["lower_ball", "wheel_centre.z", "upper_inner.axis.x", "rack_end"]
    coords = coordinates(model, names)
    offsets = np.random.default_rng(5).uniform(-0.01, 0.01, (4, len(coords)))
    system = compile_model(model)
    stacked = VariantGeometry(system, coords).geometries(offsets)
    for v in range(len(offsets)):
        moved = compile_model(wishbone.mechanism.moved(moved_hardpoints(coords, offsets[v])).snapshot())
        assert moved.geometry.scale == stacked.scale[v]
        for name in ("frame_j", "frame_k", "gauge_axis", "gauge_reference"):
            assert np.allclose(getattr(moved.geometry, name), getattr(stacked, name)[v], rtol=0, atol=1e-15)


def test_variant_arrays_are_read_only_as_the_nominal_system_s(wishbone):
    # numba types a read-only array apart from a writable one: the batched walk calls the single
    # walk's compiled kernels only when one variant's arrays have the nominal system's types
    # (a writable stack compiles the whole chain a second time, a minute on a first run)
    model = wishbone.model
    coords = coordinates(model, ["lower_ball", "upper_inner.axis.x"])
    system = compile_model(model)
    builder = VariantGeometry(system, coords)
    stacked = builder.geometries(np.zeros((2, len(coords))))
    for name in ("frame_j", "frame_k", "scale", "gauge_axis", "gauge_reference"):
        assert not getattr(stacked, name).flags.writeable, name
        if name != "scale":
            assert not getattr(system.geometry, name).flags.writeable, name
    block = VariantSetup(system, ["travel"], None, 1e-10).block
    weighted = builder.blocks(block, stacked.scale)
    for name in ("row_scale", "column_scale"):
        assert not getattr(block, name).flags.writeable and not getattr(weighted, name).flags.writeable, name


def test_study_table_reads_back_in_the_file_units(wishbone, tmp_path):
    pandas = pytest.importorskip("pandas")
    offsets = np.array([[0.001, 0.0], [0.0, -0.002]])
    study = run_study(wishbone, ["lower_ball.z", "upper_ball.x"], offsets, travel=TRAVEL)
    path = tmp_path / "study.csv"
    study.to_csv(path)
    first = path.read_text().splitlines()[0]
    assert first.startswith("# units: length=mm angle=deg")
    table = pandas.read_csv(path, comment="#")
    assert len(table) == 2 * len(TRAVEL)
    assert list(table.columns[:4]) == ["variant", "position", "lower_ball.z", "upper_ball.x"]
    # The indices are whole numbers in the file ("1,3,..."), read back as integers.
    assert "; columns: variant=1; position=1; lower_ball.z=mm; " in path.read_text().splitlines()[0]
    assert path.read_text().splitlines()[2 + len(TRAVEL) + 3].startswith("1,3,")
    assert table["variant"].dtype.kind == "i" and table["position"].dtype.kind == "i"
    nominal_z = coordinates(wishbone.model, ["lower_ball.z"])[0].nominal
    assert table["lower_ball.z"].iloc[0] == pytest.approx((nominal_z + 0.001) * 1e3, abs=1e-9)
    assert table["camber"].to_numpy() == pytest.approx(np.degrees(study.values("camber").reshape(-1)), abs=1e-9)
    frame = study.to_dataframe()
    assert frame["variant"].dtype.kind == "i" and frame.shape == table.shape
    summary = {c.name: c.values for c in study.summary()}
    low, high = study.band("camber", 0, 100)
    assert np.array_equal(summary["camber_min"], low) and np.array_equal(summary["camber_max"], high)
    assert np.array_equal(summary["camber_nominal"], study.nominal["camber"])


@pytest.mark.parametrize("call, where", [
    (lambda s: run_study(s, ["no_such_ball"], [[0.0]], travel=TRAVEL), "vary 'no_such_ball'"),
    (lambda s: run_study(s, ["lower_ball.q"], [[0.0]], travel=TRAVEL), "vary 'lower_ball.q'"),
    (lambda s: run_study(s, ["lower_ball", "lower_ball.z"], np.zeros((1, 4)), travel=TRAVEL), "vary 'lower_ball.z'"),
    (lambda s: run_study(s, ["lower_ball.z"], np.zeros((2, 2)), travel=TRAVEL), "offsets"),
    (lambda s: run_study(s, ["lower_ball.z"], [[np.nan]], travel=TRAVEL), "offsets"),
    (lambda s: run_study(s, ["lower_ball.z"], [[0.0]], analysis="bounce", travel=TRAVEL), "analysis"),
    (lambda s: run_study(s, ["lower_ball.z"], [[0.0]], analysis="roll", roll=ROLL), "analysis"),  # a corner
    (lambda s: run_study(s, ["lower_ball.z"], [[0.0]], analysis="roll", travel=TRAVEL), "roll"),
    (lambda s: run_study(s, ["lower_ball.z"], [[0.0]], analysis="steering"), "rack"),
    (lambda s: run_study(s, ["lower_ball.z"], [[0.0]], analysis="combined", travel=TRAVEL), "rack"),
    (lambda s: run_study(s, ["lower_ball.z"], [[0.0]], travel=TRAVEL, chunk_size=0), "chunk_size"),
])
def test_bad_study_input_is_located(wishbone, call, where):
    with pytest.raises(ModelError) as error:
        call(wishbone)
    assert error.value.where.startswith(where)


def test_plan_is_checked_before_anything_runs():
    with pytest.raises(ModelError, match="travel"):
        Plan(analysis="parallel", travel=[np.inf]).check()
    with pytest.raises(ModelError, match="the roll analysis needs its roll values"):
        Plan(analysis="roll", travel=TRAVEL).check()
    with pytest.raises(ModelError, match="the combined analysis needs its rack values"):
        Plan(analysis="combined", travel=TRAVEL).check()


def test_a_model_with_link_local_frames_cannot_be_studied():
    # Bennett's pairs are declared by link-local frames and assembled: hardpoints are not
    # global design-pose locations there, so variants cannot be built from them.
    from mechanism import load_model

    system = compile_model(load_model(EXAMPLES / "bennett.toml").snapshot())
    with pytest.raises(ModelError, match="link-local frames") as error:
        VariantGeometry(system, [])
    assert error.value.where == "vary"


def test_a_study_too_large_to_hold_is_refused_before_it_runs(wishbone, monkeypatch):
    # With the limit at 1 MB: 1000 variants x 7 positions x 28 columns of the table (1.6 MB) are refused at the
    # offsets; 100 variants (0.16 MB of table) in one chunk, whose walk holds 100 x 7 variant-positions of poses
    # and rates (2.7 MB), at chunk_size; in chunks of 10 they run. The variants are not walked before the refusal
    # (the chunks' runner is never called).
    import loops.study.study as study_module

    monkeypatch.setattr(study_module, "MAX_RECORD_BYTES", 2**20)
    travel = np.linspace(-0.03, 0.03, 7)
    calls = []
    real_chunk = study_module.run_chunk
    monkeypatch.setattr(study_module, "run_chunk", lambda *a, **k: calls.append(len(a[2])) or real_chunk(*a, **k))
    with pytest.raises(ModelError, match="GiB, more than") as error:
        run_study(wishbone, ["lower_ball.z"], np.zeros((1000, 1)), travel=travel)
    assert error.value.where == "offsets" and calls == [1]
    with pytest.raises(ModelError, match="give a smaller chunk_size") as error:
        run_study(wishbone, ["lower_ball.z"], np.zeros((100, 1)), travel=travel, chunk_size=100)
    assert error.value.where == "chunk_size"
    assert run_study(wishbone, ["lower_ball.z"], np.zeros((100, 1)), travel=travel, chunk_size=10).variants == 100


def test_a_variant_whose_axis_vanishes_is_reported_and_the_others_go_on(wishbone):
    # Variant 1 moves the upper inner axis (1, 0, 0) by (-1, 0, 0): no axis, so no pair frame. It is reported with
    # its reason and NaN rows; variants 0 and 2 are bit for bit those of a study without it (each variant is walked
    # on its own).
    names = ["upper_inner.axis"]
    offsets = np.array([[0.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.01, -0.01]])
    study = run_study(wishbone, names, offsets, travel=TRAVEL)
    assert list(study.reasons) == [1] and "axis of 'upper_inner' vanish" in study.reasons[1]
    alone = run_study(wishbone, names, offsets[[0, 2]], travel=TRAVEL)
    for name in ("camber", "toe", "camber_gain", "bump_steer"):
        values = study.values(name)
        assert np.all(np.isnan(values[1]))
        assert np.array_equal(values[[0, 2]], alone.values(name)), name


def test_a_nominal_design_that_stops_is_refused(wishbone):
    # Travel far past the arms' reach: the nominal itself stops, so the study has no reference.
    with pytest.raises(ModelError, match="the nominal design does not complete") as error:
        run_study(wishbone, ["lower_ball.z"], [[0.0]], travel=np.linspace(0.0, 0.6, 7))
    assert error.value.where == "model"


def test_complex_study_and_fit_inputs_are_refused():
    """A study's plan and an optimisation refuse complex inputs with one line naming them
    (issue 24), as the analyses do."""
    from loops.study.optimise import optimise
    from loops.suspension import load_suspension

    with pytest.raises(ValueError, match="complex") as info:
        Plan("parallel", travel=[0.0, 0.01j]).check()
    assert info.value.where == "travel"
    corner = load_suspension(EXAMPLES / "double_wishbone.toml")
    with pytest.raises(ValueError, match="complex") as info:
        optimise(corner, ["lower_ball.z"], {"camber": np.zeros(2)}, bounds=0.01, travel=[0.0, 0.01j])
    assert info.value.where == "travel"


def test_a_variant_that_is_no_design_stops_alone_named():
    """A variant whose kingpin lies flat (upper ball moved 400 mm out and 330 mm down) is a
    variant that stops before its first position, its reason naming what is wrong; the
    study goes on and the other variants' rows are theirs alone (issue 24: it aborted the
    whole study naming neither the variant nor the key)."""
    susp = load_suspension(EXAMPLES / "double_wishbone.toml")
    coords = coordinates(susp.model, ["upper_ball.y", "upper_ball.z"])
    offsets = np.array([[0.0, 0.0], [0.4, -0.33], [0.001, 0.0]])
    travel = np.linspace(-0.02, 0.02, 3)
    result = run_study(susp, coords, offsets, travel=travel)
    assert list(result.reasons) == [1]
    assert "corner.kingpin" in result.reasons[1] and "leans 88.4 deg" in result.reasons[1]
    alone = run_study(susp, coords, offsets[[0, 2]], travel=travel)
    for name in result.metrics:
        assert np.all(np.isnan(result.values(name)[1])), name
        np.testing.assert_array_equal(result.values(name)[[0, 2]], alone.values(name), err_msg=name)
