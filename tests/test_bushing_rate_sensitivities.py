"""Sensitivities of the compliance analysis to bushing rates (loops.study.sensitivity.bushing_rates,
loops.statics_rates) against independent references.

References: central differences of the whole compliance analysis (``compliance(...)`` re-run on
a copy of the model with the rate changed by +-h) on the shipped, preloaded front axle; an arm
on one bushing in closed form (tip compliance ``1/k_z + L^2/k_ry``, so its rates are
``-1/k_z^2`` and ``-L^2/k_ry^2``).
"""

import copy

import numpy as np
import pytest

from bushing_arm import arm_on_one_bushing
from loops import equilibrium
from loops.compliance import load_response
from loops.statics_rates import rate_loads
from loops.study.sensitivity import bushing_rates as rates_module
from loops.study.sensitivity.bushing_rates import bushing_rates, is_bushing_rate, rate_derivatives
from loops.suspension import compliance, load_suspension
from mechanism.errors import ModelError

FILE = "examples/front_axle_bushings.toml"
TIGHT = 1e-13  # closure tolerance of the reference's equilibria
TRAVEL = np.array([-0.04, 0.0, 0.03])
#: The reference's relative step: its truncation ``h^2 C''' / 6`` is about 1e-6 of the derivative
#: here (1e-6 seen at h = 1e-3, 1e-8 at h = 1e-4, falling as h^2), its rounding about
#: 1e-13 / h = 1e-10 (equilibria balanced to 1e-13); so they agree to 1e-5.
STEP = 1e-3
AGREE = 1e-5
RATES = ["lower_front_left.kz", "lower_rear_left.ky", "upper_front_left.kry", "lower_front_left.krx"]


@pytest.fixture(scope="module")
def axle():
    return load_suspension(FILE)


@pytest.fixture(scope="module")
def derivatives(axle):
    return rate_derivatives(axle, RATES, TRAVEL, tolerance=TIGHT)


def _with_rate(axle, rate, value):
    changed = copy.deepcopy(axle)
    stiffness = changed.mechanism.bushings[rate.bushing].stiffness_matrix().copy()
    stiffness[rate.index, rate.index] = value
    changed.mechanism.set_bushing_stiffness(rate.bushing, stiffness)
    result = compliance(changed, TRAVEL, tolerance=TIGHT)
    return {name: column.values for name, column in result.metrics.items()}


@pytest.fixture(scope="module")
def differences(axle):
    out = []
    for rate in bushing_rates(axle.mechanism.snapshot(), RATES):
        h = STEP * rate.nominal
        up, down = _with_rate(axle, rate, rate.nominal + h), _with_rate(axle, rate, rate.nominal - h)
        out.append({name: (up[name] - down[name]) / (2 * h) for name in up if name != "wheel_travel"})
    return out


def _compare(values, differences, agree):
    for r, reference in enumerate(differences):
        for name, expected in reference.items():
            # the other wheel's columns do not move (zero up to rounding): compared against the
            # largest of the column's kind on the loaded side
            floor = agree * max(np.abs(d[name.replace("_right", "_left")]).max() for d in differences)
            np.testing.assert_allclose(values[name][:, r], expected, rtol=agree, atol=floor,
                                       err_msg=f"{name} / {RATES[r]}")


def test_rate_derivatives_are_the_central_differences_of_the_compliance_analysis(derivatives, differences):
    """The shipped axle under gravity and its springs' preload: every compliance and stiffness
    column's rate with respect to four bushing rates at three travels."""
    _, values = derivatives
    _compare(values, differences, AGREE)


def test_the_preload_term_is_needed(axle, differences, monkeypatch):
    """Without the equilibrium's shift and the pose's part (C4), (C6), the derivatives of the
    preloaded axle miss the differences by far more than the tolerance."""
    monkeypatch.setattr(rates_module, "_pose_term", lambda variant, record, wheels, shift, names:
                        dict.fromkeys(names, 0.0))
    _, values = rate_derivatives(axle, RATES, TRAVEL, tolerance=TIGHT)
    with pytest.raises(AssertionError):
        _compare(values, differences, 100 * AGREE)


def test_an_arm_on_one_bushing_in_closed_form():
    """A vertical unit force at the tip of an arm of length L on one bushing, no other load:
    the tip's compliance ``1/k_z + L^2/k_ry`` has the rates ``-1/k_z^2`` and ``-L^2/k_ry^2``
    (and none in the other rates), from the unit-rate bushing's stiffness (C5)."""
    kz, kry, length = 1e5, 2e3, 0.4
    eq = equilibrium(arm_on_one_bushing(kz, kry, length))
    system = eq.system
    arm = system.link_index["arm"]
    tip, force = np.array([length, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    wrench = np.zeros((1, 1, system.topology.links, 6))
    wrench[0, 0, arm] = np.r_[np.cross(tip, force), force]
    response = load_response(eq, wrench)
    K = eq.stiffness[0]
    shift = np.linalg.solve(K, response.reduced[0, 0])
    expected = {2: -1 / kz ** 2, 4: -length ** 2 / kry ** 2}
    for index in range(6):
        dg, dK = rate_loads(eq, "bush", index)
        np.testing.assert_array_equal(dg, 0.0)  # no deflection at rest: the pose does not move
        change = -np.linalg.solve(K, dK[0] @ shift)
        twist = change @ response.free_twists[0, :, arm]
        along = (twist[3:] + np.cross(twist[:3], tip)) @ force
        np.testing.assert_allclose(along, expected.get(index, 0.0), rtol=1e-12, atol=1e-20)


def test_rate_names_cannot_clash_with_hardpoint_coordinates():
    assert is_bushing_rate("lower_front.kx") and is_bushing_rate("a.krz")
    assert not is_bushing_rate("lower_ball.x") and not is_bushing_rate("upper_inner.axis.z")
    assert not is_bushing_rate("kx")


@pytest.mark.parametrize("name, message", [
    ("lower_front_left.kq", "not a bushing rate"), ("nothing.kx", "not a bushing rate"),
    ("lower_front.kx", "bushings: lower_front_left")])
def test_a_bad_bushing_rate_is_one_located_line(axle, name, message):
    with pytest.raises(ModelError, match=message) as caught:
        bushing_rates(axle.mechanism.snapshot(), [name])
    assert str(caught.value).startswith(f"vary {name!r}") and "\n" not in str(caught.value)


def test_a_bushing_rate_named_twice_is_refused(axle):
    with pytest.raises(ModelError, match="named twice"):
        bushing_rates(axle.mechanism.snapshot(), ["lower_front_left.kx", "lower_front_left.kx"])


def test_set_bushing_stiffness_checks_like_add_bushing(axle):
    m = copy.deepcopy(axle.mechanism)
    with pytest.raises(ModelError, match="negative rate"):
        m.set_bushing_stiffness("lower_front_left", [1, 1, -1, 1, 1, 1])
    with pytest.raises(ModelError, match="unknown bushing"):
        m.set_bushing_stiffness("nothing", [1] * 6)


def test_sensitivities_of_the_compliance_analysis_are_to_bushing_rates_in_file_units(axle, derivatives):
    """``sensitivities(..., analysis="compliance")`` gives the rate derivatives in SI (rad per N
    per N/m) and writes them per the file's units (deg/N per N/mm, N/mm per N/mm)."""
    from loops.study.sensitivity import sensitivities

    found = sensitivities(axle, RATES[:2], TRAVEL, analysis="compliance", tolerance=TIGHT)
    _, values = derivatives
    np.testing.assert_allclose(found["compliance_steer_lateral_patch_left"],
                               values["compliance_steer_lateral_patch_left"][:, :2] / 1e3, rtol=1e-12)
    text = found.to_csv()
    header = text.splitlines()[1].split(",")
    row = [float(v) for v in text.splitlines()[2].split(",")]
    steer = row[header.index("compliance_steer_lateral_patch_left/lower_front_left.kz")]
    stiffness = row[header.index("lateral_stiffness_patch_left/lower_front_left.kz")]
    assert steer == pytest.approx(values["compliance_steer_lateral_patch_left"][0, 0] / 1e3 * np.degrees(1) * 1e3,
                                  rel=1e-12)
    assert stiffness == pytest.approx(values["lateral_stiffness_patch_left"][0, 0], rel=1e-12)


#: The hardpoint reference's step (m): its truncation ``h^2 C^(3) / 6`` is at most 1.1e-6 of the
#: derivative (measured on this axle: the lower ball's height 1.06e-6 at 1e-4 m and 1.1e-8 at
#: 1e-5 m, falling as h^2; the tie rod's outer ball 2.4e-7), its rounding about 1e-15 / 1e-4 m;
#: so they agree to 1e-5 of the column's largest derivative.
HARDPOINT_STEP = 1e-4
MOVED = ["lower_ball_left.z", "lower_front_left.kz", "steer_ball_left.y"]  # RATES[0] between


def _moved(axle, name, offset):
    from loops.study.coordinates import coordinates, moved_hardpoints
    from loops.suspension import Suspension

    mechanism = axle.mechanism.moved(moved_hardpoints(coordinates(axle.model, [name]), [offset]))
    result = compliance(Suspension(mechanism, axle.corners, axle.vehicle, axle.units, axle.name), TRAVEL,
                        tolerance=TIGHT)
    return {n: c.values for n, c in result.metrics.items() if n != "wheel_travel"}


def test_hardpoint_sensitivities_of_the_compliance_analysis_are_the_central_differences(axle, derivatives):
    """Hardpoint coordinates beside a bushing rate, in the order named: each hardpoint column is
    the central difference of the whole compliance analysis of the model with that hardpoint
    moved by +-0.1 mm (re-solved equilibria), the rate's column the rate derivative (C4)-(C6)."""
    from loops.study.sensitivity import sensitivities

    found = sensitivities(axle, MOVED, TRAVEL, analysis="compliance", tolerance=TIGHT)
    assert [c.name for c in found.coordinates] == MOVED
    _, rates = derivatives
    reference = {}
    for j, name in enumerate(MOVED):
        if j == 1:
            continue
        up, down = _moved(axle, name, HARDPOINT_STEP), _moved(axle, name, -HARDPOINT_STEP)
        reference[j] = {n: (up[n] - down[n]) / (2 * HARDPOINT_STEP) for n in up}
    for name in rates:
        scale = 1e3 if "_stiffness_" not in name else 1.0  # in memory per kN, the sensitivities SI
        if "aligning" in name:
            scale = 1e2  # per 100 N m
        np.testing.assert_allclose(found[name][:, 1] * scale, rates[name][:, 0], rtol=1e-12, atol=0, err_msg=name)
        for j, expected in reference.items():
            floor = AGREE * np.abs(expected[name.replace("_right", "_left")]).max()
            np.testing.assert_allclose(found[name][:, j] * scale, expected[name], rtol=AGREE, atol=floor,
                                       err_msg=f"{name} / {MOVED[j]}")
    # the ball joint moves the compliance: not a column of zeros
    assert np.abs(found["compliance_steer_lateral_patch_left"][:, 0]).max() > 1e-6
    assert "compliance_steer_lateral_patch_left/lower_ball_left.z=deg/mm N" in found.to_csv().splitlines()[0]


def test_the_optimiser_tunes_bushing_rates_to_compliance_targets(axle):
    """Targets made by a design with two rates changed (lower front radial -2000 N/mm, lower
    rear axial +300 N/mm): the fit from the nominal design finds them again (the axial rate is
    the weaker in the targets: found to 1e-3)."""
    from loops.study.optimise import optimise
    from loops.study.sensitivity.bushing_rates import rated_mechanism

    travel = np.array([-0.03, 0.0, 0.03])
    names = ["lower_front_left.ky", "lower_rear_left.kx"]
    rates = bushing_rates(axle.mechanism.snapshot(), names)
    goal = copy.deepcopy(axle)
    rated_mechanism(goal.mechanism, rates, [-2e6, 3e5])
    reference = compliance(goal, travel)
    targets = {m: reference.metrics[m].values for m in ("compliance_steer_lateral_patch_left",
                                                       "compliance_camber_lateral_patch_left",
                                                       "compliance_steer_longitudinal_patch_left")}
    fit = optimise(axle, names, bounds=([-4e6, -4e5], [4e6, 4e5]), travel=travel, compliance_targets=targets)
    np.testing.assert_allclose(fit.offsets, [-2e6, 3e5], rtol=1e-3)
    assert fit.bushing_rates["lower_front_left.ky"] == pytest.approx(4e6, rel=1e-5)
    assert fit.hardpoints == {}
    # the nominal design is untouched (a moved copy's bushings are its own)
    assert axle.mechanism.bushings["lower_front_left"].stiffness_matrix()[1, 1] == pytest.approx(6e6)


@pytest.mark.parametrize("coords, targets, message", [
    (["lower_front_left.ky"], {"toe_left": np.zeros(2)}, "not a metric of the compliance"),
    (["nothing.kx"], {"compliance_steer_lateral_patch_left": np.zeros(2)}, "not a bushing rate"),
    (["lower_front_left.kq"], {"compliance_steer_lateral_patch_left": np.zeros(2)}, "not a hardpoint")])
def test_the_optimiser_refuses_what_it_cannot_fit_in_one_line(axle, coords, targets, message):
    from loops.study.optimise import optimise

    with pytest.raises(ModelError, match=message) as caught:
        optimise(axle, coords, bounds=1e5, travel=[0.0, 0.01], compliance_targets=targets)
    assert "\n" not in str(caught.value)


def test_bushing_rates_with_kinematic_targets_on_a_model_sweeping_on_its_bushings_are_refused(axle):
    from loops.study.optimise import optimise

    compliant = copy.deepcopy(axle)
    compliant.mechanism.use_bushings(True)
    with pytest.raises(ModelError, match="only with compliance targets alone"):
        optimise(compliant, ["lower_front_left.ky"], {"toe_left": np.zeros(2)}, bounds=1e5, travel=[0.0, 0.01])


def test_a_moved_mechanism_has_bushings_of_its_own(axle):
    moved = axle.mechanism.moved({})
    moved.set_bushing_stiffness("lower_front_left", [1e5] * 6)
    assert axle.mechanism.bushings["lower_front_left"].stiffness_matrix()[0, 0] == pytest.approx(5e5)


def test_the_optimiser_fits_a_hardpoint_and_a_bushing_rate_to_compliance_targets(axle):
    """Targets made by a design with the lower ball joint 2 mm higher and the lower front radial
    rate 2000 N/mm lower: the fit from the nominal design, its Jacobian's hardpoint column by
    (C7), finds both again."""
    from loops.study.coordinates import moved_suspension, parameters
    from loops.study.optimise import optimise

    travel = np.array([-0.03, 0.0, 0.03])
    names = ["lower_ball_left.z", "lower_front_left.ky"]
    goal = moved_suspension(axle, parameters(axle.model, names), [0.002, -2e6])
    reference = compliance(goal, travel)
    targets = {m: reference.metrics[m].values for m in ("compliance_steer_lateral_patch_left",
                                                       "compliance_camber_lateral_patch_left",
                                                       "compliance_steer_longitudinal_patch_left")}
    fit = optimise(axle, names, bounds=([-0.005, -4e6], [0.005, 4e6]), travel=travel, compliance_targets=targets)
    assert fit.cost < 1e-10 * fit.start_cost, fit  # gtol stops it: the residuals are rad per kN
    np.testing.assert_allclose(fit.offsets, [0.002, -2e6], rtol=1e-3)  # the height the weaker in the targets
    assert set(fit.hardpoints) == {"lower_ball_left"} and set(fit.bushing_rates) == {"lower_front_left.ky"}


def test_a_moved_design_the_compliance_analysis_cannot_complete_is_one_located_line(axle, monkeypatch):
    from loops.study.sensitivity import compliance_hardpoints
    from loops.study.sensitivity.compliance_hardpoints import hardpoint_derivatives
    from mechanism.errors import SweepStopped

    def stops(*args, **kwargs):
        raise SweepStopped("no equilibrium at travel = 0.01", None)

    monkeypatch.setattr(compliance_hardpoints, "compliance", stops)
    with pytest.raises(ModelError, match=r"^vary 'lower_ball_left.z': the compliance analysis of the design with it "
                       r"moved by -0.000499 stops \(no equilibrium at travel = 0.01\)") as caught:
        hardpoint_derivatives(axle, ["lower_ball_left.z"], TRAVEL)
    assert "\n" not in str(caught.value)
