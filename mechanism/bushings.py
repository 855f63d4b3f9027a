"""Bushings: compliant connections as data, checked, and the two variants of a model they make.

:meth:`mechanism.Mechanism.add_bushing` checks its arguments here (:func:`bushing_spec`, one
located one-line ModelError per mistake) and the snapshot takes its pairs from
:func:`variant_pairs`: in the **compliant** variant (``use_bushings(True)``) the declared pairs
but those a bushing replaces, then every bushing as a pair of the bushing type (six freedoms,
:mod:`mechanism.pairs.bushing`); in the **rigid** variant (the default) the declared pairs,
then every bushing that replaces nothing as a weld (its links move as one). The loads of a
bushing (stiffness, damping, preload on its six variables) are compiled with the model's other
loads (:mod:`loops.loads`) in the compliant variant only.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import _validate as check_arg
from .errors import ModelError
from .pairs.bushing import Bushing, Weld, bushing_frame, check_axes
from .specs import BushingSpec, PairSpec

__all__ = ["bushing_spec", "restiffened", "moved_bushings", "smallest_rotation", "variant_pairs", "check_compliant_loads", "RATE_NAMES", "BUSHING_RATES"]

#: The six rates of a bushing, in order: along its x, y, z axes, then about them.
RATE_NAMES = ("x", "y", "z", "rx", "ry", "rz")

#: The quantities (:mod:`mechanism.units`) of a bushing's stiffness and damping matrices by
#: blocks ``((translation-translation, translation-turn), (turn-translation, turn-turn))``:
#: force per length or angle, moment per length or angle (times time for damping).
BUSHING_RATES = {
    "stiffness": (("linear_stiffness", "force/angle"), ("force", "angular_stiffness")),
    "damping": (("linear_damping", "force*time/angle"), ("force*time", "angular_damping")),
}


def _rates(value, where, default_zero, symmetric_psd):
    """Six rates or a (6, 6) matrix (N/m, N m/rad ...), finite; rates not negative, a matrix
    symmetric and positive semi-definite."""
    if value is None and default_zero:
        return np.zeros(6)
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected 6 numbers or a 6x6 matrix, got {check_arg.shown(value)}") from None
    if array.shape not in ((6,), (6, 6)):
        raise ModelError(where, f"expected 6 numbers (along x, y, z, about x, y, z) or a 6x6 matrix, "
                         f"got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ModelError(where, "non-finite value")
    if array.shape == (6,):
        negative = np.flatnonzero(array < 0)
        if len(negative):
            i = int(negative[0])
            raise ModelError(f"{where}[{i}]", f"negative rate {float(array[i])!r} ({RATE_NAMES[i]})")
    elif symmetric_psd:
        if not np.allclose(array, array.T, rtol=1e-12, atol=1e-12 * np.abs(array).max()):
            raise ModelError(where, "the 6x6 matrix is not symmetric")
        if np.linalg.eigvalsh(array)[0] < -1e-12 * np.abs(array).max():
            raise ModelError(where, "the 6x6 matrix is not positive semi-definite")
    return array


def bushing_spec(name, first, second, at, axes, stiffness, damping, preload, replaces, *, links, pairs,
                 taken) -> BushingSpec:
    """A checked :class:`~mechanism.specs.BushingSpec` (arguments of :meth:`~mechanism.Mechanism.add_bushing`).

    ``links``, ``pairs`` are the mechanism's links and declared pairs (dicts by name),
    ``taken`` the names a new bushing may not take (pairs, point drivers, bushings). Raises
    ModelError at ``bushing 'NAME'`` (``: at``, ``: stiffness[2]`` ...).
    """
    name = check_arg.name(name, "bushing name")
    where = f"bushing {name!r}"
    if name in taken:
        raise ModelError(where, "a pair, driver or bushing of that name exists already")
    for role, link in (("first", first), ("second", second)):
        check_arg.known(link, links, f"{where}: {role} link", "link")
    if first == second:
        raise ModelError(where, f"joins link {first!r} to itself")
    at = check_arg.vector(at, f"{where}: at", is_length=True)
    rows = check_axes(axes, f"{where}: axes")
    stiffness = _rates(stiffness, f"{where}: stiffness", False, True)
    damping = _rates(damping, f"{where}: damping", True, True)
    if preload is None:
        preload = np.zeros(6)
    else:
        preload = check_arg.vector(preload, f"{where}: preload", length=6)
    if replaces is not None:
        if not isinstance(replaces, str) or replaces not in pairs:
            raise ModelError(f"{where}: replaces", f"unknown pair {check_arg.shown(replaces)} (pairs: "
                             f"{', '.join(pairs) or 'none'})")
        pair = pairs[replaces]
        if {pair.first, pair.second} != {first, second}:
            raise ModelError(f"{where}: replaces", f"pair {replaces!r} joins {pair.first!r} and {pair.second!r}, "
                             f"the bushing {first!r} and {second!r}")
    frozen = check_arg.read_only
    return BushingSpec(name, first, second, frozen(at), frozen(rows), frozen(stiffness), frozen(damping),
                       frozen(preload), replaces)


def restiffened(bushings, name, stiffness) -> BushingSpec:
    """The bushing ``name`` of ``bushings`` (a dict by name) with ``stiffness`` (6 rates or a
    (6, 6) matrix, N/m, N m/rad), checked as :func:`bushing_spec` checks it: a design study's
    or optimiser's bushing-rate variant (:meth:`mechanism.Mechanism.set_bushing_stiffness`)."""
    check_arg.known(name, bushings, "bushing", "bushing")
    stiffness = _rates(stiffness, f"bushing {name!r}: stiffness", False, True)
    return replace(bushings[name], stiffness=check_arg.read_only(stiffness))


def smallest_rotation(old, new, where) -> np.ndarray:
    """The smallest rotation (3, 3) taking the unit direction ``old`` (3,) to the unit direction
    ``new`` (3,): about ``v = old x new`` by the angle between them (Rodrigues, with ``c = old . new``),

        R = I + hat(v) + hat(v)^2 / (1 + c),    1 / (1 + c) = (1 - c) / |v|^2

    (the second form past a quarter turn, where ``1 + c`` would cancel), the identity when they
    are equal. A reversal (within 1e-6 rad of it) has no smallest rotation (every half turn
    about a perpendicular is one): ModelError at ``where``."""
    v = np.cross(old, new)
    c = float(old @ new)
    if c < 0.0 and np.linalg.norm(v) < 1e-6:
        raise ModelError(where, "reverses the axis of a pair that bushings replace: no smallest rotation turns "
                         "them (give the axis its old sense)")
    hat = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return np.eye(3) + hat + hat @ hat * (1.0 / (1.0 + c) if c >= 0.0 else (1.0 - c) / float(v @ v))


def moved_bushings(bushings, hardpoints, pairs) -> dict:
    """The bushings of a design variant (:meth:`mechanism.Mechanism.moved`), a dict by name:
    ``bushings`` the nominal ones (a dict by name), ``hardpoints`` the moved hardpoints
    ``[(Hardpoint, new value)]`` (:mod:`mechanism.hardpoints`; m, global at the design pose),
    ``pairs`` the variant's declared pairs by name. A bushing's centre named there takes its
    value (checked, ModelError at ``hardpoint 'NAME'``); every other bushing that replaces a pair
    (``replaces=``) whose centre or axis is named moves with that pivot, as the compliant variant
    stands it in for the pivot: with ``c``, ``c'`` the pair's old and new centre and ``R`` the
    smallest rotation taking its old unit axis to the new (:func:`smallest_rotation`; the
    identity when the axis is not named), the bushing's centre ``b`` goes to ``c' + R (b - c)``
    (``b + (c' - c)`` for a centre alone) and its axes (rows x, y, z) to ``R`` times them; a
    bushing whose centre is named keeps that centre, its axes still turned with the pivot (they
    are no hardpoint of their own). Rates are kept. A pivot's centre and axis named in one call
    apply together, and the order of the names does not matter."""
    out = dict(bushings)
    named = {hardpoint.owner for hardpoint, _ in hardpoints if hardpoint.table == "bushings"}
    pivots = {}  # pair name -> its old centre and old unit axis, as the hardpoints named give them
    for hardpoint, value in hardpoints:
        if hardpoint.table == "bushings":
            where = f"hardpoint {hardpoint.name!r}"
            out[hardpoint.owner] = replace(out[hardpoint.owner], at=check_arg.read_only(check_arg.vector(value, where,
                                                                                                is_length=True)))
        elif hardpoint.table == "pairs":
            pivots.setdefault(hardpoint.owner, {})[hardpoint.key] = hardpoint
    for pair_name, moved in pivots.items():
        replacing = [b for b in bushings.values() if b.replaces == pair_name]
        pair = pairs[pair_name]
        if "axis" not in moved:  # a centre alone: a translation, by the pair's move
            for bushing in (b for b in replacing if b.name not in named):
                out[bushing.name] = replace(bushing, at=check_arg.read_only(pair.at - moved["at"].value + bushing.at))
            continue
        if not replacing:
            continue
        axis = np.asarray(pair.axis, dtype=float)
        turn = smallest_rotation(moved["axis"].value, axis / np.linalg.norm(axis), f"hardpoint {moved['axis'].name!r}")
        centre = moved["at"].value if "at" in moved else np.asarray(pair.at, dtype=float)
        for bushing in replacing:
            at = out[bushing.name].at if bushing.name in named else pair.at + turn @ (bushing.at - centre)
            out[bushing.name] = replace(bushing, at=check_arg.read_only(at),
                                        axes=check_arg.read_only(bushing.axes @ turn.T))
    return out


def _pair_of(bushing: BushingSpec, pair_type) -> PairSpec:
    frame = bushing_frame(bushing.at, bushing.axes)
    frame_j, frame_k = check_arg.read_only(frame), check_arg.read_only(frame)
    return PairSpec(bushing.name, pair_type, bushing.first, bushing.second, frame_j, frame_k, at=bushing.at,
                    axes=tuple(map(tuple, bushing.axes)))


def variant_pairs(declared, bushings, compliant) -> tuple:
    """The pairs of the compliant or rigid variant (see the module docstring), a tuple of
    :class:`~mechanism.specs.PairSpec`: ``declared`` the declared pairs, ``bushings`` the
    :class:`~mechanism.specs.BushingSpec` in order."""
    if compliant:
        replaced = {b.replaces for b in bushings}
        return (tuple(p for p in declared if p.name not in replaced)
                + tuple(_pair_of(b, Bushing()) for b in bushings))
    return tuple(declared) + tuple(_pair_of(b, Weld()) for b in bushings if b.replaces is None)


def check_compliant_loads(bushings, pair_springs, pair_forces, pairs) -> None:
    """Refuse pair springs and pair forces on pairs the compliant variant replaces (located
    ModelError naming the load and the bushing): they would have no variable to act on."""
    replaced = {b.replaces: b.name for b in bushings if b.replaces is not None}
    for kind, loads in (("pair spring", pair_springs), ("pair force", pair_forces)):
        for load in loads:
            owner = next((p.name for p in pairs.values() if load.variable in p.variable_names()), None)
            if owner in replaced:
                raise ModelError(f"{kind} on {load.variable!r}", f"pair {owner!r} is replaced by bushing "
                                 f"{replaced[owner]!r} in the compliant variant (use_bushings(True))")
