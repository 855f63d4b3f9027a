"""TOML model files (mechanism/model_file.py): units at the boundary, exact round trips,
and one located line for every mistake in a file."""

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechanism import Mechanism, ModelError, load_model, save_model
from mechanism import _validate
from mechanism import model_file, model_reader, toml_values
from mechanism.model_file import Units, read_model
from mechanism.pairs import PairType


# ----------------------------------------------------------------------------- helpers
def assert_same(a, b, path="model", ulps=0):
    """Recursive equality of snapshot records: arrays and numbers bit for bit (or within
    ``ulps`` units in the last place), shapes, types and everything else exactly."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) or (ulps and isinstance(a, float)):
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        assert a_arr.shape == b_arr.shape, f"{path}: shape {a_arr.shape} != {b_arr.shape}"
        if ulps:
            assert np.all(np.abs(a_arr - b_arr) <= ulps * np.spacing(np.abs(a_arr))), f"{path}: {a_arr!r} != {b_arr!r}"
        else:
            assert np.array_equal(a_arr, b_arr), f"{path}: {a_arr!r} != {b_arr!r}"
    elif dataclasses.is_dataclass(a):
        assert type(a) is type(b), f"{path}: {type(a)} != {type(b)}"
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", ulps)
    elif isinstance(a, PairType):
        assert type(a) is type(b), f"{path}: {type(a)} != {type(b)}"
        assert_same(vars(a), vars(b), path, ulps)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), f"{path}: keys {a.keys()} != {b.keys()}"
        for key in a:
            assert_same(a[key], b[key], f"{path}[{key!r}]", ulps)
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]", ulps)
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} != {b!r}"


def every_feature_mechanism():
    """One of everything a file can hold, with awkward numbers (axes off unit length,
    lengths that are not whole millimetres, a table load, a Hooke pair at an oblique angle)."""
    m = Mechanism("kitchen sink")
    m.add_link("crank", mass=1.3, com=(0.0123, 0.0456, -0.0071),
               inertia=[[0.0121, 0.0003, 0.0], [0.0003, 0.0211, 0.0001], [0.0, 0.0001, 0.0197]])
    for name in ("coupler", "rocker", "slider", "sleeve", "screw", "yoke", "ball"):
        m.add_link(name, mass=0.1)
    m.add_pair("A", "revolute", "ground", "crank", at=(0.0, 0.0, 0.0), axis=(0.3, -0.2, 0.7))
    m.add_pair("B", "prismatic", "crank", "slider", at=(0.1, 0.2, 0.3), axis=(1, 1, 0))
    m.add_pair("C", "cylindrical", "slider", "sleeve", at=(0.0641, 0.055, 0.0), axis=(0.1, 0.2, 0.3))
    m.add_pair("D", "helical", "sleeve", "screw", at=(0.05, 0.01, 0.02), axis=(0, 0, -2), pitch=0.00125)
    m.add_pair("U", "hooke", "screw", "yoke", at=(0.3, 0.1, 0.7), axes=((1, 2, 3), (-3, 1, 0.5)))
    m.add_pair("S", "spherical", "yoke", "ball", at=(1 / 3, 2 / 3, 0.1))
    m.add_pair("E", "revolute", "ball", "coupler", at=(0.2, 0.2, 0.2), axis=(0, 1, 0))
    m.add_pair("F", "revolute", "coupler", "rocker", at=(0.3, 0.2, 0.1), axis=(0, 0, 1))
    m.add_point("P", "coupler", at=(0.0641, 0.055, 0.0))
    m.add_point("Q", "rocker", at=(0.001, -0.002, 0.003), local=True)
    m.add_point_driver("travel", point="P", direction=(0.1, 0.2, 0.9))
    m.set_gravity((0.0, -9.81, 0.0))
    m.add_pair_spring("A", stiffness=5.5, free_value=0.1, damping=0.01)
    m.add_pair_spring("B", stiffness=1234.5, free_value=0.0123, damping=2.5)
    m.add_pair_spring("U.1", stiffness=2.0, free_value=-0.3)
    m.add_pair_spring("travel", stiffness=30000.0, free_value=0.002, damping=1500.0)
    m.add_pair_force("A", 0.75)
    m.add_pair_force("C.1", ([0.0, 0.5, 1.0], [1.0, -2.0, 0.25]))
    m.add_spring_damper("strut", "coupler", (0.2, 0.1, 0.0), "ground", (0.2, 0.3, 0.0),
                        stiffness=100.0, free_length=0.19, damping=2.0)
    m.add_spring_damper("bump", "rocker", (0.25, 0.1, 0.0), "ground", (0.27, 0.31, 0.05), stiffness=1.0)
    m.add_point_force("push", "rocker", at=(0.4, 0.1, 0.0), force=(0.0, -1.0, 0.5))
    m.add_point_force("gust", "coupler", at=(0.3, 0.1, 0.0),
                      force=([0.0, 1.0], [[0.0, 0.0, 1.0], [0.5, 0.0, 1.0]]))
    return m


def local_frames_mechanism():
    """A Denavit-Hartenberg style pair chain declared with link-local 4x4 frames."""
    from mechanism.transforms import dh_transform

    m = Mechanism("local")
    m.add_link("a")
    m.add_link("b")
    m.add_pair("J1", "revolute", "ground", "a",
               frame_on_first=np.eye(4), frame_on_second=dh_transform(a=0.0125, alpha=0.3))
    m.add_pair("J2", "cylindrical", "a", "b",
               frame_on_first=dh_transform(a=0.1, d=0.02, theta=0.4), frame_on_second=np.eye(4))
    m.add_point("tip", "b", at=(0.05, 0.0, 0.0), local=True)
    return m


FOUR_BAR = """\
name = "crank-rocker"
[units]
length = "mm"
angle = "deg"
[gravity]
vector = [0, -9810, 0]

[[links]]
name = "crank"
mass = 0.1
com = [20, 0, 0]
inertia = [[0, 0, 0], [0, 13.3, 0], [0, 0, 13.3]]

[[links]]
name = "coupler"

[[links]]
name = "rocker"

[[pairs]]
name = "A"
type = "revolute"
links = ["ground", "crank"]
at = [0, 0, 0]
axis = [0, 0, 1]

[[pairs]]
name = "B"
type = "revolute"
links = ["crank", "coupler"]
at = [40, 0, 0]
axis = [0, 0, 1]

[[pairs]]
name = "C"
type = "revolute"
links = ["coupler", "rocker"]
at = [120, 80, 0]
axis = [0, 0, 1]

[[pairs]]
name = "D"
type = "revolute"
links = ["rocker", "ground"]
at = [160, 0, 0]
axis = [0, 0, 1]

[[points]]
name = "P"
link = "coupler"
at = [64.1, 55.0, 0]

[[pair_springs]]
pair = "D"
stiffness = 2.0
free_value = 10
damping = 0.5

[[spring_dampers]]
name = "strut"
link_a = "coupler"
at_a = [80, 40, 0]
link_b = "ground"
at_b = [80, 140, 0]
stiffness = 3.0
free_length = 90
damping = 0.25

[[pair_forces]]
pair = "A"
force = {times = [0, 1], values = [100, 200]}

[[point_forces]]
name = "push"
link = "rocker"
at = [160, 50, 0]
force = [0, -1, 0]
"""


EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"
RSSR = EXAMPLES_DIR / "rssr.toml"
BENNETT = EXAMPLES_DIR / "bennett.toml"


def write(tmp_path, text, name="four_bar.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- reading
def test_mm_deg_file_is_converted_to_si_at_the_boundary(tmp_path):
    model = load_model(write(tmp_path, FOUR_BAR)).snapshot()
    # Conversions are single divisions or products, so compare at round-off (1e-15 relative).
    tol = dict(rtol=1e-15, atol=0.0)
    crank = model.link("crank")
    np.testing.assert_allclose(crank.com, [0.020, 0, 0], **tol)
    np.testing.assert_allclose(crank.inertia, np.diag([0, 13.3e-6, 13.3e-6]), **tol)
    assert crank.mass == 0.1
    np.testing.assert_allclose(model.gravity, [0, -9.81, 0], **tol)
    np.testing.assert_allclose(model.pair("C").at, [0.120, 0.080, 0], **tol)
    np.testing.assert_allclose(model.point("P").at, [0.0641, 0.055, 0], **tol)
    spring = model.pair_springs[0]
    # Pair D is an angle: N mm/deg -> N m/rad, N mm s/deg -> N m s/rad, deg -> rad.
    np.testing.assert_allclose(spring.stiffness, 2.0e-3 * 180 / np.pi, **tol)
    np.testing.assert_allclose(spring.damping, 0.5e-3 * 180 / np.pi, **tol)
    np.testing.assert_allclose(spring.free_value, np.radians(10), **tol)
    strut = model.spring_dampers[0]
    # Point to point: N/mm -> N/m, N s/mm -> N s/m, mm -> m.
    np.testing.assert_allclose([strut.stiffness, strut.damping, strut.free_length], [3000, 250, 0.09], **tol)
    # A pair force on an angle is a torque: N mm -> N m; times stay seconds.
    times, values = model.pair_forces[0].force
    np.testing.assert_array_equal(times, [0, 1])
    np.testing.assert_allclose(values, [0.1, 0.2], **tol)
    np.testing.assert_array_equal(model.point_forces[0].force, [0, -1, 0])


def test_slide_variables_use_length_units(tmp_path):
    text = FOUR_BAR.replace('type = "revolute"\nlinks = ["rocker", "ground"]',
                            'type = "prismatic"\nlinks = ["rocker", "ground"]')
    model = load_model(write(tmp_path, text)).snapshot()
    spring = model.pair_springs[0]
    # Pair D is now a slide: N/mm -> N/m, N s/mm -> N s/m, mm -> m.
    np.testing.assert_allclose([spring.stiffness, spring.damping, spring.free_value],
                               [2000.0, 500.0, 0.010], rtol=1e-15, atol=0)


def test_read_model_reports_the_file_units(tmp_path):
    loaded = read_model(write(tmp_path, FOUR_BAR))
    assert loaded.units == Units("mm", "deg")
    assert loaded.mechanism.name == "crank-rocker"
    assert read_model(write(tmp_path, FOUR_BAR.replace('length = "mm"\nangle = "deg"\n', ""))).units == Units()


def test_axes_need_not_be_unit_length_and_universal_is_hooke(tmp_path):
    text = FOUR_BAR.replace('at = [120, 80, 0]\naxis = [0, 0, 1]', 'at = [120, 80, 0]\naxis = [0, 0, 7]')
    text += ('\n[[links]]\nname = "yoke"\n\n[[pairs]]\nname = "U"\ntype = "universal"\n'
             'links = ["rocker", "yoke"]\nat = [1, 2, 3]\naxes = [[0, 0, 5], [0, 2, 0]]\n')
    model = load_model(write(tmp_path, text)).snapshot()
    np.testing.assert_array_equal(model.pair("C").axis, [0, 0, 1])
    assert model.pair("U").pair_type.kind == "hooke"
    np.testing.assert_array_equal(model.pair("U").axes[1], [0, 1, 0])


# ------------------------------------------------------------------------ round trips
@pytest.mark.parametrize("units", [None, ("mm", "deg"), ("mm", "rad"), ("m", "deg")])
def test_save_load_save_is_byte_identical(tmp_path, units):
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    model_file.save_model(every_feature_mechanism(), first, units=units)
    loaded = load_model(first)
    model_file.save_model(loaded, second, units=units)
    assert first.read_bytes() == second.read_bytes()
    # ... and the loaded model equals the one saved, bit for bit (every value written is the
    # number that converts back to the value in memory).
    assert_same(loaded.snapshot(), load_model(second).snapshot())


@pytest.mark.parametrize("units", [None, ("mm", "deg")])
def test_load_save_load_gives_equal_snapshots(tmp_path, units):
    original = load_model(write(tmp_path, FOUR_BAR))
    again = tmp_path / "again.toml"
    model_file.save_model(original, again, units=units)
    assert_same(original.snapshot(), load_model(again).snapshot())


def test_si_round_trip_keeps_python_values_exactly(tmp_path):
    m = every_feature_mechanism()
    path = tmp_path / "m.toml"
    save_model(m, path)  # the public entry point: SI
    assert 'length = "m"' in path.read_text() and 'angle = "rad"' in path.read_text()
    loaded = load_model(path).snapshot()
    original = m.snapshot()
    # Directions may move by the builder's normalization (a last bit); everything else is exact.
    for a, b in zip(original.pairs, loaded.pairs):
        if a.axis is not None:
            np.testing.assert_allclose(a.axis, b.axis, rtol=0, atol=4e-16)
    assert_same(original.links, loaded.links)
    assert_same(original.points, loaded.points)
    assert_same(original.pair_springs, loaded.pair_springs)
    assert_same(original.pair_forces, loaded.pair_forces)
    assert_same(original.spring_dampers, loaded.spring_dampers)
    assert_same(original.point_forces, loaded.point_forces)
    assert_same(original.gravity, loaded.gravity)


def test_mm_file_writes_short_numbers(tmp_path):
    path = tmp_path / "m.toml"
    model_file.save_model(load_model(write(tmp_path, FOUR_BAR)), path, units=("mm", "deg"))
    text = path.read_text()
    assert "at = [64.1, 55.0, 0.0]" in text
    assert "inertia = [[0.0, 0.0, 0.0], [0.0, 13.3, 0.0], [0.0, 0.0, 13.3]]" in text
    assert "vector = [0.0, -9810.0, 0.0]" in text
    assert "free_value = 10.0" in text


def test_local_frames_are_saved_as_4x4_arrays(tmp_path):
    m = local_frames_mechanism()
    for units in (None, ("mm", "deg")):
        first, second = tmp_path / "a.toml", tmp_path / "b.toml"
        model_file.save_model(m, first, units=units)
        text = first.read_text()
        assert "frame_on_first = [[" in text and "at = " not in text.split("[[points]]")[0]
        loaded = load_model(first)
        model_file.save_model(loaded, second, units=units)
        assert first.read_bytes() == second.read_bytes()
        assert_same(m.snapshot().pairs, loaded.snapshot().pairs)
        assert loaded.snapshot().pair("J1").local


def test_callable_load_cannot_be_saved_and_the_file_is_untouched(tmp_path):
    m = every_feature_mechanism()
    path = tmp_path / "m.toml"
    path.write_text("old contents")
    m.add_point_force("wind", "rocker", at=(0, 0, 0), force=lambda t: (t, 0.0, 0.0))
    with pytest.raises(ModelError) as info:
        save_model(m, path)
    assert str(info.value) == (
        "m.toml: point_forces[2] ('wind'): force: point force 'wind' is a function of time, which a "
        "model file cannot hold; give a number or a (times, values) table")
    assert path.read_text() == "old contents"
    assert os.listdir(tmp_path) == ["m.toml"]  # no temporary file left behind


def test_callable_pair_force_is_named(tmp_path):
    m = load_model(write(tmp_path, FOUR_BAR))
    m.add_pair_force("B", lambda t: 0.5)
    with pytest.raises(ModelError, match=r"pair_forces\[1\] \('B'\): force: pair force on 'B' is a function"):
        save_model(m, tmp_path / "out.toml")


def test_save_is_atomic_and_leaves_no_temporary_files(tmp_path):
    path = tmp_path / "m.toml"
    save_model(every_feature_mechanism(), path)
    save_model(every_feature_mechanism(), path)
    assert sorted(os.listdir(tmp_path)) == ["m.toml"]
    assert oct(path.stat().st_mode & 0o777) != oct(0o600)  # not the temporary file's private mode


def test_unknown_save_units_are_rejected(tmp_path):
    with pytest.raises(ModelError, match=r"units: length: unknown unit 'cm' \(expected m or mm\)"):
        model_file.save_model(every_feature_mechanism(), tmp_path / "m.toml", units=("cm", "deg"))


def test_names_that_need_quoting_survive(tmp_path):
    m = Mechanism('odd "names" \\ here')
    m.add_link("link\twith tab")
    m.add_pair("pair é", "revolute", "ground", "link\twith tab", at=(0, 0, 0), axis=(0, 0, 1))
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    save_model(m, first)
    loaded = load_model(first)
    save_model(loaded, second)
    assert first.read_bytes() == second.read_bytes()
    assert loaded.name == m.name and "link\twith tab" in loaded.links and "pair é" in loaded.pairs


# ------------------------------------------------------------------ exactness properties
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(value=finite, quantity=st.sampled_from(sorted(model_file.QUANTITIES)),
       units=st.sampled_from([Units("mm", "deg"), Units("mm", "rad"), Units("m", "deg")]))
def test_unit_conversion_round_trips_exactly(value, quantity, units):
    """Any in-memory value: write, read, write gives the same number (save -> load -> save)."""
    written = units.from_si(value, quantity)
    read = units.to_si(written, quantity)
    assert units.from_si(read, quantity) == written
    # A file value read and written back reads as the same in-memory value (load -> save -> load).
    si = units.to_si(value, quantity)
    assert units.to_si(units.from_si(si, quantity), quantity) == si


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), min_size=3, max_size=3)
       .filter(lambda v: np.linalg.norm(v) > 1e-6))
def test_directions_are_written_as_fixed_points_of_the_normalization(vector):
    """The builder stores v/|v|; what is written must normalize to itself."""
    canonical = toml_values.canonical_direction(vector, "axis")
    assert np.array_equal(_validate.direction(canonical, "axis"), canonical)
    np.testing.assert_allclose(canonical, np.asarray(vector) / np.linalg.norm(vector), rtol=0, atol=1e-15)


# ---------------------------------------------------------------------- bad input
def edit(old, new, count=1):
    def apply(text):
        assert text.count(old) >= count, old
        return text.replace(old, new, count)
    return apply


C_AXIS = 'at = [120, 80, 0]\naxis = [0, 0, 1]'
C_LINKS = 'links = ["coupler", "rocker"]'

BAD_FILES = {
    "zero axis": (edit(C_AXIS, 'at = [120, 80, 0]\naxis = [0, 0, 0]'),
                  "four_bar.toml: pairs[2] ('C'): axis: zero-length direction [0, 0, 0]"),
    "non-finite axis": (edit(C_AXIS, 'at = [120, 80, 0]\naxis = [nan, 0, 1]'),
                        "four_bar.toml: pairs[2] ('C'): axis: non-finite value in [nan, 0, 1]"),
    "unknown key": (edit(C_AXIS, 'at = [120, 80, 0]\naxys = [0, 0, 1]'),
                    "four_bar.toml: pairs[2] ('C'): axys: unknown key (did you mean 'axis'?) (expected name, "
                    "type, links, at, axis, axes, pitch, frame_on_first, frame_on_second)"),
    "unknown table": (lambda t: t + '\n[[joints]]\nname = "J"\n',
                      "four_bar.toml: joints: unknown table (did you mean 'points'?) (expected name, use_bushings, units, gravity, links, "
                      "pairs, points, point_drivers, pair_springs, pair_forces, spring_dampers, point_forces, "
                      "link_moments, bushings, assemble, corner, vehicle, axle)"),
    "unknown top-level key": (lambda t: "nmae = 'x'\n" + t,
                              "four_bar.toml: nmae: unknown key (did you mean 'name'?) (expected name, "
                              "use_bushings, units, gravity, links, pairs, points, point_drivers, pair_springs, "
                              "pair_forces, spring_dampers, point_forces, link_moments, bushings, assemble, corner, vehicle, "
                              "axle)"),
    "unknown pair type": (edit('type = "revolute"\n' + C_LINKS, 'type = "revolving"\n' + C_LINKS),
                          "four_bar.toml: pairs[2] ('C'): type: unknown pair type 'revolving' (expected "
                          "one of bushing, cylindrical, helical, hooke, planar, prismatic, revolute, spherical, universal, weld)"),
    "missing link": (edit(C_LINKS, 'links = ["coupler", "rockr"]'),
                     "four_bar.toml: pairs[2] ('C'): links: unknown link 'rockr'"),
    "missing link in a point": (edit('link = "coupler"\nat = [64.1', 'link = "copuler"\nat = [64.1'),
                                "four_bar.toml: points[0] ('P'): link: unknown link 'copuler'"),
    "duplicate link": (edit('name = "rocker"', 'name = "coupler"'),
                       "four_bar.toml: links[2] ('coupler'): name: a link of that name exists already"),
    "duplicate pair": (edit('name = "D"', 'name = "C"'),
                       "four_bar.toml: pairs[3] ('C'): name: a pair or driver of that name exists already"),
    "wrong vector length": (edit('at = [120, 80, 0]', 'at = [120, 80]'),
                            "four_bar.toml: pairs[2] ('C'): at: expected 3 numbers, got shape (2,) ([120, 80])"),
    "wrong inertia shape": (edit("inertia = [[0, 0, 0], [0, 13.3, 0], [0, 0, 13.3]]", "inertia = [1, 2, 3]"),
                            "four_bar.toml: links[0] ('crank'): inertia: expected a 3x3 matrix, got shape (3,)"),
    "pair joining a link to itself": (edit(C_LINKS, 'links = ["coupler", "coupler"]'),
                                      "four_bar.toml: pairs[2] ('C'): links: joins link 'coupler' to itself"),
    "links not a pair of names": (edit(C_LINKS, 'links = ["coupler"]'),
                                  "four_bar.toml: pairs[2] ('C'): links: expected [first, second] link names, "
                                  "got ['coupler']"),
    "unknown length unit": (edit('length = "mm"', 'length = "cm"'),
                            "four_bar.toml: units: length: unknown unit 'cm' (expected m or mm)"),
    "unknown angle unit": (edit('angle = "deg"', 'angle = "grad"'),
                           "four_bar.toml: units: angle: unknown unit 'grad' (expected rad or deg)"),
    "missing required key": (edit('type = "revolute"\n' + C_LINKS, C_LINKS),
                             "four_bar.toml: pairs[2] ('C'): type: missing required key"),
    "missing point location": (edit('link = "coupler"\nat = [64.1, 55.0, 0]', 'link = "coupler"'),
                               "four_bar.toml: points[0] ('P'): at: missing required key"),
    "negative mass": (edit("mass = 0.1", "mass = -1"),
                      "four_bar.toml: links[0] ('crank'): mass: must be >= 0.0, got -1"),
    "negative converted stiffness is quoted as written": (
        edit("stiffness = 3.0", "stiffness = -3.0"),
        "four_bar.toml: spring_dampers[0] ('strut'): stiffness: must be >= 0.0, got -3.0"),
    "string among numbers": (edit("com = [20, 0, 0]", 'com = ["20", 0, 0]'),
                             "four_bar.toml: links[0] ('crank'): com: expected numbers, got '20' (str)"),
    "gravity of wrong length": (edit("vector = [0, -9810, 0]", "vector = [0, -9810]"),
                                "four_bar.toml: gravity: vector: expected 3 numbers, got shape (2,) ([0, -9810])"),
    "gravity not a table": (lambda t: "gravity = [0, -9810, 0]\n" + t.replace("[gravity]\nvector = [0, -9810, 0]\n", ""),
                            "four_bar.toml: gravity: expected a table [gravity] with vector = [gx, gy, gz]"),
    "spring on an unknown variable": (edit('pair = "D"', 'pair = "Z"'),
                                      "four_bar.toml: pair_springs[0] ('Z'): pair: unknown pair variable 'Z'"),
    "tabulated force without values": (edit("force = {times = [0, 1], values = [100, 200]}",
                                            "force = {times = [0, 1]}"),
                                       "four_bar.toml: pair_forces[0] ('A'): force: a tabulated force needs "
                                       "values = [...]"),
    "tabulated force with decreasing times": (edit("times = [0, 1]", "times = [1, 0]"),
                                              "four_bar.toml: pair_forces[0] ('A'): force: table times must "
                                              "increase strictly"),
    "point force of wrong length": (edit("force = [0, -1, 0]", "force = [0, -1]"),
                                    "four_bar.toml: point_forces[0] ('push'): force: expected 3 numbers or a "
                                    "table {times = [...], values = [...]}, got [0, -1]"),
    "spring-damper on one link": (edit('link_b = "ground"', 'link_b = "coupler"'),
                                  "four_bar.toml: spring_dampers[0] ('strut'): link_b: joins link 'coupler' "
                                  "to itself"),
    "links given as a table": (edit('[[links]]\nname = "rocker"', '[links]\nname = "rocker"'),
                               None),  # a TOML error: [[links]] already defined as an array
    "name not a string": (edit('name = "crank-rocker"', "name = 3"),
                          "four_bar.toml: name: a name must be a non-empty string without surrounding "
                          "blanks, got 3"),
    "point driver on an unknown point": (lambda t: t + '\n[[point_drivers]]\nname = "travel"\npoint = "W"\n'
                                         'direction = [0, 0, 1]\n',
                                         "four_bar.toml: point_drivers[0] ('travel'): point: unknown point 'W'"),
    "hooke pins parallel": (lambda t: t + '\n[[links]]\nname = "yoke"\n\n[[pairs]]\nname = "U"\ntype = "hooke"\n'
                            'links = ["rocker", "yoke"]\nat = [1, 2, 3]\naxes = [[0, 0, 1], [0, 0, 2]]\n',
                            "four_bar.toml: pairs[4] ('U'): axes: the two pins are parallel"),
    # issue 12: what used to be a traceback, or accepted, or misleading
    "coordinates of 1e200": (edit("at = [40, 0, 0]", "at = [1e200, 0, 0]"),
                             "four_bar.toml: pairs[1] ('B'): at: [1e+200, 0, 0] holds a length beyond 1e+06 m, "
                             "the largest a model may hold"),
    "mass of 1e300": (edit("mass = 0.1", "mass = 1e300"),
                      "four_bar.toml: links[0] ('crank'): mass: [1e+300] holds a number beyond 1e+12 in SI units, "
                      "the largest a model may hold"),
    "a huge integer": (edit("mass = 0.1", "mass = " + "9" * 400),
                       "four_bar.toml: links[0] ('crank'): mass: 99999999999999999999999999999999999999999 ... is "
                       "beyond the range of a float"),
    "pair force vector on a revolute pair": (edit("force = {times = [0, 1], values = [100, 200]}",
                                                  "force = [1, 2, 3]"),
                                             "four_bar.toml: pair_forces[0] ('A'): force: expected a number or a "
                                             "table {times = [...], values = [...]}, got [1, 2, 3]"),
    "table of vectors for a pair force": (edit("values = [100, 200]", "values = [[1, 2, 3], [4, 5, 6]]"),
                                          "four_bar.toml: pair_forces[0] ('A'): force.values: expected a number "
                                          "per time, got shape (3,) per time"),
    "point force as a number": (edit("force = [0, -1, 0]", "force = 5"),
                                "four_bar.toml: point_forces[0] ('push'): force: expected 3 numbers or a table "
                                "{times = [...], values = [...]}, got 5"),
    "link connected to nothing": (lambda t: t + '\n[[links]]\nname = "lonely"\n',
                                  "four_bar.toml: links[3] ('lonely'): is not connected to 'ground' through any pair"),
}


def test_an_axis_of_1e308_is_a_direction(tmp_path):
    """An axis need not be unit length, however long: no overflow warning, no 'zero-length'."""
    path = write(tmp_path, FOUR_BAR.replace("at = [120, 80, 0]\naxis = [0, 0, 1]", "at = [120, 80, 0]\naxis = [0, 0, 1e308]"))
    assert np.array_equal(load_model(path).pairs["C"].axis, [0.0, 0.0, 1.0])
    path = write(tmp_path, FOUR_BAR.replace("at = [120, 80, 0]\naxis = [0, 0, 1]",
                                            "at = [120, 80, 0]\naxis = [1e308, 1e308, 1e308]"))
    assert np.allclose(load_model(path).pairs["C"].axis, np.full(3, 3 ** -0.5), rtol=0, atol=1e-15)


@pytest.mark.parametrize("text", ["", "   \n\t\n", "# only a comment\n", 'name = "x"\n',
                                  '[units]\nlength = "mm"\n', '[[links]]\nname = "a"\n'])
def test_a_model_without_pairs_is_refused(tmp_path, text):
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, text))
    assert str(info.value) == ("four_bar.toml: pairs: the model has no pairs: a mechanism needs at least one "
                               "[[pairs]] table")


def test_pair_centres_far_from_the_origin_are_refused(tmp_path):
    """An RSSR 1e5 m from the origin (1e8 mm, 3e5 of its sizes) cannot be closed to its tolerance."""
    text = RSSR.read_text()
    far = text.replace("at = [280, -50, 74]", "at = [100000280, -50, 74]").replace(
        "at = [0, 0, 0]", "at = [100000000, 0, 0]").replace("at = [40, 0, 0]", "at = [100000040, 0, 0]").replace(
        "at = [280, 30, 50]", "at = [100000280, 30, 50]")
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, far, "rssr.toml"))
    assert str(info.value).startswith("rssr.toml: pairs[2] ('rocker_ball'): at: its centre lies 1e+05 m from the "
                                      "origin, 3.33e+05 times the mechanism's size (0.3 m); pair centres must lie "
                                      "within 10000 sizes of the origin")
    near = text.replace("at = [280, -50, 74]", "at = [1280, -50, 74]").replace(
        "at = [0, 0, 0]", "at = [1000, 0, 0]").replace("at = [40, 0, 0]", "at = [1040, 0, 0]").replace(
        "at = [280, 30, 50]", "at = [1280, 30, 50]")
    assert load_model(write(tmp_path, near, "rssr.toml")).check().dof == 1  # 1 m away is fine


def test_an_rssr_at_1e300_is_refused_not_reported_as_dof_5(tmp_path):
    text = RSSR.read_text().replace("at = [0, 0, 0]", "at = [1e300, 0, 0]")
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, text, "rssr.toml"))
    assert str(info.value) == ("rssr.toml: pairs[0] ('crank_angle'): at: [1e+300, 0, 0] holds a length beyond "
                               "1e+06 m, the largest a model may hold")


def test_a_link_local_model_that_does_not_close_needs_a_guess(tmp_path):
    text = BENNETT.read_text()
    text = text[:text.rindex("[assemble.guess]")]
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, text, "bennett.toml"))
    assert str(info.value) == ("bennett.toml: assemble.guess: the loops do not close (loop 1 (J3): J1-J2-J3-J4, "
                               "defect 2.74) at zero pair values: a model declared by link-local frames needs "
                               "[assemble.guess] with rough pair values")


def test_a_file_larger_than_the_limit_is_refused_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(model_reader, "MAX_FILE_BYTES", 1000)
    path = write(tmp_path, FOUR_BAR + "# padding " * 200)
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == ("four_bar.toml: larger than 1000 bytes (0.000953674 MiB), the most a model file "
                               "may hold")


def test_the_file_size_limit_is_16_mib():
    from mechanism.limits import MAX_FILE_BYTES

    assert model_reader.MAX_FILE_BYTES == MAX_FILE_BYTES == 16 * 2**20


@pytest.mark.parametrize("depth, line", [(17, 6), (5000, 6)])
def test_arrays_nested_too_deep_are_refused(tmp_path, depth, line):
    text = FOUR_BAR.replace("vector = [0, -9810, 0]", "vector = " + "[" * depth + "]" * depth)
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, text))
    assert str(info.value) == (f"four_bar.toml: line {line}: arrays or tables nested more than 16 deep, the most a "
                               "model file may hold")


def test_brackets_in_strings_and_comments_do_not_nest(tmp_path):
    text = FOUR_BAR.replace('name = "P"', 'name = "' + "[" * 40 + '"  # ' + "{" * 40)
    assert "[" * 40 in load_model(write(tmp_path, text)).points


def test_a_huge_value_is_quoted_short(tmp_path):
    """A 100,000-number vector is one line of a few hundred characters, not a megabyte."""
    text = FOUR_BAR.replace("at = [40, 0, 0]", "at = [" + ", ".join(["1"] * 100_000) + "]")
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, text))
    message = str(info.value)
    assert message.startswith("four_bar.toml: pairs[1] ('B'): at: expected 3 numbers, got shape (100000,) ([1, 1, 1, ")
    assert len(message) <= 400 and "\n" not in message


@pytest.mark.parametrize("path", [None, 3, ""])
def test_what_is_not_a_file_name_is_a_located_error(path):
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert info.value.where == "path"
    with pytest.raises(ModelError) as info:
        save_model(Mechanism("m"), path)
    assert info.value.where == "path"


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_every_mistake_is_one_located_line(tmp_path, case):
    change, expected = BAD_FILES[case]
    path = write(tmp_path, change(FOUR_BAR))
    with pytest.raises(ModelError) as info:
        load_model(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("four_bar.toml: ")
    if expected is not None:
        assert message == expected


def test_toml_syntax_error_names_line_and_column(tmp_path):
    text = FOUR_BAR.replace("at = [120, 80, 0]", "at = [120, 80, 0")
    line = text.splitlines().index("at = [120, 80, 0") + 2  # the parser notices on the next line
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, text))
    message = str(info.value)
    assert message.startswith(f"four_bar.toml: line {line}, column 1: TOML syntax error: ")
    assert "\n" not in message


def test_missing_file_is_a_model_error(tmp_path):
    with pytest.raises(ModelError, match=r"^absent\.toml: cannot read the model file"):
        load_model(tmp_path / "absent.toml")


def test_spherical_component_takes_no_spring(tmp_path):
    text = FOUR_BAR.replace('type = "revolute"\n' + C_LINKS, 'type = "spherical"\n' + C_LINKS)
    text = text.replace(C_AXIS, "at = [120, 80, 0]").replace('pair = "D"', 'pair = "C.0"')
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, text))
    assert str(info.value) == ("four_bar.toml: pair_springs[0] ('C.0'): pair: 'C.0' is a spherical-pair "
                               "component; only additive pair variables take springs and forces")


def test_spherical_pair_rejects_an_axis(tmp_path):
    text = FOUR_BAR.replace('type = "revolute"\n' + C_LINKS, 'type = "spherical"\n' + C_LINKS)
    with pytest.raises(ModelError) as info:
        load_model(write(tmp_path, text))
    assert str(info.value) == "four_bar.toml: pairs[2] ('C'): axis: a spherical pair takes no axis"


# -------------------------------------------------------------- link-local assemblies
def local_four_bar():
    """A planar four-bar stated by link shapes (each link's frame at its first pin)."""
    from mechanism.transforms import translation

    m = Mechanism("local four-bar")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    eye = np.eye(4)
    m.add_pair("A", "revolute", "ground", "crank", frame_on_first=eye, frame_on_second=eye)
    m.add_pair("B", "revolute", "crank", "coupler", frame_on_first=translation([0.04, 0, 0]), frame_on_second=eye)
    m.add_pair("C", "revolute", "coupler", "rocker", frame_on_first=translation([0.12, 0, 0]), frame_on_second=eye)
    m.add_pair("D", "revolute", "rocker", "ground", frame_on_first=translation([0.08, 0, 0]),
               frame_on_second=translation([0.1, 0, 0]))
    return m


@pytest.mark.parametrize("units", [None, ("mm", "deg")])
def test_assembled_reference_round_trips(tmp_path, units):
    m = local_four_bar()
    m.assemble({"A": 0.5, "B": 0.6, "C": -2.0})
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    model_file.save_model(m, first, units=units)
    assert "[assemble.guess]" in first.read_text()
    loaded = load_model(first)  # closes the loops again, from the saved (closed) values
    if units is None:
        assert_same(m.snapshot(), loaded.snapshot())
    else:
        # An assembly computed in SI need not be a float that any decimal number of degrees
        # converts back to exactly; the writer then uses the nearest (mechanism.model_file,
        # from_si), so the reload may sit a few ulp away, still closed. Everything else is exact.
        assert loaded.units == Units(*units)  # the file's units, remembered
        assert_same(dataclasses.replace(m.snapshot(), reference=(), units=loaded.units),
                    dataclasses.replace(loaded.snapshot(), reference=()))
        for (name, before), (again, after) in zip(m.snapshot().reference, loaded.snapshot().reference):
            assert name == again
            assert np.all(np.abs(after - before) <= 4 * np.spacing(np.abs(before))), name
    model_file.save_model(loaded, second, units=units)
    assert first.read_bytes() == second.read_bytes()


def test_loop_that_cannot_close_is_located(tmp_path):
    m = local_four_bar()
    m.assemble({"A": 0.5, "B": 0.6, "C": -2.0})
    path = tmp_path / "four_bar.toml"
    model_file.save_model(m, path, units=("mm", "deg"))
    coupler = "[[1.0, 0.0, 0.0, 120.0],"
    assert coupler in path.read_text()
    path.write_text(path.read_text().replace(coupler, "[[1.0, 0.0, 0.0, 10.0],"))  # too short to close
    with pytest.raises(ModelError) as info:
        load_model(path)
    message = str(info.value)
    assert message.startswith("four_bar.toml: assemble: the loops cannot close from this guess: ")
    assert "\n" not in message


def test_assembly_guess_of_unknown_pair_is_located(tmp_path):
    m = local_four_bar()
    m.assemble({"A": 0.5, "B": 0.6, "C": -2.0})
    path = tmp_path / "four_bar.toml"
    model_file.save_model(m, path)
    path.write_text(path.read_text() + "E = 0.5\n")
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == "four_bar.toml: assemble.guess: E: unknown pair 'E'"


# examples/*_vary.toml are design-study vary files, not models
EXAMPLES = sorted(p for p in (Path(__file__).resolve().parents[1] / "examples").glob("*.toml")
                  if not p.stem.endswith("_vary"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
@pytest.mark.parametrize("units", [None, ("mm", "deg")])
def test_example_files_round_trip(tmp_path, example, units):
    loaded = load_model(example)
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    model_file.save_model(loaded, first, units=units)
    again = load_model(first)
    # The default is the model's own units (its file's); other units are remembered too.
    assert again.units == (loaded.units if units is None else Units(*units))
    if again.units == loaded.units:
        assert_same(loaded.snapshot(), again.snapshot())
    else:
        # In other units a value may have no file number that converts back to it exactly
        # (two roundings, mechanism/units.py from_si: 0.5 N m/rad has none in N mm/deg); the
        # writer then uses the nearest, so the reload may sit an ulp or two away.
        assert_same(dataclasses.replace(loaded.snapshot(), units=again.units), again.snapshot(), ulps=4)
    model_file.save_model(again, second, units=units)
    assert first.read_bytes() == second.read_bytes()
