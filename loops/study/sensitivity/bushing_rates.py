"""Sensitivities of the compliance analysis to bushing rates (METHOD.md (C4)-(C6)), and
:func:`compliance_sensitivities`, those and the hardpoints' (C7) (:mod:`.compliance_hardpoints`).

**Names.** A bushing rate is named ``"BUSHING.kx"``, ``.ky``, ``.kz`` (along the bushing's
x, y, z axes, N/m; N/mm in a mm file) or ``.krx``, ``.kry``, ``.krz`` (about them, N m/rad; N
mm/deg in a mm/deg file): the diagonal entry of the bushing's stiffness matrix. The suffix
after the last dot is ``k...``, never one of a hardpoint coordinate's ``x``, ``y``, ``z``
(``"HARDPOINT.x"``, ``"HARDPOINT.axis.x"``, :mod:`loops.study.coordinates`), so the two kinds
of names cannot clash; :func:`is_bushing_rate` tells them apart.

**Derivatives.** At an equilibrium with the wheels held (``u*`` its free coordinates, ``K``
its reduced stiffness ``K_uu``), a compliance is ``C = J(q) K(q)^-1 b(q)`` (C1)-(C3): ``J`` the
metric's rate per free coordinate, ``b`` the unit load's reduced force. A rate ``k`` changes it
in two ways:

* the equilibrium moves (under preload, the bushing deflected by ``d`` = its variable): the
  bushing's reduced force changes by ``dg/dk`` (``-d`` on its variable, (B2)) and

      du/dk = K^-1 dg/dk,   dq/dk = G_u du/dk                                      (C4)

  exact (:func:`loops.statics_rates.rate_loads`);
* at the pose, the stiffness changes by ``dK/dk = G_i^T G_i + d d2q_i/du2`` (the unit-rate
  bushing's own stiffness (E4), exact by the same kernels) and

      dC = -J K^-1 (dK/dk) K^-1 b                                                  (C5)

  exact (the linear response fed to the metrics' jets).

The pose's part, ``dC/dk = dC/ds`` along ``q(s)`` with ``u = u* + s du/dk`` (``J``, ``b`` and ``K``
at the moved pose, the loops closed again), needs the third derivatives of the potential
(the rate of ``K`` along a motion); it is taken by the fourth-order central difference

      dC/ds = (C(-2h) - 8 C(-h) + 8 C(h) - C(2h)) / (12 h)                          (C6)

of the compliance at closed, exactly computed poses (:func:`loops.statics_rates.shifted_equilibria`),
the step ``h`` moving the free coordinates by at most :data:`POSE_STEP` (rad, or sizes of the
model): truncation ``h^4 C^(5) / 30``. On the shipped front axle (examples/
front_axle_bushings.toml) the worst case, a torsion rate's change of the patch's longitudinal
stiffness at -40 mm, has a truncation of 2.6e-3 of the derivative at a step of 3e-3, 2.8e-5 at
1e-3 and 3.5e-7 at 3e-4 (the fourth power), so about 3e-9 at the step 1e-4 taken; rounding
(the moved poses closed to about 1e-15) adds about 1e-15 / 1e-4 = 1e-11. Not exact: that pose
term alone is differenced; where the bushing carries no preload (``d = 0``) it is zero and no
difference is taken.
"""

from __future__ import annotations

import numpy as np

from mechanism.units import QUANTITIES

from ...compliance import LoadResponse, load_response
from ...continuation import DEFAULT_TOLERANCE
from ...statics_rates import rate_loads, shifted_equilibria
from ..coordinates import RATE_SUFFIXES, BushingRate, bushing_rates, is_bushing_rate
from ...suspension.compliance import (PER_100_NM, PER_KILONEWTON, compliance_columns, settle_compliance,
                                      unit_wrenches)

__all__ = ["BushingRate", "bushing_rates", "is_bushing_rate", "rate_derivatives", "compliance_sensitivities",
           "compliance_metrics", "rated_mechanism",
           "RATE_SUFFIXES", "POSE_STEP"]

#: The largest motion of a free coordinate in one step of (C6) (rad, or sizes): the fourth-order
#: difference's truncation (``~POSE_STEP^4``, 3e-9 of the derivative at worst on the shipped
#: axle, module docstring) and rounding (``~1e-15 / POSE_STEP``) both small there.
POSE_STEP = 1e-4
#: The compliance columns' scales in memory (per kN, per 100 N m) over SI.
_PER = {PER_KILONEWTON: 1e3, PER_100_NM: 1e2}


def _pose_term(variant, record, wheels, shift, names):
    """(C6): ``dC/ds`` of every column along ``u* + s shift`` (N, k), by name."""
    system = record.system
    scale = system.column_scale[[system.variable_index[f] for f in record.free]]
    reach = np.max(np.abs(shift) / scale[None, :])
    if not reach > 0.0:
        return {name: 0.0 for name in names}
    h = POSE_STEP / reach
    weights = {-2: 1.0, -1: -8.0, 1: 8.0, 2: -1.0}
    out = dict.fromkeys(names, 0.0)
    for step, weight in weights.items():
        moved = shifted_equilibria(record, shift, [step * h])
        for column in compliance_columns(variant, moved, wheels):
            out[column.name] = out[column.name] + weight * column.values / (12.0 * h)
    return out


def _stiffness_term(variant, record, wheels, base, dK):
    """(C5): every column's change at the pose for the stiffness change ``dK`` (N, k, k)."""
    response = load_response(record, unit_wrenches(variant, record, wheels))
    K = np.asarray(record.stiffness, dtype=float)
    shift = np.linalg.solve(K, response.reduced.transpose(0, 2, 1))            # (N, k, K)
    change = -np.linalg.solve(K, dK @ shift).transpose(0, 2, 1)                 # (N, K, k)
    count, k, links = response.free_twists.shape[:3]
    flat = response.free_twists.reshape(count, k, links * 6)
    twists = (change @ flat).reshape(count, -1, links, 6)
    linear = LoadResponse(np.zeros_like(response.rates), twists, response.free_twists, response.reduced)
    out = {}
    for column in compliance_columns(variant, record, wheels, linear):
        if "_stiffness_" in column.name:
            # a stiffness is 1 / (e . dx/dF): its change is -s^2 times that of e . dx/dF
            with np.errstate(divide="ignore", invalid="ignore"):
                out[column.name] = -base[column.name] ** 2 / column.values
        else:
            out[column.name] = column.values
    return out


def rate_derivatives(susp, rates, travel, case=None, *, tolerance=DEFAULT_TOLERANCE):
    """The compliance analysis at ``travel`` and its columns' derivatives with respect to the
    bushing ``rates`` (names or :class:`BushingRate`): ``(record, values)``, ``record`` the
    compliant variant's EquilibriumResult at ``travel``, ``values`` column name -> (N, R)
    (the column's SI unit per N/m or per N m/rad), the module docstring's (C4)-(C6).

    Raises ModelError for a name that is not a bushing rate (:func:`bushing_rates`) and as
    :func:`loops.suspension.compliance`; SweepStopped when an equilibrium is not reached.
    """
    model = susp.mechanism.snapshot()
    rates = rates if all(isinstance(r, BushingRate) for r in rates) else bushing_rates(model, rates)
    variant, record, wheels, stop = settle_compliance(susp, travel, case, tolerance=tolerance)
    if stop is not None:
        raise stop
    base = {c.name: c.values for c in compliance_columns(variant, record, wheels)}
    values = {name: np.zeros((len(record), len(rates))) for name in base}
    for r, rate in enumerate(rates):
        dg, dK = rate_loads(record, rate.bushing, rate.index)
        shift = np.linalg.solve(np.asarray(record.stiffness, dtype=float), dg[:, :, None])[:, :, 0]   # (C4)
        pose = _pose_term(variant, record, wheels, shift, list(base))
        explicit = _stiffness_term(variant, record, wheels, base, dK)
        for name in base:
            values[name][:, r] = pose[name] + explicit[name]
    return record, values


def compliance_sensitivities(susp, names, travel, case=None, *, tolerance=DEFAULT_TOLERANCE):
    """:func:`loops.study.sensitivity.sensitivities` of the compliance analysis: every column's
    derivative with respect to the bushing rates and hardpoint coordinates ``names`` (names, or
    :class:`BushingRate` and :class:`~loops.study.coordinates.Coordinate`; in the order named, a
    hardpoint's three coordinates in its place) at every travel, as
    :class:`~loops.study.sensitivity.result.Sensitivities`: the rates' by (C4)-(C6), the
    hardpoints' by (C7) (:mod:`.compliance_hardpoints`). SI in memory: the compliances' in rad
    per N or per N m, per N/m, per N m/rad or per metre (per N/mm, N mm/deg or mm in a mm/deg
    file)."""
    from ...suspension.compliance import compliance  # noqa: PLC0415
    from ..coordinates import Coordinate, parameters  # noqa: PLC0415
    from .compliance_hardpoints import hardpoint_derivatives  # noqa: PLC0415
    from .result import Sensitivities  # noqa: PLC0415

    given = list(names) if not isinstance(names, str) and hasattr(names, "__iter__") else names
    chosen = given if given and all(isinstance(c, (Coordinate, BushingRate)) for c in given) else \
        parameters(susp.model, given)
    rated = [j for j, c in enumerate(chosen) if isinstance(c, BushingRate)]
    moved = [j for j, c in enumerate(chosen) if not isinstance(c, BushingRate)]
    parts = []
    if rated:
        parts.append((rated, rate_derivatives(susp, [chosen[j] for j in rated], travel, case,
                                              tolerance=tolerance)[1]))
    if moved:
        parts.append((moved, hardpoint_derivatives(susp, [chosen[j] for j in moved], travel, case,
                                                   tolerance=tolerance)))
    result = compliance(susp, travel, case, tolerance=tolerance)
    values, dimensions = {}, {}
    for name, column in result.metrics.items():
        if name in result.input_names:
            continue
        values[name] = np.zeros((len(result), len(chosen)))
        for where, found in parts:
            values[name][:, where] = found[name]
        # the compliances are held per kN and per 100 N m: made SI (rad per N, per N m) here, so
        # that a derivative's dimension is a plain quotient the files' units convert
        dimension = column.dimension
        values[name] = values[name] / _PER.get(dimension, 1.0)
        dimensions[name] = QUANTITIES[dimension] if dimension in _PER else dimension
    inputs = [result.metrics[name] for name in result.input_names]
    return Sensitivities(chosen, values, dimensions, inputs, result, None)


def compliance_metrics(susp) -> dict:
    """The compliance analysis's columns of ``susp`` by name -> their dimension (an axle's end in
    ``_left`` and ``_right``): what a compliance target may name."""
    from ...suspension.compliance import COMPLIANCE_LOADS  # noqa: PLC0415

    out = {}
    suffixes = ("_left", "_right") if susp.is_axle else ("",)
    for suffix in suffixes:
        for name, _, where in COMPLIANCE_LOADS:
            for label in ("steer", "camber"):
                out[f"compliance_{label}_{name}{suffix}"] = PER_100_NM if where == "moment" else PER_KILONEWTON
            if where != "moment":
                kind, at = name.split("_")
                out[f"{kind}_stiffness_{at}{suffix}"] = "force/length"
    return out


def rated_mechanism(mechanism, rates, offsets):
    """``mechanism`` (changed in place) with each :class:`BushingRate` of ``rates`` at its
    nominal plus the offset (N/m, N m/rad) of ``offsets``; returns it."""
    for rate, offset in zip(rates, offsets):
        stiffness = mechanism.bushings[rate.bushing].stiffness_matrix().copy()
        stiffness[rate.index, rate.index] = rate.nominal + offset
        mechanism.set_bushing_stiffness(rate.bushing, stiffness)
    return mechanism
