"""Tests of mechanism.model: the builder's validation and its frozen snapshots.

Every ``add_*`` validates at once and raises :class:`mechanism.ModelError` whose ``where``
names the object and the key and whose one-line message starts with it (DESIGN.md,
"Errors"; STYLE.md section 3, "Bad input": the exception type *and* the location text).
Mistakes that only the whole model reveals (a link connected to nothing, a driver that is
no pair variable) are raised by ``check()``/``sweep()``, with the same kind of message.
A rejected call leaves the builder as it was. Results keep the snapshot they were computed
from, so later edits never change them.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from core_models import four_bar, spatial_all_pairs
from mechanism import KinematrixError, ModelError


def assert_located(caught, where, problem):
    """The error is a ModelError (so also a ValueError), located at ``where`` exactly, its
    message one line starting with the location and stating the problem (a regex)."""
    error = caught.value
    assert isinstance(error, ModelError) and isinstance(error, ValueError) and isinstance(error, KinematrixError)
    message = str(error)
    assert error.where == where, message
    assert message.startswith(f"{where}: "), message
    assert "\n" not in message
    assert re.search(problem, message), message


def names(m):
    """Everything a builder holds, by name, to see that a rejected call added nothing."""
    return (tuple(m.links), tuple(m.pairs), tuple(m.points), tuple(m.point_drivers), tuple(m.variable_names()))


# (label, action on a fresh four-bar, where, problem regex)
BUILDER_MISTAKES = [
    ("pair joins a link to itself",
     lambda m: m.add_pair("X", "revolute", "crank", "crank", at=(0, 0, 0), axis=(0, 0, 1)),
     "pair 'X'", r"joins link 'crank' to itself"),
    ("unknown first link",
     lambda m: m.add_pair("X", "revolute", "crnak", "rocker", at=(0, 0, 0), axis=(0, 0, 1)),
     "pair 'X': first link", r"unknown link 'crnak'"),
    ("unknown second link",
     lambda m: m.add_pair("X", "revolute", "crank", "wheel", at=(0, 0, 0), axis=(0, 0, 1)),
     "pair 'X': second link", r"unknown link 'wheel'"),
    ("point on an unknown link",
     lambda m: m.add_point("Q", "wheel", at=(0, 0, 0)),
     "point 'Q': link", r"unknown link 'wheel'"),
    ("zero axis",
     lambda m: m.add_pair("X", "revolute", "crank", "rocker", at=(0, 0, 0), axis=(0, 0, 0)),
     "pair 'X': axis", r"zero-length"),
    ("axis with a NaN",
     lambda m: m.add_pair("X", "revolute", "crank", "rocker", at=(0, 0, 0), axis=(0, np.nan, 1)),
     "pair 'X': axis", r"non-finite"),
    ("axis with an infinity",
     lambda m: m.add_pair("X", "prismatic", "crank", "rocker", at=(0, 0, 0), axis=(np.inf, 0, 1)),
     "pair 'X': axis", r"non-finite"),
    ("axis of two numbers",
     lambda m: m.add_pair("X", "revolute", "crank", "rocker", at=(0, 0, 0), axis=(0, 1)),
     "pair 'X': axis", r"expected 3 numbers, got shape \(2,\)"),
    ("location of four numbers",
     lambda m: m.add_pair("X", "revolute", "crank", "rocker", at=(0, 0, 0, 1), axis=(0, 0, 1)),
     "pair 'X': at", r"expected 3 numbers, got shape \(4,\)"),
    ("Hooke pair with parallel pins",
     lambda m: m.add_pair("X", "hooke", "crank", "rocker", at=(0, 0, 0), axes=((0, 0, 1), (0, 0, 2))),
     "pair 'X': axes", r"pins are parallel"),
    ("Hooke pair with opposite pins",
     lambda m: m.add_pair("X", "universal", "crank", "rocker", at=(0, 0, 0), axes=((1, 1, 0), (-1, -1, 0))),
     "pair 'X': axes", r"pins are parallel"),
    ("Hooke pair with a zero pin",
     lambda m: m.add_pair("X", "hooke", "crank", "rocker", at=(0, 0, 0), axes=((0, 0, 1), (0, 0, 0))),
     "pair 'X': axes[1]", r"zero-length"),
    ("helical pair without pitch",
     lambda m: m.add_pair("X", "helical", "crank", "rocker", at=(0, 0, 0), axis=(0, 0, 1)),
     "pair 'X': pitch", r"helical pair needs pitch="),
    ("helical pair with a NaN pitch",
     lambda m: m.add_pair("X", "helical", "crank", "rocker", at=(0, 0, 0), axis=(0, 0, 1), pitch=np.nan),
     "pair 'X': pitch", r"non-finite"),
    ("pitch on a revolute pair",
     lambda m: m.add_pair("X", "revolute", "crank", "rocker", at=(0, 0, 0), axis=(0, 0, 1), pitch=0.01),
     "pair 'X': pitch", r"only a helical pair takes a pitch, not 'revolute'"),
    ("pitch on a cylindrical pair",
     lambda m: m.add_pair("X", "cylindrical", "crank", "rocker", at=(0, 0, 0), axis=(0, 0, 1), pitch=0.01),
     "pair 'X': pitch", r"not 'cylindrical'"),
    ("duplicate link",
     lambda m: m.add_link("coupler"),
     "link 'coupler'", r"exists already"),
    ("a link called ground",
     lambda m: m.add_link("ground"),
     "link 'ground'", r"exists already"),
    ("duplicate pair",
     lambda m: m.add_pair("B", "revolute", "crank", "rocker", at=(0, 0, 0), axis=(0, 0, 1)),
     "pair 'B'", r"exists already"),
    ("duplicate point",
     lambda m: m.add_point("P", "crank", at=(0, 0, 0)),
     "point 'P'", r"exists already"),
    ("point driver named like a pair",
     lambda m: m.add_point_driver("A", point="P", direction=(0, 1, 0)),
     "point driver 'A'", r"exists already"),
    ("negative mass",
     lambda m: m.add_link("heavy", mass=-1.0),
     "link 'heavy': mass", r"must be >= 0"),
    ("non-symmetric inertia",
     lambda m: m.add_link("heavy", mass=1.0, inertia=[[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
     "link 'heavy': inertia", r"not symmetric"),
    ("inertia violating the triangle inequality",
     lambda m: m.add_link("heavy", mass=1.0, inertia=np.diag([1.0, 1.0, 2.5])),
     "link 'heavy': inertia", r"triangle inequality"),
    ("inertia with a negative principal moment",
     lambda m: m.add_link("heavy", mass=1.0, inertia=np.diag([-0.1, 1.0, 1.0])),
     "link 'heavy': inertia", r"negative principal moment"),
    ("point driver on an unknown point",
     lambda m: m.add_point_driver("travel", point="wheel_centre", direction=(0, 0, 1)),
     "point driver 'travel': point", r"unknown point 'wheel_centre'"),
    ("point driver along a zero direction",
     lambda m: m.add_point_driver("travel", point="P", direction=(0, 0, 0)),
     "point driver 'travel': direction", r"zero-length"),
    ("spring on an unknown variable",
     lambda m: m.add_pair_spring("E", stiffness=1.0),
     "pair spring on 'E'", r"unknown pair variable 'E'"),
    # issue 12: names that are not strings (unhashable ones used to raise TypeError)
    ("a list as the first link",
     lambda m: m.add_pair("X", "revolute", ["ground"], "rocker", at=(0, 0, 0), axis=(0, 0, 1)),
     "pair 'X': first link", r"unknown link \['ground'\]"),
    ("a list as a point's link",
     lambda m: m.add_point("Q", ["crank"], at=(0, 0, 0)),
     "point 'Q': link", r"unknown link \['crank'\]"),
    ("a list as a spring's pair",
     lambda m: m.add_pair_spring(["A"], stiffness=1.0),
     "pair spring on ['A']", r"expected a pair variable name, got \['A'\]"),
    ("a dict as a force's pair",
     lambda m: m.add_pair_force({"A": 1}, 1.0),
     "pair force on {'A': 1}", r"expected a pair variable name"),
    ("a set as a spring-damper's link",
     lambda m: m.add_spring_damper("sd", {"crank"}, (0, 0, 0), "ground", (1, 0, 0), stiffness=1.0),
     "spring-damper 'sd': link_a", r"unknown link \{'crank'\}"),
    ("a list as a point force's link",
     lambda m: m.add_point_force("f", ["crank"], (0, 0, 0), (0, 0, 1)),
     "point force 'f': link", r"unknown link \['crank'\]"),
    ("a list as a point driver's point",
     lambda m: m.add_point_driver("travel", point=["P"], direction=(0, 0, 1)),
     "point driver 'travel': point", r"unknown point \['P'\]"),
    # loads of the wrong shape (check passed, simulate raised a reshape error)
    ("a vector force on a revolute pair",
     lambda m: m.add_pair_force("A", [1.0, 2.0, 3.0]),
     "pair force on 'A': force", r"expected a number, f\(t\) or a \(times, values\) table, got shape \(3,\)"),
    ("a table of vectors on a revolute pair",
     lambda m: m.add_pair_force("A", ([0.0, 1.0], [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])),
     "pair force on 'A': force: values", r"expected a number per time, got shape \(3,\) per time"),
    ("a number as a point force",
     lambda m: m.add_point_force("f", "crank", (0, 0, 0), 5.0),
     "point force 'f': force", r"expected 3 numbers, f\(t\) or a \(times, values\) table, got the number 5.0"),
    ("a table of numbers as a point force",
     lambda m: m.add_point_force("f", "crank", (0, 0, 0), ([0.0, 1.0], [5.0, 6.0])),
     "point force 'f': force: values", r"expected 3 numbers per time, got shape \(\) per time"),
    # magnitudes (mechanism/limits.py)
    ("a coordinate of 1e200",
     lambda m: m.add_pair("X", "revolute", "crank", "rocker", at=(1e200, 0, 0), axis=(0, 0, 1)),
     "pair 'X': at", r"holds a length beyond 1e\+06 m, the largest a model may hold"),
    ("a point at 2000 km",
     lambda m: m.add_point("Q", "crank", at=(0, 2e6, 0)),
     "point 'Q': at", r"length beyond 1e\+06 m"),
    ("a mass of 1e13 kg",
     lambda m: m.add_link("heavy", mass=1e13),
     "link 'heavy': mass", r"number beyond 1e\+12 in SI units"),
    ("an inertia of 1e300",
     lambda m: m.add_link("heavy", mass=1.0, inertia=np.eye(3) * 1e300),
     "link 'heavy': inertia", r"number beyond 1e\+12"),
    ("a stiffness of 1e20",
     lambda m: m.add_pair_spring("A", stiffness=1e20),
     "pair spring on 'A': stiffness", r"number beyond 1e\+12"),
    ("a free length of 1e10 m",
     lambda m: m.add_spring_damper("sd", "crank", (0, 0, 0), "ground", (1, 0, 0), stiffness=1.0, free_length=1e10),
     "spring-damper 'sd': free_length", r"length beyond 1e\+06 m"),
    ("gravity of 1e300",
     lambda m: m.set_gravity((0, 0, -1e300)),
     "gravity", r"number beyond 1e\+12"),
    ("a force of 1e300",
     lambda m: m.add_point_force("f", "crank", (0, 0, 0), (0, 0, 1e300)),
     "point force 'f': force", r"number beyond 1e\+12"),
    ("a link-local frame 1e9 m away",
     lambda m: m.add_pair("X", "revolute", "crank", "rocker", frame_on_first=np.eye(4) + np.diag([0, 0, 0, 0]) +
                          np.pad([[1e9], [0], [0]], ((0, 1), (3, 0))), frame_on_second=np.eye(4)),
     "pair 'X': frame_on_first", r"length beyond 1e\+06 m"),
]


@pytest.mark.parametrize("action, where, problem", [case[1:] for case in BUILDER_MISTAKES],
                         ids=[case[0] for case in BUILDER_MISTAKES])
def test_builder_rejects_with_a_located_message(action, where, problem):
    """Each builder mistake raises ModelError at once, at its object and key, and adds nothing (DESIGN.md Errors)."""
    # Each builder mistake raises ModelError at once, located at the object and key, and the rejected call adds nothing
    # to the builder (DESIGN.md "Errors").
    m = four_bar()
    before = names(m)
    with pytest.raises(ModelError) as caught:
        action(m)
    assert_located(caught, where, problem)
    assert names(m) == before


@pytest.mark.parametrize("add", ["spring", "force"])
@pytest.mark.parametrize("variable", ["S.0", "S.2"])
def test_spring_or_force_on_a_spherical_component_is_rejected(add, variable):
    """Spherical components (a rotation vector, not additive) take no spring or pair force."""
    # A spherical pair's values are a rotation vector, not additive coordinates, so its components take neither springs
    # nor pair forces (model.py add_pair_spring).
    m = spatial_all_pairs()
    with pytest.raises(ModelError) as caught:
        if add == "spring":
            m.add_pair_spring(variable, stiffness=3.0)
        else:
            m.add_pair_force(variable, 1.0)
    kind = "pair spring" if add == "spring" else "pair force"
    assert_located(caught, f"{kind} on {variable!r}", rf"{re.escape(repr(variable))} is a spherical-pair component")


def test_spring_on_a_multi_variable_pair_names_its_components():
    """A spring must name one variable of a Hooke pair; the message lists U.0 and U.1."""
    m = spatial_all_pairs()
    with pytest.raises(ModelError) as caught:
        m.add_pair_spring("U", stiffness=3.0)
    assert_located(caught, "pair spring on 'U'", r"pair 'U' has 2 variables; name one of U\.0, U\.1")
    m.add_pair_spring("U.1", stiffness=3.0)  # a component is fine


@pytest.mark.parametrize("driver, problem", [
    ("E", r"not a pair variable or point driver \(known: A, B, C, D\)"),
    ("P", r"not a pair variable or point driver"),          # a point, not a variable
    ("coupler", r"not a pair variable or point driver"),    # a link
])
def test_sweep_rejects_a_driver_that_is_not_a_pair_variable(driver, problem):
    """sweep() rejects a driver that is no pair variable with a located ModelError listing the known ones."""
    # Drivers are checked when a sweep starts (sweep.py): a name that is no pair variable raises ModelError located at
    # the driver, listing the known variables.
    m = four_bar()
    with pytest.raises(ModelError) as caught:
        m.sweep({driver: np.linspace(0.0, 0.1, 3)})
    assert_located(caught, f"driver {driver!r}", problem)


@pytest.mark.parametrize("driver, problem", [
    ("U", r"pair 'U' has 2 variables; drive one of U\.0, U\.1"),
    ("S.1", r"spherical-pair component cannot be driven"),
])
def test_sweep_rejects_drivers_that_cannot_be_driven(driver, problem):
    """A whole multi-variable pair, or a spherical component (not additive), is no driver."""
    m = spatial_all_pairs()
    with pytest.raises(ModelError) as caught:
        m.sweep({driver: [0.0, 0.1], "P": 0.0})
    assert_located(caught, f"driver {driver!r}", problem)


@pytest.mark.parametrize("analysis", ["check", "sweep"])
def test_disconnected_link_is_reported_by_check_and_sweep(analysis):
    """A link joined to nothing is reported, located, by check() and sweep() (it cannot be placed)."""
    # A link joined to nothing cannot be placed: check() and sweep() raise ModelError naming it (graph.spanning_tree);
    # the builder itself accepts the link (pairs may follow).
    m = four_bar()
    m.add_link("loose")
    m.add_link("dangling")
    m.add_pair("L", "revolute", "loose", "dangling", at=(9, 0, 0), axis=(0, 0, 1))
    with pytest.raises(ModelError) as caught:
        m.check() if analysis == "check" else m.sweep({"A": [0.1]})
    assert_located(caught, "link 'loose'", r"not connected to 'ground' through any pair")


def test_snapshot_is_cached_until_the_builder_changes():
    """snapshot() is one frozen object until the builder changes, then a new one; old ones stay frozen."""
    # snapshot() is the same frozen object until an add_* or set_* call, then a new one; the old one is a frozen
    # dataclass (attributes cannot be reassigned).
    m = four_bar()
    first = m.snapshot()
    assert m.snapshot() is first
    m.set_gravity((0.0, -9.81, 0.0))
    second = m.snapshot()
    assert second is not first
    assert_array_equal(first.gravity, [0.0, 0.0, 0.0])
    assert_array_equal(second.gravity, [0.0, -9.81, 0.0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.name = "renamed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.pairs[0].first = "rocker"


def test_editing_the_builder_does_not_change_an_old_result():
    """Edits after a sweep never change its result, which keeps its snapshot (DESIGN.md Model vs state)."""
    # A SweepResult keeps its snapshot (DESIGN.md "Model vs state"): after gravity, links, pairs, points and a point
    # driver are added, the old result reads exactly as before, while a new sweep sees the new model.
    m = four_bar()
    values = np.linspace(0.0, 1.0, 5)
    old = m.sweep({"A": values}, speeds={"A": 1.0})
    copies = {name: old.q(name) for name in "ABCD"}
    P, V = old.point("P"), old.point_velocity("P")
    pose = old.pose("coupler")
    old_model = old.model
    m.set_gravity((0.0, -9.81, 0.0))
    m.add_link("flag", mass=2.0, com=(2, 1, 0.5), inertia=np.diag([1.0, 1.0, 1.5]))
    m.add_pair("F", "revolute", "coupler", "flag", at=(2, 1, 0), axis=(1, 0, 0))
    m.add_point("tip", "flag", at=(2, 1, 1))
    m.add_point_driver("lift", point="P", direction=(0, 1, 0))
    m.add_pair_spring("F", stiffness=10.0)
    assert old.model is old_model
    assert [p.name for p in old.model.pairs] == ["A", "B", "C", "D"]
    assert [link.name for link in old.model.links] == ["ground", "crank", "coupler", "rocker"]
    assert old.model.point_drivers == () and old.model.pair_springs == ()
    assert_array_equal(old.model.gravity, [0.0, 0.0, 0.0])
    assert old.variable_names == ["A", "B", "C", "D"]
    assert old.point_names == ["P", "B_pin", "C_pin"]
    for name in "ABCD":
        assert_array_equal(old.q(name), copies[name])
    assert_array_equal(old.point("P"), P)
    assert_array_equal(old.point_velocity("P"), V)
    assert_array_equal(old.pose("coupler"), pose)
    new = m.sweep({"A": values, "F": 0.0})
    assert "F" in new.variable_names and "lift" in new.variable_names
    # Same closure for the old pairs: the flag hangs on the coupler and changes nothing.
    assert_allclose(new.q("D"), old.q("D"), rtol=1e-12, atol=1e-12)


def test_assemble_changes_later_snapshots_only():
    """assemble() stores a new reference in later snapshots only; an earlier result keeps the design pose."""
    # assemble() stores a new reference; a result computed before keeps the old snapshot (its reference is the design
    # pose, zeros).
    m = four_bar()
    old = m.sweep({"A": [0.0, 0.2]})
    m.assemble({"A": 0.3}, hold=("A",))
    assert old.model.reference == ()
    assert_array_equal(dict(m.snapshot().reference)["A"], [0.3])


def _writable_arrays(obj, path):
    """Paths of writable numpy arrays reachable through dataclasses and tuples."""
    if isinstance(obj, np.ndarray):
        return [path] if obj.flags.writeable else []
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [p for f in dataclasses.fields(obj) for p in _writable_arrays(getattr(obj, f.name), f"{path}.{f.name}")]
    if isinstance(obj, tuple):
        return [p for i, x in enumerate(obj) for p in _writable_arrays(x, f"{path}[{i}]")]
    return []


def test_snapshot_arrays_are_read_only():
    """Snapshots are frozen with read-only arrays (DESIGN.md), so no write through a view reaches a result."""
    # DESIGN.md/STYLE.md: analyses take snapshot(), 'a frozen dataclass with read-only arrays', so no write through the
    # builder's read-only views can reach an old result.
    m = spatial_all_pairs()
    m.set_gravity((0.0, 0.0, -9.81))
    snapshot = m.snapshot()
    assert _writable_arrays(snapshot, "model") == []


def test_a_message_is_one_short_line_however_long_the_value():
    """ModelError keeps its message on one line and within mechanism.limits.MAX_MESSAGE characters."""
    error = ModelError("pair 'B': at", "expected 3 numbers, got " + "1, " * 100_000 + "\nand more")
    assert "\n" not in str(error) and len(str(error)) <= 400 and str(error).endswith(" ...")
    assert str(error).startswith("pair 'B': at: expected 3 numbers, got 1, 1, ")


@pytest.mark.parametrize("analysis", [lambda m: m.check(), lambda m: m.sweep({"A": [0.0]}),
                                      lambda m: m.assemble({})])
def test_a_mechanism_without_pairs_cannot_be_analysed(analysis):
    from mechanism import Mechanism

    m = Mechanism("empty")
    m.add_link("lonely")
    with pytest.raises(ModelError) as caught:
        analysis(m)
    assert_located(caught, "mechanism 'empty'", r"has no pairs: add at least one pair \(add_pair\) to analyse it")


def test_a_mechanism_smaller_than_a_micrometre_is_refused():
    """Pair centres spanning 1e-7 m: a closure tolerance relative to 1 m would accept open
    loops, one relative to the size would be below round-off (mechanism/limits.py MIN_SIZE)."""
    from mechanism import Mechanism

    tiny = Mechanism("tiny")
    for link in ("crank", "coupler", "rocker"):
        tiny.add_link(link)
    scale = 2.5e-8
    for name, first, second, at in (("A", "ground", "crank", (0, 0, 0)), ("B", "crank", "coupler", (1, 0, 0)),
                                    ("C", "coupler", "rocker", (3, 2, 0)), ("D", "rocker", "ground", (4, 0, 0))):
        tiny.add_pair(name, "revolute", first, second, at=np.array(at) * scale, axis=(0, 0, 1))
    with pytest.raises(ModelError) as caught:
        tiny.check()
    assert_located(caught, "mechanism 'tiny'", r"its pair centres span 1.12e-07 m; a mechanism must span at least "
                   r"1e-06 m, or have all its pairs meet at one point")
    pendulum = Mechanism("pendulum")  # one pair: its centres meet at one point
    pendulum.add_link("rod", mass=1.0, com=(0.5, 0, 0))
    pendulum.add_pair("O", "revolute", "ground", "rod", at=(0, 0, 0), axis=(0, 0, 1))
    assert pendulum.check().dof == 1
