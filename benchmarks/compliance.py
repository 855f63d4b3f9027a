"""Compliance speed: the compliance analysis of an axle on 16 bushings, per position.

The shipped front axle on bushings (``examples/front_axle_bushings.toml``: two at each
wishbone's inner pivot) with its ball joints and tie-rod ends on bushings too (stiff in
translation, soft in rotation), mirrored: 16 bushings, 96 bushing freedoms. Timed: 41
wheel-travel positions from -60 to +60 mm of :func:`loops.suspension.compliance` (the
equilibria, then the linearised equilibrium's response to the ten unit loads and their
compliance steer, camber and stiffness), and in the same process the bare equilibria of the
same positions (:func:`loops.equilibrium`, what the analysis settles first) and the rigid
axle's parallel travel. Printed: medians of wall and processor time, the time per position and
the ratios. ``--compare-with DIR`` also times another checkout (a subprocess with DIR's
packages, this script's cases) and prints its processor medians and the speed-up. Target
(issue 26): under 1 ms per position.

Run: ``python benchmarks/compliance.py [--repeats 5] [--compare-with ../main]``
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

from loops import equilibrium
from loops.suspension import Suspension, compliance, corner_from_table, mirror_corner, parallel_travel
from loops.suspension.compliance import compliant_variant
from loops.suspension.files import read_tables
from loops.suspension.hardpoint_loads import WheelLoads, travel_drivers
from loops.suspension.load_cases import LoadCase
from timing import in_checkout, median_cpu_time, median_time  # benchmarks/timing.py (this folder is on the path)

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
TRAVEL = np.linspace(-0.060, 0.060, 41)
#: A ball joint or tie-rod end on rubber: 50 kN/mm along, 0.5 N m/deg about each axis (SI).
BALL = (5e7, 5e7, 5e7, 0.5 * 180 / np.pi, 0.5 * 180 / np.pi, 0.5 * 180 / np.pi)


def axle_on_sixteen_bushings():
    loaded, data = read_tables(EXAMPLES / "front_axle_bushings.toml")
    corner = corner_from_table(data["corner"], loaded.units, "corner")
    mechanism = loaded.mechanism
    for pair in ("lower_ball", "upper_ball", "steer_ball", "rack_end"):
        spec = next(p for p in mechanism.snapshot().declared() if p.name == pair)
        mechanism.add_bushing(f"{pair}_bush", spec.first, spec.second, at=spec.at, stiffness=BALL, replaces=pair)
    axle = Suspension.of_axle(mirror_corner(mechanism, corner), loaded.units)
    assert len(axle.model.bushings) == 16
    return axle


def compliance_times(repeats):
    """Medians (s) of the compliance analysis, the bare equilibria and the rigid parallel travel,
    wall and processor time, with this checkout's packages."""
    axle = axle_on_sixteen_bushings()
    variant = compliant_variant(axle)
    hubs = WheelLoads(variant, LoadCase("none", unit="N")).hubs
    drivers = travel_drivers(variant, TRAVEL)
    rigid = Suspension(axle.mechanism, axle.corners, axle.vehicle, axle.units, axle.name)
    rigid.mechanism.use_bushings(False)
    rigid = Suspension(rigid.mechanism, axle.corners, axle.vehicle, axle.units, axle.name)
    compliance(axle, TRAVEL)  # compile and warm up
    parallel_travel(rigid, TRAVEL)
    runs = {"compliance": lambda: compliance(axle, TRAVEL),
            "equilibria": lambda: equilibrium(variant.mechanism, drivers=drivers, hold=hubs),
            "rigid": lambda: parallel_travel(rigid, TRAVEL)}
    out = {"bushings": len(axle.model.bushings)}
    for key, run in runs.items():
        out[key] = median_time(run, repeats)
        out[key + "_cpu"] = median_cpu_time(run, repeats)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--compare-with", type=pathlib.Path, help="another checkout to time in the same run")
    args = parser.parse_args(argv)
    other = in_checkout(args.compare_with.resolve(), "__import__('compliance').compliance_times(int(sys.argv[3]))",
                        args.repeats) if args.compare_with else None
    ours = compliance_times(args.repeats)
    count = len(TRAVEL)
    print(f"front axle on {ours['bushings']} bushings, compliance over {count} positions, medians of {args.repeats}")
    print(f"  {'':28} {'wall':>9} {'processor':>10} {'per position':>13}" +
          (f" {'other processor':>16} {'speed-up':>8}" if other else ""))
    for label, key in (("compliance analysis", "compliance"), ("equilibria alone", "equilibria"),
                       ("rigid parallel travel", "rigid")):
        row = (f"  {label:28} {ours[key] * 1e3:6.2f} ms {ours[key + '_cpu'] * 1e3:7.2f} ms "
               f"{ours[key + '_cpu'] / count * 1e3:8.3f} ms")
        if other:
            row += f" {other[key + '_cpu'] * 1e3:13.2f} ms {other[key + '_cpu'] / ours[key + '_cpu']:7.2f}x"
        print(row)
    ratio = ours["compliance_cpu"] / ours["equilibria_cpu"]
    print(f"  ratio compliance / equilibria: {ratio:6.2f}; compliance / rigid sweep: "
          f"{ours['compliance_cpu'] / ours['rigid_cpu']:6.2f} (processor time)")
    print(f"  target < 1 ms per position: {'met' if ours['compliance'] / count < 1e-3 else 'NOT met'} (wall), "
          f"{'met' if ours['compliance_cpu'] / count < 1e-3 else 'NOT met'} (processor)")
    return {"ours": ours, "other": other}


if __name__ == "__main__":
    main()
