"""``kinematrix suspension MODEL.toml [MORE.toml ...] --analysis parallel --travel -80:80:5
[--out metrics.csv] [--plot sheet.png]``: a standard analysis of corner or axle files (their
``[corner]``, ``[vehicle]``, ``[axle]`` tables), its metric CSV and sheet; hardpoint tables out
and back in. Several model files are several designs, in files of the same units: one CSV each
(``--out m.csv`` becomes ``m-<file>.csv``, ``m-<folder>-<file>.csv`` for files of the same
name), their curves overlaid on one sheet.

Nothing is written before every option and file name is checked: no output may be an input
or another output. A stop keeps the positions reached (none reached: nothing is written, an
earlier file stays); Ctrl-C writes the positions reached and exits 130.
"""

import os
import sys

from loops.cli.arguments import INTERRUPTED, PROG, RANGE_ARGUMENT, STOPPED, UserError, range_values
from loops.cli.outputs import check_directory, check_distinct, check_image, check_standard_output, file_identity, \
    plot_call, report_held, write_stdout

NAME = "suspension"
HELP = "suspension analysis of corner or axle files: metric CSV and sheet"
#: The analyses of ``--analysis``, as the command line names them (those of
#: :data:`loops.suspension.analyses.ANALYSES`, which a test holds them to; the registry is not
#: imported here, so that ``kinematrix --help`` needs no engine).
ANALYSIS_CHOICES = ("parallel", "opposite", "roll", "steering", "combined")
#: The range options and the analyses each applies to.
RANGE_OPTIONS = {"--rack": ("steering", "combined"), "--steering-wheel": ("steering", "combined"),
                 "--roll": ("roll",)}


def add_arguments(parser):
    parser._negative_number_matcher = RANGE_ARGUMENT
    parser.add_argument("model", metavar="MODEL", nargs="+",
                        help="model file(s) with a [corner] table (or [axle]); several: compare the designs "
                        "(files of the same [units])")
    parser.add_argument("--analysis", choices=ANALYSIS_CHOICES,
                        help="parallel or opposite wheel travel, body roll, steering, or steering at several "
                        "travels")
    parser.add_argument("--travel", metavar="START:STOP:STEP",
                        help="wheel travel in the file's length unit (+ bump); for steering one value, for "
                        "combined the levels")
    parser.add_argument("--roll", metavar="START:STOP:STEP",
                        help="roll angle in the file's angle unit (+ right side down)")
    parser.add_argument("--rack", metavar="START:STOP:STEP", help="steering variable (rack travel) in the file's units")
    parser.add_argument("--steering-wheel", metavar="START:STOP:STEP",
                        help="steering-wheel angle in the file's angle unit ([vehicle] rack_travel_per_turn)")
    parser.add_argument("--travel-at", choices=("wheel-centre", "contact-patch"), default="wheel-centre",
                        help="where wheel travel is measured (default wheel-centre; contact-patch as SHARK)")
    parser.add_argument("--axle", action="store_true", help="mirror a corner file into an axle")
    parser.add_argument("--out", metavar="FILE.csv", help="metric CSV (default: standard output)")
    parser.add_argument("--plot", metavar="FILE.png", help="the analysis's sheet (FILE.html: an interactive page, the "
                        "suspension moving in 3-D beside the sheet's panels)")
    parser.add_argument("--export-hardpoints", metavar="FILE.csv", help="write the model's hardpoint table")
    parser.add_argument("--apply-hardpoints", metavar="FILE.csv", help="move the hardpoints a table lists ...")
    parser.add_argument("--save", metavar="NEW.toml", help="... and write the moved model there (then analyse it)")


def check_options(args):
    """The options' combinations, before any file is read or written."""
    if args.apply_hardpoints and (len(args.model) != 1 or not args.save):
        raise UserError("--apply-hardpoints: give one model file and --save NEW.toml")
    if args.save and not args.apply_hardpoints:
        raise UserError("--save: only with --apply-hardpoints")
    if args.export_hardpoints and len(args.model) != 1:
        raise UserError("--export-hardpoints: give one model file")
    kind = args.analysis
    if kind is None and not (args.export_hardpoints or args.apply_hardpoints):
        raise UserError("--analysis: required (parallel, opposite, roll, steering or combined)")
    if len(args.model) > 1 and args.out is None and args.plot is None:
        raise UserError("several designs: name --out (one CSV each) or --plot (one sheet)")
    given = {"--travel": args.travel, "--roll": args.roll, "--rack": args.rack, "--steering-wheel": args.steering_wheel}
    for option, value in given.items():
        if value is None:
            continue
        if kind is None:
            raise UserError(f"{option}: only with --analysis")
        if option in RANGE_OPTIONS and kind not in RANGE_OPTIONS[option]:
            raise UserError(f"{option}: only with --analysis {' or '.join(RANGE_OPTIONS[option])}, not {kind}")
    if kind == "roll" and args.travel is not None:
        raise UserError("--travel: not with --analysis roll (the wheel travels follow the roll angle, --roll)")


def csv_names(out, models):
    """The CSV file of each design: ``out`` for one, ``<stem>-<file><suffix>`` for several
    (``<stem>-<folder>-<file><suffix>`` for files of the same name in different folders)."""
    if out is None or len(models) == 1:
        return [out] * len(models)
    stem, suffix = os.path.splitext(out)
    names = [os.path.splitext(os.path.basename(path))[0] for path in models]
    names = [f"{os.path.basename(os.path.dirname(os.path.abspath(path)))}-{name}" if names.count(name) > 1 else name
             for name, path in zip(names, models)]
    outs = [f"{stem}-{name}{suffix or '.csv'}" for name in names]
    for i, name in enumerate(outs):
        if name in outs[:i]:
            first = models[outs.index(name)]
            raise UserError(f"MODEL {models[i]}: its CSV would be {name}, as {first}'s; compare files of different "
                            "names")
    return outs


def check_designs_once(models):
    """A user error when one design's file is named twice (by any name)."""
    seen = {}
    for path in models:
        key = file_identity(path, "MODEL")
        if key in seen:
            raise UserError(f"MODEL {path}: given twice (the same file as {seen[key]})")
        seen[key] = path


def check_files(args, outs):
    """The files named on the command line, before any is written: no output an input or
    another output, every output's folder there, standard output open if it takes the CSV, the
    sheet's format one that can be written (a page: plotly there)."""
    if args.analysis and len(outs) == 1:  # one design: its CSV goes to --out or standard output
        check_standard_output(outs[0])
    outputs = [("--save", args.save), ("--export-hardpoints", args.export_hardpoints), ("--plot", args.plot)]
    outputs += [("--out", out) for out in outs if out is not None]
    check_distinct([("MODEL", path) for path in args.model] + [("--apply-hardpoints", args.apply_hardpoints)],
                   outputs)
    for option, path in outputs:
        check_directory(path, option)
    check_image(args.plot, "--plot")


def hardpoint_tables(args):
    """``--apply-hardpoints`` with ``--save``, then ``--export-hardpoints``."""
    from loops.suspension.hardpoints import apply_hardpoints, write_hardpoints

    for option, path, write in (
            ("--save", args.save, lambda: apply_hardpoints(args.model[0], args.apply_hardpoints, args.save)),
            ("--export-hardpoints", args.export_hardpoints,
             lambda: write_hardpoints(args.save or args.model[0], args.export_hardpoints))):
        if path is None:
            continue
        try:
            write()
        except OSError as exc:
            raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None


def load_designs(models):
    """The designs' suspensions, refused unless their files share one set of units (the
    command line's ranges are read in them)."""
    from loops.suspension import load_suspension

    designs = [load_suspension(path) for path in models]
    first = designs[0].units
    for path, design in zip(models[1:], designs[1:]):
        if (design.units.length, design.units.angle) != (first.length, first.angle):
            raise UserError(f"MODEL {path}: lengths in {design.units.length} and angles in {design.units.angle}, "
                            f"but {models[0]} in {first.length} and {first.angle}: one range is read in one "
                            "file's units; compare designs whose files have the same [units]")
    return designs


def run(args) -> int:
    check_options(args)
    models = [args.save] if args.apply_hardpoints else list(args.model)
    check_designs_once(args.model)
    outs = csv_names(args.out, models)
    check_files(args, outs)
    hardpoint_tables(args)
    if args.analysis is None:
        return 0

    results, status = [], 0
    for path, out, suspension in zip(models, outs, load_designs(models)):
        if args.axle or args.analysis in ("opposite", "roll"):
            suspension = suspension.axle()
        result, stopped = suspension_analysis(suspension, args)
        name = os.path.basename(path)
        report_held(result.held, f"{name}: ")
        results.append(result)
        if stopped is not None and isinstance(stopped, KeyboardInterrupt):
            return interrupted(name, result, stopped, out)
        if stopped is not None:
            status = STOPPED
            print(f"{PROG}: {name}: analysis stopped after {len(result)} positions: {stopped.reason}"
                  + ("" if len(result) else "; nothing written"), file=sys.stderr)
            if not len(result):
                continue
        if out is None and len(models) == 1:
            write_stdout(result.to_csv(None))
        elif out is not None:
            write_csv(result, out)
    if args.plot:
        drawn = [r for r in results if len(r)]
        if drawn:
            from loops.suspension.sheets import plot_sheet
            from loops.suspension.views import suspension_view

            plot_call(plot_sheet, drawn, path=args.plot, page=lambda: suspension_view(drawn))
    return status


def write_csv(result, out):
    try:
        result.to_csv(out)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None


def interrupted(name, result, stop, out):
    """Ctrl-C during a design's analysis: its positions reached written (atomically), the
    stop said on stderr; status 130."""
    written = "nothing written"
    if len(result):
        if out is None:
            write_stdout(result.to_csv(None))
        else:
            write_csv(result, out)
        written = f"{len(result)} positions written" + (f" to {out}" if out else "")
    print(f"{PROG}: {name}: {stop.reason}; {written}", file=sys.stderr)
    return INTERRUPTED


def steering_quantity(suspension):
    """``"angle"`` or ``"length"``: what the suspension's steering variable (rack travel) is."""
    for pair in suspension.model.pairs:
        for name, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
            if name in suspension.steering:
                return "angle" if rotational else "length"
    return "length"
def suspension_analysis(suspension, args):
    """Run ``args.analysis`` on ``suspension`` with the ranges in the file's units:
    ``(SuspensionResult, SweepStopped or None)``."""
    from loops.suspension import analyses
    from mechanism.errors import SweepStopped

    kind = args.analysis

    def values(text, option, quantity, required=True):
        return range_values(suspension.units, text, option, quantity, kind, required)

    quantity = steering_quantity(suspension)
    options = {"travel_at": args.travel_at}
    try:
        if kind in ("parallel", "opposite"):
            run = analyses.parallel_travel if kind == "parallel" else analyses.opposite_travel
            return run(suspension, values(args.travel, "--travel", "length"), **options), None
        if kind == "roll":
            return analyses.roll(suspension, values(args.roll, "--roll", "angle"), **options), None
        if (args.rack is None) == (args.steering_wheel is None):
            raise UserError(f"--analysis {kind}: give --rack or --steering-wheel")
        steer = {"rack": values(args.rack, "--rack", quantity, False),
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
