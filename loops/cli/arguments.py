"""Reading the command line: one-line user errors, exit statuses, ``NAME=VALUE`` assignments,
numbers and ``START:STOP:STEP`` ranges in the model file's units.

Every subcommand module imports these; the dispatcher (:mod:`dynamics.cli`) turns a
:class:`UserError` into one line on stderr and exit status :data:`USER_ERROR`.
"""

from __future__ import annotations

import argparse
import math
import re

#: The program's name, in messages and usage lines.
PROG = "kinematrix"
#: Exit status of a sweep, simulation or analysis that stopped early (the positions reached are written).
STOPPED = 1
#: Exit status of a user error: a bad model file, option or output file.
USER_ERROR = 2
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130
#: The most positions of a sweep or a kinematic analysis that runs its kernels as plain Python
#: on a cold cache (:mod:`dynamics.cli.kernel_mode`): at about 13 ms a position of an axle,
#: 400 cost some 5 s of processor time, against about 25 s of compiling the kernels.
SMALL_JOB_POSITIONS = 400

#: One number of a range as a user may write it: digits, or inf and nan (refused later as not finite).
_NUMBER = r"(?:[\d.]+(?:e[-+]?\d+)?|inf(?:inity)?|nan)"
#: "--travel -80:80:5", "--travel -inf:inf:1": a range that starts with a minus sign is a value, not an
#: option (argparse reads an argument that matches this as a number; set it as a parser's
#: ``_negative_number_matcher``).
RANGE_ARGUMENT = re.compile(rf"^-{_NUMBER}(?::[-+]?{_NUMBER})*$", re.IGNORECASE)


class UserError(Exception):
    """A mistake on the command line or in its inputs: one line, exit status 2."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block) and exit status 2."""

    def error(self, message):
        raise UserError(f"{message} (see '{self.prog} --help')")


def assignment(text, option):
    """``"NAME=VALUE"`` -> ``(NAME, VALUE)``, stripped; a :class:`UserError` naming ``option`` otherwise."""
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise UserError(f"{option} {text!r}: expected NAME=VALUE")
    return name.strip(), value.strip()


def number(text, what):
    """``text`` as a finite float; a :class:`UserError` naming ``what`` otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise UserError(f"{what}: {text!r} is not a finite number")
    return value


def positions_of(text, what="--drive"):
    """The number of values of ``START:STOP:STEP`` (:func:`parse_range`); None for bad text (the
    command itself says what is wrong)."""
    try:
        return len(parse_range(text, what))
    except UserError:
        return None


def parse_range(text, what="--drive"):
    """``START:STOP:STEP`` (or one number) -> ndarray of values, START and STOP included.

    With ``n = round((STOP - START) / STEP)`` (halves rounded up) the values are
    ``START + k STEP`` for ``k = 0 .. n``, the last of them replaced by STOP (with ``n = 0``:
    START and STOP). The last step is therefore between half a step and one and a half steps
    long: ``0:10:3`` gives 0, 3, 6, 10; ``0:10:4`` gives 0, 4, 8, 10; ``0:0.2:1`` gives 0, 0.2.
    """
    import numpy as np

    parts = text.split(":")
    if len(parts) == 1:
        return np.array([number(parts[0], what)])
    if len(parts) != 3:
        raise UserError(f"{what}: {text!r} is neither a number nor START:STOP:STEP")
    start, stop, step = (number(p, what) for p in parts)
    if start == stop:
        return np.array([start])
    if step == 0.0 or (stop - start) * step < 0.0:
        raise UserError(f"{what}: STEP {parts[2]} does not lead from {parts[0]} to {parts[1]}")
    from loops.sweep import MAX_POSITIONS

    if not math.isfinite(stop - start):
        raise UserError(f"{what}: {text!r}: STOP - START is beyond the largest floating-point number")
    span = (stop - start) / step
    if not math.isfinite(span):  # a step too small to count (0:1:1e-320)
        raise UserError(f"{what}: {text!r} gives too many positions (at most {MAX_POSITIONS})")
    steps = math.floor(span + 0.5)
    if steps + 1 > MAX_POSITIONS:
        raise UserError(f"{what}: {text!r} gives {steps + 1} positions (at most {MAX_POSITIONS})")
    if steps == 0:  # STOP is less than half a step away: go straight there
        return np.array([start, stop])
    values = start + step * np.arange(steps + 1, dtype=float)
    values[-1] = stop
    return values


def range_values(units, text, option, quantity, kind, required=True):
    """The values of a range option (``START:STOP:STEP`` in the file's units), SI; None when
    not given and not ``required`` by ``--analysis kind``.

    ``units`` is the model file's :class:`mechanism.units.Units`; ``quantity`` ``"length"`` or ``"angle"``.
    """
    if text is None:
        if required:
            raise UserError(f"{option}: required by --analysis {kind}")
        return None
    return units.to_si(parse_range(text, option), quantity)


def variable_quantities(model):
    """Pair variable (and point driver) name -> ``"angle"`` or ``"length"``, of a model snapshot."""
    out = {}
    for pair in model.pairs:
        for name, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
            out[name] = "angle" if rotational else "length"
    for driver in model.point_drivers:
        out[driver.name] = "length"
    return out


def quantity_of(quantities, name, option):
    """``quantities[name]``; a :class:`UserError` naming ``option`` and the known names otherwise."""
    if name not in quantities:
        known = ", ".join(quantities) or "none"
        raise UserError(f"{option} {name}: not a pair variable or point driver of the model (known: {known})")
    return quantities[name]
