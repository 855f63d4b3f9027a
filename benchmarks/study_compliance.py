"""Compliance-study speed: variants per second of a design study of the compliance analysis.

Case (issue 26): the shipped front axle on bushings (``examples/front_axle_bushings.toml``),
six parameters varied uniformly (seeded): the lower pivot's height and the upper pivot's x
(each carrying its bushings), the lower ball joint's height, the steering ball's y (+-5 mm),
and two bushing rates (+-1000 N/mm radial, +-200 N/mm axial);
the compliance analysis at 13 wheel travels over +-60 mm, every variant its own model (a
moved copy, compiled, its statics set up, its equilibria and their linearised response).
Printed: medians of wall and processor time of ``run_study`` over ``--variants`` variants (the
first, nominal, model's set-up made before the clock starts, as a study's first variant
makes it), per variant, and with ``--compare-with DIR`` the same case in another checkout (a
subprocess with DIR's packages) and the speed-up in processor time, and whether the two
studies' numbers are the same to the bit. BLAS on one thread, as the command line runs it
(``dynamics.cli``: the matrices are small and threads only contend for the cores).

Run: ``python benchmarks/study_compliance.py [--variants 40] [--repeats 3] [--compare-with ../main]``
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads, as the command line
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import hashlib  # noqa: E402
import pathlib  # noqa: E402

import numpy as np  # noqa: E402

from timing import in_checkout, median_cpu_time, median_time  # noqa: E402 (benchmarks/timing.py)

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
NAMES = ["lower_inner_left.z", "upper_inner_left.x", "lower_ball_left.z", "steer_ball_left.y",
         "lower_front_left.ky", "upper_rear_left.kx"]
SPREAD = np.array([0.005, 0.005, 0.005, 0.005, 1e6, 2e5])  # m, m, m, m, N/m, N/m
TRAVEL = np.linspace(-0.060, 0.060, 13)


def study_times(variants, repeats):
    """Medians (s, wall and processor) of the compliance study, and a digest of its numbers."""
    from loops.study.study import run_study  # noqa: PLC0415
    from loops.suspension import load_suspension  # noqa: PLC0415

    axle = load_suspension(EXAMPLES / "front_axle_bushings.toml")
    offsets = np.random.default_rng(2026).uniform(-1.0, 1.0, (variants, len(NAMES))) * SPREAD
    run_study(axle, NAMES, np.zeros((1, len(NAMES))), analysis="compliance", travel=TRAVEL)  # compile, set up

    def run():
        run.result = run_study(axle, NAMES, offsets, analysis="compliance", travel=TRAVEL)

    wall, cpu = median_time(run, repeats), median_cpu_time(run, repeats)
    digest = hashlib.sha256()
    for name in sorted(run.result.metrics):
        digest.update(np.ascontiguousarray(run.result.values(name)).tobytes())
    return {"wall": wall, "cpu": cpu, "stopped": len(run.result.reasons), "digest": digest.hexdigest()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compare-with", type=pathlib.Path, help="another checkout to time in the same run")
    args = parser.parse_args(argv)
    other = in_checkout(args.compare_with.resolve(), "__import__('study_compliance').study_times(int(sys.argv[3]), "
                        "int(sys.argv[4]))", args.variants, args.repeats) if args.compare_with else None
    ours = study_times(args.variants, args.repeats)
    print(f"front axle on bushings, compliance study of {args.variants} variants x {len(TRAVEL)} positions, "
          f"{len(NAMES)} parameters (medians of {args.repeats}; BLAS threads "
          f"{os.environ['OPENBLAS_NUM_THREADS']})")
    print(f"  this checkout   {ours['wall']:7.3f} s wall  {ours['cpu']:7.3f} s processor  "
          f"{ours['cpu'] / args.variants * 1e3:7.2f} ms per variant  stopped {ours['stopped']}")
    if other:
        print(f"  other checkout  {other['wall']:7.3f} s wall  {other['cpu']:7.3f} s processor  "
              f"{other['cpu'] / args.variants * 1e3:7.2f} ms per variant  stopped {other['stopped']}")
        print(f"  speed-up (processor): x{other['cpu'] / ours['cpu']:.2f}; numbers the same to the bit: "
              f"{'yes' if other['digest'] == ours['digest'] else 'NO'}")
    return {"ours": ours, "other": other}


if __name__ == "__main__":
    main()
