"""Oracle: the numpy pair types kinematrix computed with before the family functions of
:mod:`mechanism.pairs` (compiled by :mod:`loops.kernels.pairs`) became the one implementation.

Stacked values ``q`` of shape ``(..., k)``; matrices as products of basis matrices and
gathers, in another order than the family functions' scalar formulas. The tests hold the
family functions to these and these to finite differences (tests/test_pairs.py). Left
convention ``dA = sum_k hat(S_k) A dq_k``, ``S_k`` in frame j; the spherical pair's value is
the rotation vector of its matrix, its increments rotations about frame j's axes
(:meth:`Spherical.advance`).
"""

from __future__ import annotations

import numpy as np

from mechanism.transforms import rotation_about_x, rotation_about_y, rotation_about_z, translation

from .transforms import dexp_inverse, exp_so3, lie_bracket, log_so3, transform_twists, twist_matrix

__all__ = [
    "PairType",
    "ScrewPair",
    "screw_matrices",
    "SCREW_BASIS",
    "fill_screw_terms",
    "Revolute",
    "Prismatic",
    "Cylindrical",
    "Helical",
    "Hooke",
    "Spherical",
    "Planar",
    "PAIR_TYPES",
    "make_pair_type",
]

_Z_ROTATION = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
_Z_SLIDE = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])


class PairType:
    """Common interface of a pair type.

    Attributes
    ----------
    kind : str
        Type name as used by :meth:`mechanism.Mechanism.add_pair`.
    size : int
        Number of pair variables ``k``.
    rotational : tuple of bool
        Per variable: True for an angle (rad), False for a length (m).
    additive : bool
        True when ``q + dq`` is the correct update (all types but spherical).
    """

    kind = ""
    size = 1
    rotational: tuple = (True,)
    additive = True
    #: True when a twist turns with the pair's own variables (see :meth:`twist_rates`).
    twists_vary = False

    def matrix(self, q):
        """Pair matrix ``A(q)``: ``(..., k) -> (..., 4, 4)``."""
        raise NotImplementedError

    def twists(self, q):
        """Unit twists ``S_k(q)`` in frame j: ``(..., k) -> (..., k, 6)``."""
        q = np.asarray(q, dtype=float)
        return np.broadcast_to(self._constant_twists, q.shape[:-1] + self._constant_twists.shape)

    def operators(self, q):
        """Pavlov's ``Q_k = hat(S_k)``, with ``dA/dq_k = Q_k A``: ``(..., k) -> (..., k, 4, 4)``."""
        return twist_matrix(self.twists(q))

    def twist_rates(self, q, q_dot):
        """``d S_k / dt`` due to the pair's own motion, frame j: ``(..., k, 6)`` (zero but Hooke)."""
        q = np.asarray(q, dtype=float)
        return np.zeros(q.shape[:-1] + (self.size, 6))

    def advance(self, q, dq):
        """Value after the increments ``dq`` along the twists: plain ``q + dq`` unless spherical."""
        return np.asarray(q, dtype=float) + dq

    def values_from_matrix(self, A):
        """Read the pair variables back from a pair matrix ``(..., 4, 4) -> (..., k)``."""
        raise NotImplementedError


    def __repr__(self):
        return f"{type(self).__name__}()"


# Rot_z(g) Trans_z(s) = cos g K_0 + sin g K_1 + K_2 + s K_3: linear in the terms (cos g, sin g, 1, s).
SCREW_BASIS = np.zeros((4, 4, 4))
SCREW_BASIS[0, 0, 0] = SCREW_BASIS[0, 1, 1] = 1.0
SCREW_BASIS[1, 1, 0], SCREW_BASIS[1, 0, 1] = 1.0, -1.0
SCREW_BASIS[2, 2, 2] = SCREW_BASIS[2, 3, 3] = 1.0
SCREW_BASIS[3, 2, 3] = 1.0
SCREW_BASIS.flags.writeable = False


def fill_screw_terms(terms):
    """In place: rows ``(..., 4)`` holding ``(g, *, *, s)`` become ``(cos g, sin g, 1, s)``; returns them.

    These are the coefficients of :data:`SCREW_BASIS` (g rad, s m): ``Rot_z(g) Trans_z(s) =
    sum_i terms_i SCREW_BASIS[i]``.
    """
    np.sin(terms[..., 0], out=terms[..., 1])
    np.cos(terms[..., 0], out=terms[..., 0])
    terms[..., 2] = 1.0
    return terms


def screw_matrices(angle, slide):
    """``Rot_z(angle) Trans_z(slide)`` for stacked angles (rad) and slides (m): ``(...,) -> (..., 4, 4)``.

    The one formula behind every pair that turns and slides along its own Z (revolute,
    prismatic, cylindrical, helical); see :attr:`ScrewPair.screw_coefficients` and
    :data:`SCREW_BASIS`.
    """
    angle = np.asarray(angle, dtype=float)
    slide = np.asarray(slide, dtype=float)
    shape = angle.shape if angle.shape == slide.shape else np.broadcast_shapes(angle.shape, slide.shape)
    terms = np.empty(shape + (4,))
    terms[..., 0] = angle
    terms[..., 3] = slide
    return (fill_screw_terms(terms) @ SCREW_BASIS.reshape(4, 16)).reshape(shape + (4, 4))


class ScrewPair(PairType):
    """A pair whose matrix is ``Rot_z(g) Trans_z(s)`` with ``(g, s)`` linear in its variables.

    ``screw_coefficients`` (k, 2): row i gives ``(dg/dq_i, ds/dq_i)``. The twists follow from
    it: ``S_i = dg/dq_i * (e_z, 0) + ds/dq_i * (0, e_z)``.
    """

    screw_coefficients = np.array([[1.0, 0.0]])

    @property
    def _constant_twists(self):
        return (self.screw_coefficients[:, :1] * _Z_ROTATION + self.screw_coefficients[:, 1:] * _Z_SLIDE)

    def matrix(self, q):
        angle_slide = np.asarray(q, dtype=float) @ self.screw_coefficients
        return screw_matrices(angle_slide[..., 0], angle_slide[..., 1])


class Revolute(ScrewPair):
    """Revolute pair: ``A = Rot_z(g)``, g right-handed about the common Z (rad)."""

    kind = "revolute"

    def values_from_matrix(self, A):
        return np.arctan2(A[..., 1, 0], A[..., 0, 0])[..., None]


class Prismatic(ScrewPair):
    """Prismatic pair: ``A = Trans_z(s)``, slide s along the common Z (m)."""

    kind = "prismatic"
    rotational = (False,)
    screw_coefficients = np.array([[0.0, 1.0]])

    def values_from_matrix(self, A):
        return A[..., 2, 3][..., None]


class Cylindrical(ScrewPair):
    """Cylindrical pair: ``A = Rot_z(g) Trans_z(s)``; variables (g rad, s m)."""

    kind = "cylindrical"
    size = 2
    rotational = (True, False)
    screw_coefficients = np.eye(2)

    def values_from_matrix(self, A):
        return np.stack([np.arctan2(A[..., 1, 0], A[..., 0, 0]), A[..., 2, 3]], axis=-1)


class Helical(ScrewPair):
    """Helical (screw) pair: ``A = Rot_z(g) Trans_z(pitch g / 2 pi)``; one variable g (rad).

    Parameters
    ----------
    pitch : float
        Advance per turn along +Z, m/rev (negative for a left-hand thread).
    """

    kind = "helical"

    def __init__(self, pitch: float):
        self.pitch = float(pitch)
        self.screw_coefficients = np.array([[1.0, self.pitch / (2.0 * np.pi)]])

    def values_from_matrix(self, A):
        # The angle is not periodic for a screw: recover it from the slide when the lead
        # is non-zero, which keeps whole turns.
        if self.pitch != 0.0:
            return (A[..., 2, 3] * 2.0 * np.pi / self.pitch)[..., None]
        return np.arctan2(A[..., 1, 0], A[..., 0, 0])[..., None]

    def __repr__(self):
        return f"Helical(pitch={self.pitch!r})"


# d/dg of the screw terms (cos g, sin g, 1, s) at fixed s: (-sin g, cos g, 0, 0).
_TERMS_SLOPE_INDEX = np.array([1, 0, 3, 3])
_TERMS_SLOPE_SIGN = np.array([-1.0, 1.0, 0.0, 0.0])


class Hooke(PairType):
    """Hooke (universal) pair: ``A = Rot_z(phi) Rot_x(beta) Rot_z(theta)``.

    Frame j has Z along the pin on the first link, frame k Z along the pin on the second
    link; both X along ``t = Z_j x Z_k`` at the design pose. ``phi`` (variable 0) turns about
    the first pin, ``theta`` (variable 1) about the second; ``beta`` is the fixed angle from
    the first pin to the second about t (pi/2 for a cross).
    """

    kind = "hooke"
    size = 2
    rotational = (True, True)
    twists_vary = True

    def __init__(self, beta: float = np.pi / 2):
        self.beta = float(beta)
        tilt = rotation_about_x(self.beta)
        # Rz(phi) Rx(beta) Rz(theta) = sum_ij t_i(phi) t_j(theta) K_i Rx(beta) K_j, with t the
        # screw terms of each angle (zero slide) and K = SCREW_BASIS: bilinear in them.
        self._basis = (SCREW_BASIS[:, None] @ tilt @ SCREW_BASIS[None, :]).reshape(16, 16)
        # (S_0, S_1) = ((e_z, 0), (Rz(phi) Rx(beta) e_z, 0)): linear in the terms of phi.
        twist_basis = np.zeros((4, 2, 6))
        twist_basis[2, 0, 2] = 1.0
        twist_basis[:, 1, :3] = (SCREW_BASIS @ tilt)[:, :3, 2]
        self._twist_basis = twist_basis.reshape(4, 12)

    @staticmethod
    def _angle_terms(q):
        """Screw terms ``(cos, sin, 1, 0)`` of both angles: ``(..., 2) -> (..., 2, 4)``."""
        terms = np.zeros(q.shape + (4,))
        terms[..., 0] = q
        return fill_screw_terms(terms)

    def matrix(self, q):
        q = np.asarray(q, dtype=float)
        terms = self._angle_terms(q)
        products = terms[..., 0, :, None] * terms[..., 1, None, :]
        return (products.reshape(q.shape[:-1] + (16,)) @ self._basis).reshape(q.shape[:-1] + (4, 4))

    def twists(self, q):
        q = np.asarray(q, dtype=float)
        return (self._angle_terms(q)[..., 0, :] @ self._twist_basis).reshape(q.shape[:-1] + (2, 6))

    def twist_rates(self, q, q_dot):
        # The second pin is carried by the cross, which turns with phi: dS_1/dt = [S_0, S_1] phi'
        # = dS_1/dphi phi', and the twists are linear in the terms (cos phi, sin phi, 1, 0),
        # whose derivative is (-sin phi, cos phi, 0, 0).
        q = np.asarray(q, dtype=float)
        slopes = self._angle_terms(q)[..., 0, :].take(_TERMS_SLOPE_INDEX, axis=-1) * _TERMS_SLOPE_SIGN
        rates = (slopes @ self._twist_basis).reshape(q.shape[:-1] + (2, 6))
        return rates * np.asarray(q_dot, dtype=float)[..., 0, None, None]


    def values_from_matrix(self, A):
        # A = Rz(phi) Rx(beta) Rz(theta): the third column is Rz(phi) Rx(beta) e_z, the
        # third row is e_z^T Rx(beta) Rz(theta).
        phi = np.arctan2(A[..., 0, 2], -A[..., 1, 2])
        theta = np.arctan2(A[..., 2, 0], A[..., 2, 1])
        return np.stack([phi, theta], axis=-1)

    def __repr__(self):
        return f"Hooke(beta={self.beta!r})"


class Spherical(PairType):
    """Spherical (ball) pair: three rotations, stored as the rotation vector of ``A``.

    Increments are rotations about frame j's fixed axes (left generators), so the
    Q operators are ``hat(e_x), hat(e_y), hat(e_z)`` at every orientation.
    """

    kind = "spherical"
    size = 3
    rotational = (True, True, True)
    additive = False
    _constant_twists = np.hstack([np.eye(3), np.zeros((3, 3))])

    def matrix(self, q):
        q = np.asarray(q, dtype=float)
        A = np.zeros(q.shape[:-1] + (4, 4))
        A[..., :3, :3] = exp_so3(q)
        A[..., 3, 3] = 1.0
        return A

    @staticmethod
    def rotate(rotations, dq):
        """Rotation blocks ``(..., 3, 3)`` after increments ``dq`` (..., 3) about frame j's axes:
        ``exp(hat(dq)) R``."""
        return exp_so3(dq) @ rotations

    def advance(self, q, dq):
        """``log(exp(hat(dq)) exp(hat(q)))``: rotate by ``dq`` about frame j's axes, re-seat."""
        return log_so3(self.rotate(exp_so3(q), dq))

    def values_from_matrix(self, A):
        return log_so3(np.asarray(A)[..., :3, :3])

    @staticmethod
    def value_rates(q, omega):
        """Rate of the rotation vector ``q`` (..., 3) for the relative angular velocity
        ``omega`` (..., 3, rad/s, frame j axes, left increments as :meth:`rotate`).

        ``R = exp(hat(q))`` and ``R' R^T = hat(omega)`` give ``omega = J_l(q) q'``, so
        ``q' = J_l(q)^-1 omega`` (:func:`mechanism.transforms.dexp_inverse`). Valid for
        ``|q| < 2 pi``; seated values have ``|q| <= pi``.
        """
        return dexp_inverse(np.asarray(q, dtype=float), np.asarray(omega, dtype=float))


_TURN_Z = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
_SLIDES_XY = np.array([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]])


class Planar(PairType):
    """Planar pair: ``A = Trans(x e_x + y e_y) Rot_z(theta)``, variables (x m, y m, theta rad).

    The twists are the slides and the turn about the moved centre, ``Ad(Trans(x, y, 0))
    (e_z, 0)``; the turn's rate is ``[S_0, S_2] x' + [S_1, S_2] y'`` (a product of
    exponentials), written here by brackets rather than by its components.
    """

    kind = "planar"
    size = 3
    rotational = (False, False, True)
    twists_vary = True

    @staticmethod
    def _shift(q):
        p = np.zeros(q.shape[:-1] + (3,))
        p[..., :2] = q[..., :2]
        return translation(p)

    def matrix(self, q):
        q = np.asarray(q, dtype=float)
        return self._shift(q) @ rotation_about_z(q[..., 2])

    def twists(self, q):
        q = np.asarray(q, dtype=float)
        out = np.zeros(q.shape[:-1] + (3, 6))
        out[..., :2, :] = _SLIDES_XY
        out[..., 2, :] = transform_twists(self._shift(q), np.broadcast_to(_TURN_Z, q.shape[:-1] + (6,)))
        return out

    def twist_rates(self, q, q_dot):
        S = self.twists(q)
        q_dot = np.asarray(q_dot, dtype=float)
        out = np.zeros_like(S)
        out[..., 2, :] = (lie_bracket(S[..., 0, :], S[..., 2, :]) * q_dot[..., 0, None]
                          + lie_bracket(S[..., 1, :], S[..., 2, :]) * q_dot[..., 1, None])
        return out

    def values_from_matrix(self, A):
        A = np.asarray(A, dtype=float)
        return np.stack([A[..., 0, 3], A[..., 1, 3], np.arctan2(A[..., 1, 0], A[..., 0, 0])], axis=-1)


class Bushing(PairType):
    """Bushing: ``A = Trans(t) Rot_x(a) Rot_y(b) Rot_z(c)``, variables (t m (3), a, b, c rad).

    Its twists are the adjoints of the elementary generators by the products before them
    (slides, then turns about the moved centre), their rates the brackets of a product of
    exponentials, ``dS_k = sum_{j<k} [S_j, S_k] q_j'``; here by matrices and brackets rather
    than by components. Values back from the Cardan angles (``|b| < pi/2``).
    """

    kind = "bushing"
    size = 6
    rotational = (False, False, False, True, True, True)
    twists_vary = True

    def matrix(self, q):
        q = np.asarray(q, dtype=float)
        return (translation(q[..., :3]) @ rotation_about_x(q[..., 3]) @ rotation_about_y(q[..., 4])
                @ rotation_about_z(q[..., 5]))

    def twists(self, q):
        q = np.asarray(q, dtype=float)
        out = np.zeros(q.shape[:-1] + (6, 6))
        prefix = translation(q[..., :3])
        for k in range(3):
            out[..., k, 3 + k] = 1.0
        for k, turn in enumerate((rotation_about_x(q[..., 3]), rotation_about_y(q[..., 4]), None)):
            generator = np.zeros(q.shape[:-1] + (6,))
            generator[..., k] = 1.0
            out[..., 3 + k, :] = transform_twists(prefix, generator)
            if turn is not None:
                prefix = prefix @ turn
        return out

    def twist_rates(self, q, q_dot):
        S = self.twists(q)
        q_dot = np.asarray(q_dot, dtype=float)
        out = np.zeros_like(S)
        for k in range(3, 6):
            for j in range(k):
                out[..., k, :] += lie_bracket(S[..., j, :], S[..., k, :]) * q_dot[..., j, None]
        return out

    def values_from_matrix(self, A):
        A = np.asarray(A, dtype=float)
        R = A[..., :3, :3]
        return np.stack([A[..., 0, 3], A[..., 1, 3], A[..., 2, 3], np.arctan2(-R[..., 1, 2], R[..., 2, 2]),
                         np.arcsin(np.clip(R[..., 0, 2], -1.0, 1.0)), np.arctan2(-R[..., 0, 1], R[..., 0, 0])],
                        axis=-1)


PAIR_TYPES = {
    "bushing": Bushing,
    "planar": Planar,
    "revolute": Revolute,
    "prismatic": Prismatic,
    "cylindrical": Cylindrical,
    "helical": Helical,
    "hooke": Hooke,
    "universal": Hooke,
    "spherical": Spherical,
}


def make_pair_type(kind: str, *, pitch=None, beta=None) -> PairType:
    """Instance of the pair type named ``kind`` (``"universal"`` is an alias of ``"hooke"``)."""
    if kind == "helical":
        return Helical(pitch)
    if kind in ("hooke", "universal"):
        return Hooke(np.pi / 2 if beta is None else beta)
    return PAIR_TYPES[kind]()


def oracle_of(pair_type) -> PairType:
    """The oracle of a pair type of :mod:`mechanism.pairs` (same kind and constants)."""
    return make_pair_type(pair_type.kind, pitch=getattr(pair_type, "pitch", None),
                          beta=getattr(pair_type, "beta", None))
