"""A first simulation compiles on both cores (:mod:`dynamics.warm`): when a second process runs,
what this one compiles meanwhile is exactly what the run then calls, and the second process
starts only where it can help."""

import importlib
import os
from pathlib import Path

import numba
import numpy as np
import pytest

from dynamics import simulate, warm
from dynamics.kernels import integrate as integrate_kernels
from mechanism import load_model

JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
simulate_module = importlib.import_module("dynamics.simulate")  # the package exports the function
FOUR_BAR = Path(__file__).resolve().parent.parent / "examples" / "four_bar.toml"


@pytest.mark.skipif(not JIT, reason="no compiling without the JIT")
def test_the_kernels_compiled_before_the_walk_are_the_ones_the_run_calls(monkeypatch):
    """The argument types the integrator's kernels are compiled for while the second process
    walks (built from the block at the design pose, before the walk) are those of the calls the
    run makes: a mismatch would compile the kernel a second time."""
    monkeypatch.setattr(warm, "cold", lambda: True)
    monkeypatch.setattr(warm, "start", lambda: True)  # no second process here: the cache is warm
    monkeypatch.setattr(warm, "wait", lambda: None)
    compiled, called = {}, {}
    real = simulate_module.SimulationRun.compile_kernels

    def compile_then_watch(run):
        for kernel, signature in real(run):
            compiled[kernel.py_func.__name__] = signature
        for name in ("evaluate_at", "record", "integrate"):
            kernel = getattr(integrate_kernels, name)

            def watched(*arguments, _kernel=kernel, _name=name):
                called.setdefault(_name, tuple(numba.typeof(a) for a in arguments))
                return _kernel(*arguments)

            monkeypatch.setattr(integrate_kernels, name, watched)

    monkeypatch.setattr(simulate_module.SimulationRun, "compile_kernels", compile_then_watch)
    simulate(load_model(FOUR_BAR), t_end=0.05, q0={"A": 0.3}, t_eval=np.linspace(0.0, 0.05, 6))
    assert set(called) == {"evaluate_at", "record", "integrate"}
    assert {"copy_factor", "curvature_at"} <= set(compiled)
    for name, signature in called.items():
        assert compiled[name] == signature, name


def test_no_second_process_on_one_core_or_when_disabled(monkeypatch):
    started = []
    monkeypatch.setattr(warm, "_process", None)
    monkeypatch.setattr(warm.subprocess, "Popen", lambda *a, **k: started.append(a) or object())
    monkeypatch.setattr(warm.os, "cpu_count", lambda: 1)
    assert not warm.start()
    monkeypatch.setattr(warm.os, "cpu_count", lambda: 2)
    monkeypatch.setenv(warm.DISABLE, "1")
    assert not warm.start()
    assert not started
    monkeypatch.delenv(warm.DISABLE)
    assert warm.start() and len(started) == 1
    assert not warm.start()  # one per process
    assert len(started) == 1


def test_a_first_simulation_is_told_by_the_missing_integrator_in_the_cache(monkeypatch, tmp_path):
    if not JIT:
        assert not warm.cold()
        return
    index = integrate_kernels.integrate._cache._cache_file._index_path
    assert warm.cold() == (not os.path.exists(index))
    monkeypatch.setattr(integrate_kernels.integrate._cache._cache_file, "_index_path", str(tmp_path / "none.nbi"))
    assert warm.cold()
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert not warm.cold()


def test_the_second_process_walks_a_four_bar():
    """What the second process runs (in this process here): a closed start and a walk."""
    warm.walk_four_bar()


@pytest.mark.parametrize("cores, disabled, compiled_first", [(1, False, False), (1, True, True), (2, True, True)])
def test_with_the_second_process_disabled_the_integrator_compiles_first(monkeypatch, cores, disabled, compiled_first):
    """DISABLE set (the test command's compile phase: another process compiles the walk's
    kernels): a first simulation compiles the integrator's kernels before it walks, and starts
    no process; on one core without it, the walk goes first."""
    order = []
    monkeypatch.setattr(warm, "_process", None)
    monkeypatch.setattr(warm, "cold", lambda: True)
    monkeypatch.setattr(warm.subprocess, "Popen", lambda *a, **k: order.append("process") or object())
    monkeypatch.setattr(warm.os, "cpu_count", lambda: cores)
    if disabled:
        monkeypatch.setenv(warm.DISABLE, "1")
    else:
        monkeypatch.delenv(warm.DISABLE, raising=False)
    monkeypatch.setattr(simulate_module.SimulationRun, "compile_kernels", lambda run: order.append("compile") or [])
    walk_class = importlib.import_module("loops.continuation").Walk
    walk_to = walk_class.to

    def walk(self, *args, **kwargs):
        order.append("walk")
        return walk_to(self, *args, **kwargs)

    monkeypatch.setattr(walk_class, "to", walk)
    simulate(load_model(FOUR_BAR), t_end=0.01, q0={"A": 0.3})
    assert "process" not in order and "walk" in order
    assert ("compile" in order and order.index("compile") < order.index("walk")) == compiled_first, order
