"""The kernels' named states passed by reference (loops.kernels.by_reference): a compiled
kernel reads the same fields, and writes into the same arrays, as the Python named tuple."""

import numba
import numpy as np

from loops.kernels import _compile  # noqa: F401 (registers the states' types, as every kernel does)
from loops.kernels.by_reference import StateReference, pack
from loops.kernels.state import Factor


def _factor():
    return Factor(np.arange(6.0).reshape(2, 3), np.array([1, 0]), np.zeros((2, 1)),
                  np.array([0.5, 0.25, 1.0, 0.0, -1.0]))


@numba.njit
def _read_and_write(factor):
    factor.driven[1, 0] = factor.band[1, 2] + factor.pivots[0]
    return factor.info[1]


@numba.njit
def _packed(band, pivots, driven, info):
    return _read_and_write(pack(Factor, (band, pivots, driven, info)))


def test_a_state_is_typed_by_reference_with_its_fields():
    kind = numba.typeof(_factor())
    assert isinstance(kind, StateReference)
    assert kind.fields == Factor._fields


def test_a_kernel_reads_and_writes_through_the_fields():
    factor = _factor()
    assert _read_and_write(factor) == 0.25
    assert factor.driven[1, 0] == 6.0


def test_a_state_packed_in_a_kernel_holds_its_fields():
    factor = _factor()
    assert _packed(*factor) == 0.25
    assert factor.driven[1, 0] == 6.0
