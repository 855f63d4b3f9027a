"""The worked examples (examples/*.py with their model files) get their numbers right.

Each script is imported from its file and its ``analyse()`` run: the dict of results that its
``main()`` prints and draws (each script runs as a command, headless, drawing its picture and
animation: tests/test_entry_points.py, or the README's block). The dict is checked
against references that do not come from kinematrix: closed forms (``tests/reference``,
each with its source, or written out here), and for the two suspensions a hardpoint solve
with ``scipy.optimize.least_squares`` on the model file's numbers (read with ``tomllib``).

Tolerances. Sweeps close every loop to 1e-10 relative to the mechanism's size; angles and
lengths carry that error times the linkage's conditioning (O(1)-O(10) away from dead
points). Hence ``TOL = 1e-9`` rad for angles, ``TOL x size`` for lengths, scaled by the
driver speed (and its square) for rates. Where a script reports a sampled extreme, the
tolerance is the sampling error, stated at the assertion.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import least_squares, minimize_scalar
from scipy.spatial.transform import Rotation

from mechanism import load_model, save_model
from mechanism.pairs import PairType
from example_scripts import example_module
from reference import closed_forms as cf
from reference import dynamics_references as dr

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TOL = 1e-9
MM = 1e-3
SCRIPTS = ("four_bar", "slider_crank", "hooke_joint", "rssr", "bennett", "mower_wobble_drive",
           "double_wishbone", "macpherson", "landing_gear", "solar_array", "spring_pendulum", "governor")


def run_example(name):
    """Import examples/<name>.py and run its ``analyse()``: the results dict its ``main()`` prints
    and draws (the drawing is checked where the script runs as a command)."""
    return example_module(name).analyse()


def hardpoints(model_file):
    """Pair centres and axes, point positions (m) of a model file, read with tomllib only."""
    data = tomllib.loads((EXAMPLES / model_file).read_text())
    scale = MM if data.get("units", {}).get("length", "m") == "mm" else 1.0
    at = {p["name"]: np.array(p["at"], float) * scale for p in data["pairs"] + data["points"]}
    axis = {p["name"]: np.array(p["axis"], float) / np.linalg.norm(p["axis"]) for p in data["pairs"] if "axis" in p}
    return at, axis


def about_axis(point, axis, angle, x):
    """``x`` turned by ``angle`` about the line through ``point`` along unit ``axis``."""
    return Rotation.from_rotvec(axis * angle).apply(x - point) + point


def wheel_angles(spin):
    """ISO camber (+ top outboard) and toe (+ toe-in) of a left wheel from its spin axis (inboard
    to outboard), with x forward and z up."""
    spin = spin / np.linalg.norm(spin)
    return np.arctan2(-spin[2], np.hypot(spin[0], spin[1])), np.arctan2(spin[0], spin[1])


def solve_along(equations, travels, unknowns):
    """``least_squares`` solutions of ``equations(x, travel)`` for each travel, walking outward
    from travel 0 (each solve starts from its neighbour's solution)."""
    solutions, guess = {}, np.zeros(unknowns)
    for direction in (1, -1):
        guess = np.zeros(unknowns)
        for i in sorted((i for i, t in enumerate(travels) if direction * t >= 0), key=lambda i: abs(travels[i])):
            solution = least_squares(equations, guess, args=(travels[i],), xtol=1e-15, ftol=1e-15, gtol=1e-15)
            assert np.abs(solution.fun).max() < 1e-13
            solutions[i] = guess = solution.x
    return [solutions[i] for i in range(len(travels))]


# =============================================================================
# planar and spherical classics
# =============================================================================
def test_four_bar_coupler_curve():
    """The coupler curve closes after one crank turn and is Freudenstein's (Norton eqs. 4.10,
    4.31); the rocker's limit positions are where crank and coupler line up (law of cosines)."""
    r = run_example("four_bar")
    report = r["report"]
    assert (report.grubler, report.dof, report.passive, report.redundant) == (-2, 1, 0, 3)
    size = 0.3
    assert r["closure_gap"] < TOL * size
    at, _ = hardpoints("four_bar.toml")
    A, B, C, D, P = (at[k][:2] for k in "ABCDP")
    a, b, c, d = (np.linalg.norm(u - v) for u, v in ((B, A), (C, B), (C, D), (D, A)))
    assert_allclose([a, b, c, d], [0.1, 0.3, 0.25, 0.3], rtol=1e-11)
    theta4_0 = np.arctan2(*(C - D)[::-1])
    branch = min((-1, 1), key=lambda s: abs(cf.wrap(cf.four_bar_angles(a, b, c, d, 0.0, s)[1] - theta4_0)))
    crank = r["crank_angle"]
    theta3, theta4 = cf.four_bar_angles(a, b, c, d, crank, branch)
    p = np.linalg.norm(P - B)
    delta = np.arctan2(*(P - B)[::-1]) - np.arctan2(*(C - B)[::-1])
    curve, _, _ = cf.four_bar_coupler_point(a, p, delta, crank, theta3)
    assert_allclose(r["coupler_curve"][:, :2], curve, rtol=0, atol=TOL * size)
    assert_allclose(r["coupler_curve"][:, 2], 0.0, rtol=0, atol=TOL * size)
    assert_allclose(cf.wrap(r["rocker_angle"] + theta4_0 - theta4), 0.0, rtol=0, atol=TOL)
    # Limit positions: |C - A| = b - a and b + a; rocker angle (from +x) = pi - angle at D.
    limits = [np.pi - np.arccos((c**2 + d**2 - s**2) / (2 * c * d)) for s in (b - a, b + a)]
    assert_allclose(np.sort(r["rocker_limits"] + theta4_0), np.sort(limits), rtol=0, atol=TOL)
    assert_allclose(r["rocker_swing"], abs(limits[1] - limits[0]), rtol=0, atol=TOL)
    assert abs(np.degrees(r["rocker_swing"]) - 51.4564) < 1e-4


def slider_crank_closed_form(r, l, e, theta, omega):
    """Piston pin height y above the crank axis and its rates, crank angle ``theta`` from the
    cylinder axis (counter-clockwise), pin offset ``e``, constant crank speed ``omega``.
    With u = e + r sin(theta), s = sqrt(l^2 - u^2): y = r cos(theta) + s; derived by hand:
    y' = -r sin - u r cos / s, y'' = -r cos - (r^2 cos^2 - u r sin) / s - u^2 r^2 cos^2 / s^3
    (per unit crank angle; times omega, omega^2)."""
    sin, cos = np.sin(theta), np.cos(theta)
    u = e + r * sin
    s = np.sqrt(l**2 - u**2)
    y = r * cos + s
    dy = -r * sin - u * r * cos / s
    ddy = -r * cos - (r**2 * cos**2 - u * r * sin) / s - u**2 * r**2 * cos**2 / s**3
    return y, dy * omega, ddy * omega**2


def test_offset_slider_crank():
    """Piston position, velocity, acceleration against the closed form; stroke
    sqrt((l+r)^2 - e^2) - sqrt((l-r)^2 - e^2); dead centres where crank and rod line up."""
    res = run_example("slider_crank")
    r, l, e = 0.050, 0.160, 0.010
    omega = 3000 * 2 * np.pi / 60
    y, v, acc = slider_crank_closed_form(r, l, e, res["crank_angle"], omega)
    size = l
    assert_allclose(res["piston_height"], y, rtol=0, atol=TOL * size)
    assert_allclose(res["piston_velocity"], v, rtol=TOL, atol=TOL * size * omega)
    assert_allclose(res["piston_acceleration"], acc, rtol=TOL, atol=TOL * size * omega**2)
    top, bottom = np.sqrt((l + r) ** 2 - e**2), np.sqrt((l - r) ** 2 - e**2)
    assert_allclose([res["tdc_height"], res["bdc_height"]], [top, bottom], rtol=0, atol=TOL * size)
    assert_allclose(res["stroke"], top - bottom, rtol=0, atol=TOL * size)
    assert res["stroke"] > 2 * r  # the offset lengthens the stroke: 100.2173 mm
    # Dead centres found by Newton on the piston speed: near them the height is flat, so the
    # angle is known to closure error / curvature ~ 1e-10 / 0.06 m: 1e-8 rad.
    tdc, bdc = 2 * np.pi - np.arcsin(e / (l + r)), np.pi - np.arcsin(e / (l - r))
    assert_allclose([res["tdc_crank_angle"], res["bdc_crank_angle"]], [tdc, bdc], rtol=0, atol=1e-8)
    assert_allclose(res["down_stroke_angle"], bdc - tdc + 2 * np.pi, rtol=0, atol=2e-8)
    assert abs(np.degrees(res["down_stroke_angle"]) - 177.5135) < 1e-4


def test_hooke_joint_at_30_degrees():
    """tan(output) = tan(input) / cos(b) (input pin in the shafts' plane; Wikipedia, "Universal
    joint"); speed ratio cos b / (1 - sin^2 b cos^2 input), between cos b and 1 / cos b."""
    r = run_example("hooke_joint")
    beta = np.radians(30.0)
    assert_allclose(r["shaft_angle"], beta, rtol=0, atol=1e-15)
    report = r["report"]
    assert (report.grubler, report.dof, report.redundant) == (-2, 1, 3)
    t2, _, _, ratio = cf.hooke_joint(r["input_angle"], beta, input_pin_in_plane=True)
    assert_allclose(cf.wrap(r["output_angle"] - t2), 0.0, rtol=0, atol=TOL)
    assert_allclose(r["velocity_ratio"], ratio, rtol=TOL, atol=TOL)
    assert_allclose([r["ratio_min"], r["ratio_max"]], [np.cos(beta), 1 / np.cos(beta)], rtol=TOL, atol=0)
    # Largest angle error atan((1 - c) / (2 sqrt c)) = 4.1176 deg at tan(input) = sqrt(cos b),
    # between the 1-degree samples: the sampled maximum is below it by at most ~1e-5 rad.
    peak = np.arctan((1 - np.cos(beta)) / (2 * np.sqrt(np.cos(beta))))
    assert peak - 2e-5 < r["angle_error_max"] <= peak + TOL


def test_rssr_output_angle():
    """Spatial RSSR: rocker angle against the closed form of the constant-distance condition
    (Suh & Radcliffe; tests/reference/closed_forms.rssr_rocker_angle); its limits against a
    bounded scalar search of the same closed form; mobility 2 = 1 + 1 passive."""
    r = run_example("rssr")
    report = r["report"]
    assert (report.grubler, report.dof, report.passive, report.redundant) == (2, 1, 1, 0)
    at, axis = hardpoints("rssr.toml")
    args = (at["crank_angle"], axis["crank_angle"], at["crank_ball"],
            at["rocker_angle"], axis["rocker_angle"], at["rocker_ball"])
    branch = min((-1, 1), key=lambda s: abs(float(cf.rssr_rocker_angle(*args, 0.0, s))))
    expected = cf.rssr_rocker_angle(*args, r["crank_angle"], branch)
    assert_allclose(cf.wrap(r["rocker_angle"] - expected), 0.0, rtol=0, atol=TOL)
    size = 0.3
    length = np.linalg.norm(at["crank_ball"] - at["rocker_ball"])
    assert_allclose(r["drag_link_length"], length, rtol=0, atol=TOL * size)
    extremes = []
    for sign, guess in zip((1, -1), r["crank_at_rocker_limits"]):
        found = minimize_scalar(lambda t: sign * float(cf.rssr_rocker_angle(*args, t, branch)),
                                bounds=(guess - 0.1, guess + 0.1), method="bounded",
                                options={"xatol": 1e-10})
        extremes.append(sign * found.fun)
    # The angle is flat at its extremes: a 1e-5 rad error in the crank angle moves it by ~1e-10.
    assert_allclose(r["rocker_limits"], extremes, rtol=0, atol=TOL)
    assert abs(np.degrees(r["rocker_swing"]) - 66.1868) < 1e-4


def test_bennett_linkage():
    """Bennett (1903): grubler -2, dof 1 (three redundant constraints); t3 = -t1, t4 = -t2,
    tan(t1/2) tan(t2/2) = sin((b+a)/2) / sin((b-a)/2) (tests/reference/closed_forms)."""
    r = run_example("bennett")
    report = r["report"]
    assert (report.grubler, report.dof, report.passive, report.redundant) == (-2, 1, 0, 3)
    assert (r["a"], r["b"]) == (0.3, 0.2)
    assert_allclose(r["bennett_ratio"], (0.4, 0.4), rtol=1e-15)
    assert_allclose([np.sin(r["alpha"]), r["beta"]], [0.75, np.radians(30.0)], rtol=1e-15)
    angles = r["angles"]
    expected = cf.bennett_joint_angles(angles["J1"], r["alpha"], r["beta"])
    for name, values in zip(("J1", "J2", "J3", "J4"), expected):
        assert_allclose(cf.wrap(angles[name] - values), 0.0, rtol=0, atol=TOL, err_msg=name)
    assert max(r["relation_defect"], r["t3_plus_t1"], r["t4_plus_t2"]) < TOL


def test_mower_wobble_drive():
    """Wobble drive: the fork oscillates as tan(phi) = -tan(tilt) sin(theta) (its trunnion, normal
    to the fork shaft z, stays in the plane of the ring, whose normal is the journal axis turned
    with the shaft), so the amplitude is the tilt; knife stroke 2 x arm x sin(tilt)."""
    r = run_example("mower_wobble_drive")
    report = r["report"]
    assert (report.grubler, report.dof, report.passive, report.redundant) == (-5, 1, 0, 6)
    tilt, arm = np.radians(15.0), 0.147
    assert_allclose([r["tilt"], r["arm"]], [tilt, arm], rtol=1e-15)
    theta = r["input_angle"]
    phi = -np.arctan(np.tan(tilt) * np.sin(theta))
    assert_allclose(r["rocker_angle"], phi, rtol=0, atol=TOL)
    assert_allclose(r["amplitude"], tilt, rtol=0, atol=TOL)  # reached at theta = 90 and 270 deg
    # Knife head on the line x = arm, 120 mm drag link from the arm tip (arm cos phi, arm sin phi):
    link = 0.120
    knife = arm * np.sin(phi) - link + np.sqrt(link**2 - (arm * (1 - np.cos(phi))) ** 2)
    size = 0.3
    assert_allclose(r["knife_position"], knife, rtol=0, atol=TOL * size)
    assert_allclose(r["stroke"], 2 * arm * np.sin(tilt), rtol=0, atol=TOL * size)
    omega = 900 * 2 * np.pi / 60
    phi_rate = -np.tan(tilt) * np.cos(theta) / (1 + (np.tan(tilt) * np.sin(theta)) ** 2) * omega
    assert_allclose(r["rocker_speed"], phi_rate, rtol=TOL, atol=TOL * omega)


# =============================================================================
# suspensions: against a hardpoint solve of the model file's numbers
# =============================================================================
CHECKED_TRAVELS = np.array([-80, -40, -10, 0, 10, 40, 80]) * MM


def test_double_wishbone_camber_and_toe():
    """Camber and toe over +-80 mm against an independent solve: lower and upper arm angles and
    the upright's rigid motion (8 unknowns) from the balls on their arms (6), the tie-rod length
    (1) and the wheel-centre height (1). Camber goes negative in bump, positive in rebound, and
    stays within a few degrees; the steered corner with the rack centred is the same corner."""
    r = run_example("double_wishbone")
    at, axis = hardpoints("double_wishbone.toml")
    tie_rod = np.linalg.norm(at["steer_ball"] - at["rack_end"])

    def equations(x, travel):
        upright = Rotation.from_rotvec(x[2:5])

        def moved(p):
            return upright.apply(p) + x[5:8]

        return np.concatenate([
            moved(at["lower_ball"]) - about_axis(at["lower_inner"], axis["lower_inner"], x[0], at["lower_ball"]),
            moved(at["upper_ball"]) - about_axis(at["upper_inner"], axis["upper_inner"], x[1], at["upper_ball"]),
            [np.linalg.norm(moved(at["steer_ball"]) - at["rack_end"]) - tie_rod],
            [moved(at["wheel_centre"])[2] - at["wheel_centre"][2] - travel],
        ])

    index = np.searchsorted(np.round(r["travel"], 9), np.round(CHECKED_TRAVELS, 9))
    assert_allclose(r["travel"][index], CHECKED_TRAVELS, rtol=0, atol=1e-15)
    spin_0 = at["wheel_centre"] - at["hub_inner"]
    expected = np.array([wheel_angles(Rotation.from_rotvec(x[2:5]).apply(spin_0))
                         for x in solve_along(equations, CHECKED_TRAVELS, 8)])
    m = r["metrics"]
    assert_allclose(m["camber"][index], expected[:, 0], rtol=0, atol=TOL)
    assert_allclose(m["toe"][index], expected[:, 1], rtol=0, atol=TOL)
    camber = np.degrees(m["camber"])
    assert camber[0] > 0.5 and camber[-1] < -1.5 and np.abs(camber).max() < 3.0
    assert np.all(np.diff(camber) < 0) and np.all(m["camber_gain"] < 0)
    assert np.abs(np.degrees(m["toe"])).max() < 0.2  # bump steer under 0.2 deg over the travel
    assert_allclose(r["toe_at_rack"][0.0], m["toe"], rtol=0, atol=TOL)
    assert np.all(np.diff(r["toe_vs_rack"]) > 0)  # rack toward the wheel: toe-in
    assert np.degrees(r["toe_vs_rack"][-1]) > 20 and np.degrees(r["toe_vs_rack"][0]) < -20


def test_macpherson_camber_toe_and_strut():
    """Camber, toe and strut extension over +-80 mm against an independent solve: lower-arm
    angle and the upright's rigid motion (7 unknowns) from the ball on its arm (3), the top
    mount on the strut axis (3, of rank 2), the tie-rod length (1), the wheel-centre height (1).
    Camber positive in rebound, negative in bump; the strut shortens about as the wheel rises."""
    r = run_example("macpherson")
    report = r["report"]
    assert (report.grubler, report.dof, report.passive, report.redundant) == (3, 1, 2, 0)
    at, axis = hardpoints("macpherson.toml")
    tie_rod = np.linalg.norm(at["steer_ball"] - at["rack_end"])
    top, base, strut = at["top_mount"], at["strut_base"], axis["strut"]

    def equations(x, travel):
        upright = Rotation.from_rotvec(x[1:4])

        def moved(p):
            return upright.apply(p) + x[4:7]

        return np.concatenate([
            moved(at["lower_ball"]) - about_axis(at["lca_inner"], axis["lca_inner"], x[0], at["lower_ball"]),
            np.cross(upright.apply(strut), top - moved(base)),
            [np.linalg.norm(moved(at["steer_ball"]) - at["rack_end"]) - tie_rod],
            [moved(at["wheel_centre"])[2] - at["wheel_centre"][2] - travel],
        ])

    index = np.searchsorted(np.round(r["travel"], 9), np.round(CHECKED_TRAVELS, 9))
    solutions = solve_along(equations, CHECKED_TRAVELS, 7)
    spin_0 = at["wheel_centre"] - at["hub_inner"]
    expected = np.array([wheel_angles(Rotation.from_rotvec(x[1:4]).apply(spin_0)) for x in solutions])
    m = r["metrics"]
    assert_allclose(m["camber"][index], expected[:, 0], rtol=0, atol=TOL)
    assert_allclose(m["toe"][index], expected[:, 1], rtol=0, atol=TOL)
    extension = [np.linalg.norm(top - (Rotation.from_rotvec(x[1:4]).apply(base) + x[4:7]))
                 - np.linalg.norm(top - base) for x in solutions]
    assert_allclose(r["strut_extension"][index], extension, rtol=0, atol=TOL * 0.7)
    camber = np.degrees(m["camber"])
    assert camber[0] > 1.0 and camber[-1] < -0.3 and np.abs(camber).max() < 3.0
    assert np.all((0.9 < m["motion_ratio"]) & (m["motion_ratio"] < 1.05))


# =============================================================================
# landing gear
# =============================================================================
def test_landing_gear_retracts_fully():
    """The actuator's stroke to 600 mm brings the leg to 90 deg exactly; the leg angle and the
    knee's included angle along the way match the triangles of the hinge points (law of
    cosines: actuator triangle for the leg, side-stay triangle for the knee); the wheel moves
    on a 1.8 m circle about the trunnion."""
    r = run_example("landing_gear")
    report = r["report"]
    assert (report.grubler, report.dof, report.passive, report.redundant) == (-5, 1, 0, 6)
    assert_allclose(r["retracted_angle"], np.pi / 2, rtol=0, atol=TOL)
    assert np.all(np.diff(r["leg_angle"]) > 0)
    at, _ = hardpoints("landing_gear.toml")
    yz = {name: p[1:] for name, p in at.items()}  # every hinge axis is along x

    def polar(v):
        return np.arctan2(v[..., 1], v[..., 0])

    # Leg angle from the actuator length: the angle at the trunnion between the base and the
    # lug follows from the triangle (trunnion, base, lug); retracting (about -x: clockwise in
    # the y-z plane) turns the lug toward the base, closing that angle from its design value.
    base, lug = yz["actuator_base"], yz["actuator_end"]
    lengths = r["actuator_length"]
    opening = np.arccos((base @ base + lug @ lug - lengths**2) / (2 * np.linalg.norm(base) * np.linalg.norm(lug)))
    design_opening = abs(cf.wrap(polar(base) - polar(lug)))
    leg = design_opening - opening
    assert_allclose(r["leg_angle"], leg, rtol=0, atol=TOL)
    # Knee: the stays' lengths and the distance from the stay hinge to the turning leg lug.
    hinge, knee, lug = yz["stay_hinge"], yz["knee"], yz["stay_to_leg"]
    upper, lower = np.linalg.norm(knee - hinge), np.linalg.norm(lug - knee)
    turn = r["leg_angle"]
    lug_now = np.stack([lug[0] * np.cos(turn) + lug[1] * np.sin(turn),
                        -lug[0] * np.sin(turn) + lug[1] * np.cos(turn)], axis=1)
    span = np.linalg.norm(lug_now - hinge, axis=1)
    knee_angle = np.arccos((upper**2 + lower**2 - span**2) / (2 * upper * lower))
    assert_allclose(r["knee_angle"], knee_angle, rtol=0, atol=TOL)
    assert_allclose(r["knee_pair"], r["knee_angle"][0] - r["knee_angle"], rtol=0, atol=TOL)
    assert_allclose(np.linalg.norm(r["axle"], axis=1), 1.8, rtol=0, atol=TOL * 1.8)
    assert np.degrees(r["knee_angle"][0]) > 170 and np.degrees(r["knee_angle"][-1]) < 25


# =============================================================================
# dynamics: the textbook cases, against tests/reference/dynamics_references.py
# =============================================================================
def test_solar_array_deploys_as_the_published_equations_say():
    """Two panels on torsion springs: the published equations of motion (checked there against
    SymPy), integrated independently, to 1e-8 rad over 6 s; energy conserved."""
    r = run_example("solar_array")
    reference = dr.solar_array_trajectory(dr.SolarArray(), r["t"])
    # Both integrations at rtol ~1e-10 over a few oscillations: 1e-8 rad.
    assert_allclose(r["panel1_angle"], reference.q[:, 0], rtol=0, atol=1e-8)
    assert_allclose(r["hinge_angle"], reference.q[:, 1], rtol=0, atol=1e-8)
    stored = 0.5 * 1.0 * np.pi**2  # the hinge spring, half a turn from its free angle; the root at rest
    assert_allclose(r["kinetic"][0] + r["potential"][0], stored, rtol=1e-12, atol=0)
    assert r["energy_drift"] < 1e-7 * stored
    assert np.degrees(r["widest_opening"]) > 350  # no stops: nearly folded the other way


def test_spring_pendulum_swings_as_its_closed_form():
    """Elastic pendulum against the closed-form equations (Lagrange, tests/reference), 10 s."""
    r = run_example("spring_pendulum")
    reference = dr.spring_pendulum_trajectory(dr.SpringPendulum(), r["t"], (1.2, 0.4), (0.0, 0.3))
    assert_allclose(r["theta"], reference.q[:, 1], rtol=0, atol=1e-8)
    assert_allclose(r["length"], reference.q[:, 0], rtol=0, atol=1e-8)
    # The bob is where the spring says: r (sin theta, -cos theta).
    assert_allclose(r["bob"][:, :2], np.column_stack([r["length"] * np.sin(r["theta"]),
                                                      -r["length"] * np.cos(r["theta"])]), rtol=0, atol=1e-12)
    assert r["energy_drift"] < 1e-8


def test_governor_settles_at_the_virtual_work_angle():
    """Spun up to 9 rad/s, the damped governor settles where virtual work puts it; the
    script's statics (a root of the equations of motion) agrees."""
    r = run_example("governor")
    steady = dr.governor_steady_arm_angle(dr.WattGovernor(), 9.0)
    assert_allclose(r["steady_arm_angle"], steady, rtol=0, atol=1e-10)
    # Damped for 10 s with a time constant near 0.7 s: within 1e-6 rad of steady.
    assert abs(r["final_arm_angle"] - steady) < 1e-6
    assert_allclose(r["other_arm_angle"], r["arm_angle"], rtol=0, atol=1e-8)  # the arms move together
    assert r["energy_balance_drift"] < 1e-6 and r["driver_work"][-1] > 0


# =============================================================================
# every example is tested; every model file round-trips
# =============================================================================
def test_every_example_script_runs():
    """Each script above has its own test of its numbers; any other script in examples/ (the two
    loads scripts: tests/test_landing_gear_loads.py, tests/test_mower_wobble_loads.py) must at
    least run. Every script runs as a command, headless, and writes its picture where ``--out``
    says or in the current folder: tests/test_entry_points.py, or the README's block
    (tests/test_readme_as_written.py)."""
    others = sorted(p.stem for p in EXAMPLES.glob("*.py") if p.stem not in SCRIPTS)
    assert others
    assert all((EXAMPLES / f"{name}.py").exists() for name in SCRIPTS)


def assert_same(a, b, path="model"):
    """Exact, recursive equality of snapshot records (arrays bit for bit)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert np.shape(a) == np.shape(b) and np.array_equal(a, b), path
    elif dataclasses.is_dataclass(a):
        assert type(a) is type(b), path
        for field in dataclasses.fields(a):
            assert_same(getattr(a, field.name), getattr(b, field.name), f"{path}.{field.name}")
    elif isinstance(a, PairType):
        assert type(a) is type(b), path
        assert_same(vars(a), vars(b), path)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            assert_same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} != {b!r}"


# examples/*_vary.toml are design-study vary files, not models
MODEL_FILES = sorted(p for p in EXAMPLES.glob("*.toml") if not p.stem.endswith("_vary"))


@pytest.mark.parametrize("model_file", MODEL_FILES, ids=[p.name for p in MODEL_FILES])
def test_model_file_round_trips(tmp_path, model_file):
    """load -> save_model -> load gives the same snapshot, bit for bit, and saving again gives
    the same bytes."""
    loaded = load_model(model_file)
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    save_model(loaded, first)
    again = load_model(first)
    assert_same(loaded.snapshot(), again.snapshot())
    save_model(again, second)
    assert first.read_bytes() == second.read_bytes()
