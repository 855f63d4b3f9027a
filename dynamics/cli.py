"""The ``kinematrix`` command (also ``python -m mechanism``).

Subcommands (DESIGN.md, "Model files and command line")::

    kinematrix check    MODEL.toml
    kinematrix sweep    MODEL.toml --drive A=0:360:1 [--drive ...] [--speed A=1] [--acceleration A=0]
                        [--out res.csv] [--plot traj.png --points P,Q] [--animate sweep.gif]
    kinematrix simulate MODEL.toml --t-end 2 [--q0 A=10] [--qd0 A=0] [--samples 201]
                        [--out sim.csv] [--plot sim.png]
    kinematrix plot     res.csv --x A --y C,D [--out curves.png]
    kinematrix suspension MODEL.toml [MORE.toml ...] --analysis parallel --travel -80:80:5
                        [--out metrics.csv] [--plot sheet.png] (see cmd_suspension)
    kinematrix study    MODEL.toml --vary VARY.toml --analysis parallel --travel -80:80:4
                        [--out study.csv] [--summary summary.csv] [--plot bands.png --metrics camber,toe]
                        [--scheduler ADDRESS] [--chunk-size N] (see cmd_study)

Every value on the command line and in the CSV files is in the model file's units (its
``[units]``: lengths in m or mm, angles in rad or deg; rates per second). ``START:STOP:STEP``
begins on START and ends exactly on STOP (see :func:`parse_range`: ``0:10:3`` gives 0, 3, 6,
10).

Exit status: 0 on success, 1 when a sweep or simulation stopped early (the positions or
samples it reached are still written; none reached: nothing is written; a study exits 0 when
variants stop, listing them, and 1 when its nominal design stops), 2 for user errors
(bad model file, bad option, unknown driver or point, a file that cannot be written), 130
after Ctrl-C (the positions or samples reached so far are written), each reported as one
line on stderr.

CSV files are written by :meth:`loops.results.Trajectory.to_csv`, the one CSV writer (the
columns of :meth:`~loops.results.Trajectory.columns`, a first line naming the units), in
the model file's units; the Python API writes the same bytes for the same units.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys

import numpy as np

__all__ = ["main"]

PROG = "kinematrix"
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130


class UserError(Exception):
    """A mistake on the command line or in its inputs: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block) and exit status 2."""

    def error(self, message):
        raise UserError(f"{message} (see '{self.prog} --help')")


# ------------------------------------------------------------------------ arguments
def _assignment(text, option):
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise UserError(f"{option} {text!r}: expected NAME=VALUE")
    return name.strip(), value.strip()


def _number(text, what):
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise UserError(f"{what}: {text!r} is not a finite number")
    return value


def parse_range(text, what="--drive"):
    """``START:STOP:STEP`` (or one number) -> ndarray of values, START and STOP included.

    With ``n = round((STOP - START) / STEP)`` (halves rounded up) the values are
    ``START + k STEP`` for ``k = 0 .. n``, the last of them replaced by STOP (with ``n = 0``:
    START and STOP). The last step is therefore between half a step and one and a half steps
    long: ``0:10:3`` gives 0, 3, 6, 10; ``0:10:4`` gives 0, 4, 8, 10; ``0:0.2:1`` gives 0, 0.2.
    """
    parts = text.split(":")
    if len(parts) == 1:
        return np.array([_number(parts[0], what)])
    if len(parts) != 3:
        raise UserError(f"{what}: {text!r} is neither a number nor START:STOP:STEP")
    start, stop, step = (_number(p, what) for p in parts)
    if start == stop:
        return np.array([start])
    if step == 0.0 or (stop - start) * step < 0.0:
        raise UserError(f"{what}: STEP {parts[2]} does not lead from {parts[0]} to {parts[1]}")
    from loops.sweep import MAX_POSITIONS

    steps = math.floor((stop - start) / step + 0.5)
    if steps + 1 > MAX_POSITIONS:
        raise UserError(f"{what}: {text!r} gives {steps + 1} positions (at most {MAX_POSITIONS})")
    if steps == 0:  # STOP is less than half a step away: go straight there
        return np.array([start, stop])
    values = start + step * np.arange(steps + 1, dtype=float)
    values[-1] = stop
    return values


def _variable_quantities(model):
    """Pair variable (and point driver) name -> "angle" or "length"."""
    out = {}
    for pair in model.pairs:
        for name, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
            out[name] = "angle" if rotational else "length"
    for driver in model.point_drivers:
        out[driver.name] = "length"
    return out


def _quantity_of(quantities, name, option):
    if name not in quantities:
        known = ", ".join(quantities) or "none"
        raise UserError(f"{option} {name}: not a pair variable or point driver of the model (known: {known})")
    return quantities[name]


# -------------------------------------------------------------------------- output
def _write_result_csv(result, out, units):
    """Write ``result`` as CSV in ``units`` to ``out`` (None: standard output), by the one
    CSV writer, :meth:`loops.results.Trajectory.to_csv`."""
    if out is None:
        sys.stdout.write(result.to_csv(None, units=units))
        return
    try:
        result.to_csv(out, units=units)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None


def _check_image(path, option):
    """A user error, before any work, for an image file whose format matplotlib cannot write."""
    if path is None:
        return
    suffix = os.path.splitext(path)[1][1:].lower()
    if not suffix:
        return
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix not in formats:
        raise UserError(f"{option} {path}: cannot write a {suffix!r} image (formats: {', '.join(sorted(formats))})")


def _plotting():
    from loops import plotting

    return plotting


def _plot_call(function, *args, path, **kwargs):
    """Draw and save a plot to ``path``; a failed write or an unknown image format is a user error."""
    try:
        return function(*args, path=path, **kwargs)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # matplotlib: "Format 'xyz' is not supported (supported formats: ...)"
        if "format" not in str(exc).lower():
            raise
        raise UserError(f"{path}: {' '.join(str(exc).split())}") from None


# ------------------------------------------------------------------------ commands
def _load(path):
    from mechanism.model_file import read_model

    return read_model(path)


def cmd_check(args):
    loaded = _load(args.model)
    print(loaded.mechanism.check())
    return 0


def cmd_sweep(args):
    from mechanism.errors import SweepInterrupted, SweepStopped

    loaded = _load(args.model)
    mechanism = loaded.mechanism
    units = mechanism.units
    model = mechanism.snapshot()
    quantities = _variable_quantities(model)

    drivers = {}
    for text in args.drive:
        name, spec = _assignment(text, "--drive")
        quantity = _quantity_of(quantities, name, "--drive")
        if name in drivers:
            raise UserError(f"--drive {name}: given twice")
        drivers[name] = units.to_si(parse_range(spec, f"--drive {name}"), quantity)
    rates = {}
    for option, given in (("--speed", args.speed), ("--acceleration", args.acceleration)):
        rates[option] = {}
        for text in given:
            name, value = _assignment(text, option)
            if name not in drivers:
                raise UserError(f"{option} {name}: not a driver of this sweep (drivers: {', '.join(drivers)})")
            rates[option][name] = units.to_si(_number(value, f"{option} {name}"), quantities[name])

    point_names = [p.name for p in model.points]
    plot_points = point_names
    if args.points is not None:
        plot_points = [p.strip() for p in args.points.split(",") if p.strip()]
        for name in plot_points:
            if name not in point_names:
                raise UserError(f"--points: unknown point {name!r} (known: {', '.join(point_names) or 'none'})")
    if args.plot and not plot_points:
        raise UserError("--plot: the model has no points to plot (add [[points]] or name them with --points)")
    _check_image(args.plot, "--plot")

    count = max(len(v) for v in drivers.values())
    status, note = 0, None
    try:
        result = mechanism.sweep(drivers, speeds=rates["--speed"] or None,
                                 accelerations=rates["--acceleration"] or None)
    except SweepInterrupted as stop:
        result, status = stop.partial, INTERRUPTED
        note = f"interrupted (Ctrl-C) after {len(result)} of {count} positions"
    except SweepStopped as stop:
        result, status = stop.partial, 1
        note = f"sweep stopped after {len(result)} of {count} positions: {stop.reason}"
    if note is not None and len(result):
        last = ", ".join(f"{name} = {units.show(result.q(name)[-1], quantities[name])}" for name in drivers)
        note += f"; last position reached: {last}"
    return _finish(args, result, "positions", status, note, units,
                   lambda: _sweep_pictures(args, result, plot_points, units))


def _finish(args, result, what, status, note, units, pictures):
    """Write the CSV (unless nothing was reached), draw the pictures, report a stop on stderr.

    Ctrl-C here ends the command with status 130 and says what was written: a CSV file is
    written whole or not at all (mechanism/atomic.py holds the signal until it is in place).
    """
    wrote = False
    try:
        if len(result) or note is None:
            _write_result_csv(result, args.out, units)
            wrote = bool(len(result))
        if len(result):
            pictures()
    except KeyboardInterrupt:
        note = (note + "; then " if note else "") + "interrupted (Ctrl-C)"
        status = INTERRUPTED
    if note is not None:
        written = "nothing written" if not wrote else (
            f"{len(result)} {what} written to {args.out}" if args.out else f"{len(result)} {what} written")
        print(f"{PROG}: {note}; {written}", file=sys.stderr)
    return status


def _sweep_pictures(args, result, plot_points, units):
    """The --plot and --animate pictures of a sweep with at least one position."""
    if not (args.plot or args.animate):
        return
    plotting = _plotting()
    if args.plot:
        _plot_call(plotting.plot_trajectories, result, plot_points, path=args.plot,
                   length_scale=units.factor("length"), length_unit=units.length)
    if args.animate:
        _plot_call(plotting.animate_sweep, result, path=args.animate, points=plot_points,
                   length_scale=units.factor("length"), length_unit=units.length)


def cmd_simulate(args):
    try:
        from dynamics import simulate
    except ImportError:
        raise UserError("simulate is not available yet (dynamics.simulate is not part of this "
                        "installation)") from None
    from mechanism.errors import SimulationInterrupted, SimulationStopped

    loaded = _load(args.model)
    mechanism = loaded.mechanism
    units = mechanism.units
    quantities = _variable_quantities(mechanism.snapshot())
    if not (math.isfinite(args.t_end) and args.t_end > 0):
        raise UserError(f"--t-end: must be positive, got {args.t_end!r}")
    initial = {}
    for option, given in (("--q0", args.q0), ("--qd0", args.qd0)):
        initial[option] = {}
        for text in given:
            name, value = _assignment(text, option)
            quantity = _quantity_of(quantities, name, option)
            initial[option][name] = units.to_si(_number(value, f"{option} {name}"), quantity)
    _check_image(args.plot, "--plot")
    options = {}
    if args.samples is not None:
        if args.samples < 2:
            raise UserError(f"--samples: need at least 2, got {args.samples}")
        from loops.compiled import compile_model
        from dynamics.simulate import check_sample_count

        check_sample_count(compile_model(mechanism.snapshot()), args.samples, "--samples")
        options["t_eval"] = np.linspace(0.0, args.t_end, args.samples)

    status, note = 0, None
    try:
        result = simulate(mechanism, t_end=args.t_end, q0=initial["--q0"], qd0=initial["--qd0"], **options)
    except SimulationInterrupted as stop:
        result, status, note = stop.partial, INTERRUPTED, stop.reason
    except SimulationStopped as stop:
        result, status, note = stop.partial, 1, f"simulation stopped: {stop.reason}"

    def pictures():
        if not args.plot:
            return
        wanted = list(initial["--q0"]) or result.variable_names
        curves = {name: units.from_si(result.q(name), quantities[name]) for name in wanted}
        _plot_call(_plotting().plot_curves, result.t, curves, path=args.plot, x_label="t [s]",
                   y_label=", ".join(f"{n} [{units.label(quantities[n])}]" for n in curves))

    return _finish(args, result, "samples", status, note, units, pictures)


def cmd_plot(args):
    plotting = _plotting()
    columns = [c.strip() for c in args.y.split(",") if c.strip()]
    if not columns:
        raise UserError("--y: name at least one column")
    out = args.out or os.path.splitext(args.csv)[0] + ".png"
    _check_image(out, "--out")
    try:
        header, table = plotting.read_csv(args.csv)
    except OSError as exc:
        raise UserError(f"cannot read {args.csv}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UserError(f"{args.csv}: {exc}") from None
    for name in [args.x] + columns:
        if name not in header:
            raise UserError(f"{args.csv}: no column {name!r} (columns: {', '.join(header)})")
    x = table[:, header.index(args.x)]
    curves = {name: table[:, header.index(name)] for name in columns}
    _plot_call(plotting.plot_curves, x, curves, path=out, x_label=args.x,
               y_label=", ".join(columns), title=os.path.basename(args.csv))
    print(out)
    return 0


def cmd_suspension(args):
    """``kinematrix suspension``: a standard analysis of corner or axle files (their
    ``[corner]``, ``[vehicle]``, ``[axle]`` tables), its metric CSV and sheet; hardpoint
    tables out and back in. Several model files are several designs: one CSV each
    (``--out m.csv`` becomes ``m-<file>.csv``), their curves overlaid on one sheet."""
    from loops.suspension import analyses, load_suspension
    from loops.suspension.hardpoints import apply_hardpoints, write_hardpoints

    models = list(args.model)
    if args.apply_hardpoints:
        if len(models) != 1 or not args.save:
            raise UserError("--apply-hardpoints: give one model file and --save NEW.toml")
        apply_hardpoints(models[0], args.apply_hardpoints, args.save)
        models = [args.save]
    elif args.save:
        raise UserError("--save: only with --apply-hardpoints")
    if args.export_hardpoints:
        if len(models) != 1:
            raise UserError("--export-hardpoints: give one model file")
        write_hardpoints(models[0], args.export_hardpoints)
    if args.analysis is None:
        if args.export_hardpoints or args.apply_hardpoints:
            return 0
        raise UserError("--analysis: required (parallel, opposite, roll, steering or combined)")
    if len(models) > 1 and args.out is None and args.plot is None:
        raise UserError("several designs: name --out (one CSV each) or --plot (one sheet)")

    results, status = [], 0
    for path in models:
        suspension = load_suspension(path)
        if args.axle or args.analysis in ("opposite", "roll"):
            suspension = suspension.axle()
        result, stopped = _suspension_analysis(analyses, suspension, args)
        if stopped is not None:
            status = 1
            print(f"{PROG}: {os.path.basename(path)}: analysis stopped after {len(stopped.partial)} positions: "
                  f"{stopped.reason}", file=sys.stderr)
        results.append(result)
        out = args.out
        if out is not None and len(models) > 1:
            stem, suffix = os.path.splitext(out)
            out = f"{stem}-{os.path.splitext(os.path.basename(path))[0]}{suffix or '.csv'}"
        if out is None and len(models) == 1:
            sys.stdout.write(result.to_csv(None))
        elif out is not None:
            try:
                result.to_csv(out)
            except OSError as exc:
                raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    if args.plot:
        drawn = [r for r in results if len(r)]
        if drawn:
            from loops.suspension.sheets import plot_sheet

            _plot_call(plot_sheet, drawn, path=args.plot)
    return status


def _range_values(units, text, option, quantity, kind, required=True):
    """The values of a range option (``START:STOP:STEP`` in the file's units), SI; None when
    not given and not ``required`` by ``--analysis kind``."""
    if text is None:
        if required:
            raise UserError(f"{option}: required by --analysis {kind}")
        return None
    return units.to_si(parse_range(text, option), quantity)


def _steering_quantity(suspension):
    """``"angle"`` or ``"length"``: what the suspension's steering variable (rack travel) is."""
    for pair in suspension.model.pairs:
        for name, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
            if name in suspension.steering:
                return "angle" if rotational else "length"
    return "length"


def _suspension_analysis(analyses, suspension, args):
    """Run ``args.analysis`` on ``suspension`` with the ranges in the file's units:
    ``(SuspensionResult, SweepStopped or None)``."""
    from mechanism.errors import SweepStopped

    kind = args.analysis

    def values(text, option, quantity, required=True):
        return _range_values(suspension.units, text, option, quantity, kind, required)

    steering_quantity = _steering_quantity(suspension)
    options = {"travel_at": args.travel_at}
    try:
        if kind in ("parallel", "opposite"):
            run = analyses.parallel_travel if kind == "parallel" else analyses.opposite_travel
            return run(suspension, values(args.travel, "--travel", "length"), **options), None
        if kind == "roll":
            return analyses.roll(suspension, values(args.roll, "--roll", "angle"), **options), None
        if (args.rack is None) == (args.steering_wheel is None):
            raise UserError(f"--analysis {kind}: give --rack or --steering-wheel")
        steer = {"rack": values(args.rack, "--rack", steering_quantity, False),
                 "steering_wheel": values(args.steering_wheel, "--steering-wheel", "angle", False)}
        if kind == "steering":
            travel = values(args.travel, "--travel", "length", False)
            if travel is not None and len(travel) != 1:
                raise UserError("--travel: a steering analysis takes one wheel travel (use --analysis combined "
                                "for several)")
            height = 0.0 if travel is None else float(travel[0])
            return analyses.steering(suspension, steer["rack"], steering_wheel=steer["steering_wheel"],
                                     travel=height, **options), None
        return analyses.combined(suspension, values(args.travel, "--travel", "length"), steer["rack"],
                                 steering_wheel=steer["steering_wheel"], **options), None
    except SweepStopped as stop:
        return stop.partial, stop


#: Stopped variants a study lists on stderr (with their reasons); the rest are counted.
_LISTED = 5


def _check_directory(path, option):
    """A user error, before a long run, for an output file whose directory does not exist."""
    if path is None:
        return
    folder = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(folder):
        raise UserError(f"{option} {path}: no directory {folder}")


def cmd_study(args):
    """``kinematrix study``: a design study of a corner or axle file (see the subcommand's
    help): the nominal design and every variant of a vary file through one analysis; the
    tidy table (one row per variant and position), a summary per position and a band sheet.

    Variants that stop are kept (their rows past the stop are NaN), listed on stderr with
    their reasons, and the status is 0; a nominal design that does not complete the analysis
    is status 1 and nothing is written."""
    from loops.study.coordinates import coordinates
    from loops.study.designs import read_vary
    from loops.study.study import DEFAULT_CHUNK, Plan, run_chunk, run_study
    from loops.suspension import load_suspension

    suspension = load_suspension(args.model)
    names, offsets = read_vary(args.vary, suspension)
    coords = coordinates(suspension.model, names)
    units, kind = suspension.units, args.analysis
    if args.rack is not None and kind not in ("steering", "combined"):
        raise UserError(f"--rack: only with --analysis steering or combined, not {kind}")
    if args.roll is not None and kind != "roll":
        raise UserError(f"--roll: only with --analysis roll, not {kind}")
    if kind == "roll" and args.travel is not None:
        raise UserError("--travel: not with --analysis roll (the wheel travels follow the roll angle, --roll)")
    if kind in ("opposite", "roll") and not suspension.is_axle:
        raise UserError(f"--analysis {kind}: {os.path.basename(args.model)} is a corner; study an axle file "
                        "([axle] mirror = true, or left and right), whose hardpoints the vary file names "
                        "(lower_ball_left, ...)")
    if kind == "steering":
        rack = _range_values(units, args.rack, "--rack", _steering_quantity(suspension), kind)
        travel = _range_values(units, args.travel, "--travel", "length", kind, required=False)
        if travel is not None and len(travel) != 1:
            raise UserError("--travel: a steering study takes one wheel travel (--analysis combined takes several)")
        plan = Plan("steering", rack=rack, steer_travel=0.0 if travel is None else float(travel[0]),
                    travel_at=args.travel_at)
    elif kind == "roll":
        plan = Plan("roll", roll=_range_values(units, args.roll, "--roll", "angle", kind), travel_at=args.travel_at)
    elif kind == "combined":
        plan = Plan("combined", travel=_range_values(units, args.travel, "--travel", "length", kind),
                    rack=_range_values(units, args.rack, "--rack", _steering_quantity(suspension), kind),
                    travel_at=args.travel_at)
    else:
        plan = Plan(kind, travel=_range_values(units, args.travel, "--travel", "length", kind),
                    travel_at=args.travel_at)
    chunk = DEFAULT_CHUNK if args.chunk_size is None else args.chunk_size
    if chunk < 1:
        raise UserError(f"--chunk-size: expected a positive number of variants, got {chunk}")
    if args.metrics is not None and not args.plot:
        raise UserError("--metrics: the panels of --plot; name the sheet with --plot FILE.png")
    wanted = None if args.metrics is None else [m.strip() for m in args.metrics.split(",") if m.strip()]
    if wanted == []:
        raise UserError("--metrics: name at least one metric")
    _check_image(args.plot, "--plot")
    for path, option in ((args.out, "--out"), (args.summary, "--summary"), (args.plot, "--plot")):
        _check_directory(path, option)

    # The nominal design first (milliseconds): a stop there is the analysis's, not a variant's.
    _, nominal, stopped = run_chunk(suspension, coords, np.zeros((1, len(coords))), plan)
    if stopped:
        print(f"{PROG}: the nominal design of {os.path.basename(args.model)} does not complete the {kind} analysis: "
              f"{stopped[0]}; nothing written", file=sys.stderr)
        return 1
    for name in wanted or []:
        if name not in nominal:
            raise UserError(f"--metrics: {name!r} is not a metric of the {kind} analysis (metrics: "
                            f"{', '.join(nominal)})")
    try:
        result = run_study(suspension, coords, offsets, plan, chunk_size=chunk, scheduler=args.scheduler,
                           progress=sys.stderr.isatty())
    except ImportError as exc:  # --scheduler without dask.distributed (or without the cluster module)
        if args.scheduler is None:
            raise
        raise UserError(f"--scheduler: running on a Dask cluster needs the dask extra "
                        f"(pip install 'kinematrix[dask]'): {exc}") from None

    def write(writer, path):
        try:
            text = writer(path)
        except OSError as exc:
            raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
        if path is None:
            sys.stdout.write(text)

    if args.out is not None or not (args.summary or args.plot):
        write(result.to_csv, args.out)
    if args.summary:
        write(result.summary_to_csv, args.summary)
    if args.plot:
        from loops.study.sheets import plot_bands

        _plot_call(plot_bands, result, path=args.plot, metrics=wanted)
    if result.reasons:
        lines = [f"{PROG}: {len(result.reasons)} of {result.variants} variants stopped; their rows past the stop "
                 "are empty (NaN):"]
        lines += [f"  variant {v}: {reason}" for v, reason in list(result.reasons.items())[:_LISTED]]
        if len(result.reasons) > _LISTED:
            lines.append(f"  and {len(result.reasons) - _LISTED} more")
        print("\n".join(lines), file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------- main
def version() -> str:
    """The version of kinematrix: pyproject.toml's, as installed (or read from a source tree)."""
    from importlib import metadata

    try:
        return metadata.version("kinematrix")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        import tomllib

        pyproject = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
        try:
            with open(pyproject, "rb") as handle:
                return tomllib.load(handle)["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown"


#: "--travel -80:80:5": a range that starts with a minus sign is a value, not an option.
_RANGE_ARGUMENT = re.compile(r"^-[\d.]+([eE][-+]?\d+)?(:[-+]?[\d.]+([eE][-+]?\d+)?)*$")


def build_parser():
    parser = _Parser(prog=PROG, description="Kinematics and dynamics of spatial linkages "
                     "(Pavlov's matrix method). Values are in the model file's units.")
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("check", help="loops, mobility and problems of a model")
    p.add_argument("model", metavar="MODEL", help="TOML model file")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("sweep", help="position/velocity/acceleration sweep")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--drive", action="append", required=True, metavar="NAME=START:STOP:STEP",
                   help="driver values in the file's units: START:STOP:STEP (from START in steps of STEP, "
                   "the last one replaced by STOP: 0:10:3 gives 0, 3, 6, 10) or a single value to hold; "
                   "repeat for several drivers")
    p.add_argument("--speed", action="append", default=[], metavar="NAME=V",
                   help="driver speed, file units per second")
    p.add_argument("--acceleration", action="append", default=[], metavar="NAME=A",
                   help="driver acceleration, file units per second squared")
    p.add_argument("--out", metavar="FILE.csv", help="CSV output (default: standard output)")
    p.add_argument("--plot", metavar="FILE.png", help="point trajectories")
    p.add_argument("--points", metavar="P,Q", help="points to plot (default: all)")
    p.add_argument("--animate", metavar="FILE.gif", help="animation of the sweep")
    p.set_defaults(handler=cmd_sweep)

    p = sub.add_parser("simulate", help="dynamic response")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--t-end", type=float, required=True, metavar="T", help="end time, s")
    p.add_argument("--q0", action="append", default=[], metavar="NAME=V",
                   help="initial value of an independent coordinate, file units")
    p.add_argument("--qd0", action="append", default=[], metavar="NAME=V",
                   help="initial rate of an independent coordinate, file units per second")
    p.add_argument("--samples", type=int, metavar="N", help="number of stored times (default: the solver's)")
    p.add_argument("--out", metavar="FILE.csv")
    p.add_argument("--plot", metavar="FILE.png")
    p.set_defaults(handler=cmd_simulate)

    p = sub.add_parser("plot", help="curves of CSV columns")
    p.add_argument("csv", metavar="FILE.csv")
    p.add_argument("--x", required=True, metavar="COL")
    p.add_argument("--y", required=True, metavar="COL[,COL...]")
    p.add_argument("--out", metavar="FILE.png", help="default: FILE.png beside the CSV")
    p.set_defaults(handler=cmd_plot)

    p = sub.add_parser("suspension", help="suspension analysis of corner or axle files: metric CSV and sheet")
    p._negative_number_matcher = _RANGE_ARGUMENT
    p.add_argument("model", metavar="MODEL", nargs="+",
                   help="model file(s) with a [corner] table (or [axle]); several: compare the designs")
    p.add_argument("--analysis", choices=("parallel", "opposite", "roll", "steering", "combined"),
                   help="parallel or opposite wheel travel, body roll, steering, or steering at several travels")
    p.add_argument("--travel", metavar="START:STOP:STEP",
                   help="wheel travel in the file's length unit (+ bump); for steering one value, for combined "
                   "the levels")
    p.add_argument("--roll", metavar="START:STOP:STEP", help="roll angle in the file's angle unit (+ right side down)")
    p.add_argument("--rack", metavar="START:STOP:STEP", help="steering variable (rack travel) in the file's units")
    p.add_argument("--steering-wheel", metavar="START:STOP:STEP",
                   help="steering-wheel angle in the file's angle unit ([vehicle] rack_travel_per_turn)")
    p.add_argument("--travel-at", choices=("wheel-centre", "contact-patch"), default="wheel-centre",
                   help="where wheel travel is measured (default wheel-centre; contact-patch as SHARK)")
    p.add_argument("--axle", action="store_true", help="mirror a corner file into an axle")
    p.add_argument("--out", metavar="FILE.csv", help="metric CSV (default: standard output)")
    p.add_argument("--plot", metavar="FILE.png", help="the analysis's sheet")
    p.add_argument("--export-hardpoints", metavar="FILE.csv", help="write the model's hardpoint table")
    p.add_argument("--apply-hardpoints", metavar="FILE.csv", help="move the hardpoints a table lists ...")
    p.add_argument("--save", metavar="NEW.toml", help="... and write the moved model there (then analyse it)")
    p.set_defaults(handler=cmd_suspension)

    p = sub.add_parser(
        "study", help="design study: a corner or axle file's analysis for many hardpoint variants",
        description="Run one analysis of a corner or axle file for its nominal design and for every variant "
        "of a vary file (TOML: design = factorial, latin-hypercube, monte-carlo or offsets; [[vary]] hardpoint "
        "and range or spread, in the model file's units; see loops/study/designs.py and "
        "examples/double_wishbone_vary.toml). Writes the tidy table, one row per variant and position: variant, "
        "position, the varied coordinates, the input, then every metric, in the model file's units.",
        epilog="Variants that stop (a dead point, a closure failure) keep the positions they reached: their "
        "later rows are empty (NaN), stderr lists how many stopped and the first reasons, and the status is 0. "
        "A nominal design that does not complete the analysis is status 1 and nothing is written; a mistake in "
        "a file or an option is status 2 (one line on stderr); Ctrl-C is status 130 and nothing is written.")
    p._negative_number_matcher = _RANGE_ARGUMENT
    p.add_argument("model", metavar="MODEL", help="model file with a [corner] table (or [axle])")
    p.add_argument("--vary", required=True, metavar="VARY.toml", help="the variants: design and varied hardpoints")
    p.add_argument("--analysis", choices=("parallel", "opposite", "roll", "steering", "combined"),
                   default="parallel", help="parallel (default) or opposite wheel travel, body roll (opposite and "
                   "roll: an axle file), steering, or steering at several travels (combined)")
    p.add_argument("--travel", metavar="START:STOP:STEP",
                   help="wheel travel in the file's length unit (+ bump); for steering one value (default 0), for "
                   "combined the levels")
    p.add_argument("--roll", metavar="START:STOP:STEP", help="roll angle in the file's angle unit (+ right side down)")
    p.add_argument("--rack", metavar="START:STOP:STEP", help="steering variable (rack travel) in the file's units")
    p.add_argument("--travel-at", choices=("wheel-centre", "contact-patch"), default="wheel-centre",
                   help="where wheel travel is measured (default wheel-centre)")
    p.add_argument("--out", metavar="FILE.csv",
                   help="the tidy table (default: standard output, unless --summary or --plot is given)")
    p.add_argument("--summary", metavar="FILE.csv", help="per position: each metric's nominal, mean, std, min, "
                   "p5, p50, p95 and max over the variants")
    p.add_argument("--plot", metavar="FILE.png", help="band sheet: nominal, p5-p95 band, min and max per metric")
    p.add_argument("--metrics", metavar="M,N", help="metrics of the band sheet (default: the analysis's first six)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler (tcp://host:8786) to run the chunks on")
    p.add_argument("--chunk-size", type=int, metavar="N", help="variants per chunk (default 500)")
    p.set_defaults(handler=cmd_study)
    return parser


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 stopped early, 2 user error)."""
    from mechanism.errors import KinematrixError, ModelError

    try:
        args = build_parser().parse_args(argv)
        return args.handler(args)
    except (UserError, ModelError) as exc:
        message = " ".join(str(exc).split("\n"))
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KinematrixError as exc:  # a solve failed in a way the command does not cover
        print(f"{PROG}: {' '.join(str(exc).splitlines())}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted (Ctrl-C)", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
