"""Loads of the folding landing-gear leg (examples/landing_gear.toml): actuator force over the
retraction, the side stay's over-centre margin at down-lock, and a free-fall extension.

* **Actuator force.** The actuator is the driver of a static equilibrium
  (:func:`loops.equilibrium`) at every position of the retraction, with gravity (1 g) on leg,
  wheel and stays and a drag load at the axle; ``eq.force("actuator")`` is what the actuator
  holds (N, positive pushing the rod out; the gear hangs on it, so it pulls: negative). The
  drag acts aft, along the airflow, parallel to every hinge axis: it has no moment about them
  and goes into the trunnion, not into the actuator (a sideways-retracting leg).
* **Down-lock.** The side stay is a toggle: its dead centre is the straight knee, where the
  leg reaches its outermost angle. The gear locks down with the knee past that dead centre,
  the leg back at 0 deg (the mirror image of the design pose's knee about the stay's line).
  The margin is the knee's angle past the dead centre; what holds it there is the moment the
  lock (the knee stop) carries, ``equilibrium`` with the knee as driver: under gravity and
  drag, and per kN of side load at the axle (inboard compresses the stay).
* **Free fall.** Released from the up-lock (leg at its retracted angle, at rest) under
  gravity, with the actuator a hydraulic damper, force ``c v |v|`` along its eye-to-eye line
  (``damping_law="quadratic"``), until the stay reaches its dead centre (the lock: the lock
  springs, not modelled, take the knee over to its stop from there). ``simulate`` has no event
  stop: the run goes on to ``FREE_FALL_T_END`` and is cut at the first dead-centre crossing,
  located by a dense re-run over that step from its first sample and a cubic Hermite root of
  the stay's break angle; a run that stops keeps what it had.

The masses are the model file's (leg with wheels 320 kg, stays 22 and 18 kg, actuator 14 and
6 kg: plausible values for a regional airliner's main gear, not from a drawing); the drag
load and the damper's coefficient below are plausible too, not data.

Run::

    python examples/landing_gear_loads.py [--out DIR_OR_PNG]

prints the figures and writes ``landing_gear_loads.png`` into the current directory, or into
``--out`` (a directory, or the name of the PNG).
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from dynamics import simulate
from loops import equilibrium
from loops.plotting import figure_path, plot_curves, save_figure
from mechanism import SimulationStopped, load_model


def _sibling(name):
    """The example script ``name`` beside this one (its model and retraction data)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEAR = _sibling("landing_gear")
MODEL = GEAR.MODEL
DRAG = 4000.0                # N, aft at the axle (air load on the wheels at gear-down speeds)
SIDE_LOAD = 1000.0           # N, inboard at the axle: the unit side load for the lock's sensitivity
DAMPER = 2.0e5               # N s^2/m^2, free-fall restrictor: force c v |v| along the actuator
STEPS = 90                   # retraction positions
FREE_FALL_T_END = 8.0        # s, integration span (the lock comes earlier)
FREE_FALL_SAMPLES = 801
MM = 1000.0


def gear_model(model_path=MODEL, drag=DRAG, side=0.0, damper=None):
    """The leg with a drag load (N, aft) and a side load (N, inboard) at the axle, and with
    ``damper`` (N s^2/m^2) a quadratic damper along the actuator's eye-to-eye line."""
    gear = load_model(model_path)
    axle = gear.points["axle"].at
    if drag or side:
        gear.add_point_force("axle_load", "leg", at=axle, force=(-drag, -side, 0.0))
    if damper is not None:
        pairs = gear.pairs
        gear.add_spring_damper("free_fall_damper", "ground", pairs["actuator_base"].at, "leg",
                               pairs["actuator_end"].at, stiffness=0.0, damping=damper, damping_law="quadratic")
    return gear


def break_angle(gear, knee_pin, stay_pin):
    """Signed break of the side stay from its points (rad, (N,)): pi minus the knee's included
    angle, positive on the side the design pose folds to, negative past the dead centre."""
    hinge = gear.pairs["stay_hinge"].at
    included = GEAR.included_angle(knee_pin, np.broadcast_to(hinge, knee_pin.shape), stay_pin)
    axis = gear.pairs["knee"].axis
    side = np.cross(knee_pin - hinge, stay_pin - hinge) @ axis
    design = np.cross(gear.pairs["knee"].at - hinge, gear.pairs["stay_to_leg"].at - hinge) @ axis
    return np.sign(side * design) * (np.pi - included)


def stay_break(gear):
    """``(design_break, sense)``: the stay's break at the design pose (rad) and the sense of
    the knee pair that straightens it, so that the break is ``design_break - sense q_knee``
    exactly (the knee pair turns one stay against the other)."""
    pairs = gear.pairs
    design = float(break_angle(gear, pairs["knee"].at[None], pairs["stay_to_leg"].at[None])[0])
    probe = gear.sweep({"knee": np.array([0.0, 1e-3])})
    return design, -float(np.sign(np.diff(break_angle(gear, probe.point("knee_pin"), probe.point("stay_pin")))[0]))


def retraction(model_path=MODEL):
    """Actuator force over the retraction: equilibria with the actuator held (dict, SI)."""
    gear = gear_model(model_path)
    down = float(np.linalg.norm(gear.pairs["actuator_end"].at - gear.pairs["actuator_base"].at))
    stroke = np.linspace(0.0, GEAR.RETRACTED_LENGTH - down, STEPS + 1)
    eq = equilibrium(gear, drivers={"actuator": stroke})
    return {"equilibrium": eq, "stroke": stroke, "actuator_length": down + stroke, "leg_angle": eq.q("trunnion"),
            "force": eq.force("actuator"), "gravity_only": equilibrium(gear_model(model_path, drag=0.0),
                                                                       drivers={"actuator": stroke}).force("actuator")}


def down_lock(model_path=MODEL):
    """The stay through its dead centre to the locked pose, and what the lock holds (dict, SI)."""
    gear = gear_model(model_path)
    design_break, sense = stay_break(gear)
    knee = sense * np.linspace(0.0, 2.0 * design_break, 201)    # to the mirror image of the design pose: locked
    path = gear.sweep({"knee": knee})
    leg = path.q("trunnion")
    held = {}
    for name, model in (("gravity and drag", gear), ("side load", gear_model(model_path, drag=0.0, side=SIDE_LOAD)),
                        ("gravity only", gear_model(model_path, drag=0.0))):
        eq = equilibrium(model, drivers={"knee": knee[-1:]})
        on_leg = eq.reactions().force("stay_to_leg")[0]           # on the leg, from the lower stay
        along = eq.point("stay_pin")[0] - eq.point("knee_pin")[0]
        held[name] = {"knee_moment": float(eq.force("knee")[0]),  # N m, in the knee pair's sense
                      "stay_compression": float(on_leg @ along / np.linalg.norm(along))}
    held["per kN of side load"] = {key: (held["side load"][key] - held["gravity only"][key]) / (SIDE_LOAD / 1000.0)
                                   for key in ("knee_moment", "stay_compression")}
    return {"result": path, "knee": knee, "break": design_break - sense * knee,
            "geometric_break": break_angle(gear, path.point("knee_pin"), path.point("stay_pin")),
            "leg_angle": leg, "margin": design_break, "locked_leg_angle": float(leg[-1]),
            "dead_centre_leg_angle": float(leg[len(leg) // 2]), "held": held, "knee_sense": sense}


def free_fall(model_path=MODEL, damper=DAMPER, t_end=FREE_FALL_T_END, samples=FREE_FALL_SAMPLES):
    """Released from the up-lock at rest under gravity, the actuator a quadratic damper; the
    samples (``t``, ``break``, ``break_rate``, ``leg_angle``, ``leg_speed``) are cut at the first
    one past the stay's dead centre, ``simulation`` is the whole run (dict, SI; ``stop_reason``
    when the run stopped early: what it reached is kept)."""
    gear = gear_model(model_path, drag=0.0, damper=damper)
    down = float(np.linalg.norm(gear.pairs["actuator_end"].at - gear.pairs["actuator_base"].at))
    stop_reason = None
    try:
        sim = simulate(gear, t_end=t_end, q0={"actuator": GEAR.RETRACTED_LENGTH - down}, qd0={},
                       t_eval=np.linspace(0.0, t_end, samples), rtol=1e-9)
    except SimulationStopped as stopped:
        sim, stop_reason = stopped.partial, stopped.reason
    design_break, sense = stay_break(gear)
    breaks = design_break - sense * sim.q("knee")
    rates = -sense * sim.q_dot("knee")
    crossed = np.flatnonzero((breaks[:-1] > 0.0) & (breaks[1:] <= 0.0))
    out = {"simulation": sim, "t": sim.t, "break": breaks, "break_rate": rates, "leg_angle": sim.q("trunnion"),
           "leg_speed": sim.q_dot("trunnion"), "stop_reason": stop_reason, "damper": damper, "lock_time": None,
           "knee_speed_at_lock": None, "knee_pin_speed_at_lock": None, "lock_index": None}
    if len(crossed):
        i = int(crossed[0])
        t_lock, knee_speed, pin_speed = _lock_event(gear, sim, i, design_break, sense)
        out.update({key: out[key][:i + 2] for key in ("t", "break", "break_rate", "leg_angle", "leg_speed")})
        out.update(lock_time=t_lock, knee_speed_at_lock=knee_speed, knee_pin_speed_at_lock=pin_speed, lock_index=i)
    return out


def _lock_event(gear, sim, i, design_break, sense, refine=400):
    """``(time, knee speed, knee pin speed)`` where the stay's break first reaches zero between
    samples i and i + 1: the run is taken again from sample i (its actuator value and rate) over
    that step with ``refine`` samples, and the root is the cubic Hermite one of the last interval
    (the knee's rate grows steeply towards the dead centre: one interpolation over the coarse
    step misses it by ~1e-4 rad)."""
    t0, t1 = sim.t[i], sim.t[i + 1]
    again = simulate(gear, t_end=t1 - t0, q0={"actuator": float(sim.q("actuator")[i])},
                     qd0={"actuator": float(sim.q_dot("actuator")[i])}, t_eval=np.linspace(0.0, t1 - t0, refine + 1),
                     rtol=1e-10)
    breaks, rates = design_break - sense * again.q("knee"), -sense * again.q_dot("knee")
    k = int(np.flatnonzero((breaks[:-1] > 0.0) & (breaks[1:] <= 0.0))[0])
    t_lock, w = _hermite_root(again.t[k:k + 2], breaks[k:k + 2], rates[k:k + 2])
    pin = np.linalg.norm(again.point_velocity("knee_pin")[k:k + 2], axis=1)
    return t0 + t_lock, float(abs((1 - w) * rates[k] + w * rates[k + 1])), float((1 - w) * pin[0] + w * pin[1])


def _hermite_root(t, y, dy):
    """``(root, fraction)``: the root in [t0, t1] of the cubic Hermite interpolant of ``y``
    (falling through zero) with slopes ``dy``, by bisection, and its fraction of the step."""
    h = t[1] - t[0]
    lo, hi = 0.0, 1.0
    for _ in range(60):
        s = 0.5 * (lo + hi)
        h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
        value = h00 * y[0] + h10 * h * dy[0] + h01 * y[1] + h11 * h * dy[1]
        lo, hi = (s, hi) if value > 0.0 else (lo, s)
    s = 0.5 * (lo + hi)
    return float(t[0] + s * h), float(s)


def analyse(model_path=MODEL):
    """The three runs (dicts of SI values, see :func:`retraction`, :func:`down_lock`, :func:`free_fall`)."""
    return {"retraction": retraction(model_path), "lock": down_lock(model_path), "free_fall": free_fall(model_path)}


def into_stop(lock, case):
    """The loads' moment on the knee towards further over-centre (N m): what the knee stop holds
    (positive: the lock is pressed shut; negative: the lock springs must hold it)."""
    return -lock["knee_sense"] * lock["held"][case]["knee_moment"]


def plot(results, path):
    """Actuator force over the retraction; the stay's break through its dead centre to the lock;
    the free fall's leg angle, stay break and knee speed against time."""
    ret, lock, fall = results["retraction"], results["lock"], results["free_fall"]
    fig = Figure(figsize=(13, 8), layout="constrained")
    grid = fig.add_gridspec(2, 2)
    ax_force, ax_lock = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
    ax_fall, ax_knee = fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1])
    plot_curves(np.degrees(ret["leg_angle"]), {f"gravity + {DRAG / 1000:.0f} kN drag": -ret["force"] / 1000.0,
                                               "gravity only": -ret["gravity_only"] / 1000.0}, ax=ax_force,
                x_label="leg angle [deg] (0 down, 90 retracted)", y_label="actuator pull [kN]",
                title=f"actuator force, slow retraction (peak {-ret['force'].min() / 1000:.2f} kN pull; "
                      "drag is parallel to the hinges)")
    ax_force.lines[1].set_linestyle("--")
    plot_curves(np.degrees(lock["leg_angle"]), {"stay break": np.degrees(lock["break"])}, ax=ax_lock,
                x_label="leg angle [deg]", y_label="stay break [deg] (+ folding side, - over centre)",
                title=f"down-lock: {np.degrees(lock['margin']):.2f} deg past the dead centre, "
                      f"{into_stop(lock, 'gravity and drag'):.0f} N m into the stop (1 g)")
    ax_lock.axhline(0.0, color="0.5", linewidth=0.8)
    ax_lock.plot([np.degrees(lock["locked_leg_angle"])], [np.degrees(lock["break"][-1])], "o", color="tab:red",
                 label="locked")
    ax_lock.plot([np.degrees(lock["dead_centre_leg_angle"])], [0.0], "s", color="k", label="dead centre")
    ax_lock.legend(fontsize="small")
    t = fall["t"]
    plot_curves(t, {"leg angle [deg]": np.degrees(fall["leg_angle"]), "stay break [deg]": np.degrees(fall["break"])},
                ax=ax_fall, x_label="time [s]", y_label="",
                title=f"free fall from the up-lock, actuator damper {fall['damper']:.3g} N s^2/m^2")
    plot_curves(t, {"knee speed [deg/s]": np.degrees(np.abs(fall["break_rate"])),
                    "leg speed [deg/s]": np.degrees(np.abs(fall["leg_speed"]))}, ax=ax_knee,
                x_label="time [s]", y_label="", title="knee and leg speed")
    if fall["lock_time"] is not None:
        for ax in (ax_fall, ax_knee):
            ax.axvline(fall["lock_time"], color="tab:red", linewidth=0.8)
        ax_knee.plot([fall["lock_time"]], [np.degrees(fall["knee_speed_at_lock"])], "o", color="tab:red")
        ax_knee.annotate(f"lock at {fall['lock_time']:.3f} s, knee {np.degrees(fall['knee_speed_at_lock']):.0f} deg/s",
                         (fall["lock_time"], np.degrees(fall["knee_speed_at_lock"])), xytext=(-220, 0),
                         textcoords="offset points", fontsize="small", arrowprops={"arrowstyle": "->"})
    save_figure(fig, path, dpi=110)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output directory, or the PNG file name (default: current directory)")
    args = parser.parse_args(argv)
    r = analyse()
    ret, lock, fall = r["retraction"], r["lock"], r["free_fall"]
    print(f"actuator force, slow retraction under 1 g and {DRAG / 1000:.1f} kN drag at the axle (- pulls):")
    print(f"{'leg [deg]':>10s} {'actuator [mm]':>14s} {'force [N]':>11s}")
    for index in range(0, len(ret["force"]), 10):
        print(f"{np.degrees(ret['leg_angle'][index]):10.3f} {ret['actuator_length'][index] * MM:14.1f} "
              f"{ret['force'][index]:11.1f}")
    peak = int(np.argmin(ret["force"]))
    print(f"peak pull {-ret['force'][peak]:.1f} N at leg {np.degrees(ret['leg_angle'][peak]):.2f} deg "
          f"(drag changes it by {np.abs(ret['force'] - ret['gravity_only']).max():.1e} N: parallel to the hinges)")
    print(f"down-lock: stay {np.degrees(lock['margin']):.4f} deg past its dead centre (leg at "
          f"{np.degrees(lock['locked_leg_angle']):.2e} deg locked, {np.degrees(lock['dead_centre_leg_angle']):.4f} deg "
          f"at the dead centre)")
    for case in ("gravity and drag", "per kN of side load"):
        held = lock["held"][case]
        print(f"  {case}: {into_stop(lock, case):.1f} N m into the knee stop, stay compression "
              f"{held['stay_compression']:.1f} N")
    if fall["lock_time"] is None:
        print(f"free fall: no lock within {fall['t'][-1]:.3f} s" + (f" ({fall['stop_reason']})"
                                                                    if fall["stop_reason"] else ""))
    else:
        print(f"free fall (damper {fall['damper']:.3g} N s^2/m^2): locks at {fall['lock_time']:.4f} s, knee speed "
              f"{np.degrees(fall['knee_speed_at_lock']):.1f} deg/s, knee pin {fall['knee_pin_speed_at_lock']:.3f} m/s")
    r["png"] = plot(r, figure_path(args.out, "landing_gear_loads.png"))
    print(f"wrote {r['png']}")
    return r


if __name__ == "__main__":
    main()
