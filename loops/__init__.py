"""kinematrix, the loop layer: topology and kinematics of closed-loop mechanisms.

Loop graph and independent loops (:mod:`loops.graph`, :mod:`loops.loop_basis`), the compiled
system of link and pair matrices (:mod:`loops.system`), the Newton closure solver
(:mod:`loops.closure`, Pavlov eq. 3), velocities and accelerations (:mod:`loops.velocity`,
:mod:`loops.acceleration`, eq. 4), points (:mod:`loops.point_kinematics`, eqs. 5-6), sweeps
(:mod:`loops.sweep`), results and the mobility report.
"""

from .mobility import MobilityReport, mobility_report
from .results import SweepResult
from .sweep import sweep
from .system import KinematicSystem, compile_model

__all__ = ["MobilityReport", "mobility_report", "SweepResult", "sweep", "KinematicSystem", "compile_model"]
