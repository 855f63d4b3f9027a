"""Mechanisms for the dynamics tests, built as the references in
``tests/reference/dynamics_references.py`` prescribe (see each reference's docstring).

Every builder returns a :class:`mechanism.Mechanism`; geometry is global at the design pose.
"""

import tomllib
from pathlib import Path

import numpy as np

from mechanism import Mechanism
from reference import spatial_slider_crank as ssc
from reference.dynamics_references import (
    RodDoublePendulum,
    SliderCrank,
    SolarArray,
    SpringPendulum,
    WattGovernor,
    governor_arm_link,
    governor_points,
    slider_crank_points,
)


def thin_link_inertia(moment, direction):
    """Central inertia of a thin link along ``direction`` with moment ``moment`` about any normal axis."""
    u = np.asarray(direction, dtype=float)
    u = u / np.linalg.norm(u)
    return moment * (np.eye(3) - np.outer(u, u))


def double_pendulum(p=RodDoublePendulum()):
    """Rods along +x at the design pose: the pair variables are theta_1 and theta_2."""
    l1, l2, m1, m2, g = p.values()
    m = Mechanism("rod double pendulum")
    m.add_link("rod1", mass=m1, com=(l1 / 2, 0, 0), inertia=thin_link_inertia(m1 * l1**2 / 12, (1, 0, 0)))
    m.add_link("rod2", mass=m2, com=(l1 + l2 / 2, 0, 0), inertia=thin_link_inertia(m2 * l2**2 / 12, (1, 0, 0)))
    m.add_pair("O", "revolute", "ground", "rod1", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("A", "revolute", "rod1", "rod2", at=(l1, 0, 0), axis=(0, 0, 1))
    m.add_point("tip", "rod2", at=(l1 + l2, 0, 0))
    m.set_gravity((0, -g, 0))
    return m


def solar_array(p=SolarArray()):
    """Folded at the design pose (phi1 = pi/2, phi2 = 0); pair variables phi1 - pi/2 and phi2."""
    L1, L2, m1, m2, J1, J2 = p.inertial_values()
    m = Mechanism("solar array")
    m.add_link("panel1", mass=m1, com=(0, L1, 0), inertia=thin_link_inertia(J1, (0, 1, 0)))
    m.add_link("panel2", mass=m2, com=(0, 2 * L1 - L2, 0), inertia=thin_link_inertia(J2, (0, 1, 0)))
    m.add_pair("root", "revolute", "ground", "panel1", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("hinge", "revolute", "panel1", "panel2", at=(0, 2 * L1, 0), axis=(0, 0, 1))
    m.add_pair_spring("root", stiffness=p.stiffness_root, free_value=p.free_angle_root - np.pi / 2)
    m.add_pair_spring("hinge", stiffness=p.stiffness_hinge, free_value=p.free_angle_hinge)
    return m


def spring_pendulum(p=SpringPendulum(), r_design=1.0):
    """Massless arm on a revolute pair, the bob on a prismatic pair along it, hanging along -y."""
    m = Mechanism("spring pendulum")
    m.add_link("arm")
    m.add_link("bob", mass=p.mass, com=(0, -r_design, 0))
    m.add_pair("theta", "revolute", "ground", "arm", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("r", "prismatic", "arm", "bob", at=(0, -r_design, 0), axis=(0, -1, 0))
    m.add_pair_spring("r", stiffness=p.stiffness, free_value=p.free_length - r_design, damping=p.damping)
    m.set_gravity((0, -p.gravity, 0))
    return m


def governor(p=WattGovernor(), design_angle=0.5, spindle_inertia=0.0):
    """The loaded (Porter) governor of the reference at the design arm angle (rad from -z)."""
    points = governor_points(p, design_angle)
    m = Mechanism("watt governor")
    m.add_link("spindle", mass=0.0, inertia=np.diag([0.0, 0.0, spindle_inertia]) if spindle_inertia else None)
    for side in ("1", "2"):
        mass, com, inertia = governor_arm_link(p, design_angle, int(side))
        m.add_link("arm_" + side, mass=mass, com=com, inertia=inertia)
        m.add_link("link_" + side)
    m.add_link("sleeve", mass=p.sleeve_mass, com=points["sleeve"])
    m.add_pair("spin", "revolute", "ground", "spindle", at=(0, 0, 0), axis=(0, 0, 1))
    for side, axis in (("1", (0, -1, 0)), ("2", (0, 1, 0))):
        m.add_pair("arm" + side, "revolute", "spindle", "arm_" + side, at=(0, 0, 0), axis=axis)
        m.add_pair("B" + side, "revolute", "arm_" + side, "link_" + side, at=points["B_" + side], axis=axis)
        m.add_pair("D" + side, "revolute", "link_" + side, "sleeve", at=points["D_" + side], axis=axis)
    m.add_pair("slide", "prismatic", "spindle", "sleeve", at=points["sleeve"], axis=(0, 0, 1))
    m.set_gravity((0, 0, -p.gravity))
    return m


def slider_crank(p=SliderCrank(), design_angle=0.0):
    """Offset slider-crank at the design crank angle; the crank pair variable is theta - design."""
    pts = slider_crank_points(p, design_angle)
    A, B = pts["A"], pts["B"]
    along_crank = A / np.linalg.norm(A)
    along_rod = (B - A) / p.rod_length
    m = Mechanism("slider-crank")
    m.add_link("crank", mass=p.crank_mass, com=pts["G_crank"], inertia=thin_link_inertia(p.crank_inertia, along_crank))
    m.add_link("rod", mass=p.rod_mass, com=pts["G_rod"], inertia=thin_link_inertia(p.rod_inertia, along_rod))
    m.add_link("slider", mass=p.slider_mass, com=B)
    m.add_pair("crank", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("A", "revolute", "crank", "rod", at=A, axis=(0, 0, 1))
    m.add_pair("B", "revolute", "rod", "slider", at=B, axis=(0, 0, 1))
    m.add_pair("slide", "prismatic", "ground", "slider", at=B, axis=(1, 0, 0))
    if p.piston_force:
        m.add_point_force("piston", "slider", at=B, force=(p.piston_force, 0.0, 0.0))
    m.set_gravity((0, -p.gravity, 0))
    return m


def parallelogram_chain(count, gravity=9.81):
    """IFToMM A02-style chain of ``count`` parallelogram four-bars (1 m, 1 kg uniform links).

    Rockers ``r0 .. r{count}`` hinged to the ground at x = 0, 1, ..., pointing up (+y) at the
    design pose; couplers ``c{i}`` join the tips of rockers i and i + 1 (unit squares).
    Pairs ``G{i}`` (ground-rocker), ``L{i}`` (rocker i - coupler i), ``R{i}`` (coupler i -
    rocker i + 1); gravity along -y.
    """
    m = Mechanism(f"parallelogram chain of {count}")
    rod = 1.0 / 12.0
    for i in range(count + 1):
        m.add_link(f"r{i}", mass=1.0, com=(i, 0.5, 0), inertia=thin_link_inertia(rod, (0, 1, 0)))
    for i in range(count):
        m.add_link(f"c{i}", mass=1.0, com=(i + 0.5, 1, 0), inertia=thin_link_inertia(rod, (1, 0, 0)))
    for i in range(count + 1):
        m.add_pair(f"G{i}", "revolute", "ground", f"r{i}", at=(i, 0, 0), axis=(0, 0, 1))
    for i in range(count):
        m.add_pair(f"L{i}", "revolute", f"r{i}", f"c{i}", at=(i, 1, 0), axis=(0, 0, 1))
        m.add_pair(f"R{i}", "revolute", f"c{i}", f"r{i + 1}", at=(i + 1, 1, 0), axis=(0, 0, 1))
    m.add_point("tip", "r0", at=(0, 1, 0))
    m.set_gravity((0, -gravity, 0))
    return m


def spatial_slider_crank(variant=ssc.STATED):
    """IFToMM spatial rigid slider-crank (``tests/reference/spatial_slider_crank.py``) at crank angle 0.

    ``variant`` chooses the crank's centre of mass and the rod pin of the Hooke pair (see
    :class:`reference.spatial_slider_crank.Variant`). Pairs: ``crank_angle`` (revolute,
    ground-crank, about x at A), ``B`` (spherical, crank-rod), ``C`` (Hooke, slider-rod: pins
    x and the rod pin), ``slide`` (prismatic, ground-slider, along x; slider x = 0.2 + slide).
    """
    rod_frame = ssc.rod_frame_at_start()
    m = Mechanism("IFToMM spatial slider-crank")
    m.add_link("crank", mass=ssc.CRANK_MASS, com=ssc.crank_centre_at_start(variant), inertia=ssc.CRANK_INERTIA)
    m.add_link("rod", mass=ssc.ROD_MASS, com=(ssc.B0 + ssc.C0) / 2,
               inertia=rod_frame @ np.diag([ssc.ROD_INERTIA_AXIAL, ssc.ROD_INERTIA_TRANSVERSE,
                                            ssc.ROD_INERTIA_TRANSVERSE]) @ rod_frame.T)
    m.add_link("slider", mass=ssc.SLIDER_MASS, com=ssc.C0, inertia=ssc.SLIDER_INERTIA)
    m.add_pair("crank_angle", "revolute", "ground", "crank", at=ssc.A, axis=(1, 0, 0))
    m.add_pair("B", "spherical", "crank", "rod", at=ssc.B0)
    m.add_pair("C", "hooke", "slider", "rod", at=ssc.C0, axes=((1, 0, 0), ssc.rod_pin_at_start(variant)))
    m.add_pair("slide", "prismatic", "ground", "slider", at=ssc.C0, axis=(1, 0, 0))
    m.add_point("slider_centre", "slider", at=ssc.C0)
    m.set_gravity((0, 0, -ssc.GRAVITY))
    return m


RSSR_FILE = Path(__file__).resolve().parent.parent / "examples" / "rssr.toml"
RSSR_MASSES = {"crank": 0.1, "coupler": 0.25, "rocker": 0.15}   # kg
RSSR_GRAVITY = np.array([0.0, -9.81, 0.0])


def rssr_rods():
    """``{link: (mass, com, central inertia)}`` of ``examples/rssr.toml``'s links as uniform thin rods
    (SI): crank from its axis to its ball, coupler between the balls, rocker from its shaft
    (the ball's foot on it) to its ball; masses :data:`RSSR_MASSES`."""
    data = tomllib.loads(RSSR_FILE.read_text())
    scale = 1e-3 if data["units"]["length"] == "mm" else 1.0
    at = {p["name"]: np.array(p["at"], dtype=float) * scale for p in data["pairs"]}
    axis = np.array(next(p["axis"] for p in data["pairs"] if p["name"] == "rocker_angle"), dtype=float)
    axis /= np.linalg.norm(axis)
    foot = at["rocker_angle"] + ((at["rocker_ball"] - at["rocker_angle"]) @ axis) * axis
    ends = {"crank": (at["crank_angle"], at["crank_ball"]), "coupler": (at["crank_ball"], at["rocker_ball"]),
            "rocker": (foot, at["rocker_ball"])}
    rods = {}
    for link, (a, b) in ends.items():
        length = np.linalg.norm(b - a)
        mass = RSSR_MASSES[link]
        rods[link] = (mass, (a + b) / 2, thin_link_inertia(mass * length**2 / 12, b - a))
    return rods


def massive_rssr(rods=None, gravity=RSSR_GRAVITY):
    """``examples/rssr.toml`` (pairs and points as in the file, SI) with massive links ``rods``
    (default :func:`rssr_rods`) and ``gravity``."""
    data = tomllib.loads(RSSR_FILE.read_text())
    scale = 1e-3 if data["units"]["length"] == "mm" else 1.0
    m = Mechanism("rssr with massive links")
    for link, (mass, com, inertia) in (rssr_rods() if rods is None else rods).items():
        m.add_link(link, mass=mass, com=com, inertia=inertia)
    for pair in data["pairs"]:
        extra = {"axis": pair["axis"]} if "axis" in pair else {}
        m.add_pair(pair["name"], pair["type"], *pair["links"], at=np.array(pair["at"], dtype=float) * scale, **extra)
    for point in data["points"]:
        m.add_point(point["name"], point["link"], at=np.array(point["at"], dtype=float) * scale)
    m.set_gravity(gravity)
    return m
