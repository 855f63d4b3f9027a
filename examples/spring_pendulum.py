"""Elastic pendulum (examples/spring_pendulum.toml): a mass on a spring, swinging.

Released at 0.4 rad from the vertical, the spring stretched 0.2 m beyond its design length,
with a small swing rate (0.3 rad/s), the bob swings (period near 2 pi sqrt(1.245 m / g) =
2.2 s) and bounces on the spring (2 pi sqrt(m / k) = 1 s); the two motions exchange energy
through the changing length and the centrifugal pull, while the total stays constant (no
damping).

Run::

    python examples/spring_pendulum.py [--out DIR_OR_PNG]

writes ``spring_pendulum.png`` (swing angle and stretch against time, the bob's path) into
the current directory, or into ``--out`` (a directory, or the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from dynamics import simulate
from loops.plotting import figure_path, plot_curves, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("spring_pendulum.toml")
T_END = 10.0  # s
START = {"theta": 0.4, "r": 0.2}  # rad, m beyond the design length of 1 m
START_RATES = {"theta": 0.3}      # rad/s


def analyse(model_path=MODEL, t_end=T_END, samples=1001):
    """The swing from START; returns a dict of results (SI, rad)."""
    pendulum = load_model(model_path)
    times = np.linspace(0.0, t_end, samples)
    sim = simulate(pendulum, t_end=t_end, q0=START, qd0=START_RATES, t_eval=times, rtol=1e-10)
    energy = sim.energy()
    length = 1.0 + sim.q("r")
    return {
        "report": pendulum.check(),
        "result": sim,
        "t": sim.t,
        "theta": sim.q("theta"),
        "length": length,
        "bob": sim.point("bob"),
        "total_energy": energy.total,
        "energy_drift": float(np.ptp(energy.total)),
        "longest": float(length.max()),
        "shortest": float(length.min()),
        "widest_swing": float(np.abs(sim.q("theta")).max()),
    }


def plot(results, path):
    """Swing angle and spring length against time; the bob's path."""
    fig = Figure(figsize=(11, 6), layout="constrained")
    grid = fig.add_gridspec(2, 2, width_ratios=[1.6, 1])
    ax_theta, ax_length = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[1, 0])
    ax_path = fig.add_subplot(grid[:, 1])
    t = results["t"]
    plot_curves(t, {"swing angle": np.degrees(results["theta"])}, ax=ax_theta, y_label="theta [deg]")
    plot_curves(t, {"spring length": results["length"]}, ax=ax_length, x_label="t [s]", y_label="r [m]",
                first_color=1)
    bob = results["bob"]
    ax_path.plot(bob[:, 0], bob[:, 1], color="tab:red", linewidth=0.8)
    ax_path.plot(*bob[0, :2], "o", color="tab:red")
    ax_path.plot(0.0, 0.0, "k^", markersize=9)
    ax_path.set(xlabel="x [m]", ylabel="y [m]", aspect="equal", title="path of the bob (pivot: triangle)")
    ax_path.grid(True, alpha=0.3)
    ax_theta.set_title(f"elastic pendulum: spring between {results['shortest']:.3f} and {results['longest']:.3f} m, "
                       f"energy drift {results['energy_drift']:.1e} J", fontsize="medium")
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    results = analyse()
    print(results["report"])
    print(f"{'widest swing':>24s}  {np.degrees(results['widest_swing']):.4f} deg")
    print(f"{'spring length':>24s}  {results['shortest']:.6f} .. {results['longest']:.6f} m")
    print(f"{'energy drift over':>18s} {T_END:.0f} s  {results['energy_drift']:.2e} J")
    results["png"] = plot(results, figure_path(args.out, "spring_pendulum.png"))
    print(f"wrote {results['png']}")
    return results


if __name__ == "__main__":
    main()
