"""TOML values of model files both ways: the shapes of numbers read, the text of values written,
and directions that survive a round trip (:mod:`mechanism.model_reader`,
:mod:`mechanism.model_writer`)."""

from __future__ import annotations

import math
import numbers
import re

import numpy as np

from . import _validate as check_arg
from .errors import ModelError
from .limits import MAX_NESTING

__all__ = ["numeric_shape", "first_bad_leaf", "huge_integer", "as_lists", "first_too_deep", "canonical_direction",
           "toml_string", "toml_key", "toml_value"]


# ------------------------------------------------------------------- numbers read
def numeric_shape(value):
    """Shape of a (nested) list of real numbers, or None when it is anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Real):
        return ()
    if isinstance(value, (list, tuple)):
        shapes = [numeric_shape(v) for v in value]
        if not shapes or any(s is None for s in shapes) or len(set(shapes)) != 1:
            return None if shapes else (0,)
        return (len(value),) + shapes[0]
    return None


def first_bad_leaf(value):
    """A leaf of a nested list that is not a real number (strings, booleans, dates)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            bad = first_bad_leaf(v)
            if bad is not None:
                return bad
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return value
    return None


def huge_integer(value):
    """The first integer of a (nested) list that no float holds, shortened for a message."""
    if isinstance(value, (list, tuple)):
        for v in value:
            found = huge_integer(v)
            if found is not None:
                return found
        return None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 1.7e308:
        text = str(value)
        return text if len(text) <= 40 else text[:41] + " ..."
    return None


def as_lists(arr):
    """``arr`` as (nested) lists of floats."""
    return np.asarray(arr, dtype=float).tolist()


#: Strings and comments of a TOML text (their brackets do not nest anything).
_STRINGS_AND_COMMENTS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*')


def first_too_deep(text):
    """Line number where arrays and inline tables first nest deeper than MAX_NESTING, or None."""
    blanked = _STRINGS_AND_COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    codes = np.frombuffer(blanked.encode("utf-8"), dtype=np.uint8)
    steps = ((codes == ord("[")) | (codes == ord("{"))).astype(np.int64) \
        - ((codes == ord("]")) | (codes == ord("}"))).astype(np.int64)
    deep = np.flatnonzero(np.cumsum(steps) > MAX_NESTING)
    if not len(deep):
        return None
    return int(np.count_nonzero(codes[:deep[0]] == ord("\n"))) + 1


# ------------------------------------------------------------------- directions
def _neighbours(x, count):
    """``x`` and the floats up to ``count`` steps either side of it."""
    out = [x]
    up = down = x
    for _ in range(count):
        up = math.nextafter(up, math.inf)
        down = math.nextafter(down, -math.inf)
        out += [up, down]
    return out


def canonical_direction(value, where):
    """A direction the builder's normalization leaves unchanged, as close as possible to
    ``value / |value|``; ``value`` itself when it is not a valid direction (the builder
    then reports it).

    The builder stores ``v / |v|``; for about a third of unit vectors normalizing again
    moves a last bit. Writing and reading a fixed point keeps round trips exact.
    """
    if numeric_shape(value) != (3,):
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


# ------------------------------------------------------------------- text written
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_string(text: str) -> str:
    """A TOML basic string of ``text``, quotes and control characters escaped."""
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


def toml_key(key: str) -> str:
    """``key`` bare when TOML allows it, else quoted."""
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def toml_value(value) -> str:
    """TOML text of a string, a boolean, a number (shortest round trip, ``repr``), a list or
    array (nested) or a dict (an inline table); ValueError for a non-finite number."""
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"cannot write the non-finite number {x!r}")
    return repr(x)
