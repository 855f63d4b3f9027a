"""Statics speed: a load case over a corner's travel, and a compliance analysis of an axle on bushings.

1. Load case over 41 positions of a corner (``examples/double_wishbone.toml`` with a coil-over,
   gravity and 1 g of cornering and 1.2 g of bump at the contact patch): the wheel travel held
   at 41 values from -80 to 80 mm, the rest settling (:func:`loops.equilibrium`), and the pair
   reactions at every position. Baseline in the same process: the kinematic sweep of the same
   positions (:meth:`Mechanism.sweep`) and the way hardpoint loads were had before, inverse
   dynamics with every freedom driven and its reactions. Target (issue 26): under 10 ms.
2. Compliance analysis of an axle on 16 bushings (``examples/front_axle.toml`` mirrored: per
   side the two wishbone pivots on two bushings each, the four ball joints on one bushing
   each, rates of a passenger car's): parallel travel at 41 positions with a lateral load at
   both patches, the equilibrium and its reduced stiffness (whose inverse is the compliance)
   at every position. Baseline: the rigid axle's kinematic sweep. Target: under 1 ms per
   position.

Numba's kernels are warmed before anything is timed; figures are medians of ``--repeats`` runs.

Run: ``python benchmarks/statics.py [--repeats 7]``
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

_HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))
sys.path.append(str(_HERE))  # benchmarks/timing.py, after the packages (benchmarks/dynamics.py is no package)

from timing import median_time  # noqa: E402

from dynamics import inverse_dynamics  # noqa: E402
from loops import equilibrium  # noqa: E402
from loops.suspension import load_suspension  # noqa: E402
from mechanism import load_model  # noqa: E402

EXAMPLES = _HERE.parent / "examples"
CORNER_LOAD = 400.0 * 9.81  # N, a quarter of a 1.6 t car


def loaded_corner():
    m = load_model(EXAMPLES / "double_wishbone.toml")
    m.add_spring_damper("coil", "lower_arm", (0.0, 0.600, 0.130), "ground", (0.0, 0.560, 0.650), stiffness=60000.0,
                        free_length=0.62)
    m.add_point_force("patch", "upright", at=(0.0, 0.780, 0.0), force=(0.0, -CORNER_LOAD, 1.2 * CORNER_LOAD))
    return m


def load_case(repeats):
    m = loaded_corner()
    travel = np.linspace(-0.08, 0.08, 41)
    everything = {"travel": travel, "hub": np.zeros(41)}

    def statics():
        equilibrium(m, drivers={"travel": travel}, hold=["hub"]).reactions()

    def settle():
        equilibrium(m, drivers={"travel": travel}, hold=["hub"])

    def kinematics():
        m.sweep({"travel": travel}, hold=["hub"])

    def inverse():
        inverse_dynamics(m, everything).reactions()

    for run in (statics, settle, kinematics, inverse):
        run()
    ours, alone, sweep_time, inverse_time = (median_time(run, repeats) for run in (statics, settle, kinematics,
                                                                                    inverse))
    print("1. Load case over 41 positions of a corner (equilibrium and reactions)")
    print(f"   equilibrium + reactions  {ours * 1e3:8.2f} ms   (target < 10 ms)")
    print(f"   equilibrium alone        {alone * 1e3:8.2f} ms   ratio to the sweep {alone / sweep_time:6.2f}")
    print(f"   kinematic sweep          {sweep_time * 1e3:8.2f} ms   ratio {ours / sweep_time:6.2f}")
    print(f"   inverse dynamics + reactions {inverse_time * 1e3:4.2f} ms   ratio {ours / inverse_time:6.2f}")


def axle_on_bushings():
    """The front axle with 16 bushings (per side: 2 per wishbone pivot, 1 per ball joint)."""
    m = load_suspension(EXAMPLES / "front_axle.toml").mechanism
    pivot = (2.0e6, 2.0e6, 0.4e6, 0.0, 800.0, 800.0)   # N/m, N m/rad: axial soft, no torsion
    ball = (5.0e7, 5.0e7, 5.0e7, 5.0, 5.0, 5.0)        # a stiff ball joint, a little friction
    pairs = m.pairs
    for side in ("left", "right"):
        for arm in ("lower", "upper"):
            pair = pairs[f"{arm}_inner_{side}"]
            axis = np.asarray(pair.axis) / np.linalg.norm(pair.axis)
            x = axis
            y = np.cross((0.0, 0.0, 1.0), x)
            y /= np.linalg.norm(y)
            for end, offset in (("front", 0.12), ("rear", -0.12)):
                m.add_bushing(f"{arm}_{end}_{side}", pair.first, pair.second, at=np.asarray(pair.at) + offset * axis,
                              axes=(x, y, np.cross(x, y)), stiffness=pivot, replaces=pair.name)
        for name in ("lower_ball", "upper_ball", "rack_end", "steer_ball"):
            pair = pairs[f"{name}_{side}"]
            m.add_bushing(f"{name}_b_{side}", pair.first, pair.second, at=pair.at, stiffness=ball,
                          replaces=pair.name)
    for side, sign in (("left", 1.0), ("right", -1.0)):
        m.add_point_force(f"patch_{side}", f"upright_{side}", at=(0.0, sign * 0.780, 0.0),
                          force=(0.0, -0.3 * CORNER_LOAD, 0.0))
    m.use_bushings(True)
    return m


def compliance(repeats):
    m = axle_on_bushings()
    travel = np.linspace(-0.06, 0.06, 41)
    drivers = {"travel_left": travel, "travel_right": travel}
    hold = ["rack_travel", "hub_left", "hub_right"]

    def statics():
        eq = equilibrium(m, drivers=drivers, hold=hold)
        np.linalg.inv(eq.stiffness)

    statics()
    m.use_bushings(False)
    rigid = m.snapshot()
    m.use_bushings(True)

    def kinematics():
        from loops import sweep  # noqa: PLC0415
        sweep(rigid, drivers, hold=hold)

    kinematics()
    eq = equilibrium(m, drivers=drivers, hold=hold)
    ours, sweep_time = median_time(statics, repeats), median_time(kinematics, repeats)
    print("2. Compliance of an axle on 16 bushings, 41 positions of parallel travel "
          f"({len(eq.free)} free coordinates)")
    print(f"   equilibrium + compliance {ours * 1e3:8.2f} ms, {ours / 41 * 1e3:6.3f} ms per position "
          "(target < 1 ms)")
    print(f"   rigid kinematic sweep    {sweep_time * 1e3:8.2f} ms   ratio {ours / sweep_time:6.2f}")
    print(f"   all stable: {bool(eq.stable.all())}, largest force residual {eq.residual.max():.2g}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--load-case-only", action="store_true")
    args = parser.parse_args(argv)
    load_case(args.repeats)
    if not args.load_case_only:
        compliance(args.repeats)


if __name__ == "__main__":
    main()
