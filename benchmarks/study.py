"""Design-study speed: variants per second of a batched study against the obvious loop.

Case (issue 11): the double-wishbone corner (``examples/double_wishbone.toml``), every
hardpoint +-5 mm (uniform, seeded), 41 wheel-travel positions over +-80 mm with every metric
of the corner (parallel travel analysis). It prints the median over ``--repeats`` of

* ``run_study`` on ``--variants`` variants (the batched walk on every core, the workbench's
  metrics over all rows), and
* the obvious loop in the same run: for each of ``--loop-variants`` variants,
  ``Mechanism.moved`` + ``Suspension`` + ``parallel_travel`` (a model built, validated and
  compiled per variant, one sweep each),

as variants per second, and their ratio. Target: at least 5,000 variants per second on a
2-core machine. Also the largest difference between the two on the variants both ran
(metrics, relative to max(1, |value|), the instant-centre lengths left out: see
tests/test_study.py).

Run: ``python benchmarks/study.py [--variants 1000] [--loop-variants 40] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import os
import pathlib

import numpy as np

from timing import median_time  # benchmarks/timing.py (this script's folder is on the path)

ROOT = pathlib.Path(__file__).resolve().parent.parent
RATIOS = {"fvic_height", "fvsa_length", "svic_height", "svsa_length"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=1000)
    parser.add_argument("--loop-variants", type=int, default=40)
    parser.add_argument("--positions", type=int, default=41)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    from loops.study.coordinates import coordinates, moved_hardpoints
    from loops.study.study import run_study
    from loops.suspension import Suspension, parallel_travel
    from loops.suspension.files import load_suspension
    from mechanism.hardpoints import hardpoints_of

    susp = load_suspension(ROOT / "examples" / "double_wishbone.toml")
    names = [name for name, hp in hardpoints_of(susp.model).items() if hp.key != "axis"]
    coords = coordinates(susp.model, names)
    offsets = np.random.default_rng(2026).uniform(-0.005, 0.005, (args.variants, len(coords)))
    travel = np.linspace(-0.08, 0.08, args.positions)
    run_study(susp, coords, offsets[:2], travel=travel)  # load the kernels

    def batched():
        batched.result = run_study(susp, coords, offsets, travel=travel)

    def loop():
        loop.results = [parallel_travel(Suspension(susp.mechanism.moved(moved_hardpoints(coords, row)), susp.corners,
                                                   susp.vehicle, susp.units), travel)
                        for row in offsets[:args.loop_variants]]

    t_batch = median_time(batched, args.repeats)
    t_loop = median_time(loop, args.repeats)
    study = batched.result
    worst = 0.0
    for v, single in enumerate(loop.results):
        for name in study.metrics:
            if name in RATIOS:
                continue
            reference = single.metric(name)
            error = np.abs(reference - study.values(name)[v]) / np.maximum(1.0, np.abs(reference))
            worst = max(worst, float(np.max(error)))
    rate_batch = args.variants / t_batch
    rate_loop = args.loop_variants / t_loop
    metrics = len(study.metrics)
    print(f"double wishbone, {len(coords)} hardpoint coordinates +-5 mm, {args.positions} positions, {metrics} metrics "
          f"per position ({os.cpu_count()} cores; medians of {args.repeats})")
    print(f"  study      {args.variants:6d} variants  {t_batch:8.3f} s  {rate_batch:9.0f} variants/s  "
          f"{t_batch / (args.variants * args.positions) * 1e6:6.2f} us per variant-position")
    print(f"  loop       {args.loop_variants:6d} variants  {t_loop:8.3f} s  {rate_loop:9.1f} variants/s")
    print(f"  ratio (study / loop): x{rate_batch / rate_loop:.1f}; target 5000 variants/s "
          f"({'met' if rate_batch >= 5000 else 'not met'})")
    print(f"  stopped variants: {len(study.reasons)}; largest difference from the loop: {worst:.2g}")


if __name__ == "__main__":
    main()
