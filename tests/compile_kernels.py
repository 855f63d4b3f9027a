"""Compile kinematrix's kernels (or load them from numba's cache) before a test run, on both cores.

numba compiles a kernel the first time it is called and keeps it on disk (``cache=True``), so
only the first run on a machine pays. That first run is long (a few minutes of LLVM time,
mostly in the few large kernels: the walk, the corrector, the dynamics stage and the
integrator), and in one process it is serial. The kernels fall into two families that share
little compiled code: the integrator with its dynamics stage and the design studies, and the
rest (the walk of sweeps, the evaluations of dynamics at given positions, static equilibria
and the compliance analyses). ``tests/conftest.py`` compiles them in two processes at once,
one family each, before the tests start; the test processes then load everything from the
cache.

Run: ``python tests/compile_kernels.py kinematics|simulation`` (one family), or with no argument
both families one after the other. Each family runs the public computations whose kernels the
suite uses, on shipped examples, at a few positions: their results are not checked here.
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FAMILIES = ("kinematics", "simulation")
#: Environment variable naming a file (tests/conftest.py sets it) that the kinematics family
#: creates once a model's loading has compiled the evaluation (``closure.configure``, the world
#: twists, the loop Jacobian), and that the simulation family waits for before it loads its first
#: model: it then loads them from the cache, where it compiled them as well (2.3 s of processor
#: time on an empty cache). Unset (a family run alone) nothing waits.
EVALUATION_COMPILED = "KINEMATRIX_TEST_EVALUATION_COMPILED"
#: Seconds the simulation family waits for that file at most; then it compiles them itself.
EVALUATION_WAIT = 60.0


def _cli(*argv):
    from dynamics.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main([str(a) for a in argv])


def kinematics():
    """Sweeps (positions, rates, held freedoms, point drivers, spherical pairs), point
    trajectories and the suspension analyses; then inverse dynamics in both forms with the
    pairs' reactions, which evaluate the dynamics at positions a sweep reaches; then
    :func:`statics`."""
    from dynamics import inverse_dynamics
    from mechanism import load_model

    wishbone = load_model(EXAMPLES / "double_wishbone.toml")
    marker = os.environ.get(EVALUATION_COMPILED)
    if marker:
        pathlib.Path(marker).touch()
    wishbone.sweep({"travel": np.linspace(-0.02, 0.02, 5)}, speeds={"travel": 0.5}, accelerations={"travel": 1.0})
    four_bar = load_model(EXAMPLES / "four_bar.toml")
    result = four_bar.sweep({"A": np.linspace(0.0, 1.0, 5)}, speeds={"A": 1.0})
    for name in four_bar.points:
        result.point(name), result.point_velocity(name), result.point_acceleration(name)
    with tempfile.TemporaryDirectory() as scratch:
        out = pathlib.Path(scratch)
        _cli("suspension", EXAMPLES / "front_axle.toml", "--analysis", "parallel", "--travel", "-20:20:10",
             "--out", out / "axle.csv")
        _cli("sweep", EXAMPLES / "rssr.toml", "--drive", "crank_angle=0:90:30", "--out", out / "rssr.csv")
    for method in ("lagrange", "kane"):
        inverse_dynamics(four_bar, {"A": np.linspace(0.0, 0.2, 3)}, speeds={"A": 1.0}, method=method).reactions()
    statics()
    rates_and_predictor_twins(wishbone)


def overconstrained():
    """The Bennett linkage (examples/bennett.toml): loading it assembles the loop from its guess
    (the corrector called from Python, :func:`loops.newton.solve_position`), and a sweep over a
    full turn chooses the square block's rows anew on the way (the tangent called from Python).
    Each of those calls compiles a twin of a kernel only kernels call (``loops.kernels._compile``),
    which the first test that loads the example would otherwise compile. Last in the simulation
    family: the walk itself it loads from the cache the kinematics family wrote."""
    from mechanism import load_model

    bennett = load_model(EXAMPLES / "bennett.toml")
    bennett.sweep({"J1": np.radians(90.0) + np.linspace(0.0, 2 * np.pi, 13)})


def statics():
    """Static equilibria on bushings, their reactions and points (on the equilibria's read-only
    arrays), the README's compliance analyses of the front axle on bushings (the reactions and
    rates at the equilibria) and its load cases of the rigid axle. Part of the kinematics family: a kernel no family compiles is
    compiled by each test process that meets it first, both at once."""
    from loops import equilibrium
    from loops.suspension import compliance, kc_curves, load_case, load_suspension
    from mechanism import Mechanism

    arm = Mechanism("arm on a bushing")  # tests/test_bushings.py's trailing arm
    arm.add_link("arm")
    arm.add_bushing("bush", "ground", "arm", at=(0, 0, 0), stiffness=(3e5, 2e5, 1e5, 1e3, 2e3, 1.5e3))
    arm.add_point("tip", "arm", at=(0.4, 0, 0))
    arm.add_point_force("load", "arm", at=(0.4, 0, 0), force=(0.0, 0.0, -300.0))
    for compliant in (False, True):
        arm.use_bushings(compliant)
        at_rest = equilibrium(arm)
        at_rest.reactions(), at_rest.point("tip")
    front = load_suspension(EXAMPLES / "front_axle_bushings.toml")
    compliance(front, [-0.03, 0.0, 0.03])
    kc_curves(front, [-0.03, 0.0, 0.03], "cornering")
    rigid = load_suspension(EXAMPLES / "front_axle.toml")  # the README's load cases: the pairs' reactions
    load_case(rigid, "cornering", [-0.04, 0.0, 0.04]), load_case(rigid, "cornering", [0.0])


def _all_pairs_state():
    """tests/core_models.py's mechanism with every pair type, compiled, at its reference
    assembly: (system, configuration, work)."""
    from core_models import spatial_all_pairs
    from loops.compiled import compile_model
    from loops.configuration import evaluate, new_work

    system = compile_model(spatial_all_pairs().snapshot())
    q = system.reference_q()
    config = evaluate(system, q)
    return system, config, new_work(system, q, config.rotations)


def rates_and_predictor_twins(wishbone):
    """The kernels the tests call from Python and no command does, as the tests call them: the
    rates of the tree products (tests/kinematics_helpers.py, tests/test_kernels.py) and the
    sweeps' predictor (tests/test_sweep.py, on ``wishbone``'s sweep with curvatures). Part of the
    kinematics family."""
    from kinematics_helpers import link_velocities, twist_rate_terms
    from loops.kernels.acceleration import bias_rhs, link_accelerations
    from loops.kernels.closure import configure, world_twists
    from loops.kernels.continuation import _predict

    system, config, work = _all_pairs_state()
    topology, q_dot = system.topology, np.ones(system.n)
    V = link_velocities(system, config, q_dot)
    terms = twist_rate_terms(system, config, q_dot, V)
    link_accelerations(topology, np.array(config.twists), q_dot, terms, np.zeros((topology.links, 6)))
    configure(topology, system.geometry, work)
    world_twists(topology, system.geometry, work)
    bias_rhs(topology, system.geometry, work, V, terms, np.zeros(system.rows))
    result = wishbone.sweep({"travel": np.linspace(-0.02, 0.02, 5)}, speeds={"travel": 1.0})
    wishbone_system = result.system
    tangents, d = result._tangents, result._tangents.shape[2]
    block = type("Block", (), {"column_scale": wishbone_system.column_scale})  # all _predict reads of it
    last_step, span = np.zeros((2, d)), np.zeros(d)
    last_step[:, 0] = span[0] = 0.01  # equal steps along the driver
    for curved in (np.zeros(3), np.ones(3)):  # the third-order predictor and the fifth-order one
        _predict.py_func(wishbone_system.topology, block, tangents[2], np.ascontiguousarray(tangents[[1, 0]]),
                         last_step, np.ascontiguousarray(result._q_ddot[[2, 1]]), curved, span, 1.0,
                         np.zeros(wishbone_system.n))


def solver_twins():
    """The kernels the tests call from Python and no command does, as the tests call them: the
    square block's factorization and a corrector step (tests/test_closure.py,
    tests/test_system.py). Part of the simulation family."""
    from loops.configuration import constraint_matrix
    from loops.kernels.linear import factorize_block
    from loops.kernels.newton import apply_step
    from loops.linear import new_factor, square_block

    system, config, work = _all_pairs_state()
    topology, driven = system.topology, system.driver_columns(["A", "P"])
    block = square_block(system, constraint_matrix(system, config, scaled=True), driven)
    if block is not None:
        factorize_block(topology, system.geometry, block, work, new_factor(block))
    apply_step(topology, work, np.zeros(system.n), 1.0)


def pair_and_energy_twins():
    """Kernels that take no model, as the tests call them: the rotations' maps over stacked
    arrays (tests/stacked_kernels.py), the predictor's step ratio (tests/test_sweep.py), a Hooke
    pair's twist rates over stacked values (the sensitivities of a design with one,
    tests/test_study_sensitivity.py) and the kinetic energy of given poses (tests/test_energy.py).
    Early in the simulation family (:data:`EVALUATION_COMPILED`)."""
    from stacked_kernels import FamilyPair
    from dynamics.energy import kinetic_energy
    from loops.kernels.continuation import bend
    from loops.kernels.pairs import twist_rates
    from mechanism import pairs

    FamilyPair(pairs.Spherical()).advance(np.full(3, 0.1), np.full(3, 0.01))  # exp, rotate_left, log
    bend(np.array([4e-3, 0.0]), np.array([2e-3, 0.0]))
    hooke = pairs.Hooke()
    twist_rates(hooke, np.zeros((2, hooke.size)), np.ones((2, hooke.size)))
    kinetic_energy(np.tile(np.eye(4), (3, 1, 1)), np.zeros((3, 6)), np.tile(np.eye(4), (3, 1, 1)))


def _await_evaluation():
    """Wait (at most :data:`EVALUATION_WAIT` s) for the kinematics family to have compiled a
    model's evaluation, where tests/conftest.py runs the two together."""
    marker = os.environ.get(EVALUATION_COMPILED)
    deadline = time.monotonic() + EVALUATION_WAIT
    while marker and not os.path.exists(marker) and time.monotonic() < deadline:
        time.sleep(0.05)


def simulation():
    """The banded solves called from Python (:func:`banded_solves`); simulation: both integrators,
    scipy's implicit steppers (the compiled right-hand side they call), loads, switching of the
    partition, energies; then :func:`studies`, equations of motion in both forms (the dynamics
    at a closed state called from Python) and :func:`overconstrained`, which balance the two
    families by numba's compile events (53 and 53 s of processor time on an empty cache, on a
    loaded machine)."""
    from dynamics import equations_of_motion, simulate, warm
    from mechanism import load_model

    # no second process walking a four-bar (dynamics.warm): the kinematics family beside this one
    # compiles the walk's kernels while this one compiles the integrator's
    os.environ[warm.DISABLE] = "1"
    banded_solves()
    pair_and_energy_twins()
    _await_evaluation()
    four_bar = load_model(EXAMPLES / "four_bar.toml")
    for method in ("DOP853", "RK45"):
        simulate(four_bar, 0.05, t_eval=np.linspace(0.0, 0.05, 3), method=method).energy()
    pendulum = load_model(EXAMPLES / "spring_pendulum.toml")
    simulate(pendulum, 0.05)
    simulate(pendulum, 0.01, method="Radau")
    simulate(load_model(EXAMPLES / "slider_crank.toml"), 0.05)
    studies()
    for method in ("lagrange", "kane"):
        equations_of_motion(four_bar, q={"A": 0.3}, qd={"A": 1.0}, method=method)
    solver_twins()
    overconstrained()


def banded_solves():
    """The banded LU and its solves called from Python as tests/test_kernels.py calls them (each a
    twin of a kernel only kernels call). First in this family: they take no model, so while they
    compile the kinematics family compiles the evaluation every model's loading needs
    (``closure.configure``), which this family then loads from the cache instead of compiling
    it at the same time."""
    from loops.kernels.linear import (band_determinant_sign, band_lu, band_one_norm_of_inverse, band_pivot,
                                      band_solve, band_solve_transposed)

    n, kl, ku = 3, 1, 1
    band = np.zeros((n, 2 * kl + ku + 1))  # entry (i, j) at band[j, kl + ku + i - j]: the identity
    band[:, kl + ku] = 1.0
    pivots = np.zeros(n, dtype=np.int64)
    band_lu(band, n, kl, ku, pivots)
    band_pivot(band, kl, ku, 0), band_determinant_sign(band, n, kl, ku, pivots)
    band_solve(band, n, kl, ku, pivots, np.ones(n)), band_solve_transposed(band, n, kl, ku, pivots, np.ones(n))
    band_one_norm_of_inverse(band, n, kl, ku, pivots, np.zeros(n), np.zeros(n))


def studies():
    """Design studies: the batched walk of many variants (one of which stops: the rates of the
    rows it reached are computed apart), and the README's sensitivities of an axle's metrics to
    its hardpoints (the twists' rates at the positions of a sweep). Part of the simulation
    family, the shorter without them."""
    from loops.study.sensitivity import sensitivities as of_hardpoints
    from loops.study.study import run_study
    from loops.suspension import load_suspension

    run_study(load_suspension(EXAMPLES / "double_wishbone.toml"), ["lower_ball.y"], [[0.0], [0.001], [-0.36]],
              analysis="parallel", travel=np.linspace(-0.08, 0.08, 5))
    of_hardpoints(load_suspension(EXAMPLES / "front_axle.toml"), ["lower_ball_left", "rack_end_left.z"],
                  np.linspace(-0.04, 0.04, 5))


def main(argv):
    families = argv or list(FAMILIES)
    for family in families:
        if family not in FAMILIES:
            raise SystemExit(f"compile_kernels: unknown family {family!r} (one of {', '.join(FAMILIES)})")
        globals()[family]()
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
