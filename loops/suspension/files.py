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

from mechanism.errors import ModelError
from mechanism.model_file import read_model, read_toml

from .model import Suspension
from .axle import axle_from_corners, mirror_corner
from .corner import corner_from_table
from .vehicle import vehicle_from_table

__all__ = ["load_suspension", "read_tables"]


def read_tables(path):
    """``(LoadedModel, dict)``: the model of a file and its raw TOML tables, read within a model
    file's limits (size, nesting, UTF-8: :func:`mechanism.model_file.read_toml`, before
    anything past them is read). A file whose ``[axle]`` names its left and right corner
    files needs no pairs of its own."""
    data, _ = read_toml(path)
    axle = data.get("axle") if isinstance(data, dict) else None
    of_files = isinstance(axle, dict) and ("left" in axle or "right" in axle)
    loaded = read_model(path, require_pairs=not of_files)
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
    loaded, data = read_tables(path)
    file = _file(path)
    vehicle = _vehicle(loaded, data, path)
    try:
        if "axle" not in data:
            return Suspension.of_corner(loaded.mechanism, _corner(loaded, data, path), vehicle, loaded.units)
        table = data["axle"]
        if not isinstance(table, dict):
            raise ModelError(f"{file}: axle", "expected a table [axle] with mirror = true, or left and right")
        for key in table:
            if key not in ("mirror", "left", "right"):
                raise ModelError(f"{file}: axle.{key}", "unknown key (expected mirror, or left and right)")
        if "mirror" in table:
            if set(table) != {"mirror"} or table["mirror"] is not True:
                raise ModelError(f"{file}: axle.mirror", "give mirror = true alone, or left and right corner files")
            corner = _corner(loaded, data, path)
            return Suspension.of_axle(mirror_corner(loaded.mechanism, corner, vehicle), loaded.units,
                                      name=loaded.mechanism.name)
        corners = {}
        for side in ("left", "right"):
            if not isinstance(table.get(side), str):
                raise ModelError(f"{file}: axle.{side}", "expected the path of a corner file (relative to this file)")
            other = os.path.join(os.path.dirname(os.fspath(path)), table[side])
            other_loaded, other_data = read_tables(other)
            if other_loaded.units != loaded.units:
                raise ModelError(f"{file}: axle.{side}", f"{table[side]} is in {other_loaded.units.length} and "
                                 f"{other_loaded.units.angle}, this file in {loaded.units.length} and "
                                 f"{loaded.units.angle}: give both in the same units")
            corner = _corner(other_loaded, other_data, other)
            try:  # each corner checked alone first, so that its errors name its own file
                Suspension.of_corner(other_loaded.mechanism, corner, None, other_loaded.units)
            except ModelError as exc:
                raise _located(exc, other) from None
            corners[side] = (other_loaded.mechanism, corner)
            if vehicle is None and side == "left":
                vehicle = _vehicle(other_loaded, other_data, other)
        return Suspension.of_axle(axle_from_corners(corners["left"], corners["right"], vehicle,
                                                    name=loaded.mechanism.name), loaded.units)
    except ModelError as exc:
        raise _located(exc, path) from None
