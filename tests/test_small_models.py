"""A small model's solve layer without scipy.sparse and scipy.linalg (loops/reordering.py,
loops/lapack.py): the same choices as scipy's routines, and a command that imports neither."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse
from scipy.sparse.csgraph import reverse_cuthill_mckee as scipy_rcm

from loops.compiled import compile_model
from loops.configuration import closure_pattern, evaluate
from loops.lapack import geqp3, pivoted_qr
from loops.linear import square_block_at
from loops.reordering import reverse_cuthill_mckee
from mechanism import load_model

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _csr_of_shared_columns(pattern):
    shared = pattern.T @ pattern
    return np.nonzero(shared)[1], np.r_[0, np.cumsum(np.count_nonzero(shared, axis=1))]


def test_reverse_cuthill_mckee_orders_as_scipy_on_random_graphs():
    """Random 0/1 patterns (empty rows and columns, several components, ties of degree): the
    order of the graph of columns that share a row is scipy's, element for element."""
    rng = np.random.default_rng(25)
    for _ in range(600):
        pattern = (rng.random((rng.integers(0, 40), rng.integers(1, 70))) < rng.uniform(0.0, 0.3)).astype(float)
        expected = scipy_rcm((scipy.sparse.csr_matrix(pattern).T @ scipy.sparse.csr_matrix(pattern)).tocsr(),
                             symmetric_mode=True)
        np.testing.assert_array_equal(reverse_cuthill_mckee(*_csr_of_shared_columns(pattern)), expected)


def test_reverse_cuthill_mckee_of_a_path_starts_at_an_end():
    """A path 0 - 1 - 2 - 3 (each node linked to itself): from the end of least degree, reversed."""
    pattern = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]], dtype=float)
    np.testing.assert_array_equal(reverse_cuthill_mckee(*_csr_of_shared_columns(pattern)), [3, 2, 1, 0])


@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (12, 12), (30, 7)])
def test_pivoted_qr_is_scipys_to_the_bit(shape):
    """Full rank, rank deficient and with repeated columns (ties of the pivot's norm): the
    same R and permutation as scipy.linalg.qr, bit for bit."""
    rng = np.random.default_rng(sum(shape))
    full = rng.standard_normal(shape)
    deficient = full[:, :1] @ rng.standard_normal((1, shape[1])) + full[:, 1:2] @ rng.standard_normal((1, shape[1]))
    repeated = np.repeat(full[:, :(shape[1] + 1) // 2], 2, axis=1)[:, :shape[1]]
    for a in (full, deficient, repeated, np.round(full)):
        R, pivots = pivoted_qr(a)
        expected_R, expected_pivots = scipy.linalg.qr(a, mode="economic", pivoting=True)[1:]
        np.testing.assert_array_equal(pivots, expected_pivots)
        np.testing.assert_array_equal(R, expected_R)


def test_pivoted_qr_without_the_wrapper_alone_takes_scipys_public_route(monkeypatch, tmp_path):
    """Where scipy's LAPACK wrapper is not where loops.lapack looks (another layout of scipy),
    the routine comes through scipy.linalg.lapack, with the same factors."""
    import scipy

    monkeypatch.setattr(scipy, "__file__", str(tmp_path / "__init__.py"))
    geqp3.cache_clear()
    try:
        a = np.random.default_rng(7).standard_normal((9, 5))
        R, pivots = pivoted_qr(a)
        expected_R, expected_pivots = scipy.linalg.qr(a, mode="economic", pivoting=True)[1:]
        np.testing.assert_array_equal(pivots, expected_pivots)
        np.testing.assert_array_equal(R, expected_R)
    finally:
        geqp3.cache_clear()


def test_pivoted_qr_of_an_empty_matrix_and_of_nan():
    R, pivots = pivoted_qr(np.zeros((0, 3)))
    assert R.shape == (0, 3) and pivots.tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="infs or NaNs"):
        pivoted_qr(np.array([[1.0, np.nan]]))


@pytest.mark.parametrize("name,driven", [("four_bar.toml", [0]), ("slider_crank.toml", [0]),
                                         ("bennett.toml", [0]), ("rssr.toml", [0])])
def test_a_small_models_block_is_ordered_by_scipys_reverse_cuthill_mckee(name, driven):
    """The columns of a small model's square block (dense pattern, loops/reordering.py) are in
    the order scipy's reverse Cuthill-McKee gives the sparse pattern of the same rows."""
    system = compile_model(load_model(ROOT / "examples" / name).snapshot())
    block = square_block_at(system, evaluate(system, system.reference_q()), driven)
    rows = np.flatnonzero(block.row_position >= 0)
    pattern = closure_pattern(system)[rows][:, block.free]
    pattern.sum_duplicates()
    order = scipy_rcm((pattern.T @ pattern).tocsr(), symmetric_mode=True)
    np.testing.assert_array_equal(np.argsort(block.column_position[block.free]), order)


def test_a_small_models_commands_import_neither_scipy_sparse_nor_scipy_linalg():
    """check and a sweep of the four-bar (0.2 s of a 0.7 s command went to importing them)."""
    code = ("import sys; from mechanism import load_model; m = load_model('examples/four_bar.toml'); "
            "m.sweep({'A': [0.0, 0.1]}); m.check(); "
            "print(sorted(n for n in ('scipy.sparse', 'scipy.linalg') if n in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "[]\n"
