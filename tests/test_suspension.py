"""Suspension metrics (loops.suspension) against constructions done by hand.

* A sliding-pillar corner whose hardpoints are placed with a known camber, toe, castor,
  kingpin inclination, scrub radius and castor trail: every static metric has a closed
  form, on either side of the vehicle and with x forward or rearward.
* A swing axle (one arm pivoting about a longitudinal axis, wheel fixed to it): the
  instant centre is the pivot, so the roll centre follows by similar triangles; camber,
  track change and a spring on the arm at a fraction of its length have closed forms in
  the arm angle.
* A swing axle with a kingpin and a tie rod: bump steer is zero when the tie rod's inner
  ball lies on the arm's pivot axis (the upright's instant axis), and ``h / (a L)`` at the
  design pose when the tie rod is raised by ``h`` with its outer ball a distance ``a``
  behind the kingpin (``L``: lateral distance from the pivot axis to the wheel centre).
* The example double wishbone: kingpin from pair names equals kingpin from points; the
  mirrored (right) corner and the model with x rearward give the same numbers; rates
  from the velocity solution equal finite differences of the positions; with every
  hardpoint in one transverse plane the roll centre equals the textbook construction
  (arm lines -> instant centre -> line from the contact patch).

Tolerances. The sliding pillar and the swing axles are driven by their own pair
variable, so positions are exact up to rounding: 1e-12. Mechanisms with closed loops
close to 1e-12 (``tolerance=`` below), so metrics agree to 1e-9. Finite differences
(central, step 1e-4 m) carry an O(h^2) truncation error: rtol 1e-6.
"""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mechanism import Mechanism, ModelError, load_model
from loops.suspension import METRICS, Corner, contact_patch, metrics_at, suspension_metrics

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "double_wishbone.toml"
EXACT = 1e-12     # driven by their own pair variable: rounding only
CLOSED = 1e-9     # loops closed to 1e-12 of the mechanism size
CLOSURE = 1e-12   # sweep closure tolerance for the loop mechanisms

# Vehicle axes (forward, outboard), global, written out by hand for each case.
AXES = {
    ("left", "+x"): ((1, 0, 0), (0, 1, 0)),
    ("right", "+x"): ((1, 0, 0), (0, -1, 0)),
    ("left", "-x"): ((-1, 0, 0), (0, -1, 0)),
    ("right", "-x"): ((-1, 0, 0), (0, 1, 0)),
}
UP = np.array([0.0, 0.0, 1.0])
#: Metrics a corner without spring, damper, vehicle parameters or driven steering lacks; and
#: the travel it does not measure (wheel travel is at the wheel centre by default).
WITHOUT_PARTS = {"spring_length", "motion_ratio", "wheel_rate", "damper_length", "damper_motion_ratio",
                 "steer_rate", "anti_dive", "anti_lift", "anti_squat", "wheel_centre_travel"}


# =============================================================================
# a sliding pillar with hardpoints placed by hand
# =============================================================================
CAMBER, TOE, CASTOR, KPI = 0.04, 0.01, 0.12, 0.2
RADIUS, SCRUB, TRAIL = 0.31, 0.03, 0.02
PLANE_Y = 0.05


def sliding_pillar(side, forward, kingpin_order=("kp_lower", "kp_upper"), camber=CAMBER, toe=TOE):
    """Upright on a vertical prismatic pair; the wheel and the kingpin placed by hand.

    The spin axis is the outboard axis turned by the camber about the forward axis, then by
    the toe about the vertical; the contact patch is ``R`` down the wheel plane's vertical.
    """
    f, o = (np.array(v, dtype=float) for v in AXES[side, forward])
    u = UP
    centre = np.array([0.0, PLANE_Y, 0.0]) + 0.75 * o + 0.30 * u + 0.1 * f
    spin = np.sin(toe) * np.cos(camber) * f + np.cos(toe) * np.cos(camber) * o - np.sin(camber) * u
    patch = centre + RADIUS * (-np.sin(camber) * np.sin(toe) * f - np.sin(camber) * np.cos(toe) * o
                               - np.cos(camber) * u)
    axis = -np.tan(CASTOR) * f - np.tan(KPI) * o + u
    axis /= np.linalg.norm(axis)
    ground = patch - SCRUB * o + TRAIL * f
    m = Mechanism("sliding pillar")
    m.add_link("upright")
    m.add_pair("pillar", "prismatic", "ground", "upright", at=centre, axis=(0, 0, 1))
    m.add_point("wheel_centre", "upright", centre)
    m.add_point("hub_inner", "upright", centre - 0.08 * spin)
    m.add_point("kp_lower", "upright", ground + 0.1 * axis)
    m.add_point("kp_upper", "upright", ground + 0.45 * axis)
    corner = Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                    kingpin=kingpin_order, wheel_radius=RADIUS, side=side, forward=forward,
                    centre_plane_y=PLANE_Y)
    return m, corner, patch


@pytest.mark.parametrize("side, forward", sorted(AXES))
def test_sliding_pillar_static_metrics_by_hand(side, forward):
    m, corner, patch = sliding_pillar(side, forward)
    slide = np.array([-0.04, 0.0, 0.03])
    result = m.sweep({"pillar": slide}, speeds={"pillar": 1.5})
    got = suspension_metrics(result, corner)
    assert set(got) == set(METRICS) - WITHOUT_PARTS
    R, g, d = RADIUS, CAMBER, TOE
    expected = {
        "camber": CAMBER, "toe": TOE, "castor": CASTOR, "kingpin_inclination": KPI,
        # the spin axis (sin d cos g, cos d cos g, -sin g) in (f, o, u), seen from ahead
        "camber_front_view": np.arctan2(np.sin(g), np.cos(d) * np.cos(g)),
        "steer_angle": -TOE if side == "left" else TOE,  # ISO 8855: + to the left; toe-in turns a left wheel right
        "scrub_radius": SCRUB, "castor_trail": TRAIL,
        # K_c = G + (C_z - P_z) (-tan(castor) f - tan(kpi) o + u), C - P = R (sin g sin d, sin g cos d, cos g)
        "kingpin_offset_wheel_centre": R * np.sin(g) * np.cos(d) + SCRUB + R * np.cos(g) * np.tan(KPI),
        "hub_trail": -R * np.sin(g) * np.sin(d) + TRAIL - R * np.cos(g) * np.tan(CASTOR),
        "wheel_travel": slide, "contact_patch_travel": slide, "wheel_recession": 0.0, "track_change": 0.0,
        "wheelbase_change": 0.0,
        "half_track": 0.75 - R * np.sin(g) * np.cos(d),
        "camber_gain": 0.0, "bump_steer": 0.0,
        # a vertical slide: the contact patch moves straight up, the roll centre is on the ground
        "roll_centre_height": 0.0, "roll_centre_z": patch[2] + slide,
    }
    for name, value in expected.items():
        assert_allclose(got[name], np.broadcast_to(value, (3,)), rtol=0, atol=EXACT, err_msg=name)
    # a pure translation has no instant centre
    for name in ("fvic_height", "fvsa_length", "svic_height", "svsa_length"):
        assert np.all(np.isnan(got[name])), name
    assert set(expected) | {"fvic_height", "fvsa_length", "svic_height", "svsa_length"} == set(got)
    assert_allclose(contact_patch(result, corner), patch + slide[:, None] * UP, rtol=0, atol=EXACT)


def test_identities_with_zero_camber_and_toe():
    """castor_trail = hub_trail + R tan(castor); scrub = kingpin offset at centre - R tan(kpi)."""
    m, corner, _ = sliding_pillar("left", "+x", camber=0.0, toe=0.0)
    got = metrics_at(m.sweep({"pillar": [0.0]}, speeds={"pillar": 1.0}), 0, corner)
    assert got["castor_trail"] == pytest.approx(got["hub_trail"] + RADIUS * np.tan(CASTOR), abs=EXACT)
    assert got["scrub_radius"] == pytest.approx(
        got["kingpin_offset_wheel_centre"] - RADIUS * np.tan(KPI), abs=EXACT)


def test_kingpin_point_order_does_not_matter():
    m, corner, _ = sliding_pillar("left", "+x")
    _, reversed_corner, _ = sliding_pillar("left", "+x", ("kp_upper", "kp_lower"))
    result = m.sweep({"pillar": [0.0, 0.02]}, speeds={"pillar": 1.0})
    a, b = suspension_metrics(result, corner), suspension_metrics(result, reversed_corner)
    for name in a:
        assert_allclose(a[name], b[name], rtol=0, atol=EXACT, err_msg=name)


# =============================================================================
# swing axle: instant centre at the pivot
# =============================================================================
PIVOT = np.array([0.0, 0.30, 0.25])
ARM = 0.45          # pivot axis to wheel centre, lateral, at the design pose (same height)
FRACTION = 0.6      # spring on the arm at this fraction of ARM
SPRING_HEIGHT = 0.35
WHEEL_RADIUS = 0.25


def swing_axle():
    m = Mechanism("swing axle")
    m.add_link("arm")
    m.add_pair("pivot", "revolute", "ground", "arm", at=PIVOT, axis=(1, 0, 0))
    centre = PIVOT + [0, ARM, 0]
    m.add_point("wheel_centre", "arm", centre)
    m.add_point("hub_inner", "arm", centre - [0, 0.1, 0])
    m.add_point("kp_lower", "arm", centre + [0, -0.05, -0.1])
    m.add_point("kp_upper", "arm", centre + [0, -0.07, 0.1])
    seat = PIVOT + [0, FRACTION * ARM, 0]
    m.add_point("spring_arm", "arm", seat)
    m.add_point("spring_body", "ground", seat + [0, 0, SPRING_HEIGHT])
    m.add_spring_damper("coil", "arm", seat, "ground", seat + [0, 0, SPRING_HEIGHT], stiffness=3e4)
    m.add_point_driver("travel", "wheel_centre", (0, 0, 1))
    return m


def swing_corner(spring=("spring_arm", "spring_body")):
    return Corner(upright="arm", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                  kingpin=("kp_lower", "kp_upper"), wheel_radius=WHEEL_RADIUS, side="left", spring=spring)


def swing_axle_by_hand(theta):
    """Closed forms in the arm angle theta (right-handed about +x: wheel up)."""
    c, s = np.cos(theta), np.sin(theta)
    patch_y = PIVOT[1] + ARM * c + WHEEL_RADIUS * s          # design patch (ARM, -R) from the pivot, rotated
    patch_z = PIVOT[2] + ARM * s - WHEEL_RADIUS * c
    # roll centre: the line from the patch through the pivot, at y = 0
    roll_z = patch_z + (0.0 - patch_y) * (PIVOT[2] - patch_z) / (PIVOT[1] - patch_y)
    lam, h = FRACTION * ARM, SPRING_HEIGHT
    length = np.sqrt((lam * c - lam) ** 2 + (h - lam * s) ** 2)
    return {
        "camber": -theta, "toe": 0.0 * theta, "wheel_travel": ARM * s, "wheel_recession": 0.0 * theta,
        "track_change": patch_y - (PIVOT[1] + ARM), "half_track": patch_y,
        "camber_gain": -1.0 / (ARM * c), "bump_steer": 0.0 * theta,
        "roll_centre_z": roll_z, "roll_centre_height": roll_z - patch_z,
        "spring_length": length,
        # -dL/dtheta / (dz_C/dtheta), with dz_C/dtheta = ARM cos(theta)
        "motion_ratio": FRACTION * (h * c - lam * s) / (length * c),
    }


def test_swing_axle_driven_by_arm_angle():
    theta = np.linspace(-0.3, 0.3, 13)
    result = swing_axle().sweep({"pivot": theta}, speeds={"pivot": 2.0})
    got = suspension_metrics(result, swing_corner())
    for name, value in swing_axle_by_hand(theta).items():
        assert_allclose(got[name], value, rtol=0, atol=EXACT, err_msg=name)
    # at the design pose the motion ratio is the fraction of the arm length
    assert got["motion_ratio"][6] == pytest.approx(FRACTION, abs=EXACT)


def test_swing_axle_driven_by_wheel_travel():
    """The same numbers through the road loop; the spring named as a spring-damper."""
    travel = np.linspace(-0.08, 0.08, 9)
    result = swing_axle().sweep({"travel": travel}, speeds={"travel": 1.0}, tolerance=CLOSURE)
    got = suspension_metrics(result, swing_corner(spring="coil"))
    for name, value in swing_axle_by_hand(np.arcsin(travel / ARM)).items():
        assert_allclose(got[name], value, rtol=0, atol=CLOSED, err_msg=name)


def test_swing_axle_mirrored_to_the_right():
    """The same arm on the right side (y -> -y): every metric as on the left."""
    m = Mechanism("right swing axle")
    m.add_link("arm")
    mirror = np.array([1.0, -1.0, 1.0])
    m.add_pair("pivot", "revolute", "ground", "arm", at=PIVOT * mirror, axis=(1, 0, 0))
    centre = (PIVOT + [0, ARM, 0]) * mirror
    m.add_point("wheel_centre", "arm", centre)
    m.add_point("hub_inner", "arm", centre + [0, 0.1, 0])
    m.add_point("kp_lower", "arm", centre + [0, 0.05, -0.1])
    m.add_point("kp_upper", "arm", centre + [0, 0.07, 0.1])
    seat = (PIVOT + [0, FRACTION * ARM, 0]) * mirror
    m.add_point("spring_arm", "arm", seat)
    m.add_point("spring_body", "ground", seat + [0, 0, SPRING_HEIGHT])
    theta = np.linspace(-0.3, 0.3, 13)
    result = m.sweep({"pivot": -theta}, speeds={"pivot": -1.0})  # right-handed about +x: wheel down
    corner = Corner(upright="arm", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                    kingpin=("kp_lower", "kp_upper"), wheel_radius=WHEEL_RADIUS, side="right",
                    spring=("spring_arm", "spring_body"))
    got = suspension_metrics(result, corner)
    for name, value in swing_axle_by_hand(theta).items():
        assert_allclose(got[name], value, rtol=0, atol=EXACT, err_msg=name)


# =============================================================================
# bump steer: swing axle with a kingpin and a tie rod
# =============================================================================
KINGPIN_AT = PIVOT + [0, 0.35, 0]


def steered_swing_axle(behind, raise_by):
    """Tie rod outer ball ``behind`` the kingpin (m, negative: ahead), both balls raised by
    ``raise_by`` above the pivot axis; the inner ball at the pivot axis's lateral position."""
    m = Mechanism("steered swing axle")
    for link in ("arm", "upright", "tie_rod"):
        m.add_link(link)
    centre = PIVOT + [0, ARM, 0]
    m.add_pair("pivot", "revolute", "ground", "arm", at=PIVOT, axis=(1, 0, 0))
    m.add_pair("kingpin", "revolute", "arm", "upright", at=KINGPIN_AT, axis=(0, 0, 1))
    outer = np.array([-behind, KINGPIN_AT[1] - 0.05, PIVOT[2] + raise_by])
    inner = np.array([-behind, PIVOT[1], PIVOT[2] + raise_by])
    m.add_pair("outer_ball", "spherical", "upright", "tie_rod", at=outer)
    m.add_pair("inner_ball", "spherical", "tie_rod", "ground", at=inner)
    m.add_point("wheel_centre", "upright", centre)
    m.add_point("hub_inner", "upright", centre - [0, 0.1, 0])
    corner = Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                    kingpin="kingpin", wheel_radius=WHEEL_RADIUS, side="left")
    return m, corner


def test_bump_steer_zero_with_inner_ball_on_the_instant_axis():
    m, corner = steered_swing_axle(behind=0.12, raise_by=0.0)
    result = m.sweep({"pivot": np.linspace(-0.3, 0.3, 13)}, speeds={"pivot": 1.0}, tolerance=CLOSURE)
    got = suspension_metrics(result, corner)
    assert_allclose(got["bump_steer"], 0.0, rtol=0, atol=CLOSED)
    assert_allclose(got["toe"], 0.0, rtol=0, atol=CLOSED)
    assert_allclose(got["castor"], 0.0, rtol=0, atol=CLOSED)
    # the kingpin turns with the arm: its top leans inboard in bump, inclination = arm angle
    assert_allclose(got["kingpin_inclination"], np.linspace(-0.3, 0.3, 13), rtol=0, atol=CLOSED)


@pytest.mark.parametrize("behind, raise_by", [(0.12, 0.03), (-0.12, 0.03), (0.12, -0.03), (0.08, 0.05)])
def test_bump_steer_sign_and_value_at_design(behind, raise_by):
    """Tie-rod length held: -h theta' - a psi' = 0 (psi: steer about the kingpin, +z), and
    toe = -psi, travel' = ARM theta', so bump steer = h / (a ARM): toe-in in bump for a
    rear tie rod raised above the pivot axis."""
    m, corner = steered_swing_axle(behind, raise_by)
    result = m.sweep({"pivot": [0.0]}, speeds={"pivot": 1.0}, tolerance=CLOSURE)
    got = metrics_at(result, 0, corner)
    assert got["bump_steer"] == pytest.approx(raise_by / (behind * ARM), rel=CLOSED, abs=CLOSED)


def test_bump_steer_and_camber_gain_equal_finite_differences():
    m, corner = steered_swing_axle(0.12, 0.03)
    step = 1e-4
    theta = np.array([-0.2, 0.1, 0.25])
    points = (theta[:, None] + np.array([-step, 0.0, step])).ravel()
    got = suspension_metrics(m.sweep({"pivot": points}, speeds={"pivot": 1.0}, tolerance=CLOSURE), corner)
    toe, camber, travel = (got[n].reshape(-1, 3) for n in ("toe", "camber", "wheel_travel"))
    d_travel = travel[:, 2] - travel[:, 0]
    assert_allclose(got["bump_steer"].reshape(-1, 3)[:, 1], (toe[:, 2] - toe[:, 0]) / d_travel, rtol=1e-6)
    assert_allclose(got["camber_gain"].reshape(-1, 3)[:, 1], (camber[:, 2] - camber[:, 0]) / d_travel,
                    rtol=1e-6)
    assert np.all(got["bump_steer"] != 0)


# =============================================================================
# the example double wishbone
# =============================================================================
def double_wishbone(transform=np.eye(3), name="double wishbone", spring=True, flat=False):
    """The example model built through the API, with every hardpoint mapped by ``transform``;
    ``flat`` moves every hardpoint but the tie rod's into the plane x = 0."""
    data = tomllib.loads(EXAMPLE.read_text())
    mm = 1e-3
    m = Mechanism(name)

    def where(p):
        p = np.array(p, dtype=float) * mm
        return transform @ p

    for link in data["links"]:
        m.add_link(link["name"])
    for pair in data["pairs"]:
        at = np.array(pair["at"], dtype=float)
        if flat and pair["name"] not in ("rack_end", "steer_ball"):
            at[0] = 0.0
        axis = None if "axis" not in pair else transform @ np.array(pair["axis"], dtype=float)
        m.add_pair(pair["name"], pair["type"], *pair["links"], at=where(at), axis=axis)
    for point in data["points"]:
        m.add_point(point["name"], point["link"], where(point["at"]))
    for name in ("lower_ball", "upper_ball"):
        pair = next(p for p in data["pairs"] if p["name"] == name)
        at = np.array(pair["at"], dtype=float)
        if flat:
            at[0] = 0.0
        m.add_point(name + "_centre", "upright", where(at))
    if spring:
        m.add_point("spring_lower", "lower_arm", where([0, 600, 130]))
        m.add_point("spring_upper", "ground", where([-20, 560, 620]))
    m.add_point_driver("travel", "wheel_centre", (0, 0, 1))
    return m


def dw_corner(side="left", forward="+x", kingpin=("lower_ball", "upper_ball")):
    return Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                  kingpin=kingpin, wheel_radius=0.3, side=side, forward=forward,
                  spring=("spring_lower", "spring_upper"))


TRAVEL = np.linspace(-0.06, 0.06, 7)


@pytest.fixture(scope="module")
def dw_metrics():
    result = double_wishbone().sweep({"travel": TRAVEL}, speeds={"travel": 1.0}, tolerance=CLOSURE)
    return result, suspension_metrics(result, dw_corner())


def test_double_wishbone_from_file_matches_the_api_build(dw_metrics):
    _, expected = dw_metrics
    m = load_model(EXAMPLE)
    m.add_point("spring_lower", "lower_arm", [0, 0.6, 0.13])
    m.add_point("spring_upper", "ground", [-0.02, 0.56, 0.62])
    result = m.sweep({"travel": TRAVEL}, speeds={"travel": 1.0}, tolerance=CLOSURE)
    got = suspension_metrics(result, dw_corner())
    for name in expected:
        assert_allclose(got[name], expected[name], rtol=0, atol=CLOSED, err_msg=name)


def test_double_wishbone_design_values_by_hand(dw_metrics):
    """At travel 0 the wheel is upright and straight; the kingpin runs through the balls at
    (0, 720, 100) and (-10, 680, 440) mm, the contact patch is (0, 780, 0) mm."""
    _, got = dw_metrics
    i = 3
    assert TRAVEL[i] == 0.0
    assert_allclose([got["camber"][i], got["toe"][i]], 0.0, atol=CLOSED)
    assert got["kingpin_inclination"][i] == pytest.approx(np.arctan2(40, 340), abs=CLOSED)
    assert got["castor"][i] == pytest.approx(np.arctan2(10, 340), abs=CLOSED)
    assert got["scrub_radius"][i] == pytest.approx((780 - 720 - 40 * 100 / 340) * 1e-3, abs=CLOSED)
    assert got["castor_trail"][i] == pytest.approx(10 * 100 / 340 * 1e-3, abs=CLOSED)
    assert got["kingpin_offset_wheel_centre"][i] == pytest.approx((780 - 720 + 40 * 200 / 340) * 1e-3, abs=CLOSED)
    assert got["hub_trail"][i] == pytest.approx(-10 * 200 / 340 * 1e-3, abs=CLOSED)
    assert got["wheel_travel"][i] == pytest.approx(0.0, abs=CLOSED)
    assert got["half_track"][i] == pytest.approx(0.78, abs=CLOSED)


def test_kingpin_from_pairs_equals_kingpin_from_points(dw_metrics):
    result, expected = dw_metrics
    got = suspension_metrics(result, dw_corner(kingpin=("lower_ball_centre", "upper_ball_centre")))
    for name in expected:
        assert_allclose(got[name], expected[name], rtol=0, atol=EXACT, err_msg=name)


def test_metrics_at_is_one_row_of_the_sweep(dw_metrics):
    result, expected = dw_metrics
    row = metrics_at(result, -2, dw_corner())
    assert row == {name: float(values[-2]) for name, values in expected.items()}


@pytest.mark.parametrize("transform, side, forward", [
    (np.diag([1.0, -1.0, 1.0]), "right", "+x"),    # mirror image: the front-right corner
    (np.diag([-1.0, -1.0, 1.0]), "left", "-x"),    # the same corner in a model with x rearward
])
def test_double_wishbone_mirrored_or_turned_gives_the_same_numbers(dw_metrics, transform, side, forward):
    """Every metric as on the left; only the steer angle (ISO 8855: positive to the left,
    not per wheel as toe) changes sign on the right."""
    _, expected = dw_metrics
    m = double_wishbone(transform)
    result = m.sweep({"travel": TRAVEL}, speeds={"travel": 1.0}, tolerance=CLOSURE)
    got = suspension_metrics(result, dw_corner(side, forward))
    assert set(got) == set(expected)
    for name in expected:
        sign = -1.0 if name == "steer_angle" and side == "right" else 1.0
        assert_allclose(got[name], sign * expected[name], rtol=0, atol=CLOSED, err_msg=name)


def test_double_wishbone_rates_equal_finite_differences():
    step = 1e-4
    centres = np.array([-0.05, 0.0, 0.04])
    travel = (centres[:, None] + np.array([-step, 0.0, step])).ravel()
    result = double_wishbone().sweep({"travel": travel}, speeds={"travel": 1.0}, tolerance=CLOSURE)
    got = {n: v.reshape(-1, 3) for n, v in suspension_metrics(result, dw_corner()).items()}
    d_travel = got["wheel_travel"][:, 2] - got["wheel_travel"][:, 0]
    assert_allclose(d_travel, 2 * step, rtol=1e-9)
    for rate, value, sign in (("camber_gain", "camber", 1), ("bump_steer", "toe", 1),
                              ("motion_ratio", "spring_length", -1)):
        fd = sign * (got[value][:, 2] - got[value][:, 0]) / d_travel
        assert_allclose(got[rate][:, 1], fd, rtol=1e-6, err_msg=rate)


def test_flat_double_wishbone_roll_centre_is_the_textbook_construction():
    """Every hardpoint but the tie rod in x = 0: at the design pose the front-view
    instant centre is where the arm lines meet, and the roll centre is on the line from the
    contact patch (0.78, 0) through it."""
    m = double_wishbone(flat=True, spring=False)
    result = m.sweep({"travel": [0.0]}, speeds={"travel": 1.0}, tolerance=CLOSURE)
    corner = Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                    kingpin=("lower_ball", "upper_ball"), wheel_radius=0.3, side="left")
    got = metrics_at(result, 0, corner)

    def line(a, b):  # z = z_a + slope (y - y_a)
        return a, (b[1] - a[1]) / (b[0] - a[0])

    (ly, lz), ls = line((0.300, 0.120), (0.720, 0.100))
    (uy, uz), us = line((0.400, 0.420), (0.680, 0.440))
    ic_y = (uz - lz + ls * ly - us * uy) / (ls - us)
    ic_z = lz + ls * (ic_y - ly)
    roll_z = 0.0 + (0.0 - 0.78) * (ic_z - 0.0) / (ic_y - 0.78)
    assert got["roll_centre_height"] == pytest.approx(roll_z, abs=CLOSED)
    assert got["roll_centre_z"] == pytest.approx(roll_z, abs=CLOSED)


# =============================================================================
# mistakes
# =============================================================================
@pytest.mark.parametrize("change, where", [
    ({"side": "front"}, "corner.side"),
    ({"forward": "+y"}, "corner.forward"),
    ({"wheel_radius": -0.3}, "corner.wheel_radius"),
    ({"wheel_radius": "big"}, "corner.wheel_radius"),
    ({"kingpin": ("a", "b", "c")}, "corner.kingpin"),
    ({"kingpin": ("a", "a")}, "corner.kingpin"),
    ({"spring": ("a",)}, "corner.spring"),
    ({"centre_plane_y": float("nan")}, "corner.centre_plane_y"),
    ({"upright": ""}, "corner.upright"),
])
def test_corner_rejects_bad_values(change, where):
    values = dict(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                  kingpin=("lower_ball", "upper_ball"), wheel_radius=0.3, side="left")
    values.update(change)
    with pytest.raises(ModelError) as info:
        Corner(**values)
    assert info.value.where == where


@pytest.mark.parametrize("change, where, text", [
    ({"upright": "knuckle"}, "corner.upright", "'knuckle' is not a link"),
    ({"wheel_centre": "hub"}, "corner.wheel_centre", "'hub' is not a point"),
    ({"kingpin": ("lower_ball", "top_mount")}, "corner.kingpin", "'top_mount' is neither"),
    ({"kingpin": "lower_ball"}, "corner.kingpin", "a spherical pair"),
    ({"spring": "coil"}, "corner.spring", "not a spring-damper"),
    ({"side": "right"}, "corner.spin_axis_point", "not inboard"),
    ({"spin_axis_point": "wheel_centre", "wheel_centre": "hub_inner"}, "corner.spin_axis_point", "not inboard"),
    ({"centre_plane_y": 1.0}, "corner.side", "not on the left"),
])
def test_metrics_name_the_mistake(dw_metrics, change, where, text):
    result, _ = dw_metrics
    values = dict(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                  kingpin=("lower_ball", "upper_ball"), wheel_radius=0.3, side="left")
    values.update(change)
    with pytest.raises(ModelError) as info:
        suspension_metrics(result, Corner(**values))
    assert info.value.where == where
    assert text in str(info.value)


def test_metrics_at_rejects_an_index_out_of_range(dw_metrics):
    result, _ = dw_metrics
    with pytest.raises(ModelError, match="index"):
        metrics_at(result, len(TRAVEL), dw_corner())


def test_rates_need_no_speeds_when_the_travel_driver_is_driven():
    """Rates are partial derivatives along the corner's travel driver (the velocity solution
    for a unit travel rate), so a sweep without speeds gives the same numbers."""
    with_speeds = suspension_metrics(double_wishbone().sweep({"travel": [0.0, 0.02]}, speeds={"travel": 0.3}),
                                     dw_corner())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        without = suspension_metrics(double_wishbone().sweep({"travel": [0.0, 0.02]}), dw_corner())
    for name in with_speeds:
        assert_allclose(without[name], with_speeds[name], rtol=1e-12, atol=1e-15, err_msg=name)


def test_sweep_by_another_driver_without_speeds_warns_and_gives_nan_rates():
    """Driven by the lower arm's angle (not the travel driver) the rates come from the
    sweep's own motion: without speeds there is none."""
    m = double_wishbone()
    result = m.sweep({"lower_inner": [0.0, 0.02]})
    with pytest.warns(UserWarning, match="no velocities"):
        got = suspension_metrics(result, dw_corner())
    for name in ("camber_gain", "bump_steer", "motion_ratio", "roll_centre_height", "roll_centre_z",
                 "fvic_height", "wheel_rate"):
        if name in got:
            assert np.all(np.isnan(got[name])), name
    assert np.all(np.isfinite(got["camber"]))


@pytest.mark.parametrize("change, where", [
    ({"shared": "rack"}, "corner.shared"),
    ({"steering": 3}, "corner.steering"),
    ({"travel": ""}, "corner.travel"),
    ({"damper": ("a",)}, "corner.damper"),
    ({"kingpin": None}, "corner.kingpin"),
])
def test_corner_rejects_more_bad_values(change, where):
    values = dict(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                  kingpin=("lower_ball", "upper_ball"), wheel_radius=0.3, side="left")
    values.update(change)
    with pytest.raises(ModelError) as info:
        Corner(**values)
    assert info.value.where == where


def test_a_radius_must_be_a_number_not_a_flag():
    with pytest.raises(ModelError) as info:
        dw_corner_values = dict(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                                kingpin=("lower_ball", "upper_ball"), side="left")
        Corner(wheel_radius=True, **dw_corner_values)
    assert info.value.where == "corner.wheel_radius"


def test_metric_options_are_checked(dw_metrics):
    result, _ = dw_metrics
    with pytest.raises(ModelError) as info:
        suspension_metrics(result, dw_corner(), travel_at="hub")
    assert info.value.where == "travel_at"


def test_a_virtual_steering_axis_needs_its_steering_driven():
    """The five-link without its toe adjuster among the drivers: no screw axis to take."""
    model = load_model(EXAMPLE.parent / "five_link_rear.toml")
    corner = Corner("upright", "wheel_centre", "hub_inner", None, 0.32, "left", steering="toe_adjust")
    result = model.sweep({"travel": [0.0, 0.01]})
    with pytest.raises(ModelError, match="needs the steering variable 'toe_adjust' driven") as info:
        suspension_metrics(result, corner)
    assert info.value.where == "corner.kingpin"
    driven = model.sweep({"travel": [0.0, 0.01], "toe_adjust": 0.0})
    assert np.all(np.isfinite(suspension_metrics(driven, corner)["castor"]))


def test_docstring_examples_run(monkeypatch):
    """The Examples sections of the workbench's modules, as doctests, from the repository root."""
    import doctest

    import loops.suspension
    import loops.suspension.measure

    monkeypatch.chdir(EXAMPLE.parents[1])
    for module in (loops.suspension, loops.suspension.measure):
        failures, tried = doctest.testmod(module, raise_on_error=False, report=True)
        assert tried > 0 and failures == 0, module.__name__


def test_the_size_of_a_model_takes_memory_in_proportion_to_it():
    """``model_size`` of a model with 2,000 extra points allocates a few MB, not the n x n x 3
    array of all differences (about 200 MB here; 5.74 GiB for 8,000 points, issue 24), and is
    the largest distance between two hardpoints."""
    import tracemalloc

    from loops.suspension.corner import model_size

    rng = np.random.default_rng(3)
    m = Mechanism("cloud")
    m.add_link("arm")
    m.add_pair("pivot", "revolute", "ground", "arm", at=(0, 0, 0), axis=(0, 0, 1))
    cloud = rng.uniform(-1.0, 1.0, (2000, 3))
    for i, p in enumerate(cloud):
        m.add_point(f"p{i}", "arm", p)
    model = m.snapshot()
    tracemalloc.start()
    size = model_size(model)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20 * 2**20, peak
    points = np.vstack([[0.0, 0.0, 0.0], cloud])
    expected = max(np.linalg.norm(points - p, axis=1).max() for p in points)
    assert size == expected
