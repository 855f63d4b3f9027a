"""The suspension workbench: wheel corners, axles, standard analyses and their metrics.

* :mod:`~loops.suspension.corner`: :class:`Corner`, what of a mechanism makes a wheel corner
  (a model file's ``[corner]`` table).
* :mod:`~loops.suspension.vehicle`: :class:`Vehicle`, wheelbase, centre-of-mass height, brake
  and drive layout, steering ratio (``[vehicle]``).
* :mod:`~loops.suspension.axle`: an axle by mirroring a corner about the centre plane, or
  from two corner models, sharing the steering rack (``[axle]``).
* :mod:`~loops.suspension.metrics`: the metric catalogue: every metric, its definition, sign,
  standard, unit and function (:mod:`~loops.suspension.wheel`,
  :mod:`~loops.suspension.velocity_field`, :mod:`~loops.suspension.axle_geometry`), taken
  by :mod:`~loops.suspension.measure` along the motions of :mod:`~loops.suspension.motion`.
* :mod:`~loops.suspension.model`: :class:`Suspension`, what is analysed, and
  :class:`SuspensionResult`, what an analysis returns.
* :mod:`~loops.suspension.analyses`: the registry of the analyses: parallel and opposite
  travel, steering, combined (:mod:`~loops.suspension.standard`), roll
  (:mod:`~loops.suspension.body_motion`); the wheels placed by :mod:`~loops.suspension.travel`.
* :mod:`~loops.suspension.load_cases` and :mod:`~loops.suspension.hardpoint_loads`: load
  cases (:class:`LoadCase`, :data:`STANDARD_CASES`) and :func:`load_case`, the hardpoint,
  member, spring and rack forces of one at every position (``--analysis loads``);
  :mod:`~loops.suspension.compliance`: :func:`compliance` and :func:`kc_curves`, the compliance
  analyses of a model on bushings (``--analysis compliance``, ``--analysis kc``).
* :mod:`~loops.suspension.files`: :func:`load_suspension` reads a corner or axle file.
* :mod:`~loops.suspension.hardpoints`: hardpoint tables out to CSV and back into a model file.
* :mod:`~loops.suspension.sheets`: the standard sheet of an analysis, and comparisons.

Examples
--------
>>> import numpy as np
>>> from loops.suspension import load_suspension, parallel_travel
>>> front = load_suspension("examples/front_axle.toml")
>>> bump = parallel_travel(front, np.linspace(-0.08, 0.08, 17))
>>> round(float(np.degrees(bump.metric("camber_left")[-1])), 3)
-2.149
"""

from loops.lazy_exports import export_lazily

#: Where each public name lives. The submodules are imported on first use (PEP 562), so that
#: importing the command line's modules (``loops.suspension.cli``) costs nothing for ``kinematrix --help``.
_EXPORTS = {"ANALYSES": ".analyses", "Suspension": ".model", "SuspensionResult": ".model",
            "combined": ".standard", "opposite_travel": ".standard", "parallel_travel": ".standard",
            "roll": ".body_motion", "steering": ".standard", "Axle": ".axle", "axle_from_corners": ".axle",
            "mirror_corner": ".axle", "Corner": ".corner", "corner_from_table": ".corner",
            "load_suspension": ".files", "AXLE_METRICS": ".metrics", "METRICS": ".metrics",
            "ROLL_METRICS": ".metrics", "contact_patch": ".measure", "metrics_at": ".measure", "rates": ".measure",
            "suspension_metrics": ".measure", "Vehicle": ".vehicle", "vehicle_from_table": ".vehicle",
            "load_case": ".hardpoint_loads", "LoadCase": ".load_cases", "STANDARD_CASES": ".load_cases",
            "compliance": ".compliance", "kc_curves": ".compliance"}


__all__ = ["Corner", "Vehicle", "Axle", "Suspension", "SuspensionResult", "suspension_metrics", "metrics_at",
           "rates", "contact_patch", "METRICS", "AXLE_METRICS", "ROLL_METRICS", "ANALYSES", "parallel_travel",
           "opposite_travel", "roll", "steering", "combined", "mirror_corner", "axle_from_corners",
           "corner_from_table", "vehicle_from_table", "load_suspension", "load_case", "LoadCase", "STANDARD_CASES",
           "compliance", "kc_curves"]

export_lazily(__name__)
