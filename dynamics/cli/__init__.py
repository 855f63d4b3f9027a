"""The ``kinematrix`` command (also ``python -m dynamics``): one dispatcher over the subcommands.

Subcommands (DESIGN.md, "Model files and command line"), each in a module beside what it runs::

    kinematrix check    MODEL.toml                                       loops/cli/check.py
    kinematrix view     MODEL.toml [--drive A=0:360:5] [--out model.html]
                                                                         loops/cli/view.py
    kinematrix sweep    MODEL.toml --drive A=0:360:1 [--drive ...] [--speed A=1] [--acceleration A=0]
                        [--out res.csv] [--plot traj.png --points P,Q] [--animate sweep.gif]
                                                                         loops/cli/sweep.py
    kinematrix simulate MODEL.toml --t-end 2 [--q0 A=10] [--qd0 A=0] [--samples 201]
                        [--out sim.csv] [--plot sim.png]                 dynamics/cli/simulate.py
    kinematrix plot     res.csv --x A --y C,D [--out curves.png]         loops/cli/plot.py
    kinematrix suspension MODEL.toml [MORE.toml ...] --analysis parallel --travel -80:80:5
                        [--out metrics.csv] [--plot sheet.png]           loops/suspension/cli.py
    kinematrix study    MODEL.toml --vary VARY.toml --analysis parallel --travel -80:80:4
                        [--out study.csv] [--summary summary.csv] [--plot bands.png --metrics camber,toe]
                        [--scheduler ADDRESS] [--chunk-size N]           loops/study/cli.py

Every value on the command line and in the CSV files is in the model file's units (its
``[units]``: lengths in m or mm, angles in rad or deg; rates per second). ``START:STOP:STEP``
begins on START and ends exactly on STOP (see :func:`loops.cli.arguments.parse_range`:
``0:10:3`` gives 0, 3, 6, 10).

Exit status: 0 on success, 1 when a sweep or simulation stopped early (the positions or
samples it reached are still written; none reached: nothing is written; a study exits 0 when
variants stop, listing them, and 1 when its nominal design stops), 2 for user errors
(bad model file, bad option, unknown driver or point, a file that cannot be written), 130
after Ctrl-C (the positions or samples reached so far are written), each reported as one
line on stderr.

CSV files are written by :meth:`loops.results.Trajectory.to_csv`, the one CSV writer (the
columns of :meth:`~loops.results.Trajectory.columns`, a first line naming the units), in
the model file's units; the Python API writes the same bytes for the same units.

Adding a subcommand: write one module beside what it runs with ``NAME`` (the word on the
command line), ``HELP`` (one line for ``kinematrix --help``), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status; raise :class:`loops.cli.arguments.UserError` for a
user's mistake) and add it to :data:`COMMAND_MODULES`: one new module plus one line here. A
command imports only its own module (the others are listed by name); ``kinematrix --help``
and :data:`COMMANDS` import them all. Keep numpy, matplotlib and the engine inside ``run``,
so that ``kinematrix --help`` stays fast; inside ``run``, check every option against the model
read but not assembled (``read_model(path, assemble=False)``; a corner or axle file:
:func:`loops.suspension.files.read_suspension`) before ``loaded.assembled()`` or ``.build()``
runs the engine, and the checks that load matplotlib or Dask last, so that a user's mistake
is answered without numba, scipy, Dask or matplotlib (tests/test_user_errors_light.py).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

from dynamics.cli.kernel_mode import choose_kernels
from loops.cli.arguments import INTERRUPTED, PROG, STOPPED, USER_ERROR, ArgumentParser, UserError
from loops.cli.matplotlib_import import in_a_command_process

__all__ = ["main", "build_parser", "version", "COMMANDS", "COMMAND_MODULES"]

#: The subcommands: the word on the command line (the module's ``NAME``) and the module that
#: runs it, in the order ``kinematrix --help`` lists them.
COMMAND_MODULES = {
    "check": "loops.cli.check",
    "view": "loops.cli.view",
    "sweep": "loops.cli.sweep",
    "simulate": "dynamics.cli.simulate",
    "plot": "loops.cli.plot",
    "suspension": "loops.suspension.cli",
    "study": "loops.study.cli",
}


def __getattr__(name):
    """``COMMANDS``: the subcommands' modules, in the order of :data:`COMMAND_MODULES`, imported
    when asked for (a command imports only its own)."""
    if name == "COMMANDS":
        return tuple(command_module(word) for word in COMMAND_MODULES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def command_module(word):
    """The module of the subcommand ``word`` (a key of :data:`COMMAND_MODULES`), imported."""
    return importlib.import_module(COMMAND_MODULES[word])


def version() -> str:
    """The version of kinematrix: pyproject.toml's, as installed (or read from a source tree)."""
    from importlib import metadata

    try:
        return metadata.version("kinematrix")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        import tomllib

        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        try:
            with open(os.path.join(root, "pyproject.toml"), "rb") as handle:
                return tomllib.load(handle)["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown"


class _Version(argparse.Action):
    """``--version``: argparse's own action, except that the version is read (importlib.metadata,
    a twentieth of a small command's time) only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{PROG} {version()}")
        parser.exit()


def build_parser(command=None):
    """The command line's parser: one subparser per subcommand of :data:`COMMAND_MODULES`, its
    module's ``run`` the parsed arguments' ``handler``. ``command``: the word of the one
    subcommand to be parsed, whose module alone is imported and whose options alone are added
    (the others are only named: they cannot be parsed then); None: every subcommand's."""
    parser = ArgumentParser(prog=PROG, description="Kinematics and dynamics of spatial linkages "
                            "(Pavlov's matrix method). Values are in the model file's units.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    sub.required = True
    for word in COMMAND_MODULES:
        if command not in (None, word):
            sub.add_parser(word)
            continue
        module = command_module(word)
        subparser = sub.add_parser(word, help=module.HELP)
        module.add_arguments(subparser)
        subparser.set_defaults(handler=module.run)
    return parser


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 stopped early, 2 user error, 130 Ctrl-C).
    Run as the process's own command (``argv`` None: the ``kinematrix`` entry point, ``python -m
    dynamics``), a small job on a cold kernel cache runs its kernels as plain Python
    (:mod:`dynamics.cli.kernel_mode`), matplotlib is imported without its help
    (:mod:`loops.cli.matplotlib_import`) and the process's exit skips the cycle collector
    (:func:`_freeze_for_exit`); called with ``argv`` (from Python) it does none of these."""
    _one_blas_thread()
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        # a command named first is parsed by its own module's parser alone; anything else
        # (--help, --version, a mistake) by every subcommand's, as it lists them
        command = words[0] if words and words[0] in COMMAND_MODULES else None
        args = build_parser(command).parse_args(argv)
        if argv is None:
            choose_kernels(command_module(args.command), args)
            in_a_command_process()
        return args.handler(args)
    except UserError as exc:
        return _user_error(exc)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted (Ctrl-C)", file=sys.stderr)
        return INTERRUPTED
    except Exception as exc:
        # The model's errors are imported only when one is raised, so that --help needs no numpy.
        from mechanism.errors import KinematrixError, ModelError

        if isinstance(exc, ModelError):
            return _user_error(exc)
        if not isinstance(exc, KinematrixError):
            raise
        # a solve failed in a way the command does not cover
        print(f"{PROG}: {' '.join(str(exc).splitlines())}", file=sys.stderr)
        return STOPPED
    finally:
        if argv is None:
            _freeze_for_exit()


def _one_blas_thread():
    """One BLAS thread for the commands unless the user set a number (set before numpy loads, and
    inherited by a study's Dask workers): the engine's matrices are small, and BLAS threads only
    contend for the cores (a 62 x 62 Cholesky factorisation took 16 ms instead of 0.05 ms with
    OpenBLAS's threads on a busy 2-core machine; the README's command warm, 1.15 s of processor
    time against 0.84 s on a quiet one)."""
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")


def _freeze_for_exit():
    """Move every object to the collector's permanent generation (:func:`gc.freeze`) as the
    command ends: the interpreter's exit then frees them by their reference counts without
    first walking the objects of numba, llvmlite and numpy for cycles, which took about 0.1 s
    of a 0.5 s command. Nothing is lost: the command has closed its files by then, ``atexit``
    handlers (Dask's, :mod:`tempfile`'s) still run, and the standard streams are flushed."""
    gc.freeze()


def _user_error(exc) -> int:
    """One line on stderr for a user's mistake; the exit status 2."""
    message = " ".join(str(exc).split("\n"))
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return USER_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
