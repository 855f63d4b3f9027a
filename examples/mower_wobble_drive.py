"""Wobble-plate (swash-plate) knife drive of a mower (examples/mower_wobble_drive.toml):
oscillation of the rocker shaft and motion of the knife against the input shaft angle.

The input shaft turns about x and carries a journal tilted by 15 deg; the wobble ring turns
on the journal and is held by its trunnions in the fork of a vertical rocker shaft, so it
cannot spin (fork + trunnions form a Hooke joint). Its wobble rocks the fork by
``phi = -atan(tan(tilt) sin(theta))``: the oscillation amplitude equals the journal tilt.
An arm on the rocker shaft drives the knife through a drag link; the knife stroke is
``2 x arm x sin(tilt)`` because the drag link's small tilt is the same at both ends of
the stroke.

``check()``: 7 pair variables, 2 loops, Grubler ``7 - 12 = -5``; 1 degree of freedom with
6 redundant constraints (the wobble loop is spherical: all four axes meet at the ring
centre; the knife loop is planar).

Run::

    python examples/mower_wobble_drive.py [--out DIR_OR_PNG]

writes ``mower_wobble_drive.png`` into the current directory, or into ``--out`` (a
directory, or the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from loops.plotting import figure_path, plot_curves, plot_snapshot, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("mower_wobble_drive.toml")
RPM = 900.0  # input shaft (PTO-driven knife drive)
OMEGA = RPM * 2.0 * np.pi / 60.0
MM = 1000.0


def analyse(model_path=MODEL):
    """One input turn in 1 deg steps at RPM; returns a dict (SI, rad)."""
    drive = load_model(model_path)
    pairs = drive.pairs
    shaft, journal = pairs["input"].axis, pairs["journal"].axis
    tilt = float(np.arctan2(np.linalg.norm(np.cross(shaft, journal)), shaft @ journal))
    arm = float(np.linalg.norm((pairs["arm_pin"].at - pairs["rocker"].at)[:2]))  # normal to the rocker shaft
    theta = np.radians(np.arange(0.0, 361.0, 1.0))
    res = drive.sweep({"input": theta}, speeds={"input": OMEGA})
    rocker = res.q("rocker")
    knife = res.q("knife_guide")
    return {
        "report": drive.check(),
        "result": res,
        "tilt": tilt,
        "arm": arm,
        "input_angle": theta,
        "rocker_angle": rocker,
        "rocker_speed": res.q_dot("rocker"),
        "knife_position": knife,
        "knife_velocity": res.q_dot("knife_guide"),
        "knife_acceleration": res.q_ddot("knife_guide"),
        "amplitude": float(np.abs(rocker).max()),
        "stroke": float(np.ptp(knife)),
    }


def plot(results, path):
    """Rocker-shaft angle, and knife position and velocity, against the input angle; the drive in 3D."""
    fig = Figure(figsize=(13, 5.5), layout="constrained")
    grid = fig.add_gridspec(2, 2, width_ratios=[1.2, 1])
    ax_rocker = fig.add_subplot(grid[0, 0])
    ax_knife = fig.add_subplot(grid[1, 0], sharex=ax_rocker)
    ax_3d = fig.add_subplot(grid[:, 1], projection="3d")
    theta = np.degrees(results["input_angle"])
    tilt = np.degrees(results["tilt"])
    plot_curves(theta, {"rocker shaft": np.degrees(results["rocker_angle"])}, ax=ax_rocker,
                y_label="rocker shaft angle [deg]",
                title=f"wobble drive at {RPM:.0f} rpm: amplitude {np.degrees(results['amplitude']):.4f} deg "
                      f"= journal tilt {tilt:.1f} deg")
    for sign in (-1, 1):
        ax_rocker.axhline(sign * tilt, color="0.5", linestyle=":", linewidth=1)
    plot_curves(theta, {"knife position": results["knife_position"] * MM}, ax=ax_knife,
                x_label="input shaft angle [deg]", y_label="knife position [mm]",
                title=f"knife stroke {results['stroke'] * MM:.3f} mm, "
                      f"peak speed {np.abs(results['knife_velocity']).max():.2f} m/s")
    ax_speed = ax_knife.twinx()
    ax_speed.plot(theta, results["knife_velocity"], color="tab:orange")
    ax_speed.set_ylabel("knife velocity [m/s]", color="tab:orange")
    ax_knife.set_xticks(np.arange(0, 361, 45))
    res = results["result"]
    plot_snapshot(res, 90, ax=ax_3d, length_scale=MM, length_unit="mm",
                  title="drive at 90 deg input (fork at its limit)")
    ring = res.point("ring_top") * MM
    ax_3d.plot(*ring.T, color="tab:red", linewidth=1)
    ax_3d.view_init(elev=22, azim=-125)
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    r = analyse()
    print(r["report"])
    print(f"journal tilt {np.degrees(r['tilt']):.4f} deg, knife arm {r['arm'] * MM:.1f} mm, input {RPM:.0f} rpm")
    print(f"{'input [deg]':>12s} {'rocker [deg]':>13s} {'knife [mm]':>11s} {'knife [m/s]':>12s}")
    for index in range(0, 361, 30):
        print(f"{np.degrees(r['input_angle'][index]):12.0f} {np.degrees(r['rocker_angle'][index]):13.4f} "
              f"{r['knife_position'][index] * MM:11.3f} {r['knife_velocity'][index]:12.3f}")
    print(f"rocker amplitude {np.degrees(r['amplitude']):.6f} deg; knife stroke {r['stroke'] * MM:.4f} mm "
          f"(2 x arm x sin(tilt) = {2 * r['arm'] * np.sin(r['tilt']) * MM:.4f} mm); "
          f"{2 * RPM:.0f} strokes per minute")
    r["png"] = plot(r, figure_path(args.out, "mower_wobble_drive.png"))
    print(f"wrote {r['png']}")
    return r


if __name__ == "__main__":
    main()
