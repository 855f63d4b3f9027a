"""``kinematrix view MODEL.toml [--drive NAME=START:STOP:STEP] [--out FILE.html]``: the check to
make before analysing. The model alone in 3-D (its links, pairs by type, points, the ground),
each independent loop in its colour and the mobility report beside it, at the design pose or
moving through a sweep of ``--drive``: one interactive page (:func:`loops.views.mechanism_view`).

The page goes to ``--out``, by default the model file's name with ``.html`` in the current folder,
unless that file exists (then the command asks for ``--out``, as ``plot`` does for its image);
never over the model file. stderr says where it went. A sweep that stops shows the positions it
reached and exits 1.
"""

import os
import sys

from .arguments import PROG, STOPPED, UserError, variable_quantities
from .outputs import check_directory, check_distinct, check_image, is_page, plot_call
from .sweep import drivers_and_rates

NAME = "view"
HELP = "the model in 3-D with its loops and mobility report: an interactive page (.html)"


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="TOML model file")
    parser.add_argument("--drive", action="append", default=[], metavar="NAME=START:STOP:STEP",
                        help="move the model through a sweep of these driver values, in the file's units (as for "
                        "sweep); repeat for several drivers")
    parser.add_argument("--out", metavar="FILE.html", help="the page (default: MODEL.html in the current folder)")
    parser.set_defaults(speed=[], acceleration=[])  # the sweep's rates: none (drivers_and_rates reads them)


def page_path(args):
    """Where the page goes: ``--out``, or the model's name with ``.html`` in the current folder when
    no such file exists; a user error for a name that is not a page or that is the model file."""
    out = args.out
    if out is None:
        out = os.path.splitext(os.path.basename(args.model))[0] + ".html"
        if os.path.lexists(out):  # as plot's default image: never replaced unasked
            raise UserError(f"{out} exists: name the page with --out (to replace it, or another)")
    if not is_page(out):
        raise UserError(f"--out {out}: the page is an HTML file (name it FILE.html)")
    check_distinct([("MODEL", args.model)], [("--out", out)])
    check_image(out, "--out")
    check_directory(out, "--out")
    return out


def run(args) -> int:
    from mechanism.errors import SweepStopped
    from mechanism.model_file import read_model
    from loops.sweep import driver_table
    from loops.views import mechanism_view

    out = page_path(args)
    loaded = read_model(args.model, assemble=False)  # the drivers first: assembling loads the engine
    drivers, _ = drivers_and_rates(args, loaded.units, variable_quantities(loaded.mechanism.snapshot()))
    if drivers:
        driver_table(drivers)  # the sweep's own check of the drivers' lengths, before the engine loads
    mechanism = loaded.assembled()
    report = mechanism.check()
    result, status = None, 0
    if drivers:
        try:
            result = mechanism.sweep(drivers)
        except SweepStopped as stop:
            result, status = stop.partial, STOPPED
            print(f"{PROG}: sweep stopped after {len(result)} positions: {stop.reason}", file=sys.stderr)
    plot_call(None, path=out, page=lambda: mechanism_view(mechanism, report, result))
    print(f"{PROG}: wrote {out}", file=sys.stderr)
    return status
