"""Loaded centrifugal governor (examples/governor.toml) brought up to speed.

The spindle is driven at a constant 9 rad/s (a prescribed motion: the drive supplies
whatever torque that takes). Released from the design pose (arms 30 deg from the spindle)
at rest, the balls fly out and, with the damper in one arm pair, settle where the
centrifugal effect balances gravity on the balls and the sleeve. That steady angle is also
found here by statics: the arm angle at which the equations of motion give no arm
acceleration at the spindle speed (``dynamics.equations_of_motion``, a root in the arm
angle).

Run::

    python examples/governor.py [--out DIR_OR_PNG]

writes ``governor.png`` (arm angle and sleeve height against time, the drive's work) into
the current directory, or into ``--out`` (a directory, or the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from scipy.optimize import brentq

from dynamics import equations_of_motion, simulate
from loops.plotting import figure_path, plot_curves, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("governor.toml")
SPIN = 9.0               # rad/s, spindle speed
DESIGN = np.radians(30)  # arm angle from the downward spindle at the design pose
T_END = 10.0             # s


def steady_angle(governor, spin=SPIN):
    """Arm angle (rad from the downward spindle) at which the arms stay put at ``spin``:
    the arm's generalized force (``f`` of ``M u'' = f``) vanishes, arm rate zero."""
    def arm_force(arm):
        eom = equations_of_motion(governor, q={"arm1": arm - DESIGN, "spin": 0.0}, qd={"spin": spin})
        return eom.forces[eom.coordinates.index("arm1")]
    return brentq(arm_force, np.radians(10.0), np.radians(80.0), xtol=1e-14, rtol=1e-14)


def analyse(model_path=MODEL, spin=SPIN, t_end=T_END, samples=501):
    """Spin-up response and the steady angle; returns a dict of results (SI, rad)."""
    governor = load_model(model_path)
    times = np.linspace(0.0, t_end, samples)
    sim = simulate(governor, t_end=t_end, q0={"arm1": 0.0}, prescribed={"spin": lambda t: (spin * t, spin, 0.0)},
                   t_eval=times, rtol=1e-9)
    energy = sim.energy()
    arm = sim.q("arm1") + DESIGN
    return {
        "report": governor.check(),
        "result": sim,
        "t": sim.t,
        "arm_angle": arm,
        "other_arm_angle": sim.q("arm2") + DESIGN,
        "sleeve_height": sim.point("sleeve_centre")[:, 2],
        "driver_work": energy.driver_work,
        "dissipated": energy.dissipated,
        "energy_balance_drift": float(np.ptp(energy.balance)),
        "final_arm_angle": float(arm[-1]),
        "steady_arm_angle": float(steady_angle(governor, spin)),
    }


def plot(results, path):
    """Arm angle and sleeve height against time; the drive's work and the damper's share."""
    fig = Figure(figsize=(9, 8), layout="constrained")
    ax_arm, ax_sleeve, ax_work = fig.subplots(3, 1, sharex=True)
    t = results["t"]
    plot_curves(t, {"arm 1": np.degrees(results["arm_angle"]), "arm 2": np.degrees(results["other_arm_angle"])},
                ax=ax_arm, y_label="arm angle [deg]")
    ax_arm.axhline(np.degrees(results["steady_arm_angle"]), color="0.5", linestyle=":", linewidth=1,
                   label="steady angle (statics)")
    ax_arm.legend(fontsize="small")
    plot_curves(t, {"sleeve": results["sleeve_height"] * 1000.0}, ax=ax_sleeve, y_label="sleeve height [mm]",
                first_color=2)
    plot_curves(t, {"work of the drive": results["driver_work"], "dissipated by the damper": results["dissipated"]},
                ax=ax_work, x_label="t [s]", y_label="energy [J]", first_color=3)
    ax_arm.set_title(f"governor spun up to {SPIN:g} rad/s: arms settle at {np.degrees(results['final_arm_angle']):.4f} "
                     f"deg (statics: {np.degrees(results['steady_arm_angle']):.4f} deg)", fontsize="medium")
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    results = analyse()
    print(results["report"])
    print(f"{'spindle speed':>26s}  {SPIN:g} rad/s")
    print(f"{'arm angle after':>20s} {T_END:.0f} s  {np.degrees(results['final_arm_angle']):.6f} deg")
    print(f"{'steady angle (statics)':>26s}  {np.degrees(results['steady_arm_angle']):.6f} deg")
    print(f"{'work of the drive':>26s}  {results['driver_work'][-1]:.4f} J")
    results["png"] = plot(results, figure_path(args.out, "governor.png"))
    print(f"wrote {results['png']}")
    return results


if __name__ == "__main__":
    main()
