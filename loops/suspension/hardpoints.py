"""Hardpoint tables: a model's hardpoints out to a CSV file and an edited table back into the
model file, so that hardpoints can be moved in a spreadsheet.

A hardpoint is a location a model file gives with ``at`` (a pair's centre, a point, a
bushing's centre) or ``at_a``/``at_b`` (a spring-damper's ends). Names: a pair's, a point's or
a bushing's name; a spring-damper's ends ``NAME.at_a`` and ``NAME.at_b``; a point that has
the name of a pair ``points.NAME``, a bushing that has the name of a point ``bushings.NAME``.

The table has one row per location, ``name,x,y,z,aliases``, in the model file's length unit,
after a first line naming it (``# units: length=mm``). Hardpoints at the same place in the
model file (a ball joint at a rack's end, a point at a pair's centre, a damper's end at a
spring's) are one location: its row takes the first of their names and lists the others
under ``aliases``, separated by spaces, and they move together: a row moves every name of
its location, and a table that gives two names of one location two places is refused, one
located line. A table may also list a pair's axis as ``PAIR.axis`` (a direction: any
length; a design study writes it as a unit vector), which the exported table leaves out;
the ``aliases`` column may be left out (``name,x,y,z``).

A mirrored axle file (``[axle] mirror = true``) holds one corner: its table also takes the
axle's names (``lower_ball_left``, ``lower_ball_right``, ``coil_left.at_a``: what a design
study or the optimiser of the axle writes), each side mapped back to the file's corner (the
other side mirrored about the centre plane); both sides of one hardpoint must then be each
other's mirror image.

Applying a table rewrites only the numbers of the hardpoints it moves in the model file's
text (comments, order and every other number stay as they are), then reads the file back
to check that it still loads; rows whose numbers equal the file's are left alone. A row moves
its hardpoint when its numbers differ from the file's beyond the 1e-12 of a value a table's
printed digits hold (an axis: its direction): an exported table, every row listed, moves what
was edited in it. A pair's centre so moved or axis so turned carries the bushings that replace
the pair (``replaces``), their centres and axes, as :meth:`mechanism.Mechanism.moved` carries
them (:func:`mechanism.bushings.moved_bushings`), except the centre of a bushing whose own row
moves it, which keeps its row's value. Tables are read as spreadsheet programs write them
(:func:`mechanism.tables.read_table_text`: UTF-8 with or without a byte-order mark, UTF-16
with one, or Latin-1); cells separated by commas.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import tomllib

import numpy as np

from mechanism.atomic import write_text_atomically
from mechanism.bushings import smallest_rotation
from mechanism.errors import ModelError
from mechanism.hardpoints import bushing_hardpoint, hardpoints_of, point_hardpoint
from mechanism.limits import MAX_LENGTH
from mechanism.model_file import Units, read_model, read_toml
from mechanism.tables import read_table_text

__all__ = ["hardpoints", "hardpoint_locations", "write_hardpoints", "read_hardpoints", "apply_hardpoints",
           "apply_hardpoint_values", "axle_hardpoint_names"]

#: Two sides of one hardpoint of a mirrored axle file agree when they are each other's mirror
#: image within this (file length units, or unit-axis components).
MIRROR_AGREEMENT = 1e-6


def _entries(data, axes=False):
    """``{name: (table, index, key)}`` of the hardpoints of a model file's TOML ``data``; with
    ``axes`` also the pairs' axes, ``PAIR.axis`` (what a design study varies)."""
    out = {}
    pair_names = {entry.get("name") for entry in data.get("pairs", []) if isinstance(entry, dict)}
    for index, entry in enumerate(data.get("pairs", [])):
        if isinstance(entry, dict) and "at" in entry:
            out[entry["name"]] = ("pairs", index, "at")
            if axes and "axis" in entry:
                out[f"{entry['name']}.axis"] = ("pairs", index, "axis")
    for index, entry in enumerate(data.get("points", [])):
        if isinstance(entry, dict) and not entry.get("local", False):
            name = entry["name"]
            out[point_hardpoint(name, pair_names)] = ("points", index, "at")
    for index, entry in enumerate(data.get("spring_dampers", [])):
        if isinstance(entry, dict):
            for key in ("at_a", "at_b"):
                out[f"{entry['name']}.{key}"] = ("spring_dampers", index, key)
    point_names = {entry.get("name") for entry in data.get("points", []) if isinstance(entry, dict)}
    for index, entry in enumerate(data.get("bushings", [])):
        if isinstance(entry, dict) and "at" in entry:
            out[bushing_hardpoint(entry["name"], point_names)] = ("bushings", index, "at")
    return out


def _value(data, entry):
    table, index, key = entry
    return tuple(float(v) for v in data[table][index][key])


def _aliases(data, entries):
    """``{name: [every name of its location]}`` of the located hardpoints of ``entries`` (not
    the axes): names whose numbers are the same in the file, in the file's order."""
    places = {}
    for name, entry in entries.items():
        if entry[2] != "axis":
            places.setdefault(_value(data, entry), []).append(name)
    return {name: group for group in places.values() for name in group}


def _model_tables(path):
    """``(LoadedModel, TOML tables)`` of a model file (a model that does not load has no table)."""
    loaded = read_model(path)
    data, _ = read_toml(path)
    return loaded, data


def hardpoints(path):
    """The hardpoints of a model file: ``(names, (H, 3) values in the file's length unit,
    Units)``, every name (aliases included)."""
    loaded, data = _model_tables(path)
    entries = _entries(data)
    values = [_value(data, entry) for entry in entries.values()]
    return list(entries), np.array(values, dtype=float).reshape(len(entries), 3), loaded.units


def hardpoint_locations(path):
    """The locations of a model file's hardpoints: ``(rows, (R, 3) values in the file's length
    unit, Units)`` with ``rows`` a list of ``(name, [its aliases])``, one per location, in the
    file's order (the table :func:`write_hardpoints` writes)."""
    loaded, data = _model_tables(path)
    entries = _entries(data)
    groups = _aliases(data, entries)
    rows = [(name, groups[name][1:]) for name in entries if groups[name][0] == name]
    values = [_value(data, entries[name]) for name, _ in rows]
    return rows, np.array(values, dtype=float).reshape(len(rows), 3), loaded.units


def _number(x):
    """Shortest text of a float; integers without a decimal point."""
    x = float(x)
    if x == math.floor(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def write_hardpoints(model_path, table_path):
    """Write the hardpoint table of a model file to ``table_path`` (CSV, atomically): one row
    per location, its other names under ``aliases``. Returns the rows' names."""
    rows, values, units = hardpoint_locations(model_path)
    buffer = io.StringIO()
    buffer.write(f"# units: length={units.length}\n")
    buffer.write("# one row per location; its other names (aliases, separated by spaces) move with it\n")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["name", "x", "y", "z", "aliases"])
    for (name, aliases), xyz in zip(rows, values):
        writer.writerow([name] + [_number(v) for v in xyz] + [" ".join(aliases)])
    write_text_atomically(table_path, buffer.getvalue())
    return [name for name, _ in rows]


def _cells(line, number, file, columns):
    """A row's cells, stripped; a row in a spreadsheet's other list separator is said so."""
    cells = [c.strip() for c in next(csv.reader([line]))]
    if len(cells) == 1 and ";" in line:
        raise ModelError(f"{file}: line {number}", "cells separated by ';' (a spreadsheet's list separator): save the "
                         "table as CSV with commas and decimal points")
    if len(cells) not in columns:
        raise ModelError(f"{file}: line {number}", f"expected {' or '.join(map(str, sorted(columns)))} cells "
                         f"(name, x, y, z{', aliases' if 5 in columns else ''}), got {len(cells)}")
    return cells


def read_hardpoints(table_path, units: Units):
    """``{name: (line, (3,) values in units.length)}`` from a hardpoint table (its ``# units:``
    line says its length unit; without one it is taken to be ``units``'s). The ``aliases``
    column, when there is one, is for the reader: the model file says which names are one
    location.

    Raises
    ------
    ModelError
        Located ``<table>: line <n>`` (and the hardpoint and coordinate for a value beyond
        the limit of a model's lengths) for any malformed row.
    """
    file = os.path.basename(os.fspath(table_path))
    try:
        text = read_table_text(table_path, limit=_MAX_TABLE_BYTES)
    except OSError as exc:
        raise ModelError(file, f"cannot read the hardpoint table ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ModelError(file, f"{exc}: not a hardpoint table") from None
    table_units, rows, header = units, [], None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            found = re.search(r"length=(\w+)", line)
            if found:
                table_units = Units(found.group(1), units.angle) if found.group(1) in ("m", "mm") else None
                if table_units is None:
                    raise ModelError(f"{file}: line {number}", f"unknown length unit {found.group(1)!r}")
            continue
        if not line.strip():
            continue
        if header is None:
            header = _cells(line, number, file, range(1, 100))
            if header not in (["name", "x", "y", "z"], ["name", "x", "y", "z", "aliases"]):
                raise ModelError(f"{file}: line {number}",
                                 f"expected the header name,x,y,z (and aliases), got {line!r}")
            continue
        rows.append((number, _cells(line, number, file, {len(header)} | {4})))
    if header is None:
        raise ModelError(file, "empty table: expected a header name,x,y,z and one row per hardpoint")
    out = {}
    for number, cells in rows:
        name, where = cells[0], f"{file}: line {number}"
        try:
            xyz = np.array([float(c) for c in cells[1:4]])
        except ValueError:
            raise ModelError(where, f"not a number in {cells[1:4]!r}") from None
        if not np.all(np.isfinite(xyz)):
            raise ModelError(where, "non-finite coordinate")
        si = table_units.to_si(xyz, "length")
        if not name.endswith(".axis") and np.any(np.abs(si) > MAX_LENGTH):
            axis = "xyz"[int(np.argmax(np.abs(si)))]
            raise ModelError(f"{where}: {name}.{axis}", f"{xyz['xyz'.index(axis)]:.6g} {table_units.length} is beyond "
                             f"the {MAX_LENGTH:g} m a model's lengths may reach (mechanism/limits.py)")
        if name in out:
            raise ModelError(where, f"{name!r} is listed twice")
        out[name] = (number, np.asarray(units.from_si(si, "length"), dtype=float))
    return out


#: Largest hardpoint table read (bytes): far more than any model's hardpoints.
_MAX_TABLE_BYTES = 16 * 2**20


def axle_hardpoint_names(model_path):
    """``{axle name: (file name, mirror)}`` for a mirrored axle file (``[axle] mirror =
    true``): each hardpoint name of the axle (``lower_ball_left``, ``coil_right.at_a``, a
    shared pair's own name) and the file's hardpoint it is, ``mirror`` None for the file's own
    corner and shared pairs, else the centre plane's y (file length unit) the other side is
    mirrored about. Empty for any other file."""
    from .files import load_suspension  # noqa: PLC0415 (files loads the analyses)

    loaded, data = _model_tables(model_path)
    axle = data.get("axle")
    if not (isinstance(axle, dict) and axle.get("mirror") is True):
        return {}
    susp = load_suspension(model_path)
    own_side = data["corner"]["side"]
    plane = float(loaded.units.from_si(susp.corners[own_side].centre_plane_y, "length"))
    by_owner = {(hp.table, hp.owner, hp.key): name for name, hp in hardpoints_of(loaded.mechanism.snapshot()).items()}
    out = {}
    for name, hp in hardpoints_of(susp.model).items():
        for side in ("left", "right"):
            owner = hp.owner.removesuffix(f"_{side}")
            if owner != hp.owner and (hp.table, owner, hp.key) in by_owner:
                out[name] = (by_owner[hp.table, owner, hp.key], None if side == own_side else plane)
                break
        else:
            if (hp.table, hp.owner, hp.key) in by_owner:  # a shared pair: itself
                out[name] = (by_owner[hp.table, hp.owner, hp.key], None)
    return out


def _mirrored(xyz, plane, axis):
    """A location (or an axis direction) mirrored about the centre plane ``y = plane``."""
    x, y, z = xyz
    return np.array([x, -y, z]) if axis else np.array([x, 2.0 * plane - y, z])


def _same_place(a, b, axis):
    if axis:  # directions: any length
        a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    return np.array_equal(a, b) or np.abs(a - b).max() <= MIRROR_AGREEMENT


def _resolved(values, entries, data, model_file, model_path):
    """``{file entry: xyz}`` of the given ``values`` ({name: (where, xyz)}): axle names of a
    mirrored file mapped back, every alias of a location moved with it; two names of one
    location (aliases, or a mirrored axle's two sides) given two places are refused."""
    axle_names = axle_hardpoint_names(model_path) if any(name not in entries for name in values) else {}
    groups = _aliases(data, entries)
    given = {}  # file entry -> (name, where, xyz) of the first name that gave it
    for name, (where, xyz) in values.items():
        if name in entries:
            file_name, plane = name, None
        elif name in axle_names:
            file_name, plane = axle_names[name]
        else:
            known = list(entries) + [n for n in axle_names if n not in entries]
            raise ModelError(where, f"{name!r} is not a hardpoint of {model_file} (hardpoints: {', '.join(known)})")
        axis = file_name.endswith(".axis")
        xyz = np.asarray(xyz, dtype=float) if plane is None else _mirrored(xyz, plane, axis)
        for alias in ([file_name] if axis else groups[file_name]):
            first = given.get(entries[alias])
            if first is None:
                given[entries[alias]] = (name, where, xyz)
            elif not _same_place(first[2], xyz, axis):
                how = "mirror images in this mirrored axle file" if alias == file_name else \
                    f"aliases: one location of {model_file}"
                raise ModelError(where, f"{name!r} and {first[0]!r} ({first[1]}) are {how}, moved to different "
                                 f"places ({', '.join(_number(v) for v in xyz)} and "
                                 f"{', '.join(_number(v) for v in first[2])}): give them one")
    return {entry: xyz for entry, (_, _, xyz) in given.items()}, {entry: where for entry, (_, where, _) in
                                                                   given.items()}


_KEY_LINE = r"^(?P<lead>\s*{key}\s*=\s*)\[(?P<body>[^\]\n]*)\](?P<rest>.*)$"
#: A one-line array of three arrays (a bushing's ``axes``), rewritten as the flat ones are.
_ROWS_LINE = r"^(?P<lead>\s*{key}\s*=\s*)\[(?P<body>\s*(?:\[[^\]\n]*\]\s*,?\s*){{3}})\](?P<rest>.*)$"
_HEADER = re.compile(r"^\s*\[\[\s*(?P<table>[A-Za-z_]+)\s*\]\]")
_SINGLE = re.compile(r"^\s*\[(?!\[)")


def _array_text(value):
    """``[x, y, z]``, or ``[[..], [..], [..]]`` for rows, numbers as :func:`_number` writes them."""
    if np.ndim(value) == 2:
        return "[" + ", ".join(_array_text(row) for row in value) + "]"
    return "[" + ", ".join(_number(v) for v in value) + "]"


def _rewritten(text, targets, model_file, added=()):
    """``text`` with each ``(table, index, key) -> xyz`` of ``targets`` rewritten in place; the
    keys ``added`` (of ``targets``, absent from the file: a bushing's ``axes`` left to their
    default) are written on a line of their own after their table's ``at``."""
    lines = text.split("\n")
    counters, current, done = {}, None, set()
    for i, line in enumerate(lines):
        header = _HEADER.match(line)
        if header:
            table = header.group("table")
            counters[table] = counters.get(table, -1) + 1
            current = (table, counters[table])
            continue
        if _SINGLE.match(line):
            current = None
            continue
        if current is None:
            continue
        for (table, index, key), xyz in targets.items():
            if (table, index) != current or (table, index, key) in done:
                continue
            line = lines[i]  # as rewritten by an earlier target (an added key follows its table's new `at`)
            if (table, index, key) in added:
                indent = line[:len(line) - len(line.lstrip())]
                key_line, before = _KEY_LINE.format(key="at"), f"{line}\n{indent}{key} = "
            else:
                key_line, before = (_ROWS_LINE if np.ndim(xyz) == 2 else _KEY_LINE).format(key=re.escape(key)), None
            found = re.match(key_line, line)
            if found:
                lines[i] = (before + _array_text(xyz) if before is not None else
                            f"{found.group('lead')}{_array_text(xyz)}{found.group('rest')}")
                done.add((table, index, key))
    for (table, index, key) in targets:
        if (table, index, key) not in done:
            raise ModelError(f"{model_file}: {table}[{index}]: {key}", "cannot rewrite this array in place (write it "
                             "on one line, as key = [x, y, z])")
    new_text = "\n".join(lines)
    check = tomllib.loads(new_text)
    for (table, index, key), xyz in targets.items():
        if not np.array_equal(np.array(check[table][index][key], dtype=float), xyz):  # pragma: no cover
            raise ModelError(f"{model_file}: {table}[{index}]: {key}", "the rewritten value does not read back")
    return new_text


def _differs(old, new, axis):
    """Whether a table's value ``new`` moves the file's ``old`` (both (3,), file units): beyond the
    digits a table prints (1e-12 of the value), directions compared for an axis (any length)."""
    old, new = np.asarray(old, dtype=float), np.asarray(new, dtype=float)
    if axis:
        old, new = old / np.linalg.norm(old), new / np.linalg.norm(new)
    return bool(np.abs(new - old).max() > 1e-12 * max(np.abs(old).max(), 1.0 if axis else 1e-300))


def _carried(data, wanted, origin):
    """``{file entry: value}`` of the bushings the moved pivots of ``wanted`` ({file entry: xyz})
    carry, as :func:`mechanism.bushings.moved_bushings` carries them: a bushing replacing a pair
    whose centre ``c`` moved to ``c'`` or whose axis turned (``R`` the smallest rotation taking
    the old direction to the new) goes to ``c' + R (b - c)`` with its axes turned by ``R``,
    unless the table moves its centre itself (then only its axes turn). Values in the file's
    length unit; an axis turned to its reverse is refused at its ``origin``."""
    out = {}
    bushings = [(i, b) for i, b in enumerate(data.get("bushings", [])) if isinstance(b, dict) and "at" in b]
    for index, pair in enumerate(data.get("pairs", [])):
        entries = [("pairs", index, key) for key in ("at", "axis")]
        moves = [e in wanted and _differs(data["pairs"][index][e[2]], wanted[e], e[2] == "axis") for e in entries]
        replacing = [(i, b) for i, b in bushings if b.get("replaces") == pair.get("name")]
        if not (any(moves) and replacing):
            continue
        old = np.array(pair["at"], dtype=float)
        new = np.asarray(wanted[entries[0]], dtype=float) if moves[0] else old
        turn = None
        if moves[1]:
            axes = [np.asarray(v, dtype=float) for v in (pair["axis"], wanted[entries[1]])]
            turn = smallest_rotation(*(a / np.linalg.norm(a) for a in axes), origin[entries[1]])
        for i, bushing in replacing:
            at, entry = np.array(bushing["at"], dtype=float), ("bushings", i, "at")
            if not (entry in wanted and _differs(at, wanted[entry], False)):
                out[entry] = new - old + at if turn is None else new + turn @ (at - old)
            if turn is not None:
                out[("bushings", i, "axes")] = np.array(bushing.get("axes", np.eye(3)), dtype=float) @ turn.T
    return out


def apply_hardpoint_values(model_path, values, out_path=None):
    """Move hardpoints in the model file's text: ``values`` ``{name: (where, (3,) in the file's
    length unit)}`` (``where`` locates the value in messages: a table's line, a fit); write the
    file to ``out_path`` (default: the model file itself), atomically. Names as a table's
    (:mod:`loops.suspension.hardpoints`: aliases move together; a mirrored axle file also
    takes the axle's names; a moved pivot carries its bushings, module docstring). Returns the
    names of the hardpoints moved (the file's), carried bushings among them.

    Raises
    ------
    ModelError
        At a value's ``where`` for a name that is not a hardpoint of the model, or two names
        of one location given two places; ``<model>: <table>[i]: <key>`` for a key whose
        array spans several lines; at the value's ``where`` (the moved file named) when the
        moved model no longer loads.
    """
    model_file = os.path.basename(os.fspath(model_path))
    _, data = _model_tables(model_path)
    with open(model_path, encoding="utf-8") as handle:
        text = handle.read()
    entries = _entries(data, axes=True)
    wanted, origin = _resolved(values, entries, data, model_file, model_path)
    carried = _carried(data, wanted, origin)
    for entry in carried:  # a carried bushing is located where its pivot's value came from
        pivot = next(e for e in wanted if e[0] == "pairs" and data["pairs"][e[1]].get("name") ==
                     data["bushings"][entry[1]].get("replaces"))
        origin.setdefault(entry, origin[pivot])
    targets = {entry: xyz for entry, xyz in (wanted | carried).items() if entry[2] not in data[entry[0]][entry[1]] or
               not np.array_equal(np.array(data[entry[0]][entry[1]][entry[2]], dtype=float), xyz)}
    added = {entry for entry in targets if entry[2] not in data[entry[0]][entry[1]]}
    new_text = _rewritten(text, targets, model_file, added)
    out_path = model_path if out_path is None else out_path
    shown = os.path.basename(os.fspath(out_path))
    directory = os.path.dirname(os.path.abspath(os.fspath(out_path)))
    probe = os.path.join(directory, f".{shown}.check.toml")
    write_text_atomically(probe, new_text)
    try:
        _closes(probe, shown, {entry: origin[entry] for entry in targets})
    finally:
        os.unlink(probe)
    write_text_atomically(out_path, new_text)
    names = {entry: name for name, entry in entries.items()}
    return [names[entry] for entry in targets if entry in names]


def apply_hardpoints(model_path, table_path, out_path=None):
    """Move the hardpoints a table lists, in the model file's text; write it to ``out_path``
    (default: the model file itself), atomically (see :func:`apply_hardpoint_values`).

    Returns
    -------
    list of str, the hardpoints moved (rows whose numbers equal the file's are left alone), the
    bushings a moved pivot carried among them

    Raises
    ------
    ModelError
        Located ``<table>: line <n>`` for a name that is not a hardpoint of the model, a
        malformed row, two names of one location given two places, or a moved hardpoint
        with which the model no longer loads; ``<model>: <table>[i]`` for a key whose array
        spans several lines.
    """
    table_file = os.path.basename(os.fspath(table_path))
    loaded = read_model(model_path, assemble=False)  # its units: apply_hardpoint_values reads it whole
    rows = read_hardpoints(table_path, loaded.units)
    return apply_hardpoint_values(model_path, {name: (f"{table_file}: line {number}", xyz)
                                               for name, (number, xyz) in rows.items()}, out_path)


def _closes(path, shown, origin):
    """Read the moved model back (its builder checks every value again); a mistake it finds in
    a moved hardpoint is located where that value came from (``origin``: entry -> where)."""
    try:
        read_model(path)
    except ModelError as exc:
        where = exc.where.replace(os.path.basename(path), shown)
        for (table, index, key), source in origin.items():
            if re.search(rf"\b{table}\[{index}\]", where) and re.search(rf"\b{key}\b", where):
                raise ModelError(source, f"{exc.problem} (the moved {where})") from None
        raise ModelError(where, exc.problem) from None
