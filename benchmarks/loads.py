"""Load case speed: the hardpoint loads of a cornering case over 41 positions of a corner.

The shipped double-wishbone corner (``examples/double_wishbone.toml``, gravity on its links, a
rack-fixed tie rod), an own case of 4.2 kN vertical, 2.6 kN lateral and 1.8 kN longitudinal at
the contact patch, 41 wheel-travel positions from -80 to +80 mm held by the travel driver
(:func:`loops.suspension.load_case`: the equilibrium at each position, the drivers' efforts by
virtual work, the pair reactions by Newton-Euler on every link, the body-side, member and
spring forces). Printed: the median time over the repeats, and in the same process the bare
sweep of the same positions (:func:`loops.suspension.parallel_travel`, every metric), with the
ratio load case / bare sweep. Target (issue 26): under 10 ms for the 41 positions.

Run: ``python benchmarks/loads.py [--repeats 7]``
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

from loops.suspension import LoadCase, load_case, load_suspension, parallel_travel
from timing import median_time  # benchmarks/timing.py (this script's folder is on the path)

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
TRAVEL = np.linspace(-0.080, 0.080, 41)
CASE = LoadCase("cornering", longitudinal=-1800.0, lateral=-2600.0, vertical=4200.0, unit="N")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    corner = load_suspension(EXAMPLES / "double_wishbone.toml")
    load_case(corner, CASE, TRAVEL)  # compile and warm up
    parallel_travel(corner, TRAVEL)
    ours = median_time(lambda: load_case(corner, CASE, TRAVEL), args.repeats)
    bare = median_time(lambda: parallel_travel(corner, TRAVEL), args.repeats)
    print(f"double-wishbone corner, load case over {len(TRAVEL)} positions (held by the travel driver)")
    print(f"  load case:                  {ours * 1e3:8.2f} ms (median of {args.repeats})")
    print(f"  parallel travel (bare):     {bare * 1e3:8.2f} ms")
    print(f"  ratio load case / sweep:    {ours / bare:8.2f}")
    print(f"  target < 10 ms: {'met' if ours < 1e-2 else 'NOT met'}")
    return {"load_case": ours, "bare": bare}


if __name__ == "__main__":
    main()
