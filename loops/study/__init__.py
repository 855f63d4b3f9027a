"""Design studies: thousands of hardpoint variants of one model at once.

* :mod:`.coordinates`: which hardpoint coordinates vary (``"lower_ball.z"``);
* :mod:`loops.variants` (the engine's): the variants' geometry stacked on the nominal
  topology and their batched walk (every core), each variant closed like a single sweep;
* :mod:`.suspension`: the workbench's analyses and metrics over variant rows;
* :mod:`.study`: :func:`run_study` and its :class:`StudyResult` (tidy table, CSV, pandas,
  Parquet, percentile bands).
"""

from .coordinates import Coordinate, coordinates, moved_hardpoints
from .study import ANALYSES, Plan, StudyResult, run_chunk, run_study

__all__ = ["Coordinate", "coordinates", "moved_hardpoints", "ANALYSES", "Plan", "StudyResult", "run_chunk",
           "run_study"]
