"""``kinematrix study MODEL.toml --vary VARY.toml --analysis parallel --travel -80:80:4
[--out study.csv] [--summary summary.csv] [--plot bands.png --metrics camber,toe]
[--scheduler ADDRESS] [--chunk-size N]``: a design study of a corner or axle file: the nominal
design and every variant of a vary file through one analysis; the tidy table (one row per
variant and position), a summary per position and a band sheet.

Variants that stop are kept (their rows past the stop are NaN), listed on stderr with their
reasons, and the status is 0; a nominal design that does not complete the analysis is status
1 and nothing is written.
"""

import os
import sys

from loops.cli.arguments import PROG, RANGE_ARGUMENT, STOPPED, UserError, number
from loops.cli.outputs import check_directory, check_distinct, check_image, check_standard_output, plot_call, \
    report_held, write_table
from loops.suspension.analyses import ANALYSES
from loops.suspension.cli import add_input_options, check_inputs_apply, command_line_inputs

NAME = "study"
HELP = "design study: a corner or axle file's analysis for many hardpoint variants"
DESCRIPTION = (
    "Run one analysis of a corner or axle file for its nominal design and for every variant of a vary file (TOML: "
    "design = factorial, latin-hypercube, monte-carlo or offsets; [[vary]] hardpoint and range or spread, in the "
    "model file's units; see loops/study/designs.py and examples/double_wishbone_vary.toml). Writes the tidy "
    "table, one row per variant and position: variant, position, the varied coordinates, the input, then every "
    "metric, in the model file's units. A study of the compliance analysis may vary bushing rates too (hardpoint = "
    "'lower_front_left.kz', .kx ... .krz, in the file's N/mm and N mm/deg).")
EPILOG = (
    "Variants that stop (a dead point, a closure failure) keep the positions they reached: their later rows are "
    "empty (NaN), stderr lists how many stopped and the first reasons, and the status is 0. A nominal design that "
    "does not complete the analysis is status 1 and nothing is written; a mistake in a file or an option is "
    "status 2 (one line on stderr); Ctrl-C is status 130 and nothing is written.")
#: Stopped variants a study lists on stderr (with their reasons); the rest are counted.
LISTED = 5


def add_arguments(parser):
    parser.description, parser.epilog = DESCRIPTION, EPILOG
    parser._negative_number_matcher = RANGE_ARGUMENT
    parser.add_argument("model", metavar="MODEL", help="model file with a [corner] table (or [axle])")
    parser.add_argument("--vary", required=True, metavar="VARY.toml",
                        help="the variants: design and varied hardpoints")
    add_input_options(parser, study=True)
    parser.add_argument("--travel-at", choices=("wheel-centre", "contact-patch"), default="wheel-centre",
                        help="where wheel travel is measured (default wheel-centre)")
    parser.add_argument("--out", metavar="FILE.csv",
                        help="the tidy table (default: standard output, unless --summary or --plot is given)")
    parser.add_argument("--summary", metavar="FILE.csv", help="per position: each metric's nominal, mean, std, min, "
                        "p5, p50, p95 and max over the variants")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="band sheet: nominal, p5-p95 band, min and max per metric (FILE.html: an interactive "
                        "page, with the nominal design moving in 3-D)")
    parser.add_argument("--metrics", metavar="M,N", help="metrics of the band sheet (default: the analysis's first six)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler (tcp://host:8786) to run the chunks on")
    parser.add_argument("--scheduler-timeout", metavar="SECONDS", help="seconds to wait for the scheduler to answer "
                        "(default: $KINEMATRIX_SCHEDULER_TIMEOUT, else 10)")
    parser.add_argument("--chunk-size", type=int, metavar="N", help="variants per chunk (default 500)")


def study_plan(args, suspension):
    """The :class:`~loops.study.study.Plan` of ``--analysis`` and its ranges (file units -> SI):
    the registry's inputs a study takes; an option of another analysis is refused.
    ``suspension``: the design, or its file read (:class:`~loops.suspension.files.SuspensionFile`)."""
    from loops.study.study import Plan

    kind = args.analysis
    entry = ANALYSES[kind]
    check_inputs_apply(args, study=True)
    if entry.axle and not suspension.is_axle:
        raise UserError(f"--analysis {kind}: {os.path.basename(args.model)} is a corner; study an axle file "
                        "([axle] mirror = true, or left and right), whose hardpoints the vary file names "
                        "(lower_ball_left, ...)")
    items = [item for item in entry.inputs if item.plan is not None]
    inputs = command_line_inputs(entry, args, suspension, items, study=True)
    return Plan(kind, travel_at=args.travel_at, **{item.plan: inputs[item.name] for item in items
                                                   if item.name in inputs})


def output_options(args):
    """``(chunk size, metrics of the band sheet or None)``, the output options checked before
    the run (the sheet's image format and the scheduler's address apart: they load matplotlib
    and Dask)."""
    from loops.study.study import DEFAULT_CHUNK

    chunk = DEFAULT_CHUNK if args.chunk_size is None else args.chunk_size
    if chunk < 1:
        raise UserError(f"--chunk-size: expected a positive number of variants, got {chunk}")
    if args.metrics is not None and not args.plot:
        raise UserError("--metrics: the panels of --plot; name the sheet with --plot FILE.png")
    wanted = None if args.metrics is None else [m.strip() for m in args.metrics.split(",") if m.strip()]
    if wanted == []:
        raise UserError("--metrics: name at least one metric")
    if args.scheduler_timeout is not None and args.scheduler is None:
        raise UserError("--scheduler-timeout: the wait for a --scheduler; name the scheduler with --scheduler ADDRESS")
    if args.scheduler is not None:
        scheduler_seconds(args.scheduler_timeout)
    outputs = (("--out", args.out), ("--summary", args.summary), ("--plot", args.plot))
    check_distinct([("MODEL", args.model), ("--vary", args.vary)], outputs)
    check_standard_output(None if args.out is None and not (args.summary or args.plot) else "")
    for option, path in outputs:
        check_directory(path, option)
    return chunk, wanted


def scheduler_seconds(text):
    """``--scheduler-timeout``'s seconds, checked by the cluster module (None: its default)."""
    if text is None:
        return None
    from loops.study.cluster import scheduler_timeout
    from mechanism.errors import ModelError

    try:
        return scheduler_timeout(number(text, "--scheduler-timeout"))
    except ModelError as error:
        raise UserError(f"--scheduler-timeout: {error.problem}") from None


def _check_scheduler(address):
    """Refuse, before any work, a ``--scheduler`` address Dask cannot use (the cluster module's
    one check), or a machine without Dask."""
    from loops.study.cluster import check_address

    try:
        check_address(address)
    except ImportError as exc:
        raise UserError(f"--scheduler: running on a Dask cluster needs the dask extra "
                        f"(pip install 'kinematrix[dask]'): {exc}") from None


def run(args) -> int:
    from loops.study.coordinates import parameters
    from loops.study.designs import read_vary
    from loops.study.study import check_parameters
    from loops.suspension.files import read_suspension

    # What needs neither a library nor the engine first, then what needs matplotlib's formats
    # or Dask's parser, then the engine: the vary file names the built design's hardpoints.
    design = read_suspension(args.model)
    plan = study_plan(args, design)
    chunk, wanted = output_options(args)
    check_image(args.plot, "--plot")
    if args.scheduler is not None:
        _check_scheduler(args.scheduler)
    suspension = design.build()
    names, offsets = read_vary(args.vary, suspension)
    coords = parameters(suspension.model, names)
    check_parameters(suspension, coords, offsets, plan.analysis)
    client, opened = _connected(args)
    try:
        return _run_study(args, suspension, coords, offsets, plan, chunk, wanted, client)
    finally:
        if opened:
            client.close()


def _connected(args):
    """``(client, opened)`` of ``--scheduler`` (``(None, False)`` without one): the scheduler must
    answer before the first kernel compiles, so that an unreachable one is said within
    ``--scheduler-timeout`` seconds, not after a first run's compilation."""
    if args.scheduler is None:
        return None, False
    from loops.study.cluster import connect

    return connect(args.scheduler, scheduler_seconds(args.scheduler_timeout))


def _run_study(args, suspension, coords, offsets, plan, chunk, wanted, client):
    """The study of ``run`` once its inputs are checked (``client``: the Dask client, or None)."""
    import numpy as np

    from loops.study.study import run_chunk, run_study

    # The nominal design first (milliseconds): a stop there is the analysis's, not a variant's.
    _, nominal, stopped = run_chunk(suspension, coords, np.zeros((1, len(coords))), plan)
    if stopped:
        print(f"{PROG}: the nominal design of {os.path.basename(args.model)} does not complete the {args.analysis} "
              f"analysis: {stopped[0]}; nothing written", file=sys.stderr)
        return STOPPED
    for name in wanted or []:
        if name not in nominal:
            raise UserError(f"--metrics: {name!r} is not a metric of the {args.analysis} analysis (metrics: "
                            f"{', '.join(nominal)})")
    result = run_study(suspension, coords, offsets, plan, chunk_size=chunk, scheduler=client,
                       progress=sys.stderr.isatty())

    if args.out is not None or not (args.summary or args.plot):
        write_table(result.to_csv, args.out)
    if args.summary:
        write_table(result.summary_to_csv, args.summary)
    if args.plot:
        from loops.study.sheets import plot_bands
        from loops.study.study import run_plan
        from loops.study.views import study_view

        plot_call(plot_bands, result, path=args.plot, metrics=wanted,
                  page=lambda: study_view(result, nominal=run_plan(suspension, plan), metrics=wanted))
    report_stopped_variants(result, args.vary)
    report_held(held_freedoms(suspension, plan), f"{os.path.basename(args.model)}: ")
    return 0


def report_stopped_variants(result, vary):
    """On stderr: how many variants of the vary file ``vary`` stopped, and the reasons of the
    first :data:`LISTED`."""
    if not result.reasons:
        return
    lines = [f"{PROG}: {len(result.reasons)} of {result.variants} variants of {os.path.basename(vary)} stopped; "
             "their rows past the stop are empty (NaN):"]
    lines += [f"  variant {v}: {reason}" for v, reason in list(result.reasons.items())[:LISTED]]
    if len(result.reasons) > LISTED:
        lines.append(f"  and {len(result.reasons) - LISTED} more")
    print("\n".join(lines), file=sys.stderr)


def held_freedoms(suspension, plan):
    """The variables the study's analysis holds (real freedoms no driver fixes): those of the
    nominal design's analysis at its first position."""
    from loops.study.study import plan_arguments
    from mechanism.errors import SweepStopped

    first = {name: values[:1] for name, values in plan.check().items()}
    try:
        result = ANALYSES[plan.analysis].run(suspension, travel_at=plan.travel_at, **plan_arguments(plan, first, 1))
    except SweepStopped as stop:
        result = stop.partial
    return result.held
