"""The planar pair end to end: the sixth lower pair, added as its family module and a registry entry.

References, each independent of the planar family's own formulas:

* its equivalent chain, a prismatic pair along the plane's X, one along its Y and a revolute
  pair about the normal (the same motion by construction): the sweeps' values, points,
  rates and accelerations agree to round-off;
* a block on a tilted plane driven by a crank (``core_models.block_on_plane``) in closed
  form: the crank turns the block's pin B about the normal by phi, the block turns by psi,
  so its centre C goes to ``R(phi) B + R(psi) (C - B)`` (R: rotation about the normal,
  scipy's), and the planar values are that displacement along the plane's X and Y and psi;
  rates and accelerations by differentiating it by hand;
* Grubler-Kutzbach and the rank of a planar loop (3 of its 6 equations repeat);
* the mirror image of the whole mechanism, swept as a model of its own, for the mirror rule;
* model files (byte-for-byte round trip; the slides in the file's length unit, the turn in
  its angle unit), the builder's errors, hardpoints, the plot marker.
"""

from __future__ import annotations

import tomllib

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from core_models import PLANE_NORMAL, block_on_plane, block_points
from loops import plotting
from mechanism import Mechanism, ModelError, load_model, save_model
from mechanism.hardpoints import hardpoints_of
from mechanism.pairs import PAIR_TYPES
from mechanism.specs import PairSpec
from mechanism.transforms import frame_from_axis

#: Crank angles swept, rad (a closed form holds at every one; no dead point: B is a revolute).
ANGLES = np.linspace(-1.0, 2.5, 36)
CRANK_SPEED = 1.3  # rad/s
# Positions: the corrector closes to 1e-10 of the size and both references are the same
# products in another order; rates and accelerations are linear solves with the same B.
TOL = 1e-9


def turn(normal, angle):
    """Rotation matrices (N, 3, 3) about ``normal`` by ``angle`` (N,), scipy's."""
    return Rotation.from_rotvec(np.outer(angle, normal)).as_matrix()


def closed_form(phi, psi, phi_dot, psi_dot, normal=PLANE_NORMAL):
    """Planar values, rates and accelerations (each (N, 3): x, y along the plane's X, Y and the
    turn psi) of the block whose crank is at phi and which has turned by psi about the normal,
    at constant rates (phi'' = psi'' = 0)."""
    n = np.asarray(normal) / np.linalg.norm(normal)
    pin, centre = block_points(n)
    plane = frame_from_axis(centre, n)[:3, :2]  # X, Y
    arm = np.einsum("nij,j->ni", turn(n, psi), centre - pin)
    tip = np.einsum("nij,j->ni", turn(n, phi), pin)
    C = tip + arm
    C_dot = phi_dot[:, None] * np.cross(n, tip) + psi_dot[:, None] * np.cross(n, arm)
    C_ddot = (phi_dot[:, None] ** 2 * np.cross(n, np.cross(n, tip))
              + psi_dot[:, None] ** 2 * np.cross(n, np.cross(n, arm)))
    values = np.column_stack([(C - centre) @ plane, psi])
    rates = np.column_stack([C_dot @ plane, psi_dot])
    accelerations = np.column_stack([C_ddot @ plane, np.zeros_like(psi)])
    return values, rates, accelerations


def sweep(model, hold):
    return model.sweep({"A": ANGLES}, speeds={"A": CRANK_SPEED}, accelerations={"A": 0.0}, hold=[hold])


@pytest.mark.parametrize("hold, turns", [("P.2", False), ("B", True)])
def test_block_on_a_plane_against_its_closed_form(hold, turns):
    """Holding the block's turn on the plane (P.2) it translates; holding its pin (B) it turns with
    the crank (psi = phi). Values, rates and accelerations of P (and B) as the closed form."""
    result = sweep(block_on_plane(), hold)
    assert result.held == [hold]
    psi = ANGLES if turns else np.zeros_like(ANGLES)
    psi_dot = np.full_like(ANGLES, CRANK_SPEED if turns else 0.0)
    values, rates, accelerations = closed_form(ANGLES, psi, np.full_like(ANGLES, CRANK_SPEED), psi_dot)
    assert_allclose(result.q("P"), values, rtol=0, atol=TOL)
    assert_allclose(result.q_dot("P"), rates, rtol=0, atol=TOL)
    assert_allclose(result.q_ddot("P"), accelerations, rtol=0, atol=TOL)
    assert_allclose(result.q("B"), psi - ANGLES, rtol=0, atol=TOL)
    for k, name in enumerate(("P.0", "P.1", "P.2")):
        assert_allclose(result.q(name), values[:, k], rtol=0, atol=TOL)


@pytest.mark.parametrize("hold, chain_hold", [("P.2", "Pr"), ("B", "B")])
def test_planar_pair_moves_as_two_slides_and_a_turn(hold, chain_hold):
    """The planar pair and its chain (prismatic along X, prismatic along Y, revolute about the
    normal) give the same values, rates, accelerations and points, to round-off."""
    planar = sweep(block_on_plane(), hold)
    chain = sweep(block_on_plane(chain=True), chain_hold)
    for k, name in enumerate(("Px", "Py", "Pr")):
        assert_allclose(planar.q("P")[:, k], chain.q(name), rtol=0, atol=1e-12)
        assert_allclose(planar.q_dot("P")[:, k], chain.q_dot(name), rtol=0, atol=1e-12)
        assert_allclose(planar.q_ddot("P")[:, k], chain.q_ddot(name), rtol=0, atol=1e-12)
    for get in ("point", "point_velocity", "point_acceleration"):
        assert_allclose(getattr(planar, get)("T"), getattr(chain, get)("T"), rtol=0, atol=1e-12, err_msg=get)
    assert_allclose(planar.pose("block"), chain.pose("block"), rtol=0, atol=1e-12)


def test_mobility_of_a_planar_loop_and_of_a_block_alone():
    """The crank-block loop: 5 variables, one loop, Grubler 5 - 6 = -1; its equations in the
    plane's normal direction and its tilts repeat (rank 3): dof 2, redundant 3. The same with
    the equivalent chain. A block alone on a plane has the pair's three freedoms."""
    for model in (block_on_plane(), block_on_plane(chain=True)):
        report = model.check()
        assert (report.grubler, report.dof, report.passive, report.redundant) == (-1, 2, 0, 3)
    alone = Mechanism("block")
    alone.add_link("block")
    alone.add_pair("P", "planar", "ground", "block", at=(0.1, 0, 0), axis=(0, 0, 1))
    report = alone.check()
    assert (report.grubler, report.dof, report.passive, report.redundant) == (3, 3, 0, 0)
    assert alone.variable_names() == ["P.0", "P.1", "P.2"]


@pytest.mark.parametrize("normal", [PLANE_NORMAL, (0.5, 0.1, 1.0), (1.0, 0.3, 0.2)])
def test_mirror_signs_relate_a_sweep_to_its_mirror_image(normal):
    """Mirrored across y = 0 (every centre and axis), the mechanism swept with the crank turned
    the other way (a turn changes hand) reads the original's values times the planar type's
    mirror signs. The plane's X comes from another global axis for each normal: the signs
    differ ((1, -1, -1), (-1, 1, -1))."""
    M = np.diag([1.0, -1.0, 1.0])
    model = block_on_plane(normal=normal)
    image = Mechanism("image")
    for link in ("crank", "block"):
        image.add_link(link)
    for pair in model.snapshot().pairs:
        image.add_pair(pair.name, pair.kind, pair.first, pair.second, at=M @ pair.at, axis=M @ pair.axis)
    original = model.sweep({"A": ANGLES}, hold=["B"])
    mirrored = image.sweep({"A": -ANGLES}, hold=["B"])
    planar = model.snapshot().pair("P")
    signs = planar.pair_type.mirror_signs(planar, M)
    assert_allclose(mirrored.q("P"), original.q("P") * signs, rtol=0, atol=TOL)
    assert np.all(np.abs(original.q("P")).max(axis=0) > 0.01)  # every component moves


def test_a_shared_planar_pair_must_lie_in_its_own_mirror_image():
    planar = PAIR_TYPES["planar"]()
    M = np.diag([1.0, -1.0, 1.0])

    def spec(at, axis):
        frame_j, frame_k = planar.frames(np.asarray(at, float), np.asarray(axis, float))
        return PairSpec("P", planar, "ground", "rack", frame_j, frame_k, at=np.asarray(at, float),
                        axis=np.asarray(axis, float) / np.linalg.norm(axis))

    assert planar.mirror_problem(spec((0.1, 0.3, 0.0), (0, 0, 1)), M, np.array([0.1, -0.3, 0.0]), 1e-9,
                                 "y = 0 m") is None  # the floor: its own image
    assert planar.mirror_problem(spec((0.1, 0.0, 0.0), (0, 1, 0)), M, np.array([0.1, 0.0, 0.0]), 1e-9,
                                 "y = 0 m") is None  # the centre plane itself
    for at, axis, image in (((0.1, 0.3, 0.0), (0, 1, 0), (0.1, -0.3, 0.0)),   # parallel to it, off it
                            ((0.0, 0.0, 0.0), (0, 1, 1), (0.0, 0.0, 0.0))):   # tilted across it
        assert planar.mirror_problem(spec(at, axis), M, np.array(image), 1e-9, "y = 0 m") == \
            "its plane is not its own mirror image"


def test_model_file_round_trip_in_file_units(tmp_path):
    """A planar pair with springs on a slide and on the turn, saved in mm and deg: the slides'
    stiffness in N/mm and free values in mm, the turn's in N mm/deg and deg; load gives the same
    model and saving again the same bytes."""
    model = block_on_plane()
    model.add_pair_spring("P.1", stiffness=2000.0, free_value=0.004, damping=3.0)
    model.add_pair_spring("P.2", stiffness=5.0, free_value=0.1)
    model.add_pair_force("P.0", 7.0)
    first = tmp_path / "block.toml"
    save_model(model, first, units=("mm", "deg"))
    tables = tomllib.loads(first.read_text())
    assert tables["pairs"][-1]["type"] == "planar"
    slide, turn = tables["pair_springs"]
    # Written as the shortest numbers that read back as the SI values: within round-off of
    # the converted ones.
    assert_allclose([slide["stiffness"], slide["free_value"], slide["damping"]], [2.0, 4.0, 3e-3], rtol=1e-15)
    assert_allclose([turn["stiffness"], turn["free_value"]], [5.0e3 * np.pi / 180, np.degrees(0.1)], rtol=1e-15)
    assert tables["pair_forces"][0]["force"] == 7.0  # N on a slide
    loaded = load_model(first)
    second = tmp_path / "again.toml"
    save_model(loaded, second)
    assert second.read_bytes() == first.read_bytes()
    a, b = model.snapshot().pair("P"), loaded.snapshot().pair("P")
    assert type(b.pair_type) is type(a.pair_type)
    assert_allclose(b.frame_on_first, a.frame_on_first, rtol=0, atol=1e-15)
    assert_allclose(loaded.sweep({"A": ANGLES[:5]}, hold=["B"]).q("P"),
                    model.sweep({"A": ANGLES[:5]}, hold=["B"]).q("P"), rtol=0, atol=1e-12)


def test_builder_errors_name_the_pair_and_key():
    m = Mechanism("block")
    m.add_link("block")
    cases = [(dict(at=(0, 0, 0)), "pair 'P': axis: a planar pair needs an axis"),
             (dict(at=(0, 0, 0), axis=(0, 0, 1), axes=((1, 0, 0), (0, 1, 0))),
              "pair 'P': axes: only a Hooke pair takes axes=, not 'planar'"),
             (dict(at=(0, 0, 0), axis=(0, 0, 1), pitch=0.01), "pair 'P': pitch: only a helical pair takes a pitch, "
                                                               "not 'planar'"),
             (dict(at=(0, 0, 0), axis=(0, 0, 0)), "pair 'P': axis: zero-length direction (0, 0, 0)")]
    for kwargs, message in cases:
        with pytest.raises(ModelError) as info:
            m.add_pair("P", "planar", "ground", "block", **kwargs)
        assert str(info.value) == message
    m.add_pair("P", "planar", "ground", "block", at=(0, 0, 0), axis=(0, 0, 1))
    with pytest.raises(ModelError) as info:
        m.sweep({"P": [0.0, 0.1]})
    assert "pair 'P' has 3 variables; drive one of P.0, P.1, P.2" in str(info.value)


def test_the_centre_is_a_hardpoint_and_the_normal_is_not():
    points = hardpoints_of(block_on_plane().snapshot())
    assert "P" in points and "P.axis" not in points
    assert "A.axis" in points and "B.axis" in points  # revolute axes are


def test_snapshot_marks_the_planar_pair_with_its_marker(tmp_path):
    result = block_on_plane().sweep({"A": ANGLES[:5]}, hold=["B"])
    fig = plotting.plot_snapshot(result, 2, path=tmp_path / "snap.png")
    ax = fig.axes[0]
    assert {text.get_text() for text in ax.get_legend().get_texts()} == {"revolute", "planar"}
    markers = {line.get_marker() for line in ax.lines if line.get_linestyle() == "None"}
    assert plotting.PAIR_MARKERS["planar"] == "h" and "h" in markers
