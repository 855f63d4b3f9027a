"""Compiled kernels shipped to Dask workers (loops.kernel_shipping): a new worker loads them.

A study on a local cluster whose worker process has an empty ``NUMBA_CACHE_DIR`` of its own
equals the local study to the bit, and the worker loaded every kernel it ran from its cache
(numba's cache statistics: hits, no misses, so no compile). The rest writes the shipped
entries in fresh processes with an empty cache of their own and calls no kernel (nothing
compiles): what is written, and what is not where the worker's kernel sources, numba or Python
differ, where its cache has the entries already, where it has loaded the kernel, and where a
numba without the private names the module uses fails part-way (the worker then compiles,
as before; nothing raises).
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.serialize import dumps

import loops.kernel_shipping as shipping
from loops.study.coordinates import parameters
from loops.study.study import Plan, run_chunk, run_study
from loops.suspension import load_suspension

pytestmark = pytest.mark.filterwarnings("ignore:Port .* is already in use")
ROOT = Path(__file__).resolve().parents[1]
COORDS = ["lower_ball", "upper_ball.z"]
PLAN = Plan(analysis="parallel", travel=np.linspace(-0.08, 0.08, 9))
WALK = "loops.kernels.variants.walk_variants"

#: Run in a fresh process: a numba private name replaced by one that raises (argv[1], unless
#: "-"), then install the shipped bytes of each file argv[2:] twice, printing what was written:
#: one line per file.
INSTALL = """
import json, sys
from numba.core.caching import IndexDataCacheFile
from loops.kernel_shipping import install_kernels
def broken(*args, **kwargs):
    raise AttributeError("numba changed")
if sys.argv[1] != "-":
    setattr(IndexDataCacheFile, sys.argv[1], broken)
for path in sys.argv[2:]:
    shipped = open(path, "rb").read()
    print(json.dumps([install_kernels(shipped), install_kernels(shipped)]))
"""


@pytest.fixture(scope="module")
def corner():
    return load_suspension(ROOT / "examples" / "double_wishbone.toml")


@pytest.fixture(scope="module")
def shipped(corner):
    """What this process ships once it has walked a variant of the corner (the study's nominal)."""
    run_chunk(corner, parameters(corner.model, COORDS), np.zeros((1, 4)), PLAN)
    out = shipping.kernels_to_ship()
    assert out is not None
    return out


def install(tmp_path, shipped, *broken, cache="cache", env=None):
    """Install ``shipped`` (twice) in a fresh process whose NUMBA_CACHE_DIR is ``tmp_path /
    cache``: ``(written by the first call, by the second)``."""
    (written,) = install_each(tmp_path, [shipped], *broken, cache=cache, env=env)
    return written


def install_each(tmp_path, bundles, *broken, cache="cache", env=None):
    """Install each of ``bundles`` (twice, one after the other) in one fresh process whose
    NUMBA_CACHE_DIR is ``tmp_path / cache``: per bundle, ``(written by the first call, by the
    second)``."""
    paths = []
    for number, shipped in enumerate(bundles):
        paths.append(tmp_path / f"shipped-{number}.bin")
        paths[-1].write_bytes(shipped)
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / cache), PYTHONPATH=str(ROOT))
    environment.pop("NUMBA_DISABLE_JIT", None)
    environment.update(env or {})
    done = subprocess.run([sys.executable, "-c", INSTALL, *(broken or ["-"]), *map(str, paths)], env=environment,
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "compiling" not in done.stderr, done.stderr
    return [tuple(json.loads(line)) for line in done.stdout.splitlines()]


def indexes(directory):
    return sorted(p.name for p in Path(directory).rglob("*.nbi"))


def retamper(shipped, change):
    """``shipped`` with ``change(layout, versions, kernels)`` applied, pickled as numba does."""
    layout, versions, kernels = pickle.loads(shipped)
    return dumps(change(layout, versions, [list(k) for k in kernels]))


@pytest.mark.xdist_group("dask-cluster")  # in the worker that runs tests/test_study_cluster.py's clusters
def test_a_new_worker_loads_the_shipped_kernels_and_its_study_is_the_local_one(corner, shipped, tmp_path, distributed):
    """One worker process, one thread, an empty NUMBA_CACHE_DIR of its own: the study through the
    scheduler equals the local study to the bit, and the worker compiled nothing (every kernel it
    called came from its cache, which held none before the study)."""
    offsets = np.random.default_rng(5).normal(scale=0.003, size=(12, 4))
    local = run_study(corner, COORDS, offsets, PLAN, chunk_size=6)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR, env={"NUMBA_CACHE_DIR": str(tmp_path)}) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        assert list(client.run(_cache_directory).values()) == [str(tmp_path)]
        assert indexes(tmp_path) == []
        remote = run_study(corner, COORDS, offsets, PLAN, chunk_size=6, scheduler=cluster.scheduler_address)
        (stats,) = client.run(_kernel_stats).values()
    for name, (dimension, values) in local.metrics.items():
        assert remote.metrics[name][0] == dimension
        assert np.array_equal(remote.metrics[name][1], values, equal_nan=True), name
    assert remote.reasons == local.reasons
    assert stats[WALK][0] >= 1, stats
    assert {name: misses for name, (_, misses) in stats.items() if misses} == {}, "the worker compiled"
    assert indexes(tmp_path)


def _cache_directory():
    import numba  # noqa: PLC0415 (on the worker)

    return numba.config.CACHE_DIR


def _kernel_stats():
    """On a worker: ``{module.name: (cache hits, cache misses)}`` of every kernel it has loaded."""
    from numba.core.dispatcher import Dispatcher  # noqa: PLC0415

    out = {}
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("loops.kernels."):
            for name, value in list(vars(module).items()):
                if isinstance(value, Dispatcher) and value.overloads and value.py_func.__module__ == module_name:
                    stats = value.stats
                    out[f"{module_name}.{name}"] = (sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
    return out


def test_a_fresh_process_writes_what_is_shipped_once(shipped, tmp_path):
    """The walk and the kernels beside it, into the empty cache, once: the second call with the same
    bytes writes nothing (once per process), and a second process finds the entries (nothing again)."""
    first, again = install(tmp_path, shipped)
    assert WALK in first and again == []
    names = indexes(tmp_path)
    assert "variants.walk_variants-" in " ".join(names)
    assert install(tmp_path, shipped) == ([], [])
    assert indexes(tmp_path) == names


def test_once_per_process(shipped, tmp_path, monkeypatch):
    """The second call of a process with the same bytes does not read the caches again."""
    calls = []
    monkeypatch.setattr(shipping, "_INSTALLED", set())
    monkeypatch.setattr(shipping, "_install_one", lambda *args: calls.append(args[:2]) or 0)
    shipping.install_kernels(shipped)
    count = len(calls)
    assert count >= 1
    shipping.install_kernels(shipped)
    assert len(calls) == count


def test_other_kernel_sources_compile(shipped, tmp_path):
    """A kernel whose package's digest differs from the sender's (other sources, another numba) is
    not written; the others are."""
    def other_walk(layout, versions, kernels):
        for kernel in kernels:
            if f"{kernel[0]}.{kernel[1]}" == WALK:
                kernel[2] = "0" * 64
        return layout, versions, kernels

    first, _ = install(tmp_path, retamper(shipped, other_walk))
    assert first and WALK not in first
    assert "variants.walk_variants-" not in " ".join(indexes(tmp_path))


OTHER_VERSIONS = {"python": ((3, 1), None, None), "numba": (None, "0.1.0", None), "llvmlite": (None, None, "0.1.0")}


@pytest.fixture(scope="module")
def installed_from_other_versions(shipped, tmp_path_factory):
    """The bytes of a sender of another Python, numba or llvmlite (OTHER_VERSIONS), installed one
    after the other in one fresh process with an empty cache: ``({name: written}, cache folder)``
    (the tests of each share an xdist_group, so that one worker runs it)."""
    def other(versions):
        def change(layout, sender, kernels):
            return layout, tuple(mine if mine is not None else theirs for mine, theirs in zip(versions, sender)), \
                kernels
        return change

    folder = tmp_path_factory.mktemp("other_versions")
    written = install_each(folder, [retamper(shipped, other(versions)) for versions in OTHER_VERSIONS.values()])
    return dict(zip(OTHER_VERSIONS, written)), folder


@pytest.mark.parametrize("name", list(OTHER_VERSIONS))
@pytest.mark.xdist_group("kernel-shipping-versions")
def test_another_python_numba_or_llvmlite_compiles(installed_from_other_versions, name):
    written, folder = installed_from_other_versions
    assert written[name] == ([], [])
    assert indexes(folder) == []


def test_an_entry_the_cache_holds_under_another_key_keeps_its_file(shipped, tmp_path):
    """The worker's cache has an entry of another key (another CPU, another signature) in the file
    the sender's index names: the shipped entry takes another file, and both stay in the index."""
    def other_key(layout, versions, kernels):
        for kernel in kernels:
            kernel[3] = [((key[0], key[1], ("another", "bytecode")), data) for key, data in kernel[3]]
        return layout, versions, kernels

    assert WALK in install(tmp_path, retamper(shipped, other_key))[0]
    assert WALK in install(tmp_path, shipped)[0]
    walk_index = next(Path(tmp_path).rglob("variants.walk_variants-*.nbi"))
    assert len(list(walk_index.parent.glob("variants.walk_variants-*.nbc"))) == 2


def test_a_kernel_this_process_has_loaded_is_not_written(shipped, monkeypatch):
    """This process has loaded every shipped kernel: nothing is read or written, even where its
    cache would lack the entries."""
    writes = []
    monkeypatch.setattr(shipping, "_INSTALLED", set())
    monkeypatch.setattr(IndexDataCacheFile, "_load_index", lambda self: {})
    monkeypatch.setattr(IndexDataCacheFile, "_save_data", lambda self, *args: writes.append(args))
    monkeypatch.setattr(IndexDataCacheFile, "_save_index", lambda self, *args: writes.append(args))
    assert shipping.install_kernels(shipped) == []
    assert writes == []


@pytest.mark.parametrize("name", ["_save_data", "_save_index", "_data_name"])
def test_a_numba_without_the_private_names_compiles(shipped, tmp_path, name):
    """numba changed (a private name raises): nothing is written, nothing raises; the worker compiles."""
    assert install(tmp_path, shipped, name) == ([], [])
    assert indexes(tmp_path) == []


def test_with_the_jit_off_nothing_is_written(shipped, tmp_path):
    assert install(tmp_path, shipped, env={"NUMBA_DISABLE_JIT": "1"}) == ([], [])
    assert indexes(tmp_path) == []


def test_bytes_that_are_not_shipped_kernels_write_nothing(tmp_path):
    assert install_each(tmp_path, [b"not pickled", pickle.dumps(("another-layout", None, []))]) == [([], [])] * 2


def test_a_sender_whose_cache_cannot_be_read_ships_nothing(shipped, monkeypatch):
    """numba changed on the sending side: nothing is shipped (the workers compile), nothing raises."""
    monkeypatch.setattr(FunctionCache, "cache_path", property(lambda self: shipping.no_such_name))
    assert shipping.kernels_to_ship() is None


def test_only_the_loaded_argument_types_are_shipped(shipped):
    """A kernel's cache may hold entries for argument types this process has not met (other
    commands, other machines): they stay behind."""
    for module, name, _, entries in pickle.loads(shipped)[2]:
        loaded = getattr(sys.modules[module], name).overloads
        assert entries and all(key[0] in loaded for key, _ in entries), f"{module}.{name}"


def test_a_process_without_numba_ships_nothing_and_does_not_import_it():
    done = subprocess.run([sys.executable, "-c", "import sys, loops.kernel_shipping as s; "
                           "print(s.kernels_to_ship(), 'numba' in sys.modules)"], cwd=ROOT, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert done.stdout.split() == ["None", "False"], done.stderr
