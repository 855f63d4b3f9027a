"""Design sensitivities and hardpoint optimisation (loops.study.sensitivity, loops.study.optimise).

Reference: central differences of separate sweeps of moved designs
(:meth:`mechanism.Mechanism.moved`), each a whole analysis of its own. Metrics: steps
``H_METRICS = 1e-5`` m (or 1e-5 on an axis component) and its half, Richardson-extrapolated
(truncation O(H^4)); link twists and points: plain central differences with ``H = 1e-6``.
Tolerance: ``1e-6`` of the derivative's largest magnitude over the positions, plus an
absolute floor of ``1e-7`` (SI per metre). The floor: the differenced sweeps are closed to
``1e-13`` of the mechanism's size (about 1 m), so a position, and so a metric, can be off
by about ``1e-13`` in each, which a difference over ``2 H`` turns into up to ``1e-13 / 1e-6
= 1e-7``. The tolerance matters for derivatives that vanish (castor against the inner
tie-rod ball). Why the metrics need more: the instant centres and the roll centre are
ratios whose denominators nearly vanish (a side-view swing arm 3.7 km long at one rack
position of the steered corner), so their third derivatives reach 1e7 and plain central
differences at 1e-6 are off by 2e-6 relative, while at 1e-7 round-off (value times 1e-13
over H) takes over; at 1e-5 extrapolated both are below 1e-7 relative.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from loops.study.sensitivity import directions, driver_rates, motion, roll as roll_sensitivity, wheel_rate
from loops.study.coordinates import coordinates, moved_hardpoints
from loops.study.optimise import optimise
from loops.study.sensitivity import HardpointMotion, sensitivities, sensitivities_of
from loops.suspension import Suspension, load_suspension, parallel_travel, roll, steering
from loops.suspension.body_motion import static_roll_centre
from loops.suspension.motion import Motion
from mechanism import ModelError
from mechanism.hardpoints import hardpoints_of
from oracles.transforms import twist_vector

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
H = 1e-6
H_METRICS = 1e-5
CLOSED = 1e-13  # closure tolerance of every sweep compared here
RELATIVE, FLOOR = 1e-6, 1e-7
TRAVEL = np.linspace(-0.08, 0.08, 7)
RACK = np.linspace(-0.02, 0.02, 5)

#: On the double wishbone: a ball joint, a chassis pivot, both tie-rod ends, the wheel-centre
#: point (which carries the wheel-travel driver), the spin-axis point, an axis component.
COORDINATES = ["lower_ball.z", "lower_ball.x", "upper_inner.y", "rack_end.x", "steer_ball.z", "wheel_centre.y",
               "wheel_centre.z", "hub_inner.x", "upper_inner.axis.z"]


@pytest.fixture(scope="module")
def corner():
    return load_suspension(EXAMPLES / "double_wishbone.toml")


@pytest.fixture(scope="module")
def steered():
    return load_suspension(EXAMPLES / "double_wishbone_steer.toml")


def variant(susp, coords, offsets):
    moved = susp.mechanism.moved(moved_hardpoints(coords, offsets))
    return Suspension(moved, susp.corners, susp.vehicle, susp.units)


def differences(susp, coords, analyse):
    """Central differences ``{metric: (N, k)}`` of the analyses of moved designs at steps
    ``H_METRICS`` and its half, Richardson-extrapolated: ``(4 D(H/2) - D(H)) / 3`` (module
    docstring)."""
    out = {}
    for j in range(len(coords)):
        central = []
        for step in (H_METRICS, H_METRICS / 2):
            offsets = np.zeros(len(coords))
            offsets[j] = step
            plus, minus = analyse(variant(susp, coords, offsets)), analyse(variant(susp, coords, -offsets))
            central.append({name: (plus.metric(name) - minus.metric(name)) / (2 * step) for name in plus.metrics})
        for name in central[0]:
            column = out.setdefault(name, np.zeros((len(plus), len(coords))))
            column[:, j] = (4.0 * central[1][name] - central[0][name]) / 3.0
    return out


def assert_matches(sens, reference, names=None):
    """Every derivative within the tolerance of the module docstring; NaN exactly where the
    differences are NaN (a metric undefined there: Ackermann straight ahead)."""
    names = list(sens.values) if names is None else names
    checked = 0
    for name in names:
        exact, fd = sens.values[name], reference[name]
        undefined = np.isnan(fd)
        np.testing.assert_array_equal(np.isnan(exact), undefined, err_msg=name)
        exact, fd = np.where(undefined, 0.0, exact), np.where(undefined, 0.0, fd)
        # The floor is for metrics of about unit size; a wheel rate (3e4 N/m) is closed to the
        # same relative defect, so its floor scales with it.
        floor = FLOOR * (np.abs(sens.result.metric(name)).max() if name.startswith("wheel_rate") else 1.0)
        for j, coordinate in enumerate(sens.coordinates):
            scale = np.abs(exact[:, j]).max()
            error = np.abs(exact[:, j] - fd[:, j]).max()
            assert error <= RELATIVE * scale + floor, (name, coordinate.name, error, scale)
            checked += 1
    assert checked


def test_sensitivities_equal_differences_of_moved_designs(corner):
    sens = sensitivities(corner, COORDINATES, TRAVEL, tolerance=CLOSED)
    assert [c.name for c in sens.coordinates] == COORDINATES
    for name in ("camber", "toe", "castor", "kingpin_inclination", "scrub_radius", "castor_trail", "track_change",
                 "wheel_recession", "half_track", "camber_gain", "bump_steer"):
        assert sens[name].shape == (len(TRAVEL), len(COORDINATES)), name
    for name in ("fvic_height", "fvsa_length", "svic_height", "svsa_length", "roll_centre_height", "roll_centre_z"):
        assert sens[name].shape == (len(TRAVEL), len(COORDINATES)), name
    assert "wheel_rate" not in sens.values
    reference = differences(corner, sens.coordinates, lambda s: parallel_travel(s, TRAVEL, tolerance=CLOSED))
    assert_matches(sens, reference)


def test_steering_sensitivities_and_the_steer_rate(steered):
    names = ["steer_ball.x", "rack_end.y", "upper_ball.z", "wheel_centre.x"]
    sens = sensitivities(steered, names, 0.02, analysis="steering", rack=RACK, tolerance=CLOSED)
    assert "steer_rate" in sens.values and sens.inputs[0].name == "rack_travel"
    reference = differences(steered, sens.coordinates,
                            lambda s: steering(s, RACK, travel=0.02, tolerance=CLOSED))
    assert_matches(sens, reference)


def test_spring_on_an_idle_link_and_a_virtual_steering_axis():
    """five_link_rear: the spring's inner end sits on the spring link, which spins idly about
    the line through its balls; the steering axis is the upright's instant axis in the
    steering motion, which moves with the twist's rate along p (V1)."""
    rear = load_suspension(EXAMPLES / "five_link_rear.toml")
    names = ["spring_link_inner.z", "coil.at_a", "toe_link_inner.y", "toe_adjust.axis.x", "hub_inner.z",
             "wheel_centre.x"]
    sens = sensitivities(rear, names, TRAVEL, tolerance=CLOSED)
    assert {"motion_ratio", "wheel_rate", "castor", "kingpin_inclination", "scrub_radius"} <= set(sens.values)
    # Outboard brakes: the anti-lift follows the upright's point at the design contact patch,
    # which the wheel-centre and spin-axis points move.
    assert "anti_lift" in sens.values and "anti_squat" in sens.values
    reference = differences(rear, sens.coordinates, lambda s: parallel_travel(s, TRAVEL, tolerance=CLOSED))
    assert_matches(sens, reference)


def test_located_points_move_with_their_hardpoint(corner, monkeypatch):
    """The wheel centre and the spin-axis point are hardpoints of the corner: their own move in
    the upright (``R_link e``) is what their sensitivities are made of; without it they are
    wrong."""
    names = ["hub_inner.x", "wheel_centre.y"]
    sens = sensitivities(corner, names, TRAVEL, tolerance=CLOSED)
    reference = differences(corner, sens.coordinates, lambda s: parallel_travel(s, TRAVEL, tolerance=CLOSED))
    assert_matches(sens, reference, ["toe", "camber", "scrub_radius", "camber_gain", "bump_steer"])
    monkeypatch.setattr(HardpointMotion, "point", Motion.point)  # the located-point term deleted
    without = sensitivities(corner, names, TRAVEL, tolerance=CLOSED)
    for name in ("toe", "scrub_radius", "bump_steer"):
        assert np.abs(without[name] - reference[name]).max() > 1e-2 * np.abs(reference[name]).max(), name


def test_an_idle_link_follows_its_gauge(corner):
    """The tie rod's own motion along a hardpoint (its spin held by the gauge, whose axis
    follows the tie-rod ends) and the rate of its velocity along the travel, against the
    moved designs' poses and velocities: the gauge rows' terms, first and second order."""
    names = ["rack_end.x", "steer_ball.z", "lower_ball.z"]
    sens = sensitivities(corner, names, TRAVEL, tolerance=CLOSED)
    twist, rate = sens.link_twist("tie_rod"), sens.link_velocity_rate("tie_rod", "travel")
    nominal = sens.result.pose("tie_rod")
    for j in range(len(names)):
        offsets = np.zeros(len(names))
        offsets[j] = H
        runs = [parallel_travel(variant(corner, sens.coordinates, s * offsets), TRAVEL, tolerance=CLOSED)
                for s in (1, -1)]
        pose_rate = (runs[0].pose("tie_rod") - runs[1].pose("tie_rod")) / (2 * H)
        expected = twist_vector(pose_rate @ np.linalg.inv(nominal))
        assert np.abs(twist[:, j] - expected).max() <= RELATIVE * np.abs(expected).max() + FLOOR, names[j]
        velocities = [r.along("travel").link_velocity("tie_rod") for r in runs]
        expected = (velocities[0] - velocities[1]) / (2 * H)
        assert np.abs(rate[:, j] - expected).max() <= RELATIVE * np.abs(expected).max() + FLOOR, names[j]


def test_a_hooke_pair_rates_its_own_twist(tmp_path, monkeypatch):
    """The tie rod on a Hooke joint at the upright (an S-U link, no idle spin): the second pin
    turns with the first angle, a term of the second-order closure, and (T1') of the third:
    the tie rod's and the upright's acceleration rates against differences of the moved
    designs' accelerations; without (T1') the tie rod's are wrong."""
    text = (EXAMPLES / "double_wishbone.toml").read_text()
    spherical = 'name = "steer_ball"\ntype = "spherical"\nlinks = ["tie_rod", "upright"]\nat = [-140, 700, 170]'
    assert spherical in text
    path = tmp_path / "hooke_tie_rod.toml"
    hooke = spherical.replace("spherical", "hooke") + "\naxes = [[0, 0, 1], [1, 0, 0]]"  # pins across the rod
    path.write_text(text.replace(spherical, hooke))
    susp = load_suspension(path)
    names = ["steer_ball.z", "lower_ball.z"]
    sens = sensitivities(susp, names, TRAVEL, tolerance=CLOSED)
    rate = sens.link_velocity_rate("tie_rod", "travel")
    for j in range(len(names)):
        offsets = np.zeros(len(names))
        offsets[j] = H
        velocities = [parallel_travel(variant(susp, sens.coordinates, s * offsets), TRAVEL, tolerance=CLOSED)
                      .along("travel").link_velocity("tie_rod") for s in (1, -1)]
        expected = (velocities[0] - velocities[1]) / (2 * H)
        assert np.abs(rate[:, j] - expected).max() <= RELATIVE * np.abs(expected).max() + FLOOR, names[j]
    reference = differences(susp, sens.coordinates, lambda s: parallel_travel(s, TRAVEL, tolerance=CLOSED))
    assert_matches(sens, reference, ["toe", "bump_steer", "camber_gain"])
    expected = acceleration_differences(susp, sens.coordinates, ["tie_rod", "upright"])
    for link in ("tie_rod", "upright"):
        exact = sens.link_acceleration_rate(link, "travel")
        assert np.abs(exact - expected[link]).max() <= RELATIVE * np.abs(expected[link]).max() + FLOOR, link
    monkeypatch.setattr(directions, "hooke_terms", lambda *args: 0.0)
    wrong = sens.link_acceleration_rate("tie_rod", "travel")
    assert np.abs(wrong - expected["tie_rod"]).max() > 1e-3 * np.abs(expected["tie_rod"]).max()


def acceleration_differences(susp, coords, links):
    """Central differences ``{link: (N, k, 6)}`` of the links' accelerations per unit travel
    rate squared, over the moved designs (``H``)."""
    out = {link: np.zeros((len(TRAVEL), len(coords), 6)) for link in links}
    for j in range(len(coords)):
        offsets = np.zeros(len(coords))
        offsets[j] = H
        runs = [parallel_travel(variant(susp, coords, s * offsets), TRAVEL, tolerance=CLOSED).along("travel")
                for s in (1, -1)]
        for link in links:
            out[link][:, j] = (runs[0].link_acceleration(link) - runs[1].link_acceleration(link)) / (2 * H)
    return out


def test_ranked_and_the_table_in_file_units(corner, tmp_path):
    sens = sensitivities(corner, ["lower_ball", "upper_inner.axis.z"], TRAVEL, rates=False)
    assert "camber_gain" not in sens.values
    rows = sens.ranked("camber")
    assert [r.metric for r in rows] == ["camber"] * 4
    magnitudes = [abs(r.derivative) for r in rows]
    assert magnitudes == sorted(magnitudes, reverse=True)
    top = rows[0]
    j = [c.name for c in sens.coordinates].index(top.coordinate)
    assert top.derivative == np.abs(sens["camber"][:, j]).max() * math.copysign(1, top.derivative)
    assert top.at == TRAVEL[top.position]
    at_design = sens.ranked("toe", position=3)
    assert all(r.position == 3 for r in at_design) and len(sens.ranked()) == 4 * len(sens.values)
    path = tmp_path / "sensitivities.csv"
    sens.to_csv(path)
    pandas = pytest.importorskip("pandas")
    table = pandas.read_csv(path, comment="#")
    first = path.read_text().splitlines()[0]
    assert first.startswith("# units: length=mm angle=deg") and "sensitivities of the parallel travel" in first
    assert table.columns[0] == "wheel_travel"
    np.testing.assert_allclose(table["wheel_travel"], TRAVEL * 1e3, rtol=1e-15)
    # deg per mm for a location, deg per unit for an axis component
    np.testing.assert_allclose(table["camber/lower_ball.z"], sens["camber"][:, 2] * 180 / np.pi / 1e3, rtol=1e-12)
    np.testing.assert_allclose(table["camber/upper_inner.axis.z"], sens["camber"][:, 3] * 180 / np.pi, rtol=1e-12)


@pytest.mark.parametrize("kwargs, where, text", [
    ({"coords": ["nope.z"]}, "vary 'nope.z'", "not a hardpoint"),
    ({"coords": ["lower_ball.w"]}, "vary 'lower_ball.w'", "not a hardpoint"),
    ({"analysis": "roll"}, "roll_angle", "roll angles"),
    ({"analysis": "rolling"}, "analysis", "expected one of"),
    ({"travel_at": "contact-patch"}, "travel_at", "contact-patch"),
    ({"analysis": "steering"}, "rack", "steering variable"),
])
def test_mistakes_are_located(corner, kwargs, where, text):
    arguments = {"coords": ["lower_ball.z"], **kwargs}
    with pytest.raises(ModelError, match=text) as info:
        sensitivities(corner, arguments.pop("coords"), TRAVEL, **arguments)
    assert info.value.where == where


def test_a_move_that_breaks_an_idle_spin_has_no_derivative():
    """MacPherson: the strut rod spins idly about its axis through the top mount; moving the
    top mount off that axis gives a design with one more real freedom."""
    strut = load_suspension(EXAMPLES / "macpherson.toml")
    result = parallel_travel(strut, TRAVEL[:3])
    for name in ("top_mount.y", "strut.x", "strut.axis.y"):
        with pytest.raises(ModelError, match="idle spin") as info:
            sensitivities_of(result, [name])
        assert info.value.where == f"vary {name!r}"
    assert sensitivities_of(result, ["strut_top.x", "lca_inner.axis.z"], rates=False)["camber"].shape == (3, 2)


# ------------------------------------------------------------------ roll
ROLL = np.radians(np.linspace(-4.0, 4.0, 5))

#: On the front axle: a ball joint and a chassis pivot of the left corner (both move the
#: static roll centre), the left wheel-centre point (it carries the travel driver and the
#: design values), the right spin-axis point, the left tie-rod's inner ball, an axis.
ROLL_COORDINATES = ["lower_ball_left.z", "upper_ball_left.y", "lower_inner_left.z", "wheel_centre_left.z",
                    "hub_inner_right.x", "rack_end_left.y", "upper_inner_left.axis.z"]


@pytest.fixture(scope="module")
def front_axle():
    return load_suspension(EXAMPLES / "front_axle.toml")


@pytest.fixture(scope="module")
def roll_sensitivities(front_axle):
    return sensitivities(front_axle, ROLL_COORDINATES, analysis="roll", roll_angle=ROLL, tolerance=CLOSED)


@pytest.fixture(scope="module")
def roll_differences(front_axle, roll_sensitivities):
    return differences(front_axle, roll_sensitivities.coordinates, lambda s: roll(s, ROLL, tolerance=CLOSED))


def test_a_rear_axle_on_virtual_steering_axes_rolls_with_its_sensitivities():
    """The five-link rear mirrored into an axle: its steering axes are the uprights' instant
    axes in the toe-link motions (the roll and its static roll centre take them from the
    steering variables' motions); the steering-axis metrics move along the roll solution
    with the twists' rates along p and along each travel (V1), the wheel rate with (R8)."""
    rear = load_suspension(EXAMPLES / "five_link_rear.toml").axle()
    names = ["spring_link_inner_left.z", "toe_link_inner_left.y", "hub_inner_left.z", "wheel_centre_right.x"]
    sens = sensitivities(rear, names, analysis="roll", roll_angle=ROLL, tolerance=CLOSED)
    assert {"castor_left", "kingpin_inclination_right", "scrub_radius_left", "wheel_rate_left"} <= set(sens.values)
    assert_matches(sens, differences(rear, sens.coordinates, lambda s: roll(s, ROLL, tolerance=CLOSED)))


def test_roll_sensitivities_equal_differences_of_moved_designs(roll_sensitivities, roll_differences):
    """Every position metric of the roll, per side, against whole roll analyses of moved
    designs: each difference rolls about its own design's static roll centre and solves its
    own travels. Tolerance of the module docstring: the contact conditions are met to
    NEWTON_TOLERANCE = 1e-12 m at most, in practice to round-off (the last of Newton's steps
    converges quadratically): observed differences are below 2e-9."""
    sens = roll_sensitivities
    assert sens.inputs[0].name == "roll_angle" and repr(sens).endswith("positions of the roll)")
    for name in ("camber", "toe", "steer_angle", "wheel_travel", "contact_patch_travel", "track_change",
                 "half_track", "scrub_radius", "spring_length"):
        for side in ("left", "right"):
            assert sens[f"{name}_{side}"].shape == (len(ROLL), len(ROLL_COORDINATES)), name
    assert {"roll_camber_left", "roll_steer_right", "camber_gain_left", "bump_steer_right", "motion_ratio_left",
            "steer_rate_right", "wheel_rate_left", "wheel_rate_right", "fvic_height_left", "roll_centre_z_right",
            "anti_dive_left", "roll_centre_height",
            "roll_centre_lateral", "track", "steering_ratio"} <= set(sens.values)
    assert_matches(sens, roll_differences)


AXLE_COORDINATES = ["lower_ball_left.z", "upper_inner_right.z", "wheel_centre_left.y", "hub_inner_right.x",
                    "steer_ball_left.x", "rack_end_right.y"]


def test_axle_sensitivities_equal_differences_of_moved_designs(front_axle):
    """The axle's own metrics: the roll centre (height and migration) and the track in
    parallel travel; with the rack moving, Ackermann (against the design track and steer
    angles, which the wheel-centre and spin-axis points move; undefined straight ahead, at
    the design pose) and the steering ratio."""
    sens = sensitivities(front_axle, AXLE_COORDINATES, TRAVEL, tolerance=CLOSED)
    for name in ("roll_centre_height", "roll_centre_lateral", "track", "wheel_rate_left", "wheel_rate_right"):
        assert sens[name].shape == (len(TRAVEL), len(AXLE_COORDINATES)), name
    reference = differences(front_axle, sens.coordinates, lambda s: parallel_travel(s, TRAVEL, tolerance=CLOSED))
    assert_matches(sens, reference)
    rack = np.linspace(-0.03, 0.03, 5)
    steer = sensitivities(front_axle, AXLE_COORDINATES, 0.0, analysis="steering", rack=rack, tolerance=CLOSED)
    for name in ("ackermann_error", "ackermann_percent", "steering_ratio"):
        assert steer[name].shape == (len(rack), len(AXLE_COORDINATES)), name
    assert np.isnan(steer["ackermann_error"][2]).all() and np.isfinite(steer["ackermann_error"][[0, 1, 3, 4]]).all()
    reference = differences(front_axle, steer.coordinates,
                            lambda s: steering(s, rack, travel=0.0, tolerance=CLOSED))
    assert_matches(steer, reference)


def test_optimisation_against_the_axle_roll_centre_recovers_the_design(front_axle):
    """An axle's own metric as a target: both lower inner pivots moved by 3 mm come back when
    fitted to the original axle roll-centre height and track curves (the tolerance argument
    of test_optimisation_recovers_the_design)."""
    travel = np.linspace(-0.06, 0.06, 7)
    original = parallel_travel(front_axle, travel)
    names = ["lower_inner_left.z", "lower_inner_right.z"]
    moved = np.array([0.003, -0.002])
    start = variant(front_axle, coordinates(front_axle.model, names), moved)
    targets = {"roll_centre_height": original.metric("roll_centre_height"), "track": original.metric("track")}
    fit = optimise(start, names, targets, bounds=0.01, travel=travel, f_tolerance=1e-15, g_tolerance=1e-15)
    assert fit.success, fit.message
    assert np.abs(fit.offsets + moved).max() < 1e-7
    assert fit.cost < 1e-20 < fit.start_cost


def test_the_roll_axis_moves_with_the_design(front_axle, roll_sensitivities, roll_differences, monkeypatch):
    """(R1): the static roll centre's rates against those of moved designs; with the axis held
    (its rates zero) the roll's camber and wheel travels come out wrong."""
    coords = roll_sensitivities.coordinates
    system = roll_sensitivities.result.system
    point, rates = roll_sensitivity.roll_axis(front_axle, motion.moves(system, coords, "vary"), "vary")
    np.testing.assert_allclose(point, static_roll_centre(front_axle), rtol=0, atol=1e-15)
    for j in range(len(coords)):
        offsets = np.zeros(len(coords))
        offsets[j] = H
        centres = [static_roll_centre(variant(front_axle, coords, s * offsets), CLOSED) for s in (1, -1)]
        expected = (centres[0] - centres[1]) / (2 * H)
        assert np.abs(rates[j] - expected).max() <= RELATIVE * np.abs(expected).max() + FLOOR, coords[j].name
    assert np.abs(rates[0]).max() > 1.0  # the lower ball joint moves the roll centre ~12 m per m
    held = roll_sensitivity.roll_axis
    monkeypatch.setattr(roll_sensitivity, "roll_axis", lambda *args: (held(*args)[0], np.zeros_like(rates)))
    without = sensitivities_of(roll_sensitivities.result, ROLL_COORDINATES)
    for name in ("camber_left", "wheel_travel_right", "track_change_left"):
        reference = roll_differences[name][:, 0]
        assert np.abs(without[name][:, 0] - reference).max() > 1e-2 * np.abs(reference).max(), name


def test_the_wheel_rate_moves_with_the_third_rates(front_axle, monkeypatch):
    """The wheel rate holds the spring length's and the travel's second rates, so its
    sensitivities need their third (T1)-(T3): the coil's lower end (a moved point), a ball
    joint and a chassis pivot against whole analyses of moved designs, in opposite travel;
    each term of (T1) and the moved end's own move deleted in turn, they are wrong."""
    from loops.suspension import opposite_travel

    names = ["coil_left.at_a", "lower_ball_left.z", "upper_inner_left.y"]
    sens = sensitivities(front_axle, names, TRAVEL, analysis="opposite", tolerance=CLOSED)
    reference = differences(front_axle, sens.coordinates, lambda s: opposite_travel(s, TRAVEL, tolerance=CLOSED))
    wheel_rates = ["wheel_rate_left", "wheel_rate_right"]
    assert_matches(sens, reference, wheel_rates)
    scale = np.abs(reference["wheel_rate_left"]).max()
    assert scale > 1e5  # N/m per m: the wheel rate does move with these
    lie_bracket = directions.lie_bracket
    for term in range(4):
        calls = iter(range(100))

        def without(a, b, term=term, calls=calls):
            # acceleration_rate's brackets in order (Y's own, then the three of (T1)), the left
            # wheel's first
            return 0.0 * lie_bracket(a, b) if next(calls) == term else lie_bracket(a, b)

        monkeypatch.setattr(directions.Directions, "acceleration_rate",
                            _with_bracket(directions.Directions.acceleration_rate, without))
        wrong = sensitivities(front_axle, names, TRAVEL, analysis="opposite", tolerance=CLOSED)["wheel_rate_left"]
        monkeypatch.undo()
        assert np.abs(wrong - reference["wheel_rate_left"]).max() > 1e-3 * scale, term
    monkeypatch.setattr(wheel_rate, "point_rates", _without_own_move(wheel_rate.point_rates))
    wrong = sensitivities(front_axle, names[:1], TRAVEL, analysis="opposite", tolerance=CLOSED)["wheel_rate_left"]
    assert np.abs(wrong - reference["wheel_rate_left"][:, :3]).max() > 1e-3 * scale


def _with_bracket(method, bracket):
    """``method`` with the module's ``lie_bracket`` replaced by ``bracket`` while it runs."""
    def run(self, *args):
        saved, directions.lie_bracket = directions.lie_bracket, bracket
        try:
            return method(self, *args)
        finally:
            directions.lie_bracket = saved
    return run


def _without_own_move(point_rates):
    """``_point_rates`` as if no point were the moved hardpoint."""
    def run(closure, V_a, A_a, along, J, located, moved):
        return point_rates(closure, V_a, A_a, along, J, located, {})
    return run


def test_the_upright_accelerates_as_the_moved_designs_do(corner):
    """(T1)-(T2) at the link level: the upright's and the lower arm's acceleration rates along
    the travel against differences of the moved designs' accelerations (the tie rod spins
    idly: its spin's third rate is left free)."""
    names = ["lower_ball.z", "steer_ball.x", "upper_inner.axis.z"]
    sens = sensitivities(corner, names, TRAVEL, tolerance=CLOSED)
    expected = acceleration_differences(corner, sens.coordinates, ["upright", "lower_arm"])
    for link, values in expected.items():
        exact = sens.link_acceleration_rate(link, "travel")
        assert np.abs(values).max() > 1.0, link
        assert np.abs(exact - values).max() <= RELATIVE * np.abs(values).max() + FLOOR, link


def test_what_has_no_sensitivities(tmp_path, steered):
    """A spring end off an idle link's line (it would follow the idle spin, which (T2) leaves
    free): no wheel-rate sensitivities. A spring's metric of a corner without a spring is
    refused as a target, before any sweep."""
    rear = (EXAMPLES / "five_link_rear.toml").read_text()
    on_line = "at_a = [-50, 579, 158]"
    assert on_line in rear
    path = tmp_path / "off_line.toml"
    path.write_text(rear.replace(on_line, "at_a = [-50, 579, 168]"))
    sens = sensitivities(load_suspension(path), ["hub_inner.z"], TRAVEL, tolerance=CLOSED)
    assert "motion_ratio" in sens.values and "wheel_rate" not in sens.values

    with pytest.raises(ModelError, match="has no spring") as info:
        optimise(steered, ["lower_ball.z"], {"motion_ratio": np.zeros(len(TRAVEL))}, bounds=0.01, travel=TRAVEL)
    assert info.value.where == "targets['motion_ratio']"


def test_optimisation_against_roll_targets_recovers_the_design(front_axle):
    """From an axle with four left-corner coordinates moved by 2 to 4 mm, fit them to the
    original roll's camber on both sides, left toe, left wheel travel, left roll camber and
    camber gain, and the axle's roll centre height, over +-4 deg: the original hardpoints
    come back.

    Tolerance 1e-7 m: the curves are met to about 1e-10 (closure of the sweeps, 45
    residuals), the smallest singular value of their Jacobian with respect to these
    coordinates is about 0.034 (rad or m per m), so the coordinates are determined to about
    sqrt(45) 1e-10 / 0.034 = 2e-8 m (in practice they come back to about 1e-13 m)."""
    angles = np.radians(np.linspace(-4.0, 4.0, 9))
    original = roll(front_axle, angles)
    names = ["lower_ball_left.z", "upper_ball_left.y", "lower_inner_left.z", "steer_ball_left.z"]
    moved = np.array([0.003, -0.004, 0.002, -0.003])
    start = variant(front_axle, coordinates(front_axle.model, names), moved)
    targets = {name: original.metric(name) for name in ("camber_left", "camber_right", "toe_left",
                                                         "wheel_travel_left", "roll_camber_left",
                                                         "camber_gain_left", "roll_centre_height")}
    fit = optimise(start, names, bounds=0.01, roll_angle=angles, roll_targets=targets, f_tolerance=1e-15,
                   g_tolerance=1e-15)
    assert fit.success, fit.message
    assert np.abs(fit.offsets + moved).max() < 1e-7
    assert fit.cost < 1e-20 < fit.start_cost
    assert [t.label for t in fit.targets][0] == "camber_left (roll)" and fit.inputs["roll"].name == "roll_angle"


def test_driver_accelerations_couple_travel_and_steering(steered):
    """The second rates between two drivers that move the same links (wheel travel and the
    rack), which the roll's (R5) takes between its two travels: ``d_k V_j`` against the
    velocities of sweeps at the other driver's values moved by +-H (the tolerance of the
    module docstring)."""
    result = steering(steered, RACK, travel=0.02, tolerance=CLOSED)
    drivers = [result.drivers.index("travel"), result.drivers.index("rack_travel")]
    D = driver_rates.driver_accelerations(result, drivers)
    upright = result.system.link_index["upright"]
    runs = {"rack_travel": [steering(steered, RACK + s * H, travel=0.02, tolerance=CLOSED) for s in (1, -1)],
            "travel": [steering(steered, RACK, travel=0.02 + s * H, tolerance=CLOSED) for s in (1, -1)]}
    for k, j in ((1, 0), (0, 1), (0, 0)):
        moved, rated = result.drivers[drivers[k]], result.drivers[drivers[j]]
        velocities = [run.along(rated).link_velocity("upright") for run in runs[moved]]
        expected = (velocities[0] - velocities[1]) / (2 * H)
        assert np.abs(expected).max() > 1e-2, (moved, rated)
        error = np.abs(D[k][j][:, upright] - expected).max()
        assert error <= RELATIVE * np.abs(expected).max() + FLOOR, (moved, rated, error)


@pytest.mark.parametrize("kwargs, where, text", [
    ({"roll_targets": {"roll_camber": np.zeros(5)}}, "roll_targets['roll_camber']", "with _left or _right"),
    ({"roll_angle": None}, "roll_angle", "roll angles"),
    ({"corner": True}, "roll_targets", "need an axle"),
])
def test_roll_target_mistakes_are_located(front_axle, corner, kwargs, where, text):
    arguments = {"roll_angle": ROLL, "roll_targets": {"camber_left": np.zeros(5)}, **kwargs}
    susp, names = (corner, ["lower_ball.z"]) if arguments.pop("corner", False) else (front_axle, ["lower_ball_left.z"])
    with pytest.raises(ModelError, match=text) as info:
        optimise(susp, names, bounds=0.01, **arguments)
    assert info.value.where == where


# ------------------------------------------------------------------ optimisation
def test_optimisation_recovers_the_design(corner, tmp_path):
    """From a design with five hardpoint coordinates moved by 2 to 4 mm, fit them to the
    original camber and toe curves over +-80 mm: the original hardpoints come back.

    Tolerance 1e-7 m: the curves are computed by sweeps closed to 1e-10 of the size, so a
    residual can be off by about 1e-10 rad per position (34 of them); the smallest singular
    value of their Jacobian with respect to these coordinates is about 5e-3 rad/m, so the
    fitted coordinates are determined to about sqrt(34) 1e-10 / 5e-3 = 1.2e-7 m at worst
    (in practice the sweeps close far tighter and they come back to about 1e-13 m)."""
    travel = np.linspace(-0.08, 0.08, 17)
    original = parallel_travel(corner, travel)
    names = ["lower_ball.z", "upper_ball.y", "steer_ball.z", "rack_end.y", "upper_inner.z"]
    coords = coordinates(corner.model, names)
    moved = np.array([0.003, -0.004, 0.002, 0.003, -0.003])
    start = variant(corner, coords, moved)
    fit = optimise(start, names, {"camber": original.metric("camber"), "toe": original.metric("toe")},
                   bounds=0.01, travel=travel, f_tolerance=1e-15, g_tolerance=1e-15)
    assert fit.success, fit.message
    assert np.abs(fit.offsets + moved).max() < 1e-7
    assert fit.cost < 1e-20 < fit.start_cost
    np.testing.assert_allclose(fit.after[0], original.metric("camber"), atol=1e-10)
    assert np.abs(fit.before[1] - original.metric("toe")).max() > 1e-3
    designed = hardpoints_of(corner.model)
    for name, value in fit.hardpoints.items():
        np.testing.assert_allclose(value, designed[name].value, atol=1e-7)
    # The fitted model file: only the moved hardpoints' numbers rewritten (in mm), and it
    # loads and reproduces the original curves.
    out = tmp_path / "fitted.toml"
    moved_names = fit.write_model(EXAMPLES / "double_wishbone.toml", out)
    assert sorted(moved_names) == sorted(n.rsplit(".", 1)[0] for n in names)
    data = tomllib.loads(out.read_text())
    ball = next(p for p in data["pairs"] if p["name"] == "lower_ball")
    assert ball["at"] == pytest.approx([0, 720, 100], abs=1e-4)
    again = parallel_travel(load_suspension(out), travel)
    np.testing.assert_allclose(again.metric("toe"), original.metric("toe"), atol=1e-9)
    sheet = tmp_path / "fit.png"
    figure = fit.plot(sheet)
    assert sheet.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and len(figure.axes) == 2
    # readable axes with units, as the workbench's sheets (issue 24: raw column names)
    assert [ax.get_xlabel() for ax in figure.axes] == ["wheel travel [mm]"] * 2
    assert all("_" not in ax.get_ylabel() and ax.get_ylabel().endswith("]") for ax in figure.axes)


def test_optimisation_against_the_roll_centre_and_the_swing_arm_recovers_the_design(corner):
    """Velocity-field targets: the inner pivots' heights set the roll centre and the front
    view swing arm; moved by 3 mm, they come back when fitted to the original roll-centre
    height and swing-arm length (same tolerance argument as above)."""
    travel = np.linspace(-0.08, 0.08, 9)
    original = parallel_travel(corner, travel)
    names = ["lower_inner.z", "upper_inner.z"]
    moved = np.array([0.003, -0.003])
    start = variant(corner, coordinates(corner.model, names), moved)
    targets = {"roll_centre_height": original.metric("roll_centre_height"),
               "fvsa_length": (original.metric("fvsa_length"), 1e-2)}
    fit = optimise(start, names, targets, bounds=0.01, travel=travel, f_tolerance=1e-15, g_tolerance=1e-15)
    assert fit.success, fit.message
    assert np.abs(fit.offsets + moved).max() < 1e-7
    assert fit.cost < 1e-20 < fit.start_cost


def test_optimisation_with_an_axis_and_steering_targets(steered, tmp_path):
    """An axis component and a steering target: the axis column of the Jacobian is the moved
    design's sensitivity over the length of the offset axis; the table writes the axis as a
    unit vector, which the model file takes."""
    travel, rack = np.linspace(-0.06, 0.06, 9), np.linspace(-0.03, 0.03, 7)
    bump, steer = parallel_travel(steered, travel), steering(steered, rack)
    names = ["upper_inner.axis.z", "steer_ball.z", "rack_end.z"]
    coords = coordinates(steered.model, names)
    moved = np.array([0.03, 0.002, -0.002])
    fit = optimise(variant(steered, coords, moved), names, {"bump_steer": bump.metric("bump_steer"),
                   "camber": (bump.metric("camber"), 2.0)}, bounds=([-0.1, -0.01, -0.01], [0.1, 0.01, 0.01]),
                   travel=travel, rack=rack, steering_targets={"toe": steer.metric("toe")},
                   f_tolerance=1e-15, g_tolerance=1e-15)
    assert fit.success and fit.cost < 1e-20, fit
    # the offset axis (0, 0, 1) - ... + 0.03 e_z normalised, then offset back: the original direction
    axis = moved_hardpoints(fit.coordinates, fit.offsets)["upper_inner.axis"]
    original = coordinates(steered.model, ["upper_inner.axis"])[0].hardpoint.value
    np.testing.assert_allclose(axis / np.linalg.norm(axis), original, atol=1e-8)
    out = tmp_path / "fitted.toml"
    fit.write_model(EXAMPLES / "double_wishbone_steer.toml", out)
    again = load_suspension(out)
    np.testing.assert_allclose(steering(again, rack).metric("toe"), steer.metric("toe"), atol=1e-9)


def test_the_optimiser_jacobian_is_the_derivative_of_its_residuals(steered):
    """Away from the start (an axis offset of 0.2, whose unit axis is normalised again, and a
    ball joint moved), with weights: the Jacobian against central differences of the
    residuals (the tolerance of the module docstring, times the weight)."""
    from loops.study.optimise import _problem  # noqa: PLC0415 (the optimiser's own residuals)

    travel, rack = np.linspace(-0.06, 0.06, 5), np.linspace(-0.02, 0.02, 3)
    names = ["upper_inner.axis.z", "lower_ball.y"]
    targets = {"camber": (np.zeros(5), 3.0), "bump_steer": (np.zeros(5), np.linspace(1.0, 2.0, 5))}
    problem = _problem(steered, names, targets, travel, rack, {"toe": np.zeros(3)}, 0.0, CLOSED)
    x = np.array([0.2, 0.004])
    jacobian = problem.jacobian(x)
    for j in range(len(x)):
        step = np.zeros(len(x))
        step[j] = H
        expected = (problem.residual(x + step) - problem.residual(x - step)) / (2 * H)
        assert np.abs(jacobian[:, j] - expected).max() <= RELATIVE * np.abs(expected).max() + 3 * FLOOR, names[j]


@pytest.mark.parametrize("kwargs, where", [
    ({"targets": {"camber": np.zeros(3)}}, "targets['camber']"),
    ({"targets": {"cambr": np.zeros(7)}}, "targets['cambr']"),
    ({"targets": {"wheel_rate": np.zeros(7)}}, "targets['wheel_rate']"),
    ({"targets": {"camber": (np.zeros(7), -1.0)}}, "targets['camber']"),
    ({"bounds": (0.01, -0.01)}, "bounds"),
    ({"start": [0.5]}, "start"),
    ({"targets": {}}, "targets"),
    ({"steering_targets": {"toe": np.zeros(3)}, "targets": None}, "rack"),
])
def test_optimisation_mistakes_are_located(corner, kwargs, where):
    arguments = {"targets": {"camber": np.zeros(7)}, "bounds": 0.01, "travel": TRAVEL, **kwargs}
    targets = arguments.pop("targets")
    with pytest.raises(ModelError) as info:
        optimise(corner, ["lower_ball.z"], targets, **arguments)
    assert info.value.where == where


def test_the_readme_fit_writes_its_axle_back_into_the_mirrored_file(front_axle, tmp_path):
    """The README's optimisation on the README's axle (issue 24): the fitted ``_left``/``_right``
    rack ends go back to the mirrored file's one corner, and the written model reproduces the
    fit's curves; the fit's hardpoint table applied to the same file gives the same bytes; a
    fit of one side only is refused naming the other side, and no message names a temporary
    file."""
    from loops.suspension.hardpoints import apply_hardpoints

    travel = np.linspace(-0.08, 0.08, 5)
    level = {f"bump_steer_{side}": np.zeros(5) for side in ("left", "right")}
    fit = optimise(front_axle, ["rack_end_left.z", "rack_end_right.z"], level, bounds=0.01, travel=travel)
    assert abs(fit.offsets[0] - fit.offsets[1]) < 1e-12  # a symmetric fit
    moved = fit.write_model(EXAMPLES / "front_axle.toml", tmp_path / "fitted.toml")
    assert set(moved) == {"rack_end", "rack_travel"}  # rack_travel: rack_end's alias, one location
    again = parallel_travel(load_suspension(tmp_path / "fitted.toml"), travel)
    for i, side in enumerate(("left", "right")):
        np.testing.assert_allclose(again.metric(f"bump_steer_{side}"), fit.after[i], rtol=0, atol=1e-9)
    fit.write_hardpoints(tmp_path / "fit.csv")
    apply_hardpoints(EXAMPLES / "front_axle.toml", tmp_path / "fit.csv", tmp_path / "applied.toml")
    assert (tmp_path / "applied.toml").read_bytes() == (tmp_path / "fitted.toml").read_bytes()
    one_side = optimise(front_axle, ["rack_end_left.z"], {"bump_steer_left": np.zeros(5)}, bounds=0.01,
                        travel=travel)
    with pytest.raises(ModelError, match="but not rack_end_right") as info:
        one_side.write_model(EXAMPLES / "front_axle.toml", tmp_path / "one.toml")
    assert info.value.where == "fitted rack_end_left" and "hardpoints.csv" not in str(info.value)
    assert not (tmp_path / "one.toml").exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "applied.toml", "fit.csv", "fitted.toml"]


def test_the_wheel_rate_is_a_target_of_the_optimiser(front_axle):
    """The wheel rate's sensitivities take the second-order solve: the optimiser asks for it
    for a wheel-rate target as for every metric that is not a position metric (it asked only
    for rates, field and axle metrics, and a wheel-rate target failed: 'no sensitivities of
    it'). Fit the left lower ball's height to the wheel rate of a design with it moved 2 mm:
    it comes back (tolerance as the other fits: the curve met to 1e-7 N/m of 3e4)."""
    travel = np.linspace(-0.05, 0.05, 5)
    names = ["lower_ball_left.z"]
    start = variant(front_axle, coordinates(front_axle.model, names), np.array([0.002]))
    target = parallel_travel(front_axle, travel).metric("wheel_rate_left")
    fit = optimise(start, names, {"wheel_rate_left": (target, 1e-3)}, bounds=0.01, travel=travel,
                   f_tolerance=1e-15, g_tolerance=1e-15)
    assert fit.success, fit.message
    assert abs(fit.offsets[0] + 0.002) < 1e-8
