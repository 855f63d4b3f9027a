"""MacPherson strut front corner (examples/macpherson.toml): camber, toe and strut motion
over +-80 mm of wheel travel.

The knuckle carries the damper tube; the piston rod slides and turns in it (a cylindrical
pair along the strut axis) and hangs on the top mount (a spherical pair), so the steering
axis runs from the lower ball joint to the top-mount centre. ``check()`` counts Grubler 3
= 1 degree of freedom + 2 passive freedoms: the spins of the piston rod and of the tie rod
about their own axes. Metrics from :mod:`loops.suspension` (ISO 8855 signs: camber
positive with the top of the wheel outboard, toe positive toe-in); the strut's motion
ratio is the strut shortening per unit of wheel bump, from the velocity solution.

Run::

    python examples/macpherson.py [--out DIR_OR_PNG]

writes ``macpherson.png`` into the current directory, or into ``--out`` (a directory,
or the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from loops.plotting import figure_path, plot_curves, save_figure
from loops.suspension import Corner, suspension_metrics
from mechanism import load_model

MODEL = Path(__file__).with_name("macpherson.toml")
CORNER = Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
                kingpin=("lower_ball", "top_mount"), wheel_radius=0.300, side="left",
                spring=("strut_top", "strut_base"))
TRAVEL = np.linspace(-0.080, 0.080, 161)  # m, 1 mm steps
MM = 1000.0


def analyse(model_path=MODEL):
    """Bump sweep with unit travel speed; returns a dict (SI, rad)."""
    corner = load_model(model_path)
    bump = corner.sweep({"travel": TRAVEL}, speeds={"travel": 1.0})
    return {
        "report": corner.check(),
        "travel": TRAVEL,
        "metrics": suspension_metrics(bump, CORNER),
        "strut_extension": bump.q("strut.1"),  # slide of the piston rod out of the tube
        "wheel_centre": bump.point("wheel_centre"),
    }


def plot(results, path):
    """Camber, toe, strut extension with motion ratio, and track change with roll-centre
    height, against wheel travel."""
    fig = Figure(figsize=(12, 8), layout="constrained")
    (ax_camber, ax_toe), (ax_strut, ax_track) = fig.subplots(2, 2)
    travel = results["travel"] * MM
    m = results["metrics"]
    middle = len(travel) // 2
    plot_curves(travel, {"camber": np.degrees(m["camber"])}, ax=ax_camber, x_label="wheel travel [mm] (+ bump)",
                y_label="camber [deg] (+ top outboard)",
                title=f"camber (gain {np.degrees(m['camber_gain'][middle]) / 100:+.4f} deg/10 mm at 0)")
    plot_curves(travel, {"toe": np.degrees(m["toe"])}, ax=ax_toe, x_label="wheel travel [mm] (+ bump)",
                y_label="toe [deg] (+ toe-in)",
                title=f"toe (bump steer {np.degrees(m['bump_steer'][middle]) / 100:+.4f} deg/10 mm at 0)")
    plot_curves(travel, {"strut extension": results["strut_extension"] * MM}, ax=ax_strut,
                x_label="wheel travel [mm] (+ bump)", y_label="strut extension [mm]",
                title="strut extension and motion ratio")
    ax_ratio = ax_strut.twinx()
    ax_ratio.plot(travel, m["motion_ratio"], color="tab:orange")
    ax_ratio.set_ylabel("motion ratio (strut / wheel)", color="tab:orange")
    plot_curves(travel, {"track change": m["track_change"] * MM}, ax=ax_track,
                x_label="wheel travel [mm] (+ bump)", y_label="track change at the contact patch [mm]",
                title="track change and roll-centre height")
    ax_height = ax_track.twinx()
    ax_height.plot(travel, m["roll_centre_height"] * MM, color="tab:orange")
    ax_height.set_ylabel("roll-centre height [mm]", color="tab:orange")
    fig.suptitle("MacPherson strut front-left corner")
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    r = analyse()
    print(r["report"])
    m = r["metrics"]
    print(f"{'travel':>8s} {'camber':>8s} {'toe':>8s} {'strut ext':>10s} {'motion':>8s} "
          f"{'track chg':>10s} {'RC height':>10s}")
    print(f"{'[mm]':>8s} {'[deg]':>8s} {'[deg]':>8s} {'[mm]':>10s} {'ratio':>8s} {'[mm]':>10s} {'[mm]':>10s}")
    for index in range(0, len(r["travel"]), 20):
        print(f"{r['travel'][index] * MM:8.0f} {np.degrees(m['camber'][index]):8.3f} "
              f"{np.degrees(m['toe'][index]):8.3f} {r['strut_extension'][index] * MM:10.2f} "
              f"{m['motion_ratio'][index]:8.4f} {m['track_change'][index] * MM:10.2f} "
              f"{m['roll_centre_height'][index] * MM:10.1f}")
    middle = len(r["travel"]) // 2
    print(f"kingpin inclination {np.degrees(m['kingpin_inclination'][middle]):.2f} deg, "
          f"castor {np.degrees(m['castor'][middle]):.2f} deg, scrub radius {m['scrub_radius'][middle] * MM:.1f} mm, "
          f"castor trail {m['castor_trail'][middle] * MM:.1f} mm at design height")
    r["png"] = plot(r, figure_path(args.out, "macpherson.png"))
    print(f"wrote {r['png']}")
    return r


if __name__ == "__main__":
    main()
