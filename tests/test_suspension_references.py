"""Every suspension metric against an independent calculation, on three layouts.

The references (``tests/reference/suspension_hardpoints.py``) solve each example corner from
its model file's numbers alone (``tomllib``, ``scipy.optimize.least_squares``: ball joints on
their arms' circles, rods of fixed length, the strut's line through the top mount) and take
every metric by hand geometry: the spin axis through two points, the steering axis through
the two ball joints (double wishbone), from the lower ball joint to the top mount
(MacPherson), or the upright's instantaneous screw axis from central differences of its
poses (five-link: a virtual axis); instant centres where the lines perpendicular to two
points' velocities meet in a view; the roll centre on the line from the contact patch
through the front-view instant centre; anti-dive from the side-view instant centre, the
centre-of-mass height and the wheelbase; the wheel rate as the second derivative of the
spring's energy (virtual work). Rates are central differences of the reference positions.

Layouts: ``examples/front_axle.toml`` (double wishbone, pivot axes inclined for anti-dive,
rack; an axle mirrored from the left corner), ``examples/macpherson.toml`` and
``examples/five_link_rear.toml`` (rear, anti-lift and anti-squat).

Tolerances. The sweeps close their loops to 1e-12 of the model size (``TOLERANCE``, sizes
0.8 to 1.6 m) and the reference to round-off, so positions and angles agree to
``POSITION`` = 1e-11 (the closure error times a conditioning below 7; measured: 1e-15 to
3e-12, the larger for the five-link's screw axis). Rates are central differences with
Richardson extrapolation (steps h and 2h, :func:`derivative`): truncation of order
``h^4 f^(5) / 30``, with ``H = 1e-4`` m and fifth derivatives of order 1e3 some 1e-15;
round-off ``1e-15 / h``, some 1e-11. ``RATE`` = 1e-8, relative and absolute.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from loops.suspension import load_suspension, parallel_travel, roll, steering
from reference import suspension_hardpoints as ref

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TOLERANCE = 1e-12
POSITION = 1e-11
RATE = 1e-8
H = 1e-4
TRAVELS = np.array([-0.06, 0.0, 0.045])
UP = np.array([0.0, 0.0, 1.0])


def derivative(f, x, h=H):
    """``f'(x)`` by central differences with Richardson extrapolation (error O(h^4))."""
    one = (f(x + h) - f(x - h)) / (2 * h)
    two = (f(x + 2 * h) - f(x - 2 * h)) / (4 * h)
    return (4 * one - two) / 3


def vehicle_of(name):
    return tomllib.loads((EXAMPLES / name).read_text()).get("vehicle", {})


def kingpin_of(layout, corner, travel, steer=0.0):
    if layout == "five_link":
        point, direction = ref.screw_axis(corner, travel, steer)
        return point, point + direction
    return corner.kingpin(travel, steer)


def hand_metrics(layout, corner, travel, steer=0.0):
    """Position metrics of the reference's left corner at a wheel-centre travel and steer."""
    C, I = corner.move(corner.centre, travel, steer), corner.move(corner.inner, travel, steer)
    P = corner.patch(travel, steer)
    P0, C0 = corner.patch(0.0), corner.centre
    out = ref.spin_metrics(C, I)
    out["steer_angle"] = -out["toe"]
    lower, upper = kingpin_of(layout, corner, travel, steer)
    k = (upper - lower) / np.linalg.norm(upper - lower)
    k = k if k[2] > 0 else -k
    out["castor"] = np.arctan(-k[0] / k[2])
    out["kingpin_inclination"] = np.arctan(-k[1] / k[2])
    G = lower + k * (P[2] - lower[2]) / k[2]        # the axis at the ground
    K = lower + k * (C[2] - lower[2]) / k[2]        # the axis at the wheel centre's height
    out.update(scrub_radius=P[1] - G[1], castor_trail=G[0] - P[0], kingpin_offset_wheel_centre=C[1] - K[1],
               hub_trail=K[0] - C[0], wheel_travel=C[2] - C0[2], contact_patch_travel=P[2] - P0[2],
               wheel_recession=-(C[0] - C0[0]), track_change=P[1] - P0[1], half_track=P[1])
    return out


def velocity(corner, point_now, travel):
    """Velocity per unit travel of the upright's material point now at ``point_now``."""
    R, t = corner.pose(travel)
    material = R.T @ (point_now - t)
    return derivative(lambda s: corner.move(material, s), travel)


@pytest.fixture(scope="module", params=["double_wishbone", "macpherson", "five_link"])
def layout(request):
    files = {"double_wishbone": "front_axle.toml", "macpherson": "macpherson.toml",
             "five_link": "five_link_rear.toml"}
    name = request.param
    corner = {"double_wishbone": ref.double_wishbone, "macpherson": ref.macpherson,
              "five_link": ref.five_link}[name]()
    suspension = load_suspension(EXAMPLES / files[name])
    result = parallel_travel(suspension, TRAVELS, tolerance=TOLERANCE)
    side = "_left" if suspension.is_axle else ""

    def got(metric):
        return result.metric(metric + side)

    return name, corner, got, vehicle_of(files[name])


def test_position_metrics(layout):
    name, corner, got, vehicle = layout
    for k, travel in enumerate(TRAVELS):
        expected = hand_metrics(name, corner, travel)
        P, P0 = corner.patch(travel), corner.patch(0.0)
        expected["wheelbase_change"] = (P[0] - P0[0]) * (1.0 if vehicle["axle"] == "front" else -1.0)
        for metric, value in expected.items():
            assert got(metric)[k] == pytest.approx(value, abs=POSITION), (metric, travel)


def test_rates_per_wheel_travel(layout):
    """Camber gain and bump steer against central differences of the reference."""
    name, corner, got, _ = layout
    for k, travel in enumerate(TRAVELS):
        for rate, metric in (("camber_gain", "camber"), ("bump_steer", "toe")):
            expected = derivative(lambda s: hand_metrics(name, corner, s)[metric], travel)
            assert got(rate)[k] == pytest.approx(expected, rel=RATE, abs=RATE), (rate, travel)


def test_instant_centres_roll_centre_and_anti_geometry(layout):
    """Front view: the lines perpendicular to the velocities of the upright's points at the
    contact patch and 0.1 m above it meet at the instant centre; the line from the patch
    through it meets the centre plane y = 0 at the roll centre. Side view likewise; anti
    percentages from the path slopes times wheelbase over centre-of-mass height."""
    name, corner, got, vehicle = layout
    for k, travel in enumerate(TRAVELS):
        P = corner.patch(travel)
        above = P + 0.1 * UP
        v_P, v_above = velocity(corner, P, travel), velocity(corner, above, travel)
        y, z = ref.instant_centre(P, v_P, above, v_above, (1, 2))
        assert got("fvic_height")[k] == pytest.approx(z - P[2], rel=RATE, abs=POSITION)
        assert got("fvsa_length")[k] == pytest.approx(P[1] - y, rel=RATE, abs=POSITION)
        roll_z = P[2] + (0.0 - P[1]) * (z - P[2]) / (y - P[1])
        assert got("roll_centre_z")[k] == pytest.approx(roll_z, rel=RATE, abs=POSITION)
        assert got("roll_centre_height")[k] == pytest.approx(roll_z - P[2], rel=RATE, abs=POSITION)
        x, z = ref.instant_centre(P, v_P, above, v_above, (0, 2))
        assert got("svic_height")[k] == pytest.approx(z - P[2], rel=RATE, abs=POSITION)
        assert got("svsa_length")[k] == pytest.approx(x - P[0], rel=RATE, abs=POSITION)
        leverage = vehicle["wheelbase"] / vehicle["cg_height"] * 100
        front = vehicle["axle"] == "front"
        v_static = velocity(corner, _static_patch(corner, travel), travel)
        v_centre = velocity(corner, corner.move(corner.centre, travel), travel)
        brake = vehicle["brake_front"] if front else 1 - vehicle["brake_front"]
        drive = vehicle["drive_front"] if front else 1 - vehicle["drive_front"]
        sign = 1.0 if front else -1.0
        brake_name, drive_name = ("anti_dive", "anti_lift") if front else ("anti_lift", "anti_squat")
        assert got(brake_name)[k] == pytest.approx(sign * brake * leverage * v_static[0] / v_static[2], rel=RATE)
        assert got(drive_name)[k] == pytest.approx(sign * drive * leverage * v_centre[0] / v_centre[2], rel=RATE,
                                                   abs=RATE)
        if travel == 0.0 and front:
            # at the design pose the static patch point is the patch: anti-dive is the side-view
            # instant centre's height over its distance behind the patch (Milliken, ch. 17)
            behind = P[0] - x
            assert got("anti_dive")[k] == pytest.approx(brake * (z - P[2]) / behind * leverage, rel=RATE)


def _static_patch(corner, travel):
    """The upright's point that was at the contact patch at the design pose, now."""
    return corner.move(corner.patch(0.0), travel)


def test_spring_motion_ratio_and_wheel_rate_by_virtual_work(layout):
    """motion ratio = -dL/ds; wheel rate = d^2 E / ds^2 with E the spring's energy
    k (L - L_free)^2 / 2: the wheel load dE/ds does the spring's virtual work. The second
    derivative as the derivative (steps 1e-3 m) of the wheel load (steps 1e-4 m): truncation
    some 1e-9, round-off 1e-15 J / 1e-7 m^2 ~ 1e-8 N/m, of wheel rates of some 3e4 N/m."""
    name, corner, got, _ = layout
    if corner.spring is None:
        assert got("damper_length") is not None
        for k, travel in enumerate(TRAVELS):
            length = corner.damper(travel)
            assert got("damper_length")[k] == pytest.approx(length, abs=POSITION)
            ratio = -derivative(corner.damper, travel)
            assert got("damper_motion_ratio")[k] == pytest.approx(ratio, rel=RATE)
        return
    length, stiffness, free = corner.spring

    def energy(s):
        return 0.5 * stiffness * (length(s) - free) ** 2

    def load(s):
        return derivative(energy, s, 1e-4)

    for k, travel in enumerate(TRAVELS):
        assert got("spring_length")[k] == pytest.approx(length(travel), abs=POSITION)
        ratio = -derivative(length, travel)
        assert got("motion_ratio")[k] == pytest.approx(ratio, rel=RATE)
        assert got("wheel_rate")[k] == pytest.approx(derivative(load, travel, 1e-3), rel=RATE)


def test_steer_rate_and_virtual_steering_axis(layout):
    """d steer_angle / d steering at fixed wheel travel against central differences; for the
    five-link, the castor and kingpin inclination from the upright's screw axis (the
    position test) are those of the steering motion."""
    name, corner, got, _ = layout
    if name == "macpherson":
        pytest.skip("the MacPherson example steers by no variable (its rack is fixed)")
    for k, travel in enumerate(TRAVELS):
        rate = derivative(lambda rack: hand_metrics(name, corner, travel, rack)["steer_angle"], 0.0, 1e-5)
        assert got("steer_rate")[k] == pytest.approx(rate, rel=RATE)


# ------------------------------------------------------------------ the axle's analyses
@pytest.fixture(scope="module")
def front():
    return ref.double_wishbone(), load_suspension(EXAMPLES / "front_axle.toml"), vehicle_of("front_axle.toml")


def mirrored(p):
    return np.array([p[0], -p[1], p[2]])


def test_contact_patch_travel_reaches_the_requested_patch_height(front):
    """SHARK's convention: the wheel-centre travel that puts the patch at the requested
    height (Brent's method on the reference) and the metrics there."""
    corner, suspension, _ = front
    patch_travel = np.array([-0.05, 0.03])
    result = parallel_travel(suspension, patch_travel, travel_at="contact-patch", tolerance=TOLERANCE)
    assert_allclose(result.metric("wheel_travel_left"), patch_travel, rtol=0, atol=1e-12)
    for k, target in enumerate(patch_travel):
        centre = corner.centre_travel_for_patch(target)
        expected = hand_metrics("double_wishbone", corner, centre)
        assert result.metric("wheel_centre_travel_left")[k] == pytest.approx(centre, abs=POSITION)
        assert result.metric("camber_left")[k] == pytest.approx(expected["camber"], abs=POSITION)
        gain = derivative(lambda p: hand_metrics("double_wishbone", corner,
                                                 corner.centre_travel_for_patch(p))["camber"], target)
        assert result.metric("camber_gain_left")[k] == pytest.approx(gain, rel=RATE)


def _roll_reference(corner, phi, axis):
    """Wheel-centre travels (left, right) with the body rolled by ``phi`` about the
    longitudinal axis through ``axis`` (y, z) and both patches at their design heights; the
    right wheel at travel t is the mirror image of the left one at t."""
    from scipy.optimize import least_squares

    c, s = np.cos(phi), np.sin(phi)
    rotation = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    A = np.array([0.0, axis[0], axis[1]])

    def frame(p):
        return A + rotation @ (p - A)

    def right_frame(p):
        return frame(mirrored(p))

    ground = corner.patch(0.0)[2]

    def gaps(t):
        return [corner.patch(t[0], frame=frame)[2] - ground, corner.patch(t[1], frame=right_frame)[2] - ground]

    guess = [-corner.patch(0.0)[1] * s, corner.patch(0.0)[1] * s]
    travel = least_squares(gaps, guess, xtol=1e-15, ftol=1e-15, gtol=1e-15, method="lm").x
    assert np.abs(gaps(travel)).max() < 1e-14
    return travel, frame, right_frame


def test_roll_about_the_static_roll_centre_with_the_patches_on_the_road(front):
    """Body roll of +-2.5 deg: the wheel travels that keep both patches on the road (least squares
    on the reference), camber to the road, the axle's roll centre (its lateral migration in the
    body, its height above the road: the line through the two patches) and track, and roll
    camber and roll steer by differences in the roll angle."""
    corner, suspension, _ = front
    P0 = corner.patch(0.0)
    v = velocity(corner, P0, 0.0)
    above = P0 + 0.1 * UP
    y, z = ref.instant_centre(P0, v, above, velocity(corner, above, 0.0), (1, 2))
    roll_centre = (0.0, P0[2] + (0.0 - P0[1]) * (z - P0[2]) / (y - P0[1]))
    angles = np.radians([-2.5, 2.5])
    result = roll(suspension, angles, tolerance=TOLERANCE)
    for k, phi in enumerate(angles):
        (left, right), frame, right_frame = _roll_reference(corner, phi, roll_centre)
        assert result.metric("wheel_travel_left")[k] == pytest.approx(left, abs=POSITION)
        assert result.metric("wheel_travel_right")[k] == pytest.approx(right, abs=POSITION)
        camber_left = ref.spin_metrics(frame(corner.move(corner.centre, left)),
                                       frame(corner.move(corner.inner, left)))["camber"]
        # the right wheel seen as a left one: mirror the rolled points back
        camber_right = ref.spin_metrics(mirrored(right_frame(corner.move(corner.centre, right))),
                                        mirrored(right_frame(corner.move(corner.inner, right))))["camber"]
        assert result.metric("camber_left")[k] == pytest.approx(camber_left, abs=POSITION)
        assert result.metric("camber_right")[k] == pytest.approx(camber_right, abs=POSITION)
        # the axle's roll centre in the road's front view: the lines from each contact patch
        # (the wheel's lowest point above the road) perpendicular to the velocity, in its own
        # travel, of the upright's point there; the right wheel is the mirror of a left one
        c, s_ = np.cos(phi), np.sin(phi)
        rotation = np.array([[1, 0, 0], [0, c, -s_], [0, s_, c]])
        A = np.array([0.0, *roll_centre])
        lines, patches = [], []
        for travel, mirror, to_road in ((left, 1.0, frame), (right, -1.0, right_frame)):
            P = corner.patch(travel, frame=to_road)                        # road frame
            patches.append(P)
            body = A + rotation.T @ (P - A)                                # where it is in the body
            local = body * np.array([1.0, mirror, 1.0])                    # as a point of the left corner
            v = rotation @ (velocity(corner, local, travel) * np.array([1.0, mirror, 1.0]))
            lines.append((P[1:], np.array([-v[2], v[1]])))                 # point, direction in (y, z)
        (a, u), (b, w) = lines
        span = np.linalg.solve(np.column_stack([u, -w]), b - a)
        centre = a + span[0] * u                                           # road frame (y, z)
        in_body = A + rotation.T @ (np.array([0.0, *centre]) - A)
        assert result.metric("roll_centre_lateral")[k] == pytest.approx(in_body[1], abs=POSITION)
        assert result.metric("roll_centre_height")[k] == pytest.approx(centre[1] - P0[2], abs=POSITION)
        assert result.metric("track")[k] == pytest.approx(patches[0][1] - patches[1][1], abs=POSITION)

        def left_wheel_at(angle, metric):
            (t_left, _), f, _ = _roll_reference(corner, angle, roll_centre)
            centre, inner = f(corner.move(corner.centre, t_left)), f(corner.move(corner.inner, t_left))
            return ref.spin_metrics(centre, inner)[metric]

        camber_rate = derivative(lambda a: left_wheel_at(a, "camber"), phi, 1e-4)
        steer_rate = -derivative(lambda a: left_wheel_at(a, "toe"), phi, 1e-4)  # left wheel: steer = -toe
        assert result.metric("roll_camber_left")[k] == pytest.approx(camber_rate, rel=RATE)
        assert result.metric("roll_steer_left")[k] == pytest.approx(steer_rate, rel=RATE, abs=RATE)


def test_steering_ackermann_and_steering_ratio(front):
    """Steer angles of both wheels (the right one at rack r is the mirror of the left at -r),
    Ackermann against the ideal cot(outer) = cot(inner) + track / wheelbase, and the
    steering ratio from central differences of the mean steer angle in rack travel."""
    corner, suspension, vehicle = front
    racks = np.array([-0.04, 0.025])
    result = steering(suspension, racks, tolerance=TOLERANCE)
    track, wheelbase = vehicle["track"] * ref.MM, vehicle["wheelbase"] * ref.MM
    per_turn = vehicle["rack_travel_per_turn"] * ref.MM

    def steer(rack):
        left = hand_metrics("double_wishbone", corner, 0.0, rack)["steer_angle"]
        right = -hand_metrics("double_wishbone", corner, 0.0, -rack)["steer_angle"]
        return left, right

    for k, rack in enumerate(racks):
        left, right = steer(rack)
        assert result.metric("steer_angle_left")[k] == pytest.approx(left, abs=POSITION)
        assert result.metric("steer_angle_right")[k] == pytest.approx(right, abs=POSITION)
        inner, outer = (left, right) if left + right > 0 else (right, left)
        ideal = np.arctan(1.0 / (1.0 / np.tan(abs(inner)) + track / wheelbase))
        assert result.metric("ackermann_error")[k] == pytest.approx(abs(outer) - ideal, abs=POSITION)
        assert result.metric("ackermann_percent")[k] == pytest.approx(
            100 * (abs(inner) - abs(outer)) / (abs(inner) - ideal), rel=1e-8)
        mean_rate = derivative(lambda r: np.mean(steer(r)), rack, 1e-5)
        assert result.metric("steering_ratio")[k] == pytest.approx(2 * np.pi / per_turn / mean_rate, rel=RATE)
