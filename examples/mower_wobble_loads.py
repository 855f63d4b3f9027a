"""Loads of the wobble-plate knife drive (examples/mower_wobble_drive.toml) over one turn at its
working speed: the input torque and the bearing, trunnion and guide loads.

The input shaft turns at a constant 900 rpm; :func:`dynamics.inverse_dynamics` gives the torque
it must take at every position (the inertia of the knife, fork, drag link, ring and shaft;
gravity does no work here: every centre of mass moves level or stays put) and
``.reactions()`` the force each pair transmits. Without dissipation the torque only trades
kinetic energy back and forth: its mean power over a turn is zero, and ``torque x speed =
d(kinetic energy)/dt`` at every position. The masses are the model file's plausible values
(a 4 kg sickle knife of a 2.1 m bar, a 1.6 kg fork with its arm), not from a drawing.

Run::

    python examples/mower_wobble_loads.py [--out DIR_OR_PNG]

prints the figures and writes ``mower_wobble_loads.png`` into the current directory, or into
``--out`` (a directory, or the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from dynamics import inverse_dynamics
from loops.plotting import figure_path, plot_curves, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("mower_wobble_drive.toml")
RPM = 900.0                                 # input shaft (PTO-driven knife drive), as mower_wobble_drive.py
OMEGA = RPM * 2.0 * np.pi / 60.0
STEP_DEG = 2.0                              # positions over a turn
#: The pairs whose loads are tabled: what each one is.
PAIRS = {"input": "input shaft bearing", "journal": "wobble bearing (journal)", "trunnion": "ring trunnions",
         "rocker": "rocker shaft bearing", "knife_guide": "knife guide"}


def analyse(model_path=MODEL, rpm=RPM, step_deg=STEP_DEG):
    """One turn at constant speed (dict, SI): torque (N m), reaction forces (N) and moments (N m)."""
    drive = load_model(model_path)
    omega = rpm * 2.0 * np.pi / 60.0
    theta = np.radians(np.arange(0.0, 360.0 + 0.5 * step_deg, step_deg))
    inv = inverse_dynamics(drive, {"input": theta}, speeds={"input": omega})
    reactions = inv.reactions()
    forces = {name: reactions.force(name) for name in PAIRS}
    return {"drive": drive, "result": inv, "omega": omega, "input_angle": theta, "torque": inv.force("input"),
            "power": inv.force("input") * omega, "knife_position": inv.q("knife_guide"),
            "forces": forces, "moments": {name: reactions.moment(name) for name in PAIRS},
            "peak_torque": float(np.abs(inv.force("input")).max()),
            "peak_force": {name: float(np.linalg.norm(f, axis=1).max()) for name, f in forces.items()}}


def plot(results, path):
    """Input torque and power; each pair's force magnitude over the turn."""
    fig = Figure(figsize=(12, 7.5), layout="constrained")
    ax_torque, ax_forces = fig.subplots(2, 1, sharex=True)
    theta = np.degrees(results["input_angle"])
    plot_curves(theta, {"input torque [N m]": results["torque"],
                        "knife position [mm]": results["knife_position"] * 1000.0}, ax=ax_torque,
                y_label="", title=f"wobble drive at {RPM:.0f} rpm: input torque (peak "
                                  f"{results['peak_torque']:.2f} N m; mean power over the turn "
                                  f"{np.mean(results['power'][:-1]):.1e} W)")
    plot_curves(theta, {f"{what} ({name})": np.linalg.norm(results["forces"][name], axis=1)
                        for name, what in PAIRS.items()}, ax=ax_forces,
                x_label="input shaft angle [deg]", y_label="force transmitted [N]", title="bearing and pair loads")
    ax_forces.set_xticks(np.arange(0, 361, 45))
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    r = analyse()
    print(f"wobble drive at {RPM:.0f} rpm, one turn in {STEP_DEG:g} deg steps")
    print(f"{'input [deg]':>11s} {'torque [N m]':>13s} " + " ".join(f"{name + ' [N]':>14s}" for name in PAIRS))
    for index in range(0, len(r["input_angle"]), 15):
        print(f"{np.degrees(r['input_angle'][index]):11.1f} {r['torque'][index]:13.3f} " + " ".join(
            f"{np.linalg.norm(r['forces'][name][index]):14.1f}" for name in PAIRS))
    print(f"peak input torque {r['peak_torque']:.3f} N m; mean input power over the turn "
          f"{np.mean(r['power'][:-1]):.2e} W (no dissipation)")
    print("peak loads: " + ", ".join(f"{PAIRS[name]} {value:.1f} N" for name, value in r["peak_force"].items()))
    r["png"] = plot(r, figure_path(args.out, "mower_wobble_loads.png"))
    print(f"wrote {r['png']}")
    return r


if __name__ == "__main__":
    main()
