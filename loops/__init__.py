"""kinematrix, the loop layer: topology and kinematics of closed-loop mechanisms.

The loop graph and its independent loops (:mod:`loops.graph`, :mod:`loops.loop_basis`); the
compiled system (:mod:`loops.compiled`) and the evaluation of a configuration
(:mod:`loops.configuration`: link matrices along the tree, eq. 5; closure defects, eq. 2;
the linearized closure ``B``, eq. 3); the solve layer (:mod:`loops.linear`), the Newton
corrector (:mod:`loops.newton`) and the one walk along the closure
(:mod:`loops.continuation`); sweeps (:mod:`loops.sweep`) with held freedoms
(:mod:`loops.held`); the trajectory record (:mod:`loops.results`); mobility
(:mod:`loops.mobility`); static equilibrium (:mod:`loops.statics`) and its linearised response to a
small load, the compliance
(:mod:`loops.compliance`). The per-configuration arithmetic runs in compiled kernels
(:mod:`loops.kernels`), loaded on first use.
"""

from .lazy_exports import export_lazily

#: Where each public name lives. The submodules are imported on first use (PEP 562), so that
#: importing the command line's modules (``loops.cli``) costs nothing for ``kinematrix --help``.
_EXPORTS = {"CompiledSystem": ".compiled", "compile_model": ".compiled", "MobilityReport": ".mobility",
            "mobility_report": ".mobility", "SweepResult": ".results", "Trajectory": ".results", "sweep": ".sweep",
            "equilibrium": ".statics", "EquilibriumResult": ".statics", "load_response": ".compliance"}


__all__ = ["MobilityReport", "mobility_report", "SweepResult", "Trajectory", "sweep", "CompiledSystem",
           "compile_model", "equilibrium", "EquilibriumResult", "load_response"]

export_lazily(__name__)
