"""Spatial RSSR four-bar, as in a windscreen-wiper drive (examples/rssr.toml): rocker angle
against crank angle.

A motor crank (revolute about z) drives through a drag link with ball joints at both ends
a rocker on a skew pivot shaft. The crank turns fully; the rocker swings between two limit
positions, found to round-off by Newton's method on the sweep's rates (with a unit crank
speed, ``q_dot`` and ``q_ddot`` of the rocker pair are d/d(crank) and d2/d(crank)2).
``check()`` counts Grubler 2 = 1 degree of freedom + 1 passive freedom (the drag link's
spin about the line through its balls).

Run::

    python examples/rssr.py [--out DIR_OR_PNG]

writes ``rssr.png`` (rocker angle against crank angle; the linkage in 3D with the paths of
the two ball centres) into the current directory, or into ``--out`` (a directory, or the
name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from loops.extrema import stationary_points
from loops.plotting import figure_path, plot_curves, plot_snapshot, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("rssr.toml")
MM = 1000.0


def analyse(model_path=MODEL):
    """One crank turn in 1 deg steps with unit crank speed; returns a dict (SI, rad)."""
    wiper = load_model(model_path)
    crank = np.radians(np.arange(0.0, 361.0, 1.0))
    res = wiper.sweep({"crank_angle": crank}, speeds={"crank_angle": 1.0})
    rocker = res.q("rocker_angle")
    guesses = crank[[np.argmin(rocker), np.argmax(rocker)]]
    limits, at_limits = stationary_points(wiper, "crank_angle", "rocker_angle", guesses)
    link = np.linalg.norm(res.point("crank_pin") - res.point("rocker_pin"), axis=1)
    return {
        "report": wiper.check(),
        "result": res,
        "crank_angle": crank,
        "rocker_angle": rocker,
        "crank_at_rocker_limits": limits,
        "rocker_limits": at_limits.q("rocker_angle"),
        "rocker_swing": float(np.ptp(at_limits.q("rocker_angle"))),
        "drag_link_length": link,
    }


def plot(results, path):
    """Rocker angle against crank angle; the linkage in 3D at the design pose, with its shafts."""
    fig = Figure(figsize=(12, 5), layout="constrained")
    ax_curve = fig.add_subplot(1, 2, 1)
    ax_3d = fig.add_subplot(1, 2, 2, projection="3d")
    crank = np.degrees(results["crank_angle"])
    plot_curves(crank, {"rocker": np.degrees(results["rocker_angle"])}, ax=ax_curve,
                x_label="crank angle [deg]", y_label="rocker angle from the design pose [deg]",
                title=f"RSSR: rocker swing {np.degrees(results['rocker_swing']):.3f} deg")
    ax_curve.plot(np.degrees(results["crank_at_rocker_limits"]), np.degrees(results["rocker_limits"]), "kv")
    ax_curve.set_xticks(np.arange(0, 361, 60))
    res = results["result"]
    plot_snapshot(res, 0, ax=ax_3d, length_scale=MM, length_unit="mm", title="linkage at crank angle 0")
    for name, color in (("crank_pin", "tab:red"), ("rocker_pin", "tab:purple")):
        xyz = res.point(name) * MM
        ax_3d.plot(xyz[:, 0], xyz[:, 1], xyz[:, 2], color=color, linewidth=1)
    for pair in ("crank_angle", "rocker_angle"):  # the two shafts, 60 mm either side of the pivots
        spec = res.model.pair(pair)
        ends = (spec.at + np.outer([-0.06, 0.06], spec.axis)) * MM
        ax_3d.plot(ends[:, 0], ends[:, 1], ends[:, 2], color="k", linestyle="-.", linewidth=1)
    ax_3d.view_init(elev=20, azim=-60)
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    results = analyse()
    print(results["report"])
    lo, hi = np.degrees(results["rocker_limits"])
    at_lo, at_hi = np.degrees(results["crank_at_rocker_limits"])
    print(f"rocker limits {lo:+.4f} deg (crank {at_lo:.3f} deg) and {hi:+.4f} deg (crank {at_hi:.3f} deg): "
          f"swing {hi - lo:.4f} deg")
    length = results["drag_link_length"] * MM
    print(f"drag link {length.mean():.4f} mm, kept to {np.ptp(length):.1e} mm over the turn")
    results["png"] = plot(results, figure_path(args.out, "rssr.png"))
    print(f"wrote {results['png']}")
    return results


if __name__ == "__main__":
    main()
