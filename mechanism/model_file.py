"""TOML model files: :func:`load_model` reads one into a :class:`~mechanism.Mechanism`,
:func:`save_model` writes one back (DESIGN.md, "Model files and command line").

The file mirrors the builder's API one to one: ``name``, ``[units]``, ``[gravity]``, and
the arrays of tables ``[[links]]``, ``[[pairs]]``, ``[[points]]``, ``[[point_drivers]]``,
``[[pair_springs]]``, ``[[pair_forces]]``, ``[[spring_dampers]]``, ``[[point_forces]]``,
whose keys are the keyword names of :meth:`Mechanism.add_link`, ``add_pair`` (with
``links = [first, second]``), ``add_point``, ``add_point_driver``, ``add_pair_spring``,
``add_pair_force``, ``add_spring_damper`` and ``add_point_force``. A model whose pairs are
declared by link-local frames may carry ``[assemble.guess]`` (pair name = value or values,
as :meth:`Mechanism.assemble` takes them); loading then closes its loops.

Units
-----
``[units]`` declares ``length = "m" | "mm"`` and ``angle = "rad" | "deg"`` (default m and
rad). Values are converted to SI and radians when the file is read and back when it is
written, and nowhere else: in memory everything is SI. Mass is always kg, time s and force
N. With ``L`` the file's length unit and ``A`` its angle unit, the derived units are

==========================================  =================  ==================
quantity (keys)                             file unit          with mm and deg
==========================================  =================  ==================
lengths: ``at``, ``com``, ``at_a``,         L                  mm
``at_b``, ``free_length``, translation of
``frame_on_first``/``frame_on_second``
helical ``pitch``                           L per turn         mm/rev
``inertia`` (about the centre of mass)      kg L^2             kg mm^2
``gravity.vector``                          L/s^2              mm/s^2
spring-damper ``stiffness``                 N/L                N/mm
spring-damper ``damping``                   N s/L              N s/mm
pair spring on an angle: ``free_value``     A                  deg
  ``stiffness``                             N L/A              N mm/deg
  ``damping``                               N L s/A            N mm s/deg
pair spring on a slide or a point driver:   L, N/L, N s/L      mm, N/mm, N s/mm
``free_value``, ``stiffness``, ``damping``
pair force on an angle (a torque)           N L                N mm
pair force on a slide or a point driver     N                  N
point force ``force``                       N                  N
``assemble.guess`` (per pair variable)      A or L             deg or mm
``axis``, ``axes``, ``direction``           none (any length)  none
==========================================  =================  ==================

Forces in files are constants or tabulated time series ``{times = [...], values = [...]}``
(times in s); functions of time cannot be written to a file.

Errors
------
Every mistake raises :class:`~mechanism.errors.ModelError` whose message is one line
naming the file, the table with its index and name, and the key::

    four_bar.toml: pairs[2] ('C'): axis: zero-length direction [0, 0, 0]

The checks of values (shapes, finiteness, zero axes, unknown links, duplicate names) are
the builder's own: the reader calls ``Mechanism.add_*`` and re-locates its errors.

Exact round trips
-----------------
``load -> save -> load`` gives equal snapshots and ``save -> load -> save`` gives the
same bytes: floats are written with ``repr``, and each value is written as the shortest
number that the reader converts back to exactly the value in memory (a unit conversion,
or the builder's normalization of an axis, may otherwise move the last bit).
"""

from __future__ import annotations

import difflib
import math
import numbers
import os
import re
import tomllib
from dataclasses import dataclass

import numpy as np

from . import _validate as check_arg
from .atomic import write_text_atomically
from .errors import KinematrixError, ModelError
from .model import Mechanism
from .specs import GROUND

__all__ = ["load_model", "save_model", "read_model", "LoadedModel", "Units"]


# --------------------------------------------------------------------------- units
_LENGTH_UNITS = ("m", "mm")
_ANGLE_UNITS = ("rad", "deg")

#: quantity -> (power of length, power of angle); mass, time and force stay kg, s, N.
QUANTITIES = {
    "length": (1, 0),
    "angle": (0, 1),
    "inertia": (2, 0),
    "acceleration": (1, 0),
    "pitch": (1, 0),
    "linear_stiffness": (-1, 0),
    "linear_damping": (-1, 0),
    "angular_stiffness": (1, -1),
    "angular_damping": (1, -1),
    "torque": (1, 0),
    "force": (0, 0),
    "mass": (0, 0),
    "time": (0, 0),
    "none": (0, 0),
    # metric columns (loops.suspension): rates per length or angle, ratios, percentages
    "angle/length": (-1, 1),
    "length/angle": (1, -1),
    "angle/angle": (0, 0),
    "dimensionless": (0, 0),
    "percent": (0, 0),
    "force/length": (-1, 0),
}


@dataclass(frozen=True)
class Units:
    """The units of a model file: ``length`` in {"m", "mm"}, ``angle`` in {"rad", "deg"}.

    :meth:`to_si` converts file values to SI and radians, :meth:`from_si` back (for
    writing files, choosing the shortest number that converts back exactly), and
    :meth:`factor` gives the plain SI -> file multiplier for tabulated output.
    """

    length: str = "m"
    angle: str = "rad"

    def __post_init__(self):
        if self.length not in _LENGTH_UNITS:
            raise ModelError("units: length", f"unknown unit {self.length!r} (expected m or mm)")
        if self.angle not in _ANGLE_UNITS:
            raise ModelError("units: angle", f"unknown unit {self.angle!r} (expected rad or deg)")

    @classmethod
    def of(cls, units) -> "Units":
        """``None`` (SI), a :class:`Units`, a ``(length, angle)`` pair or a dict."""
        if units is None:
            return cls()
        if isinstance(units, Units):
            return units
        if isinstance(units, dict):
            extra = set(units) - {"length", "angle"}
            if extra:
                raise ModelError("units", f"unknown key {sorted(extra)[0]!r} (expected length, angle)")
            return cls(**units)
        if isinstance(units, (tuple, list)) and len(units) == 2:
            return cls(*units)
        raise ModelError("units", f"expected (length, angle) such as ('mm', 'deg'), got {units!r}")

    @property
    def is_si(self) -> bool:
        return self.length == "m" and self.angle == "rad"

    def _steps(self, quantity):
        """SI = ((x * angle_multiplier) [/ or *] length_step): at most two roundings, monotone."""
        p, a = QUANTITIES[quantity]
        angle_mult = 1.0
        if self.angle == "deg" and a:
            angle_mult = math.pi / 180.0 if a > 0 else 180.0 / math.pi
        length_div = length_mul = 1.0
        if self.length == "mm" and p:
            if p > 0:
                length_div = 1000.0 ** p
            else:
                length_mul = 1000.0 ** (-p)
        return angle_mult, length_div, length_mul

    def to_si(self, value, quantity):
        """File value(s) -> SI; ``value`` a number or an array (returned as float / ndarray)."""
        angle_mult, length_div, length_mul = self._steps(quantity)
        x = np.asarray(value, dtype=float)
        if angle_mult != 1.0:
            x = x * angle_mult
        if length_div != 1.0:
            x = x / length_div
        if length_mul != 1.0:
            x = x * length_mul
        return float(x) if x.ndim == 0 else x

    def factor(self, quantity) -> float:
        """SI -> file multiplier (for tables and CSV output, where exactness is not needed)."""
        angle_mult, length_div, length_mul = self._steps(quantity)
        return length_div / (angle_mult * length_mul)

    def from_si(self, value, quantity):
        """SI value(s) -> file units, each the shortest number that :meth:`to_si` maps back.

        For a value that no file number maps to exactly (possible only for values that did
        not come from a file), the value reached through the nearest file number is used,
        so that writing, reading and writing again gives the same text.
        """
        arr = np.asarray(value, dtype=float)
        if self.is_si or self.factor(quantity) == 1.0:
            out = arr.copy()
        else:
            out = self._preimages(arr.ravel(), quantity).reshape(arr.shape)
        return float(out) if out.ndim == 0 else out

    def _preimages(self, si, quantity, spread=4, depth=0):
        """Per element of ``si`` (1-D): the shortest float near ``si * factor`` that
        :meth:`to_si` maps to it exactly; elements without one go through the value that the
        nearest estimate reaches."""
        estimate = si * self.factor(quantity)
        out = si.copy()  # zeros and non-finite values stay as they are
        best = np.full(si.shape, np.inf)
        todo = np.isfinite(si) & (si != 0.0) & np.isfinite(estimate)
        candidates = [estimate]
        up = down = estimate
        for _ in range(spread):  # in order of distance, so ties in length keep the closest
            up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
            candidates += [up, down]
        for candidate in candidates:
            hit = todo & (self.to_si(candidate, quantity) == si)
            if not hit.any():
                continue
            lengths = np.full(si.shape, np.inf)
            lengths[hit] = [len(repr(y)) for y in candidate[hit].tolist()]
            better = lengths < best
            out[better], best[better] = candidate[better], lengths[better]
        missing = todo & np.isinf(best)
        if missing.any():
            if depth >= 3:  # pragma: no cover - the nearest estimate always has a preimage
                out[missing] = estimate[missing]
            else:
                reached = np.atleast_1d(self.to_si(estimate[missing], quantity))
                out[missing] = self._preimages(reached, quantity, spread, depth + 1)
        return out

    def label(self, quantity) -> str:
        """Unit of ``quantity`` in this file, for messages and plot labels."""
        L, A = self.length, self.angle
        return {
            "length": L, "angle": A, "inertia": f"kg {L}^2", "acceleration": f"{L}/s^2",
            "pitch": f"{L}/rev", "linear_stiffness": f"N/{L}", "linear_damping": f"N s/{L}",
            "angular_stiffness": f"N {L}/{A}", "angular_damping": f"N {L} s/{A}",
            "torque": f"N {L}", "force": "N", "mass": "kg", "time": "s", "none": "",
            "angle/length": f"{A}/{L}", "length/angle": f"{L}/{A}", "angle/angle": f"{A}/{A}",
            "dimensionless": "", "percent": "%", "force/length": f"N/{L}",
        }[quantity]


def _neighbours(x, count):
    """``x`` and the floats up to ``count`` steps either side of it."""
    out = [x]
    up = down = x
    for _ in range(count):
        up = math.nextafter(up, math.inf)
        down = math.nextafter(down, -math.inf)
        out += [up, down]
    return out


def _canonical_direction(value, where):
    """A direction the builder's normalization leaves unchanged, as close as possible to
    ``value / |value|``; ``value`` itself when it is not a valid direction (the builder
    then reports it).

    The builder stores ``v / |v|``; for about a third of unit vectors normalizing again
    moves a last bit. Writing and reading a fixed point keeps round trips exact.
    """
    if _numeric_shape(value) != (3,):
        return value
    try:
        unit = check_arg.direction(value, where)
    except ModelError:
        return value

    def is_fixed(candidate):
        return np.array_equal(check_arg.direction(candidate, where), candidate)

    if is_fixed(unit):
        return [float(c) for c in unit]
    ranges = [_neighbours(float(c), 2) if c != 0.0 else [0.0] for c in unit]
    best = None
    for x in ranges[0]:
        for y in ranges[1]:
            for z in ranges[2]:
                candidate = np.array([x, y, z])
                if is_fixed(candidate):
                    key = (float(np.abs(candidate - unit).sum()), (x, y, z))
                    if best is None or key < best[0]:
                        best = (key, [x, y, z])
    return best[1] if best is not None else [float(c) for c in unit]


# ------------------------------------------------------------------------ reading
_TABLES = {
    # table -> (required keys, optional keys)
    "links": (("name",), ("mass", "com", "inertia")),
    "pairs": (("name", "type", "links"),
              ("at", "axis", "axes", "pitch", "frame_on_first", "frame_on_second")),
    "points": (("name", "link", "at"), ("local",)),
    "point_drivers": (("name", "point", "direction"), ()),
    "pair_springs": (("pair", "stiffness"), ("free_value", "damping")),
    "pair_forces": (("pair", "force"), ()),
    "spring_dampers": (("name", "link_a", "at_a", "link_b", "at_b", "stiffness"),
                       ("free_length", "damping")),
    "point_forces": (("name", "link", "at", "force"), ()),
}
_TOP_LEVEL = ("name", "units", "gravity", *_TABLES, "assemble",
              "corner", "vehicle", "axle")  # the last three: read by loops.suspension.files

#: builder's object prefix in its error locations, per table
_BUILDER_PREFIX = {
    "links": "link {!r}",
    "pairs": "pair {!r}",
    "points": "point {!r}",
    "point_drivers": "point driver {!r}",
    "pair_springs": "pair spring on {!r}",
    "pair_forces": "pair force on {!r}",
    "spring_dampers": "spring-damper {!r}",
    "point_forces": "point force {!r}",
}
_BUILDER_KEYS = {"first link": "links", "second link": "links"}


@dataclass(frozen=True)
class LoadedModel:
    """What :func:`read_model` returns: the mechanism and the file's units."""

    mechanism: Mechanism
    units: Units
    path: str


def load_model(path) -> Mechanism:
    """Read a TOML model file; returns a :class:`~mechanism.Mechanism` in SI units.

    Raises
    ------
    ModelError
        One line naming the file, the table (index and name) and the key.
    """
    return read_model(path).mechanism


def read_model(path) -> LoadedModel:
    """Like :func:`load_model`, also returning the file's :class:`Units` (for the CLI)."""
    reader = _Reader(path)
    return LoadedModel(reader.read(), reader.units, os.fspath(path))


def _numeric_shape(value):
    """Shape of a (nested) list of real numbers, or None when it is anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Real):
        return ()
    if isinstance(value, (list, tuple)):
        shapes = [_numeric_shape(v) for v in value]
        if not shapes or any(s is None for s in shapes) or len(set(shapes)) != 1:
            return None if shapes else (0,)
        return (len(value),) + shapes[0]
    return None


def _first_bad_leaf(value):
    """A leaf of a nested list that is not a real number (strings, booleans, dates)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            bad = _first_bad_leaf(v)
            if bad is not None:
                return bad
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return value
    return None


def _as_lists(arr):
    return np.asarray(arr, dtype=float).tolist()


class _Reader:
    def __init__(self, path):
        self.path = os.fspath(path)
        self.file = os.path.basename(self.path) or self.path
        self.units = Units()

    # ---------------------------------------------------------------- errors
    def fail(self, place, key, problem):
        where = self.file if not place else f"{self.file}: {place}"
        if key:
            where = f"{where}: {key}"
        raise ModelError(where, problem)

    @staticmethod
    def place(table, index, name=None):
        label = f"{table}[{index}]"
        if isinstance(name, str):
            label += f" ({name!r})"
        return label

    # ------------------------------------------------------------------ read
    def read(self) -> Mechanism:
        try:
            with open(self.path, "rb") as handle:
                raw = handle.read()
        except OSError as exc:
            self.fail(None, None, f"cannot read the model file ({exc.strerror or exc})")
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            self.fail(None, None, f"not UTF-8 text (byte {exc.start})")
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            found = re.search(r"\(at line (\d+), column (\d+)\)", message)
            problem = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
            problem = problem[:1].lower() + problem[1:]
            if found:
                self.fail(f"line {found.group(1)}, column {found.group(2)}", None,
                          f"TOML syntax error: {problem}")
            self.fail(None, None, f"TOML syntax error: {problem} (at the end of the file)")
        return self.build(data)

    def build(self, data) -> Mechanism:
        for key in data:
            if key not in _TOP_LEVEL:
                kind = "table" if isinstance(data[key], (dict, list)) else "key"
                self.fail(None, key, f"unknown {kind}{self.suggest(key, _TOP_LEVEL)} "
                          f"(expected {', '.join(_TOP_LEVEL)})")
        self.read_units(data.get("units", {}))
        name = data.get("name", os.path.splitext(self.file)[0] or "mechanism")
        try:
            mechanism = Mechanism(name)
        except ModelError as exc:
            self.fail(None, "name", exc.problem)
        for table in ("links", "pairs", "points", "point_drivers"):
            self.read_table(mechanism, data, table)
        self.read_gravity(mechanism, data.get("gravity"))
        for table in ("pair_springs", "pair_forces", "spring_dampers", "point_forces"):
            self.read_table(mechanism, data, table)
        if "assemble" in data:
            self.read_assembly(mechanism, data["assemble"])
        return mechanism

    @staticmethod
    def suggest(key, choices):
        close = difflib.get_close_matches(str(key), choices, n=1)
        return f" (did you mean {close[0]!r}?)" if close else ""

    def read_units(self, table):
        if not isinstance(table, dict):
            self.fail(None, "units", "expected a table [units] with length and angle")
        for key in table:
            if key not in ("length", "angle"):
                self.fail("units", key, "unknown key (expected length, angle)")
        length = table.get("length", "m")
        angle = table.get("angle", "rad")
        if length not in _LENGTH_UNITS:
            self.fail("units", "length", f"unknown unit {length!r} (expected m or mm)")
        if angle not in _ANGLE_UNITS:
            self.fail("units", "angle", f"unknown unit {angle!r} (expected rad or deg)")
        self.units = Units(length, angle)

    def read_gravity(self, mechanism, table):
        if table is None:
            return
        if not isinstance(table, dict):
            self.fail(None, "gravity", "expected a table [gravity] with vector = [gx, gy, gz]")
        for key in table:
            if key != "vector":
                self.fail("gravity", key, "unknown key (expected vector)")
        if "vector" not in table:
            self.fail("gravity", "vector", "missing required key")
        raw = table["vector"]
        value = self.numbers("gravity", "vector", raw, "acceleration", (3,))
        try:
            mechanism.set_gravity(value)
        except ModelError as exc:
            self.fail("gravity", "vector", self.file_units_problem(exc.problem, raw, value))

    # ---------------------------------------------------------- value helpers
    def numbers(self, place, key, raw, quantity, shape):
        """File numbers -> SI (as lists), when they have the expected shape; else ``raw``."""
        bad = _first_bad_leaf(raw)
        if bad is not None:
            self.fail(place, key, f"expected {'a number' if shape == () else 'numbers'}, "
                      f"got {bad!r} ({type(bad).__name__})")
        if _numeric_shape(raw) != shape:
            return raw
        converted = self.units.to_si(raw, quantity)
        return converted if shape == () else _as_lists(converted)

    @staticmethod
    def file_units_problem(problem, raw, converted):
        """Show the builder's complaint with the file's numbers, not the converted ones."""
        if raw is converted or isinstance(converted, tuple):
            return problem
        return problem.replace(repr(converted), repr(raw))

    def name_of(self, place, key, value):
        if not isinstance(value, str):
            self.fail(place, key, f"expected a name (a string), got {value!r}")
        return value

    def variable_quantity(self, mechanism, variable, angle, length):
        """``angle`` or ``length`` for a pair variable name; None when there is none such."""
        if not isinstance(variable, str):
            return None
        for pair in mechanism.pairs.values():
            names = pair.variable_names()
            if variable in names:
                return angle if pair.pair_type.rotational[names.index(variable)] else length
        if variable in mechanism.point_drivers:
            return length
        return None

    def load_value(self, place, raw, quantity, vector):
        """A force: number (vector for a point force) or ``{times = [...], values = [...]}``."""
        if isinstance(raw, dict):
            for key in raw:
                if key not in ("times", "values"):
                    self.fail(place, "force", f"unknown key {key!r} in the table (expected times, values)")
            for key in ("times", "values"):
                if key not in raw:
                    self.fail(place, "force", f"a tabulated force needs {key} = [...]")
            times, values = raw["times"], raw["values"]
            for key, value in (("times", times), ("values", values)):
                bad = _first_bad_leaf(value)
                if bad is not None or not isinstance(value, list):
                    self.fail(place, f"force.{key}", f"expected a list of numbers, got {value!r}")
            shape = _numeric_shape(values)
            if shape is None:
                self.fail(place, "force.values", "rows of unequal length")
            if quantity is not None and len(shape) >= 1:
                values = _as_lists(self.units.to_si(values, quantity))
            return (times, values)
        bad = _first_bad_leaf(raw)
        if bad is not None:
            self.fail(place, "force", f"expected {'3 numbers' if vector else 'a number'} or a table "
                      f"{{times = [...], values = [...]}}, got {raw!r}")
        if quantity is not None and _numeric_shape(raw) is not None:
            converted = self.units.to_si(raw, quantity)
            return converted if isinstance(converted, float) else _as_lists(converted)
        return raw

    # ----------------------------------------------------------------- tables
    def read_table(self, mechanism, data, table):
        entries = data.get(table, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self.fail(None, table, f"expected an array of tables [[{table}]]")
        required, optional = _TABLES[table]
        allowed = required + optional
        for index, entry in enumerate(entries):
            name = entry.get("name", entry.get("pair"))
            place = self.place(table, index, name)
            for key in entry:
                if key not in allowed:
                    self.fail(place, key, f"unknown key{self.suggest(key, allowed)} "
                              f"(expected {', '.join(allowed)})")
            for key in required:
                if key not in entry:
                    self.fail(place, key, "missing required key")
            getattr(self, f"add_{table}")(mechanism, table, index, place, entry)

    def call(self, table, place, name, passed, function, *args, **kwargs):
        """Call a builder method; re-locate its ModelError in the file.

        ``passed`` maps file keys to ``(raw, converted)`` so that complaints about a
        converted value quote the number written in the file.
        """
        try:
            function(*args, **kwargs)
        except ModelError as exc:
            key = self.builder_key(table, name, exc)
            problem = exc.problem
            base = key.split("[")[0] if key else None
            if base in passed:
                problem = self.file_units_problem(problem, *passed[base])
            self.fail(place, key, problem)
        except (TypeError, ValueError) as exc:  # anything the builder did not foresee
            self.fail(place, None, f"invalid value ({exc})")

    @staticmethod
    def builder_key(table, name, exc):
        where = exc.where
        prefix = _BUILDER_PREFIX[table].format(name)
        if where == prefix:
            problem = exc.problem
            if "exists already" in problem:
                return "name"
            if "itself" in problem:
                return "links" if table == "pairs" else "link_b"
            if "coincide" in problem:
                return "at_b"
            if table in ("pair_springs", "pair_forces"):
                return "pair"
            return None
        if where.startswith(prefix + ": "):
            key = where[len(prefix) + 2:]
            return _BUILDER_KEYS.get(key, key)
        if where.endswith(" name"):
            return "name"
        return where

    def add_links(self, mechanism, table, index, place, entry):
        name = entry["name"]
        passed = {}
        kwargs = {}
        for key, quantity, shape in (("mass", "mass", ()), ("com", "length", (3,)),
                                     ("inertia", "inertia", (3, 3))):
            if key in entry:
                kwargs[key] = self.numbers(place, key, entry[key], quantity, shape)
                passed[key] = (entry[key], kwargs[key])
        self.call(table, place, name, passed, mechanism.add_link, name, **kwargs)

    def add_pairs(self, mechanism, table, index, place, entry):
        name = entry["name"]
        links = entry["links"]
        if (not isinstance(links, list) or len(links) != 2
                or not all(isinstance(link, str) for link in links)):
            self.fail(place, "links", f"expected [first, second] link names, got {links!r}")
        kwargs, passed = {}, {}
        for key in ("at", "pitch"):
            if key in entry:
                quantity, shape = ("length", (3,)) if key == "at" else ("pitch", ())
                kwargs[key] = self.numbers(place, key, entry[key], quantity, shape)
                passed[key] = (entry[key], kwargs[key])
        if "axis" in entry:
            self.numbers(place, "axis", entry["axis"], "none", (3,))
            kwargs["axis"] = _canonical_direction(entry["axis"], f"pair {name!r}: axis")
        if "axes" in entry:
            axes = entry["axes"]
            self.numbers(place, "axes", axes, "none", (2, 3))
            if isinstance(axes, list) and len(axes) == 2:
                axes = [_canonical_direction(pin, f"pair {name!r}: axes") for pin in axes]
            kwargs["axes"] = axes
        for key in ("frame_on_first", "frame_on_second"):
            if key in entry:
                raw = entry[key]
                self.numbers(place, key, raw, "none", (4, 4))
                value = raw
                if _numeric_shape(raw) == (4, 4):
                    value = np.array(raw, dtype=float)
                    value[:3, 3] = self.units.to_si(value[:3, 3], "length")
                    value = value.tolist()
                kwargs[key] = value
        self.call(table, place, name, passed, mechanism.add_pair,
                  name, entry["type"], links[0], links[1], **kwargs)

    def add_points(self, mechanism, table, index, place, entry):
        name = entry["name"]
        link = self.name_of(place, "link", entry["link"])
        at = self.numbers(place, "at", entry["at"], "length", (3,))
        local = entry.get("local", False)
        if not isinstance(local, bool):
            self.fail(place, "local", f"expected true or false, got {local!r}")
        self.call(table, place, name, {"at": (entry["at"], at)},
                  mechanism.add_point, name, link, at, local=local)

    def add_point_drivers(self, mechanism, table, index, place, entry):
        name = entry["name"]
        point = self.name_of(place, "point", entry["point"])
        self.numbers(place, "direction", entry["direction"], "none", (3,))
        direction = _canonical_direction(entry["direction"], f"point driver {name!r}: direction")
        self.call(table, place, name, {}, mechanism.add_point_driver, name, point, direction)

    def add_pair_springs(self, mechanism, table, index, place, entry):
        variable = self.name_of(place, "pair", entry["pair"])
        angle = self.variable_quantity(mechanism, variable, True, False)
        quantities = {
            "stiffness": "angular_stiffness" if angle else "linear_stiffness",
            "damping": "angular_damping" if angle else "linear_damping",
            "free_value": "angle" if angle else "length",
        }
        kwargs, passed = {}, {}
        for key in ("stiffness", "free_value", "damping"):
            if key in entry:
                raw = entry[key]
                # unknown variable (angle is None): leave the numbers as written; the
                # builder rejects the variable first.
                quantity = quantities[key] if angle is not None else "none"
                kwargs[key] = self.numbers(place, key, raw, quantity, ())
                passed[key] = (raw, kwargs[key])
        self.call(table, place, variable, passed, mechanism.add_pair_spring, variable, **kwargs)

    def add_pair_forces(self, mechanism, table, index, place, entry):
        variable = self.name_of(place, "pair", entry["pair"])
        angle = self.variable_quantity(mechanism, variable, True, False)
        quantity = None if angle is None else ("torque" if angle else "force")
        force = self.load_value(place, entry["force"], quantity, vector=False)
        self.call(table, place, variable, {"force": (entry["force"], force)},
                  mechanism.add_pair_force, variable, force)

    def add_spring_dampers(self, mechanism, table, index, place, entry):
        name = entry["name"]
        kwargs, passed = {}, {}
        for key in ("link_a", "link_b"):
            kwargs[key] = self.name_of(place, key, entry[key])
        for key, quantity, shape in (("at_a", "length", (3,)), ("at_b", "length", (3,)),
                                     ("stiffness", "linear_stiffness", ()),
                                     ("free_length", "length", ()),
                                     ("damping", "linear_damping", ())):
            if key in entry:
                kwargs[key] = self.numbers(place, key, entry[key], quantity, shape)
                passed[key] = (entry[key], kwargs[key])
        self.call(table, place, name, passed, mechanism.add_spring_damper, name, **kwargs)

    def add_point_forces(self, mechanism, table, index, place, entry):
        name = entry["name"]
        link = self.name_of(place, "link", entry["link"])
        at = self.numbers(place, "at", entry["at"], "length", (3,))
        force = self.load_value(place, entry["force"], "force", vector=True)
        if isinstance(force, tuple):
            force = (force[0], force[1])
        self.call(table, place, name, {"at": (entry["at"], at), "force": (entry["force"], force)},
                  mechanism.add_point_force, name, link, at, force)

    def read_assembly(self, mechanism, table):
        if not isinstance(table, dict):
            self.fail(None, "assemble", "expected a table [assemble.guess] of pair values")
        for key in table:
            if key != "guess":
                self.fail("assemble", key, "unknown key (expected guess)")
        guess_table = table.get("guess", {})
        if not isinstance(guess_table, dict):
            self.fail("assemble", "guess", "expected a table of pair name = value(s)")
        pairs = mechanism.pairs
        guess = {}
        for name, raw in guess_table.items():
            if name not in pairs:
                self.fail("assemble.guess", name, f"unknown pair {name!r}")
            pair = pairs[name]
            shape = () if pair.size == 1 else (pair.size,)
            if _numeric_shape(raw) != shape:
                self.fail("assemble.guess", name,
                          f"expected {'a number' if pair.size == 1 else f'{pair.size} numbers'}, got {raw!r}")
            values = np.atleast_1d(np.array(raw, dtype=float))
            guess[name] = np.array([
                self.units.to_si(v, "angle" if rotational else "length")
                for v, rotational in zip(values, pair.pair_type.rotational)])
            if pair.size == 1:
                guess[name] = float(guess[name][0])
        try:
            mechanism.assemble(guess)
        except KinematrixError as exc:
            self.fail("assemble", None, f"the loops cannot close from this guess: {exc}")


# ------------------------------------------------------------------------ writing
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_string(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def _toml_value(value) -> str:
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"cannot write the non-finite number {x!r}")
    return repr(x)


class _Writer:
    def __init__(self, path, units: Units):
        self.file = os.path.basename(os.fspath(path))
        self.units = units
        self.lines: list[str] = []

    def key(self, key, value):
        self.lines.append(f"{_toml_key(key)} = {_toml_value(value)}")

    def header(self, text):
        self.lines += ["", text]

    def si(self, value, quantity):
        return self.units.from_si(value, quantity)

    def load(self, place, force, quantity, spec_kind, spec_name):
        if callable(force):
            raise ModelError(f"{self.file}: {place}: force",
                             f"{spec_kind} {spec_name!r} is a function of time, which a model file "
                             "cannot hold; give a number or a (times, values) table")
        if isinstance(force, tuple):
            times, values = force
            return {"times": np.asarray(times, dtype=float),
                    "values": self.si(np.asarray(values, dtype=float), quantity)}
        return self.si(force, quantity)

    def write(self, mechanism: Mechanism) -> str:
        model = mechanism.snapshot()
        variables = {}
        for pair in model.pairs:
            for variable, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
                variables[variable] = rotational
        for driver in model.point_drivers:
            variables[driver.name] = False

        L = self.units
        self.lines = [f"# kinematrix model; lengths in {L.length}, angles in {L.angle} "
                      "(derived units: mechanism/model_file.py)"]
        self.key("name", model.name)
        self.header("[units]")
        self.key("length", L.length)
        self.key("angle", L.angle)
        self.header("[gravity]")
        self.key("vector", self.si(model.gravity, "acceleration"))

        for link in model.links:
            if link.name == GROUND or link.virtual:
                continue
            self.header("[[links]]")
            self.key("name", link.name)
            if link.mass != 0.0:
                self.key("mass", link.mass)
            if np.any(link.com != 0.0):
                self.key("com", self.si(link.com, "length"))
            if np.any(link.inertia != 0.0):
                self.key("inertia", self.si(link.inertia, "inertia"))

        for pair in model.pairs:
            if pair.virtual:
                continue
            self.header("[[pairs]]")
            self.key("name", pair.name)
            self.key("type", pair.pair_type.kind)
            self.key("links", [pair.first, pair.second])
            if pair.local:
                for key, frame in (("frame_on_first", pair.frame_on_first),
                                   ("frame_on_second", pair.frame_on_second)):
                    matrix = np.array(frame, dtype=float)
                    matrix[:3, 3] = self.si(matrix[:3, 3], "length")
                    self.key(key, matrix)
            else:
                self.key("at", self.si(pair.at, "length"))
                if pair.axis is not None:
                    self.key("axis", _canonical_direction(list(pair.axis), "axis"))
                if pair.axes is not None:
                    self.key("axes", [_canonical_direction(list(pin), "axes") for pin in pair.axes])
            if pair.pair_type.kind == "helical":
                self.key("pitch", self.si(pair.pair_type.pitch, "pitch"))

        for point in model.points:
            self.header("[[points]]")
            self.key("name", point.name)
            self.key("link", point.link)
            self.key("at", self.si(point.at, "length"))
            if point.local:
                self.key("local", True)

        for driver in model.point_drivers:
            self.header("[[point_drivers]]")
            self.key("name", driver.name)
            self.key("point", driver.point)
            self.key("direction", _canonical_direction(list(driver.direction), "direction"))

        for spring in model.pair_springs:
            angle = variables.get(spring.variable, False)
            self.header("[[pair_springs]]")
            self.key("pair", spring.variable)
            self.key("stiffness", self.si(spring.stiffness, "angular_stiffness" if angle else "linear_stiffness"))
            self.key("free_value", self.si(spring.free_value, "angle" if angle else "length"))
            self.key("damping", self.si(spring.damping, "angular_damping" if angle else "linear_damping"))

        for index, force in enumerate(model.pair_forces):
            angle = variables.get(force.variable, False)
            place = f"pair_forces[{index}] ({force.variable!r})"
            value = self.load(place, force.force, "torque" if angle else "force",
                              "pair force on", force.variable)
            self.header("[[pair_forces]]")
            self.key("pair", force.variable)
            self.key("force", value)

        for sd in model.spring_dampers:
            self.header("[[spring_dampers]]")
            self.key("name", sd.name)
            self.key("link_a", sd.link_a)
            self.key("at_a", self.si(sd.at_a, "length"))
            self.key("link_b", sd.link_b)
            self.key("at_b", self.si(sd.at_b, "length"))
            self.key("stiffness", self.si(sd.stiffness, "linear_stiffness"))
            self.key("free_length", self.si(sd.free_length, "length"))
            self.key("damping", self.si(sd.damping, "linear_damping"))

        for index, pf in enumerate(model.point_forces):
            place = f"point_forces[{index}] ({pf.name!r})"
            value = self.load(place, pf.force, "force", "point force", pf.name)
            self.header("[[point_forces]]")
            self.key("name", pf.name)
            self.key("link", pf.link)
            self.key("at", self.si(pf.at, "length"))
            self.key("force", value)

        reference = [(name, np.asarray(values, dtype=float)) for name, values in model.reference]
        if reference:
            pairs = {pair.name: pair for pair in model.pairs}
            self.header("[assemble.guess]")
            for name, values in reference:
                if name not in pairs:
                    continue
                rotational = pairs[name].pair_type.rotational
                converted = [self.si(float(v), "angle" if r else "length")
                             for v, r in zip(np.atleast_1d(values), rotational)]
                self.key(name, converted[0] if len(converted) == 1 else converted)
        return "\n".join(self.lines) + "\n"


def save_model(mechanism: Mechanism, path, units=None) -> None:
    """Write ``mechanism`` to a TOML model file, atomically.

    Parameters
    ----------
    mechanism : Mechanism
    path : str or path-like
    units : None, ("mm", "deg"), {"length": ..., "angle": ...} or Units
        Units of the file (default SI: m and rad). See the module docstring for the
        derived units.

    Raises
    ------
    ModelError
        When a load is a function of time (a file holds numbers and tables only), or the
        units are unknown.
    """
    units = Units.of(units)
    text = _Writer(path, units).write(mechanism)
    write_text_atomically(path, text)
