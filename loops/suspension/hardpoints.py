"""Hardpoint tables: a model's hardpoints out to a CSV file and an edited table back into the
model file, so that hardpoints can be moved in a spreadsheet.

A hardpoint is a location a model file gives with ``at`` (a pair's centre, a point) or
``at_a``/``at_b`` (a spring-damper's ends). The table has one row per hardpoint,
``name,x,y,z``, in the model file's length unit, after a first line naming it (``# units:
length=mm``). Names: a pair's or a point's name; a spring-damper's ends ``NAME.at_a`` and
``NAME.at_b``; a point that has the name of a pair ``points.NAME``.

Applying a table rewrites only the numbers of the listed hardpoints in the model file's
text (comments, order and every other number stay as they are), then reads the file back
to check that it still loads. A table may also list a pair's axis as ``PAIR.axis`` (a
direction: any length; a design study writes it as a unit vector), which the exported
table leaves out.
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
from mechanism.errors import ModelError
from mechanism.hardpoints import point_hardpoint
from mechanism.model_file import Units, read_model
from mechanism.tables import read_table_text

__all__ = ["hardpoints", "write_hardpoints", "read_hardpoints", "apply_hardpoints"]


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
    return out


def hardpoints(path):
    """The hardpoints of a model file: ``(names, (H, 3) values in the file's length unit,
    Units)``."""
    loaded = read_model(path)  # a model that does not load has no table
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    names, values = [], []
    for name, (table, index, key) in _entries(data).items():
        names.append(name)
        values.append([float(v) for v in data[table][index][key]])
    return names, np.array(values, dtype=float).reshape(len(names), 3), loaded.units


def _number(x):
    """Shortest text of a float; integers without a decimal point."""
    x = float(x)
    if x == math.floor(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def write_hardpoints(model_path, table_path):
    """Write the hardpoint table of a model file to ``table_path`` (CSV, atomically)."""
    names, values, units = hardpoints(model_path)
    buffer = io.StringIO()
    buffer.write(f"# units: length={units.length}\n")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["name", "x", "y", "z"])
    for name, xyz in zip(names, values):
        writer.writerow([name] + [_number(v) for v in xyz])
    write_text_atomically(table_path, buffer.getvalue())
    return names


def read_hardpoints(table_path, units: Units):
    """``{name: (3,) values in units.length}`` from a hardpoint table (its ``# units:`` line
    says its length unit; without one it is taken to be ``units``'s)."""
    file = os.path.basename(os.fspath(table_path))
    try:
        lines = read_table_text(table_path).splitlines()  # UTF-8 (a byte-order mark dropped) or Latin-1
    except OSError as exc:
        raise ModelError(file, f"cannot read the hardpoint table ({exc.strerror or exc})") from None
    table_units = units
    rows, header = [], None
    for number, line in enumerate(lines, start=1):
        if line.startswith("#"):
            found = re.search(r"length=(\w+)", line)
            if found:
                table_units = Units(found.group(1), units.angle) if found.group(1) in ("m", "mm") else None
                if table_units is None:
                    raise ModelError(f"{file}: line {number}", f"unknown length unit {found.group(1)!r}")
            continue
        if not line.strip():
            continue
        cells = next(csv.reader([line]))
        if header is None:
            header = [c.strip() for c in cells]
            if header[:4] != ["name", "x", "y", "z"]:
                raise ModelError(f"{file}: line {number}", f"expected the header name,x,y,z, got {line!r}")
            continue
        if len(cells) != 4:
            raise ModelError(f"{file}: line {number}", f"expected 4 cells (name, x, y, z), got {len(cells)}")
        try:
            xyz = [float(c) for c in cells[1:]]
        except ValueError:
            raise ModelError(f"{file}: line {number}", f"not a number in {cells[1:]!r}") from None
        if not all(math.isfinite(v) for v in xyz):
            raise ModelError(f"{file}: line {number}", "non-finite coordinate")
        rows.append((number, cells[0].strip(), xyz))
    if header is None:
        raise ModelError(file, "empty table: expected a header name,x,y,z and one row per hardpoint")
    out = {}
    for number, name, xyz in rows:
        if name in out:
            raise ModelError(f"{file}: line {number}", f"{name!r} is listed twice")
        si = table_units.to_si(np.array(xyz), "length")
        out[name] = (number, np.asarray(units.from_si(si, "length"), dtype=float))
    return out


_KEY_LINE = r"^(?P<lead>\s*{key}\s*=\s*)\[(?P<body>[^\]\n]*)\](?P<rest>.*)$"
_HEADER = re.compile(r"^\s*\[\[\s*(?P<table>[A-Za-z_]+)\s*\]\]")
_SINGLE = re.compile(r"^\s*\[(?!\[)")


def apply_hardpoints(model_path, table_path, out_path=None):
    """Move the hardpoints a table lists, in the model file's text; write it to ``out_path``
    (default: the model file itself), atomically.

    Returns
    -------
    list of str, the hardpoints moved (rows whose numbers equal the file's are left alone)

    Raises
    ------
    ModelError
        Located ``<table>: line <n>`` for a name that is not a hardpoint of the model or a
        malformed row; ``<model>: <table>[i]`` for a key whose array spans several lines;
        the model reader's own error when the moved model no longer loads.
    """
    model_file = os.path.basename(os.fspath(model_path))
    table_file = os.path.basename(os.fspath(table_path))
    loaded = read_model(model_path)
    with open(model_path, encoding="utf-8") as handle:
        text = handle.read()
    data = tomllib.loads(text)
    entries = _entries(data, axes=True)
    wanted = read_hardpoints(table_path, loaded.units)
    targets = {}
    for name, (number, xyz) in wanted.items():
        if name not in entries:
            raise ModelError(f"{table_file}: line {number}", f"{name!r} is not a hardpoint of {model_file} "
                             f"(hardpoints: {', '.join(entries)})")
        table, index, key = entries[name]
        if not np.array_equal(np.array(data[table][index][key], dtype=float), xyz):
            targets[entries[name]] = xyz  # unchanged rows leave their lines as they are
    lines = text.split("\n")
    counters, current = {}, None
    done = set()
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
            found = re.match(_KEY_LINE.format(key=re.escape(key)), line)
            if found:
                values = ", ".join(_number(v) for v in xyz)
                lines[i] = f"{found.group('lead')}[{values}]{found.group('rest')}"
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
    out_path = model_path if out_path is None else out_path
    directory = os.path.dirname(os.path.abspath(os.fspath(out_path)))
    probe = os.path.join(directory, f".{os.path.basename(os.fspath(out_path))}.check.toml")
    write_text_atomically(probe, new_text)
    try:
        _closes(probe, os.path.basename(os.fspath(out_path)))
    finally:
        os.unlink(probe)
    write_text_atomically(out_path, new_text)
    moved = {entry: name for name, entry in entries.items()}
    return [moved[entry] for entry in targets]


def _closes(path, shown):
    """Read the moved model back (its builder checks every value again)."""
    try:
        read_model(path)
    except ModelError as exc:
        raise ModelError(exc.where.replace(os.path.basename(path), shown), exc.problem) from None
