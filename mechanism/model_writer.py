"""Writing model files: a :class:`~mechanism.Mechanism` as the TOML text :mod:`mechanism.model_reader`
reads back (see :mod:`mechanism.model_file` for the format and its units).

:class:`ModelWriter` writes the tables in the reader's order, each number converted from SI
to the chosen units and written as the shortest text that reads back as exactly the value
in memory (``repr``), each direction as a fixed point of the builder's normalization, so that
``save -> load -> save`` gives the same bytes.
"""

from __future__ import annotations

import os

import numpy as np

from .errors import ModelError
from .bushings import BUSHING_RATES
from .model import Mechanism
from .specs import GROUND
from .toml_values import canonical_direction, toml_key, toml_value
from .units import Units

__all__ = ["ModelWriter"]


class ModelWriter:
    """Writes one mechanism in ``units`` for the file ``path`` (its name locates errors)."""

    def __init__(self, path, units: Units):
        self.file = os.path.basename(os.fspath(path))
        self.units = units
        self.lines: list[str] = []

    def key(self, key, value):
        self.lines.append(f"{toml_key(key)} = {toml_value(value)}")

    def header(self, text):
        self.lines += ["", text]

    def si(self, value, quantity):
        return self.units.from_si(value, quantity)

    def load(self, place, force, quantity, spec_kind, spec_name, field="force"):
        """A force or torque (at key ``field``) in file units: a number, a vector or a ``{times,
        values}`` table; a ModelError for a function of time, which a file cannot hold."""
        if callable(force):
            raise ModelError(f"{self.file}: {place}: {field}",
                             f"{spec_kind} {spec_name!r} is a function of time, which a model file "
                             "cannot hold; give a number or a (times, values) table")
        if isinstance(force, tuple):
            times, values = force
            return {"times": np.asarray(times, dtype=float),
                    "values": self.si(np.asarray(values, dtype=float), quantity)}
        return self.si(force, quantity)

    def write(self, mechanism: Mechanism) -> str:
        """The whole file's text."""
        model = mechanism.snapshot()
        variables = {}
        for pair in model.declared():
            for variable, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
                variables[variable] = rotational
        for driver in model.point_drivers:
            variables[driver.name] = False

        L = self.units
        self.lines = [f"# kinematrix model; lengths in {L.length}, angles in {L.angle} "
                      "(derived units: mechanism/model_file.py)"]
        self.key("name", model.name)
        if model.bushings:
            self.key("use_bushings", bool(model.use_bushings))
        self.header("[units]")
        self.key("length", L.length)
        self.key("angle", L.angle)
        self.header("[gravity]")
        self.key("vector", self.si(model.gravity, "acceleration"))
        self.write_links(model)
        self.write_pairs(model)
        self.write_points(model)
        self.write_pair_loads(model, variables)
        self.write_point_loads(model)
        self.write_bushings(model)
        self.write_assembly(model)
        return "\n".join(self.lines) + "\n"

    def write_links(self, model):
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

    def write_pairs(self, model):
        for pair in model.declared():
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
                    self.key("axis", canonical_direction(list(pair.axis), "axis"))
                if pair.axes is not None:
                    self.key("axes", [canonical_direction(list(pin), "axes") for pin in pair.axes])
            for key, value in pair.pair_type.options().items():
                self.key(key, self.si(value, pair.pair_type.option_quantities[key]))

    def write_points(self, model):
        """Points and point drivers."""
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
            self.key("direction", canonical_direction(list(driver.direction), "direction"))

    def write_pair_loads(self, model, variables):
        """Pair springs and pair forces; ``variables`` maps each variable to True for an angle."""
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

    def write_point_loads(self, model):
        """Spring-dampers and point forces."""
        for sd in model.spring_dampers:
            self.header("[[spring_dampers]]")
            self.key("name", sd.name)
            self.key("link_a", sd.link_a)
            self.key("at_a", self.si(sd.at_a, "length"))
            self.key("link_b", sd.link_b)
            self.key("at_b", self.si(sd.at_b, "length"))
            self.key("stiffness", self.si(sd.stiffness, "linear_stiffness"))
            self.key("free_length", self.si(sd.free_length, "length"))
            if sd.damping_law == "linear":
                self.key("damping", self.si(sd.damping, "linear_damping"))
            else:
                self.key("damping", self.si(sd.damping, "quadratic_damping"))
                self.key("damping_law", sd.damping_law)

        for index, pf in enumerate(model.point_forces):
            place = f"point_forces[{index}] ({pf.name!r})"
            value = self.load(place, pf.force, "force", "point force", pf.name)
            self.header("[[point_forces]]")
            self.key("name", pf.name)
            self.key("link", pf.link)
            self.key("at", self.si(pf.at, "length"))
            self.key("force", value)
            if pf.circle is not None:
                axis, radius, toward = pf.circle
                self.key("circle_axis", canonical_direction(list(axis), "circle_axis"))
                self.key("circle_radius", self.si(radius, "length"))
                self.key("circle_toward", canonical_direction(list(toward), "circle_toward"))

        for index, lm in enumerate(model.link_moments):
            place = f"link_moments[{index}] ({lm.name!r})"
            value = self.load(place, lm.moment, "torque", "link moment", lm.name, "moment")
            self.header("[[link_moments]]")
            self.key("name", lm.name)
            self.key("link", lm.link)
            self.key("moment", value)

    def write_bushings(self, model):
        """``[[bushings]]``: rates in the file's units (a diagonal as six numbers, else the matrix)."""
        for bushing in model.bushings:
            self.header("[[bushings]]")
            self.key("name", bushing.name)
            self.key("links", [bushing.first, bushing.second])
            self.key("at", self.si(bushing.at, "length"))
            if not np.array_equal(bushing.axes, np.eye(3)):
                self.key("axes", [canonical_direction(list(a), "axes") for a in bushing.axes])
            for key in ("stiffness", "damping"):
                rows = BUSHING_RATES[key]
                value = np.asarray(getattr(bushing, key), dtype=float)
                if key == "damping" and not np.any(value):
                    continue
                if value.shape == (6,):
                    self.key(key, [self.si(float(v), rows[i // 3][i // 3]) for i, v in enumerate(value)])
                else:
                    self.key(key, [[self.si(float(v), rows[i // 3][j // 3]) for j, v in enumerate(row)]
                                   for i, row in enumerate(value)])
            if np.any(bushing.preload):
                self.key("preload", [self.si(float(v), "force" if i < 3 else "force*length")
                                     for i, v in enumerate(bushing.preload)])
            if bushing.replaces is not None:
                self.key("replaces", bushing.replaces)

    def write_assembly(self, model):
        """``[assemble.guess]``: the reference assembly of a model declared by link-local frames."""
        reference = [(name, np.asarray(values, dtype=float)) for name, values in model.reference]
        if not reference:
            return
        pairs = {pair.name: pair for pair in model.declared()}
        self.header("[assemble.guess]")
        for name, values in reference:
            if name not in pairs:
                continue
            rotational = pairs[name].pair_type.rotational
            converted = [self.si(float(v), "angle" if r else "length")
                         for v, r in zip(np.atleast_1d(values), rotational)]
            self.key(name, converted[0] if len(converted) == 1 else converted)
