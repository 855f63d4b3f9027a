"""An array as the kernels take it (:func:`loops.kernel_arrays.kernel_array`): float64,
C-contiguous and writable, copied only when it is not; and the callers that hand the kernels a
result's read-only arrays or slices of its stacks go through it (numba compiles a kernel once
per argument type, and a read-only or strided array is a type of its own: each would compile a
second version of a kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from loops import equilibrium
from loops.kernel_arrays import kernel_array
from mechanism import Mechanism


def test_an_array_already_as_the_kernels_take_it_is_not_copied():
    a = np.arange(12.0).reshape(3, 4)
    assert kernel_array(a) is a
    reshaped = kernel_array(a, (4, 3))
    assert reshaped.shape == (4, 3) and np.shares_memory(reshaped, a)


@pytest.mark.parametrize("case", ["read-only", "strided", "integer", "list"])
def test_anything_else_becomes_a_writable_contiguous_float_copy(case):
    source = np.arange(24.0).reshape(4, 6)
    if case == "read-only":
        given = source.copy()
        given.setflags(write=False)
    elif case == "strided":
        given = source[:, ::2]
    elif case == "integer":
        given = source.astype(int)
    else:
        given = source.tolist()
    got = kernel_array(given)
    assert got.dtype == np.float64 and got.flags.c_contiguous and got.flags.writeable
    np.testing.assert_array_equal(got, np.asarray(given, dtype=float))
    if isinstance(given, np.ndarray):
        assert not np.shares_memory(got, given)


def _arm():
    """tests/test_bushings.py's trailing arm: one link on a bushing, a load at its tip."""
    arm = Mechanism("arm on a bushing")
    arm.add_link("arm")
    arm.add_bushing("bush", "ground", "arm", at=(0, 0, 0), stiffness=(3e5, 2e5, 1e5, 1e3, 2e3, 1.5e3))
    arm.add_point("tip", "arm", at=(0.4, 0, 0))
    arm.add_point_force("load", "arm", at=(0.4, 0, 0), force=(0.0, 0.0, -300.0))
    arm.use_bushings(True)
    return arm


def _spy(monkeypatch, module, name):
    seen = []

    def spy(*args, kernel=getattr(module, name)):
        seen.append([(a.flags.c_contiguous and a.flags.writeable) for a in args if isinstance(a, np.ndarray)])
        return kernel(*args)

    monkeypatch.setattr(module, name, spy)
    return seen


def test_a_results_points_and_reactions_reach_the_kernels_writable_and_contiguous(monkeypatch):
    """An equilibrium's arrays are read-only and a point's link is a slice of its stacks: the
    point and reaction kernels still get writable, contiguous arrays (same values)."""
    from loops.kernels import points, reactions

    at_rest = equilibrium(_arm())
    tip, forces = at_rest.point("tip"), at_rest.reactions().force("bush")
    point_calls = _spy(monkeypatch, points, "point_trajectory")
    reaction_calls = _spy(monkeypatch, reactions, "newton_euler_reactions")
    np.testing.assert_array_equal(at_rest.point("tip"), tip)
    np.testing.assert_array_equal(at_rest.reactions().force("bush"), forces)
    assert len(point_calls) == 1 and all(point_calls[0]), point_calls
    assert len(reaction_calls) == 1 and all(reaction_calls[0]), reaction_calls
