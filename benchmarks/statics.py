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

Numba's kernels are warmed before anything is timed; figures are medians of ``--repeats`` runs,
wall and processor time. ``--compare-with DIR`` also times another checkout (a subprocess with
DIR's packages, this script's cases) and prints its medians and the speed-up.

Run: ``python benchmarks/statics.py [--repeats 7] [--compare-with ../main]``
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

_HERE = pathlib.Path(__file__).resolve().parent
sys.path.append(str(_HERE))  # benchmarks/timing.py, after the packages (benchmarks/dynamics.py is no package)

from timing import in_checkout, median_cpu_time, median_time  # noqa: E402

EXAMPLES = _HERE.parent / "examples"
CORNER_LOAD = 400.0 * 9.81  # N, a quarter of a 1.6 t car
#: Targets (issue 26): the 41-position load case (s), the compliance analysis per position (s).
LOAD_CASE_TARGET, COMPLIANCE_TARGET = 0.010, 0.001


def loaded_corner(examples=EXAMPLES):
    from mechanism import load_model  # noqa: PLC0415 (the packages of the checkout timed)

    m = load_model(pathlib.Path(examples) / "double_wishbone.toml")
    m.add_spring_damper("coil", "lower_arm", (0.0, 0.600, 0.130), "ground", (0.0, 0.560, 0.650), stiffness=60000.0,
                        free_length=0.62)
    m.add_point_force("patch", "upright", at=(0.0, 0.780, 0.0), force=(0.0, -CORNER_LOAD, 1.2 * CORNER_LOAD))
    return m


def load_case_times(repeats, examples=EXAMPLES):
    """{name: median s}: equilibrium and reactions over 41 positions of a corner, the equilibrium
    alone, the kinematic sweep, and inverse dynamics with its reactions."""
    from dynamics import inverse_dynamics  # noqa: PLC0415
    from loops import equilibrium  # noqa: PLC0415

    m = loaded_corner(examples)
    travel = np.linspace(-0.08, 0.08, 41)
    everything = {"travel": travel, "hub": np.zeros(41)}
    runs = {"statics": lambda: equilibrium(m, drivers={"travel": travel}, hold=["hub"]).reactions(),
            "settle": lambda: equilibrium(m, drivers={"travel": travel}, hold=["hub"]),
            "kinematics": lambda: m.sweep({"travel": travel}, hold=["hub"]),
            "inverse": lambda: inverse_dynamics(m, everything).reactions()}
    for run in runs.values():
        run()
    out = {name: median_time(run, repeats) for name, run in runs.items()}
    out.update({f"{name}_cpu": median_cpu_time(run, repeats) for name, run in runs.items()})
    return out


def axle_on_bushings(examples=EXAMPLES):
    """The front axle with 16 bushings (per side: 2 per wishbone pivot, 1 per ball joint)."""
    from loops.suspension import load_suspension  # noqa: PLC0415

    m = load_suspension(pathlib.Path(examples) / "front_axle.toml").mechanism
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


def compliance_times(repeats, examples=EXAMPLES):
    """{name: median s}: equilibrium and compliance of the 16-bushing axle over 41 positions, and
    the rigid axle's kinematic sweep; with the free coordinates' count, stability and residual."""
    from loops import equilibrium, sweep  # noqa: PLC0415

    m = axle_on_bushings(examples)
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
    sweep(rigid, drivers, hold=hold)
    eq = equilibrium(m, drivers=drivers, hold=hold)
    return {"statics": median_time(statics, repeats), "statics_cpu": median_cpu_time(statics, repeats),
            "kinematics": median_time(lambda: sweep(rigid, drivers, hold=hold), repeats),
            "kinematics_cpu": median_cpu_time(lambda: sweep(rigid, drivers, hold=hold), repeats),
            "free": len(eq.free), "stable": bool(eq.stable.all()), "residual": float(eq.residual.max())}


def other_checkout(directory, repeats, load_case_only):
    """The cases' times with the packages of the checkout ``directory`` (a subprocess)."""
    statics = "__import__('statics')"
    return in_checkout(directory, f"[{statics}.load_case_times(int(sys.argv[3]), sys.argv[1] + '/examples'), None "
                                  f"if sys.argv[4] == '1' else {statics}.compliance_times(int(sys.argv[3]), "
                                  "sys.argv[1] + '/examples')]", repeats, "1" if load_case_only else "0")


def _row(label, ours, other, key, per=1):
    row = f"   {label:28} {ours[key] / per * 1e3:8.3f} ms {ours[key + '_cpu'] / per * 1e3:8.3f} ms"
    if other:
        row += f" {other[key] / per * 1e3:9.3f} ms {other[key] / ours[key]:7.2f}x"
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--load-case-only", action="store_true")
    parser.add_argument("--compare-with", type=pathlib.Path, help="another checkout to time in the same run")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(_HERE.parent))
    other = other_checkout(args.compare_with.resolve(), args.repeats, args.load_case_only) \
        if args.compare_with else (None, None)
    header = f"   {'':28} {'wall':>11} {'processor':>11}" + (f" {'other wall':>12} {'speed-up':>8}" if other[0] else "")
    ours = load_case_times(args.repeats)
    print(f"1. Load case over 41 positions of a corner (equilibrium and reactions), medians of {args.repeats}")
    print(header)
    for label, key in (("equilibrium + reactions", "statics"), ("equilibrium alone", "settle"),
                       ("kinematic sweep", "kinematics"), ("inverse dynamics + reactions", "inverse")):
        print(_row(label, ours, other[0], key))
    print(f"   ratio to the sweep {ours['statics'] / ours['kinematics']:.2f}; target < {LOAD_CASE_TARGET * 1e3:.0f} ms: "
          f"{'met' if ours['statics'] < LOAD_CASE_TARGET else 'NOT met'} (wall), "
          f"{'met' if ours['statics_cpu'] < LOAD_CASE_TARGET else 'NOT met'} (processor)")
    if args.load_case_only:
        return
    axle = compliance_times(args.repeats)
    print(f"2. Compliance of an axle on 16 bushings ({axle['free']} free coordinates), per position of 41 "
          "of parallel travel")
    print(header)
    print(_row("equilibrium + compliance", axle, other[1], "statics", 41))
    print(_row("rigid kinematic sweep", axle, other[1], "kinematics", 41))
    print(f"   target < {COMPLIANCE_TARGET * 1e3:.0f} ms per position: "
          f"{'met' if axle['statics'] / 41 < COMPLIANCE_TARGET else 'NOT met'} (wall), "
          f"{'met' if axle['statics_cpu'] / 41 < COMPLIANCE_TARGET else 'NOT met'} (processor); all stable: "
          f"{axle['stable']}, largest force residual {axle['residual']:.2g}")


if __name__ == "__main__":
    main()
