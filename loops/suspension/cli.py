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
from loops.suspension.analyses import ANALYSES

NAME = "suspension"
HELP = "suspension analysis of corner or axle files: metric CSV and sheet"
#: The analyses of ``--analysis``, as the command line names them (the registry's).
ANALYSIS_CHOICES = tuple(ANALYSES)


def input_options(study=False):
    """``{option: [Input of each analysis that takes it]}``, each option of the registry's inputs
    once, in the registry's order (``study``: the inputs a design study takes)."""
    out = {}
    for entry in ANALYSES.values():
        if study and not entry.study:
            continue
        for item in entry.inputs:
            if not study or item.plan is not None:
                out.setdefault(item.option, []).append((entry.name, item))
    return out


def add_input_options(parser, study=False):
    """``--analysis`` (the registry's names) and an option for every input of the registry."""
    entries = [entry for entry in ANALYSES.values() if entry.study or not study]
    parser.add_argument("--analysis", choices=tuple(entry.name for entry in entries),
                        **({"default": "parallel"} if study else {}),
                        help="; ".join(f"{entry.name}: {entry.description}" + (" (an axle)" if entry.axle else "")
                                       for entry in entries))
    for option, takers in input_options(study).items():
        item = takers[0][1]
        parser.add_argument(option, metavar="MODEL.toml" if item.quantity == "model" else "START:STOP:STEP",
                            help=item.help or item.what)


def single_value(option, kind, item, study=False):
    """The message for several values of an input that takes one."""
    what = item.what.removeprefix("the ")
    if study:
        return f"{option}: a {kind} study takes one {what} (--analysis {item.several} takes several)"
    return f"{option}: a {kind} analysis takes one {what} (use --analysis {item.several} for several)"


def command_line_inputs(entry, args, suspension, items=None, study=False):
    """``{keyword: value}`` of ``entry``'s inputs (``items``, default all) from the options, in
    SI: ranges in the model file's units, a second model file loaded; one line for a missing
    one, two of a group of which one is given, several values for a single one."""
    from loops.suspension import load_suspension

    kind, items = entry.name, list(entry.inputs if items is None else items)
    groups = {}
    for item in items:
        if item.one_of is not None:
            groups.setdefault(item.one_of, []).append(item)
    for members in groups.values():
        if len(members) > 1 and sum(_given(args, m) is not None for m in members) != 1:
            raise UserError(f"--analysis {kind}: give {' or '.join(m.option for m in members)}")
    out = {}
    for item in items:
        text = _given(args, item)
        required = item.required and not item.single and len(groups.get(item.one_of, ())) < 2
        if item.quantity == "model":
            if text is None and required:
                raise UserError(f"{item.option}: required by --analysis {kind}")
            if text is not None:
                out[item.name] = load_suspension(text)
            continue
        quantity = steering_quantity(suspension) if item.quantity == "steering" else item.quantity
        values = range_values(suspension.units, text, item.option, quantity, kind, required)
        if item.single:
            if values is not None and len(values) != 1:
                raise UserError(single_value(item.option, kind, item, study))
            out[item.name] = item.default if values is None else float(values[0])
        elif values is not None:
            out[item.name] = values
    return out


def _given(args, item):
    return getattr(args, item.option.removeprefix("--").replace("-", "_"))


def add_arguments(parser):
    parser._negative_number_matcher = RANGE_ARGUMENT
    parser.add_argument("model", metavar="MODEL", nargs="+",
                        help="model file(s) with a [corner] table (or [axle]); several: compare the designs")
    add_input_options(parser)
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
        *names, last = ANALYSES
        raise UserError(f"--analysis: required ({', '.join(names)} or {last})")
    if len(models) > 1 and args.out is None and args.plot is None:
        raise UserError("several designs: name --out (one CSV each) or --plot (one sheet)")

    results, status = [], 0
    for path in models:
        suspension = load_suspension(path)
        if args.axle or ANALYSES[args.analysis].axle:
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
    """Run ``args.analysis`` (the registry's) on ``suspension`` with the ranges in the file's
    units: ``(SuspensionResult, SweepStopped or None)``."""
    from mechanism.errors import SweepStopped

    entry = ANALYSES[args.analysis]
    inputs = command_line_inputs(entry, args, suspension)
    try:
        return entry.run(suspension, travel_at=args.travel_at, **inputs), None
    except SweepStopped as stop:
        return stop.partial, stop
