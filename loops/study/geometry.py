"""The geometry of many design variants at once, on the nominal model's compiled topology.

A variant moves hardpoints (:mod:`.coordinates`); its topology is the nominal model's, so
only the arrays of :class:`loops.compiled.Geometry` change, and they are built here for all
variants together, stacked along a leading axis, without building, validating or compiling
a model per variant. They equal what :func:`loops.compiled.compile_model` makes of
``Mechanism.moved(...)`` (the tests compare them):

* at the design pose a pair's two frames are global frames with their origin at the pair's
  centre (DESIGN.md, "Frames from points"), so moving the centre moves both origins; a
  point driver's road loop sits at its point; a new axis gives new frame rotations
  (:func:`mechanism.transforms.frame_from_axis`);
* the mechanism's size (the diagonal of the box around the pair centres) and the gauge
  axes of idle links (the line through their pair centres, :mod:`loops.passive`) follow the
  centres.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError
from mechanism.limits import COINCIDENT_SIZE
from mechanism.transforms import frame_from_axis

from ..compiled import Geometry
from ..linear import SquareBlock
from ..passive import pairs_touching
from .coordinates import moved_hardpoints

__all__ = ["VariantGeometry", "road_loop_pairs", "VANISHED_AXIS"]

#: Length below which a moved screw axis (before it is made a unit vector) has vanished.
VANISHED_AXIS = 1e-9


def road_loop_pairs(system) -> dict:
    """``{point name: [pair indices]}``: the pairs of each point driver's road loop (the
    driver's own slide and its virtual pairs, after the model's pairs), all at its point."""
    drivers = {d.name: d for d in system.model.point_drivers}
    out = {}
    for i in range(len(system.model.pairs), len(system.pairs)):
        out.setdefault(drivers[system.pairs[i].name.split("<", 1)[0]].point, []).append(i)
    return out


def _vanished(axis):
    """(V,) True where a moved axis (V, 3) is shorter than :data:`VANISHED_AXIS` or not finite."""
    return ~(np.linalg.norm(axis, axis=1) > VANISHED_AXIS)


class VariantGeometry:
    """Builds the stacked geometry of variants of one compiled system.

    Parameters
    ----------
    system : loops.compiled.CompiledSystem of the nominal model (pairs declared globally)
    coords : list of loops.study.coordinates.Coordinate
    """

    def __init__(self, system, coords):
        model = system.model
        local = [p.name for p in model.pairs if p.local]
        if local or any(np.any(values) for _, values in model.reference):
            raise ModelError("vary", f"a design study needs every pair declared by global at/axis at a design pose "
                             f"that closes (pairs with link-local frames: {', '.join(local) or 'none'})")
        self.system, self.coords = system, list(coords)
        self.centres = np.array([p.frame_on_first[:3, 3] for p in system.pairs])  # (P, 3) design-pose centres
        self._at_point = road_loop_pairs(system)
        self._touching = []
        for gauge in system.gauges:
            if not np.allclose(gauge.reference, np.eye(3)):
                raise ModelError("vary", "a design study needs the reference assembly at the design pose")
            self._touching.append(pairs_touching(system.topology, gauge.link))

    def _moved(self, offsets):
        """``(hardpoint, (V, 3) value)`` of each hardpoint the variants move."""
        hardpoints = {c.hardpoint.name: c.hardpoint for c in self.coords}
        return [(hardpoints[name], value) for name, value in moved_hardpoints(self.coords, offsets).items()]

    def centres_of(self, offsets):
        """Pair centres (V, P, 3) of the variants with ``offsets`` (V, k) (SI)."""
        offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        centres = np.repeat(self.centres[None], len(offsets), axis=0)
        for hp, value in self._moved(offsets):
            if hp.key != "at":
                continue
            if hp.table == "pairs":
                centres[:, self.system.pair_index[hp.owner]] = value
            elif hp.table == "points":
                centres[:, self._at_point.get(hp.owner, [])] = value[:, None]
        return centres

    def axes_of(self, offsets):
        """``{pair index: (V, 3) new axis}`` (not normalised) for the pairs whose axis varies; a
        variant whose offsets make an axis vanish keeps the nominal axis there (it is not
        walked: :meth:`unbuildable`)."""
        offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        out = {}
        for hp, axis in self._moved(offsets):
            if hp.key != "axis":
                continue
            bad = _vanished(axis)
            i = self.system.pair_index[hp.owner]
            if bad.any():
                axis = axis.copy()
                axis[bad] = self.system.geometry.frame_j[i, :3, 2]  # the pair's z: its nominal axis
            out[i] = axis
        return out

    def unbuildable(self, offsets) -> dict:
        """``{variant: reason}`` for the variants that cannot be built: offsets that make a
        screw axis vanish (shorter than :data:`VANISHED_AXIS`, or not finite)."""
        offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        reasons = {}
        for hp, axis in self._moved(offsets):
            if hp.key != "axis":
                continue
            for v in np.flatnonzero(_vanished(axis)):
                reasons.setdefault(int(v), f"the variant cannot be built: its offsets make the axis of {hp.owner!r} "
                                           "vanish")
        return reasons

    def geometries(self, offsets) -> Geometry:
        """The :class:`~loops.compiled.Geometry` of every variant, each field with a leading
        variant axis (``scale`` (V,))."""
        offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        count = len(offsets)
        base = self.system.geometry
        centres = self.centres_of(offsets)
        frame_j = np.repeat(base.frame_j[None], count, axis=0)
        frame_k = np.repeat(base.frame_k[None], count, axis=0)
        for i, axis in self.axes_of(offsets).items():
            frame_j[:, i] = frame_from_axis(centres[:, i], axis)
            frame_k[:, i] = frame_j[:, i]
        frame_j[:, :, :3, 3] = centres
        frame_k[:, :, :3, 3] = centres
        size = np.linalg.norm(np.ptp(centres, axis=1), axis=1)
        scale = np.where(size > COINCIDENT_SIZE, size, 1.0)
        gauge_axis = np.zeros((count, len(self._touching), 3))
        for g, touching in enumerate(self._touching):
            spread = centres[:, touching] - centres[:, touching[:1]]
            lengths = np.linalg.norm(spread, axis=2)
            far = np.argmax(lengths, axis=1)
            rows = np.arange(count)
            gauge_axis[:, g] = spread[rows, far] / lengths[rows, far][:, None]
        gauge_reference = np.repeat(base.gauge_reference[None], count, axis=0)
        return Geometry(frame_j, frame_k, scale, gauge_axis, gauge_reference)

    def blocks(self, block, scale) -> SquareBlock:
        """``block`` (the nominal's rows and ordering) with the row and column weights of each
        variant's ``scale`` (V,): ``row_scale`` (V, rows), ``column_scale`` (V, n)."""
        system = self.system
        gaps = np.tile(np.r_[np.zeros(3), np.ones(3)], len(system.loops))
        gaps = np.r_[gaps, np.zeros(len(system.gauges))].astype(bool)
        row_scale = np.where(gaps[None], 1.0 / scale[:, None], 1.0)
        column_scale = np.where(system.rotational[None], 1.0, scale[:, None])
        return block._replace(row_scale=np.ascontiguousarray(row_scale),
                              column_scale=np.ascontiguousarray(column_scale))
