"""The command line's engine layer: the ``check``, ``sweep`` and ``plot`` subcommands, and the
helpers every subcommand shares (:mod:`.arguments`: reading options; :mod:`.outputs`: writing
files and reporting stops).

Each subcommand module has ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
the dispatcher, :mod:`dynamics.cli`, lists them. Nothing here imports numpy or the engine at
import time, so that ``kinematrix --help`` stays fast.
"""
