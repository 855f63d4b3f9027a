"""Self-checks of the independent dynamics references (``tests/reference/dynamics_references.py``,
``tests/reference/spatial_slider_crank.py``).

A reference is only worth holding kinematrix against if it is right: each case is checked
here by an identity that does not reuse its own derivation (energy conservation, a
textbook mass matrix, the published equations, virtual work against Kane, power balance
by finite differences; for the spatial slider-crank, its mass against differences of its
own closed-form positions and energy conservation of its free run).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

sympy = pytest.importorskip("sympy")

from reference import spatial_slider_crank as ssc  # noqa: E402
from reference.dynamics_references import (  # noqa: E402
    RodDoublePendulum,
    SliderCrank,
    SolarArray,
    SpringPendulum,
    WattGovernor,
    double_pendulum_accelerations,
    double_pendulum_energy,
    double_pendulum_mass_matrix,
    double_pendulum_trajectory,
    governor_arm_link,
    governor_moment_of_inertia,
    governor_points,
    governor_potential_energy,
    governor_residual,
    governor_steady_arm_angle,
    published_solar_array_equations,
    slider_crank_energy,
    slider_crank_points,
    slider_crank_torque,
    solar_array_accelerations,
    solar_array_energy,
    solar_array_equations,
    solar_array_points,
    solar_array_trajectory,
    spring_pendulum_accelerations,
    spring_pendulum_energy,
    spring_pendulum_trajectory,
)

#: The spatial slider-crank's reference is derived with SymPy once per test process (about 2 s of
#: processor time a variant: tests/reference/spatial_slider_crank.py); its tests share one process.
SYMPY_DERIVATION = pytest.mark.xdist_group("spatial-slider-crank-derivation")


def central_difference(f, x, h):
    """Fourth-order central difference of ``f`` at ``x`` (error ~ h^4 f^(5) + eps f / h)."""
    return (f(x - 2 * h) - 8 * f(x - h) + 8 * f(x + h) - f(x + 2 * h)) / (12 * h)


# --- (a) double pendulum of two rods -------------------------------------------------------


def test_double_pendulum_mass_matrix_is_the_textbook_one():
    """Kane's M(q) equals the closed form for two uniform rods."""
    p = RodDoublePendulum()
    l1, l2, m1, m2 = p.length_1, p.length_2, p.mass_1, p.mass_2
    for theta_2 in np.linspace(-3.0, 3.0, 7):
        c = np.cos(theta_2)
        expected = np.array([
            [m1 * l1**2 / 3 + m2 * (l1**2 + l2**2 / 3 + l1 * l2 * c), m2 * (l2**2 / 3 + l1 * l2 * c / 2)],
            [m2 * (l2**2 / 3 + l1 * l2 * c / 2), m2 * l2**2 / 3],
        ])
        # Entries are O(1) kg m^2; only round-off separates the two forms.
        assert_allclose(double_pendulum_mass_matrix(p, (0.4, theta_2)), expected, rtol=1e-13, atol=1e-14)


def test_double_pendulum_power_is_zero_at_any_state():
    """dE/dt = dE/dq q' + dE/dq' q'' vanishes with Kane's q'' (a local, integration-free check)."""
    p = RodDoublePendulum()
    rng = np.random.default_rng(11)
    for _ in range(5):
        q, u = rng.uniform(-3, 3, 2), rng.uniform(-4, 4, 2)
        a = double_pendulum_accelerations(p, q, u)
        h = 1e-4
        power = sum(
            central_difference(lambda s: double_pendulum_energy(p, q + s * e, u)[2], 0.0, h) * u @ e
            + central_difference(lambda s: double_pendulum_energy(p, q, u + s * e)[2], 0.0, h) * a @ e
            for e in np.eye(2)
        )
        # Energies are ~10 J, so the difference quotients carry ~1e-12 / 1e-4 round-off.
        assert abs(power) < 1e-8


def test_double_pendulum_conserves_energy():
    p = RodDoublePendulum()
    motion = double_pendulum_trajectory(p, np.linspace(0.0, 5.0, 201), (0.3, 0.5), (1.0, -2.0))
    total = double_pendulum_energy(p, motion.q, motion.q_dot)[2]
    assert np.ptp(motion.q[:, 1]) > 1.0  # a large, chaotic-looking swing, not a near-rest case
    # rtol = atol = 1e-12 over 5 s: drift stays near 1e-10 J of ~10 J.
    assert np.ptp(total) < 1e-9


# --- (b) two-panel solar array --------------------------------------------------------------


def test_published_solar_array_equations_are_right_for_same_sense_angles():
    """Lagrange (SymPy) reproduces the published equations exactly when phi2 turns like phi1."""
    derived, _ = solar_array_equations(1)
    published = published_solar_array_equations()
    for mine, theirs in zip(derived, published):
        assert sympy.expand(mine - theirs, trig=True) == 0


def test_published_solar_array_equations_fail_for_opposite_sense_angles():
    """With psi = phi1 + pi - phi2 the equations differ (coupling signs and the T12 sign)."""
    derived, (phi_1, phi_2, _, (_, T12)) = solar_array_equations(-1)
    published = published_solar_array_equations()
    difference = [sympy.expand(mine - theirs, trig=True) for mine, theirs in zip(derived, published)]
    assert difference[0] != 0
    # The hinge torque enters the phi2 equation with the opposite sign.
    assert sympy.expand(difference[1]).coeff(T12) == -2


def test_solar_array_conserves_energy_and_starts_folded():
    p = SolarArray()
    points = solar_array_points(p, np.array([np.pi / 2, 0.0]))
    L1, L2 = p.half_length_1, p.com_distance_2
    assert_allclose(points["A"], [0.0, 2 * L1, 0.0], rtol=0, atol=1e-15)
    assert_allclose(points["G2"], [0.0, 2 * L1 - L2, 0.0], rtol=0, atol=1e-15)

    motion = solar_array_trajectory(p, np.linspace(0.0, 10.0, 201))
    total = solar_array_energy(p, motion.q, motion.q_dot)[2]
    assert motion.q[:, 1].max() > np.pi  # the hinge passes the straight position
    # ~5 J of spring energy; drift at rtol = atol = 1e-12 is ~1e-10 J.
    assert_allclose(total, total[0], rtol=0, atol=1e-8)


def test_solar_array_energy_matches_its_points():
    """The closed-form kinetic energy equals 1/2 m v^2 + 1/2 J w^2 from the points' motion."""
    p = SolarArray(mass_1=1.5, mass_2=2.5, inertia_1=0.2, inertia_2=0.1, com_distance_2=0.4)
    q, u = np.array([1.1, 0.7]), np.array([0.8, -1.3])

    def point(name, s):
        return solar_array_points(p, q + s * u)[name]

    h = 1e-3
    v1 = central_difference(lambda s: point("G1", s), 0.0, h)
    v2 = central_difference(lambda s: point("G2", s), 0.0, h)
    kinetic = (0.5 * p.mass_1 * v1 @ v1 + 0.5 * p.inertia_1 * u[0] ** 2
               + 0.5 * p.mass_2 * v2 @ v2 + 0.5 * p.inertia_2 * (u[0] + u[1]) ** 2)
    assert_allclose(solar_array_energy(p, q, u)[0], kinetic, rtol=1e-10, atol=1e-12)


def test_solar_array_accelerations_solve_the_published_equations():
    """The integrator's q'' makes both published expressions vanish (springs as T1, T12)."""
    p = SolarArray()
    q, u = np.array([1.3, 2.0]), np.array([0.4, -0.9])
    a = solar_array_accelerations(p, q, u)
    T1, T12 = p.spring_torques(q)
    published = published_solar_array_equations()
    phi_1, phi_2, parameters, torques = solar_array_equations(1)[1]
    t = sympy.Symbol("t")
    values = {phi_1.diff(t, 2): a[0], phi_2.diff(t, 2): a[1], phi_1.diff(t): u[0], phi_2.diff(t): u[1]}
    values.update({phi_1: q[0], phi_2: q[1], torques[0]: T1, torques[1]: T12})
    values.update(dict(zip(parameters, p.inertial_values())))
    residual = [float(e.subs(list(values.items()))) for e in published]
    assert_allclose(residual, [0.0, 0.0], rtol=0, atol=1e-12)


# --- (c) spring pendulum --------------------------------------------------------------------


def test_spring_pendulum_closed_form_matches_sympy_lagrange():
    import sympy.physics.mechanics as me

    r, theta = me.dynamicsymbols("r theta")
    m, k, l0, c, g = sympy.symbols("m k l0 c g", positive=True)
    ground = me.ReferenceFrame("N")
    pivot = me.Point("O")
    pivot.set_vel(ground, 0)
    bob = pivot.locatenew("P", r * (sympy.sin(theta) * ground.x - sympy.cos(theta) * ground.y))
    bob.set_vel(ground, bob.pos_from(pivot).dt(ground))
    particle = me.Particle("bob", bob, m)
    particle.potential_energy = m * g * bob.pos_from(pivot).dot(ground.y) + k * (r - l0) ** 2 / 2
    t = me.dynamicsymbols._t
    along = bob.pos_from(pivot).normalize()
    damping = (bob, -c * r.diff(t) * along)
    lagrange = me.LagrangesMethod(me.Lagrangian(ground, particle), [r, theta], forcelist=[damping],
                                  frame=ground)
    lagrange.form_lagranges_equations()
    accelerations = lagrange.mass_matrix.LUsolve(lagrange.forcing)

    p = SpringPendulum(mass=1.3, stiffness=25.0, free_length=0.8, damping=0.4, gravity=9.81)
    state, rates = np.array([1.1, 0.6]), np.array([-0.3, 1.7])
    values = [(r.diff(t), rates[0]), (theta.diff(t), rates[1]), (r, state[0]), (theta, state[1]),
              (m, p.mass), (k, p.stiffness), (l0, p.free_length), (c, p.damping), (g, p.gravity)]
    expected = [float(sympy.simplify(e.subs(values))) for e in accelerations]
    assert_allclose(spring_pendulum_accelerations(p, state, rates), expected, rtol=1e-13, atol=1e-13)


def test_spring_pendulum_energy():
    """Conserved without damping; never rises with damping."""
    times = np.linspace(0.0, 4.0, 201)
    free = SpringPendulum()
    motion = spring_pendulum_trajectory(free, times, (1.3, 0.8), (0.0, 0.5))
    total = spring_pendulum_energy(free, motion.q, motion.q_dot)[2]
    assert_allclose(total, total[0], rtol=0, atol=1e-9)  # ~10 J; drift ~1e-11 J

    damped = SpringPendulum(damping=0.5)
    motion = spring_pendulum_trajectory(damped, times, (1.3, 0.8), (0.0, 0.5))
    total = spring_pendulum_energy(damped, motion.q, motion.q_dot)[2]
    assert np.all(np.diff(total) < 1e-10)
    assert total[-1] < total[0] - 0.1


# --- (d) Watt governor ------------------------------------------------------------------------


@pytest.mark.parametrize("spin_rate", [5.0, 8.0, 12.0, 20.0])
def test_governor_equilibrium_satisfies_kane_equations(spin_rate):
    """At theta* (virtual work, by hand) Kane's equations hold with zero accelerations."""
    p = WattGovernor()
    theta = governor_steady_arm_angle(p, spin_rate)
    assert 0.0 < theta < np.pi / 2
    residual = governor_residual(p, spin_angle=0.7, arm_angle=theta, spin_rate=spin_rate, arm_rate=0.0)
    # Torques are O(10) N m; theta* is solved to 1e-14 rad.
    assert_allclose(residual, [0.0, 0.0], rtol=0, atol=1e-11)
    off = governor_residual(p, 0.7, theta + 0.02, spin_rate, 0.0)
    assert abs(off[1]) > 1e-3  # the residual is not trivially zero


def test_governor_virtual_work_matches_kane_away_from_equilibrium():
    """Kane's theta-forcing at theta' = 0 is 1/2 Omega^2 dI/dtheta - dV/dtheta everywhere."""
    p = WattGovernor()
    spin_rate = 9.0
    for theta in np.linspace(0.2, 1.4, 7):
        dI = central_difference(lambda x: governor_moment_of_inertia(p, x), theta, 1e-3)
        dV = central_difference(lambda x: governor_potential_energy(p, x), theta, 1e-3)
        forcing = -governor_residual(p, 0.0, theta, spin_rate, 0.0)
        assert_allclose(forcing[1], 0.5 * spin_rate**2 * dI - dV, rtol=1e-9, atol=1e-9)
        assert_allclose(forcing[0], 0.0, rtol=0, atol=1e-12)  # no torque needed at constant spin


def test_governor_points_and_lift_off():
    p = WattGovernor()
    for theta in (0.3, 0.9, 1.4):
        points = governor_points(p, theta, spin_angle=0.5)
        for side in ("1", "2"):
            assert_allclose(np.linalg.norm(points["B_" + side] - points["D_" + side]), p.link_length,
                            rtol=1e-14, atol=0)
            assert_allclose(np.linalg.norm(points["ball_" + side]), p.arm_length, rtol=1e-14, atol=0)
        assert_allclose(points["sleeve"][:2], [0.0, 0.0], rtol=0, atol=0)
    # With the sleeve pins on the axis the hanging position is an equilibrium; slow spin keeps it.
    with pytest.raises(ValueError, match="spin_rate"):
        governor_steady_arm_angle(WattGovernor(sleeve_hinge_radius=0.0), 1.0)


def test_governor_arm_links_carry_the_reference_inertia_and_weight():
    """The arm+ball links (for a kinematrix model) give the I(theta) and V(theta) used above."""
    p = WattGovernor()
    axis = np.array([0.0, 0.0, 1.0])
    for theta in (0.25, 0.8, 1.3):
        links = [governor_arm_link(p, theta, side) for side in (1, 2)]
        spin_inertia = sum(inertia[2, 2] + mass * (com[0] ** 2 + com[1] ** 2) for mass, com, inertia in links)
        assert_allclose(spin_inertia, governor_moment_of_inertia(p, theta), rtol=1e-13, atol=0)
        arms_potential = sum(p.gravity * mass * com @ axis for mass, com, _ in links)
        sleeve_potential = p.gravity * p.sleeve_mass * governor_points(p, theta)["sleeve"][2]
        assert_allclose(arms_potential + sleeve_potential, governor_potential_energy(p, theta),
                        rtol=1e-13, atol=0)
        for mass, com, inertia in links:
            principal = np.linalg.eigvalsh(inertia)
            assert principal[0] + principal[1] >= principal[2] - 1e-15  # admissible tensor


# --- (e) slider-crank inverse dynamics --------------------------------------------------------


@pytest.mark.parametrize("crank_speed", [0.0, 25.0])
def test_slider_crank_torque_is_the_power_balance(crank_speed):
    """tau omega + F x_B' = dK/dt + dV/dt, with K and V from finite differences of the points."""
    p = SliderCrank(piston_force=-150.0)
    h = 1e-3

    def energy(theta):
        velocity = {name: central_difference(lambda x: slider_crank_points(p, x)[name], theta, h)
                    for name in ("G_crank", "G_rod", "B", "rod_angle")}
        points = slider_crank_points(p, theta)
        kinetic = 0.5 * crank_speed**2 * (
            p.crank_mass * velocity["G_crank"] @ velocity["G_crank"] + p.crank_inertia
            + p.rod_mass * velocity["G_rod"] @ velocity["G_rod"] + p.rod_inertia * velocity["rod_angle"] ** 2
            + p.slider_mass * velocity["B"] @ velocity["B"])
        potential = p.gravity * (p.crank_mass * points["G_crank"][1] + p.rod_mass * points["G_rod"][1]
                                 + p.slider_mass * points["B"][1])
        return kinetic, potential

    for theta in np.linspace(0.0, 2 * np.pi, 13):
        kinetic, potential = energy(theta)
        assert_allclose(slider_crank_energy(p, theta, crank_speed), (kinetic, potential),
                        rtol=1e-9, atol=1e-9)
        dE = central_difference(lambda x: sum(energy(x)), theta, h)
        dx_B = central_difference(lambda x: slider_crank_points(p, x)["B"][0], theta, h)
        # Torques reach ~100 N m; two nested 4th-order differences keep ~1e-8 of it.
        assert_allclose(slider_crank_torque(p, theta, crank_speed), dE - p.piston_force * dx_B,
                        rtol=1e-7, atol=1e-7)


def test_slider_crank_torque_averages_to_zero_over_a_turn():
    """Over a revolution K and V return and a constant piston force does no net work."""
    p = SliderCrank(piston_force=80.0)
    theta = np.linspace(0.0, 2 * np.pi, 720, endpoint=False)
    torque = slider_crank_torque(p, theta, 30.0)
    assert np.ptp(torque) > 10.0
    # The periodic trapezoid rule is spectrally accurate for a smooth periodic integrand.
    assert abs(torque.mean()) < 1e-10 * np.abs(torque).max()


# --- (f) IFToMM spatial rigid slider-crank ----------------------------------------------------


@SYMPY_DERIVATION
@pytest.mark.parametrize("variant", ["STATED", "PUBLISHED"])
def test_spatial_slider_crank_reference_geometry_holds_its_pairs(variant):
    """Along a turn the closed forms keep |AB|, |BC|, C on x, the rod pin normal to the rod at a fixed angle to x."""
    v = getattr(ssc, variant)
    start = ssc.rod_rotation(0.0, v)
    # Reference: the data at the start (rod axis along C0 - B0, rod pin as stated).
    assert_allclose(start[:, 0], (ssc.C0 - ssc.B0) / ssc.ROD, rtol=0, atol=1e-15)
    assert_allclose(start[:, 1], ssc.rod_pin_at_start(v), rtol=0, atol=1e-15)
    for theta in np.linspace(0.0, 2 * np.pi, 25):
        b, c = ssc.points(theta, v)
        r = ssc.rod_rotation(theta, v)
        # Exact identities of the closed forms, evaluated in double precision.
        assert_allclose([np.linalg.norm(b - ssc.A), np.linalg.norm(c - b), c[1], c[2]],
                        [ssc.CRANK, ssc.ROD, 0.0, 0.0], rtol=1e-14, atol=1e-15)
        assert_allclose(r.T @ r, np.eye(3), rtol=0, atol=1e-14)
        assert_allclose(np.linalg.det(r), 1.0, rtol=1e-14, atol=0)
        assert_allclose(r[:, 0], (c - b) / ssc.ROD, rtol=0, atol=1e-14)
        assert_allclose(r[0, 1], start[0, 1], rtol=0, atol=1e-14)  # the cross's angle: pin . x


@SYMPY_DERIVATION
@pytest.mark.parametrize("variant", ["STATED", "PUBLISHED"])
def test_spatial_slider_crank_reference_energy_and_mass(variant):
    """M is 2K/w^2 from differences of the closed-form positions; the free run conserves K + V."""
    v = getattr(ssc, variant)
    h = 1e-3
    rod_inertia = np.diag([ssc.ROD_INERTIA_AXIAL, ssc.ROD_INERTIA_TRANSVERSE, ssc.ROD_INERTIA_TRANSVERSE])
    arm = ssc.crank_centre_at_start(v) - ssc.A

    def crank_centre(theta):
        c, s = np.cos(theta), np.sin(theta)
        return ssc.A + np.array([[1, 0, 0], [0, c, -s], [0, s, c]]) @ arm

    for theta in np.linspace(0.3, 6.0, 7):
        d_crank = central_difference(crank_centre, theta, h)
        d_rod = central_difference(lambda x: sum(ssc.points(x, v)) / 2, theta, h)
        d_slider = central_difference(lambda x: ssc.points(x, v)[1], theta, h)
        r = ssc.rod_rotation(theta, v)
        spin = central_difference(lambda x: ssc.rod_rotation(x, v), theta, h) @ r.T
        w = np.array([spin[2, 1], spin[0, 2], spin[1, 0]])
        mass = (ssc.CRANK_INERTIA[0, 0] + ssc.CRANK_MASS * d_crank @ d_crank + ssc.ROD_MASS * d_rod @ d_rod
                + w @ r @ rod_inertia @ r.T @ w + ssc.SLIDER_MASS * d_slider @ d_slider)
        m, dm = ssc.mass(theta, v)
        # M ~ 5e-3 kg m^2; 4th-order differences at h = 1e-3 keep ~1e-10 of it.
        assert_allclose(m, mass, rtol=1e-8, atol=1e-12)
        assert_allclose(dm, central_difference(lambda x: ssc.mass(x, v)[0], theta, h), rtol=1e-7, atol=1e-10)
    run = ssc.free_run(np.linspace(0.0, ssc.T_END, 101), v)
    total = [sum(ssc.energy(theta, omega, v)) for theta, omega in zip(run.theta, run.omega)]
    assert run.theta[-1] > 6 * 2 * np.pi  # the crank turns over many times
    # rtol = atol = 1e-12 over 5 s: drift ~1e-11 J of ~0.6 J.
    assert_allclose(total, total[0], rtol=1e-10, atol=1e-10)
