"""Design studies: a workbench analysis of thousands of hardpoint variants, and its table.

:func:`run_study` runs one analysis of :mod:`loops.suspension.analyses` (parallel travel,
opposite travel, roll, steering, steering at several travels) for the nominal design and for
every variant (``offsets`` of hardpoint coordinates, :mod:`.coordinates`; designs of them in
:mod:`.designs`). Variants go in chunks (bounded memory, a progress bar, and the unit of work
a Dask cluster runs: :mod:`.cluster`); within a chunk they walk at once on every core
(:mod:`loops.variants`) and their metrics are the workbench's own, computed over all rows
(:class:`loops.study.suspension.VariantSuspension`). Every variant is closed to the
tolerance of a single sweep: each equals a separate sweep of ``Mechanism.moved`` to round-off
(the tests compare). A variant that stops is reported with its reason, its rows past the
stop are NaN, and the others go on.

The analyses on bushings (the registry's ``bushings``: the compliance) are equilibria, which
the variants' batched walk does not make: a study runs their variants one after the other,
each a moved copy of the model (:meth:`mechanism.Mechanism.moved`) through the analysis's own
function, so each equals that analysis of the moved model to the bit. Their parameters may
include bushing rates (``"lower_front.kz"``, :mod:`.coordinates`) beside the hardpoint
coordinates (a bushing's centre among them, ``"lower_front.z"``); every other analysis is the
rigid kinematics, which bushing rates and centres do not change, and refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from mechanism.atomic import write_atomically
from mechanism.errors import ModelError, SweepStopped

from ..compiled import compile_model
from ..results import MAX_RECORD_BYTES, Column, record_bytes, write_columns
from ..sweep import progress_bar
from ..suspension.analyses import ANALYSES as REGISTRY
from ..suspension.travel import input_values
from .cluster import run_on_cluster
from .coordinates import BushingRate, Coordinate, moved_suspension, parameters
from .suspension import VariantSuspension
from loops.continuation import DEFAULT_TOLERANCE

__all__ = ["ANALYSES", "Plan", "StudyResult", "run_study", "run_chunk", "run_plan", "DEFAULT_CHUNK", "plan_inputs",
           "plan_arguments", "check_parameters"]

#: The analyses a study runs (the registry's, :mod:`loops.suspension.analyses`, that say so).
ANALYSES = tuple(name for name, entry in REGISTRY.items() if entry.study)
#: Variants per chunk: large enough that a chunk runs for a good fraction of a second.
DEFAULT_CHUNK = 500


@dataclass(frozen=True)
class Plan:
    """What every variant runs: the ``analysis`` (one of :data:`ANALYSES`), its input values
    per position, SI (:func:`plan_inputs`, the registry's: ``travel`` m for travel analyses and
    the levels of combined, ``roll`` rad for roll, ``rack`` for steering and combined), the
    wheel travel of a steering analysis, where travel is measured and the closure tolerance."""

    analysis: str = "parallel"
    travel: np.ndarray | None = None
    rack: np.ndarray | None = None
    steer_travel: float = 0.0
    travel_at: str = "wheel-centre"
    tolerance: float = DEFAULT_TOLERANCE
    roll: np.ndarray | None = None

    def check(self) -> dict:
        """The analysis's inputs checked: ``{plan field: (n,) values}`` of the inputs that vary
        across positions, in the registry's order."""
        if self.analysis not in ANALYSES:
            raise ModelError("analysis", f"a study runs one of {', '.join(ANALYSES)}, got {self.analysis!r}")
        out = {}
        for entry in plan_inputs(self.analysis):
            if entry.single:
                continue
            values = getattr(self, entry.plan)
            if values is None:
                raise ModelError(entry.plan, f"the {self.analysis} analysis needs its {entry.plan} values")
            out[entry.plan] = input_values(values, entry.plan)
        return out


def plan_inputs(analysis) -> list:
    """The registry's inputs (:class:`~loops.suspension.analyses.Input`) a study of ``analysis``
    takes from its :class:`Plan` (``Input.plan``): the ones given per position, in the order
    they vary (combined: each travel level through every rack value), and single values."""
    return [entry for entry in REGISTRY[analysis].inputs if entry.plan is not None]


def plan_arguments(plan, values, count):
    """The keywords of ``plan``'s analysis (the registry's) for ``count`` variants: the inputs
    of one variant's positions (``values``, :meth:`Plan.check`) repeated for each (those the
    analysis itself repeats, once), and its single values."""
    inputs = {}
    for entry in plan_inputs(plan.analysis):
        if entry.single:
            inputs[entry.name] = getattr(plan, entry.plan)
        else:
            inputs[entry.name] = np.tile(values[entry.plan], count) if entry.tiled else values[entry.plan]
    return inputs


def run_plan(rows, plan, values=None, count=1):
    """``plan``'s analysis (the registry's) on ``rows``: a design study's variant suspension, or
    one suspension (the nominal design); the inputs of one variant's positions (``values``,
    default :meth:`Plan.check`) repeated for each of the ``count`` variants
    (:func:`plan_arguments`). Returns the analysis's result (for one suspension, its
    :class:`~loops.suspension.SuspensionResult`)."""
    values = plan.check() if values is None else values
    return REGISTRY[plan.analysis].run(rows, travel_at=plan.travel_at, tolerance=plan.tolerance,
                                       **plan_arguments(plan, values, count))


def run_chunk(suspension, coords, offsets, plan: Plan, workers=None):
    """One chunk of variants through the plan: ``(inputs, metrics, reasons)`` with the input
    columns (N,) of the first variant's rows, the metric columns as ``{name: (dimension, (V,
    N) SI values)}`` and ``{variant in chunk: reason}`` for those that stopped. The unit of work
    of a study, locally or on a Dask worker. An analysis on bushings runs its variants one by
    one (the module docstring; ``workers`` unused)."""
    values = plan.check()
    count, N = len(offsets), int(np.prod([len(v) for v in values.values()]))
    if REGISTRY[plan.analysis].bushings:
        return _one_by_one(suspension, coords, offsets, plan, values, N)
    rows = VariantSuspension(suspension, coords, offsets, N, workers)
    run_plan(rows, plan, values, count)
    inputs, metrics = rows.finished
    inputs = {c.name: (c.dimension, np.asarray(c.values)[:N]) for c in inputs}
    metrics = {c.name: (c.dimension, np.asarray(c.values, dtype=float).reshape(count, N)) for c in metrics}
    return inputs, metrics, dict(rows.mechanism.reasons)


def _one_by_one(suspension, coords, offsets, plan, values, N):
    """:func:`run_chunk` of an analysis on bushings: each variant's :func:`~.coordinates.moved_suspension`
    through the plan in turn; a variant whose hardpoints give no design stops before its first
    position, as in the batched walk."""
    results, reasons = [], {}
    for v, row in enumerate(offsets):
        try:
            results.append(run_plan(moved_suspension(suspension, coords, row), plan, values))
        except SweepStopped as stop:
            if isinstance(stop, KeyboardInterrupt):  # Ctrl-C stops the study, not the variant
                raise
            results.append(stop.partial)
            reasons[v] = stop.reason
        except ModelError as error:
            results.append(None)
            reasons[v] = f"its hardpoints give no design to analyse: {error}"
    whole = next((r for r in results if r is not None and len(r) == N), None)
    if whole is None:  # no variant of the chunk reached every position: the nominal's columns
        try:
            whole = run_plan(suspension, plan, values)
        except SweepStopped as stop:
            whole = stop.partial
    inputs = {name: (whole.metrics[name].dimension, np.asarray(whole.metrics[name].values)[:N])
              for name in whole.input_names}
    metrics = {}
    for name, column in whole.metrics.items():
        if name in inputs:
            continue
        table = np.full((len(offsets), N), np.nan)
        for v, result in enumerate(results):
            if result is not None and name in result.metrics:
                table[v, :len(result)] = result.metrics[name].values
        metrics[name] = (column.dimension, table)
    return inputs, metrics, reasons


def check_parameters(suspension, coords, offsets, analysis):
    """Refuse a study whose parameters include bushing rates or bushing centres but whose
    ``analysis`` is the rigid kinematics (not on bushings, the registry's ``bushings``), or whose ``offsets`` (V, k) SI make
    a bushing rate zero or negative: one located line (``vary 'NAME'``), the rates in the model's
    units."""
    rates = [(j, c) for j, c in enumerate(coords) if isinstance(c, BushingRate)]
    centres = [c for c in coords if not isinstance(c, BushingRate) and c.hardpoint.table == "bushings"]
    if centres and not REGISTRY[analysis].bushings:
        raise ModelError(f"vary {centres[0].name!r}", f"the {analysis} analysis is the rigid kinematics, which a "
                         "bushing's centre does not change: vary it in a study of the compliance analysis")
    if not rates:
        return
    if not REGISTRY[analysis].bushings:
        raise ModelError(f"vary {rates[0][1].name!r}", f"the {analysis} analysis is the rigid kinematics, which "
                         "bushing rates do not change: vary them in a study of the compliance analysis")
    units = suspension.units
    for j, rate in rates:
        value = rate.nominal + offsets[:, j]
        low = np.flatnonzero(~(value > 0.0))
        if len(low):
            v = int(low[0])
            raise ModelError(f"vary {rate.name!r}", f"variant {v} makes it {units.show(value[v], rate.dimension)} "
                             f"(nominal {units.show(rate.nominal, rate.dimension)}, offset "
                             f"{units.show(offsets[v, j], rate.dimension)}): a bushing rate must stay positive")


@dataclass
class StudyResult:
    """The metrics of every variant at every position, with the variants' parameters.

    Attributes
    ----------
    coordinates : list of Coordinate and BushingRate (k), the varied parameters
    offsets : (V, k) SI offsets of the variants from the nominal (m; N/m, N m/rad for a rate)
    inputs : {name: (dimension, (N,) values)} the analysis' inputs per position (``wheel_travel``)
    metrics : {name: (dimension, (V, N) values)} SI; NaN past a variant's stop
    nominal : {name: (N,)} the nominal design's metrics
    reasons : {variant: sentence} for the variants that stopped
    units : mechanism.units.Units, the default units of files written (the model's own)
    """

    coordinates: list
    offsets: np.ndarray
    inputs: dict
    metrics: dict
    nominal: dict
    reasons: dict
    units: object
    analysis: str = "parallel"
    names: list = field(default_factory=list)

    @property
    def variants(self) -> int:
        return len(self.offsets)

    @property
    def positions(self) -> int:
        return len(next(iter(self.inputs.values()))[1])

    def values(self, metric) -> np.ndarray:
        """(V, N) SI values of ``metric``."""
        if metric not in self.metrics:
            raise ModelError(f"metric {metric!r}", f"not a metric of this study (metrics: {', '.join(self.metrics)})")
        return self.metrics[metric][1]

    def parameters(self) -> np.ndarray:
        """(V, k) the varied coordinates' values (nominal plus offsets), SI."""
        return np.array([c.nominal for c in self.coordinates])[None] + self.offsets

    # ------------------------------------------------------------ the table
    def columns(self) -> list:
        """The tidy table's columns, one row per (variant, position): ``variant``,
        ``position``, the varied coordinates' values, the inputs, then every metric."""
        V, N = self.variants, self.positions
        out = [Column("variant", np.repeat(np.arange(V), N), "dimensionless", 0),
               Column("position", np.tile(np.arange(N), V), "dimensionless", 0)]
        parameters = self.parameters()
        for j, c in enumerate(self.coordinates):
            dimension = "dimensionless" if c.dimension == "direction" else c.dimension
            out.append(Column(c.name, np.repeat(parameters[:, j], N), dimension, 0))
        for name, (dimension, values) in self.inputs.items():
            out.append(Column(name, np.tile(values, V), dimension, 0))
        for name, (dimension, values) in self.metrics.items():
            out.append(Column(name, values.reshape(-1), dimension, 0))
        return out

    def _units(self, units):
        from mechanism.units import Units  # noqa: PLC0415

        return self.units if units is None else Units.of(units)

    def to_csv(self, path=None, units=None):
        """The tidy table as CSV (the one writer, :func:`loops.results.write_columns`), atomically,
        in ``units`` (default the model's own); ``path=None`` returns the text."""
        note = f"design study: {self.analysis}, {self.variants} variants, {len(self.reasons)} stopped"
        return write_columns(path, self.columns(), self._units(units), note, self.variants * self.positions)

    def to_dataframe(self, units=None):
        """The tidy table as a ``pandas.DataFrame`` (the ``pandas`` extra) in ``units``."""
        try:
            import pandas  # noqa: PLC0415 (optional dependency)
        except ImportError:
            raise ModelError("to_dataframe", "needs pandas: pip install 'kinematrix[pandas]'") from None
        units = self._units(units)
        frame = pandas.DataFrame({c.name: units.from_si(np.asarray(c.values, dtype=float), c.dimension)
                                  for c in self.columns()})
        return frame.astype({"variant": int, "position": int})

    def to_parquet(self, path, units=None):
        """The tidy table as a Parquet file (the ``parquet`` extra: pyarrow), written atomically."""
        try:
            import pyarrow  # noqa: PLC0415, F401 (optional dependency)
            import io  # noqa: PLC0415
        except ImportError:
            raise ModelError("to_parquet", "needs pyarrow: pip install 'kinematrix[parquet]'") from None
        buffer = io.BytesIO()
        self.to_dataframe(units).to_parquet(buffer, index=False)
        write_atomically(path, buffer.getvalue())

    # ----------------------------------------------------------- statistics
    def band(self, metric, lower=5.0, upper=95.0):
        """``(low, high)`` (N,) percentiles of ``metric`` over the variants (stopped rows left out)."""
        import warnings  # noqa: PLC0415

        values = self.values(metric)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # positions no variant reached: NaN
            return np.nanpercentile(values, lower, axis=0), np.nanpercentile(values, upper, axis=0)

    def summary(self, percentiles=(5.0, 50.0, 95.0)) -> list:
        """Columns per position: the inputs, then per metric its nominal, mean, standard
        deviation, min, percentiles and max over the variants (``camber_mean``, ``camber_p5``)."""
        import warnings  # noqa: PLC0415

        out = [Column(name, values, dimension, 0) for name, (dimension, values) in self.inputs.items()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for name, (dimension, values) in self.metrics.items():
                stats = [("nominal", self.nominal[name]), ("mean", np.nanmean(values, axis=0)),
                         ("std", np.nanstd(values, axis=0)), ("min", np.nanmin(values, axis=0))]
                stats += [(f"p{p:g}", np.nanpercentile(values, p, axis=0)) for p in percentiles]
                stats += [("max", np.nanmax(values, axis=0))]
                out += [Column(f"{name}_{stat}", value, dimension, 0) for stat, value in stats]
        return out

    def summary_to_csv(self, path=None, units=None):
        """:meth:`summary` as CSV (one row per position)."""
        note = f"design study summary: {self.analysis}, {self.variants} variants"
        return write_columns(path, self.summary(), self._units(units), note, self.positions)

    def _repr_html_(self):
        """In a notebook: a summary and the bands' interactive page (:mod:`loops.study.views`)."""
        from .views import study_html  # noqa: PLC0415

        return study_html(self)


def _check_memory(suspension, variants, chunk, coordinates_count, inputs, nominal):
    """Refuse, after the nominal run and before the variants', a study whose table or one of
    whose chunks (the walk's poses and rates of every variant-position) would not fit in
    :data:`~loops.results.MAX_RECORD_BYTES`."""
    positions = max([np.size(values) for _, values in nominal.values()] + [1])
    columns = 2 + coordinates_count + len(inputs) + len(nominal)
    table = 8 * variants * positions * columns
    if table > MAX_RECORD_BYTES:
        raise ModelError("offsets", f"{variants} variants x {positions} positions x {columns} columns would take "
                         f"{table / 2**30:.3g} GiB, more than the {MAX_RECORD_BYTES / 2**30:g} GiB a study may hold: "
                         "study fewer variants at a time")
    system = compile_model(suspension.model)
    walk = record_bytes(system, chunk * positions, 2)
    if walk > MAX_RECORD_BYTES:
        raise ModelError("chunk_size", f"{chunk} variants x {positions} positions per chunk would take "
                         f"{walk / 2**30:.3g} GiB of poses and rates, more than {MAX_RECORD_BYTES / 2**30:g} GiB: "
                         "give a smaller chunk_size")


def run_study(suspension, coords, offsets, plan: Plan | None = None, *, chunk_size=DEFAULT_CHUNK, workers=None,
              progress=None, scheduler=None, scheduler_timeout=None, **plan_options) -> StudyResult:
    """Run ``plan`` (or ``Plan(**plan_options)``) for the nominal design and every variant.

    Parameters
    ----------
    suspension : loops.suspension.Suspension, the nominal design
    coords : list of coordinate names (``"lower_ball.z"``, ``"upper_ball"``) or Coordinates; for
        an analysis on bushings (the compliance) also bushing rates (``"lower_front.kz"``,
        :mod:`.coordinates`)
    offsets : (V, k) offsets of the coordinates from the nominal, SI (m; for an axis
        component, of its unit direction; N/m, N m/rad for a bushing rate, whose nominal plus
        offset must stay positive)
    plan : Plan, or its fields as keywords (``analysis="parallel", travel=values``)
    chunk_size : variants per chunk (memory, progress, one Dask task each: on a cluster, make
        tasks that run for seconds, see :mod:`.cluster`)
    workers : threads per chunk here (default: one per core); a cluster's task runs on one
    progress : progress bar on stderr (None: for long studies on a terminal)
    scheduler : a Dask scheduler address (``"tcp://host:8786"``) or ``dask.distributed.Client``
        to run the chunks on a cluster (the ``dask`` extra); None runs them here
    scheduler_timeout : seconds to wait for a scheduler given by address (default: the
        environment variable ``KINEMATRIX_SCHEDULER_TIMEOUT``, else 10 s; :mod:`.cluster`)

    Returns
    -------
    StudyResult
    """
    plan = plan or Plan(**plan_options)
    plan.check()
    coords = coords if coords and all(isinstance(c, (Coordinate, BushingRate)) for c in coords) else parameters(
        suspension.model, coords)
    offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
    if offsets.ndim != 2 or offsets.shape[1] != len(coords) or not np.all(np.isfinite(offsets)):
        raise ModelError("offsets", f"expected finite offsets of shape (variants, {len(coords)}), got "
                         f"{np.shape(offsets)}")
    check_parameters(suspension, coords, offsets, plan.analysis)
    if not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ModelError("chunk_size", f"expected a positive whole number, got {chunk_size!r}")
    inputs, nominal, nominal_reasons = run_chunk(suspension, coords, np.zeros((1, len(coords))), plan, workers)
    if nominal_reasons:
        raise ModelError("model", f"the nominal design does not complete the {plan.analysis} analysis: "
                         f"{nominal_reasons[0]}")
    _check_memory(suspension, len(offsets), min(chunk_size, len(offsets)), len(coords), inputs, nominal)
    bounds = list(range(0, len(offsets), chunk_size)) + [len(offsets)]
    chunks = [offsets[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    outputs = []
    bar = progress_bar(len(offsets), progress, unit="variant", least=2000)
    try:
        if scheduler is not None:  # one task per chunk, on one worker thread each
            shared = {"suspension": suspension, "coords": list(coords), "plan": plan}
            outputs = run_on_cluster(scheduler, partial(run_chunk, workers=1), chunks, shared,
                                     timeout=scheduler_timeout, done=None if bar is None else bar.update)
        else:
            for chunk in chunks:
                outputs.append(run_chunk(suspension, coords, chunk, plan, workers))
                if bar is not None:
                    bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    metrics, reasons = {}, {}
    for (a, _), (_, chunk_metrics, chunk_reasons) in zip(zip(bounds[:-1], bounds[1:]), outputs):
        for name, (dimension, values) in chunk_metrics.items():
            metrics.setdefault(name, (dimension, []))[1].append(values)
        reasons.update({a + v: reason for v, reason in chunk_reasons.items()})
    metrics = {name: (dimension, np.concatenate(parts)) for name, (dimension, parts) in metrics.items()}
    return StudyResult(coords, offsets, inputs, metrics, {n: v[0] for n, (_, v) in nominal.items()}, reasons,
                       suspension.units, plan.analysis, [c.name for c in coords])
