"""Argument checks shared by the model builder and the model-file reader.

Each check raises :class:`~mechanism.errors.ModelError` whose ``where`` names the
offending object and key (``"pair 'B': axis"``), so the message is one located line.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import ModelError


def vector(value, where: str, length: int = 3) -> np.ndarray:
    """Finite float vector of the given length, read-only."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected {length} numbers, got {value!r}") from None
    if arr.shape != (length,):
        raise ModelError(where, f"expected {length} numbers, got shape {arr.shape} ({value!r})")
    if not np.all(np.isfinite(arr)):
        raise ModelError(where, f"non-finite value in {value!r}")
    arr.setflags(write=False)
    return arr


def direction(value, where: str) -> np.ndarray:
    """Finite, non-zero 3-vector, normalized to unit length."""
    arr = vector(value, where)
    norm = float(np.linalg.norm(arr))
    if norm < 1e-12:
        raise ModelError(where, f"zero-length direction {value!r}")
    out = arr / norm
    out.setflags(write=False)
    return out


def number(value, where: str, *, minimum=None, positive=False) -> float:
    """Finite real number, optionally bounded below."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ModelError(where, f"expected a number, got {value!r}")
    x = float(value)
    if not np.isfinite(x):
        raise ModelError(where, f"non-finite value {value!r}")
    if positive and x <= 0:
        raise ModelError(where, f"must be positive, got {x!r}")
    if minimum is not None and x < minimum:
        raise ModelError(where, f"must be >= {minimum}, got {x!r}")
    return x


def matrix3(value, where: str) -> np.ndarray:
    """Finite 3x3 float matrix, read-only."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected a 3x3 matrix, got {value!r}") from None
    if arr.shape != (3, 3):
        raise ModelError(where, f"expected a 3x3 matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ModelError(where, "non-finite entry")
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
    """Rigid 4x4 transform (orthonormal rotation, bottom row 0 0 0 1), read-only."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(where, "expected a 4x4 homogeneous matrix") from None
    if arr.shape != (4, 4) or not np.all(np.isfinite(arr)):
        raise ModelError(where, f"expected a finite 4x4 homogeneous matrix, got shape {arr.shape}")
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
        raise ModelError(where, f"a name must be a non-empty string without surrounding blanks, got {value!r}")
    return value
