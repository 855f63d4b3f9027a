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

from loops.cli.arguments import INTERRUPTED, PROG, RANGE_ARGUMENT, SMALL_JOB_POSITIONS, STOPPED, UserError, \
    positions_of, range_values
from loops.cli.outputs import check_directory, check_distinct, check_image, check_standard_output, file_identity, \
    plot_call, report_held, write_stdout
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
    one, two of a group of which one is given, several values for a single one. ``suspension``:
    a Suspension or its file read (:class:`~loops.suspension.files.SuspensionFile`: its units
    and steering, so that the options are checked before the engine loads)."""
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
        if item.quantity == "text":
            if text is None and required:
                raise UserError(f"{item.option}: required by --analysis {kind}")
            if text is not None:
                out[item.name] = text
            continue
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
    return _given_option(args, item.option)


def _given_option(args, option):
    return getattr(args, option.removeprefix("--").replace("-", "_"))




def small_job(args) -> bool:
    """True for an analysis that does not compile first (``Analysis.compiles_first``: the
    kinematic ones) of at most :data:`~loops.cli.arguments.SMALL_JOB_POSITIONS` positions in all
    its model files (the product of its ranges' sizes: its kernels may run as plain Python on a
    cold cache, :mod:`dynamics.cli.kernel_mode`)."""
    chosen = ANALYSES.get(args.analysis)  # None without --analysis (a hardpoint export): no sweep to weigh
    if chosen is None or chosen.compiles_first:
        return False
    positions = len(args.model)
    for item in chosen.inputs:
        text = _given(args, item)
        if text is not None and item.quantity != "model":  # a single value counts 1
            count = positions_of(text, item.option)
            if count is None:
                return False
            positions *= count
    return positions <= SMALL_JOB_POSITIONS


def add_arguments(parser):
    parser._negative_number_matcher = RANGE_ARGUMENT
    parser.add_argument("model", metavar="MODEL", nargs="+",
                        help="model file(s) with a [corner] table (or [axle]); several: compare the designs "
                        "(files of the same [units])")
    add_input_options(parser)
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
        *names, last = ANALYSES
        raise UserError(f"--analysis: required ({', '.join(names)} or {last})")
    if len(args.model) > 1 and args.out is None and args.plot is None:
        raise UserError("several designs: name --out (one CSV each) or --plot (one sheet)")
    check_inputs_apply(args)


def check_inputs_apply(args, study=False):
    """A user error for an input option given to an analysis that does not take it (the
    registry's inputs; ``study``: those a design study takes)."""
    kind = args.analysis
    for option, takers in input_options(study).items():
        owners = [name for name, _ in takers]
        if _given_option(args, option) is None or kind in owners:
            continue
        if kind is None:
            raise UserError(f"{option}: only with --analysis")
        if option in ANALYSES[kind].notes:
            raise UserError(f"{option}: not with --analysis {kind} ({ANALYSES[kind].notes[option]})")
        raise UserError(f"{option}: only with --analysis {' or '.join(owners)}, not {kind}")


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


def read_designs(models):
    """The designs' files read (:class:`~loops.suspension.files.SuspensionFile`, not built yet),
    refused unless they share one set of units (the command line's ranges are read in them)."""
    from loops.suspension.files import read_suspension

    designs = [read_suspension(path) for path in models]
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

    designs = read_designs(models)
    entry = ANALYSES[args.analysis]
    inputs = [command_line_inputs(entry, args, design) for design in designs]  # before the engine loads
    suspensions = [design.build() for design in designs]
    results, status = [], 0
    for path, out, suspension, given in zip(models, outs, suspensions, inputs):
        if args.axle or entry.axle:
            suspension = suspension.axle()
        result, stopped = suspension_analysis(suspension, args, given)
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


def suspension_analysis(suspension, args, inputs):
    """Run ``args.analysis`` (the registry's) on ``suspension`` with its ``inputs`` (SI, from
    :func:`command_line_inputs`): ``(SuspensionResult, SweepStopped or None)``."""
    from mechanism.errors import SweepStopped

    entry = ANALYSES[args.analysis]
    try:
        return entry.run(suspension, travel_at=args.travel_at, **inputs), None
    except SweepStopped as stop:
        return stop.partial, stop
