"""Design sensitivities: how every suspension metric changes with each hardpoint coordinate.

The derivatives come from the linearised closure (METHOD.md eq. 3) at every position of an
analysis, exactly as the velocities do (eq. 4), with no step size and no finite
differences. A hardpoint coordinate ``p`` (:mod:`loops.study.coordinates`) is treated as a
motion of the mechanism at fixed drivers and held variables. The derivation, numbered as the
code cites it, is METHOD.md's "Design sensitivities": (H1)-(H4) the motion along ``p`` and
its first and second rates, (T1)-(T4) the third rates of the wheel rate, (V1) a virtual
steering axis, (R1)-(R8) the roll.

One concern a module:

* :mod:`.motion`: what a coordinate moves (H1): pair frames, located points, design values;
* :mod:`.closure`: the linearised closure at the analysis's positions (H2), solved and
  summed along the tree by the engine's own kernels;
* :mod:`.directions`: rates along the drivers and the coordinates (H2)-(H4), (T1)-(T2);
* :mod:`.driver_rates`: the drivers' own second rates;
* :mod:`.metrics`: the chain rule of each kind of metric of the catalogue;
* :mod:`.wheel_rate`: the wheel rate's third rates (T3), (T4);
* :mod:`.roll`: the roll analysis (R1)-(R8);
* :mod:`.bushing_rates`: the compliance analysis's rates in bushing rates (C4)-(C6), names
  ``"BUSHING.kx"`` ... ``".krz"``; :mod:`.compliance_hardpoints`: its rates in hardpoint
  coordinates (C7);
* :mod:`.result`: :class:`Sensitivities` and :class:`Influence`;
* :mod:`.analysis`: :func:`sensitivities` and :func:`sensitivities_of`.

Not available: wheel travel measured at the contact patch (sensitivities are taken at fixed
wheel-centre travel). A roll's coordinates are its axle's (``lower_ball_left.z``: a corner
is mirrored into an axle first).
"""

from .analysis import ANALYSES, sensitivities, sensitivities_of
from .metrics import FIELD_METRICS, RATE_METRICS
from .motion import HardpointMotion
from .result import Influence, Sensitivities

__all__ = ["Sensitivities", "Influence", "HardpointMotion", "sensitivities", "sensitivities_of", "RATE_METRICS",
           "FIELD_METRICS", "ANALYSES"]
