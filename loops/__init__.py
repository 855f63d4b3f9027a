"""kinematrix, the loop layer: topology and kinematics of closed-loop mechanisms.

The loop graph and its independent loops (:mod:`loops.graph`, :mod:`loops.loop_basis`); the
compiled system (:mod:`loops.compiled`) and the evaluation of a configuration
(:mod:`loops.configuration`: link matrices along the tree, eq. 5; closure defects, eq. 2;
the linearized closure ``B``, eq. 3); the solve layer (:mod:`loops.linear`), the Newton
corrector (:mod:`loops.newton`) and the one walk along the closure
(:mod:`loops.continuation`); sweeps (:mod:`loops.sweep`) with held freedoms
(:mod:`loops.held`); the trajectory record (:mod:`loops.results`); mobility
(:mod:`loops.mobility`). The per-configuration arithmetic runs in compiled kernels
(:mod:`loops.kernels`), loaded on first use.
"""

from .compiled import CompiledSystem, compile_model
from .mobility import MobilityReport, mobility_report
from .results import SweepResult, Trajectory
from .sweep import sweep

__all__ = ["MobilityReport", "mobility_report", "SweepResult", "Trajectory", "sweep", "CompiledSystem",
           "compile_model"]
