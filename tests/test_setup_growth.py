"""The set-up of a sweep grows linearly in the model's size (issue 25, item 3).

The measure is a ratio of two sizes timed in the same process (no absolute time): the
set-up of the four-bar with 400 free pendulums against that with 100, each the best of
three. Linear growth makes it about 4; the dense factorizations this replaced (an SVD of
``B``, a greedy choice of held freedoms re-projecting every candidate) made it 30 to 60, so
the bound of 12 leaves room for a busy machine and still fails on quadratic growth (16).
``benchmarks/setup.py`` prints the figures themselves.
"""

from __future__ import annotations

import time

import numpy as np

from core_models import pendulums
from loops.compiled import compile_model
from loops.configuration import evaluate
from loops.continuation import Walk
from loops.held import held_freedoms

SMALL, LARGE = 100, 400
BOUND = 12.0


def setup_seconds(count):
    """Best of three: a fresh model's check, held freedoms for its crank and the walk closed at
    its reference assembly (what a sweep does before its first position)."""
    best = np.inf
    for _ in range(3):
        model = pendulums(count)
        start = time.perf_counter()
        model.check()
        system = compile_model(model.snapshot())
        driven = np.array([system.variable_index["A"]], dtype=np.int64)
        held = held_freedoms(system, evaluate(system, system.reference_q()), driven)
        Walk(system, np.r_[driven, held].astype(np.int64))
        best = min(best, time.perf_counter() - start)
    return best


def test_the_set_up_grows_linearly_with_the_model():
    """Four times the pendulums: at most BOUND times the set-up (linear: 4)."""
    setup_seconds(2)  # kernels compiled or loaded
    small, large = setup_seconds(SMALL), setup_seconds(LARGE)
    assert large / small < BOUND, f"ratio {large / small:.1f}; {SMALL}: {small:.3f} s, {LARGE}: {large:.3f} s"
