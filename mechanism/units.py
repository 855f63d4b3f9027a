"""Units of model files and of every file kinematrix writes (CSV, TOML, tables of metrics).

One rule for every writer: the caller says the units; the default is the model file's own
units (SI for a model built in Python, see :attr:`mechanism.Mechanism.units`); the file
states which units it holds (a CSV file's first line is :meth:`Units.comment`, for example
``# units: length=mm angle=deg time=s``); and each number is written as the shortest
decimal that converts back to exactly the value in memory (:meth:`Units.from_si`).

In memory everything is SI and radians. A file chooses its length unit (m or mm) and its
angle unit (rad or deg); mass is always kg, time s and force N. Every quantity has a
*dimension*, a product of powers of the base dimensions ``length``, ``angle``, ``time``,
``mass`` and ``force``, written as an expression:

=====================  ==============================  ================
dimension              example                         with mm and deg
=====================  ==============================  ================
``length``             a point coordinate              mm
``angle``              a revolute pair's angle         deg
``angle/length``       camber gain                     deg/mm
``length/angle``       a motion ratio per degree       mm/deg
``force/length``       a spring rate                   N/mm
``force*length/angle`` a torsion spring                N mm/deg
``mass*length^2``      an inertia                      kg mm^2
``length/time^2``      gravity                         mm/s^2
``dimensionless``      a ratio (also ``""``, ``none``)  (none)
``percent``            anti-dive                       %
=====================  ==============================  ================

Two named quantities hold values per a unit of their own, as ``percent`` per hundred: the
compliances ``angle_per_kilonewton`` (rad per kN in memory, deg/kN with deg) and
``angle_per_100_newton_metres`` (rad per 100 N m; deg/100 N m).

Rates of a column (``_dot``, ``_ddot``) are per second: time is always s, so they scale as
their column. The named quantities of model files (:data:`QUANTITIES`, for example
``"angular_stiffness"``) may be used wherever a dimension is expected.

Examples
--------
>>> from mechanism.units import Units
>>> mm_deg = Units("mm", "deg")
>>> mm_deg.from_si(0.415, "length"), mm_deg.label("angle/length"), mm_deg.comment()
(415.0, 'deg/mm', '# units: length=mm angle=deg time=s')
>>> mm_deg.to_si(90.0, "angle") == 3.141592653589793 / 2
True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .errors import ModelError

__all__ = ["Units", "QUANTITIES", "LENGTH_UNITS", "ANGLE_UNITS", "BASE_DIMENSIONS", "dimension_powers", "SI",
           "COLUMNS_NOTE"]

#: Length units of a file and their size in metres.
LENGTH_UNITS = {"m": 1.0, "mm": 1e-3}
#: Angle units of a file and their size in radians.
ANGLE_UNITS = {"rad": 1.0, "deg": math.pi / 180.0}
#: Base dimensions, in the order their units are written in a label's numerator.
BASE_DIMENSIONS = ("force", "mass", "length", "time", "angle")
#: Order of the base dimensions in a label's denominator.
_DENOMINATOR_ORDER = ("length", "angle", "time", "mass", "force")

#: Named quantities of model files -> their dimension (see mechanism/model_file.py).
QUANTITIES = {
    "length": "length",
    "angle": "angle",
    "inertia": "mass*length^2",
    "acceleration": "length/time^2",
    "pitch": "length",  # per turn, whatever the angle unit
    "linear_stiffness": "force/length",
    "linear_damping": "force*time/length",
    "quadratic_damping": "force*time^2/length^2",  # a hydraulic damper's c in c v |v|
    "angular_stiffness": "force*length/angle",
    "angular_damping": "force*length*time/angle",
    "torque": "force*length",
    "force": "force",
    "mass": "mass",
    "time": "time",
    "none": "dimensionless",
    "percent": "dimensionless",  # a ratio in percent (anti-dive), labelled %
    # compliances, held per kN and per 100 N m as percent is per hundred: angle/kN, angle/(100 N m)
    "angle_per_kilonewton": "angle/force",
    "angle_per_100_newton_metres": "angle/force",  # labelled per 100 N m: no length to scale
}
#: What introduces, at the end of a CSV file's units line, each column's unit
#: (:meth:`Units.comment`; ``kinematrix plot`` reads it back).
COLUMNS_NOTE = "; columns: "
_LABEL_OVERRIDES = {"pitch": "{length}/rev", "percent": "%", "angle/angle": "{angle}/{angle}",
                    "angle_per_kilonewton": "{angle}/kN", "angle_per_100_newton_metres": "{angle}/100 N m"}
_DIMENSIONLESS = ("", "1", "none", "dimensionless")
_FACTOR = re.compile(r"^([A-Za-z_]+)(?:\^(-?\d+))?$")


@lru_cache(maxsize=256)
def dimension_powers(dimension: str) -> tuple:
    """Powers of ``BASE_DIMENSIONS`` in a dimension expression, as a tuple of ints.

    ``"force*length/angle"`` -> ``(1, 0, 1, 0, -1)``. Factors are joined by ``*`` (or
    blanks), each may carry a power ``^k``; every ``/`` puts what follows it in the
    denominator. Named quantities (:data:`QUANTITIES`) expand to their dimension.

    Raises
    ------
    ModelError
        For anything that is not such an expression (located at ``dimension``).
    """
    if not isinstance(dimension, str):
        raise ModelError("dimension", f"expected a dimension such as 'angle/length', got {dimension!r}")
    text = dimension.strip()
    if text in _DIMENSIONLESS:
        return (0,) * len(BASE_DIMENSIONS)
    if text in QUANTITIES and QUANTITIES[text] != text:
        return dimension_powers(QUANTITIES[text])
    powers = [0] * len(BASE_DIMENSIONS)
    for part_index, part in enumerate(text.split("/")):
        sign = 1 if part_index == 0 else -1
        factors = [f for f in re.split(r"[*\s]+", part.strip()) if f]
        if not factors:
            if part_index == 0 and part.strip() == "1":
                continue
            raise ModelError("dimension", f"malformed dimension {dimension!r}")
        for factor in factors:
            if factor == "1":
                continue
            found = _FACTOR.match(factor)
            if not found:
                raise ModelError("dimension", f"malformed factor {factor!r} in dimension {dimension!r}")
            name, power = found.group(1), int(found.group(2) or 1)
            if name in BASE_DIMENSIONS:
                powers[BASE_DIMENSIONS.index(name)] += sign * power
            elif name in QUANTITIES or name in _DIMENSIONLESS:
                inner = dimension_powers(name)
                for i, p in enumerate(inner):
                    powers[i] += sign * power * p
            else:
                raise ModelError("dimension", f"unknown dimension {name!r} in {dimension!r} (base dimensions: "
                                 f"{', '.join(BASE_DIMENSIONS)}; or a named quantity such as 'angular_stiffness')")
    return tuple(powers)


def _length_angle(dimension):
    powers = dimension_powers(dimension)
    return powers[BASE_DIMENSIONS.index("length")], powers[BASE_DIMENSIONS.index("angle")]


@dataclass(frozen=True)
class Units:
    """Units of a file: ``length`` in {"m", "mm"}, ``angle`` in {"rad", "deg"} (time s, mass kg, force N).

    :meth:`to_si` converts file values to SI and radians; :meth:`from_si` converts back,
    choosing for each value the shortest number that :meth:`to_si` maps to it exactly (so
    that files read back to the values in memory, and a 415 mm coordinate is written 415.0,
    not 415.00000000000006); :meth:`factor` is the plain SI -> file multiplier;
    :meth:`label` names the unit of a dimension, :meth:`comment` is the line a CSV file
    opens with.
    """

    length: str = "m"
    angle: str = "rad"

    def __post_init__(self):
        if not isinstance(self.length, str) or self.length not in LENGTH_UNITS:
            raise ModelError("units: length", f"unknown unit {self.length!r} (expected m or mm)")
        if not isinstance(self.angle, str) or self.angle not in ANGLE_UNITS:
            raise ModelError("units: angle", f"unknown unit {self.angle!r} (expected rad or deg)")

    @classmethod
    def of(cls, units) -> "Units":
        """``None`` (SI), a :class:`Units`, a ``(length, angle)`` pair or a dict with those keys."""
        if units is None:
            return cls()
        if isinstance(units, Units):
            return units
        if isinstance(units, dict):
            extra = [key for key in units if key not in ("length", "angle")]
            if extra:
                raise ModelError("units", f"unknown key {extra[0]!r} (expected length, angle)")
            return cls(**units)
        if isinstance(units, (tuple, list)) and len(units) == 2:
            return cls(*units)
        raise ModelError("units", f"expected (length, angle) such as ('mm', 'deg'), got {str(units)[:60]}")

    @property
    def is_si(self) -> bool:
        """True for metres and radians."""
        return self.length == "m" and self.angle == "rad"

    # ------------------------------------------------------------- conversion
    def _steps(self, dimension):
        """``SI = (x * angle_multiplier) / length_divisor * length_multiplier``: at most three
        roundings, each monotone, so that :meth:`from_si` can search exact preimages."""
        p, a = _length_angle(dimension)
        angle_mult = ANGLE_UNITS[self.angle] ** a if a else 1.0
        length_div = length_mul = 1.0
        if self.length == "mm" and p:
            if p > 0:
                length_div = 1000.0 ** p
            else:
                length_mul = 1000.0 ** (-p)
        return angle_mult, length_div, length_mul

    def factor(self, dimension) -> float:
        """SI -> file multiplier of ``dimension`` (for example 1000 for a length in mm)."""
        angle_mult, length_div, length_mul = self._steps(dimension)
        return length_div / (angle_mult * length_mul)

    def to_si(self, value, dimension):
        """File value(s) -> SI; ``value`` a number or an array (returned as float / ndarray)."""
        angle_mult, length_div, length_mul = self._steps(dimension)
        x = np.asarray(value, dtype=float)
        if angle_mult != 1.0:
            x = x * angle_mult
        if length_div != 1.0:
            x = x / length_div
        if length_mul != 1.0:
            x = x * length_mul
        return float(x) if x.ndim == 0 else x

    def from_si(self, value, dimension):
        """SI value(s) -> file units, each the shortest number that :meth:`to_si` maps back exactly.

        For a value that no file number maps to exactly (possible only for values that did
        not come from a file), the value reached through the nearest file number is used,
        so that writing, reading and writing again gives the same text. Zeros and
        non-finite values are kept as they are.
        """
        arr = np.asarray(value, dtype=float)
        if self.factor(dimension) == 1.0:
            out = arr.copy()
        else:
            out = self._preimages(arr.ravel(), dimension)[0].reshape(arr.shape)
        return float(out) if out.ndim == 0 else out

    def texts(self, values, dimension) -> list:
        """``repr`` of each of :meth:`from_si` ``(values, dimension)`` (1-D), the text a CSV
        cell holds: found by the same search, which has written each candidate's text to
        compare their lengths, rather than written again."""
        arr = np.asarray(values, dtype=float).ravel()
        if self.factor(dimension) == 1.0:
            return list(map(repr, arr.tolist()))
        return self._preimages(arr, dimension)[1]

    def _preimages(self, si, dimension, spread=4, depth=0):
        """Per element of ``si`` (1-D): the shortest float near ``si * factor`` that
        :meth:`to_si` maps to it exactly, and its ``repr`` (a list); elements without one go
        through the value that the nearest estimate reaches. The estimate itself is the one
        for nearly every element: its text is written for all at once, the other candidates'
        only where they map back."""
        with np.errstate(over="ignore", invalid="ignore"):
            estimate = si * self.factor(dimension)
        todo = np.isfinite(si) & (si != 0.0) & np.isfinite(estimate)
        out = np.where(todo, estimate, si)  # zeros and non-finite values stay as they are
        text = list(map(repr, out.tolist()))
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            hit = todo & (self.to_si(estimate, dimension) == si)
        best = np.where(hit, np.fromiter(map(len, text), float, len(text)), np.inf)
        up = down = estimate
        for _ in range(spread):  # in order of distance, so ties in length keep the closest
            up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
            for candidate in (up, down):
                with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                    hit = todo & (self.to_si(candidate, dimension) == si)
                for index, value in zip(np.flatnonzero(hit).tolist(), candidate[hit].tolist()):
                    written = repr(value)
                    if len(written) < best[index]:
                        out[index], best[index], text[index] = value, len(written), written
        missing = np.flatnonzero(todo & np.isinf(best))
        if missing.size:
            if depth >= 3:  # pragma: no cover - the nearest estimate always has a preimage
                found = estimate[missing], [repr(value) for value in estimate[missing].tolist()]
            else:
                with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                    reached = np.atleast_1d(self.to_si(estimate[missing], dimension))
                found = self._preimages(reached, dimension, spread, depth + 1)
            out[missing] = found[0]
            for index, written in zip(missing.tolist(), found[1]):
                text[index] = written
        return out, text

    # ----------------------------------------------------------------- labels
    def label(self, dimension, order=0) -> str:
        """Unit of ``dimension`` in these units, per second ``order`` times (``"N mm/deg"``,
        ``"deg/s"``; ``""`` for a dimensionless value)."""
        if isinstance(dimension, str) and dimension in _LABEL_OVERRIDES and not order:
            return _LABEL_OVERRIDES[dimension].format(length=self.length, angle=self.angle)
        powers = list(dimension_powers(dimension))
        powers[BASE_DIMENSIONS.index("time")] -= int(order)
        unit = {"force": "N", "mass": "kg", "length": self.length, "time": "s", "angle": self.angle}

        def term(name, power):
            return unit[name] if power == 1 else f"{unit[name]}^{power}"

        numerator = [term(n, powers[BASE_DIMENSIONS.index(n)]) for n in BASE_DIMENSIONS
                     if powers[BASE_DIMENSIONS.index(n)] > 0]
        denominator = [term(n, -powers[BASE_DIMENSIONS.index(n)]) for n in _DENOMINATOR_ORDER
                       if powers[BASE_DIMENSIONS.index(n)] < 0]
        text = " ".join(numerator)
        if denominator:
            text = f"{text or '1'}/{' '.join(denominator)}"
        return text

    def show(self, value, dimension, order=0) -> str:
        """``value`` (SI) in these units with its unit, for a message: ``"90 deg"``, ``"12.5 mm/s"``."""
        label = self.label(dimension, order)
        number = f"{float(value) * self.factor(dimension):.6g}"
        return f"{number} {label}" if label else number

    def comment(self, dimensions=(), note=None, columns=()) -> str:
        """The one comment line a CSV file in these units begins with (then its header row):
        ``# units: length=mm angle=deg time=s``, with ``force=N`` and ``mass=kg`` added when one
        of the columns' ``dimensions`` holds a force or a mass, ``; note`` after them (what else
        the file must say), and last each column's unit, ``; columns: wheel_travel=mm;
        camber=deg; camber_gain=deg/mm`` (``1`` for a dimensionless column; no comma, so that a
        CSV reader sees a plain sweep's units line as one cell). ``columns`` are ``(name,
        dimension, order)``: the unit is :meth:`label`'s."""
        line = f"# units: length={self.length} angle={self.angle} time=s"
        powers = [dimension_powers(d) for d in dimensions]
        for base, unit in (("force", "N"), ("mass", "kg")):
            if any(p[BASE_DIMENSIONS.index(base)] for p in powers):
                line += f" {base}={unit}"
        if note:
            line += f"; {note}"
        if columns:
            line += COLUMNS_NOTE + "; ".join(f"{name}={self.label(dimension, order) or '1'}"
                                            for name, dimension, order in columns)
        return line

    def __str__(self):
        return f"{self.length}, {self.angle}"


#: SI units (metres, radians): the units of a model built in Python.
SI = Units()
