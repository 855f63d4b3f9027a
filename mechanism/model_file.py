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
written, and nowhere else: in memory everything is SI. The loaded mechanism remembers the
file's units (``Mechanism.units``, kept in its snapshot): they are the default units of
:func:`save_model` and of every file written from its results (:mod:`mechanism.units`
states the rule). Mass is always kg, time s and force N. With ``L`` the file's length unit
and ``A`` its angle unit, the derived units are

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
from .atomic import target_path, write_text_atomically
from .errors import KinematrixError, ModelError
from .limits import MAX_FILE_BYTES, MAX_NESTING
from .model import Mechanism
from .specs import GROUND
from .units import ANGLE_UNITS, LENGTH_UNITS, QUANTITIES, Units

__all__ = ["load_model", "save_model", "read_model", "read_toml", "LoadedModel", "Units", "QUANTITIES", "CLOSED"]

#: Closure defect (dimensionless) up to which a loaded model counts as closed.
CLOSED = 1e-8


# --------------------------------------------------------------------------- units
# Units, QUANTITIES: mechanism/units.py (one rule for every file kinematrix writes).


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


def read_model(path, require_pairs=True) -> LoadedModel:
    """Like :func:`load_model`, also returning the file's :class:`Units` (for the CLI).

    ``require_pairs=False`` accepts a file without ``[[pairs]]`` (an axle made of two
    corner files, :mod:`loops.suspension.files`); a model file must have pairs otherwise."""
    reader = _Reader(path, require_pairs)
    return LoadedModel(reader.read(), reader.units, os.fspath(path))


def read_toml(path, what="model file"):
    """``(tables, reader)``: the TOML tables of a file that goes with a model file (a design
    study's vary file, :mod:`loops.study.designs`), read within a model file's limits (size,
    nesting, UTF-8; a syntax error located by line and column), and the reader that locates
    further mistakes the way a model file's are: ``reader.fail(place, key, problem)`` raises
    ``file: place: key: problem``, ``reader.place(table, index, name)`` is ``"vary[2]
    ('lower_ball')"`` and ``reader.suggest(key, choices)`` is ``" (did you mean ...?)"``.
    ``what`` names the kind of file in messages (``"cannot read the vary file"``)."""
    reader = _Reader(path, what=what)
    return reader.tables(), reader


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


def _huge_integer(value):
    """The first integer of a (nested) list that no float holds, shortened for a message."""
    if isinstance(value, (list, tuple)):
        for v in value:
            found = _huge_integer(v)
            if found is not None:
                return found
        return None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 1.7e308:
        text = str(value)
        return text if len(text) <= 40 else text[:41] + " ..."
    return None


def _as_lists(arr):
    return np.asarray(arr, dtype=float).tolist()


#: Strings and comments of a TOML text (their brackets do not nest anything).
_STRINGS_AND_COMMENTS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*')


def _first_too_deep(text):
    """Line number where arrays and inline tables first nest deeper than MAX_NESTING, or None."""
    blanked = _STRINGS_AND_COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    codes = np.frombuffer(blanked.encode("utf-8"), dtype=np.uint8)
    steps = ((codes == ord("[")) | (codes == ord("{"))).astype(np.int64) \
        - ((codes == ord("]")) | (codes == ord("}"))).astype(np.int64)
    deep = np.flatnonzero(np.cumsum(steps) > MAX_NESTING)
    if not len(deep):
        return None
    return int(np.count_nonzero(codes[:deep[0]] == ord("\n"))) + 1


class _Reader:
    def __init__(self, path, require_pairs=True, what="model file"):
        self.require_pairs, self.what = require_pairs, what
        try:
            self.path = os.fspath(path)
        except TypeError:
            raise ModelError("path", f"expected a {what} name (str or path-like), got "
                             f"{type(path).__name__}") from None
        if isinstance(self.path, bytes):
            self.path = os.fsdecode(self.path)
        if not self.path:
            raise ModelError("path", f"expected a {what} name, got an empty string")
        self.file = os.path.basename(self.path) or self.path
        self.units = Units()
        self.entries = {}  # builder location prefix -> (table, index, name), for relocating

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
        return self.build(self.tables())

    def tables(self) -> dict:
        """The file's TOML tables, read within the limits of a model file (size, nesting,
        UTF-8); a syntax error is located by line and column."""
        try:
            with open(self.path, "rb") as handle:
                raw = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            self.fail(None, None, f"cannot read the {self.what} ({exc.strerror or exc})")
        if len(raw) > MAX_FILE_BYTES:
            self.fail(None, None, f"larger than {MAX_FILE_BYTES} bytes ({MAX_FILE_BYTES / 2**20:g} MiB), "
                      f"the most a {self.what} may hold")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.fail(None, None, f"not UTF-8 text (byte {exc.start})")
        line = _first_too_deep(text)
        if line is not None:
            self.fail(f"line {line}", None, f"arrays or tables nested more than {MAX_NESTING} deep, "
                      f"the most a {self.what} may hold")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            found = re.search(r"\(at line (\d+), column (\d+)\)", message)
            problem = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
            problem = problem[:1].lower() + problem[1:]
            if found:
                self.fail(f"line {found.group(1)}, column {found.group(2)}", None,
                          f"TOML syntax error: {problem}")
            self.fail(None, None, f"TOML syntax error: {problem} (at the end of the file)")
        return data

    def build(self, data) -> Mechanism:
        for key in data:
            if key not in _TOP_LEVEL:
                kind = "table" if isinstance(data[key], (dict, list)) else "key"
                self.fail(None, key, f"unknown {kind}{self.suggest(key, _TOP_LEVEL)} "
                          f"(expected {', '.join(_TOP_LEVEL)})")
        self.read_units(data.get("units", {}))
        name = data.get("name", os.path.splitext(self.file)[0] or "mechanism")
        try:
            mechanism = Mechanism(name, units=self.units)
        except ModelError as exc:
            self.fail(None, "name", exc.problem)
        for table in ("links", "pairs", "points", "point_drivers"):
            self.read_table(mechanism, data, table)
        self.read_gravity(mechanism, data.get("gravity"))
        for table in ("pair_springs", "pair_forces", "spring_dampers", "point_forces"):
            self.read_table(mechanism, data, table)
        if self.require_pairs and not mechanism.pairs:
            self.fail(None, "pairs", "the model has no pairs: a mechanism needs at least one [[pairs]] table")
        if "assemble" in data:
            self.read_assembly(mechanism, data["assemble"])
        if mechanism.pairs:  # a file of no pairs (require_pairs=False) has nothing to close
            self.check_closed(mechanism, "assemble" in data)
        return mechanism

    def check_closed(self, mechanism, guessed):
        """The model compiles (links connected, sizes within mechanism/limits.py) and its loops
        close at the reference assembly: what is loaded is closed, or refused here."""
        from loops.compiled import compile_model  # noqa: PLC0415 (loops imports mechanism)
        from loops.configuration import evaluate  # noqa: PLC0415
        from loops.newton import worst_loop  # noqa: PLC0415

        try:
            system = compile_model(mechanism.snapshot())
        except ModelError as exc:
            self.relocate(exc)
        config = evaluate(system, system.reference_q())
        defect = config.closure_error()
        if not defect <= CLOSED:
            where = "assemble.guess" if guessed else None
            self.fail(where, None if guessed else "assemble.guess",
                      f"the loops do not close ({worst_loop(system, config)}, defect {defect:.3g})"
                      + ("" if guessed else " at zero pair values: a model declared by link-local frames needs "
                         "[assemble.guess] with rough pair values"))

    def relocate(self, exc):
        """Raise ``exc`` (a builder's or the compiled system's ModelError) at its file location."""
        where = exc.where
        for prefix, (table, index, name) in self.entries.items():
            if where == prefix or where.startswith(prefix + ": "):
                key = where[len(prefix) + 2:] if where != prefix else None
                self.fail(self.place(table, index, name), _BUILDER_KEYS.get(key, key), exc.problem)
        self.fail(None, None, str(exc))

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
        if not isinstance(length, str) or length not in LENGTH_UNITS:
            self.fail("units", "length", f"unknown unit {length!r} (expected m or mm)")
        if not isinstance(angle, str) or angle not in ANGLE_UNITS:
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
        converted = self.to_si(place, key, raw, quantity)
        return converted if shape == () else _as_lists(converted)

    def to_si(self, place, key, raw, quantity):
        """File numbers -> SI; an integer beyond the range of a float is a located error."""
        try:
            return self.units.to_si(raw, quantity)
        except OverflowError:
            self.fail(place, key, f"{_huge_integer(raw)} is beyond the range of a float")

    @staticmethod
    def file_units_problem(problem, raw, converted):
        """Show the builder's complaint with the file's numbers, not the converted ones."""
        if raw is converted or isinstance(converted, tuple):
            return problem
        return problem.replace(check_arg.shown(converted), check_arg.shown(raw)).replace(repr(converted), repr(raw))

    def name_of(self, place, key, value):
        if not isinstance(value, str):
            self.fail(place, key, f"expected a name (a string), got {check_arg.shown(value)}")
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
                    self.fail(place, f"force.{key}", f"expected a list of numbers, got {check_arg.shown(value)}")
            shape = _numeric_shape(values)
            if shape is None:
                self.fail(place, "force.values", "rows of unequal length")
            if quantity is not None and len(shape) >= 1:
                values = _as_lists(self.to_si(place, "force.values", values, quantity))
            self.to_si(place, "force.times", times, "time")
            return (times, values)
        bad = _first_bad_leaf(raw)
        if bad is not None or _numeric_shape(raw) != ((3,) if vector else ()):
            self.fail(place, "force", f"expected {'3 numbers' if vector else 'a number'} or a table "
                      f"{{times = [...], values = [...]}}, got {check_arg.shown(raw)}")
        if quantity is not None and _numeric_shape(raw) is not None:
            converted = self.to_si(place, "force", raw, quantity)
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
            if isinstance(name, str):
                self.entries.setdefault(_BUILDER_PREFIX[table].format(name), (table, index, name))
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
            return _BUILDER_KEYS.get(key, key).replace(": ", ".")
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
            self.fail(place, "links", f"expected [first, second] link names, got {check_arg.shown(links)}")
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
            self.fail(place, "local", f"expected true or false, got {check_arg.shown(local)}")
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
                          f"expected {'a number' if pair.size == 1 else f'{pair.size} numbers'}, "
                          f"got {check_arg.shown(raw)}")
            values = np.atleast_1d(self.to_si("assemble.guess", name, raw, "none"))
            guess[name] = np.array([
                self.units.to_si(v, "angle" if rotational else "length")
                for v, rotational in zip(values, pair.pair_type.rotational)])
            if pair.size == 1:
                guess[name] = float(guess[name][0])
        try:
            mechanism.assemble(guess)
        except ModelError as exc:
            self.relocate(exc)
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
            for key, value in pair.pair_type.options().items():
                self.key(key, self.si(value, pair.pair_type.option_quantities[key]))

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
        Units of the file; default the model's own (``mechanism.units``: its file's units,
        SI for a model built in Python). See the module docstring for the derived units.
        Each number is the shortest that reads back as exactly the value in memory.

    Raises
    ------
    ModelError
        When a load is a function of time (a file holds numbers and tables only), or the
        units are unknown.
    """
    target_path(path)  # a located error for what is not a file name
    units = mechanism.units if units is None else Units.of(units)
    text = _Writer(path, units).write(mechanism)
    write_text_atomically(path, text)
