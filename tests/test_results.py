"""Tests of loops.results: SweepResult accessors, CSV columns and the atomic write.

DESIGN.md: ``pose(link)`` is the rigid motion since the design pose (identity there);
multi-variable pairs are addressed whole (``"U"``, (N, k)) or by component (``"U.0"``);
CSV columns are every public variable by name, drivers first (``U.0``, ``U.1`` for
multi-variable pairs), then each point as ``P.x P.y P.z``; velocities carry ``_dot`` and
accelerations ``_ddot``. The file is written atomically: a failed write leaves the old
file as it was and no temporary file behind.
"""

from __future__ import annotations

import csv
import os

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from core_models import double_wishbone, four_bar, spatial_all_pairs
from mechanism import ModelError


@pytest.fixture(scope="module")
def spatial_result():
    """Every pair type, drivers given P first, with rates."""
    m = spatial_all_pairs()
    return m.sweep({"P": np.linspace(0.0, 0.04, 5), "A": np.linspace(0.0, 0.8, 5)},
                   speeds={"A": 1.2, "P": 0.05}, accelerations={"A": 0.3})


def expected_header(variables, points):
    names = lambda suffix: [v + suffix for v in variables] + [  # noqa: E731
        f"{p}.{axis}{suffix}" for p in points for axis in "xyz"]
    return names("") + names("_dot") + names("_ddot")


def read_csv(path):
    """Header and values of a CSV file, after its first line (the units comment)."""
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    # A model built in Python: SI; the line ends with each column's unit, and holds no comma.
    assert len(rows[0]) == 1 and rows[0][0].startswith("# units: length=m angle=rad time=s; columns: ")
    return rows[1], np.array(rows[2:], dtype=float)


def test_csv_columns_and_order(spatial_result, tmp_path):
    """CSV header: drivers first, U.0/S.0 components, T.x..T.z, then _dot and _ddot; values round-trip."""
    # Header: drivers first in the order given (P, A), then the other variables in pair order with U.0/U.1 and S.0..S.2
    # for multi-variable pairs, then T.x T.y T.z; the same with _dot, then _ddot. Each column holds exactly (repr round
    # trip) what the accessors return.
    res = spatial_result
    path = tmp_path / "sweep.csv"
    res.to_csv(path)
    header, data = read_csv(path)
    variables = ["P", "A", "S.0", "S.1", "S.2", "U.0", "U.1", "H", "Cy.0", "Cy.1"]
    assert header == expected_header(variables, ["T"])
    assert data.shape == (5, len(header))
    column = {name: data[:, i] for i, name in enumerate(header)}
    for name in variables:
        assert_array_equal(column[name], res.q(name))
        assert_array_equal(column[name + "_dot"], res.q_dot(name))
        assert_array_equal(column[name + "_ddot"], res.q_ddot(name))
    for i, axis in enumerate("xyz"):
        assert_array_equal(column[f"T.{axis}"], res.point("T")[:, i])
        assert_array_equal(column[f"T.{axis}_dot"], res.point_velocity("T")[:, i])
        assert_array_equal(column[f"T.{axis}_ddot"], res.point_acceleration("T")[:, i])


def test_csv_of_a_point_driven_mechanism():
    """A point driver is a CSV column like a pair variable; virtual pairs are not; points= selects points."""
    # The point driver's variable is a column like any pair variable (first, as the driver); the road loop's virtual
    # slides and ball are not columns; ``points=`` selects points.
    res = double_wishbone().sweep({"travel": np.linspace(-0.02, 0.02, 3)})
    columns = [c.name for c in res.columns(points=["wheel_centre"])]
    assert columns[:3] == ["travel", "lower_inner", "upper_inner"]
    assert "hub" in columns and not any("<" in name for name in columns)
    assert [c for c in columns if c.startswith("wheel_centre")][:3] == ["wheel_centre.x", "wheel_centre.y",
                                                                        "wheel_centre.z"]
    assert not any(c.startswith("hub_inner") for c in columns)
    kinds = {c.name: (c.dimension, c.order) for c in res.columns()}
    assert kinds["travel"] == ("length", 0) and kinds["hub_dot"] == ("angle", 1)
    assert kinds["lower_ball.2_ddot"] == ("angle", 2) and kinds["hub_inner.z_ddot"] == ("length", 2)


def test_csv_write_is_atomic(spatial_result, tmp_path, monkeypatch):
    """A failed CSV write leaves the old file intact and no temporary file; a good one leaves only the file."""
    # A write that fails at the final rename leaves the previous file byte for byte and no temporary file in the folder;
    # a successful write leaves only the target.
    path = tmp_path / "sweep.csv"
    path.write_text("previous contents\n")

    def refuse(source, target):
        raise OSError("disk full (simulated)")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", refuse)
        with pytest.raises(OSError, match="simulated"):
            spatial_result.to_csv(path)
    assert path.read_text() == "previous contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.csv"]
    spatial_result.to_csv(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.csv"]
    assert path.read_text().startswith("# units: length=m angle=rad time=s; columns: P=")
    assert "\nP,A,S.0" in path.read_text()


def test_pose_is_the_identity_at_the_design_pose():
    """pose(link) is the identity at the design pose for every link (DESIGN.md), rigid elsewhere."""
    # pose(link) is the motion since the design pose: the identity there, for every link (point-driven model included),
    # and a rigid transform elsewhere.
    m = double_wishbone()
    res = m.sweep({"travel": [0.0, 0.05]})
    for link in m.links:
        assert_allclose(res.pose(link)[0], np.eye(4), rtol=0.0, atol=1e-15, err_msg=link)
        R = res.pose(link)[1, :3, :3]
        assert_allclose(R.T @ R, np.eye(3), rtol=0.0, atol=1e-12)
    assert not np.allclose(res.pose("upright")[1], np.eye(4))


def test_multi_variable_pairs_whole_or_by_component(spatial_result):
    """'U' is (N, 2) = [U.0, U.1], 'S' (N, 3), 'Cy' (N, 2); one-variable pairs are (N,)."""
    res = spatial_result
    assert res.q("U").shape == (5, 2) and res.q("S").shape == (5, 3) and res.q("A").shape == (5,)
    assert_array_equal(res.q("U"), np.stack([res.q("U.0"), res.q("U.1")], axis=1))
    assert_array_equal(res.q_dot("Cy"), np.stack([res.q_dot("Cy.0"), res.q_dot("Cy.1")], axis=1))
    assert_array_equal(res.q_ddot("S")[:, 2], res.q_ddot("S.2"))


def test_accessors_return_copies(spatial_result):
    """Writing into an array a result returned does not change the result."""
    res = spatial_result
    q = res.q("A")
    q[:] = 99.0
    pose = res.pose("coupler")
    pose[:] = 0.0
    assert not np.any(res.q("A") == 99.0)
    assert res.pose("coupler")[0, 3, 3] == 1.0


@pytest.mark.parametrize("call, where", [
    (lambda r: r.q("E"), "variable 'E'"),
    (lambda r: r.q_dot("T"), "variable 'T'"),
    (lambda r: r.point("A"), "point 'A'"),
    (lambda r: r.pose("wheel"), "link 'wheel'"),
])
def test_unknown_names_raise_located_model_errors(spatial_result, call, where):
    """Unknown variables, points and links raise ModelError naming them."""
    with pytest.raises(ModelError) as caught:
        call(spatial_result)
    assert caught.value.where == where


def test_virtual_links_and_pairs_are_not_exposed():
    """The road loop's links and pairs are not results a user can ask for."""
    res = double_wishbone().sweep({"travel": [0.01]})
    with pytest.raises(ModelError):
        res.pose("travel<slide 1>")
    with pytest.raises(ModelError):
        res.q("travel<ball>")
    assert res.variable_names[0] == "travel" and len(res.variable_names) == 16


def test_length_representation_and_stop_reason():
    """len() counts positions; a complete sweep has no stop reason and says so."""
    res = four_bar().sweep({"A": np.linspace(0.0, 1.0, 4)})
    assert len(res) == 4 and res.stop_reason is None
    assert repr(res) == "SweepResult(4 positions of 'four-bar', driven by A, complete)"
