"""Sweep speed: kinematrix against scipy.optimize.least_squares on the same closure equations.

For a four-bar (361 crank positions, positions only) and the double-wishbone corner (161
wheel-travel positions, with velocities and accelerations) this prints the median time
per position of

* kinematrix's sweep (predictor from the velocity solution, Newton corrector), and
* a baseline in the same process: ``scipy.optimize.least_squares`` (trust-region
  reflective, finite-difference Jacobian) on the same closure defects, one position at a
  time from the previous solution, with the same linear solves for rates,

and their ratio (baseline / kinematrix). Targets (issue 2): ratio >= 20, and under 300 us
per position for the double wishbone on a 2-core machine. The machines are shared and
noisy: only the ratio, measured in one run, is meaningful across machines.

Run: ``python benchmarks/sweep.py [--repeats 5]``
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import time

import numpy as np
from scipy.optimize import least_squares

from loops.acceleration import solve_motion
from loops.system import compile_model
from loops.velocity import ClosureLinearization
from mechanism import load_model

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def baseline_sweep(model, driver, values, speed=None):
    """Positions (and rates) one at a time by ``least_squares`` from the previous solution."""
    system = compile_model(model)
    driven = system.driver_columns([driver])
    free = np.setdiff1d(np.arange(system.n), driven)
    q = system.reference_q()
    closure_errors = []
    for value in values:
        q[driven] = value

        def defects(x):
            trial = q.copy()
            trial[free] = x
            return system.residual(system.evaluate(trial)) * system.row_scale

        solution = least_squares(defects, q[free], xtol=1e-15, ftol=1e-15, gtol=1e-15)
        q[free] = solution.x
        config = system.evaluate(q)
        closure_errors.append(system.closure_error(config))
        if speed is not None:
            solve_motion(ClosureLinearization(system, config, driven), config, [speed], [0.0])
    return q, max(closure_errors)


def time_per_position(run, count, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) / count)
    return statistics.median(times)


def case(label, model_file, driver, values, speed, repeats):
    mechanism = load_model(EXAMPLES / model_file)
    model = mechanism.snapshot()
    speeds = None if speed is None else {driver: speed}
    mechanism.sweep({driver: values[:2]}, speeds=speeds)  # compile and warm up

    ours = time_per_position(lambda: mechanism.sweep({driver: values}, speeds=speeds), len(values), repeats)
    theirs = time_per_position(lambda: baseline_sweep(model, driver, values, speed), len(values),
                               max(1, repeats // 2))
    result = mechanism.sweep({driver: values}, speeds=speeds)
    _, baseline_error = baseline_sweep(model, driver, values[:20], speed)
    system = compile_model(model)
    ours_error = max(system.closure_error(system.evaluate(q)) for q in result._q)
    print(f"{label:<34} kinematrix {ours * 1e6:8.1f} us/pos   least_squares {theirs * 1e6:9.1f} us/pos   "
          f"ratio {theirs / ours:6.1f}x   closure: ours {ours_error:.1e}, baseline {baseline_error:.1e}")
    return ours, theirs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats (median reported)")
    args = parser.parse_args(argv)
    case("four-bar, 361 positions", "four_bar.toml", "A", np.linspace(0, 2 * np.pi, 361), None, args.repeats)
    ours, _ = case("double wishbone, 161 pos, vel+acc", "double_wishbone.toml", "travel",
                   np.linspace(-0.08, 0.08, 161), 0.5, args.repeats)
    print(f"double-wishbone target: < 300 us per position -> {'met' if ours < 300e-6 else 'NOT met'} "
          f"({ours * 1e6:.0f} us)")


if __name__ == "__main__":
    main()
