"""An arm on one bushing: the closed-form compliant model of the compliance tests (a vertical
force F at the tip, at ``length`` along x, slides the bushing F/k_z and turns it -F L/k_ry about
y, so the tip's compliance is ``1/k_z + L^2/k_ry``)."""

from __future__ import annotations

from mechanism import Mechanism


def arm_on_one_bushing(kz, kry, length=0.4):
    """The arm (massless) on the bushing ``bush`` at the origin, its tip point ``tip``; the
    other rates stiff and unlike (N/m, N m/rad), the compliant variant in use."""
    m = Mechanism("arm on one bushing")
    m.add_link("arm")
    m.add_bushing("bush", "ground", "arm", at=(0, 0, 0), stiffness=(3e5, 2e5, kz, 1e3, kry, 1.5e3))
    m.add_point("tip", "arm", at=(length, 0, 0))
    m.use_bushings(True)
    return m
