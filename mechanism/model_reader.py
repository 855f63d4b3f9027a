"""Reading model files: TOML tables to :class:`~mechanism.Mechanism` builder calls, every mistake
located in the file (see :mod:`mechanism.model_file` for the format, its units and its errors).

:class:`ModelReader` reads a file within the limits of :mod:`mechanism.limits`, checks each
table's keys, converts the file's numbers to SI, calls ``Mechanism.add_*`` and re-locates the
builder's errors (``pair 'B': axis`` becomes ``four_bar.toml: pairs[1] ('B'): axis``); then
(:meth:`ModelReader.assemble`, a step of its own because it runs the engine) solves
``[assemble.guess]`` and has the mechanism check that its loops close at the reference
assembly (:meth:`Mechanism.closure_defect`).
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib

import numpy as np

from . import _validate as check_arg
from .errors import KinematrixError, ModelError
from .limits import MAX_FILE_BYTES, MAX_NESTING
from .bushings import BUSHING_RATES
from .model import Mechanism
from .toml_values import as_lists, canonical_direction, first_bad_leaf, first_too_deep, huge_integer, numeric_shape
from .units import ANGLE_UNITS, LENGTH_UNITS, Units

__all__ = ["ModelReader", "CLOSED", "TABLES", "TOP_LEVEL"]

#: Closure defect (dimensionless) up to which a loaded model counts as closed.
CLOSED = 1e-8

#: The arrays of tables of a model file: table -> (required keys, optional keys).
TABLES = {
    "links": (("name",), ("mass", "com", "inertia")),
    "pairs": (("name", "type", "links"),
              ("at", "axis", "axes", "pitch", "frame_on_first", "frame_on_second")),
    "points": (("name", "link", "at"), ("local",)),
    "point_drivers": (("name", "point", "direction"), ()),
    "pair_springs": (("pair", "stiffness"), ("free_value", "damping")),
    "pair_forces": (("pair", "force"), ()),
    "spring_dampers": (("name", "link_a", "at_a", "link_b", "at_b", "stiffness"),
                       ("free_length", "damping", "damping_law")),
    "point_forces": (("name", "link", "at", "force"), ("circle_axis", "circle_radius", "circle_toward")),
    "link_moments": (("name", "link", "moment"), ()),
    "bushings": (("name", "links", "at", "stiffness"), ("axes", "damping", "preload", "replaces")),
}
#: The top-level keys and tables a model file may hold.
TOP_LEVEL = ("name", "use_bushings", "units", "gravity", *TABLES, "assemble",
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
    "link_moments": "link moment {!r}",
    "bushings": "bushing {!r}",
}
_BUILDER_KEYS = {"first link": "links", "second link": "links"}


class ModelReader:
    """Reads one model file (or a file that goes with one, named by ``what`` in messages);
    ``require_pairs=False`` accepts a model of no pairs. :meth:`read` returns the mechanism,
    ``units`` then holds the file's units, ``guess`` the pair values of ``[assemble.guess]`` (SI;
    None without ``[assemble]``), and :meth:`assemble` solves them and checks the loops close;
    :meth:`fail` raises a ModelError located in the file."""

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
        self.guess, self.assembled = None, False

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
        line = first_too_deep(text)
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
            if key not in TOP_LEVEL:
                kind = "table" if isinstance(data[key], (dict, list)) else "key"
                self.fail(None, key, f"unknown {kind}{self.suggest(key, TOP_LEVEL)} "
                          f"(expected {', '.join(TOP_LEVEL)})")
        self.read_units(data.get("units", {}))
        name = data.get("name", os.path.splitext(self.file)[0] or "mechanism")
        try:
            mechanism = Mechanism(name, units=self.units)
        except ModelError as exc:
            self.fail(None, "name", exc.problem)
        for table in ("links", "pairs", "points", "point_drivers"):
            self.read_table(mechanism, data, table)
        self.read_gravity(mechanism, data.get("gravity"))
        for table in ("pair_springs", "pair_forces", "spring_dampers", "point_forces", "link_moments", "bushings"):
            self.read_table(mechanism, data, table)
        if "use_bushings" in data:
            if not isinstance(data["use_bushings"], bool):
                self.fail(None, "use_bushings", f"expected true or false, got {check_arg.shown(data['use_bushings'])}")
            mechanism.use_bushings(data["use_bushings"])
        if self.require_pairs and not mechanism.pairs:
            self.fail(None, "pairs", "the model has no pairs: a mechanism needs at least one [[pairs]] table")
        self.guess = self.read_assembly(mechanism, data["assemble"]) if "assemble" in data else None
        return mechanism

    def assemble(self, mechanism):
        """Solve the file's ``[assemble.guess]`` (when it has one) and check that the loops close
        (:meth:`check_closed`): the part of reading that runs the engine, after :meth:`read`;
        once (called again, it does nothing)."""
        if self.assembled:
            return
        if self.guess is not None:
            try:
                mechanism.assemble(self.guess)
            except ModelError as exc:
                self.relocate(exc)
            except KinematrixError as exc:
                self.fail("assemble", None, f"the loops cannot close from this guess: {exc}")
        if mechanism.pairs:  # a file of no pairs (require_pairs=False) has nothing to close
            self.check_closed(mechanism, self.guess is not None)
        self.assembled = True

    def check_closed(self, mechanism, guessed):
        """The model compiles (links connected, sizes within mechanism/limits.py) and its loops
        close at the reference assembly: what is loaded is closed, or refused here."""
        try:
            defect, worst = mechanism.closure_defect()
        except ModelError as exc:
            self.relocate(exc)
        if not defect <= CLOSED:
            where = "assemble.guess" if guessed else None
            self.fail(where, None if guessed else "assemble.guess",
                      f"the loops do not close ({worst}, defect {defect:.3g})"
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
        bad = first_bad_leaf(raw)
        if bad is not None:
            self.fail(place, key, f"expected {'a number' if shape == () else 'numbers'}, "
                      f"got {bad!r} ({type(bad).__name__})")
        if numeric_shape(raw) != shape:
            return raw
        converted = self.to_si(place, key, raw, quantity)
        return converted if shape == () else as_lists(converted)

    def to_si(self, place, key, raw, quantity):
        """File numbers -> SI; an integer beyond the range of a float is a located error."""
        try:
            return self.units.to_si(raw, quantity)
        except OverflowError:
            self.fail(place, key, f"{huge_integer(raw)} is beyond the range of a float")

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

    def load_value(self, place, raw, quantity, vector, field="force"):
        """A force (or the load at key ``field``, a link's moment): number (vector for a point force
        or a link moment) or ``{times = [...], values = [...]}``."""
        if isinstance(raw, dict):
            for key in raw:
                if key not in ("times", "values"):
                    self.fail(place, field, f"unknown key {key!r} in the table (expected times, values)")
            for key in ("times", "values"):
                if key not in raw:
                    self.fail(place, field, f"a tabulated {field} needs {key} = [...]")
            times, values = raw["times"], raw["values"]
            for key, value in (("times", times), ("values", values)):
                bad = first_bad_leaf(value)
                if bad is not None or not isinstance(value, list):
                    self.fail(place, f"{field}.{key}", f"expected a list of numbers, got {check_arg.shown(value)}")
            shape = numeric_shape(values)
            if shape is None:
                self.fail(place, f"{field}.values", "rows of unequal length")
            if quantity is not None and len(shape) >= 1:
                values = as_lists(self.to_si(place, f"{field}.values", values, quantity))
            self.to_si(place, f"{field}.times", times, "time")
            return (times, values)
        bad = first_bad_leaf(raw)
        if bad is not None or numeric_shape(raw) != ((3,) if vector else ()):
            self.fail(place, field, f"expected {'3 numbers' if vector else 'a number'} or a table "
                      f"{{times = [...], values = [...]}}, got {check_arg.shown(raw)}")
        if quantity is not None and numeric_shape(raw) is not None:
            converted = self.to_si(place, field, raw, quantity)
            return converted if isinstance(converted, float) else as_lists(converted)
        return raw

    # ----------------------------------------------------------------- tables
    def read_table(self, mechanism, data, table):
        entries = data.get(table, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self.fail(None, table, f"expected an array of tables [[{table}]]")
        required, optional = TABLES[table]
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
                return "links" if table in ("pairs", "bushings") else "link_b"
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
        links = self.link_pair(place, entry["links"])
        kwargs, passed = {}, {}
        for key in ("at", "pitch"):
            if key in entry:
                quantity, shape = ("length", (3,)) if key == "at" else ("pitch", ())
                kwargs[key] = self.numbers(place, key, entry[key], quantity, shape)
                passed[key] = (entry[key], kwargs[key])
        if "axis" in entry:
            self.numbers(place, "axis", entry["axis"], "none", (3,))
            kwargs["axis"] = canonical_direction(entry["axis"], f"pair {name!r}: axis")
        if "axes" in entry:
            axes = entry["axes"]
            self.numbers(place, "axes", axes, "none", (2, 3))
            if isinstance(axes, list) and len(axes) == 2:
                axes = [canonical_direction(pin, f"pair {name!r}: axes") for pin in axes]
            kwargs["axes"] = axes
        for key in ("frame_on_first", "frame_on_second"):
            if key in entry:
                raw = entry[key]
                self.numbers(place, key, raw, "none", (4, 4))
                value = raw
                if numeric_shape(raw) == (4, 4):
                    value = np.array(raw, dtype=float)
                    value[:3, 3] = self.units.to_si(value[:3, 3], "length")
                    value = value.tolist()
                kwargs[key] = value
        self.call(table, place, name, passed, mechanism.add_pair,
                  name, entry["type"], links[0], links[1], **kwargs)

    def link_pair(self, place, links):
        """``links`` of a table that joins two links (``[first, second]`` names), or fail at ``place``."""
        if (not isinstance(links, list) or len(links) != 2
                or not all(isinstance(link, str) for link in links)):
            self.fail(place, "links", f"expected [first, second] link names, got {check_arg.shown(links)}")
        return links

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
        direction = canonical_direction(entry["direction"], f"point driver {name!r}: direction")
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
        if "damping_law" in entry:  # the builder says what is wrong with a bad law
            kwargs["damping_law"] = entry["damping_law"]
            passed["damping_law"] = (entry["damping_law"], entry["damping_law"])
        damping = "quadratic_damping" if entry.get("damping_law") == "quadratic" else "linear_damping"
        for key, quantity, shape in (("at_a", "length", (3,)), ("at_b", "length", (3,)),
                                     ("stiffness", "linear_stiffness", ()),
                                     ("free_length", "length", ()),
                                     ("damping", damping, ())):
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
        keys = ("circle_axis", "circle_radius", "circle_toward")
        circle = None
        if any(key in entry for key in keys):
            missing = [key for key in keys if key not in entry]
            if missing:
                self.fail(place, missing[0], f"a point force on a circle gives {', '.join(keys)} together")
            circle = (self.numbers(place, keys[0], entry[keys[0]], "none", (3,)),
                      self.numbers(place, keys[1], entry[keys[1]], "length", ()),
                      self.numbers(place, keys[2], entry[keys[2]], "none", (3,)))
        self.call(table, place, name, {"at": (entry["at"], at), "force": (entry["force"], force)},
                  mechanism.add_point_force, name, link, at, force, circle)

    def add_link_moments(self, mechanism, table, index, place, entry):
        name = entry["name"]
        link = self.name_of(place, "link", entry["link"])
        moment = self.load_value(place, entry["moment"], "torque", vector=True, field="moment")
        if isinstance(moment, tuple):
            moment = (moment[0], moment[1])
        self.call(table, place, name, {"moment": (entry["moment"], moment)}, mechanism.add_link_moment,
                  name, link, moment)

    def add_bushings(self, mechanism, table, index, place, entry):
        """A ``[[bushings]]`` table: its rates in the file's units (N/mm, N mm/deg; a 6x6 matrix by
        blocks, translations first), preload N and N mm."""
        name = entry["name"]
        links = self.link_pair(place, entry["links"])
        kwargs, passed = {}, {}
        kwargs["at"] = self.numbers(place, "at", entry["at"], "length", (3,))
        passed["at"] = (entry["at"], kwargs["at"])
        for key, extra in (("stiffness", "stiffness"), ("damping", "damping")):
            if key in entry:
                kwargs[key] = self.six(place, key, entry[key], extra)
                passed[key] = (entry[key], kwargs[key])
        if "preload" in entry:
            kwargs["preload"] = self.six(place, "preload", entry["preload"], None)
            passed["preload"] = (entry["preload"], kwargs["preload"])
        if "axes" in entry:
            axes = entry["axes"]
            self.numbers(place, "axes", axes, "none", (3, 3))
            if isinstance(axes, list) and len(axes) == 3:
                axes = [canonical_direction(a, f"bushing {name!r}: axes") for a in axes]
            kwargs["axes"] = axes
        if "replaces" in entry:
            kwargs["replaces"] = self.name_of(place, "replaces", entry["replaces"])
        self.call(table, place, name, passed, mechanism.add_bushing, name, links[0], links[1], **kwargs)

    def six(self, place, key, raw, extra):
        """A bushing's six rates or 6x6 matrix (``extra`` ``"stiffness"`` or ``"damping"``) or
        its preload (``extra`` None) in SI; ``raw`` as it is when its shape is wrong."""
        bad = first_bad_leaf(raw)
        if bad is not None:
            self.fail(place, key, f"expected numbers, got {bad!r} ({type(bad).__name__})")
        shape = numeric_shape(raw)
        if extra is None:
            if shape != (6,):
                return raw
            return [self.to_si(place, key, v, "force" if i < 3 else "force*length") for i, v in enumerate(raw)]
        rows = BUSHING_RATES[extra]
        if shape == (6,):
            return [self.to_si(place, key, v, rows[i // 3][i // 3]) for i, v in enumerate(raw)]
        if shape == (6, 6):
            return [[self.to_si(place, key, v, rows[i // 3][j // 3]) for j, v in enumerate(row)]
                    for i, row in enumerate(raw)]
        return raw

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
            if numeric_shape(raw) != shape:
                self.fail("assemble.guess", name,
                          f"expected {'a number' if pair.size == 1 else f'{pair.size} numbers'}, "
                          f"got {check_arg.shown(raw)}")
            values = np.atleast_1d(self.to_si("assemble.guess", name, raw, "none"))
            guess[name] = np.array([
                self.units.to_si(v, "angle" if rotational else "length")
                for v, rotational in zip(values, pair.pair_type.rotational)])
            if pair.size == 1:
                guess[name] = float(guess[name][0])
        return guess
