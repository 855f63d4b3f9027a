"""``kinematrix suspension MODEL.toml [MORE.toml ...] --analysis parallel --travel -80:80:5
[--out metrics.csv] [--plot sheet.png]``: a standard analysis of corner or axle files (their
``[corner]``, ``[vehicle]``, ``[axle]`` tables), its metric CSV and sheet; hardpoint tables out
and back in. Several model files are several designs: one CSV each (``--out m.csv`` becomes
``m-<file>.csv``), their curves overlaid on one sheet.
"""

import os
import sys

from loops.cli.arguments import PROG, RANGE_ARGUMENT, STOPPED, UserError, range_values
from loops.cli.outputs import plot_call

NAME = "suspension"
HELP = "suspension analysis of corner or axle files: metric CSV and sheet"
#: The analyses of ``--analysis``, as the command line names them.
ANALYSIS_CHOICES = ("parallel", "opposite", "roll", "steering", "combined")


def add_arguments(parser):
    parser._negative_number_matcher = RANGE_ARGUMENT
    parser.add_argument("model", metavar="MODEL", nargs="+",
                        help="model file(s) with a [corner] table (or [axle]); several: compare the designs")
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
    parser.add_argument("--plot", metavar="FILE.png", help="the analysis's sheet")
    parser.add_argument("--export-hardpoints", metavar="FILE.csv", help="write the model's hardpoint table")
    parser.add_argument("--apply-hardpoints", metavar="FILE.csv", help="move the hardpoints a table lists ...")
    parser.add_argument("--save", metavar="NEW.toml", help="... and write the moved model there (then analyse it)")


def hardpoint_tables(args):
    """``--export-hardpoints``, ``--apply-hardpoints`` and ``--save``: the model files to analyse
    (the saved one after ``--apply-hardpoints``)."""
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
    return models


def run(args) -> int:
    from loops.suspension import load_suspension

    models = hardpoint_tables(args)
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
        result, stopped = suspension_analysis(suspension, args)
        if stopped is not None:
            status = STOPPED
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

            plot_call(plot_sheet, drawn, path=args.plot)
    return status


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
