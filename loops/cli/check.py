"""``kinematrix check MODEL.toml``: the loops, mobility and problems of a model (its
:class:`~loops.mobility.MobilityReport`, printed)."""

NAME = "check"
HELP = "loops, mobility and problems of a model"


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="TOML model file")


def small_job(args) -> bool:
    """Always: a check assembles the model once (its kernels may run as plain Python on a
    cold cache: :mod:`dynamics.cli.kernel_mode`)."""
    return True


def run(args) -> int:
    from mechanism.model_file import read_model

    print(read_model(args.model).mechanism.check())
    return 0
