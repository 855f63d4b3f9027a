"""``kinematrix sweep MODEL.toml --drive A=0:360:1 [--speed A=1] [--out res.csv] [--plot traj.png]``:
a position, velocity and acceleration sweep (:meth:`mechanism.Mechanism.sweep`), its CSV in the
model file's units, point trajectories and an animation.

A sweep that stops writes the positions it reached and exits 1; Ctrl-C writes them and exits
130 (:func:`loops.cli.outputs.finish`). Afterwards stderr names the variables the sweep held
(real freedoms no driver fixes) and says, without ``--speed``, that the rate columns are zero.
"""

import sys

from .arguments import INTERRUPTED, PROG, SMALL_JOB_POSITIONS, STOPPED, UserError, assignment, number, parse_range, \
    positions_of, quantity_of, variable_quantities
from .outputs import check_distinct, check_image, check_standard_output, finish, plot_call, report_held

NAME = "sweep"
HELP = "position/velocity/acceleration sweep"


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL")
    parser.add_argument("--drive", action="append", required=True, metavar="NAME=START:STOP:STEP",
                        help="driver values in the file's units: START:STOP:STEP (from START in steps of STEP, "
                        "the last one replaced by STOP: 0:10:3 gives 0, 3, 6, 10) or a single value to hold; "
                        "repeat for several drivers")
    parser.add_argument("--speed", action="append", default=[], metavar="NAME=V",
                        help="driver speed, file units per second")
    parser.add_argument("--acceleration", action="append", default=[], metavar="NAME=A",
                        help="driver acceleration, file units per second squared")
    parser.add_argument("--out", metavar="FILE.csv", help="CSV output (default: standard output)")
    parser.add_argument("--plot", metavar="FILE.png", help="point trajectories (FILE.html: an interactive page, the "
                        "mechanism moving in 3-D beside its curves)")
    parser.add_argument("--points", metavar="P,Q", help="points to plot (default: all)")
    parser.add_argument("--animate", metavar="FILE.gif", help="animation of the sweep (FILE.html: the interactive page)")


def small_job(args) -> bool:
    """True when the sweep has at most :data:`~.arguments.SMALL_JOB_POSITIONS` positions (its
    kernels may run as plain Python on a cold cache: :mod:`dynamics.cli.kernel_mode`)."""
    counts = [positions_of(text.partition("=")[2], "--drive") for text in args.drive]
    return None not in counts and max(counts) <= SMALL_JOB_POSITIONS


def drivers_and_rates(args, units, quantities):
    """``(drivers, rates)`` in SI from ``--drive``, ``--speed`` and ``--acceleration``: driver
    name -> values, and option -> {driver name: value}."""
    drivers = {}
    for text in args.drive:
        name, spec = assignment(text, "--drive")
        quantity = quantity_of(quantities, name, "--drive")
        if name in drivers:
            raise UserError(f"--drive {name}: given twice")
        drivers[name] = units.to_si(parse_range(spec, f"--drive {name}"), quantity)
    rates = {}
    for option, given in (("--speed", args.speed), ("--acceleration", args.acceleration)):
        rates[option] = {}
        for text in given:
            name, value = assignment(text, option)
            if name not in drivers:
                raise UserError(f"{option} {name}: not a driver of this sweep (drivers: {', '.join(drivers)})")
            rates[option][name] = units.to_si(number(value, f"{option} {name}"), quantities[name])
    return drivers, rates


def plotted_points(args, model):
    """The points of ``--plot`` and ``--animate``: ``--points`` or every point of the model."""
    point_names = [p.name for p in model.points]
    plot_points = point_names
    if args.points is not None:
        plot_points = [p.strip() for p in args.points.split(",") if p.strip()]
        for name in plot_points:
            if name not in point_names:
                raise UserError(f"--points: unknown point {name!r} (known: {', '.join(point_names) or 'none'})")
    if args.plot and not plot_points:
        raise UserError("--plot: the model has no points to plot (add [[points]] or name them with --points)")
    check_image(args.plot, "--plot")
    return plot_points


def run(args) -> int:
    from loops.sweep import driver_table
    from mechanism.errors import SweepInterrupted, SweepStopped
    from mechanism.model_file import read_model

    check_distinct([("MODEL", args.model)], [("--out", args.out), ("--plot", args.plot), ("--animate", args.animate)])
    check_standard_output(args.out)
    loaded = read_model(args.model, assemble=False)  # the options first: assembling loads the engine
    units = loaded.units
    model = loaded.mechanism.snapshot()
    quantities = variable_quantities(model)
    drivers, rates = drivers_and_rates(args, units, quantities)
    plot_points = plotted_points(args, model)
    driver_table(drivers)  # the sweep's own check of the drivers' lengths, before the engine loads
    mechanism = loaded.assembled()

    count = max(len(v) for v in drivers.values())
    status, note = 0, None
    try:
        result = mechanism.sweep(drivers, speeds=rates["--speed"] or None,
                                 accelerations=rates["--acceleration"] or None)
    except SweepInterrupted as stop:
        result, status = stop.partial, INTERRUPTED
        note = f"interrupted (Ctrl-C) after {len(result)} of {count} positions"
    except SweepStopped as stop:
        result, status = stop.partial, STOPPED
        note = f"sweep stopped after {len(result)} of {count} positions: {stop.reason}"
    if note is not None and len(result):
        last = ", ".join(f"{name} = {units.show(result.q(name)[-1], quantities[name])}" for name in drivers)
        note += f"; last position reached: {last}"
    status = finish(args, result, "positions", status, note, units, lambda: draw(args, result, plot_points, units))
    report_held(result.held)
    if not rates["--speed"] and len(result):
        print(f"{PROG}: no --speed: the velocity and acceleration columns are zero", file=sys.stderr)
    return status


def draw(args, result, plot_points, units):
    """The --plot and --animate pictures of a sweep with at least one position."""
    if not (args.plot or args.animate):
        return
    from loops import plotting

    def page():  # the interactive views are imported only for a page
        from loops.views import sweep_view

        return sweep_view(result, plot_points)

    if args.plot:
        plot_call(plotting.plot_trajectories, result, plot_points, path=args.plot, page=page,
                  length_scale=units.factor("length"), length_unit=units.length)
    if args.animate:
        plot_call(plotting.animate_sweep, result, path=args.animate, points=plot_points, page=page,
                  length_scale=units.factor("length"), length_unit=units.length)
