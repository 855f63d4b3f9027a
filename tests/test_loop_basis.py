"""Tests of loops.loop_basis: one independent loop per chord, each a closed walk of pairs.

Properties (DESIGN.md "Loops", STYLE.md section 3 "Invariants"): the number of loops is the
cycle rank ``pairs - links + 1`` and the loops are independent; each loop is a walk of
``(pair, direction)`` that returns to its first link, and Pavlov's product (eq. 2) of link
and pair matrices along it is the identity at the design pose and at every swept position.
Declaring the same mechanism in another order, or with other link names, may change the
basis but not what it spans: mobility, the cycle space and the motion of every link that
is not idle stay the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import (
    CLOSURE_TOL,
    bennett,
    double_wishbone,
    four_bar,
    loop_product,
    rebuild,
    rssr,
    spatial_all_pairs,
)
from loops.compiled import compile_model
from loops.configuration import evaluate
from mechanism import Mechanism


def wheel_on_four_bar():
    """The four-bar with a wheel on the coupler: a pair in no loop."""
    m = four_bar("four-bar with a wheel")
    m.add_link("wheel")
    m.add_pair("W", "revolute", "coupler", "wheel", at=(2, 1, 0), axis=(0, 0, 1))
    return m


MECHANISMS = {
    "four-bar": four_bar,
    "four-bar with a wheel": wheel_on_four_bar,
    "spatial-all-pairs": spatial_all_pairs,
    "RSSR": rssr,
    "Bennett": bennett,
    "double-wishbone": double_wishbone,
}

# Sweeps that move every loop of a mechanism; sizes (m) scale the closure tolerance.
SWEEPS = {
    "four-bar": (four_bar, {"A": np.linspace(0.0, 2 * np.pi, 13)}, 4.0),
    "spatial-all-pairs": (spatial_all_pairs, {"A": np.linspace(0.0, 1.0, 6), "P": np.linspace(0.0, 0.05, 6)}, 0.4),
    "RSSR": (rssr, {"A": np.linspace(0.0, 2 * np.pi, 13)}, 0.15),
    "Bennett": (bennett, {"J1": np.linspace(0.0, 2 * np.pi, 13)}, 0.2),
    "double-wishbone": (double_wishbone, {"travel": np.linspace(-0.08, 0.08, 9)}, 0.5),
}


def gf2_rank(rows):
    """Rank over GF(2) of 0/1 rows (each an int bit mask): the dimension of the cycle space
    they span (STYLE.md: networkx's check_independent)."""
    basis = []
    for row in rows:
        for b in basis:
            row = min(row, row ^ b)
        if row:
            basis.append(row)
    return len(basis)


def loop_masks(loops, pair_names):
    """Each loop's set of pairs as a bit mask over ``pair_names`` (sorted)."""
    bit = {name: 1 << i for i, name in enumerate(sorted(pair_names))}
    return [sum(bit[p] for p in set(loop)) for loop in loops]


@pytest.mark.parametrize("build", MECHANISMS.values(), ids=MECHANISMS.keys())
@pytest.mark.parametrize("road_loops", [False, True], ids=["real", "with road loops"])
def test_loop_count_is_the_cycle_rank_and_loops_are_independent(build, road_loops):
    """Loops number pairs - links + 1 and are independent over GF(2) (the cycle rank, with road loops too)."""
    # len(loops) == pairs - links + 1 (road loops add 3 links and 4 pairs: one loop each), and the loops' pair sets are
    # independent over GF(2).
    system = compile_model(build().snapshot(), with_point_drivers=road_loops)
    assert len(system.loops) == len(system.pairs) - len(system.links) + 1
    masks = loop_masks(system.loops, [p.name for p in system.pairs])
    assert gf2_rank(masks) == len(system.loops)


@pytest.mark.parametrize("build", MECHANISMS.values(), ids=MECHANISMS.keys())
def test_each_loop_is_a_walk_through_its_chord(build):
    """Each loop is a closed walk of (pair, direction) through its chord, pair by pair link to link."""
    # A loop names its chord (``"loop k (chord)"``), walks it forwards exactly once, visits as many links as pairs, and
    # each pair joins the link it leaves to the next one.
    system = compile_model(build().snapshot())  # with road loops, when there are point drivers
    pairs = {p.name: p for p in system.pairs}
    for number, loop in enumerate(system.loops, start=1):
        assert loop.name == f"loop {number} ({loop.chord})"
        assert (loop.chord, 1) in loop.walk
        assert tuple(loop) == loop.pairs == tuple(p for p, _ in loop.walk)
        assert len(set(loop.pairs)) == len(loop.pairs) == len(loop.links)
        for i, (name, direction) in enumerate(loop.walk):
            here, there = loop.links[i], loop.links[(i + 1) % len(loop.links)]
            ends = (pairs[name].first, pairs[name].second)
            assert ends == ((here, there) if direction > 0 else (there, here)), (loop.name, name)


@pytest.mark.parametrize("build", MECHANISMS.values(), ids=MECHANISMS.keys())
def test_loop_products_are_the_identity_at_the_design_pose(build):
    """Eq. (2) with every pair value zero: global hardpoints close by construction."""
    model = build().snapshot()
    zeros = {p.name: np.zeros(p.size) for p in model.pairs}
    for loop in compile_model(model, with_point_drivers=False).loops:
        # Products of a few exact frames: round-off only.
        assert_allclose(loop_product(model.pairs, loop, zeros), np.eye(4), rtol=0.0, atol=1e-12, err_msg=loop.name)


@pytest.mark.parametrize("case", SWEEPS.values(), ids=SWEEPS.keys())
def test_loop_products_are_the_identity_after_a_sweep(case):
    """Eq. (2) holds along every loop at every swept position, from the values the result reports."""
    # Eq. (2) at every swept position, from the pair values the result reports (spherical pairs as rotation vectors):
    # the loops the mobility report lists all close.
    build, drivers, size = case
    m = build()
    res = m.sweep(drivers)
    for k in range(len(res)):
        values = {p.name: np.atleast_1d(res.q(p.name)[k]) for p in res.model.pairs}
        for loop in m.check().loops:
            product = loop_product(res.model.pairs, loop, values)
            # CLOSURE_TOL: 1e-9 rad for rotations, 1e-9 x size for the translation.
            assert_allclose(product[:3, :3], np.eye(3), rtol=0.0, atol=CLOSURE_TOL, err_msg=loop.name)
            assert_allclose(product[:3, 3], 0.0, rtol=0.0, atol=CLOSURE_TOL * size, err_msg=loop.name)


RELABELLINGS = {
    "four-bar": (four_bar, {"A": np.linspace(0.2, 5.0, 7)}, None),
    "spatial-all-pairs": (spatial_all_pairs, {"A": np.linspace(0.0, 1.0, 6), "P": np.linspace(0.0, 0.05, 6)}, None),
    "RSSR": (rssr, {"A": np.linspace(0.2, 5.0, 7)}, "coupler"),
    "double-wishbone": (double_wishbone, {"travel": np.linspace(-0.08, 0.08, 9)}, "tie_rod"),
}


@pytest.mark.parametrize("case", RELABELLINGS.values(), ids=RELABELLINGS.keys())
def test_loops_do_not_depend_on_declaration_order_or_link_names(case):
    """Reordering and renaming change the basis, not mobility, cycle space or the motion of non-idle links."""
    # Links declared in reverse order and renamed, pairs in reverse order: the mobility numbers, the cycle space spanned
    # by the loops and the set of pairs in loops are the same, and every link that is not idle follows the same motion
    # (to the closure tolerance).
    build, drivers, idle = case
    original = build()
    links = [name for name in original.links if name != "ground"]
    rename = {name: f"{name}_renamed" for name in links}
    other = rebuild(original, link_order=links[::-1], pair_order=list(original.pairs)[::-1], rename=rename)
    a, b = original.check(), other.check()
    assert (len(a.loops), a.grubler, a.dof, a.passive, a.redundant) == \
        (len(b.loops), b.grubler, b.dof, b.passive, b.redundant)
    assert [rename[link] for link in a.passive_links] == b.passive_links
    names = list(original.pairs)
    masks_a, masks_b = loop_masks(a.loops, names), loop_masks(b.loops, names)
    assert gf2_rank(masks_a) == gf2_rank(masks_b) == gf2_rank(masks_a + masks_b) == len(a.loops)
    assert set().union(*map(set, a.loops)) == set().union(*map(set, b.loops))
    ra, rb = original.sweep(drivers), other.sweep(drivers)
    for link in links:
        if link == idle:
            continue  # an idle spin is gauged, not solved: see test_passive.py
        # Poses of links up to 4 m across, closed to 1e-10 of the size on both sides.
        assert_allclose(ra.pose(link), rb.pose(rename[link]), rtol=0.0, atol=CLOSURE_TOL, err_msg=link)


def test_a_pair_in_no_loop_belongs_to_no_loop():
    """A wheel hanging on one pair adds a link and a pair and no loop."""
    plain, wheeled = four_bar().check(), wheel_on_four_bar().check()
    assert len(wheeled.loops) == len(plain.loops) == 1
    assert "W" not in set(wheeled.loops[0])


def test_independent_loops_of_a_two_loop_chain():
    """Watt's six-bar: 7 pairs, 6 links, 2 loops covering all pairs, dof 1 with 6 redundant equations."""
    # Watt's six-bar chain (two four-bar loops sharing the coupler-ternary link): 7 pairs, 6 links, 2 loops, and the
    # pairs of both loops together cover all seven pairs.
    m = Mechanism("Watt six-bar")
    for link in ("crank", "ternary", "rocker", "link5", "output"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("B", "revolute", "crank", "ternary", at=(1, 0, 0), axis=(0, 0, 1))
    m.add_pair("C", "revolute", "ternary", "rocker", at=(3, 2, 0), axis=(0, 0, 1))
    m.add_pair("D", "revolute", "rocker", "ground", at=(4, 0, 0), axis=(0, 0, 1))
    m.add_pair("E", "revolute", "ternary", "link5", at=(2.5, 3.0, 0), axis=(0, 0, 1))
    m.add_pair("F", "revolute", "link5", "output", at=(5.0, 3.5, 0), axis=(0, 0, 1))
    m.add_pair("G", "revolute", "output", "ground", at=(6.0, 0.5, 0), axis=(0, 0, 1))
    info = m.check()
    assert len(info.loops) == 7 - 6 + 1 == 2
    assert set().union(*map(set, info.loops)) == set("ABCDEFG")
    assert (info.grubler, info.dof, info.passive, info.redundant) == (-5, 1, 0, 6)
