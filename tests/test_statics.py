"""Static equilibrium (loops.statics.equilibrium) against independent references.

References: closed forms (a pendulum on a torsion spring, an inverted one), the loads' work
along a kinematic sweep (central differences of potential energies computed here from the
sweep's positions), every link's Newton-Euler balance computed here from the reactions and the
loads, central differences of the driver forces (the stiffness) and of equilibria under small
extra loads (the compliance), and a damped simulation run to rest.
"""

import numpy as np
import pytest
from scipy.optimize import brentq

from dynamics import simulate
from loops import sweep
from loops import equilibrium
from mechanism import Mechanism, load_model
from mechanism.errors import ModelError, SweepStopped

G = 9.81


def pendulum(stiffness, com_x=0.5, mass=2.0, damping=0.0):
    m = Mechanism("pendulum")
    m.add_link("arm", mass=mass, com=(com_x, 0, 0), inertia=np.diag([0.01, 0.1, 0.1]))
    m.add_pair("A", "revolute", "ground", "arm", at=(0, 0, 0), axis=(0, 0, 1))
    m.set_gravity((0, -G, 0))
    m.add_pair_spring("A", stiffness=stiffness, free_value=0.0, damping=damping)
    return m


SPRING_LOW, SPRING_TOP = (0.0, 0.600, 0.130), (0.0, 0.560, 0.650)
PATCH = (0.0, 0.780, 0.0)


def corner(patch_force=(0.0, 0.0, 3500.0), steer=False, free_length=0.62):
    """A spring-hung double-wishbone corner: coil-over from the lower arm to the body, gravity,
    a force at the contact patch; with ``steer`` the rack corner, its rack on a centring spring."""
    m = load_model("examples/double_wishbone_steer.toml" if steer else "examples/double_wishbone.toml")
    m.add_point("spring_low", "lower_arm", at=SPRING_LOW)
    m.add_point("spring_top", "ground", at=SPRING_TOP)
    m.add_point("patch", "upright", at=PATCH)
    m.add_spring_damper("coil", "lower_arm", SPRING_LOW, "ground", SPRING_TOP, stiffness=60000.0,
                        free_length=free_length)
    m.add_point_force("patch", "upright", at=PATCH, force=patch_force)
    if steer:
        m.add_pair_spring("rack_travel", stiffness=2.0e5, free_value=0.0)
    return m


def test_pendulum_settles_where_spring_and_gravity_balance():
    k, weight_moment = 30.0, 2.0 * G * 0.5
    eq = equilibrium(pendulum(k))
    angle = brentq(lambda a: -k * a - weight_moment * np.cos(a), -3, 3)
    np.testing.assert_allclose(eq.q("A"), [angle], rtol=0, atol=1e-10)
    # K = d(k a + m g l cos a)/da
    np.testing.assert_allclose(eq.stiffness[:, 0, 0], [k - weight_moment * np.sin(angle)], rtol=1e-9)
    assert eq.free == ["A"] and eq.stable.tolist() == [True] and eq.stability.tolist() == ["stable"]


def test_driven_pendulum_force_is_what_holds_it():
    k, weight_moment = 30.0, 2.0 * G * 0.5
    angles = np.linspace(0.0, 1.0, 5)
    eq = equilibrium(pendulum(k), drivers={"A": angles})
    np.testing.assert_allclose(eq.force("A"), k * angles + weight_moment * np.cos(angles), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eq.reactions().force("A"), np.tile([0.0, 2.0 * G, 0.0], (5, 1)), atol=1e-9)
    assert eq.free == [] and eq.stiffness.shape == (5, 0, 0)


@pytest.mark.parametrize("k, expected", [(5.0, "unstable"), (15.0, "stable")])
def test_inverted_pendulum_is_flagged_by_its_stiffness(k, expected):
    # Upright (centre of mass above the pivot): balanced at a = 0, K = k - m g l.
    m = Mechanism("inverted")
    m.add_link("arm", mass=2.0, com=(0, 0.5, 0), inertia=np.diag([0.1, 0.01, 0.1]))
    m.add_pair("A", "revolute", "ground", "arm", at=(0, 0, 0), axis=(0, 0, 1))
    m.set_gravity((0, -G, 0))
    m.add_pair_spring("A", stiffness=k, free_value=0.0)
    eq = equilibrium(m)
    np.testing.assert_allclose(eq.q("A"), [0.0], atol=1e-12)
    np.testing.assert_allclose(eq.stiffness[0, 0, 0], k - 2.0 * G * 0.5, rtol=1e-12)
    assert eq.stability.tolist() == [expected] and eq.stable.tolist() == [expected == "stable"]


def test_unrestrained_freedom_is_neutral_and_says_so():
    m = Mechanism("free wheel")
    m.add_link("wheel", mass=1.0, com=(0, 0, 0), inertia=np.diag([0.1, 0.1, 0.1]))
    m.add_pair("A", "revolute", "ground", "wheel", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_point_force("push", "wheel", at=(1, 0, 0), force=(0.0, 1.0, 0.0))
    with pytest.raises(SweepStopped) as stop:
        equilibrium(m)
    assert "no equilibrium" in stop.value.reason and "A" in stop.value.reason
    assert "\n" not in stop.value.reason and len(stop.value.partial) == 0


def test_load_no_pose_carries_stops_with_positions_reached():
    # A pendulum without a spring under a constant torque beyond m g l: no angle balances it.
    m = pendulum(0.0)
    m.add_pair_force("A", 20.0)  # 20 N m > m g l = 9.81 N m: no angle balances it
    with pytest.raises(SweepStopped) as stop:
        equilibrium(m)
    assert "Newton could not balance" in stop.value.reason or "singular" in stop.value.reason


def _generalized_forces(m, travel, free_length):
    """The coil-over's and the other loads' (gravity, patch force) generalized forces in the
    travel at ``travel`` (N), computed here from a sweep's exact point and link velocities."""
    model = m.snapshot()
    res = sweep(model, {"travel": [travel]}, speeds={"travel": 1.0}, hold=["hub"])
    a, b = res.point("spring_low")[0], res.point("spring_top")[0]
    va, vb = res.point_velocity("spring_low")[0], res.point_velocity("spring_top")[0]
    length = np.linalg.norm(b - a)
    coil = -60000.0 * (length - free_length) * ((b - a) @ (vb - va) / length)
    others = res.point_velocity("patch")[0] @ np.array([0.0, 0.0, 3500.0])
    for link in model.links:
        if link.mass:
            pose, twist = res.pose(link.name)[0], res.link_velocity(link.name)[0]
            centre = pose[:3, :3] @ link.com + pose[:3, 3]
            others += link.mass * model.gravity @ (twist[3:] + np.cross(twist[:3], centre))
    return coil, others, length


def test_spring_hung_corner_settles_at_its_ride_height():
    """Free travel settles where the coil-over balances the corner load and gravity; a coil-over
    cut to the length that balances them at the design height settles there."""
    m = corner()
    eq = equilibrium(m, hold=["hub"])
    travel = float(eq.q("travel")[0])
    assert -0.06 < travel < 0.0 and eq.stable.all()
    coil, others, _ = _generalized_forces(m, travel, 0.62)
    assert abs(coil) > 1000.0  # the coil-over does carry the corner
    np.testing.assert_allclose(coil + others, 0.0, atol=1e-9 * abs(coil))
    # The free length that balances the corner at zero travel (the design ride height).
    coil, others, length = _generalized_forces(m, 0.0, 0.62)
    free_length = 0.62 + (coil + others) * (length - 0.62) / coil
    cut = corner(free_length=free_length)
    np.testing.assert_allclose(equilibrium(cut, hold=["hub"]).q("travel"), [0.0], atol=1e-9)


def _potential(m, res, patch_force):
    """Gravity, coil-over and patch-force potential (J) at a sweep's positions, computed here."""
    model = m.snapshot()
    energy = np.zeros(len(res))
    for link in model.links:
        if link.mass:
            centre = np.einsum("nij,j->ni", res.pose(link.name)[:, :3, :3], link.com) + res.pose(link.name)[:, :3, 3]
            energy -= link.mass * centre @ model.gravity
    length = np.linalg.norm(res.point("spring_top") - res.point("spring_low"), axis=1)
    energy += 0.5 * 60000.0 * (length - 0.62) ** 2
    energy -= res.point("patch") @ np.asarray(patch_force)
    return energy


def test_virtual_work_driver_force_times_displacement_is_the_loads_work():
    patch = (300.0, -800.0, 3500.0)
    m = corner(patch)
    values = np.linspace(-0.04, 0.04, 9)
    eq = equilibrium(m, drivers={"travel": values}, hold=["hub"])
    h = 1e-5
    for x, force in zip(values, eq.force("travel")):
        res = sweep(m.snapshot(), {"travel": [x - h, x + h]}, hold=["hub"])
        dV = _potential(m, res, patch)
        # tau dx = dV: the driver does the work the loads' potential stores.
        np.testing.assert_allclose(force, (dV[1] - dV[0]) / (2 * h), rtol=1e-7, atol=1e-6)


def test_every_free_body_balances_with_the_reactions():
    patch = (300.0, -800.0, 3500.0)
    m = corner(patch)
    eq = equilibrium(m, drivers={"travel": [-0.03, 0.0, 0.02]}, hold=["hub"])
    reactions = eq.reactions()
    model = m.snapshot()
    for i in range(len(eq)):
        net = {link.name: np.zeros(6) for link in model.links}
        for pair in model.pairs:
            if pair.name not in reactions.pairs:
                continue
            f = reactions.force(pair.name)[i]
            centre = reactions.frame(pair.name)[i, :3, 3]
            n = reactions.moment(pair.name)[i] + np.cross(centre, f)  # about the origin
            for link, sign in ((pair.second, 1.0), (pair.first, -1.0)):
                if link in net:
                    net[link] += sign * np.r_[n, f]
        for link in model.links:
            if link.mass:
                pose = eq.pose(link.name)[i]
                c = pose[:3, :3] @ link.com + pose[:3, 3]
                w = link.mass * model.gravity
                net[link.name] += np.r_[np.cross(c, w), w]
        p = eq.point("patch")[i]
        net["upright"] += np.r_[np.cross(p, patch), patch]
        a, b = eq.point("spring_low")[i], eq.point("spring_top")[i]
        tension = 60000.0 * (np.linalg.norm(b - a) - 0.62) * (b - a) / np.linalg.norm(b - a)
        net["lower_arm"] += np.r_[np.cross(a, tension), tension]
        # The travel driver's road loop is virtual: its force acts on the wheel centre.
        travel_force = eq.force("travel")[i] * np.array([0.0, 0.0, 1.0])
        wc = eq.point("wheel_centre")[i]
        net["upright"] += np.r_[np.cross(wc, travel_force), travel_force]
        for link, wrench in net.items():
            if link == "ground":
                continue
            np.testing.assert_allclose(wrench, np.zeros(6), atol=1e-7 * 3500.0, err_msg=f"{link} at {i}")


def test_stiffness_is_the_derivative_of_the_held_force():
    m = corner((300.0, -800.0, 3500.0))
    eq = equilibrium(m, hold=["hub"])
    (name,) = eq.free
    u = float(eq.q(name)[0])
    h = 1e-5
    held = equilibrium(m, drivers={name: [u - h, u + h]}, hold=["hub"])
    np.testing.assert_allclose(eq.stiffness[0, 0, 0], np.diff(held.force(name))[0] / (2 * h), rtol=1e-7)


def test_compliance_is_the_inverse_stiffness():
    """Two free coordinates (travel and rack, coupled through the steering geometry): the change
    of the equilibrium under small pair forces in each is ``K^-1 dF`` (central differences)."""
    m = corner((300.0, -800.0, 3500.0), steer=True)
    eq = equilibrium(m, hold=["hub"])
    free = eq.free
    assert len(free) == 2
    compliance = np.linalg.inv(eq.stiffness[0])
    np.testing.assert_allclose(eq.stiffness[0], eq.stiffness[0].T, rtol=1e-8, atol=1e-8 * np.abs(eq.stiffness).max())
    dF = 1e-2
    for j, name in enumerate(free):
        moved = []
        for sign in (1.0, -1.0):
            loaded = corner((300.0, -800.0, 3500.0), steer=True)
            loaded.add_pair_force(name, sign * dF)
            moved.append(np.array([equilibrium(loaded, hold=["hub"]).q(v)[0] for v in free]))
        np.testing.assert_allclose((moved[0] - moved[1]) / (2 * dF), compliance[:, j], rtol=1e-6,
                                   atol=1e-8 * np.abs(compliance).max())


def test_equilibrium_path_slope_matches_differences():
    m = corner((300.0, -800.0, 3500.0), steer=True)
    values = np.array([-0.01, -0.01 + 1e-5, -0.01 - 1e-5])
    eq = equilibrium(m, drivers={"travel": values}, hold=["hub"])
    for name in eq.free:
        slope = eq.along("travel").q_dot(name)[0]
        fd = (eq.q(name)[1] - eq.q(name)[2]) / 2e-5
        np.testing.assert_allclose(slope, fd, rtol=1e-6, atol=1e-9)


def test_walk_past_a_buckling_load_stays_on_the_column_s_bent_branch():
    # A bar on a torsion spring (set 1 mrad off straight) pressed by a strut from a driven plunger:
    # one step from no load to far past the buckling load. The step's prediction stays nearly
    # straight, where an unstable equilibrium also lies; settling there would be a jump off the
    # bent branch (the walk must halve the step instead).
    k, lean, strut, free_length, top, press = 10.0, 1e-3, 1e4, 0.5, 1.5, 0.25
    m = Mechanism("column")
    m.add_link("bar", mass=0.0, com=(0, 0, 0), inertia=np.zeros((3, 3)))
    m.add_link("plunger", mass=0.0, com=(0, 0, 0), inertia=np.zeros((3, 3)))
    m.add_pair("B", "revolute", "ground", "bar", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("A", "prismatic", "ground", "plunger", at=(0, top, 0), axis=(0, -1, 0))
    m.add_pair_spring("B", stiffness=k, free_value=lean)
    m.add_spring_damper("strut", "plunger", (0, top, 0), "bar", (0, 1, 0), stiffness=strut, free_length=free_length)
    eq = equilibrium(m, drivers={"A": [0.0, press]})

    def moment(b, a):  # dE/db, E = k (b - lean)^2 / 2 + strut (length - free length)^2 / 2, tip at (-sin b, cos b)
        length = np.hypot(np.sin(b), top - a - np.cos(b))
        return k * (b - lean) + strut * (length - free_length) * np.sin(b) * (top - a) / length

    bent = [brentq(moment, -0.01, 0.01, args=(0.0,)), brentq(moment, 0.05, 1.5, args=(press,))]
    np.testing.assert_allclose(eq.q("B"), bent, rtol=0, atol=1e-9)
    assert eq.stable.tolist() == [True, True]


def test_equilibrium_is_where_a_damped_simulation_comes_to_rest():
    m = pendulum(30.0, damping=3.0)
    eq = equilibrium(m)
    sim = simulate(m, t_end=30.0, q0={"A": 0.8}, qd0={"A": 0.0}, rtol=1e-10)
    np.testing.assert_allclose(sim.q("A")[-1], eq.q("A")[0], atol=1e-7)


def test_bad_input_gets_located_errors():
    m = pendulum(30.0)
    with pytest.raises(ModelError, match="driver 'X'"):
        equilibrium(m, drivers={"X": [0.0]})
    with pytest.raises(ModelError, match="force_tolerance"):
        equilibrium(m, force_tolerance=-1.0)
    with pytest.raises(ModelError, match="tolerance"):
        equilibrium(m, tolerance=1.0)
    with pytest.raises(ModelError, match="hold: expected a variable name or a list of names, got int 5"):
        equilibrium(m, hold=5)
    eq = equilibrium(m, drivers={"A": [0.1]})
    with pytest.raises(ModelError, match="driver 'B'"):
        eq.force("B")


def three_arms(stiffness):
    """Three arms on revolutes from the ground, each on a torsion spring (N m/rad), no load: at
    rest at the reference with the reduced stiffness diag(stiffness) exactly."""
    m = Mechanism("three arms")
    for i, k in enumerate(stiffness):
        m.add_link(f"arm{i}", mass=1.0, com=(0.5, 0, 0), inertia=np.diag([0.01, 0.1, 0.1]))
        m.add_pair(f"A{i}", "revolute", "ground", f"arm{i}", at=(0, 0, i), axis=(0, 0, 1))
        m.add_pair_spring(f"A{i}", stiffness=k, free_value=0.0)
    return m


@pytest.mark.parametrize("small, expected", [(1.2e-6, "stable"), (0.8e-6, "neutral")])
def test_stability_near_the_neutral_floor(small, expected):
    # The floor is NEUTRAL_RATIO (1e-9) times the largest eigenvalue, 1000: 1e-6. The quick test
    # (a Cholesky factorization less a floor made with the Frobenius norm, 1414: 1.41e-6) cannot
    # tell 1.2e-6 from 0.8e-6, the eigenvalues must.
    eq = equilibrium(three_arms((1000.0, 1000.0, small)))
    np.testing.assert_allclose(np.diag(eq.stiffness[0]), [1000.0, 1000.0, small], rtol=1e-12)
    assert eq.stability.tolist() == [expected] and eq.stable.tolist() == [expected == "stable"]


def test_every_returned_equilibrium_is_checked_closed_and_balanced(monkeypatch):
    # The walk's record spoilt after the walk: the checks of loops.statics catch it.
    from loops.kernels import equilibrium_walk
    from loops.kernels.state import RESIDUAL

    walk = equilibrium_walk.walk_equilibria

    def spoilt(how):
        def run(*args):
            out = walk(*args)
            record = args[-1]
            if how == "open":
                record.q[1] += 0.01
            else:
                record.info[1, RESIDUAL] = 1e-6
            return out
        return run

    for how, message in (("open", "position 1 does not close"), ("unbalanced", "not balanced")):
        monkeypatch.setattr(equilibrium_walk, "walk_equilibria", spoilt(how))
        with pytest.raises(RuntimeError, match=message):
            equilibrium(corner(), drivers={"travel": np.linspace(-0.02, 0.02, 3)}, hold=["hub"])
