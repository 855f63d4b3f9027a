"""Tests of loops.structure and of the block-wise path of loops.linear (models of more than
``DENSE_VARIABLES`` variables).

References: numpy's dense SVD (rank, null space) of the same matrices, and, for the models,
the dense path itself: with ``DENSE_VARIABLES`` set to 0 and ``DENSE_BLOCK`` to 4 every example
goes through the blocks and the Givens echelon, and must give the same mobility numbers, the
same held variables and the same sweep (1e-9) as the dense factorizations of the whole.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
from numpy.testing import assert_allclose

from core_models import EXAMPLES, pendulums
from loops import linear, structure
from loops.compiled import compile_model
from loops.configuration import constraint_matrix, evaluate
from loops.held import held_freedoms
from loops.structure import Echelon, blocks
from mechanism import Mechanism, load_model


def banded_with_defects(rng, rows, columns, width, dependent):
    """A sparse (rows, columns) matrix of band ``width`` whose rows ``dependent`` are sums of two
    earlier rows within the band (so the rank drops by their number), its columns shuffled."""
    dense = np.zeros((rows, columns))
    for i in range(rows):
        start = min(i * columns // rows, columns - width)
        dense[i, start:start + width] = rng.normal(size=width)
    for i in dependent:
        dense[i] = dense[i - 1] - 2.0 * dense[i - 2]
    return dense[:, rng.permutation(columns)]


@pytest.mark.parametrize("seed", range(4))
def test_echelon_rank_and_null_space_are_the_svds(seed):
    """Rank, null space (orthonormal, B N = 0, of the SVD's dimension) and independent rows of
    a banded matrix with dependent rows, against numpy's SVD."""
    rng = np.random.default_rng(seed)
    dense = banded_with_defects(rng, 40, 50, 5, dependent=[7, 20, 21, 34])
    echelon = Echelon(scipy.sparse.csr_matrix(dense))
    rank = np.linalg.matrix_rank(dense)
    assert echelon.rank == rank
    basis = echelon.null_space()
    assert basis.shape == (50, 50 - rank)
    assert_allclose(basis.T @ basis, np.eye(50 - rank), atol=1e-12)
    assert np.abs(dense @ basis).max() < 1e-10
    assert len(echelon.accepted) == rank
    assert np.linalg.matrix_rank(dense[echelon.accepted]) == rank


def test_blocks_are_the_coupled_columns():
    """Columns coupled through rows, directly or through others, form a block; a column in no row
    is a block of its own with no rows; an empty row belongs to none."""
    pattern = np.zeros((5, 7))
    pattern[0, [0, 3]] = 1.0
    pattern[1, [3, 5]] = 1.0  # 0, 3, 5 through column 3
    pattern[2, [1, 2]] = 1.0
    pattern[4, [6]] = 1.0  # row 3 empty, column 4 in no row
    found = [(list(b.columns), list(b.rows)) for b in blocks(scipy.sparse.csr_matrix(pattern))]
    assert found == [([0, 3, 5], [0, 1]), ([1, 2], [2]), ([4], []), ([6], [4])]


@pytest.fixture
def everything_in_blocks(monkeypatch):
    """Every model through the block-wise path, large blocks by the Givens echelon."""
    monkeypatch.setattr(linear, "DENSE_VARIABLES", 0)
    monkeypatch.setattr(structure, "DENSE_BLOCK", 4)


CLOSED = ["four_bar", "rssr", "bennett", "hooke_joint", "governor", "landing_gear", "double_wishbone",
          "double_wishbone_steer", "macpherson", "five_link_rear", "front_axle", "mower_wobble_drive"]


def example_numbers(name):
    model = load_model(EXAMPLES / f"{name}.toml")
    report = model.check()
    system = compile_model(model.snapshot())
    config = evaluate(system, system.reference_q())
    null = linear.null_space(linear.closure_matrix(system, config))
    return (report.dof, report.passive, report.redundant, null.shape[1],
            linear.rank(linear.closure_matrix(system, config, gauges=False))), system, config, null


@pytest.mark.parametrize("name", CLOSED)
def test_blocks_give_the_dense_mobility_and_null_space(name, monkeypatch):
    """Mobility numbers, rank and the null space (as a subspace) through the blocks are the
    dense ones."""
    dense, system, config, null = example_numbers(name)
    monkeypatch.setattr(linear, "DENSE_VARIABLES", 0)
    monkeypatch.setattr(structure, "DENSE_BLOCK", 4)
    blockwise, _, _, blockwise_null = example_numbers(name)
    assert blockwise == dense
    # Same subspace: each basis lies in the other's span.
    assert_allclose(null @ (null.T @ blockwise_null), blockwise_null, atol=1e-9)


def first_free(system):
    """The first additive public variable of ``system`` that moves (a driver for one freedom)."""
    config = evaluate(system, system.reference_q())
    null = linear.null_space(constraint_matrix(system, config, scaled=True))
    return next(c for c in range(system.n)
                if system.additive[c] and system.public[c] and np.linalg.norm(null[c]) > 1e-3)


@pytest.mark.parametrize("name", CLOSED)
def test_blocks_hold_and_sweep_as_the_dense_path(name, monkeypatch):
    """The held variables are the dense path's, and a sweep through the blocks (square block
    rows chosen by the echelon) closes at the same positions (1e-9)."""
    model = load_model(EXAMPLES / f"{name}.toml")
    system = compile_model(model.snapshot())
    driver = system.variable_names[first_free(system)]
    config = evaluate(system, system.reference_q())
    driven = np.array([system.variable_index[driver]])
    values = np.linspace(0.0, 0.05, 5) * system.column_scale[driven[0]]
    held = held_freedoms(system, config, driven)
    reference = model.sweep({driver: values})
    monkeypatch.setattr(linear, "DENSE_VARIABLES", 0)
    monkeypatch.setattr(structure, "DENSE_BLOCK", 4)
    assert list(held_freedoms(system, config, driven)) == list(held)
    other = load_model(EXAMPLES / f"{name}.toml").sweep({driver: values})
    assert other.held == reference.held
    assert_allclose(other._q, reference._q, atol=1e-9)


def test_a_large_model_holds_its_pendulums_and_sweeps():
    """200 pendulums (204 variables, the block path): dof 201, every pendulum held at 0, the
    four-bar's sweep that of the four-bar alone (1e-9)."""
    model = pendulums(200)
    assert model.check().dof == 201
    values = np.linspace(0.0, 0.5, 7)
    res = model.sweep({"A": values})
    assert sorted(res.held) == sorted(f"h{i}" for i in range(200))
    alone = load_model(EXAMPLES / "four_bar.toml").sweep({"A": values})
    for name in ("B", "C", "D"):
        assert_allclose(res.q(name), alone.q(name), atol=1e-9)


def test_a_chain_of_loops_is_one_block_with_one_freedom():
    """A chain of 30 parallelograms (91 variables, one block of 90 loop rows): rank by the
    echelon, one freedom, and it sweeps."""
    m = Mechanism("chain")
    for i in range(31):
        m.add_link(f"r{i}")
    for i in range(30):
        m.add_link(f"c{i}")
    for i in range(31):
        m.add_pair(f"G{i}", "revolute", "ground", f"r{i}", at=(i, 0, 0), axis=(0, 0, 1))
    for i in range(30):
        m.add_pair(f"L{i}", "revolute", f"r{i}", f"c{i}", at=(i, 1, 0), axis=(0, 0, 1))
        m.add_pair(f"R{i}", "revolute", f"c{i}", f"r{i + 1}", at=(i + 1, 1, 0), axis=(0, 0, 1))
    assert m.check().dof == 1
    res = m.sweep({"G0": np.linspace(0.0, 0.3, 4)})
    assert res.held == []
    for i in range(31):
        assert_allclose(res.q(f"G{i}"), res.q("G0"), atol=1e-9)
