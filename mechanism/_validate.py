"""Argument checks shared by the model builder and the model-file reader.

Each check raises :class:`~mechanism.errors.ModelError` whose ``where`` names the
offending object and key (``"pair 'B': axis"``), so the message is one located line.
"""

from __future__ import annotations

import numbers
import reprlib

import numpy as np

from .errors import ModelError
from .limits import MAX_LENGTH, MAX_MAGNITUDE

_REPR = reprlib.Repr()
_REPR.maxlist = _REPR.maxtuple = 6
_REPR.maxstring = _REPR.maxother = 40
_REPR.maxlevel = 3


def shown(value) -> str:
    """A short repr of ``value`` for a message (long lists and strings are cut with ...)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return _REPR.repr(value)


def bounded(arr, where, length):
    """``arr`` (float array) checked against :data:`MAX_LENGTH` (``length``) or
    :data:`MAX_MAGNITUDE` (SI); a located ModelError stating the limit."""
    limit = MAX_LENGTH if length else MAX_MAGNITUDE
    if arr.size and float(np.max(np.abs(arr))) > limit:
        what = f"a length beyond {limit:g} m" if length else f"a number beyond {limit:g} in SI units"
        raise ModelError(where, f"{shown(arr)} holds {what}, the largest a model may hold")
    return arr


def float_array(value, where, expected):
    """``value`` as a float array of any shape, or a :class:`ModelError` at ``where`` saying it
    expected ``expected`` (the shape and finiteness checks are the caller's)."""
    try:
        return np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ModelError(where, f"expected {expected}, got {shown(value)}") from None


def vector(value, where: str, length: int = 3, *, is_length=False) -> np.ndarray:
    """Finite float vector of the given length, read-only; ``is_length``: each entry a length
    (at most :data:`MAX_LENGTH`), else a number at most :data:`MAX_MAGNITUDE`."""
    arr = float_array(value, where, f"{length} numbers")
    if arr.shape != (length,):
        raise ModelError(where, f"expected {length} numbers, got shape {arr.shape} ({shown(value)})")
    if not np.all(np.isfinite(arr)):
        raise ModelError(where, f"non-finite value in {shown(value)}")
    bounded(arr, where, is_length)
    arr.setflags(write=False)
    return arr


def direction(value, where: str) -> np.ndarray:
    """Finite, non-zero 3-vector (any length up to the largest float), normalized to unit length."""
    arr = float_array(value, where, "3 numbers")
    if arr.shape != (3,):
        raise ModelError(where, f"expected 3 numbers, got shape {arr.shape} ({shown(value)})")
    if not np.all(np.isfinite(arr)):
        raise ModelError(where, f"non-finite value in {shown(value)}")
    largest = float(np.max(np.abs(arr)))
    if largest < 1e-12:
        raise ModelError(where, f"zero-length direction {shown(value)}")
    if largest > 1e150:  # the squares would overflow: normalize a scaled copy
        arr = arr / largest
    norm = float(np.linalg.norm(arr))
    if norm < 1e-12:
        raise ModelError(where, f"zero-length direction {shown(value)}")
    out = arr / norm
    out.setflags(write=False)
    return out


def circle(value, where: str):
    """A point force's circle ``(axis, radius, toward)``: two unit directions (3,) not parallel
    and a positive length (m), as a tuple of floats; None as is."""
    if value is None:
        return None
    try:
        axis, radius, toward = value
    except (TypeError, ValueError):
        raise ModelError(where, f"expected (axis, radius, toward), got {shown(value)}") from None
    axis, toward = direction(axis, f"{where}: axis"), direction(toward, f"{where}: toward")
    radius = number(radius, f"{where}: radius", positive=True, is_length=True)
    if np.linalg.norm(np.cross(axis, toward)) < 1e-6:
        raise ModelError(where, "toward is along the axis: no point of the circle lies farthest along it")
    return tuple(map(float, axis)), radius, tuple(map(float, toward))


def number(value, where: str, *, minimum=None, positive=False, is_length=False) -> float:
    """Finite real number, optionally bounded below; at most :data:`MAX_LENGTH` for a length
    (``is_length``), else :data:`MAX_MAGNITUDE`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ModelError(where, f"expected a number, got {shown(value)}")
    try:
        x = float(value)
    except OverflowError:  # a huge integer
        raise ModelError(where, f"{shown(value)} is beyond the range of a float") from None
    if not np.isfinite(x):
        raise ModelError(where, f"non-finite value {value!r}")
    bounded(np.array([x]), where, is_length)
    if positive and x <= 0:
        raise ModelError(where, f"must be positive, got {x!r}")
    if minimum is not None and x < minimum:
        raise ModelError(where, f"must be >= {minimum}, got {x!r}")
    return x


def matrix3(value, where: str) -> np.ndarray:
    """Finite 3x3 float matrix (entries at most :data:`MAX_MAGNITUDE`), read-only."""
    arr = float_array(value, where, "a 3x3 matrix")
    if arr.shape != (3, 3):
        raise ModelError(where, f"expected a 3x3 matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ModelError(where, "non-finite entry")
    bounded(arr, where, False)
    arr.setflags(write=False)
    return arr


def inertia_tensor(value, where: str) -> np.ndarray:
    """Symmetric positive semi-definite inertia tensor obeying the triangle inequality."""
    arr = matrix3(value, where)
    scale = max(float(np.abs(arr).max()), 1e-300)
    if not np.allclose(arr, arr.T, rtol=0, atol=1e-9 * scale):
        raise ModelError(where, "inertia tensor is not symmetric")
    principal = np.linalg.eigvalsh((arr + arr.T) / 2)
    tol = 1e-9 * scale
    if principal[0] < -tol:
        raise ModelError(where, f"inertia tensor has a negative principal moment {principal[0]:.6g}")
    a, b, c = principal
    if a + b < c - tol:
        raise ModelError(where, "principal moments violate the triangle inequality (A + B >= C)")
    return arr


def transform(value, where: str) -> np.ndarray:
    """Rigid 4x4 transform (orthonormal rotation, bottom row 0 0 0 1, translation at most
    :data:`MAX_LENGTH`), read-only."""
    arr = float_array(value, where, "a 4x4 homogeneous matrix")
    if arr.shape != (4, 4) or not np.all(np.isfinite(arr)):
        raise ModelError(where, f"expected a finite 4x4 homogeneous matrix, got shape {arr.shape}")
    bounded(arr[:3, 3], where, True)
    R = arr[:3, :3]
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
        raise ModelError(where, "rotation part is not a proper orthonormal matrix")
    if not np.allclose(arr[3], [0, 0, 0, 1], atol=1e-12):
        raise ModelError(where, "bottom row must be 0 0 0 1")
    arr.setflags(write=False)
    return arr


def name(value, where: str) -> str:
    """Non-empty name without surrounding blanks."""
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise ModelError(where, f"a name must be a non-empty string without surrounding blanks, got {shown(value)}")
    return value


def known(value, names, where: str, kind: str) -> str:
    """``value`` when it is one of ``names`` (a dict or set of strings); else a located error
    (also for a value that is not a string at all, such as a list)."""
    if not isinstance(value, str) or value not in names:
        raise ModelError(where, f"unknown {kind} {shown(value)}")
    return value


def read_only(values) -> np.ndarray:
    """A read-only float copy of ``values``: what a model keeps (its snapshots and the records
    they share never change)."""
    out = np.array(values, dtype=float)
    out.setflags(write=False)
    return out


def load_value(value, where, shape):
    """A load given as a number (``shape`` ``()``) or a vector (``(3,)``), ``f(t)``, or a
    ``(times, values)`` table whose values have ``shape`` per time."""
    if callable(value):
        return value
    what = "a number" if shape == () else f"{shape[0]} numbers"
    if isinstance(value, tuple) and len(value) == 2:
        times = float_array(value[0], f"{where}: times", "a sequence of times")
        values = float_array(value[1], f"{where}: values", f"a sequence of {what}")
        if times.ndim != 1 or len(times) < 2 or values.shape[:1] != times.shape:
            raise ModelError(where, "a table needs (times, values) with matching lengths >= 2")
        if values.shape[1:] != shape:
            raise ModelError(f"{where}: values", f"expected {what} per time, got shape {values.shape[1:]} "
                             f"per time")
        if not (np.all(np.isfinite(times)) and np.all(np.isfinite(values))):
            raise ModelError(where, "non-finite entry in the table")
        if not np.all(np.diff(times) > 0):
            raise ModelError(where, "table times must increase strictly")
        bounded(times, f"{where}: times", False)
        bounded(values, f"{where}: values", False)
        return (read_only(times), read_only(values))
    if isinstance(value, tuple) and shape == ():
        raise ModelError(where, f"expected a number, f(t) or a (times, values) table, got {shown(value)}")
    arr = float_array(value, where, what)
    if arr.shape != shape:
        raise ModelError(where, f"expected {what}, f(t) or a (times, values) table, got "
                         + (f"shape {arr.shape}" if arr.ndim else f"the number {shown(value)}"))
    if not np.all(np.isfinite(arr)):
        raise ModelError(where, f"non-finite load {shown(value)}")
    bounded(arr, where, False)
    return float(arr) if arr.ndim == 0 else read_only(arr)
