"""Double-wishbone front corner (examples/double_wishbone.toml): camber, toe and bump steer
over +-80 mm of wheel travel, and the same corner steered by its rack
(examples/double_wishbone_steer.toml).

Wheel travel is the point driver ``travel`` (vertical motion of the wheel centre); the
metrics come from :mod:`loops.suspension` (ISO 8855 signs: camber positive with the top of
the wheel outboard, toe positive toe-in, bump steer = d(toe)/d(travel), positive when the
wheel toes in as it rises). Rates such as camber gain and bump steer come from the
velocity solution, not from differences.

Run::

    python examples/double_wishbone.py [--out DIR_OR_PNG]

writes ``double_wishbone.png`` into the current directory, or into ``--out`` (a
directory, or the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from loops.plotting import figure_path, plot_curves, save_figure
from loops.suspension import Corner, suspension_metrics
from mechanism import load_model

HERE = Path(__file__).parent
MODEL = HERE / "double_wishbone.toml"
STEER_MODEL = HERE / "double_wishbone_steer.toml"
CORNER = Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                kingpin=("lower_ball", "upper_ball"), wheel_radius=0.300, side="left")
TRAVEL = np.linspace(-0.080, 0.080, 161)    # m, 1 mm steps
RACK_OFFSETS = (-0.020, 0.0, 0.020)         # m, steered positions for bump steer
RACK = np.linspace(-0.060, 0.060, 121)      # m, steering sweep at design height
MM = 1000.0


def analyse(model_path=MODEL, steer_model_path=STEER_MODEL):
    """Bump sweep of the corner; bump sweeps of the steered corner at three rack positions;
    a steering sweep. Returns a dict (SI, rad)."""
    corner = load_model(model_path)
    bump = corner.sweep({"travel": TRAVEL}, speeds={"travel": 1.0})
    metrics = suspension_metrics(bump, CORNER)

    steered = load_model(steer_model_path)
    toe_at_rack = {}
    for rack in RACK_OFFSETS:
        res = steered.sweep({"travel": TRAVEL, "rack_travel": rack}, speeds={"travel": 1.0})
        toe_at_rack[rack] = suspension_metrics(res, CORNER)["toe"]
    steering = steered.sweep({"rack_travel": RACK, "travel": 0.0}, speeds={"rack_travel": 1.0})
    steer_metrics = suspension_metrics(steering, CORNER)
    return {
        "report": corner.check(),
        "steer_report": steered.check(),
        "travel": TRAVEL,
        "metrics": metrics,
        "wheel_centre": bump.point("wheel_centre"),
        "toe_at_rack": toe_at_rack,
        "rack": RACK,
        "toe_vs_rack": steer_metrics["toe"],
        "kingpin_inclination_vs_rack": steer_metrics["kingpin_inclination"],
    }


def plot(results, path):
    """Camber, toe (at three rack positions), track change and roll-centre height against
    travel; toe against rack travel."""
    fig = Figure(figsize=(12, 8), layout="constrained")
    (ax_camber, ax_toe), (ax_track, ax_steer) = fig.subplots(2, 2)
    travel = results["travel"] * MM
    m = results["metrics"]
    plot_curves(travel, {"camber": np.degrees(m["camber"])}, ax=ax_camber, x_label="wheel travel [mm] (+ bump)",
                y_label="camber [deg] (+ top outboard)", title="camber")
    middle = len(travel) // 2  # travel 0
    plot_curves(travel, {f"rack {rack * MM:+.0f} mm (toe {np.round(np.degrees(toe[middle]), 2) + 0.0:+.2f} deg at 0)":
                         np.degrees(toe - toe[middle]) for rack, toe in results["toe_at_rack"].items()},
                ax=ax_toe, x_label="wheel travel [mm] (+ bump)", y_label="toe change [deg] (+ toe-in)",
                title=f"toe change; bump steer {np.degrees(m['bump_steer'][middle]) / 100:+.4f} deg/10 mm at 0")
    plot_curves(travel, {"track change": m["track_change"] * MM}, ax=ax_track,
                x_label="wheel travel [mm] (+ bump)", y_label="track change at the contact patch [mm]",
                title="track change and roll-centre height")
    ax_height = ax_track.twinx()
    ax_height.plot(travel, m["roll_centre_height"] * MM, color="tab:orange")
    ax_height.set_ylabel("roll-centre height [mm]", color="tab:orange")
    plot_curves(results["rack"] * MM, {"toe": np.degrees(results["toe_vs_rack"])}, ax=ax_steer,
                x_label="rack travel [mm] (+ toward this wheel)", y_label="toe [deg] (+ toe-in)",
                title="steering at design height")
    fig.suptitle("double-wishbone front-left corner")
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    r = analyse()
    print(r["report"])
    m = r["metrics"]
    print(f"{'travel':>8s} {'camber':>8s} {'toe':>8s} {'camber gain':>12s} {'bump steer':>11s} "
          f"{'track chg':>10s} {'RC height':>10s}")
    print(f"{'[mm]':>8s} {'[deg]':>8s} {'[deg]':>8s} {'[deg/10mm]':>12s} {'[deg/10mm]':>11s} "
          f"{'[mm]':>10s} {'[mm]':>10s}")
    for index in range(0, len(r["travel"]), 20):
        print(f"{r['travel'][index] * MM:8.0f} {np.degrees(m['camber'][index]):8.3f} "
              f"{np.degrees(m['toe'][index]):8.3f} {np.degrees(m['camber_gain'][index]) / 100:12.4f} "
              f"{np.degrees(m['bump_steer'][index]) / 100:11.4f} {m['track_change'][index] * MM:10.2f} "
              f"{m['roll_centre_height'][index] * MM:10.1f}")
    print(f"kingpin inclination {np.degrees(m['kingpin_inclination'][80]):.2f} deg, "
          f"castor {np.degrees(m['castor'][80]):.2f} deg, scrub radius {m['scrub_radius'][80] * MM:.1f} mm "
          "at design height")
    toe = r["toe_vs_rack"]
    print(f"steering: rack {r['rack'][0] * MM:+.0f} mm -> toe {np.degrees(toe[0]):+.2f} deg, "
          f"rack {r['rack'][-1] * MM:+.0f} mm -> toe {np.degrees(toe[-1]):+.2f} deg")
    r["png"] = plot(r, figure_path(args.out, "double_wishbone.png"))
    print(f"wrote {r['png']}")
    return r


if __name__ == "__main__":
    main()
