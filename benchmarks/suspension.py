"""Suspension analysis speed: a parallel-travel analysis of the front axle with every metric.

``examples/front_axle.toml`` (a double-wishbone corner mirrored into an axle with one rack),
161 wheel-travel positions from -80 to +80 mm, every metric of both wheels and of the axle
(:func:`loops.suspension.parallel_travel`: one sweep, the velocity and acceleration
solutions along each wheel's travel and along the rack, the metrics as numpy over all
positions). Printed: the median time per position over the repeats, and in the same process

* the bare sweep of the same axle (positions, velocities, accelerations; no metrics), to
  show what the metrics add, and
* a baseline the way it is done by hand: the same sweep at travel - h, travel and travel + h
  and, position by position in Python, a dozen metrics per wheel from the positions, rates
  by finite differences,

with the ratio baseline / analysis. Target (issue 10): under 1 ms per position for the whole
axle on a 2-core machine. The machines are shared and noisy: the ratio is what carries over.

Run: ``python benchmarks/suspension.py [--repeats 7]``
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

from loops.suspension import load_suspension, parallel_travel
from timing import median_time  # benchmarks/timing.py (this script's folder is on the path)

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
TRAVEL = np.linspace(-0.080, 0.080, 161)
STEP = 1e-5  # m, the baseline's finite differences


def by_hand(mechanism, radius):
    """The baseline: three sweeps and a Python loop over the positions (camber, toe, castor,
    kingpin inclination, scrub, track change, wheel recession, roll-centre height, camber gain,
    bump steer, motion ratio per wheel)."""
    drivers = {side: f"travel_{side}" for side in ("left", "right")}
    runs = [mechanism.sweep({drivers["left"]: TRAVEL + shift, drivers["right"]: TRAVEL + shift, "rack_travel": 0.0})
            for shift in (-STEP, 0.0, STEP)]
    out = {}
    for side, outboard in (("left", 1.0), ("right", -1.0)):
        points = [{name: run.point(f"{name}_{side}") for name in ("wheel_centre", "hub_inner")} for run in runs]
        balls = [(run.pose(f"upright_{side}"), run.pose(f"lower_arm_{side}")) for run in runs]
        rows = []
        for i in range(len(TRAVEL)):
            values = []
            for k in range(3):
                centre, inner = points[k]["wheel_centre"][i], points[k]["hub_inner"][i]
                spin = (centre - inner) / np.linalg.norm(centre - inner)
                camber = -np.arcsin(spin[2])
                toe = np.arctan2(spin[0], outboard * spin[1])
                down = -(np.array([0, 0, 1.0]) - spin[2] * spin)
                patch = centre + radius * down / np.linalg.norm(down)
                upright, arm = balls[k][0][i], balls[k][1][i]
                lower = upright[:3, :3] @ np.array([0, outboard * 0.72, 0.1]) + upright[:3, 3]
                upper = upright[:3, :3] @ np.array([-0.01, outboard * 0.68, 0.44]) + upright[:3, 3]
                axis = (upper - lower) / np.linalg.norm(upper - lower)
                ground = lower + axis * (patch[2] - lower[2]) / axis[2]
                spring = np.linalg.norm(arm[:3, :3] @ np.array([0, outboard * 0.6, 0.13]) + arm[:3, 3]
                                        - np.array([-0.02, outboard * 0.56, 0.62]))
                values.append((camber, toe, np.arctan2(-axis[0], axis[2]), np.arctan2(-outboard * axis[1], axis[2]),
                               outboard * (patch[1] - ground[1]), patch, centre, spring))
            (c0, t0, *_, s0), (c1, t1, castor, kpi, scrub, patch, centre, s1), (c2, t2, *_, s2) = values
            patch_low, patch_high = values[0][5], values[2][5]
            velocity = (patch_high - patch_low) / (2 * STEP)
            height = outboard * patch[1] * velocity[1] / velocity[2]
            rows.append((c1, t1, castor, kpi, scrub, patch[1], centre[0], height, (c2 - c0) / (2 * STEP),
                         (t2 - t0) / (2 * STEP), -(s2 - s0) / (2 * STEP)))
        out[side] = np.array(rows)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    axle = load_suspension(EXAMPLES / "front_axle.toml")
    result = parallel_travel(axle, TRAVEL)  # compile and warm up
    count, columns = len(TRAVEL), len(result.metrics)
    mechanism = axle.mechanism
    drivers = {"travel_left": TRAVEL, "travel_right": TRAVEL, "rack_travel": 0.0}
    mechanism.sweep(drivers)
    by_hand(mechanism, axle.corners["left"].wheel_radius)

    ours = median_time(lambda: parallel_travel(axle, TRAVEL), args.repeats) / count
    bare = median_time(lambda: mechanism.sweep(drivers), args.repeats) / count
    baseline = median_time(lambda: by_hand(mechanism, axle.corners["left"].wheel_radius),
                           max(1, args.repeats // 2)) / count
    hand = by_hand(mechanism, axle.corners["left"].wheel_radius)
    agreement = np.abs(hand["left"][:, 0] - result.metric("camber_left")).max()
    print(f"front axle, parallel travel, {count} positions, {columns} columns (every metric, both wheels, axle)")
    print(f"  analysis with every metric: {ours * 1e6:8.1f} us per position (median of {args.repeats})")
    print(f"  the bare sweep alone:       {bare * 1e6:8.1f} us per position (metrics add "
          f"{(ours - bare) * 1e6:.1f} us)")
    print(f"  baseline by hand:           {baseline * 1e6:8.1f} us per position (3 sweeps, a Python loop, "
          "11 metrics per wheel, finite differences)")
    print(f"  ratio baseline / analysis:  {baseline / ours:8.1f}")
    print(f"  target < 1000 us per position: {'met' if ours < 1e-3 else 'NOT met'}; camber agrees with the "
          f"baseline to {agreement:.1e} rad")
    return {"per_position": ours, "bare": bare, "baseline": baseline}


if __name__ == "__main__":
    main()
