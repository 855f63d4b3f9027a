"""Kinematic pairs: one module per family carrying every hook of its types, and the registry.

Each family module (:mod:`.screw` for revolute, prismatic, cylindrical and helical pairs,
and one module for each other type) defines its arithmetic (pair matrix, unit twists and
their rates, as plain functions that :mod:`loops.kernels.pairs` compiles) and its types (subclasses of
:class:`~mechanism.pairs.base.PairType`: variables, declaration, frames, mirror rule,
hardpoint and kingpin roles, plot marker). :data:`FAMILIES` below is the one list of them;
everything else (the model builder and files, the compiled kernels' dispatch, the
workbench, plots) reads it. A new pair type is its family module and one entry here.
"""

from __future__ import annotations

import numpy as np

from . import bushing, hooke, planar, screw, spherical
from .base import PARAMETER_COUNT, OneAxisPair, PairFamily, PairType
from .hooke import Hooke
from .screw import Cylindrical, Helical, Prismatic, Revolute, ScrewPair
from .spherical import Spherical

__all__ = ["FAMILIES", "PAIR_TYPES", "KINDS", "PARAMETER_COUNT", "PairFamily", "PairType", "OneAxisPair",
           "ScrewPair", "Revolute", "Prismatic", "Cylindrical", "Helical", "Hooke", "Spherical",
           "make_pair_type", "family_code", "compiled_parameters"]

#: The registry: every pair family, in the order of their codes in the compiled kernels.
FAMILIES = (screw.SCREW, hooke.HOOKE, spherical.SPHERICAL, planar.PLANAR, bushing.BUSHING)

#: Every pair type by each name :meth:`mechanism.Mechanism.add_pair` accepts (aliases included).
PAIR_TYPES = {name: cls for family in FAMILIES for cls in family.types for name in (cls.kind, *cls.aliases)}
#: The types' own names, in the registry's order.
KINDS = tuple(cls.kind for family in FAMILIES for cls in family.types)
_CODES = {family.name: code for code, family in enumerate(FAMILIES)}


def make_pair_type(kind: str, **constants) -> PairType:
    """Instance of the pair type named ``kind`` (an alias too) from its constructor's
    arguments (``pitch=`` for a helical pair, ``beta=`` for a Hooke pair; None: not given)."""
    return PAIR_TYPES[kind](**{key: value for key, value in constants.items() if value is not None})


def family_code(pair_type: PairType) -> int:
    """The code of the pair type's family in the compiled kernels (its place in :data:`FAMILIES`)."""
    return _CODES[pair_type.family.name]


def compiled_parameters(pair_types) -> tuple[np.ndarray, np.ndarray]:
    """``(codes (P,) int64, parameters (P, PARAMETER_COUNT))`` of a sequence of pair types."""
    codes = np.array([family_code(t) for t in pair_types], dtype=np.int64)
    parameters = np.array([t.parameters() for t in pair_types], dtype=float).reshape(-1, PARAMETER_COUNT)
    return codes, parameters
