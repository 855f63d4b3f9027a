"""Crank-rocker four-bar (examples/four_bar.toml): the coupler curve of P over one crank turn.

The crank (100 mm) turns fully; the rocker (250 mm) swings between the two limit positions
where crank and coupler (300 mm) line up. The rocker's limit positions are found to
round-off by Newton's method on the sweep's own rates: with a unit crank speed,
``q_dot`` and ``q_ddot`` of the rocker pair are the first and second derivatives of the
rocker angle with respect to the crank angle.

Run::

    python examples/four_bar.py [--out DIR_OR_PNG] [--gif]

writes ``four_bar.png`` (coupler curve with the linkage at four crank angles; rocker
angle against crank angle) into the current directory, or into ``--out`` (a directory,
or the name of the PNG), and with ``--gif`` an animation ``four_bar.gif`` beside it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from loops.extrema import stationary_points
from loops.plotting import animate_sweep, figure_path, plot_curves, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("four_bar.toml")
MM = 1000.0  # m -> mm, for printing and plotting


def analyse(model_path=MODEL):
    """Sweep the crank through one turn (1 deg steps); returns a dict of results (SI, rad)."""
    four_bar = load_model(model_path)
    report = four_bar.check()
    crank = np.radians(np.arange(0.0, 361.0, 1.0))
    res = four_bar.sweep({"A": crank}, speeds={"A": 1.0})
    # D joins (rocker, ground): its value is minus the rocker's angle.
    rocker = -res.q("D")
    limits, at_limits = stationary_points(four_bar, "A", "D", crank[[np.argmin(rocker), np.argmax(rocker)]])
    pairs = four_bar.pairs
    joints = {}  # pair centres at every position: A, D on the ground, B on the crank, C on the rocker
    for name, link in (("B", "crank"), ("C", "rocker")):
        pose = res.pose(link)
        joints[name] = pose[:, :3, :3] @ pairs[name].at + pose[:, :3, 3]
    for name in ("A", "D"):
        joints[name] = np.broadcast_to(pairs[name].at, (len(crank), 3))
    coupler_curve = res.point("P")
    return {
        "report": report,
        "result": res,
        "crank_angle": crank,
        "rocker_angle": rocker,
        "coupler_curve": coupler_curve,
        "joints": joints,
        "closure_gap": float(np.linalg.norm(coupler_curve[-1] - coupler_curve[0])),
        "rocker_limits": -at_limits.q("D"),
        "crank_at_rocker_limits": limits,
        "rocker_swing": float(np.ptp(-at_limits.q("D"))),
    }


def plot(results, path):
    """Coupler curve with the linkage drawn at four crank angles; rocker angle vs crank angle."""
    fig = Figure(figsize=(11, 4.8), layout="constrained")
    ax_curve, ax_rocker = fig.subplots(1, 2, width_ratios=[1.4, 1])
    curve = results["coupler_curve"] * MM
    ax_curve.plot(curve[:, 0], curve[:, 1], color="tab:red", label="coupler curve of P")
    joints = {name: xyz * MM for name, xyz in results["joints"].items()}
    for color, index in zip(("tab:blue", "tab:green", "tab:purple", "tab:orange"), (0, 90, 180, 270)):
        chain = np.array([joints["A"][index], joints["B"][index], joints["C"][index], joints["D"][index]])
        coupler = np.array([joints["B"][index], curve[index], joints["C"][index]])
        ax_curve.plot(chain[:, 0], chain[:, 1], "o-", color=color, linewidth=1.2, markersize=4, alpha=0.8)
        ax_curve.fill(coupler[:, 0], coupler[:, 1], color=color, alpha=0.12)
        ax_curve.plot(*curve[index, :2], "o", color=color, markersize=5)
        ax_curve.annotate(f"{np.degrees(results['crank_angle'][index]):.0f}\N{DEGREE SIGN}", curve[index, :2],
                          textcoords="offset points", xytext=(5, 5), fontsize="small", color=color)
    ground = np.array([joints["A"][0], joints["D"][0]])
    ax_curve.plot(ground[:, 0], ground[:, 1], color="k", linewidth=3, label="ground")
    ax_curve.set(xlabel="x [mm]", ylabel="y [mm]", title="four-bar coupler curve (linkage at 0, 90, 180, 270 deg)")
    ax_curve.set_aspect("equal", adjustable="datalim")
    ax_curve.grid(True, alpha=0.3)
    ax_curve.legend(loc="lower right", fontsize="small")
    crank = np.degrees(results["crank_angle"])
    plot_curves(crank, {"rocker": np.degrees(results["rocker_angle"])}, ax=ax_rocker,
                x_label="crank angle [deg]", y_label="rocker angle from the design pose [deg]",
                title=f"rocker swing {np.degrees(results['rocker_swing']):.3f} deg")
    ax_rocker.plot(np.degrees(results["crank_at_rocker_limits"]), np.degrees(results["rocker_limits"]), "kv")
    ax_rocker.set_xticks(np.arange(0, 361, 60))
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    parser.add_argument("--gif", action="store_true", help="also write an animation (needs pillow)")
    args = parser.parse_args(argv)
    results = analyse()
    print(results["report"])
    lo, hi = np.degrees(results["rocker_limits"])
    print(f"coupler curve: {len(results['coupler_curve'])} positions, "
          f"gap after one turn {results['closure_gap'] * MM:.2e} mm")
    print(f"rocker limits {lo:+.4f} and {hi:+.4f} deg (crank at "
          f"{np.degrees(results['crank_at_rocker_limits'][0]):.3f} and "
          f"{np.degrees(results['crank_at_rocker_limits'][1]):.3f} deg): swing {hi - lo:.4f} deg")
    results["png"] = plot(results, figure_path(args.out, "four_bar.png"))
    print(f"wrote {results['png']}")
    if args.gif:
        results["gif"] = animate_sweep(results["result"], results["png"].with_suffix(".gif"), points=["P"],
                                       length_scale=MM, length_unit="mm", max_frames=36)
        print(f"wrote {results['gif']}")
    return results


if __name__ == "__main__":
    main()
