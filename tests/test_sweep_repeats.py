"""A sweep gives the same numbers to the bit whatever swept the model before it.

Every sweep of a model starts from the walk standing on the reference assembly; it walks a
spare walk put back there (loops.continuation.SpareWalks: one copy of a buffer, and the
walk's own attributes as they were, for a walk whose square block was chosen anew on the
way), never the reference walk itself. So a sweep after another, after one that chose its
rows anew (a Bennett loop), after one that stopped part-way, or at the same time in another
thread (the kernels release the GIL) gives what the first sweep gave, bit for bit.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from core_models import bennett, four_bar, four_bar_rocker_limits
from mechanism import SweepStopped

import loops.continuation


def _bits(result):
    """Every number of a sweep's record, as bytes: variables, rates and link poses."""
    names = result.variable_names
    arrays = [getattr(result, kind)(name) for kind in ("q", "q_dot", "q_ddot") for name in names]
    arrays += [result.pose(link) for link in result.system.link_names if link != "ground"]
    return b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)


def test_a_sweep_after_one_that_chose_its_rows_anew_gives_the_first_ones_numbers():
    # The Bennett loop's rows are chosen anew on a turn (its block leaves three redundant rows
    # out): the walk then holds another block and factorization, which the next sweep must not see.
    model = bennett()
    chosen = []
    original = loops.continuation.Walk.rechoose_rows

    def spy(walk):
        chosen.append(original(walk))
        return chosen[-1]

    drivers, speeds = {"J1": np.linspace(0.0, 2 * np.pi, 121)}, {"J1": 1.5}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loops.continuation.Walk, "rechoose_rows", spy)
        first = _bits(model.sweep(drivers, speeds=speeds))
    assert any(chosen)
    assert _bits(model.sweep(drivers, speeds=speeds)) == first
    model.sweep({"J1": np.linspace(0.0, -1.0, 7)})  # elsewhere, shorter
    assert _bits(model.sweep(drivers, speeds=speeds)) == first


def test_a_sweep_after_one_that_stopped_gives_the_first_ones_numbers():
    model = four_bar()
    low, high = four_bar_rocker_limits()
    drivers, speeds = {"D": np.linspace(0.0, 0.9 * high, 31)}, {"D": 1.0}
    first = _bits(model.sweep(drivers, speeds=speeds))
    with pytest.raises(SweepStopped):
        model.sweep({"D": np.linspace(0.0, 1.3 * high, 31)}, speeds=speeds)
    assert _bits(model.sweep(drivers, speeds=speeds)) == first


def test_sweeps_at_the_same_time_in_threads_give_the_first_ones_numbers():
    model = four_bar()
    drivers = {"A": np.linspace(0.0, 2 * np.pi, 721)}
    first = _bits(model.sweep(drivers, speeds={"A": 2.0}))
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: _bits(model.sweep(drivers, speeds={"A": 2.0})), range(8)))
    assert all(bits == first for bits in results)
