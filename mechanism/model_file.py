"""TOML model files: :func:`load_model` reads one into a :class:`~mechanism.Mechanism`,
:func:`save_model` writes one back (DESIGN.md, "Model files and command line").

The file mirrors the builder's API one to one: ``name``, ``[units]``, ``[gravity]``, and
the arrays of tables ``[[links]]``, ``[[pairs]]``, ``[[points]]``, ``[[point_drivers]]``,
``[[pair_springs]]``, ``[[pair_forces]]``, ``[[spring_dampers]]``, ``[[point_forces]]``,
``[[link_moments]]``, whose keys are the keyword names of :meth:`Mechanism.add_link`, ``add_pair``
(with ``links = [first, second]``), ``add_point``, ``add_point_driver``, ``add_pair_spring``,
``add_pair_force``, ``add_spring_damper``, ``add_point_force`` and ``add_link_moment``. A model whose pairs are
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
  with ``damping_law = "quadratic"``        N s^2/L^2          N s^2/mm^2
  (force ``c v |v|``; default "linear")
pair spring on an angle: ``free_value``     A                  deg
  ``stiffness``                             N L/A              N mm/deg
  ``damping``                               N L s/A            N mm s/deg
pair spring on a slide or a point driver:   L, N/L, N s/L      mm, N/mm, N s/mm
``free_value``, ``stiffness``, ``damping``
pair force on an angle (a torque)           N L                N mm
pair force on a slide or a point driver     N                  N
point force ``force``                       N                  N
point force ``circle_radius``               L                  mm
link moment ``moment``                      N L                N mm
  (with ``circle_axis``, ``circle_toward``:
  ``add_point_force``'s ``circle``)
``assemble.guess`` (per pair variable)      A or L             deg or mm
``axis``, ``axes``, ``direction``,          none (any length)  none
``circle_axis``, ``circle_toward``
==========================================  =================  ==================

The reading is :mod:`mechanism.model_reader`'s, the writing :mod:`mechanism.model_writer`'s,
the TOML values of both :mod:`mechanism.toml_values`'s; this module is their entry points.

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

import os
from dataclasses import dataclass, field

from .atomic import target_path, write_text_atomically
from .model import Mechanism
from .model_reader import CLOSED, ModelReader
from .model_writer import ModelWriter
from .units import QUANTITIES, Units

__all__ = ["load_model", "save_model", "read_model", "read_toml", "LoadedModel", "Units", "QUANTITIES", "CLOSED"]


@dataclass(frozen=True)
class LoadedModel:
    """What :func:`read_model` returns: the mechanism and the file's units.

    Read with ``assemble=False``, the mechanism is built and every table checked, but its
    ``[assemble.guess]`` is not solved yet and its loops not checked closed: :meth:`assembled`
    does both (a command checks its options against the model first, before the engine loads)."""

    mechanism: Mechanism
    units: Units
    path: str
    reader: ModelReader | None = field(default=None, repr=False, compare=False)

    def assembled(self) -> Mechanism:
        """The mechanism, assembled and its loops checked closed (a :class:`ModelError` located
        in the file otherwise), as :func:`read_model` returns it by default; once only."""
        if self.reader is not None:
            self.reader.assemble(self.mechanism)
        return self.mechanism


def load_model(path) -> Mechanism:
    """Read a TOML model file; returns a :class:`~mechanism.Mechanism` in SI units.

    Raises
    ------
    ModelError
        One line naming the file, the table (index and name) and the key.
    """
    return read_model(path).mechanism


def read_model(path, require_pairs=True, assemble=True) -> LoadedModel:
    """Like :func:`load_model`, also returning the file's :class:`Units` (for the CLI).

    ``require_pairs=False`` accepts a file without ``[[pairs]]`` (an axle made of two
    corner files, :mod:`loops.suspension.files`); a model file must have pairs otherwise.
    ``assemble=False`` leaves the assembly and the closure check (the engine's work) to
    :meth:`LoadedModel.assembled`."""
    reader = ModelReader(path, require_pairs)
    loaded = LoadedModel(reader.read(), reader.units, os.fspath(path), reader)
    if assemble:
        loaded.assembled()
    return loaded


def read_toml(path, what="model file"):
    """``(tables, reader)``: the TOML tables of a file that goes with a model file (a design
    study's vary file, :mod:`loops.study.designs`), read within a model file's limits (size,
    nesting, UTF-8; a syntax error located by line and column), and the reader that locates
    further mistakes the way a model file's are: ``reader.fail(place, key, problem)`` raises
    ``file: place: key: problem``, ``reader.place(table, index, name)`` is ``"vary[2]
    ('lower_ball')"`` and ``reader.suggest(key, choices)`` is ``" (did you mean ...?)"``.
    ``what`` names the kind of file in messages (``"cannot read the vary file"``)."""
    reader = ModelReader(path, what=what)
    return reader.tables(), reader


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
    text = ModelWriter(path, units).write(mechanism)
    write_text_atomically(path, text)
