"""Sensitivities of the compliance analysis to hardpoint coordinates (METHOD.md (C7)).

A hardpoint coordinate ``p`` (:mod:`loops.study.coordinates`) moves the geometry (pair
frames, link shapes, the located points: wheel centre, contact patch), so the equilibrium the
bushings settle at, its reduced stiffness ``K`` and the unit loads' reduced forces ``b`` all
move with it. The compliance ``C = J K^-1 b`` (C1)-(C3) then changes through ``dK/dp``: the
derivative of the potential's Hessian with respect to the geometry, with the pose moving
along (third derivatives of the potential, and their geometric counterparts), which no
kernel computes. Unlike a bushing rate (C4)-(C5), which enters the loads linearly, a
hardpoint has no analytic part to split off, so the whole derivative is the fourth-order
central difference

    dC/dp = (C(p - 2h) - 8 C(p - h) + 8 C(p + h) - C(p + 2h)) / (12 h)               (C7)

of the compliance analysis itself (:func:`loops.suspension.compliance`) at the moved designs
(:meth:`mechanism.Mechanism.moved`; every equilibrium solved again, closed and balanced to
the analysis's tolerance), the step ``h`` = :data:`HARDPOINT_STEP` times the model's size for a
location (0.25 mm on the shipped front axle, examples/front_axle_bushings.toml, 1.56 m
across), :data:`HARDPOINT_STEP` for an axis component. Truncation ``h^4 C^(5) / 30``: measured
there (the difference at steps h and h/2, which falls 16-fold per halving from 4 mm down), the
worst column of the lower ball joint's height (the patch's longitudinal stiffness) has 1.3e-8
of its derivative at 1 mm, 8e-10 at 0.5 mm, 5e-11 at the 0.25 mm taken; rounding (the
equilibria closed to about 1e-15 of the size) grows as 1/h, about 3e-10 of the derivative at
0.25 mm for the tie rod's outer ball (5e-10 at 0.125 mm). So the derivatives hold about 1e-9
of their size; a column that does not move with ``p`` (the other wheel's) is zero up to that
rounding of the column's own size over ``h``. A bushing's centre is a hardpoint
(``lower_front_left.z``), and a replaced pair's centre carries its bushings and its axis turns
them (:meth:`mechanism.Mechanism.moved`), so all three move the compliance.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError, SweepStopped

from ...continuation import DEFAULT_TOLERANCE
from ...suspension.compliance import compliance
from ...suspension.corner import model_size
from ..coordinates import coordinates, moved_suspension

__all__ = ["hardpoint_derivatives", "HARDPOINT_STEP"]

#: The step of (C7) over the model's size (a location) or in an axis component: fourth-order
#: truncation (``~HARDPOINT_STEP^4``) and rounding (``~1e-15 / HARDPOINT_STEP``) both about
#: 1e-10 of the derivative on the shipped axle (module docstring).
HARDPOINT_STEP = 1.6e-4
#: The fourth-order central difference's weights, by multiple of the step (over ``12 h``).
_WEIGHTS = {-2: 1.0, -1: -8.0, 1: 8.0, 2: -1.0}


def hardpoint_derivatives(susp, coords, travel, case=None, *, tolerance=DEFAULT_TOLERANCE) -> dict:
    """The compliance analysis's columns' derivatives with respect to the hardpoint coordinates
    ``coords`` (names or :class:`~loops.study.coordinates.Coordinate`, taken at ``susp``'s own
    design) at the wheel travels ``travel`` (m), by (C7): column name -> (N, k), each the
    column's in-memory unit (rad per kN, per 100 N m; N/m) per metre (per unit of an axis
    component).

    Raises
    ------
    ModelError
        Located ``vary 'NAME'`` for a name that is not a coordinate of the model, or a
        coordinate whose moved design (at up to two steps) the compliance analysis cannot
        complete (its reason said).
    """
    names = [c if isinstance(c, str) else c.name for c in coords]
    coords = coordinates(susp.model, names)  # at this design (its own nominal values)
    size = model_size(susp.model)
    out = {}
    for j, c in enumerate(coords):
        h = HARDPOINT_STEP * (1.0 if c.dimension == "direction" else size)
        for step, weight in _WEIGHTS.items():
            try:
                result = compliance(moved_suspension(susp, [c], [step * h]), travel, case, tolerance=tolerance)
            except SweepStopped as stop:
                raise ModelError(f"vary {c.name!r}", f"the compliance analysis of the design with it moved by "
                                 f"{step * h:+.3g} stops ({stop.reason}): no derivative there") from None
            for name, column in result.metrics.items():
                if name in result.input_names:
                    continue
                values = out.setdefault(name, np.zeros((len(result), len(coords))))
                values[:, j] += weight * np.asarray(column.values, dtype=float) / (12.0 * h)
    return out
