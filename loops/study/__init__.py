"""Design studies: thousands of hardpoint variants of one model at once.

* :mod:`.coordinates`: which hardpoint coordinates vary (``"lower_ball.z"``);
* :mod:`loops.variants` (the engine's): the variants' geometry stacked on the nominal
  topology and their batched walk (every core), each variant closed like a single sweep;
* :mod:`.suspension`: the workbench's analyses and metrics over variant rows;
* :mod:`.study`: :func:`run_study` and its :class:`StudyResult` (tidy table, CSV, pandas,
  Parquet, percentile bands);
* :mod:`.sensitivity`: :func:`sensitivities`, every metric's derivatives with respect to
  hardpoint coordinates; :mod:`.optimise`: :func:`optimise`, hardpoints fitted to targets.
"""

from loops.lazy_exports import export_lazily

#: Where each public name lives. The submodules are imported on first use (PEP 562), so that
#: importing the command line's modules (``loops.study.cli``) costs nothing for ``kinematrix --help``.
_EXPORTS = {"Coordinate": ".coordinates", "coordinates": ".coordinates", "moved_hardpoints": ".coordinates",
            "ANALYSES": ".study", "Plan": ".study", "StudyResult": ".study", "run_chunk": ".study",
            "run_study": ".study", "sensitivities": ".sensitivity", "optimise": ".optimise"}


__all__ = ["Coordinate", "coordinates", "moved_hardpoints", "ANALYSES", "Plan", "StudyResult", "run_chunk",
           "run_study", "sensitivities", "optimise"]

export_lazily(__name__)
