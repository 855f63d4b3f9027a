"""What every pair type carries (its hooks), and what a pair family hands to the compiled kernels.

A pair joins two links. Frame j is fixed in the first link, frame k in the second, and the
pair matrix ``A = T_j_k(q)`` maps coordinates in frame k to frame j (eq. 1). The derivative
convention, kept by every type, is the *left* one (mechanism/METHOD.md, "Q operators"):

    dA = sum_k hat(S_k(q)) A dq_k

with ``S_k`` the unit twist ``(omega, v)`` of variable k expressed in frame j.

A **family** is the arithmetic several types share: three plain functions written in the
subset of Python that numba compiles (scalars, ``math``, indexing of the arrays they are
given; no allocation, no numpy calls), which :mod:`loops.kernels.pairs` compiles and which
also run as they are (tests, ``NUMBA_DISABLE_JIT=1``). They are the one implementation of
the pair matrices and twists:

``matrix(parameters, q, start, size, rotation, out)``
    ``A`` (4, 4) into ``out``, the pair's variables being ``q[start:start + size]``;
    ``parameters`` (:data:`PARAMETER_COUNT`,) are the pair's constants
    (:meth:`PairType.parameters`) and ``rotation`` (3, 3) its rotation state (read only by a
    type with ``rotation_state``).
``twist(parameters, q, start, k, out)``
    ``S_k`` (6,) into ``out``.
``twist_rate(parameters, q, q_dot, start, k, out)``
    ``dS_k/dt`` (6,) due to the pair's own motion into ``out``; returns False (and may
    leave ``out`` untouched) when it is zero, so that callers skip it. None for a family
    whose twists are constant.

The three may share private helpers of their module (plain functions, same subset of Python:
the bushing's turn axis serves its twist and its twist's rate); :mod:`loops.kernels.pairs`
compiles each helper a function calls along with it.

A **type** (a subclass of :class:`PairType`) is what :meth:`mechanism.Mechanism.add_pair`
names: its variables, how it is declared (location, axis or axes, options such as a
helical pitch) and how its frames follow from that, how it mirrors, whether its axis is a
hardpoint or can serve as a kingpin, its marker in plots. The families and their types are
listed once, in the registry :mod:`mechanism.pairs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import _validate as check_arg
from ..errors import ModelError
from ..transforms import frame_from_axis

__all__ = ["PairType", "PairFamily", "OneAxisPair", "PARAMETER_COUNT"]

#: Length of every pair's parameter vector in the compiled system (the largest a family uses).
PARAMETER_COUNT = 4


@dataclass(frozen=True)
class PairFamily:
    """Pair types sharing one arithmetic (see the module docstring for the three functions)."""

    name: str
    types: tuple
    matrix: Callable
    twist: Callable
    twist_rate: Callable | None


class PairType:
    """The hooks of one pair type (class attributes, and methods over its instance's constants).

    Attributes
    ----------
    kind : str
        Type name as :meth:`mechanism.Mechanism.add_pair` takes it; ``aliases`` other names
        it accepts (``"universal"`` for ``"hooke"``).
    size : int
        Number of pair variables.
    rotational : tuple of bool
        Per variable: True for an angle (rad), False for a length (m).
    additive : bool
        True when ``q + dq`` is the update of the variables and each can be driven, held,
        sprung or loaded; False for the spherical pair, whose value is a rotation vector.
    rotation_state : bool
        True when the kernels carry the pair's rotation matrix as its state (spherical: its
        increments are rotations about frame j's axes, re-seated after each step).
    marker : str
        matplotlib marker of the type in snapshots and animations.
    view_symbol : str
        plotly's 3-D marker of the type in interactive views (:mod:`loops.views`): one of
        scatter3d's eight symbols, circle, circle-open, cross, diamond, diamond-open, square,
        square-open and x.
    axis_hardpoint : bool
        True when the pair's ``axis`` is a hardpoint direction a design study may vary (one
        axis through the centre, about which the pair's frames are symmetric).
    turns_about_axis : bool
        True when the pair lets its links turn freely about its axis through its centre,
        so that the axis can serve as a suspension's kingpin.
    """

    kind = ""
    aliases: tuple = ()
    size = 1
    rotational: tuple = (True,)
    additive = True
    rotation_state = False
    marker = "o"
    view_symbol = "circle"
    axis_hardpoint = False
    turns_about_axis = False

    @property
    def family(self) -> PairFamily:
        """The family whose functions compute this type's matrix and twists."""
        raise NotImplementedError

    def parameters(self) -> np.ndarray:
        """The constants the family's functions read, (:data:`PARAMETER_COUNT`,); zeros where unused."""
        return np.zeros(PARAMETER_COUNT)

    @property
    def twists_vary(self) -> bool:
        """True when a unit twist turns with the pair's own variables (its family has a
        ``twist_rate``: the Hooke pair's second pin, the planar pair's turn). Such a pair is a
        product of exponentials of its twists in the variables' order, ``dS_k/dq_j = [S_j, S_k]``
        for ``j < k`` (mechanism/METHOD.md, "Q operators")."""
        return self.family.twist_rate is not None

    @property
    def is_hinge(self) -> bool:
        """True for a pair that only turns about its axis (a wheel on its hub)."""
        return self.turns_about_axis and self.size == 1

    # ------------------------------------------------------------- declaring
    @classmethod
    def read_options(cls, where, kind, pitch):
        """The type's options from :meth:`~mechanism.Mechanism.add_pair`'s keywords, checked:
        keyword arguments of its constructor (none but a helical pair's pitch)."""
        if pitch is not None:
            raise ModelError(f"{where}: pitch", f"only a helical pair takes a pitch, not {kind!r}")
        return {}

    @classmethod
    def read_axes(cls, where, kind, axis, axes):
        """``(axis, axes, constants)`` from add_pair's ``axis=``/``axes=``, checked (located
        ModelError); ``constants`` are more constructor arguments (a Hooke pair's pin angle)."""
        raise NotImplementedError

    def frames(self, at, axis=None, axes=None):
        """``(T_0j, T_0k)`` (4, 4) each, global at the design pose, from the pair's centre ``at``
        and its checked ``axis`` or ``axes`` (mechanism/METHOD.md, "Frames from points")."""
        raise NotImplementedError

    def options(self) -> dict:
        """The options that rebuild this type (add_pair keywords, SI): ``{"pitch": ...}`` or ``{}``."""
        return {}

    #: Quantity of each option in a model file (:mod:`mechanism.units`).
    option_quantities: dict = {}

    # --------------------------------------------------------------- mirroring
    def mirror_options(self) -> dict:
        """:meth:`options` of the mirror image (a helical pair changes hand)."""
        return self.options()

    def mirror_signs(self, pair, mirror) -> tuple:
        """Per variable: the sign relating a value to its mirror image's value, for the pair
        ``pair`` (a :class:`~mechanism.specs.PairSpec` declared at a global design pose)
        mirrored by the matrix ``mirror`` (3, 3, orthogonal) and declared again from the
        mirrored centre and axis. A turn changes hand (``det(mirror)``); a slide along the
        pair's axis keeps its sign."""
        turn = float(np.sign(np.linalg.det(mirror)))
        return tuple(turn if rotational else 1.0 for rotational in self.rotational)

    def mirror_problem(self, pair, mirror, image_at, tolerance, plane):
        """Why ``pair`` cannot be its own mirror image (a pair between two links that both
        corners share), or None. ``mirror`` (3, 3) maps directions, ``image_at`` is the mirrored
        centre (m), ``tolerance`` a length (m), ``plane`` the mirror plane as the message names
        it (``"y = 0 m"``). By default the centre must lie on the plane."""
        if np.linalg.norm(image_at - np.asarray(pair.at, float)) > tolerance:
            return f"its centre is not on the centre plane {plane}"
        return None

    def __repr__(self):
        return f"{type(self).__name__}()"


class OneAxisPair(PairType):
    """A pair declared by its centre and one axis, both frames one (Z along the axis, X the
    global axis least parallel to it made normal to it): the screw pairs and the planar pair."""

    @classmethod
    def read_axes(cls, where, kind, axis, axes):
        if axes is not None:
            raise ModelError(f"{where}: axes", f"only a Hooke pair takes axes=, not {kind!r}")
        if axis is None:
            raise ModelError(f"{where}: axis", f"a {kind} pair needs an axis")
        return check_arg.direction(axis, f"{where}: axis"), None, {}

    def frames(self, at, axis=None, axes=None):
        frame = frame_from_axis(np.asarray(at, dtype=float), axis)
        return frame, frame.copy()
