"""The batched walk kernel (loops.kernels.variants) against the single-model sweep, small
enough to run with the JIT off too (CI runs it both ways): two variants of the double
wishbone through five wheel-travel positions equal separate sweeps of the moved models to
round-off (1e-12 m and rad: both close with a polishing Newton step)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from loops.compiled import compile_model
from loops.variants import sweep_variants
from loops.study.coordinates import coordinates, moved_hardpoints
from loops.variants import VariantGeometry
from mechanism import load_model

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_batched_walk_equals_single_sweeps():
    mechanism = load_model(EXAMPLES / "double_wishbone.toml")
    model = mechanism.snapshot()
    system = compile_model(model)
    coords = coordinates(model, ["upper_ball", "rack_end.z", "upper_inner.axis.y"])
    offsets = np.array([[0.003, -0.002, 0.004, 0.002, 0.01], [-0.004, 0.001, -0.003, -0.003, -0.02]])
    travel = np.linspace(-0.06, 0.06, 5)
    record = sweep_variants(system, VariantGeometry(system, coords), offsets, {"travel": travel}, workers=2)
    assert record.reasons == {} and np.all(record.complete)
    upright = system.link_index["upright"]
    for v in range(2):
        single = mechanism.moved(moved_hardpoints(coords, offsets[v])).sweep({"travel": travel})
        along = single.along("travel")
        assert np.abs(single.q(system.variable_names[0]) - record.q[v][:, 0]).max() < 1e-12
        assert np.abs(single.pose("upright") - record.poses[v][:, upright]).max() < 1e-12
        assert np.abs(along.link_velocity("upright") - record.velocities[v][:, 0, upright]).max() < 1e-12
        assert np.abs(along.link_acceleration("upright") - record.accelerations[v][:, 0, upright]).max() < 1e-11
    assert np.ptp(record.q[:, -1, 0]) > 1e-4  # the variants move differently
