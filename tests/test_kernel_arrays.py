"""An array as the kernels take it (:func:`loops.kernel_arrays.kernel_array`): float64,
C-contiguous and writable, copied only when it is not; and the callers that hand the kernels a
result's read-only arrays or slices of its stacks go through it (numba compiles a kernel once
per argument type, and a read-only or strided array is a type of its own: each would compile a
second version of a kernel)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from loops import equilibrium
from loops.kernel_arrays import kernel_array
from mechanism import Mechanism

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


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


def _read_only(*arrays):
    out = []
    for a in arrays:
        a = np.array(a, dtype=float)
        a.setflags(write=False)
        out.append(a)
    return out


def test_stacked_maps_of_read_only_or_broadcast_arrays_reach_the_kernels_writable_and_contiguous(monkeypatch):
    """The Python layer's twist maps (:mod:`loops.spatial`) and a pair type's twist rates over
    stacked values, given a result's read-only arrays or arguments that broadcast: the kernels
    get writable, contiguous rows (one compiled version each), and the same values."""
    from loops import spatial
    from loops.kernels import pairs as pair_kernels, stacked
    from mechanism.pairs.hooke import Hooke

    rng = np.random.default_rng(3)
    T = np.tile(np.eye(4), (5, 1, 1))
    T[:, :3, 3] = rng.normal(size=(5, 3))
    a, b, w = rng.normal(size=(5, 6)), rng.normal(size=(5, 6)), 0.3 * rng.normal(size=(5, 3))
    q, q_dot = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    expected = [spatial.transform_twists(T, a), spatial.lie_bracket(a, b[0]), spatial.shift_twists(a, w[0]),
                spatial.dexp_inverse(w, a[:, :3]), pair_kernels.twist_rates(Hooke(), q, q_dot[0])]
    calls = [_spy(monkeypatch, stacked, name)
             for name in ("transform_twist_rows", "lie_bracket_rows", "shift_twist_rows", "dexp_inverse_rows")]
    calls.append(_spy(monkeypatch, pair_kernels, "_twist_rates_each"))
    T, a, b, w, q, q_dot = _read_only(T, a, b, w, q, q_dot)
    got = [spatial.transform_twists(T, a), spatial.lie_bracket(a, b[0]), spatial.shift_twists(a, w[0]),
           spatial.dexp_inverse(w, a[:, :3]), pair_kernels.twist_rates(Hooke(), q, q_dot[0])]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    for seen in calls:
        assert len(seen) == 1 and all(seen[0]), seen


def test_the_kinetic_energy_of_read_only_poses_and_the_rates_along_an_equilibrium_path(monkeypatch):
    """:func:`dynamics.energy.kinetic_energy` of read-only poses and velocities (a result's), and
    the rates along an equilibrium path (:meth:`loops.statics.Equilibrium.along`, from its
    configurations' read-only twists): their kernels get writable, contiguous arrays (same values)."""
    from dynamics.energy import kinetic_energy, link_pseudo_inertias
    from dynamics.kernels import energy
    from loops.kernels import velocity
    from mechanism import load_model

    links = list(_arm().links.values())
    rng = np.random.default_rng(4)
    poses, twists = np.tile(np.eye(4), (2, len(links), 1, 1)), rng.normal(size=(2, len(links), 6))
    J = link_pseudo_inertias(links)
    expected = kinetic_energy(poses, twists, J)
    energy_calls = _spy(monkeypatch, energy, "kinetic_energy")
    np.testing.assert_array_equal(kinetic_energy(*_read_only(poses, twists, J)), expected)
    assert len(energy_calls) == 2 and all(all(call) for call in energy_calls), energy_calls
    path = equilibrium(load_model(EXAMPLES / "four_bar.toml"), drivers={"A": [0.1, 0.2]})
    velocity_calls = _spy(monkeypatch, velocity, "link_velocities")
    assert np.all(np.isfinite(path.along("A").link_velocity("coupler")))
    assert len(velocity_calls) == 2 and all(all(call) for call in velocity_calls), velocity_calls


def test_inverse_dynamics_reactions_and_the_gauge_rows_of_sensitivities_reach_the_kernels_as_they_take_them(
        monkeypatch):
    """The inertia wrenches of an inverse dynamics' reactions (from its read-only velocities and
    accelerations) and the idle spin's gauge rows of a corner's sensitivities (the double
    wishbone's tie rod, read-only gauge axes): their kernels get writable, contiguous arrays."""
    from dynamics import inverse_dynamics
    from dynamics.kernels import kane
    from loops.kernels import rotations
    from loops.study.sensitivity import sensitivities
    from loops.suspension import load_suspension
    from mechanism import load_model

    wrench_calls = _spy(monkeypatch, kane, "inertia_wrench")
    inverse_dynamics(load_model(EXAMPLES / "four_bar.toml"), {"A": [0.1, 0.2]}, speeds={"A": 1.0},
                     method="kane").reactions()
    assert wrench_calls and all(all(call) for call in wrench_calls), wrench_calls
    gauge_calls = _spy(monkeypatch, rotations, "dexp_inverse_transposed_rate")
    sensitivities(load_suspension(EXAMPLES / "double_wishbone.toml"), ["lower_ball.z"], [0.0])
    assert gauge_calls and all(all(call) for call in gauge_calls), gauge_calls
