"""Main landing gear retracting with a folding side stay (examples/landing_gear.toml): knee
angle and wheel path while the retraction actuator pulls the gear up.

The leg hangs on a trunnion (revolute about the aircraft's x axis); the side stay is two
links joined by a knee, from a lug on the leg to the airframe; the retraction actuator
(cylinder and rod with a prismatic pair between them) joins the airframe to another lug
on the leg. The actuator is the driver: it shortens at a constant 100 mm/s from its
gear-down length (1118.0 mm) to its retracted length (600 mm), and the leg swings
inboard to 90 deg while the side stay folds. ``check()`` counts two planar loops:
Grubler 7 - 12 = -5 = 1 degree of freedom - 6 redundant constraints.

Run::

    python examples/landing_gear.py [--out DIR_OR_PNG] [--gif]

writes ``landing_gear.png`` (front view of the retraction with the wheel path; knee angle
against leg angle; leg angle and speed against time) into the current directory, or into
``--out`` (a directory, or the name of the PNG), and with ``--gif`` an animation
``landing_gear.gif`` beside it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from loops.plotting import animate_sweep, figure_path, plot_curves, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("landing_gear.toml")
RETRACTED_LENGTH = 0.600  # m, actuator eye to eye, gear up
ACTUATOR_SPEED = -0.100   # m/s, shortening
STEPS = 260
MM = 1000.0


def included_angle(apex, a, b):
    """Angle at ``apex`` between the directions to ``a`` and ``b`` (each (N, 3)), rad."""
    u, v = a - apex, b - apex
    return np.arctan2(np.linalg.norm(np.cross(u, v), axis=1), np.sum(u * v, axis=1))


def analyse(model_path=MODEL):
    """Retraction at constant actuator speed; returns a dict (SI, rad, s)."""
    gear = load_model(model_path)
    pairs = gear.pairs
    down_length = float(np.linalg.norm(pairs["actuator_end"].at - pairs["actuator_base"].at))
    stroke = np.linspace(0.0, RETRACTED_LENGTH - down_length, STEPS + 1)  # prismatic value: + extends
    res = gear.sweep({"actuator": stroke}, speeds={"actuator": ACTUATOR_SPEED})
    stay_hinge = np.broadcast_to(pairs["stay_hinge"].at, (len(stroke), 3))
    knee = included_angle(res.point("knee_pin"), stay_hinge, res.point("stay_pin"))
    return {
        "report": gear.check(),
        "result": res,
        "time": stroke / ACTUATOR_SPEED + 0.0,  # (+ 0.0: no "-0.0" at the start)
        "actuator_length": down_length + stroke,
        "leg_angle": res.q("trunnion"),
        "leg_speed": res.q_dot("trunnion"),
        "knee_angle": knee,               # included angle between the stays
        "knee_pair": res.q("knee"),       # the knee pair's value: change of that angle (folding +)
        "axle": res.point("axle"),
        "joints": {name: res.point(name) for name in ("knee_pin", "stay_pin", "actuator_lug")},
        "fixed": {name: pairs[name].at for name in ("trunnion", "stay_hinge", "actuator_base")},
        "retracted_angle": float(res.q("trunnion")[-1]),
    }


def plot(results, path):
    """Front view of the retraction with the wheel path; knee angle against leg angle; leg
    angle and speed against time."""
    fig = Figure(figsize=(13, 6), layout="constrained")
    grid = fig.add_gridspec(2, 2, width_ratios=[1.25, 1])
    ax_view = fig.add_subplot(grid[:, 0])
    ax_knee = fig.add_subplot(grid[0, 1])
    ax_time = fig.add_subplot(grid[1, 1])
    yz = {name: xyz[:, 1:] * MM for name, xyz in results["joints"].items()}
    fixed = {name: xyz[1:] * MM for name, xyz in results["fixed"].items()}
    axle = results["axle"][:, 1:] * MM
    count = len(axle)
    for k, index in enumerate(np.linspace(0, count - 1, 6).round().astype(int)):
        shade = str(0.7 - 0.7 * k / 5)
        leg = np.array([fixed["trunnion"], axle[index]])
        stay = np.array([fixed["stay_hinge"], yz["knee_pin"][index], yz["stay_pin"][index]])
        actuator = np.array([fixed["actuator_base"], yz["actuator_lug"][index]])
        ax_view.plot(*leg.T, color=shade, linewidth=4, solid_capstyle="round")
        ax_view.plot(*stay.T, "o-", color="tab:blue", alpha=0.35 + 0.13 * k, linewidth=2, markersize=4)
        ax_view.plot(*actuator.T, color="tab:green", alpha=0.35 + 0.13 * k, linewidth=2.5)
        ax_view.add_patch(Circle(tuple(axle[index]), 450.0, fill=False, edgecolor=shade, linewidth=1.5))  # tyre
        ax_view.annotate(f"{np.degrees(results['leg_angle'][index]):.0f}\N{DEGREE SIGN}", axle[index],
                         xytext=(8, -12), textcoords="offset points", fontsize="small")
    ax_view.plot(*axle.T, color="tab:red", linestyle="--", label="wheel (axle) path")
    ax_view.plot(*np.array(list(fixed.values())).T, "ks", markersize=6, label="airframe hinges")
    ax_view.plot([], [], color="tab:blue", label="side stay (upper, knee, lower)")
    ax_view.plot([], [], color="tab:green", label="retraction actuator")
    ax_view.set(xlabel="y, outboard [mm]", ylabel="z, up [mm]",
                title=f"retraction seen from the front: leg at 0 ... {np.degrees(results['retracted_angle']):.1f} deg")
    ax_view.set_aspect("equal", adjustable="datalim")
    ax_view.grid(True, alpha=0.3)
    ax_view.legend(loc="lower left", fontsize="small")
    plot_curves(np.degrees(results["leg_angle"]), {"knee": np.degrees(results["knee_angle"])}, ax=ax_knee,
                x_label="leg angle [deg] (0 down, 90 retracted)", y_label="knee included angle [deg]",
                title="side-stay knee folding")
    plot_curves(results["time"], {"leg angle [deg]": np.degrees(results["leg_angle"]),
                                  "leg speed [deg/s]": np.degrees(results["leg_speed"])}, ax=ax_time,
                x_label=f"time [s] (actuator shortening at {-ACTUATOR_SPEED * MM:.0f} mm/s)", y_label="",
                title="leg motion")
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    parser.add_argument("--gif", action="store_true", help="also write an animation (needs pillow)")
    args = parser.parse_args(argv)
    r = analyse()
    print(r["report"])
    print(f"{'time [s]':>9s} {'actuator [mm]':>14s} {'leg [deg]':>10s} {'knee [deg]':>11s} "
          f"{'axle y [mm]':>12s} {'axle z [mm]':>12s}")
    for index in range(0, len(r["time"]), 26):
        print(f"{r['time'][index]:9.2f} {r['actuator_length'][index] * MM:14.1f} "
              f"{np.degrees(r['leg_angle'][index]):10.3f} {np.degrees(r['knee_angle'][index]):11.3f} "
              f"{r['axle'][index, 1] * MM:12.1f} {r['axle'][index, 2] * MM:12.1f}")
    print(f"retracted: leg at {np.degrees(r['retracted_angle']):.9f} deg after {r['time'][-1]:.3f} s; "
          f"knee from {np.degrees(r['knee_angle'][0]):.3f} to {np.degrees(r['knee_angle'][-1]):.3f} deg")
    r["png"] = plot(r, figure_path(args.out, "landing_gear.png"))
    print(f"wrote {r['png']}")
    if args.gif:
        r["gif"] = animate_sweep(r["result"], r["png"].with_suffix(".gif"), points=["axle"],
                                 length_scale=MM, length_unit="mm", max_frames=40)
        print(f"wrote {r['gif']}")
    return r


if __name__ == "__main__":
    main()
