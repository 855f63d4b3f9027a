"""``kinematrix plot res.csv --x A --y C,D [--out curves.png]``: curves of the columns of a
kinematrix CSV file (a sweep's, a simulation's, a suspension analysis's)."""

import os

from .arguments import UserError
from .outputs import check_image, plot_call

NAME = "plot"
HELP = "curves of CSV columns"


def add_arguments(parser):
    parser.add_argument("csv", metavar="FILE.csv")
    parser.add_argument("--x", required=True, metavar="COL")
    parser.add_argument("--y", required=True, metavar="COL[,COL...]")
    parser.add_argument("--out", metavar="FILE.png", help="default: FILE.png beside the CSV")


def run(args) -> int:
    from loops import plotting

    columns = [c.strip() for c in args.y.split(",") if c.strip()]
    if not columns:
        raise UserError("--y: name at least one column")
    out = args.out or os.path.splitext(args.csv)[0] + ".png"
    check_image(out, "--out")
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
    plot_call(plotting.plot_curves, x, curves, path=out, x_label=args.x,
              y_label=", ".join(columns), title=os.path.basename(args.csv))
    print(out)
    return 0
