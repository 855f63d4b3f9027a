"""Load case speed: the hardpoint loads of a cornering case over 41 positions of a corner.

The shipped double-wishbone corner (``examples/double_wishbone.toml``, gravity on its links, a
rack-fixed tie rod), an own case of 4.2 kN vertical, 2.6 kN lateral and 1.8 kN longitudinal at
the contact patch, 41 wheel-travel positions from -80 to +80 mm held by the travel driver
(:func:`loops.suspension.load_case`: the equilibrium at each position, the drivers' efforts by
virtual work, the pair reactions by Newton-Euler on every link, the body-side, member and
spring forces). Printed: the median wall and processor times over the repeats, and in the same
run the bare sweep of the same positions (:func:`loops.suspension.parallel_travel`, every
metric), with the ratio load case / bare sweep. Target (issue 26): under 10 ms for the 41
positions. ``--compare-with DIR`` also times another checkout (a subprocess with DIR's
packages, this script's cases) and prints its medians and the speed-up.

Run: ``python benchmarks/loads.py [--repeats 7] [--compare-with ../main]``
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

from timing import in_checkout, median_cpu_time, median_time  # benchmarks/timing.py (this script's folder is on the path)

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
TRAVEL = np.linspace(-0.080, 0.080, 41)
#: The 41-position load case's target (issue 26), s.
TARGET = 0.010


def case_times(repeats, examples=EXAMPLES):
    """{name: median s}: the load case and the bare sweep, wall and processor time."""
    from loops.suspension import LoadCase, load_case, load_suspension, parallel_travel  # noqa: PLC0415

    case = LoadCase("cornering", longitudinal=-1800.0, lateral=-2600.0, vertical=4200.0, unit="N")
    corner = load_suspension(pathlib.Path(examples) / "double_wishbone.toml")
    load_case(corner, case, TRAVEL)  # compile and warm up
    parallel_travel(corner, TRAVEL)
    return {"load_case": median_time(lambda: load_case(corner, case, TRAVEL), repeats),
            "load_case_cpu": median_cpu_time(lambda: load_case(corner, case, TRAVEL), repeats),
            "bare": median_time(lambda: parallel_travel(corner, TRAVEL), repeats),
            "bare_cpu": median_cpu_time(lambda: parallel_travel(corner, TRAVEL), repeats)}


def other_checkout(directory, repeats):
    """:func:`case_times` with the packages of the checkout ``directory`` (a subprocess)."""
    return in_checkout(directory, "__import__('loads').case_times(int(sys.argv[3]), sys.argv[1] + '/examples')",
                       repeats)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--compare-with", type=pathlib.Path, help="another checkout to time in the same run")
    args = parser.parse_args(argv)
    ours = case_times(args.repeats)
    other = other_checkout(args.compare_with.resolve(), args.repeats) if args.compare_with else None
    print(f"double-wishbone corner, load case over {len(TRAVEL)} positions (held by the travel driver), medians of "
          f"{args.repeats}")
    print(f"  {'':28} {'wall':>9} {'processor':>10}" + (f" {'other wall':>11} {'speed-up':>9}" if other else ""))
    for label, key in (("load case", "load_case"), ("parallel travel (bare)", "bare")):
        row = f"  {label:28} {ours[key] * 1e3:6.2f} ms {ours[key + '_cpu'] * 1e3:7.2f} ms"
        if other:
            row += f" {other[key] * 1e3:8.2f} ms {other[key] / ours[key]:8.2f}x"
        print(row)
    print(f"  ratio load case / sweep:     {ours['load_case'] / ours['bare']:6.2f}"
          + (f"   (other checkout {other['load_case'] / other['bare']:.2f})" if other else ""))
    print(f"  target < {TARGET * 1e3:.0f} ms: {'met' if ours['load_case'] < TARGET else 'NOT met'} (wall), "
          f"{'met' if ours['load_case_cpu'] < TARGET else 'NOT met'} (processor)")
    return {"ours": ours, "other": other}


if __name__ == "__main__":
    main()
