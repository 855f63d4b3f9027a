"""Offset slider-crank of an engine (examples/slider_crank.toml): piston position, velocity
and acceleration against crank angle at 3000 rpm.

Crank 50 mm, connecting rod 160 mm, piston pin offset 10 mm. The offset makes the stroke
slightly longer than twice the crank radius, ``sqrt((l + r)^2 - e^2) - sqrt((l - r)^2 - e^2)``,
and the two strokes unequal: top and bottom dead centre are not half a turn apart. The dead
centres are found to round-off by Newton's method on the sweep's own rates (with a unit
crank speed, ``q_dot`` and ``q_ddot`` of the cylinder pair are the first and second
derivatives of the piston travel with respect to the crank angle).

Crank angle: from the cylinder axis (crank pin straight up), counter-clockwise seen from
the front (+z). Piston position: height of the piston pin above the crank axis.

Run::

    python examples/slider_crank.py [--out DIR_OR_PNG]

writes ``slider_crank.png`` into the current directory, or into ``--out`` (a directory,
or the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from loops.extrema import stationary_points
from loops.plotting import figure_path, plot_curves, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("slider_crank.toml")
RPM = 3000.0
OMEGA = RPM * 2.0 * np.pi / 60.0  # rad/s
MM = 1000.0


def analyse(model_path=MODEL):
    """One crank turn in 0.5 deg steps at constant speed; returns a dict (SI, rad)."""
    engine = load_model(model_path)
    crank = np.radians(np.arange(0.0, 360.25, 0.5))
    res = engine.sweep({"crank_angle": crank}, speeds={"crank_angle": OMEGA})
    height = res.point("pin")[:, 1]
    # Dead centres: the highest and lowest samples, refined by Newton on the piston speed.
    guesses = crank[[np.argmax(height), np.argmin(height)]]
    (tdc, bdc), dead = stationary_points(engine, "crank_angle", "cylinder", guesses)
    top, bottom = dead.point("pin")[:, 1]
    tdc = np.mod(tdc, 2 * np.pi)
    down_stroke = np.mod(bdc - tdc, 2 * np.pi)  # crank angle from TDC to BDC
    return {
        "report": engine.check(),
        "crank_angle": crank,
        "piston_height": height,
        "piston_velocity": res.point_velocity("pin")[:, 1],
        "piston_acceleration": res.point_acceleration("pin")[:, 1],
        "tdc_crank_angle": float(tdc),
        "bdc_crank_angle": float(bdc),
        "tdc_height": float(top),
        "bdc_height": float(bottom),
        "stroke": float(top - bottom),
        "down_stroke_angle": float(down_stroke),
        "up_stroke_angle": float(2 * np.pi - down_stroke),
    }


def plot(results, path):
    """Piston position, velocity and acceleration against crank angle, dead centres marked."""
    fig = Figure(figsize=(7.5, 8), layout="constrained")
    axes = fig.subplots(3, 1, sharex=True)
    crank = np.degrees(results["crank_angle"])
    series = (
        ("piston pin above the crank axis [mm]", results["piston_height"] * MM),
        ("piston velocity [m/s]", results["piston_velocity"]),
        ("piston acceleration [km/s\N{SUPERSCRIPT TWO}]", results["piston_acceleration"] / 1000.0),
    )
    for ax, (label, values) in zip(axes, series):
        plot_curves(crank, {label: values}, ax=ax, y_label=label)
        for name in ("tdc", "bdc"):
            ax.axvline(np.degrees(results[f"{name}_crank_angle"]), color="0.5", linestyle=":", linewidth=1)
    axes[0].set_title(f"offset slider-crank at {RPM:.0f} rpm: stroke {results['stroke'] * MM:.4f} mm, "
                      f"TDC {np.degrees(results['tdc_crank_angle']):.3f} deg, "
                      f"BDC {np.degrees(results['bdc_crank_angle']):.3f} deg", fontsize="medium")
    axes[-1].set_xlabel("crank angle from the cylinder axis [deg]")
    axes[-1].set_xticks(np.arange(0, 361, 45))
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    results = analyse()
    print(results["report"])
    r = results
    print(f"{'crank speed':>28s}  {RPM:.0f} rpm ({OMEGA:.2f} rad/s)")
    print(f"{'top dead centre':>28s}  crank {np.degrees(r['tdc_crank_angle']):8.4f} deg, "
          f"pin {r['tdc_height'] * MM:.4f} mm")
    print(f"{'bottom dead centre':>28s}  crank {np.degrees(r['bdc_crank_angle']):8.4f} deg, "
          f"pin {r['bdc_height'] * MM:.4f} mm")
    print(f"{'stroke':>28s}  {r['stroke'] * MM:.6f} mm")
    print(f"{'TDC -> BDC / BDC -> TDC':>28s}  {np.degrees(r['down_stroke_angle']):.4f} / "
          f"{np.degrees(r['up_stroke_angle']):.4f} deg of crank")
    print(f"{'peak piston speed':>28s}  {np.abs(r['piston_velocity']).max():.3f} m/s")
    print(f"{'peak piston acceleration':>28s}  {np.abs(r['piston_acceleration']).max():.1f} m/s^2")
    results["png"] = plot(results, figure_path(args.out, "slider_crank.png"))
    print(f"wrote {results['png']}")
    return results


if __name__ == "__main__":
    main()
