"""Reading a corner or an axle from model files: ``[corner]``, ``[vehicle]`` and ``[axle]``.

A corner file is a model file (DESIGN.md, "Model files") with a ``[corner]`` table (the
fields of :class:`~loops.suspension.corner.Corner`, lengths in the file's units) and,
optionally, ``[vehicle]`` (:class:`~loops.suspension.vehicle.Vehicle`). An ``[axle]`` table
makes it an axle:

* ``mirror = true``: this file's corner and its mirror image about the centre plane;
* ``left = "fl.toml"`` and ``right = "fr.toml"``: two corner files (paths relative to this
  file), joined on one body; this file's ``[vehicle]`` applies (else the left file's).

Every mistake is one :class:`~mechanism.errors.ModelError` located as
``<file>: <table>.<key>``, for example ``front.toml: corner.wheel_radius``.
"""

from __future__ import annotations

import os

from dataclasses import dataclass

from mechanism.errors import ModelError
from mechanism.model_file import LoadedModel, read_model, read_toml

from .model import Suspension
from .axle import axle_from_corners, mirror_corner
from .corner import corner_from_table
from .vehicle import Vehicle, vehicle_from_table

__all__ = ["load_suspension", "read_suspension", "SuspensionFile", "read_tables"]


def read_tables(path, assemble=True):
    """``(LoadedModel, dict)``: the model of a file (``assemble=False``: not assembled yet,
    ``loaded.assembled()`` does it) and its raw TOML tables, read within a model
    file's limits (size, nesting, UTF-8: :func:`mechanism.model_file.read_toml`, before
    anything past them is read). A file whose ``[axle]`` names its left and right corner
    files needs no pairs of its own."""
    data, _ = read_toml(path)
    axle = data.get("axle") if isinstance(data, dict) else None
    of_files = isinstance(axle, dict) and ("left" in axle or "right" in axle)
    loaded = read_model(path, require_pairs=not of_files, assemble=assemble)
    return loaded, data


def _file(path):
    return os.path.basename(os.fspath(path)) or os.fspath(path)


def _located(exc, path):
    """``exc`` located under the file ``path`` (its ``corner.``/``vehicle.`` key kept)."""
    where = exc.where
    if where.startswith(("corner.", "vehicle.", "axle.")) or where in ("corner", "vehicle", "axle"):
        return ModelError(f"{_file(path)}: {where}", exc.problem)
    return exc


def _corner(loaded, data, path):
    file = _file(path)
    if "corner" not in data:
        raise ModelError(f"{file}: corner", "missing table [corner] (upright, wheel_centre, spin_axis_point, "
                         "kingpin, wheel_radius, side)")
    return corner_from_table(data["corner"], loaded.units, f"{file}: corner")


def _vehicle(loaded, data, path):
    if "vehicle" not in data:
        return None
    return vehicle_from_table(data["vehicle"], loaded.units, f"{_file(path)}: vehicle")


def load_suspension(path) -> Suspension:
    """A :class:`~loops.suspension.analyses.Suspension` (a corner, or an axle when the file
    has ``[axle]``) from a model file, with its vehicle parameters and units.

    Raises
    ------
    ModelError
        One line naming the file, the table and the key.
    """
    return read_suspension(path).build()


@dataclass(frozen=True)
class SuspensionFile:
    """A corner or axle file read and its tables checked, before the engine runs: what
    :func:`read_suspension` returns, :meth:`build` making it the Suspension.

    ``loaded`` is the file's own model (not assembled yet), ``kind`` ``"corner"``, ``"mirror"``
    (``[axle] mirror = true``) or ``"files"`` (``[axle]`` left and right), ``corners`` the
    ``(LoadedModel, Corner, path)`` of the file's corner or of its left and right files.
    ``units``, ``model`` (the first corner's snapshot: its pairs and names), ``steering`` and
    ``is_axle`` answer, without the engine, what the command line reads its options by."""

    path: str
    loaded: LoadedModel
    kind: str
    corners: tuple
    vehicle: Vehicle | None

    @property
    def units(self):
        return self.loaded.units

    @property
    def is_axle(self) -> bool:
        return self.kind != "corner"

    @property
    def model(self):
        return self.corners[0][0].mechanism.snapshot()

    @property
    def steering(self):
        return list(dict.fromkeys(c.steering for _, c, _ in self.corners if c.steering is not None))

    def build(self) -> Suspension:
        """The :class:`Suspension`: the models assembled and their loops checked closed, the design
        pose evaluated (the engine's work); a ModelError located as :func:`load_suspension` says."""
        mechanism = self.loaded.assembled()
        try:
            if self.kind == "corner":
                return Suspension.of_corner(mechanism, self.corners[0][1], self.vehicle, self.units)
            if self.kind == "mirror":
                return Suspension.of_axle(mirror_corner(mechanism, self.corners[0][1], self.vehicle), self.units,
                                          name=mechanism.name)
            corners = {}
            for side, (loaded, corner, path) in zip(("left", "right"), self.corners):
                try:  # each corner checked alone first, so that its errors name its own file
                    Suspension.of_corner(loaded.assembled(), corner, None, loaded.units)
                except ModelError as exc:
                    raise _located(exc, path) from None
                corners[side] = (loaded.mechanism, corner)
            return Suspension.of_axle(axle_from_corners(corners["left"], corners["right"], self.vehicle,
                                                        name=mechanism.name), self.units)
        except ModelError as exc:
            raise _located(exc, self.path) from None


def read_suspension(path) -> SuspensionFile:
    """A corner or axle file (and the corner files its ``[axle]`` names) read, every table
    checked, not built yet: :meth:`SuspensionFile.build` makes the Suspension. The command line
    checks its options against it first, before the engine loads; ModelError as
    :func:`load_suspension`'s."""
    loaded, data = read_tables(path, assemble=False)
    file = _file(path)
    vehicle = _vehicle(loaded, data, path)
    try:
        if "axle" not in data:
            return SuspensionFile(path, loaded, "corner", ((loaded, _corner(loaded, data, path), path),), vehicle)
        table = data["axle"]
        if not isinstance(table, dict):
            raise ModelError(f"{file}: axle", "expected a table [axle] with mirror = true, or left and right")
        for key in table:
            if key not in ("mirror", "left", "right"):
                raise ModelError(f"{file}: axle.{key}", "unknown key (expected mirror, or left and right)")
        if "mirror" in table:
            if set(table) != {"mirror"} or table["mirror"] is not True:
                raise ModelError(f"{file}: axle.mirror", "give mirror = true alone, or left and right corner files")
            return SuspensionFile(path, loaded, "mirror", ((loaded, _corner(loaded, data, path), path),), vehicle)
        corners = []
        for side in ("left", "right"):
            if not isinstance(table.get(side), str):
                raise ModelError(f"{file}: axle.{side}", "expected the path of a corner file (relative to this file)")
            other = os.path.join(os.path.dirname(os.fspath(path)), table[side])
            other_loaded, other_data = read_tables(other, assemble=False)
            if other_loaded.units != loaded.units:
                raise ModelError(f"{file}: axle.{side}", f"{table[side]} is in {other_loaded.units.length} and "
                                 f"{other_loaded.units.angle}, this file in {loaded.units.length} and "
                                 f"{loaded.units.angle}: give both in the same units")
            corners.append((other_loaded, _corner(other_loaded, other_data, other), other))
            if vehicle is None and side == "left":
                vehicle = _vehicle(other_loaded, other_data, other)
        return SuspensionFile(path, loaded, "files", tuple(corners), vehicle)
    except ModelError as exc:
        raise _located(exc, path) from None
