"""Second-order jets: values with their first and second derivatives along one motion.

Every suspension metric is written once, as arithmetic on :class:`Jet` arrays; its rate
with respect to a driver (camber gain, bump steer, motion ratio, d toe / d rack) and the
second rate that a wheel rate needs come out of the same expression by the chain rule,
exactly, from the velocity and acceleration solutions of the sweep (METHOD.md eqs. 4, 6
and the acceleration equation): no step size, no finite differences.

A jet along a motion with parameter ``s`` (a driver's value) holds ``value``, ``d =
d value / ds`` and ``dd = d^2 value / ds^2``. Points fixed in a link start as jets from
the link's pose ``T``, spatial velocity ``(omega, v_o)`` and acceleration
``(omega', v_o')`` along that motion (all global, origin-referenced, per unit ``s``):

    p = T r,   p' = omega x p + v_o,   p'' = omega' x p + v_o' + omega x p'

Vectors are arrays whose last axis has length 3. When a motion carries no second
derivatives, ``dd`` is NaN and so is every second rate computed from it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Jet", "constant", "dot", "cross", "cross_product", "norm", "unit", "arctan2", "sqrt", "cos", "sin",
           "point_jet", "material_velocity", "divide"]


class Jet:
    """``value``, first and second derivatives (same shapes) along one motion."""

    __slots__ = ("value", "d", "dd")
    __array_priority__ = 1000  # numpy arrays on the left defer to Jet's operators

    def __init__(self, value, d, dd):
        self.value = np.asarray(value, dtype=float)
        self.d = np.asarray(d, dtype=float)
        self.dd = np.asarray(dd, dtype=float)

    def __repr__(self):
        return f"Jet(shape={self.value.shape})"

    @property
    def shape(self):
        return self.value.shape

    def __getitem__(self, index):
        return Jet(self.value[index], self.d[index], self.dd[index])

    def __neg__(self):
        return Jet(-self.value, -self.d, -self.dd)

    def __add__(self, other):
        if _fixed(other, self):  # a constant moves only the value
            return Jet(self.value + other, self.d, self.dd)
        other = _lift(other)
        return Jet(self.value + other.value, self.d + other.d, self.dd + other.dd)

    __radd__ = __add__

    def __sub__(self, other):
        if _fixed(other, self):
            return Jet(self.value - other, self.d, self.dd)
        other = _lift(other)
        return Jet(self.value - other.value, self.d - other.d, self.dd - other.dd)

    def __rsub__(self, other):
        return _lift(other) - self

    def __mul__(self, other):
        if _fixed(other, self):  # a constant scales every derivative
            return Jet(self.value * other, self.d * other, self.dd * other)
        a, b = self, _lift(other)
        return Jet(a.value * b.value, a.d * b.value + a.value * b.d,
                   a.dd * b.value + 2.0 * a.d * b.d + a.value * b.dd)

    __rmul__ = __mul__

    def reciprocal(self):
        """``1 / self`` (inf/NaN where the value is zero, without warnings)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / self.value
            return Jet(inv, -self.d * inv ** 2, (2.0 * self.d ** 2 * inv - self.dd) * inv ** 2)

    def __truediv__(self, other):
        return self * _lift(other).reciprocal()

    def __rtruediv__(self, other):
        return _lift(other) * self.reciprocal()

    def expand(self):
        """A scalar jet (...,) as (..., 1), to scale vectors (..., 3)."""
        return Jet(self.value[..., None], self.d[..., None], self.dd[..., None])


def constant(value):
    """A jet that does not move: derivatives zero."""
    value = np.asarray(value, dtype=float)
    zero = np.zeros_like(value)
    return Jet(value, zero, zero)


def _fixed(x, jet):
    """True when ``x`` is a constant (not a Jet) that does not broadcast ``jet`` to a larger
    shape: the operators then skip its zero derivatives."""
    return not isinstance(x, Jet) and np.ndim(x) <= jet.value.ndim and all(
        n == 1 or n == m for n, m in zip(np.shape(x)[::-1], jet.value.shape[::-1]))


def _lift(x):
    return x if isinstance(x, Jet) else constant(x)


def _cross(a, b):
    """``a x b`` over the last axis of (..., 3) arrays (np.cross is slow for small stacks)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


cross_product = _cross


def _dot(a, b):
    """``a . b`` over the last axis of (..., 3) arrays (einsum is twice as slow for long stacks)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def dot(a, b):
    """``a . b`` over the last axis (3)."""
    if isinstance(a, Jet) and not isinstance(b, Jet) and np.ndim(b) == 1:  # along a fixed direction (3,)
        return Jet(a.value @ b, a.d @ b, a.dd @ b)
    if not isinstance(b, Jet):  # a constant: no derivatives of its own
        return Jet(_dot(a.value, b), _dot(a.d, b), _dot(a.dd, b))
    if not isinstance(a, Jet):
        return dot(b, a)
    return Jet(_dot(a.value, b.value), _dot(a.d, b.value) + _dot(a.value, b.d),
               _dot(a.dd, b.value) + 2.0 * _dot(a.d, b.d) + _dot(a.value, b.dd))


def cross(a, b):
    """``a x b`` over the last axis."""
    a, b = _lift(a), _lift(b)
    return Jet(_cross(a.value, b.value), _cross(a.d, b.value) + _cross(a.value, b.d),
               _cross(a.dd, b.value) + 2.0 * _cross(a.d, b.d) + _cross(a.value, b.dd))


def sqrt(x):
    """Square root of a positive scalar jet."""
    root = np.sqrt(x.value)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = x.d / (2.0 * root)
        dd = (x.dd - 2.0 * d ** 2) / (2.0 * root)
    return Jet(root, d, dd)


def norm(v):
    """Euclidean length over the last axis."""
    return sqrt(dot(v, v))


def unit(v):
    """``v / |v|`` over the last axis."""
    return v * norm(v).reciprocal().expand()


def arctan2(y, x):
    """``arctan2(y, x)`` of scalar jets, with ``d = (x y' - y x') / (x^2 + y^2)``."""
    y, x = _lift(y), _lift(x)
    r2 = x.value ** 2 + y.value ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        numerator = x.value * y.d - y.value * x.d
        d = numerator / r2
        numerator_d = x.value * y.dd - y.value * x.dd  # (x y' - y x')' = x y'' - y x''
        r2_d = 2.0 * (x.value * x.d + y.value * y.d)
        dd = (numerator_d * r2 - numerator * r2_d) / r2 ** 2
    return Jet(np.arctan2(y.value, x.value), d, dd)


def cos(x):
    c, s = np.cos(x.value), np.sin(x.value)
    return Jet(c, -s * x.d, -c * x.d ** 2 - s * x.dd)


def sin(x):
    c, s = np.cos(x.value), np.sin(x.value)
    return Jet(s, c * x.d, -s * x.d ** 2 + c * x.dd)


def point_jet(poses, twists, accelerations, r):
    """Jet of the point ``r`` fixed in a link (link frame), along a motion: eqs. 5 and 6 by their
    one implementation (:mod:`loops.point_kinematics`).

    Parameters
    ----------
    poses : (N, 4, 4) link poses, global
    twists : (N, 6) ``(omega, v_o)`` per unit motion parameter, global, origin-referenced
    accelerations : (N, 6) ``(omega', v_o')`` per unit parameter squared, or None (NaN ``dd``)
    r : (3,) link-frame coordinates, m, or (N, 3) one per position (a design study's variants)
    """
    from ..point_kinematics import point_accelerations, point_positions, point_velocities  # noqa: PLC0415

    p = point_positions(poses, r)
    pd = point_velocities(p, twists)
    pdd = np.full_like(p, np.nan) if accelerations is None else point_accelerations(p, pd, twists, accelerations)
    return Jet(p, pd, pdd)


def material_velocity(twists, points):
    """Velocity of the link's material points at ``points`` (N, 3): ``omega x p + v_o`` (N, 3).
    Jets in (the twists and the points along another motion), a jet out: its rate is that of
    the velocity field at the moving points, ``omega' x p + omega x p' + v_o'``."""
    if isinstance(twists, Jet) or isinstance(points, Jet):
        return cross(twists[..., :3], points) + twists[..., 3:]
    from ..point_kinematics import point_velocities  # noqa: PLC0415

    return point_velocities(np.broadcast_to(points, np.shape(twists)[:-1] + (3,)), twists)


def divide(numerator, denominator):
    """``numerator / denominator``, NaN where the denominator is zero (no warnings): arrays in,
    an array out; a jet in either, a jet out with the quotient's first rate (its second rate
    NaN: the metrics that are quotients of rates take none)."""
    if not (isinstance(numerator, Jet) or isinstance(denominator, Jet)):
        numerator, denominator = np.broadcast_arrays(np.asarray(numerator, float), np.asarray(denominator, float))
        out = np.full(numerator.shape, np.nan)
        np.divide(numerator, denominator, out=out, where=denominator != 0)
        return out
    n, d = _lift(numerator), _lift(denominator)
    value = divide(n.value, d.value)
    rate = divide(n.d * d.value - n.value * d.d, d.value ** 2)
    return Jet(value, rate, np.full_like(value, np.nan))
