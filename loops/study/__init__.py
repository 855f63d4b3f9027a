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

import importlib
import sys
import types

#: Where each public name lives. The submodules are imported on first use (PEP 562), so that
#: importing the command line's modules (``loops.study.cli``) costs nothing for ``kinematrix --help``.
_EXPORTS = {"Coordinate": ".coordinates", "coordinates": ".coordinates", "moved_hardpoints": ".coordinates",
            "ANALYSES": ".study", "Plan": ".study", "StudyResult": ".study", "run_chunk": ".study",
            "run_study": ".study", "sensitivities": ".sensitivity", "optimise": ".optimise"}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """This package, whose public function keeps its name when the submodule of the same name is
    imported (the import system binds a submodule on its package): ``loops.study.coordinates`` is
    the function, as it was when this package imported its names at once; the module is in
    ``sys.modules``."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and _EXPORTS.get(name) == "." + name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = ["Coordinate", "coordinates", "moved_hardpoints", "ANALYSES", "Plan", "StudyResult", "run_chunk",
           "run_study", "sensitivities", "optimise"]
