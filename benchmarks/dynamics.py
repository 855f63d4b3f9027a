"""Dynamics speed and accuracy: the four-bar under gravity and a chain of parallelograms.

1. Four-bar (``examples/four_bar.toml``: crank 0.1 m, coupler 0.3, rocker 0.25, ground 0.3,
   uniform rods of 1, 3 and 2.5 kg, gravity -y) released from rest with the crank along
   the ground line, 2 s. For a few tolerances it prints the wall time (median of
   ``--repeats``), the right-hand-side evaluations, the accepted steps and the crank-angle
   error at 2 s against a reference run at rtol 1e-12. Target (issue 4): 1e-8 rad in under
   0.25 s on 2 cores. If ``import mujoco`` works, the same mechanism runs in MuJoCo too (two
   hinge chains, the loop closed by an equality ``connect`` at C, RK4 at 1e-4 s and at 1e-5 s,
   where it reaches kinematrix's 1e-8 rad; solref twice the step), with its wall time, its
   crank-angle error and the time ratio. Target (issue 13): ratio at most 0.1 at equal accuracy.
2. IFToMM A02-style chain of parallelogram four-bars (1 m, 1 kg uniform links, rockers
   hinged to the ground at unit spacing, unit squares, first rocker tip at 1 m/s, gravity)
   simulated 20 s through its flat singular positions: wall time, set-up time (building the
   model's arrays, its mobility, closing the start; numba's kernels are warmed for each size
   before anything is timed, so no figure holds compiling), cost per step without it, energy
   drift, how far the rockers stray from parallel (the branch), and the cost per step for 40
   four-bars against 2, and the largest distance of the first rocker's tip from the exact one-freedom
   reduction of the chain (:func:`one_freedom_reduction`). Target: under 60 s, cost per step
   growing no faster than the loop count.

Run: ``python benchmarks/dynamics.py [--repeats 3] [--chain 10,40,80,160] [--rtols 1e-9,1e-8] [--chain-only]``
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

# This file is named like the package it measures: keep its own folder off the import path,
# and put the repository first (an editable install made before dynamics/__init__.py
# existed would import the package as a namespace).
_HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from dynamics import simulate  # noqa: E402
from mechanism import Mechanism, load_model  # noqa: E402

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def four_bar_runs(repeats):
    model = load_model(EXAMPLES / "four_bar.toml")
    ends = [0.0, 2.0]  # the last accepted step lands on 2 s: no dense output needed

    def run(rtol):
        return simulate(model, t_end=2.0, q0={"A": 0.0}, qd0={"A": 0.0}, t_eval=ends, rtol=rtol)

    run(1e-8)  # warm-up: compile the model, fill caches
    reference = run(1e-12).q("A")[-1]
    print("Four-bar released under gravity, 2 s (DOP853, atol = rtol)")
    print(f"{'rtol':>8} {'wall [s]':>9} {'RHS':>6} {'steps':>6} {'crank error at 2 s [rad]':>26}")
    ours = {}
    for rtol in (1e-8, 1e-9, 3e-10, 1e-10):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            sim = run(rtol)
            times.append(time.perf_counter() - start)
        error = abs(sim.q("A")[-1] - reference)
        ours[rtol] = (float(np.median(times)), error)
        print(f"{rtol:8.0e} {ours[rtol][0]:9.3f} {sim.evaluations:6d} {sim.steps:6d} {error:26.2e}")
    print(f"(reference: rtol 1e-12, crank angle at 2 s = {reference:.12f} rad)")
    try:
        import mujoco
    except ImportError:
        print("MuJoCo comparison skipped: 'import mujoco' failed (not installed).")
        return
    rtol = 3e-10  # the tolerance at which kinematrix reaches 1e-8 rad
    # MuJoCo's error is not monotonic in its step (the soft equality constraint's own error
    # mixes in): 1e-4 s gives 8.8e-7 rad, 3e-5 s 1e-4 rad, 1e-5 s 1.1e-8 rad (the step at which
    # it reaches kinematrix's accuracy), 3e-6 s 1e-5 rad.
    for step in (1e-4, 1e-5):
        wall, angle = mujoco_four_bar(mujoco, model, repeats, step)
        error = abs(angle - reference)
        print(f"MuJoCo {mujoco.__version__} (RK4, {step:g} s, equality connect, solref {2 * step:g} 1): "
              f"{wall:.3f} s, crank error at 2 s {error:.2e} rad; kinematrix at rtol {rtol:g}: "
              f"{ours[rtol][0]:.3f} s, {ours[rtol][1]:.2e} rad; time ratio kinematrix / MuJoCo "
              f"{ours[rtol][0] / wall:.3f}")


def _mjcf_four_bar(model, step=1e-4):
    """MJCF of the four-bar from the kinematrix model: same pairs, masses, centres, inertias.

    All body frames coincide with the world frame at the design pose (as kinematrix's link
    frames do), so the model's global centres and inertia tensors are the bodies' own.
    """
    snapshot = model.snapshot()
    pairs = {p.name: p for p in snapshot.pairs}
    links = {link.name: link for link in snapshot.links}

    def body(name, hinge, children=""):
        link = links[name]
        I = link.inertia + 1e-12 * np.eye(3)  # slender rods: MuJoCo wants a positive-definite tensor
        full = " ".join(repr(float(v)) for v in (I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]))
        at = " ".join(repr(float(v)) for v in pairs[hinge].at)
        com = " ".join(repr(float(v)) for v in link.com)
        return (f'<body name="{name}" pos="0 0 0"><joint name="{hinge}" type="hinge" pos="{at}" axis="0 0 1"/>'
                f'<inertial pos="{com}" mass="{link.mass!r}" fullinertia="{full}"/>{children}</body>')

    c = " ".join(repr(float(v)) for v in pairs["C"].at)
    gravity = " ".join(repr(float(v)) for v in snapshot.gravity)
    return (f'<mujoco><option timestep="{step!r}" integrator="RK4" gravity="{gravity}"/><worldbody>'
            + body("crank", "A", body("coupler", "B")) + body("rocker", "D")
            + f'</worldbody><equality><connect body1="coupler" body2="rocker" anchor="{c}" '
              f'solref="{2 * step!r} 1"/></equality></mujoco>')  # the stiffest MuJoCo allows


def mujoco_four_bar(mujoco, model, repeats, step=1e-4):
    """MuJoCo's run of the four-bar for 2 s from rest with RK4 at ``step`` s: (median wall time s,
    crank angle at 2 s)."""
    mj_model = mujoco.MjModel.from_xml_string(_mjcf_four_bar(model, step))
    data = mujoco.MjData(mj_model)
    times = []
    for _ in range(repeats):
        mujoco.mj_resetData(mj_model, data)
        start = time.perf_counter()
        for _ in range(int(round(2.0 / step))):
            mujoco.mj_step(mj_model, data)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), float(data.qpos[0])


def parallelogram_chain(count, gravity=9.81):
    """``count`` parallelogram four-bars in a row (see tests/dynamics_models.py)."""
    m = Mechanism(f"chain of {count} parallelograms")
    def rod(direction):
        u = np.asarray(direction, dtype=float)
        return (np.eye(3) - np.outer(u, u)) / 12.0
    for i in range(count + 1):
        m.add_link(f"r{i}", mass=1.0, com=(i, 0.5, 0), inertia=rod((0, 1, 0)))
    for i in range(count):
        m.add_link(f"c{i}", mass=1.0, com=(i + 0.5, 1, 0), inertia=rod((1, 0, 0)))
    for i in range(count + 1):
        m.add_pair(f"G{i}", "revolute", "ground", f"r{i}", at=(i, 0, 0), axis=(0, 0, 1))
    for i in range(count):
        m.add_pair(f"L{i}", "revolute", f"r{i}", f"c{i}", at=(i, 1, 0), axis=(0, 0, 1))
        m.add_pair(f"R{i}", "revolute", f"c{i}", f"r{i + 1}", at=(i + 1, 1, 0), axis=(0, 0, 1))
    m.set_gravity((0, -gravity, 0))
    return m


def one_freedom_reduction(count, t_end, gravity=9.81):
    """The chain on its parallelogram branch has one freedom, the common rocker angle ``theta``
    (every rocker parallel, every coupler translating): ``M theta'' = K sin(theta)`` with
    ``M = (count + 1) / 3 + count`` (rockers about their pivots, couplers as point masses at
    the rocker tips' distance) and ``K = g ((count + 1) / 2 + count)``; returns ``theta(t)``
    (dense, rtol 1e-13), from ``theta = 0``, ``theta' = -1 rad/s``."""
    from scipy.integrate import solve_ivp

    inertia = (count + 1) / 3.0 + count
    stiffness = gravity * ((count + 1) / 2.0 + count)
    return solve_ivp(lambda t, y: [y[1], stiffness * np.sin(y[0]) / inertia], (0.0, t_end), [0.0, -1.0],
                     rtol=1e-13, atol=1e-13, dense_output=True).sol


def chain_run(count, t_end=20.0, rtol=1e-9, repeats=3):
    """A 20 s run; also the set-up alone (model built, mobility, the start closed: the same
    call with ``t_end`` = 1 ms, a few steps), so that the cost per step excludes it. Each is
    timed ``repeats`` times, each time on a model of its own (nothing built for one is reused
    by the next), and the medians are returned.

    The kernels are warmed first: an untimed set-up of a chain of this size, because numba
    compiles on first use kernels whose types depend on the chain's size (a cold cache makes
    a set-up of 40 four-bars take longer than its whole timed run). No timed call then holds
    any compiling, and the cost per step is the stepping's."""
    def run(end):
        start = time.perf_counter()
        done = simulate(parallelogram_chain(count), t_end=end, q0={"G0": 0.0}, qd0={"G0": -1.0}, rtol=rtol)
        return time.perf_counter() - start, done

    run(1e-3)  # warm
    setup = float(np.median([run(1e-3)[0] for _ in range(repeats)]))
    runs = [run(t_end) for _ in range(repeats)]
    wall, sim = float(np.median([w for w, _ in runs])), runs[-1][1]
    energy = sim.energy()
    drift = np.abs(energy.total - energy.total[0]).max()
    rockers = np.array([sim.q(f"G{i}") for i in range(count + 1)])
    stray = np.abs(rockers - rockers[0]).max()
    flats = int(np.abs(sim.q("G0")).max() // np.pi)
    exact = one_freedom_reduction(count, t_end)(sim.t)[0]
    theta = sim.q("G0")  # the first rocker's tip (1 m long) against the reduction's
    tip_error = np.hypot(np.sin(theta) - np.sin(exact), np.cos(theta) - np.cos(exact)).max()
    return wall, setup, sim, drift, np.abs(energy.kinetic).max(), stray, flats, tip_error


def chain_runs(counts, rtols, repeats=3):
    for rtol in rtols:
        print()
        print(f"Chain of parallelogram four-bars, 20 s, rtol {rtol:g}, first rocker tip at 1 m/s (medians of "
              f"{repeats}; each size's kernels warmed by an untimed set-up first: no time below holds compiling)")
        print(f"{'four-bars':>9} {'wall [s]':>9} {'set-up [s]':>10} {'steps':>6} {'RHS':>6} {'ms/step':>8} "
              f"{'energy drift [J]':>17} {'relative':>9} {'off branch [rad]':>17} {'tip error [m]':>14} "
              f"{'flat passes':>12}")
        rows = {}
        for n in counts:
            wall, setup, sim, drift, kinetic, stray, flats, tip_error = chain_run(n, rtol=rtol, repeats=repeats)
            # the stepping alone; none measurable when the set-up's noise (a loaded machine) swallows it
            rows[n] = (wall - setup) / sim.steps if wall > setup else None
            per_step = "-" if rows[n] is None else f"{1e3 * rows[n]:.2f}"
            print(f"{n:9d} {wall:9.2f} {setup:10.2f} {sim.steps:6d} {sim.evaluations:6d} {per_step:>8} "
                  f"{drift:17.2e} {drift / kinetic:9.1e} {stray:17.1e} {tip_error:14.1e} {flats:12d}")
        first = counts[0]
        for n in counts[1:]:
            if rows[n] is None or rows[first] is None:
                print(f"cost per step, {n} against {first} four-bars: not measured (a set-up took as long as its "
                      "run: the machine is too busy for this figure)")
                continue
            print(f"cost per step, {n} against {first} four-bars: x{rows[n] / rows[first]:.1f} for x{n / first:.0f} loops")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chain", default="2,40", help="four-bars in the chains, comma-separated (e.g. 10,40,80,160)")
    parser.add_argument("--rtols", default="1e-9", help="tolerances of the chain runs, comma-separated")
    parser.add_argument("--chain-only", action="store_true", help="skip the four-bar runs")
    args = parser.parse_args(argv)
    if not args.chain_only:
        four_bar_runs(args.repeats)
    chain_runs([int(c) for c in args.chain.split(",")], [float(r) for r in args.rtols.split(",")], args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
