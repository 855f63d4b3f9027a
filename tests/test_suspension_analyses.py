"""The analyses (loops.suspension.analyses): their inputs, columns, units and files.

The metrics themselves are held against hand geometry in test_suspension_references.py;
here: what each analysis drives, that the columns carry their dimensions and are written in
the model file's units with the units stated, that a stopped analysis keeps the positions it
reached, that rates with respect to any driver equal differences of positions, and that
the analyses agree with each other where they meet.

Tolerances: the same positions reached by two different analyses (sweeps closed to 1e-10 of
the size) agree to 1e-9; unit conversions are multiplications, 1e-15 relative.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from loops.suspension import (METRICS, combined, load_suspension, opposite_travel, parallel_travel, rates, roll,
                              steering)
from mechanism import SweepStopped
from mechanism.model_file import Units

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SAME = 1e-9


@pytest.fixture(scope="module")
def front():
    return load_suspension(EXAMPLES / "front_axle.toml")


@pytest.fixture(scope="module")
def corner():
    return load_suspension(EXAMPLES / "double_wishbone_steer.toml")


def test_columns_start_with_the_input_and_carry_dimensions(front, corner):
    axle = parallel_travel(front, [-0.02, 0.0, 0.02])
    names = list(axle.metrics)
    assert names[0] == "wheel_travel" and names[1] == "camber_left"
    assert names.index("camber_right") > names.index("damper_motion_ratio_left")
    assert names[-4:] == ["roll_centre_height", "roll_centre_lateral", "track", "steering_ratio"]
    for name, column in axle.metrics.items():
        base = name.removesuffix("_left").removesuffix("_right")
        if base in METRICS and name != "roll_centre_height":
            assert column.dimension == METRICS[base], name
        Units("mm", "deg").factor(column.dimension)  # every dimension scales
    single = parallel_travel(corner, [0.0, 0.01])
    assert list(single.metrics)[:3] == ["wheel_travel", "camber", "camber_front_view"]
    assert "wheel_travel_left" not in single.metrics and list(single.metrics).count("wheel_travel") == 1
    with pytest.raises(Exception, match="not a column of this analysis") as info:
        single.metric("camber_left")
    assert info.value.where == "metric 'camber_left'"
    # the analysis is the trajectory record: pair variables and points are there too
    assert single.q("travel").shape == (2,) and single.point("wheel_centre").shape == (2, 3)


def test_csv_in_the_file_units_with_the_units_stated(front, tmp_path):
    pandas = pytest.importorskip("pandas")
    typed = [-80.0, -40.0, 0.0, 40.0, 80.0]  # mm, as on the command line
    result = parallel_travel(front, Units("mm", "deg").to_si(typed, "length"))
    path = tmp_path / "metrics.csv"
    result.to_csv(path)
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# units: length=mm angle=deg time=s force=N; analysis: parallel travel of "
                               "'front-axle', wheel travel at the wheel centre; columns: wheel_travel=mm; "
                               "camber_left=deg; ")  # each column's unit last
    assert not lines[1].startswith("#")  # one comment line, then the header
    table = pandas.read_csv(path, comment="#")
    assert list(table.columns) == list(result.metrics)
    assert table["wheel_travel"].tolist() == typed  # exactly as typed
    per_degree = 180 / np.pi
    expected = {"camber_left": per_degree, "scrub_radius_left": 1e3, "camber_gain_left": per_degree / 1e3,
                "wheel_rate_left": 1e-3, "motion_ratio_left": 1.0, "anti_dive_left": 1.0, "track": 1e3}
    for name, factor in expected.items():
        assert_allclose(table[name], result.metric(name) * factor, rtol=1e-15, err_msg=name)
    frame = result.to_dataframe()
    assert_allclose(frame.to_numpy(), table.to_numpy(), rtol=0, atol=0)
    si = result.to_dataframe(units=("m", "rad"))
    assert_allclose(si["camber_left"], result.metric("camber_left"), rtol=0)


def test_a_stopped_analysis_keeps_the_positions_it_reached(front):
    """Wheel travel beyond what the wishbones allow: SweepStopped with the metrics of every
    position reached."""
    with pytest.raises(SweepStopped) as info:
        parallel_travel(front, np.linspace(0.0, 0.6, 13))
    partial = info.value.partial
    assert 0 < len(partial) < 13
    assert list(partial.metrics)[0] == "wheel_travel"
    assert len(partial.metric("camber_left")) == len(partial)
    assert_allclose(partial.metric("wheel_travel_left"), np.linspace(0.0, 0.6, 13)[:len(partial)], atol=1e-12)


def test_rates_with_respect_to_any_driver_equal_differences(corner):
    """d toe / d rack from the velocity solution against central differences of toe over
    positions of a steering sweep (step 1e-5 m: truncation h^2 toe''' / 6 ~ 1e-9 rad/m)."""
    rack, h = 0.02, 1e-5
    result = steering(corner, [rack - h, rack, rack + h], tolerance=1e-12)
    corner_spec = corner.corners["left"]
    toe_rate = rates(result, corner_spec, "rack_travel")["toe"]
    toe = result.metric("toe")
    assert toe_rate[1] == pytest.approx((toe[2] - toe[0]) / (2 * h), rel=1e-7)
    assert toe_rate[1] == pytest.approx(-result.metric("steer_rate")[1], rel=1e-14)
    travel_rate = rates(result, corner_spec, "travel")
    assert travel_rate["camber"][1] == pytest.approx(result.metric("camber_gain")[1], rel=1e-14)
    with pytest.raises(Exception, match="not a driver"):
        rates(result, corner_spec, "hub")


def test_steering_wheel_input_through_the_rack_ratio(front):
    per_turn = front.vehicle.rack_travel_per_turn
    angles = np.radians([-90.0, 180.0])
    by_wheel = steering(front, steering_wheel=angles)
    by_rack = steering(front, angles * per_turn / (2 * np.pi))
    assert list(by_wheel.metrics)[:2] == ["steering_wheel_angle", "rack_travel"]
    assert_allclose(by_wheel.metric("steer_angle_left"), by_rack.metric("steer_angle_left"), atol=SAME)
    # a left turn of the steering wheel steers the wheels left (ISO 8855: positive)
    assert by_wheel.metric("steer_angle_left")[1] > 0 > by_wheel.metric("steer_angle_left")[0]
    with pytest.raises(Exception, match="either the rack travel or the steering-wheel angle"):
        steering(front, [0.0], steering_wheel=[0.0])


def test_combined_is_steering_at_each_height(front):
    racks = np.array([-0.03, 0.0, 0.03])
    result = combined(front, [-0.04, 0.04], racks)
    assert result.metric("wheel_travel").tolist() == [-0.04] * 3 + [0.04] * 3
    assert result.metric("rack_travel").tolist() == racks.tolist() * 2
    high = steering(front, racks, travel=0.04)
    assert_allclose(result.metric("toe_left")[3:], high.metric("toe_left"), atol=SAME)
    assert_allclose(result.metric("ackermann_percent")[3:], high.metric("ackermann_percent"), atol=1e-6)


def test_opposite_travel_and_roll_mirror_each_other(front):
    """Opposite travel: the right wheel goes where the left one does at minus the travel.
    Roll: the body rolled right side down puts the right wheel in bump, the left in rebound,
    and the roll centre at zero roll is the one of parallel travel."""
    travel = np.array([-0.03, 0.03])
    opposite = opposite_travel(front, travel)
    assert_allclose(opposite.metric("camber_right"), opposite.metric("camber_left")[::-1], atol=SAME)
    rolled = roll(front, np.radians([-2.0, 0.0, 2.0]))
    assert rolled.metric("wheel_travel_right")[2] > 0 > rolled.metric("wheel_travel_left")[2]
    parallel = parallel_travel(front, [0.0])
    assert rolled.metric("roll_centre_height")[1] == pytest.approx(parallel.metric("roll_centre_height")[0],
                                                                  abs=SAME)
    assert set(rolled.metrics) >= {"roll_camber_left", "roll_steer_right", "roll_angle"}
    assert rolled.metrics["roll_camber_left"].dimension == "angle/angle"


def test_inputs_are_checked(front):
    with pytest.raises(Exception, match="travel_at") as info:
        parallel_travel(front, [0.0], travel_at="hub")
    assert info.value.where == "travel_at"
    with pytest.raises(Exception, match="finite") as info:
        parallel_travel(front, [0.0, np.nan])
    assert info.value.where == "travel"
    with pytest.raises(Exception, match="rack_travel_per_turn") as info:
        steering(load_suspension(EXAMPLES / "double_wishbone_steer.toml"), steering_wheel=[0.1])
    assert info.value.where == "vehicle.rack_travel_per_turn"
    with pytest.raises(Exception, match="no steering variable") as info:
        steering(load_suspension(EXAMPLES / "macpherson.toml"), [0.01])
    assert info.value.where == "corner.steering"


def test_rates_of_an_axle_take_the_suspension(front):
    """``rates(result, suspension, driver)`` with the README's axle: every wheel's position
    metrics with ``_left`` and ``_right`` (issue 24), each equal to the rates of that wheel's
    corner; a corner's suspension gives the corner's names."""
    result = steering(front, np.linspace(-0.02, 0.02, 5))
    axle_rates = rates(result, front, "rack_travel")
    for side in ("left", "right"):
        one = rates(result, front.corners[side], "rack_travel", vehicle=front.vehicle)
        for name, value in one.items():
            np.testing.assert_array_equal(axle_rates[f"{name}_{side}"], value)
    assert_allclose(axle_rates["toe_left"], -result.metric("steer_rate_left"), rtol=1e-14, atol=0)
    corner = load_suspension(EXAMPLES / "double_wishbone_steer.toml")
    corner_result = steering(corner, [0.0, 0.01])
    assert set(rates(corner_result, corner, "rack_travel")) == set(rates(corner_result, corner.corners["left"],
                                                                         "rack_travel"))


@pytest.mark.parametrize("run", [
    lambda s: parallel_travel(s, np.array([0.0, 0.01 + 0.001j])),
    lambda s: opposite_travel(s, [0.01j]),
    lambda s: roll(s, np.array([0.01 + 0j])),
    lambda s: steering(s, [0.0, 0.001j]),
    lambda s: combined(s, [0.0], [0.001j]),
])
def test_complex_inputs_are_refused(front, run):
    """A complex input (even with a zero imaginary part) is one line naming the argument, a
    ValueError, not a warning that drops the imaginary part (issue 24)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="complex") as info:
            run(front)
    assert info.value.where in ("travel", "roll_angle", "rack")
