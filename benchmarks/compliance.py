"""Compliance speed: the compliance analysis of an axle on 16 bushings, per position.

The shipped front axle on bushings (``examples/front_axle_bushings.toml``: two at each
wishbone's inner pivot) with its ball joints and tie-rod ends on bushings too (stiff in
translation, soft in rotation), mirrored: 16 bushings, 96 bushing freedoms. Timed: 41
wheel-travel positions from -60 to +60 mm of :func:`loops.suspension.compliance` (the
equilibria, then the linearised equilibrium's response to the ten unit loads and their
compliance steer, camber and stiffness), and in the same process the bare equilibria of the
same positions (:func:`loops.equilibrium`, what the analysis settles first) and the rigid
axle's parallel travel. Printed: medians, the time per position and the ratios. Target (issue
26): under 1 ms per position.

Run: ``python benchmarks/compliance.py [--repeats 5]``
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
from timing import median_time  # benchmarks/timing.py (this script's folder is on the path)

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    axle = axle_on_sixteen_bushings()
    variant = compliant_variant(axle)
    hubs = WheelLoads(variant, LoadCase("none", unit="N")).hubs
    drivers = travel_drivers(variant, TRAVEL)
    rigid = Suspension(axle.mechanism, axle.corners, axle.vehicle, axle.units, axle.name)
    rigid.mechanism.use_bushings(False)
    rigid = Suspension(rigid.mechanism, axle.corners, axle.vehicle, axle.units, axle.name)
    compliance(axle, TRAVEL)  # compile and warm up
    parallel_travel(rigid, TRAVEL)
    ours = median_time(lambda: compliance(axle, TRAVEL), args.repeats)
    settle = median_time(lambda: equilibrium(variant.mechanism, drivers=drivers, hold=hubs), args.repeats)
    sweep = median_time(lambda: parallel_travel(rigid, TRAVEL), args.repeats)
    count = len(TRAVEL)
    print(f"front axle on {len(axle.model.bushings)} bushings, compliance over {count} positions")
    print(f"  compliance analysis:        {ours * 1e3:8.2f} ms (median of {args.repeats}), "
          f"{ours / count * 1e3:6.3f} ms per position")
    print(f"  equilibria alone:           {settle * 1e3:8.2f} ms, {settle / count * 1e3:6.3f} ms per position")
    print(f"  rigid parallel travel:      {sweep * 1e3:8.2f} ms")
    print(f"  ratio compliance / equilibria: {ours / settle:6.2f}; compliance / rigid sweep: {ours / sweep:6.2f}")
    print(f"  target < 1 ms per position: {'met' if ours / count < 1e-3 else 'NOT met'}")
    return {"compliance": ours, "equilibria": settle, "rigid": sweep}


if __name__ == "__main__":
    main()
