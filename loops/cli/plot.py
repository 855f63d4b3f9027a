"""``kinematrix plot res.csv --x A --y C,D [--out curves.png]``: curves of the columns of a
kinematrix CSV file (a sweep's, a simulation's, a suspension analysis's), the axes labelled
with the columns' units (the ``; columns:`` end of its units line).

Without ``--out`` the image is ``res.png`` beside the CSV, unless that file exists: then the
command refuses (exit 2) and asks for ``--out``, so that an image drawn before (a sweep's
``--plot``) is never replaced unasked.
"""

import os

from .arguments import UserError
from .outputs import check_distinct, check_image, plot_call

NAME = "plot"
HELP = "curves of CSV columns"


def add_arguments(parser):
    parser.add_argument("csv", metavar="FILE.csv")
    parser.add_argument("--x", required=True, metavar="COL")
    parser.add_argument("--y", required=True, metavar="COL[,COL...]")
    parser.add_argument("--out", metavar="FILE.png", help="default: FILE.png beside the CSV, unless that file "
                        "exists (only the file --out names is replaced); FILE.html: an interactive page")


def run(args) -> int:
    from loops import plotting

    columns = [c.strip() for c in args.y.split(",") if c.strip()]
    if not columns:
        raise UserError("--y: name at least one column")
    out = args.out
    if out is None:
        out = os.path.splitext(args.csv)[0] + ".png"
        if os.path.lexists(out):
            raise UserError(f"{out} exists: name the image with --out (to replace it, or another)")
    check_distinct([("FILE.csv", args.csv)], [("--out", out)])
    try:
        header, table = plotting.read_csv(args.csv)
        units = plotting.column_units(args.csv)
    except OSError as exc:
        raise UserError(f"cannot read {args.csv}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UserError(f"{args.csv}: {exc}") from None
    for name in [args.x] + columns:
        if name not in header:
            raise UserError(f"{args.csv}: no column {name!r} (columns: {', '.join(header)})")
    if not len(table):
        raise UserError(f"{args.csv}: no rows of values below the header (nothing to plot)")
    check_image(out, "--out")  # after the table: matplotlib's formats load matplotlib

    def label(name):
        unit = units.get(name, "")
        return f"{name} [{unit}]" if unit and unit != "1" else name

    x = table[:, header.index(args.x)]
    curves = {name: table[:, header.index(name)] for name in columns}
    x_label, y_label = label(args.x), ", ".join(label(name) for name in columns)

    def page():  # the interactive views are imported only for a page
        from loops.views import curves_view

        return curves_view(x, curves, x_label=x_label, y_label=y_label, title=os.path.basename(args.csv))

    plot_call(plotting.plot_curves, x, curves, path=out, x_label=x_label, y_label=y_label,
              title=os.path.basename(args.csv), page=page)
    print(out)
    return 0
