"""Two-panel solar array (examples/solar_array.toml) deploying on its torsion springs.

Released stowed and at rest, the hinge spring swings panel 2 open through straight while the
reaction turns panel 1 away from +y, and the root spring pulls it back. With no damping
(and no stops in the model) the hinge swings on nearly to folded the other way and back,
and the total energy stays what the springs held at the start (about 4.93 J).

Run::

    python examples/solar_array.py [--out DIR_OR_PNG]

writes ``solar_array.png`` (panel angles and energies against time, and the path of the
tip of panel 2) into the current directory, or into ``--out`` (a directory, or the name
of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from dynamics import simulate
from loops.plotting import figure_path, plot_curves, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("solar_array.toml")
T_END = 6.0  # s


def analyse(model_path=MODEL, t_end=T_END, samples=601):
    """Release from the stowed pose at rest; returns a dict of results (SI, rad)."""
    array = load_model(model_path)
    times = np.linspace(0.0, t_end, samples)
    sim = simulate(array, t_end=t_end, q0={"root": 0.0, "hinge": 0.0}, t_eval=times, rtol=1e-10)
    energy = sim.energy()
    hinge = sim.q("hinge")
    return {
        "report": array.check(),
        "result": sim,
        "t": sim.t,
        "panel1_angle": sim.q("root") + np.pi / 2,  # from +x; the design pose has panel 1 along +y
        "hinge_angle": hinge,                       # 0 folded, pi straight
        "tip": sim.point("tip"),
        "kinetic": energy.kinetic,
        "potential": energy.potential,
        "energy_drift": float(np.ptp(energy.total)),
        "widest_opening": float(hinge.max()),
        "time_of_widest_opening": float(sim.t[np.argmax(hinge)]),
    }


def plot(results, path):
    """Panel angles and energies against time; the tip's path in the plane."""
    fig = Figure(figsize=(11, 7), layout="constrained")
    grid = fig.add_gridspec(2, 2, width_ratios=[1.6, 1])
    ax_angles, ax_energy = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[1, 0])
    ax_tip = fig.add_subplot(grid[:, 1])
    t = results["t"]
    plot_curves(t, {"panel 1 from +x": np.degrees(results["panel1_angle"]),
                    "hinge (0 folded, 180 straight)": np.degrees(results["hinge_angle"])},
                ax=ax_angles, y_label="angle [deg]")
    ax_angles.axhline(180.0, color="0.6", linestyle=":", linewidth=1)
    plot_curves(t, {"kinetic": results["kinetic"], "spring potential": results["potential"],
                    "total": results["kinetic"] + results["potential"]},
                ax=ax_energy, x_label="t [s]", y_label="energy [J]")
    tip = results["tip"]
    ax_tip.plot(tip[:, 0], tip[:, 1], color="tab:red", linewidth=1)
    ax_tip.plot(*tip[0, :2], "o", color="tab:red")
    ax_tip.plot(0.0, 0.0, "k^", markersize=9)
    ax_tip.set(xlabel="x [m]", ylabel="y [m]", aspect="equal", title="tip of panel 2 (root: triangle)")
    ax_tip.grid(True, alpha=0.3)
    ax_angles.set_title(f"two-panel array released stowed: widest opening "
                        f"{np.degrees(results['widest_opening']):.2f} deg at "
                        f"t = {results['time_of_widest_opening']:.2f} s", fontsize="medium")
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    results = analyse()
    print(results["report"])
    total = results["kinetic"][0] + results["potential"][0]
    print(f"{'stored in the springs':>28s}  {total:.6f} J")
    print(f"{'widest opening of the hinge':>28s}  {np.degrees(results['widest_opening']):.4f} deg at "
          f"t = {results['time_of_widest_opening']:.3f} s")
    print(f"{'energy drift over':>22s} {T_END:.0f} s  {results['energy_drift']:.2e} J")
    results["png"] = plot(results, figure_path(args.out, "solar_array.png"))
    print(f"wrote {results['png']}")
    return results


if __name__ == "__main__":
    main()
