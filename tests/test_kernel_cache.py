"""The care of the kernels' disk cache (:mod:`loops.kernels._compile`): stale kernels are deleted
where numba keeps them, ``NUMBA_CACHE_DIR`` included."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = """
import pathlib, sys
import numpy as np
from loops.kernels import _compile
from dynamics.kernels.motion import solve_dense
from loops.kernels.rotations import cross
cross(np.ones(3), np.arange(3.0), np.zeros(3))
solve_dense(np.eye(2), np.ones(2), np.zeros(2))
cached = [sorted(p.name for p in d.glob('*.nbi')) for d in _compile._cache_directories()]
assert all(cached), cached  # both kernel directories hold cached kernels where the refresh looks
for directory in _compile._cache_directories():
    (directory / _compile._STAMP).write_text('another version')
_compile._refresh_cache()
left = [sorted(p.name for p in d.glob('*.nb[ic]')) for d in _compile._cache_directories()]
assert not any(left), left
print('ok')
"""


LOADING = """
import sys
import numpy as np
from dynamics.kernels.motion import solve_dense
from loops.kernels.rotations import cross
out = np.zeros(3)
cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), out)
x = np.zeros(2)
solve_dense(np.array([[4.0, 1.0], [2.0, 3.0]]), np.array([1.0, 2.0]), x)
print(out.tolist(), x.tolist(), 'numba.np.arraymath' in sys.modules)
"""


def jit_off():
    return os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


@pytest.fixture(scope="module")
def compiled_into_empty_cache(tmp_path_factory):
    """LOADING run once with an empty ``NUMBA_CACHE_DIR`` of its own, which it fills (it compiles
    ``cross`` and ``solve_dense``): ``(CompletedProcess, cache folder)``. Its tests share an
    ``xdist_group``, so that one worker compiles."""
    if jit_off():
        pytest.skip("no cache without the JIT")
    cache = tmp_path_factory.mktemp("numba_cache")
    return subprocess.run([sys.executable, "-c", LOADING], cwd=ROOT, env=dict(os.environ, NUMBA_CACHE_DIR=str(cache)),
                          capture_output=True, text=True, timeout=600), cache


@pytest.mark.xdist_group("kernel-cache")
def test_kernels_of_another_version_are_deleted_under_numba_cache_dir(tmp_path, compiled_into_empty_cache):
    """With ``NUMBA_CACHE_DIR`` set, numba keeps the cache in a directory named for each source
    directory and a hash of its path; a changed digest deletes the kernels there. The cache: a
    copy of the one LOADING filled (the same kernels; PROGRAM loads them)."""
    filled, cache = compiled_into_empty_cache
    assert filled.returncode == 0, filled.stderr[-2000:]
    shutil.copytree(cache, tmp_path, dirs_exist_ok=True)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "ok"


def test_a_kernel_only_kernel_runs_from_python_through_a_twin_cached_apart():
    """An ``internal_kernel`` is compiled without numba's CPython wrapper (a call from Python would
    crash); called from Python it runs a twin of the same function compiled with the wrapper,
    whose cache entry is its own (had the two shared one, either could load the other's code)."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        pytest.skip("plain Python functions without the JIT")
    import numpy as np

    from dynamics.kernels.motion import solve_dense

    assert solve_dense.targetoptions["no_cpython_wrapper"] is True
    M = np.array([[4.0, 1.0], [2.0, 3.0]])
    x = np.zeros(2)
    assert solve_dense(M.copy(), np.array([1.0, 2.0]), x)
    np.testing.assert_allclose(M @ x, [1.0, 2.0], rtol=0, atol=1e-15)  # a 2x2 elimination: round-off
    twin = solve_dense.__dict__["_from_python"]
    assert twin.py_func.__qualname__ == "solve_dense.from_python"
    assert twin.py_func.__code__ is solve_dense.py_func.__code__
    assert "no_cpython_wrapper" not in twin.targetoptions
    assert twin._cache._cache_file._index_path != solve_dense._cache._cache_file._index_path


#: A first run in small: three kernels called from Python (one calling another), printing their
#: results. The damaged-cache test runs it three times in a new process, as a user's command
#: would be; the cache's care is the same for every kernel, and a whole command (``kinematrix
#: check``) compiles for ten times as long.
FIRST_RUN = """
import numpy as np
from loops.kernels.rotations import exp_so3, log_so3, rotate_left
rotation, vector, scratch = np.empty((3, 3)), np.empty(3), np.empty((2, 3, 3))
exp_so3(np.array([0.1, 0.2, 0.3]), rotation)
rotate_left(np.array([0.0, 0.0, 0.2]), rotation, scratch[0], scratch[1])
log_so3(rotation, vector)
print(np.round(rotation, 12).tolist(), np.round(vector, 12).tolist())
"""


def test_a_damaged_cache_file_is_compiled_anew_not_a_traceback_every_run(tmp_path):
    """One cache file cut short (a full disk, a process killed while writing) leaves the package's
    digest matching, so nothing deletes it: the kernel whose index or data it is must be compiled
    anew (and cached again) rather than fail to unpickle in every later run (issue 24)."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        pytest.skip("no cache without the JIT")
    command = [sys.executable, "-c", FIRST_RUN]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-2000:]
    assert first.stderr.count("compiling kernels") == 1, first.stderr[-2000:]  # an empty cache: said once
    data = sorted(tmp_path.rglob("*.nbc"), key=lambda p: p.stat().st_size)
    index = sorted(tmp_path.rglob("*.nbi"), key=lambda p: p.stat().st_size)
    assert data and index, "the first run cached no kernel"
    damaged = {data[-1]: data[-1].read_bytes(), index[-1]: index[-1].read_bytes()}
    for path, content in damaged.items():
        path.write_bytes(content[:len(content) // 2])
    for run in range(2):  # the damaged files are rebuilt (and said so), then loaded like any other
        again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        assert again.returncode == 0, again.stderr[-2000:]
        assert "Traceback" not in again.stderr and "Unpickl" not in again.stderr, again.stderr[-2000:]
        assert ("compiling kernels" in again.stderr) == (run == 0), again.stderr[-2000:]
        assert again.stdout == first.stdout
    for path, content in damaged.items():
        assert path.exists() and path.stat().st_size > len(content) // 2, path


@pytest.mark.xdist_group("kernel-cache")
def test_cached_kernels_load_without_numbas_compiler(compiled_into_empty_cache):
    """A process whose kernels are all cached loads their machine code without importing the
    implementations numba compiles from (``numba.np.arraymath`` and the rest of its target's
    registries: a third of a warm command's time); the kernels give the same numbers as when
    they were compiled."""
    compiled, cache = compiled_into_empty_cache
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    runs = [compiled, subprocess.run([sys.executable, "-c", LOADING], cwd=ROOT, env=env, capture_output=True,
                                     text=True, timeout=600)]
    assert all(run.returncode == 0 for run in runs), [run.stderr[-2000:] for run in runs]
    compiled, loaded = (run.stdout.strip().rsplit(" ", 1) for run in runs)
    assert compiled == ["[0.0, 0.0, 1.0] [0.1, 0.6]", "True"]  # compiling loads the compiler
    assert loaded == ["[0.0, 0.0, 1.0] [0.1, 0.6]", "False"]
