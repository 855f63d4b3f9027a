"""Set-up time against the model's size: it must grow linearly (issue 25, item 3).

Models (public API only):

* the four-bar of ``examples/four_bar.toml`` with ``N`` free pendulums, each a link on a
  revolute pair to the ground (``N`` freedoms of their own, held by a sweep of the crank);
* the IFToMM A02-style chain of ``N`` parallelogram four-bars (``tests/dynamics_models.py``).

For each size it prints the median over ``--repeats`` (each on a model built afresh, the
kernels warmed first on a small model, so no figure holds compiling) of

* ``check``: ``Mechanism.check()`` (compiling the model's arrays, the mobility report with
  its idle-spin search);
* ``set-up``: the sweep's set-up alone, ``check`` then the held freedoms and the walk closed
  and factorized at the reference assembly (``loops.held.held_freedoms``,
  ``loops.continuation.Walk``), what a first sweep pays before its first position;
* ``sweep 13``: ``Mechanism.sweep`` of 13 crank positions on a fresh model (set-up included);
* for the chain, ``simulate``: ``dynamics.simulate`` to 1 ms (the dynamics benchmark's
  set-up: model arrays, mobility, the start closed);

and the set-up's seconds per thousand links, which stays flat when the growth is linear.
Targets: 3,000 pendulums ``check`` and ``sweep 13`` under 5 s each (400 under 0.6 s, 1,000
under 1.5 s); the chain of 640 set up under 2 s. The machine is shared: read the ratios.

Run: ``python benchmarks/setup.py [--repeats 3] [--pendulums 100,400,1000,3000] [--chain 40,160,640]``
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from core_models import pendulums  # noqa: E402
from dynamics_models import parallelogram_chain  # noqa: E402

CRANK = np.linspace(0.0, 1.0, 13)  # rad


def sweep_setup(model, driver):
    """Seconds of a sweep's set-up of ``model`` driven by ``driver``: the check, the held
    freedoms and the walk closed at the reference assembly."""
    from loops.compiled import compile_model
    from loops.configuration import evaluate
    from loops.continuation import Walk
    from loops.held import held_freedoms

    start = time.perf_counter()
    model.check()
    system = compile_model(model.snapshot())
    driven = np.array([system.variable_index[driver]], dtype=np.int64)
    held = held_freedoms(system, evaluate(system, system.reference_q()), driven)
    Walk(system, np.r_[driven, held].astype(np.int64))
    return time.perf_counter() - start


def timed(action, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def pendulum_rows(counts, repeats):
    print(f"{'pendulums':>9} {'links':>6} {'check [s]':>10} {'set-up [s]':>11} {'sweep 13 [s]':>13} "
          f"{'set-up s per 1000 links':>24}")
    for count in counts:
        check = timed(lambda: pendulums(count).check(), repeats)
        setup = float(np.median([sweep_setup(pendulums(count), "A") for _ in range(repeats)]))
        sweep = timed(lambda: pendulums(count).sweep({"A": CRANK}), repeats)
        links = count + 3
        print(f"{count:9d} {links:6d} {check:10.3f} {setup:11.3f} {sweep:13.3f} {1e3 * setup / links:24.3f}",
              flush=True)


def chain_rows(counts, repeats):
    from dynamics import simulate

    def simulated(count):
        simulate(parallelogram_chain(count), t_end=1e-3, q0={"G0": 0.0}, qd0={"G0": -1.0}, rtol=1e-9)

    print(f"{'four-bars':>9} {'links':>6} {'check [s]':>10} {'set-up [s]':>11} {'simulate [s]':>13} "
          f"{'set-up s per 1000 links':>24}")
    for count in counts:
        check = timed(lambda: parallelogram_chain(count).check(), repeats)
        setup = float(np.median([sweep_setup(parallelogram_chain(count), "G0") for _ in range(repeats)]))
        simulated(count)  # kernels whose types follow the size
        dynamic = timed(lambda: simulated(count), repeats)
        links = 2 * count + 1
        print(f"{count:9d} {links:6d} {check:10.3f} {setup:11.3f} {dynamic:13.3f} {1e3 * setup / links:24.3f}",
              flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (median reported)")
    parser.add_argument("--pendulums", default="100,400,1000,3000", help="pendulum counts, comma-separated")
    parser.add_argument("--chain", default="40,160,640", help="parallelogram counts, comma-separated")
    args = parser.parse_args(argv)
    pendulums(2).sweep({"A": CRANK})  # compile (or load) the kernels
    print("Four-bar with free pendulums (each on a revolute pair to the ground), driven by its crank A")
    pendulum_rows([int(c) for c in args.pendulums.split(",") if c], args.repeats)
    print()
    print("IFToMM A02-style chain of parallelogram four-bars, driven by its first rocker G0")
    chain_rows([int(c) for c in args.chain.split(",") if c], args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
