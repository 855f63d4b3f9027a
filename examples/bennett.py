"""Bennett linkage (examples/bennett.toml): an overconstrained spatial 4R loop that moves.

Four revolute pairs in a loop count Grubler-Kutzbach ``4 - 6 = -2``: as a general spatial
loop it would be a structure. Bennett's proportions (opposite links equal, a = 0.3 m with
twist alpha, b = 0.2 m with twist beta, a / sin(alpha) = b / sin(beta)) make three of the
six closure equations dependent, and ``check()`` finds one degree of freedom with three
redundant constraints. The joint angles obey Bennett's relations
``t3 = -t1``, ``t4 = -t2`` and ``tan(t1/2) tan(t2/2) = sin((beta + alpha)/2) / sin((beta - alpha)/2)``.

The model is written by link shapes (Denavit-Hartenberg frames, ``frame_on_first`` /
``frame_on_second``); loading it closes the loop from ``[assemble.guess]``, and the pair
values are the DH joint angles.

Run::

    python examples/bennett.py [--out DIR_OR_PNG]

writes ``bennett.png`` (joint angles against the driving angle; the linkage in 3D with
the path of a coupler point) into the current directory, or into ``--out`` (a directory,
or the name of the PNG).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from loops.plotting import figure_path, plot_curves, plot_snapshot, save_figure
from mechanism import load_model

MODEL = Path(__file__).with_name("bennett.toml")


def link_shape(mechanism, pair):
    """Length (m) and twist (rad) of the link that carries ``pair``'s first frame: the
    translation and the rotation about x of ``frame_on_first`` (a DH link matrix)."""
    frame = np.asarray(mechanism.pairs[pair].frame_on_first)
    return float(frame[0, 3]), float(np.arctan2(frame[2, 1], frame[1, 1]))


def analyse(model_path=MODEL):
    """One turn of J1 in 1 deg steps; returns a dict (SI, rad)."""
    bennett = load_model(model_path)
    report = bennett.check()
    a, alpha = link_shape(bennett, "J2")  # link L1: J1 -> J2
    b, beta = link_shape(bennett, "J3")   # link L2: J2 -> J3
    t1 = np.radians(np.arange(0.0, 361.0, 1.0))
    res = bennett.sweep({"J1": t1}, speeds={"J1": 1.0})
    angles = {name: res.q(name) for name in ("J1", "J2", "J3", "J4")}
    constant = np.sin((beta + alpha) / 2) / np.sin((beta - alpha) / 2)
    # tan(t1/2) tan(t2/2) = K, written without tangents (finite at t = 180 deg):
    # sin(t1/2) sin(t2/2) - K cos(t1/2) cos(t2/2) = 0
    defect = (np.sin(t1 / 2) * np.sin(angles["J2"] / 2) - constant * np.cos(t1 / 2) * np.cos(angles["J2"] / 2))
    return {
        "report": report,
        "result": res,
        "a": a, "alpha": alpha, "b": b, "beta": beta,
        "bennett_ratio": (a / np.sin(alpha), b / np.sin(beta)),
        "bennett_constant": float(constant),
        "angles": angles,
        "relation_defect": float(np.abs(defect).max()),
        "t3_plus_t1": float(np.abs(angles["J3"] + angles["J1"]).max()),
        "t4_plus_t2": float(np.abs(angles["J4"] + angles["J2"]).max()),
    }


def plot(results, path):
    """The four joint angles against J1; the linkage at J1 = 60 deg in 3D with the path of
    the middle of link L2."""
    fig = Figure(figsize=(12, 5), layout="constrained")
    ax_angles = fig.add_subplot(1, 2, 1)
    ax_3d = fig.add_subplot(1, 2, 2, projection="3d")
    angles = results["angles"]
    t1 = np.degrees(angles["J1"])
    plot_curves(t1, {name: np.degrees(values) for name, values in angles.items()}, ax=ax_angles,
                x_label="J1 [deg]", y_label="joint angle [deg]",
                title=f"Bennett linkage: tan(t1/2) tan(t2/2) = {results['bennett_constant']:.4f}, "
                      "t3 = -t1, t4 = -t2")
    ax_angles.set_xticks(np.arange(0, 361, 60))
    ax_angles.set_yticks(np.arange(-360, 361, 90))
    res, index = results["result"], 60
    plot_snapshot(res, index, ax=ax_3d, title="linkage at J1 = 60 deg, joint axes dash-dotted")
    path_of_point = res.point("L2_middle")
    ax_3d.plot(*path_of_point.T, color="tab:red", linewidth=1)
    drawn = [path_of_point]
    for pair in res.model.pairs:  # each joint axis, 0.1 m either side of the joint
        frame = res.pose(pair.first)[index] @ pair.frame_on_first
        ends = frame[:3, 3] + np.outer([-0.1, 0.1], frame[:3, 2])
        ax_3d.plot(*ends.T, color="k", linestyle="-.", linewidth=1)
        drawn.append(ends)
    drawn = np.concatenate(drawn)
    centre, half = (drawn.max(axis=0) + drawn.min(axis=0)) / 2, np.ptp(drawn, axis=0).max() / 2
    ax_3d.set(xlim=(centre[0] - half, centre[0] + half), ylim=(centre[1] - half, centre[1] + half),
              zlim=(centre[2] - half, centre[2] + half))
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    r = analyse()
    print(r["report"])
    print(f"a = {r['a']} m, alpha = {np.degrees(r['alpha']):.4f} deg; b = {r['b']} m, "
          f"beta = {np.degrees(r['beta']):.4f} deg; a/sin(alpha) = {r['bennett_ratio'][0]:.12f} m, "
          f"b/sin(beta) = {r['bennett_ratio'][1]:.12f} m")
    print(f"over a full turn of J1: |t3 + t1| <= {r['t3_plus_t1']:.1e} rad, |t4 + t2| <= {r['t4_plus_t2']:.1e} rad, "
          f"Bennett's relation (K = {r['bennett_constant']:.6f}) holds to {r['relation_defect']:.1e}")
    r["png"] = plot(r, figure_path(args.out, "bennett.png"))
    print(f"wrote {r['png']}")
    return r


if __name__ == "__main__":
    main()
