"""Corner and axle files (loops.suspension.files, corner_from_table, vehicle_from_table) and
the sanity checks on their input: one located line per mistake (file, table, key).

Each case edits one line of a shipped example and expects the exact location; each guard
has a case here that fails when the guard is removed (the mistake would otherwise pass, or
fail later with another message).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from loops.suspension import Corner, Suspension, Vehicle, corner_from_table, load_suspension, parallel_travel
from mechanism import ModelError
from mechanism.model_file import Units

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
FRONT = (EXAMPLES / "front_axle.toml").read_text()
REAR = (EXAMPLES / "five_link_rear.toml").read_text()


def write(tmp_path, text, name="front.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def edited(old, new, text=FRONT):
    assert old in text, old
    return text.replace(old, new, 1)


def test_corner_table_in_file_units():
    corner = corner_from_table({"upright": "u", "wheel_centre": "c", "spin_axis_point": "i",
                                "kingpin": ["a", "b"], "wheel_radius": 300, "side": "left",
                                "centre_plane_y": 12.5, "shared": ["rack"]}, Units("mm", "deg"))
    assert corner == Corner("u", "c", "i", ("a", "b"), 0.3, "left", centre_plane_y=0.0125, shared=("rack",))


def test_shipped_files_load():
    front = load_suspension(EXAMPLES / "front_axle.toml")
    assert front.is_axle and front.name == "front-axle" and front.units == Units("mm", "deg")
    assert front.vehicle == Vehicle(axle="front", wheelbase=2.7, cg_height=0.55, track=1.56, brake_front=0.65,
                                    drive_front=1.0, brakes="outboard", rack_travel_per_turn=-0.05,
                                    mass=1500.0, front_weight=0.6)
    assert front.design_track() == pytest.approx(1.56, abs=1e-15)
    rear = load_suspension(EXAMPLES / "five_link_rear.toml")
    assert not rear.is_axle and rear.corners["left"].kingpin is None
    assert load_suspension(EXAMPLES / "double_wishbone.toml").vehicle is None


MISTAKES = {
    # the case: a radius in m in a mm file (or mm in an m file): 1000 times off
    "radius in m in a mm file": (edited("wheel_radius = 300", "wheel_radius = 0.3"),
                                 "front.toml: corner.wheel_radius", "0.0003 m is 0.000532 times the size of the model"),
    # a file in the wrong unit throughout is self-consistent (a model 1000 times larger)
    "every length in one unit": (edited('length = "mm"', 'length = "m"'), None, None),
    "track 1000x": (edited("track = 1560 ", "track = 1560000 "), "front.toml: vehicle.track", "1e+03 times"),
    "wheelbase 1000x": (edited("wheelbase = 2700", "wheelbase = 2.7"), "front.toml: vehicle.wheelbase",
                        "0.00173 times"),
    "cg height 1000x": (edited("cg_height = 550", "cg_height = 550000"), "front.toml: vehicle.cg_height",
                        "times the size"),
    "track not the geometry's": (edited("track = 1560 ", "track = 1500 "), "front.toml: vehicle.track",
                                 "the contact patches are 1.56 m apart"),
    "upright is a pair": (edited('upright = "upright"', 'upright = "lower_ball"'), "front.toml: corner.upright",
                          "'lower_ball' is not a link"),
    "upright is the body": (edited('upright = "upright"', 'upright = "ground"'), "front.toml: corner.upright",
                            "cannot be the ground"),
    "kingpin horizontal": (edited('kingpin = ["lower_ball", "upper_ball"]', 'kingpin = ["hub_inner", "wheel_centre"]'),
                           "front.toml: corner.kingpin", "leans 90.0 deg from the vertical"),
    "kingpin points coincide": (edited('kingpin = ["lower_ball", "upper_ball"]', 'kingpin = ["wheel_centre", "hub"]'),
                                "front.toml: corner.kingpin", "its points coincide"),
    "kingpin a ball pair alone": (edited('kingpin = ["lower_ball", "upper_ball"]', 'kingpin = "lower_ball"'),
                                  "front.toml: corner.kingpin", "is a spherical pair"),
    "wheel centre on the arm": (edited('spin_axis_point = "hub_inner"', 'spin_axis_point = "coil_lower"'),
                                "front.toml: corner.spin_axis_point", "on link 'lower_arm'"),
    "unknown corner key": (edited("wheel_radius = 300", "wheel_radius = 300\nwheel_radious = 3"),
                           "front.toml: corner.wheel_radious", "unknown key"),
    "missing corner key": (edited('side = "left"\n', ''), "front.toml: corner.side", "missing required key"),
    "radius not a number": (edited("wheel_radius = 300", 'wheel_radius = "300"'),
                            "front.toml: corner.wheel_radius", "expected a number"),
    "steering not a variable": (edited('steering = "rack_travel"', 'steering = "rack"'),
                                "front.toml: corner.steering", "'rack' is not a pair variable"),
    "share out of range": (edited("brake_front = 0.65", "brake_front = 65"), "front.toml: vehicle.brake_front",
                           "between 0 and 1"),
    "unknown vehicle key": (edited("cg_height = 550", "cg_height = 550\ncog = 1"), "front.toml: vehicle.cog",
                            "unknown key"),
    "axle mirror false": (edited("[axle]\nmirror = true", "[axle]\nmirror = false"), "front.toml: axle.mirror",
                          "mirror = true"),
    "travel driver sideways": (edited("direction = [0, 0, 1]", "direction = [0, 1, 0]"), "front.toml: corner.travel",
                               "along +z"),
    "no corner table": (edited('[corner]\nupright = "upright"', '[cornr]\nupright = "upright"'),
                        "front.toml: cornr", "unknown table"),
}


@pytest.mark.parametrize("case", sorted(MISTAKES))
def test_each_mistake_is_one_located_line(tmp_path, case):
    text, where, problem = MISTAKES[case]
    path = write(tmp_path, text)
    if where is None:
        load_suspension(path)
        return
    with pytest.raises(ModelError) as info:
        load_suspension(path)
    message = str(info.value)
    assert "\n" not in message
    assert info.value.where == where, message
    assert problem in message, message


def test_virtual_steering_axis_needs_the_steering_variable(tmp_path):
    path = write(tmp_path, REAR.replace('steering = "toe_adjust"    # no kingpin: the steering axis is the upright\'s '
                                        'instant screw axis\n', ''), "rear.toml")
    with pytest.raises(ModelError, match="no steering axis") as info:
        load_suspension(path)
    assert info.value.where == "rear.toml: corner.kingpin"


def test_a_steering_variable_that_does_not_steer(tmp_path):
    """The five-link's virtual axis taken from a variable that does not turn the upright (a
    flap on the body): no screw axis, one located line."""
    text = REAR.replace('steering = "toe_adjust"', 'steering = "flap"') + (
        '\n[[links]]\nname = "flapper"\n\n[[pairs]]\nname = "flap"\ntype = "revolute"\n'
        'links = ["ground", "flapper"]\nat = [0, 0, 900]\naxis = [1, 0, 0]\n')
    suspension = load_suspension(write(tmp_path, text, "rear.toml"))
    with pytest.raises(ModelError, match="'flap' does not turn the upright") as info:
        parallel_travel(suspension, [0.0])
    assert info.value.where == "corner.steering"


def test_axle_from_two_files_names_the_corner_file(tmp_path):
    left = write(tmp_path, FRONT.replace("[axle]\nmirror = true\n", ""), "left.toml")
    right = write(tmp_path, FRONT.replace("[axle]\nmirror = true\n", "").replace('side = "left"', 'side = "right"')
                  .replace("wheel_radius = 300", "wheel_radius = 0.3"), "right.toml")
    axle = write(tmp_path, '[units]\nlength = "mm"\nangle = "deg"\n[axle]\nleft = "left.toml"\nright = "right.toml"\n',
                 "axle.toml")
    with pytest.raises(ModelError) as info:
        load_suspension(axle)
    assert info.value.where == "right.toml: corner.wheel_radius"
    del left, right


def test_wheel_radius_check_is_what_stops_a_1000x_scrub():
    """The issue's mistake (a radius of 300 taken as metres gave scrub = -33 m), with the
    corner built in Python: the check is in resolve(), so every analysis meets it."""
    m = load_suspension(EXAMPLES / "double_wishbone.toml").mechanism
    corner = Corner("upright", "wheel_centre", "hub_inner", ("lower_ball", "upper_ball"), 300.0, "left")
    with pytest.raises(ModelError, match="wheel_radius 300 m is 585 times") as info:
        Suspension.of_corner(m, corner)
    assert info.value.where == "corner.wheel_radius"


# ----------------------------------------------------------------- more guards, each once
DW = (EXAMPLES / "double_wishbone.toml").read_text()
CORNER_BLOCK = DW[DW.index("[corner]"):DW.index('travel = "travel"\n') + len('travel = "travel"\n')]


@pytest.mark.parametrize("text, where, problem", [
    (DW.replace(CORNER_BLOCK, ""), "dw.toml: corner", "missing table [corner]"),
    ("axle = 3\n" + DW, "dw.toml: axle", "expected a table [axle]"),
    (DW + "\n[axle]\nmirrors = true\n", "dw.toml: axle.mirrors", "unknown key"),
    (DW + "\n[axle]\nleft = 3\nright = 'dw.toml'\n", "dw.toml: axle.left", "path of a corner file"),
    (DW.replace('length = "mm"', 'length = "m"') + "\n[axle]\nleft = 'other.toml'\nright = 'other.toml'\n",
     "dw.toml: axle.left", "give both in the same units"),
    (DW.replace('side = "left"', 'side = "left"\nspring = ["wheel_centre", "hub_inner"]'), "dw.toml: corner.spring",
     "both ends are on link 'upright'"),
    (DW.replace('kingpin = ["lower_ball", "upper_ball"]', 'kingpin = "lower_inner"'), "dw.toml: corner.kingpin",
     "a pair between 'ground' and 'lower_arm', not on the upright"),
    (DW.replace('travel = "travel"', 'travel = "hub"'), "dw.toml: corner.travel", "'hub' is not a point driver"),
    (DW.replace('side = "left"', 'side = "left"\nshared = ["rack"]'), "dw.toml: corner.shared",
     "'rack' is not a link"),
    (DW.replace('side = "left"', 'side = "left"\nshared = "rack"'), "dw.toml: corner.shared",
     "expected a list of link names"),
    (DW.replace('kingpin = ["lower_ball", "upper_ball"]', 'steering = "travel"'), "dw.toml: corner.steering",
     "'travel' is not a pair variable"),
    (DW.replace("[corner]", '[vehicle]\naxle = "middle"\n[corner]'), "dw.toml: vehicle.axle", "'front' or 'rear'"),
    (DW.replace("[corner]", '[vehicle]\nbrakes = "drum"\n[corner]'), "dw.toml: vehicle.brakes", "'outboard'"),
    (DW.replace("[corner]", '[vehicle]\nwheelbase = -2700\n[corner]'), "dw.toml: vehicle.wheelbase",
     "must be positive"),
    (DW.replace("[corner]", '[vehicle]\nrack_travel_per_turn = 0\n[corner]'),
     "dw.toml: vehicle.rack_travel_per_turn", "must not be zero"),
    (DW.replace("[corner]", '[vehicle]\nwheelbase = "long"\n[corner]'), "dw.toml: vehicle.wheelbase",
     "expected a number"),
    (DW.replace("[corner]", '[vehicle]\ncg_height = inf\n[corner]'), "dw.toml: vehicle.cg_height",
     "non-finite value"),
    ("vehicle = 3\n" + DW, "dw.toml: vehicle", "expected a table [vehicle]"),
    ("corner = 3\n" + DW.replace(CORNER_BLOCK, ""), "dw.toml: corner", "expected a table [corner]"),
    (DW.replace("wheel_radius = 300", "wheel_radius = true"), "dw.toml: corner.wheel_radius", "expected a number"),
], ids=lambda value: value if isinstance(value, str) and value.startswith("dw.toml") else "")
def test_more_mistakes_are_located(tmp_path, text, where, problem):
    (tmp_path / "other.toml").write_text(DW)
    path = write(tmp_path, text, "dw.toml")
    with pytest.raises(ModelError) as info:
        load_suspension(path)
    assert info.value.where == where, str(info.value)
    assert problem in str(info.value)


def test_two_corners_steering_by_different_variables(tmp_path):
    """A rear axle mirrored from the five-link: each side's toe adjuster is its own."""
    rear = load_suspension(EXAMPLES / "five_link_rear.toml").axle()
    assert rear.steering == ["toe_adjust_left", "toe_adjust_right"]
    from loops.suspension import steering

    with pytest.raises(ModelError, match="steer by different variables") as info:
        steering(rear, [0.0])
    assert info.value.where == "corner.steering"


@pytest.mark.parametrize("content, problem", [
    (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested more than 16 deep"),
    (b"\xff\xfe not text", "not UTF-8"),
])
def test_the_model_file_limits_hold_before_its_tables_are_read(tmp_path, content, problem):
    """``load_suspension`` reads a model within a model file's limits (mechanism/limits.py)
    before parsing its tables: nesting 5,000 deep is one located line, not a RecursionError
    (issue 24); the size limit is the model reader's, checked before reading past it."""
    path = tmp_path / "deep.toml"
    path.write_bytes(content)
    with pytest.raises(ModelError, match=problem) as info:
        load_suspension(path)
    assert info.value.where.startswith("deep.toml")


def test_an_endless_model_file_is_refused_at_the_size_limit(monkeypatch):
    """``/dev/zero`` as the model: refused after reading at most the size limit (16 MiB),
    where it was read whole before (killed at 24 GB, issue 24). The reads are counted."""
    import io
    import mechanism.model_file as model_file
    from mechanism.limits import MAX_FILE_BYTES

    read = []
    real_open = open

    class Endless(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buffer):
            buffer[:] = b"\0" * len(buffer)
            read.append(len(buffer))
            if sum(read) > 4 * MAX_FILE_BYTES:
                raise MemoryError("read past the limit")
            return len(buffer)

    def fake_open(path, mode="r", *args, **kwargs):
        if str(path).endswith("zero.toml"):
            return io.BufferedReader(Endless())
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", fake_open)
    with pytest.raises(ModelError, match="larger than") as info:
        load_suspension("zero.toml")
    assert info.value.where == "zero.toml" and sum(read) <= 2 * MAX_FILE_BYTES


@pytest.mark.parametrize("value, text", [("1e30", r"beyond the 1e\+06 m"), ("1e5", "times the size of the model")])
def test_a_centre_plane_out_of_reach_is_located_at_its_key(tmp_path, value, text):
    """``centre_plane_y = 1e30`` (or 100 m in a mm file) is one line at ``corner.centre_plane_y``,
    not at a mirrored link's ``com`` (issue 24)."""
    path = tmp_path / "front.toml"
    path.write_text((EXAMPLES / "front_axle.toml").read_text().replace('side = "left"\n',
                                                                         f'side = "left"\ncentre_plane_y = {value}\n'))
    with pytest.raises(ModelError, match=text) as info:
        load_suspension(path)
    assert info.value.where == "front.toml: corner.centre_plane_y"
