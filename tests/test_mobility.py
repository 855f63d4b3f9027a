"""Tests of loops.mobility: the Grubler-Kutzbach count and the true mobility from rank(B).

Numbers by hand for each mechanism (DESIGN.md "Public API", check()):

* planar four-bar: 4 variables, 1 loop: grubler 4 - 6 = -2; rank B = 3 (a planar loop's
  out-of-plane equations repeat), so dof 1, redundant 3, passive 0;
* spatial RSSR: 1 + 3 + 3 + 1 = 8 variables: grubler 2; rank 6, so mobility 2, of which
  the coupler's spin between its balls is passive: dof 1, passive 1, redundant 0;
* Bennett 4R: grubler 4 - 6 = -2; Bennett's condition a/sin(alpha) = b/sin(beta) leaves
  one freedom, so rank B = 3: dof 1, passive 0, redundant 3;
* Cardan (Hooke) coupling, a spherical loop: 1 + 2 + 1 = 4 variables: grubler -2, rank 3
  (the loop's translations about its centre repeat): dof 1, redundant 3;
* a wheel on one pair (alone, or on the four-bar's coupler): a real freedom, no loop;
* the double wishbone: 15 variables, 2 loops: grubler 3, rank 12; the tie rod's spin is
  passive and the wheel's spin real: dof 2 (travel, spin), passive 1, redundant 0.

On all of them ``grubler == dof + passive - redundant``, and the printed report states
each number with what it was computed from.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from core_models import (
    bennett,
    cardan_coupling,
    double_wishbone,
    four_bar,
    four_bar_link_local,
    rssr,
    spatial_all_pairs,
)
from mechanism import Mechanism


def lone_wheel():
    m = Mechanism("wheel")
    m.add_link("wheel")
    m.add_pair("hub", "revolute", "ground", "wheel", at=(0, 0, 0), axis=(0, 1, 0))
    return m


def four_bar_with_wheel():
    m = four_bar("four-bar with a wheel")
    m.add_link("wheel")
    m.add_pair("W", "revolute", "coupler", "wheel", at=(2, 1, 0), axis=(0, 0, 1))
    return m


# name -> (builder, (grubler, dof, passive, redundant), loops, passive links)
EXPECTED = {
    "four-bar": (four_bar, (-2, 1, 0, 3), 1, []),
    "RSSR": (rssr, (2, 1, 1, 0), 1, ["coupler"]),
    "Bennett": (bennett, (-2, 1, 0, 3), 1, []),
    "Cardan coupling": (cardan_coupling, (-2, 1, 0, 3), 1, []),
    "wheel on one pair": (lone_wheel, (1, 1, 0, 0), 0, []),
    "four-bar with a wheel": (four_bar_with_wheel, (-1, 2, 0, 3), 1, []),
    "every pair type": (spatial_all_pairs, (-2, 2, 0, 4), 2, []),
    "double wishbone": (double_wishbone, (3, 2, 1, 0), 2, ["tie_rod"]),
}


@pytest.mark.parametrize("case", EXPECTED.values(), ids=EXPECTED.keys())
def test_mobility_numbers(case):
    """grubler, dof, passive, redundant as worked by hand, and grubler == dof + passive - redundant."""
    # grubler, dof, passive, redundant as worked out by hand in the module docstring; the identity grubler == dof +
    # passive - redundant; mobility == dof + passive.
    build, numbers, loops, passive_links = case
    info = build().check()
    assert (info.grubler, info.dof, info.passive, info.redundant) == numbers
    assert info.grubler == info.dof + info.passive - info.redundant
    assert info.mobility == info.dof + info.passive
    assert len(info.loops) == loops
    assert info.passive_links == passive_links
    assert info.grubler == info.variables - 6 * len(info.loops)
    assert info.closure_error < 1e-12  # global hardpoints close at the design pose


def test_a_wheel_hanging_on_one_pair_is_a_real_freedom():
    """A wheel hanging on one pair adds one real degree of freedom, not a passive one."""
    # Adding a wheel on the coupler adds exactly one degree of freedom and no passive one, and a sweep leaves it where
    # it was (the freedom is real but undriven).
    plain, wheeled = four_bar().check(), four_bar_with_wheel().check()
    assert (wheeled.dof, wheeled.passive) == (plain.dof + 1, plain.passive)
    res = four_bar_with_wheel().sweep({"A": np.linspace(0.0, 1.0, 5)})
    assert np.all(res.q("W") == 0.0)


def test_report_explains_each_number():
    """The printed report states each number with the counts it comes from, and the identity check."""
    # The printed four-bar report names the mechanism and its counts, lists the loop with its pairs and links, and
    # states each number with the numbers it comes from: grubler from variables and loop equations, redundant from the
    # rank of B, dof from variables, rank and passive, and the identity check.
    text = str(four_bar().check())
    lines = text.splitlines()
    assert "'four-bar'" in lines[0] and re.search(r"4 links.*4 pairs.*4 pair variables.*1 independent loop", lines[0])
    assert re.search(r"loop 1 \(C\): pairs A - B - C - D; links ground - crank - coupler - rocker", text)
    assert re.search(r"Grubler-Kutzbach count: 4 pair variables - 6 x 1 loop equations = -2", text)
    assert re.search(r"Redundant constraints: 3 \(rank of the closure matrix B is 3 of 6 equations", text)
    assert re.search(r"Passive freedoms: 0", text)
    assert re.search(r"Degrees of freedom: 1 \(pair variables - rank of B - passive = 4 - 3 - 0\)", text)
    assert re.search(r"grubler -2 = dof 1 \+ passive 0 - redundant 3", text)
    assert "Warning" not in text


def test_report_names_the_idle_link():
    """With a passive freedom the report says which link spins idly and why."""
    text = str(rssr().check())
    assert re.search(r"Passive freedoms: 1 \(idle spin of coupler about the line through its pairs\)", text)
    assert re.search(r"Degrees of freedom: 1 \(pair variables - rank of B - passive = 8 - 6 - 1\)", text)


def test_report_warns_when_the_reference_does_not_close():
    """The report warns while a link-local model is open, and not after assemble()."""
    # Before assemble(), a link-local model's counts are not those of a closed assembly, and the report says so (with
    # the defect); after it the warning is gone.
    m = four_bar_link_local()
    before = m.check()
    assert before.closure_error > 0.1 and "Warning: the reference assembly does not close" in str(before)
    m.assemble({"A": 0.7, "B": -1.7, "C": 2.3, "D": 5.1}, hold=("A",))
    after = m.check()
    assert (after.grubler, after.dof, after.passive, after.redundant) == (-2, 1, 0, 3)
    assert "Warning" not in str(after)
