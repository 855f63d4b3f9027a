"""Sweep speed: kinematrix against scipy.optimize.least_squares, and against an older engine.

Cases (the shipped examples, public API only):

* four-bar, 361 crank positions (a full turn), positions only;
* double-wishbone corner, 161 wheel-travel positions with velocities (the suspension
  engineer's sweep), and the same with 41 positions: the difference of the two is the cost
  of a position, and the short sweep's time less its positions' cost the fixed cost of a call
  (the issue's own measure: 290-360 us per position and about 17 ms per call before);
* a short-long-arm corner built pair by pair in metres (:func:`sla_corner`: no model file, a
  tie rod with its inner end on the ground, no wheel), 161 positions with velocities: other
  geometry than the examples' (issue 25, item 4: target 7 us per position all in).

For each it prints the median over ``--repeats`` of the time per position of

* kinematrix's sweep (compiled predictor, Newton corrector and velocity solve), and
* a baseline in the same process: ``scipy.optimize.least_squares`` (trust-region reflective,
  finite-difference Jacobian) on the same closure defects, one position at a time from the
  previous solution, with a dense least-squares solve for the rates,

and their ratio (baseline / kinematrix). ``--compare-with DIR`` also runs the kinematrix
cases with the package found in DIR (another checkout, e.g. the engine before a change)
in a subprocess of the same run, and prints its times and the ratio. Targets (issue 13):
double wishbone at most 10 us per position, fixed cost of a 41-position sweep at most 1 ms.
The machines are shared and noisy: compare ratios measured in one run.

Run: ``python benchmarks/sweep.py [--repeats 7] [--compare-with ../old-checkout]``
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

from timing import in_checkout, median_time  # benchmarks/timing.py (this script's folder is on the path)

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

def sla_corner():
    """A short-long-arm front corner built pair by pair in metres (no model file, no
    ``[corner]``): lower and upper wishbones on revolute pairs to the ground, ball joints to
    the upright, a tie rod between two spherical pairs with its inner end on the ground (no
    rack), four points, wheel travel by the point driver ``travel`` at the wheel centre."""
    from mechanism import Mechanism

    m = Mechanism("short-long-arm corner")
    for link in ("lower_arm", "upper_arm", "upright", "tie_rod"):
        m.add_link(link)
    m.add_pair("lower_inner", "revolute", "ground", "lower_arm", at=(0.0, 0.25, 0.11), axis=(1.0, 0.02, 0.0))
    m.add_pair("upper_inner", "revolute", "ground", "upper_arm", at=(-0.02, 0.42, 0.44), axis=(1.0, -0.05, 0.08))
    m.add_pair("lower_ball", "spherical", "lower_arm", "upright", at=(0.005, 0.74, 0.12))
    m.add_pair("upper_ball", "spherical", "upper_arm", "upright", at=(-0.015, 0.67, 0.47))
    m.add_pair("tie_inner", "spherical", "ground", "tie_rod", at=(-0.14, 0.33, 0.20))
    m.add_pair("tie_outer", "spherical", "tie_rod", "upright", at=(-0.145, 0.71, 0.19))
    m.add_point("wheel_centre", "upright", at=(0.0, 0.79, 0.31))
    m.add_point("hub_inner", "upright", at=(0.0, 0.71, 0.31))
    m.add_point("contact", "upright", at=(0.0, 0.80, 0.0))
    m.add_point("tie_point", "upright", at=(-0.145, 0.71, 0.19))
    m.add_point_driver("travel", point="wheel_centre", direction=(0, 0, 1))
    return m


#: (label, model file (or a function building the model), driver, values, driver speed or None)
CASES = [
    ("four-bar, 361 positions", "four_bar.toml", "A", np.linspace(0.0, 2 * np.pi, 361), None),
    ("double wishbone, 161 pos. with velocities", "double_wishbone.toml", "travel", np.linspace(-0.08, 0.08, 161), 0.5),
    ("double wishbone, 41 pos. with velocities", "double_wishbone.toml", "travel", np.linspace(-0.08, 0.08, 41), 0.5),
    ("SLA corner by pairs, 161 pos. w/ velocities", sla_corner, "travel", np.linspace(-0.08, 0.08, 161),
     0.5),
]


def kinematrix_times(repeats, examples=EXAMPLES):
    """Median wall time (s) of each case's sweep, public API only (runs on any engine version;
    ``examples``: the checkout's own model files, which its model reader accepts)."""
    from mechanism import load_model

    out = []
    for _, model_file, driver, values, speed in CASES:
        mechanism = model_file() if callable(model_file) else load_model(pathlib.Path(examples) / model_file)
        speeds = None if speed is None else {driver: speed}
        mechanism.sweep({driver: values[:3]}, speeds=speeds)  # compile (or load) and warm up
        out.append(median_time(lambda: mechanism.sweep({driver: values}, speeds=speeds), repeats))
    return out


def baseline_sweep(model, driver, values, speed):
    """Positions (and rates) one at a time by ``least_squares`` from the previous solution;
    returns the largest closure error reached."""
    from scipy.optimize import least_squares

    from loops.compiled import compile_model
    from loops.configuration import constraint_matrix, evaluate

    system = compile_model(model)
    driven = system.driver_columns([driver])
    free = np.setdiff1d(np.arange(system.n), driven)
    q = system.reference_q()
    worst = 0.0
    for value in values:
        q[driven] = value

        def defects(x):
            trial = q.copy()
            trial[free] = x
            return evaluate(system, trial).defects * system.row_scale

        q[free] = least_squares(defects, q[free], xtol=1e-15, ftol=1e-15, gtol=1e-15).x
        config = evaluate(system, q)
        worst = max(worst, config.closure_error())
        if speed is not None:
            B = constraint_matrix(system, config)
            np.linalg.lstsq(B[:, free], -B[:, driven] @ [speed], rcond=None)
    return worst


def _other_engine(directory, repeats):
    """Times of the kinematrix cases with the package in ``directory`` (a subprocess)."""
    return in_checkout(directory, "__import__('sweep').kinematrix_times(int(sys.argv[3]), sys.argv[1] + '/examples')",
                       repeats)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats (median reported)")
    parser.add_argument("--compare-with", type=pathlib.Path, help="another checkout to time in the same run")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from loops.compiled import compile_model
    from mechanism import load_model

    ours = kinematrix_times(args.repeats)
    other = _other_engine(args.compare_with.resolve(), args.repeats) if args.compare_with else None
    print(f"{'case':<44} {'kinematrix':>12} {'least_squares':>14} {'ratio':>7}"
          + (f" {'other engine':>13} {'speed-up':>9}" if other else ""))
    for k, (label, model_file, driver, values, speed) in enumerate(CASES):
        model = (model_file() if callable(model_file) else load_model(EXAMPLES / model_file)).snapshot()
        count = len(values)
        theirs = median_time(lambda: baseline_sweep(model, driver, values, speed), max(1, args.repeats // 3))
        row = (f"{label:<44} {ours[k] / count * 1e6:9.2f} us {theirs / count * 1e6:11.1f} us "
               f"{theirs / ours[k]:6.0f}x")
        if other:
            row += f" {other[k] / count * 1e6:10.2f} us {other[k] / ours[k]:8.1f}x"
        print(row)
    # As issue 13 measured them: what one more position costs (the two sweep lengths' difference)
    # and what a call costs besides (the short sweep less its positions).
    long, short = len(CASES[1][3]), len(CASES[2][3])
    per_position = (ours[1] - ours[2]) / (long - short)
    fixed = ours[2] - short * per_position
    print(f"double wishbone: {per_position * 1e6:.2f} us per position (target <= 10), fixed cost of a call "
          f"{fixed * 1e3:.2f} ms (target <= 1); all in, {ours[1] / long * 1e6:.2f} us per position of the "
          f"{long}-position sweep")
    result = load_model(EXAMPLES / "double_wishbone.toml").sweep({"travel": CASES[1][3]})
    system = compile_model(result.model)
    from loops.configuration import evaluate
    print(f"largest closure error of the kinematrix sweep: "
          f"{max(evaluate(system, q).closure_error() for q in result._q):.1e}")


if __name__ == "__main__":
    main()
