"""Cardan (Hooke) joint in a drive line bent by 30 deg (examples/hooke_joint.toml): output
shaft angle and velocity ratio against input shaft angle.

A single Cardan joint does not transmit a uniform rotation. With the input yoke's pin in
the plane of the shafts at zero input angle, ``tan(output) = tan(input) / cos(beta)``;
the speed ratio swings between ``cos(beta)`` and ``1 / cos(beta)`` twice per turn, and the
output runs ahead of or behind the input by up to ``atan((1 - cos b) / (2 sqrt(cos b)))``
(4.12 deg at 30 deg). That is why drive shafts use two joints in phase.

Run::

    python examples/hooke_joint.py [--out DIR_OR_PNG]

writes ``hooke_joint.png`` into the current directory, or into ``--out`` (a directory, or
the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from loops.plotting import figure_path, plot_curves, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("hooke_joint.toml")


def shaft_angle(mechanism):
    """Angle between the two shafts, from the bearing axes of the model (rad)."""
    pairs = mechanism.pairs
    a, b = pairs["input"].axis, pairs["output"].axis
    return float(np.arctan2(np.linalg.norm(np.cross(a, b)), a @ b))


def analyse(model_path=MODEL):
    """One input turn in 1 deg steps with unit input speed; returns a dict (rad)."""
    driveline = load_model(model_path)
    beta = shaft_angle(driveline)
    angle_in = np.radians(np.arange(0.0, 361.0, 1.0))
    res = driveline.sweep({"input": angle_in}, speeds={"input": 1.0})
    angle_out = res.q("output")
    ratio = res.q_dot("output") / res.q_dot("input")
    lag = angle_out - angle_in
    return {
        "report": driveline.check(),
        "shaft_angle": beta,
        "input_angle": angle_in,
        "output_angle": angle_out,
        "velocity_ratio": ratio,
        "cross_angles": res.q("cross"),  # (N, 2): about the input pin, about the output pin
        "ratio_min": float(ratio.min()),
        "ratio_max": float(ratio.max()),
        "angle_error_max": float(np.abs(lag).max()),
    }


def plot(results, path):
    """Output angle minus input angle, and the velocity ratio, against the input angle."""
    fig = Figure(figsize=(7.5, 6.5), layout="constrained")
    ax_angle, ax_ratio = fig.subplots(2, 1, sharex=True)
    angle_in = np.degrees(results["input_angle"])
    beta = results["shaft_angle"]
    plot_curves(angle_in, {"output - input": np.degrees(results["output_angle"]) - angle_in}, ax=ax_angle,
                y_label="output angle - input angle [deg]",
                title=f"Cardan joint at {np.degrees(beta):.0f} deg: output angle and velocity ratio")
    plot_curves(angle_in, {"output / input speed": results["velocity_ratio"]}, ax=ax_ratio,
                x_label="input shaft angle [deg]", y_label="velocity ratio (output / input)")
    for value, label, at, offset in ((np.cos(beta), "cos \N{GREEK SMALL LETTER BETA}", 180, 4),
                                     (1.0 / np.cos(beta), "1 / cos \N{GREEK SMALL LETTER BETA}", 90, -12)):
        ax_ratio.axhline(value, color="0.5", linestyle=":", linewidth=1)
        ax_ratio.annotate(f"{label} = {value:.4f}", (at, value), xytext=(0, offset), textcoords="offset points",
                          ha="center", fontsize="small", color="0.3")
    ax_ratio.set_xticks(np.arange(0, 361, 45))
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    results = analyse()
    print(results["report"])
    beta = results["shaft_angle"]
    print(f"shaft angle {np.degrees(beta):.3f} deg")
    print(f"{'input [deg]':>12s} {'output [deg]':>13s} {'ratio':>8s}")
    for index in range(0, 181, 15):
        print(f"{np.degrees(results['input_angle'][index]):12.1f} "
              f"{np.degrees(results['output_angle'][index]):13.4f} {results['velocity_ratio'][index]:8.5f}")
    print(f"velocity ratio from {results['ratio_min']:.6f} (cos beta = {np.cos(beta):.6f}) "
          f"to {results['ratio_max']:.6f} (1/cos beta = {1 / np.cos(beta):.6f}); "
          f"largest angle error {np.degrees(results['angle_error_max']):.4f} deg")
    results["png"] = plot(results, figure_path(args.out, "hooke_joint.png"))
    print(f"wrote {results['png']}")
    return results


if __name__ == "__main__":
    main()
