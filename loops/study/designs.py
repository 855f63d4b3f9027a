"""Designs of a study: which variants to run, as offsets of the varied coordinates.

Every design returns ``offsets``, shape (V, k): one row per variant, one column per varied
coordinate (:mod:`.coordinates`), each the change from the nominal value, SI (m for a
location; for an axis component the change of its unit direction, which is normalised
again). :func:`loops.study.study.run_study` takes them as they are.

* :func:`offsets`: an explicit table of offsets.
* :func:`full_factorial`: every combination of ``levels`` evenly spaced values between each
  coordinate's bounds (both bounds included): ``levels ** k`` variants, the first coordinate
  changing slowest (as :func:`itertools.product`).
* :func:`latin_hypercube`: ``count`` variants; each coordinate's range is cut into ``count``
  equal strata and every stratum holds exactly one variant, at a random place in it; the
  strata of different coordinates are paired at random (the draws of
  :class:`scipy.stats.qmc.LatinHypercube`, scrambled).
* :func:`monte_carlo`: ``count`` variants of independent random offsets, a tolerance
  stack-up. ``spread`` is a tolerance ``+-spread``: for ``"normal"`` it is three standard
  deviations (sigma = spread / 3; the normal is not truncated, so about 0.27 % of the offsets
  fall outside +-spread); for ``"uniform"`` it is the half width (offsets uniform in
  [-spread, spread)).

The random designs are reproducible: the same ``seed`` gives the same variants (with numpy's
``default_rng``; ``seed=None`` draws fresh ones). A Monte Carlo coordinate's offsets depend
only on the seed and its column, not on the other coordinates' distributions.

A *vary file* (TOML, :func:`read_vary`) states a design next to a model file, in that
model file's length unit::

    design = "latin-hypercube"   # "factorial" | "latin-hypercube" | "monte-carlo" | "offsets"
    variants = 1000              # latin-hypercube and monte-carlo
    levels = 3                   # factorial
    seed = 1                     # latin-hypercube and monte-carlo (default 0)

    [[vary]]
    hardpoint = "lower_ball"     # all three coordinates; or "lower_ball.z", "upper_inner.axis.x"
    range = [-5, 5]              # factorial and latin-hypercube: offset bounds, file length unit
    # spread = 0.5               # monte-carlo: +-spread (3 sigma for normal, half width for uniform)
    # distribution = "normal"    # monte-carlo: "normal" (default) or "uniform"

    [[vary]]
    hardpoint = "lower_front.kz" # a bushing rate (a compliance study): N/mm, or N mm/deg for .krx ...
    range = [-1000, 1000]        # in the model file's stiffness units

    # design = "offsets": one table per variant, coordinate = offset (a hardpoint = 3 offsets);
    # coordinates a table leaves out keep their nominal values
    [[offsets]]
    "lower_ball.z" = 2.0

Every mistake is one :class:`~mechanism.errors.ModelError` naming the file, the table and
the key, as a model file's (``vary.toml: vary[1] ('lower_ball'): range: ...``).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from mechanism import _validate as check_arg
from mechanism.errors import ModelError

from .coordinates import BushingRate, parameters

__all__ = ["offsets", "full_factorial", "latin_hypercube", "monte_carlo", "read_vary", "DESIGNS", "DISTRIBUTIONS",
           "MAX_VARIANTS"]

#: Most variants a design may hold (a million variants at 40 positions fill gigabytes of metrics).
MAX_VARIANTS = 1_000_000
#: Designs of a vary file, the function each one calls.
DESIGNS = ("factorial", "latin-hypercube", "monte-carlo", "offsets")
#: Distributions of a Monte Carlo design.
DISTRIBUTIONS = ("normal", "uniform")


# --------------------------------------------------------------------------- checks
def _whole(value, where, minimum, maximum=None):
    """An integer in [minimum, maximum]; a located one-line ModelError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ModelError(where, f"expected a whole number, got {check_arg.shown(value)}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        limit = f"at least {minimum}" if maximum is None else f"from {minimum} to {maximum:,}"
        raise ModelError(where, f"expected a whole number {limit}, got {value:,}")
    return value


def _count(count):
    return _whole(count, "variants", 1, MAX_VARIANTS)


def _seed(seed):
    """``seed``, checked: None or a whole number >= 0."""
    return None if seed is None else _whole(seed, "seed", 0)


def _rng(seed):
    return np.random.default_rng(_seed(seed))


def _table(values, where, columns=None):
    """``values`` as a finite float array of shape (rows, columns)."""
    try:
        arr = np.array(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ModelError(where, f"expected numbers, got {check_arg.shown(values)}") from None
    shape = "(variants, coordinates)" if columns is None else f"(coordinates, {columns})"
    if arr.ndim != 2 or 0 in arr.shape or (columns is not None and arr.shape[1] != columns):
        raise ModelError(where, f"expected a table of shape {shape}, got shape {arr.shape}")
    bad = np.argwhere(~np.isfinite(arr))
    if len(bad):
        raise ModelError(f"{where}[{bad[0][0]}]", f"non-finite value in {check_arg.shown(arr[bad[0][0]])}")
    return arr


def _bounds(bounds):
    """(k, 2) lower and upper offsets, each lower below its upper."""
    arr = _table(bounds, "bounds", 2)
    low = np.flatnonzero(~(arr[:, 0] < arr[:, 1]))
    if len(low):
        j = int(low[0])
        raise ModelError(f"bounds[{j}]", f"the lower bound must be below the upper one, got {arr[j].tolist()}")
    return arr


# -------------------------------------------------------------------------- designs
def offsets(table) -> np.ndarray:
    """An explicit design: ``table`` (V, k) offsets, checked (finite, at most
    :data:`MAX_VARIANTS` rows) and returned as a float array."""
    arr = _table(table, "offsets")
    if len(arr) > MAX_VARIANTS:
        raise ModelError("offsets", f"{len(arr):,} variants, more than the {MAX_VARIANTS:,} a design may hold")
    return arr


def full_factorial(bounds, levels) -> np.ndarray:
    """Every combination of ``levels`` values per coordinate: (levels ** k, k) offsets.

    Parameters
    ----------
    bounds : (k, 2) lower and upper offset of each coordinate, SI
    levels : int >= 2, values per coordinate, evenly spaced from lower to upper (both included)

    The first coordinate changes slowest. A full factorial grows as ``levels ** k``: it may
    hold at most :data:`MAX_VARIANTS` variants (a Latin hypercube covers many coordinates).
    """
    bounds = _bounds(bounds)
    levels = _whole(levels, "levels", 2)
    k = len(bounds)
    digits = k * math.log10(levels)
    if digits > 7 or levels ** k > MAX_VARIANTS:
        size = f"{levels ** k:,}" if digits < 30 else f"about 10^{digits:.0f}"
        raise ModelError("levels", f"a full factorial of {levels} levels in {k} coordinates is {size} variants, "
                         f"more than the {MAX_VARIANTS:,} a design may hold (use fewer levels or coordinates, or "
                         "a latin-hypercube design)")
    axes = [np.linspace(low, high, levels) for low, high in bounds]
    grid = np.meshgrid(*axes, indexing="ij")
    return np.stack([g.reshape(-1) for g in grid], axis=1)


def latin_hypercube(bounds, count, seed=0) -> np.ndarray:
    """A Latin hypercube of ``count`` variants between ``bounds``: (count, k) offsets.

    Parameters
    ----------
    bounds : (k, 2) lower and upper offset of each coordinate, SI
    count : int, number of variants (at most :data:`MAX_VARIANTS`)
    seed : int >= 0, or None for fresh randomness

    Each coordinate's range is cut into ``count`` equal strata, each holding exactly one
    variant (uniform within it); the strata are paired at random across coordinates. The
    draws are those of :class:`scipy.stats.qmc.LatinHypercube` (scrambled, strength 1) given
    ``default_rng(seed)``, written out here because importing :mod:`scipy.stats` took a study
    command about 0.7 s: scipy draws from the first child of the seed's sequence, a jitter
    ``u`` (count, k) and then one shuffle of the strata ``1..count`` per coordinate; the unit
    sample is ``(stratum - u) / count``.
    """
    bounds = _bounds(bounds)
    count = _count(count)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(_seed(seed)).spawn(1)[0]))
    jitter = rng.uniform(size=(count, len(bounds)))
    strata = np.tile(np.arange(1, count + 1), (len(bounds), 1))
    for column in strata:
        rng.shuffle(column)
    unit = (strata.T - jitter) / count
    return bounds[:, 0] + unit * (bounds[:, 1] - bounds[:, 0])


def monte_carlo(spread, count, distribution="normal", seed=0) -> np.ndarray:
    """Independent random offsets, a tolerance stack-up: (count, k) offsets.

    Parameters
    ----------
    spread : (k,) positive tolerance +-spread of each coordinate, SI
    count : int, number of variants (at most :data:`MAX_VARIANTS`)
    distribution : "normal" or "uniform", or one of them per coordinate (k,).
        "normal": +-spread is 3 standard deviations (sigma = spread / 3), not truncated
        (about 0.27 % of the offsets fall outside); "uniform": +-spread is the half width.
    seed : int >= 0, or None for fresh randomness
    """
    from scipy.special import ndtri  # noqa: PLC0415

    try:
        arr = np.array(spread, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ModelError("spread", f"expected numbers, got {check_arg.shown(spread)}") from None
    if arr.ndim != 1 or not len(arr):
        raise ModelError("spread", f"expected one spread per coordinate, shape (k,), got shape {arr.shape}")
    bad = np.flatnonzero(~(np.isfinite(arr) & (arr > 0)))
    if len(bad):
        raise ModelError(f"spread[{bad[0]}]", f"expected a positive finite spread, got {arr[bad[0]]!r}")
    kinds = [distribution] * len(arr) if isinstance(distribution, str) else list(distribution)
    if len(kinds) != len(arr):
        raise ModelError("distribution", f"expected one distribution or {len(arr)} (one per coordinate), got "
                         f"{len(kinds)}")
    for j, kind in enumerate(kinds):
        if kind not in DISTRIBUTIONS:
            raise ModelError("distribution" if isinstance(distribution, str) else f"distribution[{j}]",
                             f"expected one of {', '.join(DISTRIBUTIONS)}, got {check_arg.shown(kind)}")
    count = _count(count)
    # One uniform draw per offset, mapped through each column's inverse distribution: a
    # column's offsets depend on the seed and the column only. 2^-54 keeps ndtri finite.
    unit = _rng(seed).random((count, len(arr)))
    out = np.empty_like(unit)
    for j, kind in enumerate(kinds):
        if kind == "normal":
            out[:, j] = arr[j] / 3.0 * ndtri(np.maximum(unit[:, j], 2.0 ** -54))
        else:
            out[:, j] = arr[j] * (2.0 * unit[:, j] - 1.0)
    return out


# ------------------------------------------------------------------------ vary files
_TOP = ("design", "variants", "levels", "seed", "vary", "offsets")
_USES = {"factorial": ("levels", "vary"), "latin-hypercube": ("variants", "seed", "vary"),
         "monte-carlo": ("variants", "seed", "vary"), "offsets": ("offsets",)}
_ENTRY = {"factorial": ("hardpoint", "range"), "latin-hypercube": ("hardpoint", "range"),
          "monte-carlo": ("hardpoint", "spread", "distribution")}


def _snapshot(model):
    """The model snapshot of a Mechanism, a Suspension (its ``model``) or a snapshot."""
    if callable(getattr(model, "snapshot", None)):
        return model.snapshot()
    return getattr(model, "model", model)


def read_vary(path, model):
    """The design of a vary file (see the module docstring) for ``model``: ``(names, offsets)``.

    Parameters
    ----------
    path : str or path-like, the vary file (TOML)
    model : Mechanism, Suspension or model snapshot; its units (``model.units``, the model
        file's) are the vary file's: ranges and spreads of locations in its length unit,
        of axis components as changes of the unit direction (no unit)

    Returns
    -------
    names : list of str, the varied coordinates (``"lower_ball.x"``), k
    offsets : (V, k) their offsets from the nominal, SI

    Raises
    ------
    ModelError
        One line naming the file, the table and the key.
    """
    from mechanism.model_file import read_toml  # noqa: PLC0415

    data, reader = read_toml(path, "vary file")
    snapshot = _snapshot(model)
    # the model file's units: a Suspension's own (an axle mirrored from a corner file is built
    # in SI, its file's units are the Suspension's), a Mechanism's or a snapshot's
    units = getattr(model, "units", None) or snapshot.units
    for key in data:
        if key not in _TOP:
            kind = "table" if isinstance(data[key], (dict, list)) else "key"
            reader.fail(None, key, f"unknown {kind}{reader.suggest(key, _TOP)} (expected {', '.join(_TOP)})")
    if "design" not in data:
        reader.fail(None, "design", f"missing required key (one of {', '.join(DESIGNS)})")
    design = data["design"]
    if not isinstance(design, str) or design not in DESIGNS:
        reader.fail(None, "design", f"unknown design {check_arg.shown(design)}"
                    f"{reader.suggest(design, DESIGNS) if isinstance(design, str) else ''} "
                    f"(expected {', '.join(DESIGNS)})")
    uses = _USES[design]
    for key in data:
        if key not in ("design",) + uses:
            reader.fail(None, key, f"not used by design = {design!r} (it takes {', '.join(uses)})")
    for key in uses:
        if key != "seed" and key not in data:
            reader.fail(None, key, f"missing required key (design = {design!r} takes {', '.join(uses)})")
    if design == "offsets":
        return _explicit(data["offsets"], reader, snapshot, units)
    names, values = _entries(data["vary"], reader, snapshot, units, design)
    try:
        if design == "factorial":
            table = full_factorial(values, data["levels"])
        elif design == "latin-hypercube":
            table = latin_hypercube(values, data["variants"], data.get("seed", 0))
        else:
            spread, kinds = zip(*values)
            table = monte_carlo(spread, data["variants"], list(kinds), data.get("seed", 0))
    except ModelError as exc:  # levels, variants, seed: the file's keys are the functions' names
        reader.fail(None, exc.where if exc.where in _TOP else None, exc.problem)
    return names, table


def _array_of_tables(raw, reader, key, what):
    if not isinstance(raw, list) or not raw or not all(isinstance(entry, dict) for entry in raw):
        reader.fail(None, key, f"expected one or more [[{key}]] tables ({what})")
    return raw


def _coordinates_of(snapshot, name, reader, place, key):
    """The coordinates one name stands for (one, or three for a hardpoint), located."""
    try:
        return parameters(snapshot, [name], where="")
    except ModelError as exc:
        reader.fail(place, key, exc.problem)


def _si(value, coordinate, units):
    """A vary file's offset in SI: a length, an axis component as given, a bushing rate's
    stiffness (N/mm, N mm/deg in a mm/deg file)."""
    if isinstance(coordinate, BushingRate):
        return units.to_si(value, coordinate.dimension)
    return value if coordinate.dimension == "direction" else units.to_si(value, "length")


def _scale_check(reader, place, key, coords, largest, snapshot, units):
    """An offset larger than the model itself is a length in the wrong unit."""
    from ..suspension.corner import model_size  # noqa: PLC0415

    if coords[0].dimension != "length":  # an axis component, a bushing rate: no length
        return
    size = model_size(snapshot)
    if math.isfinite(size) and units.to_si(largest, "length") > size:
        reader.fail(place, key, f"an offset of {largest:g} {units.length} is larger than the model "
                    f"({size * units.factor('length'):.6g} {units.length} between its farthest hardpoints): is it "
                    f"in the wrong unit? (the model file's length unit is {units.length})")


def _entries(raw, reader, snapshot, units, design):
    """``(names, values)``: the coordinates of the [[vary]] tables and per coordinate the
    (lower, upper) SI bounds, or the (spread SI, distribution)."""
    keys = _ENTRY[design]
    entries = _array_of_tables(raw, reader, "vary", "hardpoint = NAME and " + (
        "spread = TOLERANCE" if design == "monte-carlo" else "range = [LOWER, UPPER]"))
    names, values, seen = [], [], {}
    for index, entry in enumerate(entries):
        hardpoint = entry.get("hardpoint")
        place = reader.place("vary", index, hardpoint)
        for key in entry:
            if key not in keys:
                other = [d for d, ks in _ENTRY.items() if key in ks]
                why = (f"used by design = {other[0]!r}, not {design!r}" if other else
                       f"unknown key{reader.suggest(key, keys)}")
                reader.fail(place, key, f"{why} (expected {', '.join(keys)})")
        for key in keys:
            if key not in entry and key != "distribution":
                reader.fail(place, key, "missing required key")
        if not isinstance(hardpoint, str):
            reader.fail(place, "hardpoint", f"expected a hardpoint name such as 'lower_ball' or 'lower_ball.z', got "
                        f"{check_arg.shown(hardpoint)}")
        coords = _coordinates_of(snapshot, hardpoint, reader, place, "hardpoint")
        for c in coords:
            if c.name in seen:
                reader.fail(place, "hardpoint", f"coordinate {c.name!r} is already varied by "
                            f"{reader.place('vary', seen[c.name], entries[seen[c.name]].get('hardpoint'))}")
            seen[c.name] = index
        if design == "monte-carlo":
            spread = check_arg.number(entry["spread"], f"{reader.file}: {place}: spread", positive=True)
            _scale_check(reader, place, "spread", coords, spread, snapshot, units)
            kind = entry.get("distribution", "normal")
            if not isinstance(kind, str) or kind not in DISTRIBUTIONS:
                reader.fail(place, "distribution", f"expected one of {', '.join(DISTRIBUTIONS)}, got "
                            f"{check_arg.shown(kind)}")
            row = [(_si(spread, c, units), kind) for c in coords]
        else:
            bounds = entry["range"]
            if not isinstance(bounds, list) or len(bounds) != 2:
                reader.fail(place, "range", f"expected [lower, upper] offsets ({units.length}), got "
                            f"{check_arg.shown(bounds)}")
            low, high = (check_arg.number(b, f"{reader.file}: {place}: range") for b in bounds)
            if not low < high:
                reader.fail(place, "range", f"the lower bound must be below the upper one, got {bounds}")
            _scale_check(reader, place, "range", coords, max(abs(low), abs(high)), snapshot, units)
            row = [(_si(low, c, units), _si(high, c, units)) for c in coords]
        names += [c.name for c in coords]
        values += row
    return names, values


def _explicit(raw, reader, snapshot, units):
    """``design = "offsets"``: one [[offsets]] table per variant."""
    tables = _array_of_tables(raw, reader, "offsets", "one per variant, coordinate = offset")
    if len(tables) > MAX_VARIANTS:
        reader.fail(None, "offsets", f"{len(tables):,} variants, more than the {MAX_VARIANTS:,} a design may hold")
    column, known = {}, {}  # coordinate -> (column, key naming it); key -> its coordinates
    rows = []
    for index, table in enumerate(tables):
        place = reader.place("offsets", index)
        row = {}
        for name, value in table.items():
            if name not in known:
                known[name] = _coordinates_of(snapshot, name, reader, place, name)
                for c in known[name]:
                    if c.name in column:
                        reader.fail(place, name, f"{name!r} includes {c.name!r}, which is also given as "
                                    f"{column[c.name][1]!r}: name each coordinate one way")
                    column[c.name] = (len(column), name)
            coords = known[name]
            numbers_ = value if isinstance(value, list) else [value]
            if len(coords) != len(numbers_) or (len(coords) == 1 and isinstance(value, list)):
                want = "one number" if len(coords) == 1 else f"{len(coords)} numbers (x, y, z)"
                reader.fail(place, name, f"expected {want}, got {check_arg.shown(value)}")
            for c, number in zip(coords, numbers_):
                number = check_arg.number(number, f"{reader.file}: {place}: {name}")
                row[c.name] = _si(number, c, units)
        rows.append(row)
    names = list(column)
    table = np.zeros((len(rows), len(names)))
    for i, row in enumerate(rows):
        for name, value in row.items():
            table[i, column[name][0]] = value
    return names, offsets(table)
