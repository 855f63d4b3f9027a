"""Mechanisms and checks shared by the core tests (test_model.py ... test_results.py).

Every mechanism is built through the public API (DESIGN.md, "Public API"), in SI units,
with design-pose geometry that closes at zero pair values (or, for the link-local ones,
closed by ``Mechanism.assemble``). The checks compute what they assert from the frozen
model's pair records (frames and pair matrices), not from the solver's internals.
"""

from __future__ import annotations

import pathlib

import numpy as np
from numpy.testing import assert_allclose

from mechanism import Mechanism, dh_transform, load_model
from mechanism.transforms import frame_from_axis, inverse
from oracles.pairs import oracle_of
from reference import closed_forms as cf

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"

# --------------------------------------------------------------------------- four-bar
#: Crank-rocker of DESIGN.md's example: crank 1, coupler sqrt(8), rocker sqrt(5), ground 4 (m).
#: Grashof: 1 + 4 <= sqrt(8) + sqrt(5), the crank is the shortest link, so it turns fully.
FOUR_BAR_LENGTHS = dict(a=1.0, b=np.sqrt(8.0), c=np.sqrt(5.0), d=4.0)


def four_bar(name="four-bar"):
    """DESIGN.md's four-bar (D declared rocker -> ground), with coupler point P and the pin
    centres B and C marked on the coupler (to tell its assembly mode)."""
    m = Mechanism(name)
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("B", "revolute", "crank", "coupler", at=(1, 0, 0), axis=(0, 0, 1))
    m.add_pair("C", "revolute", "coupler", "rocker", at=(3, 2, 0), axis=(0, 0, 1))
    m.add_pair("D", "revolute", "rocker", "ground", at=(4, 0, 0), axis=(0, 0, 1))
    m.add_point("P", "coupler", at=(2, 1, 0))
    m.add_point("B_pin", "coupler", at=(1, 0, 0))
    m.add_point("C_pin", "coupler", at=(3, 2, 0))
    return m


def pendulums(count):
    """``examples/four_bar.toml`` (mm) with ``count`` free pendulums ``p0 ..``, each a 1 kg link on
    a revolute pair ``h{i}`` to the ground below the crank's pivot: ``count`` freedoms of their
    own besides the crank's (a model whose size grows without coupling: issue 25's growth case)."""
    m = load_model(EXAMPLES / "four_bar.toml")
    for i in range(count):
        m.add_link(f"p{i}", mass=1.0, com=(0, -50.0 - i, 0))
        m.add_pair(f"h{i}", "revolute", "ground", f"p{i}", at=(0, -i, 0), axis=(0, 0, 1))
    return m


def four_bar_rocker_limits():
    """Values of D (minus the rocker's turn from the design pose) at the two toggle positions.

    The rocker pin C = (4, 0) + sqrt(5) (cos p, sin p) is at |C| = a + b (crank and coupler
    extended) or b - a (folded): cos p = (|C|^2 - 16 - 5) / (8 sqrt 5) (law of cosines);
    the design pose has p0 = atan2(2, -1). On the design branch the rocker turns through
    p0 - 0.101 (extended) and p0 + 0.946 (folded). Returns ``(lowest D, highest D)``.
    """
    a, b, c, d = FOUR_BAR_LENGTHS.values()
    p0 = np.arctan2(2.0, -1.0)
    p_extended = np.arccos(((a + b) ** 2 - d**2 - c**2) / (2 * d * c))   # < p0
    p_folded = np.arccos(((b - a) ** 2 - d**2 - c**2) / (2 * d * c))     # > p0
    return -(p_folded - p0), -(p_extended - p0)


# --------------------------------------------------------------------------- spatial
SPATIAL_AXIS = np.array([0.1, 0.2, 1.0])


def spatial_all_pairs():
    """A two-loop spatial mechanism with every pair type, two freedoms (drivers A and P).

    Loop 1: ground -A(revolute)- crank -S(spherical)- coupler -U(Hooke)- rocker -H(helical)-
    ground. Loop 2: the rocker carries a sleeve on a cylindrical pair Cy coaxial with H, and
    the sleeve slides on the ground along the same direction (prismatic P), so the sleeve's
    slide is a second freedom. Size ~0.4 m.
    """
    m = Mechanism("spatial-all-pairs")
    for link in ("crank", "coupler", "rocker", "sleeve"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("S", "spherical", "crank", "coupler", at=(0.1, 0, 0.02))
    m.add_pair("U", "hooke", "coupler", "rocker", at=(0.25, 0.2, 0.05), axes=((1, 0.2, 0), (0, 0.3, 1)))
    m.add_pair("H", "helical", "rocker", "ground", at=(0.3, 0.0, 0.0), axis=SPATIAL_AXIS, pitch=0.02)
    m.add_pair("Cy", "cylindrical", "rocker", "sleeve", at=(0.31, 0.02, 0.1), axis=SPATIAL_AXIS)
    m.add_pair("P", "prismatic", "sleeve", "ground", at=(0.35, 0.1, 0.12), axis=SPATIAL_AXIS)
    m.add_point("T", "coupler", at=(0.2, 0.1, 0.05))
    return m


def spatial_point_driven():
    """:func:`spatial_all_pairs` driven by the displacement ``lift`` of the coupler point T along
    (0.3, 0.2, 1) (a point driver: Pavlov's road loop onto a link between a spherical and a
    Hooke pair) instead of the crank; ``lift`` reaches its dead point near +6 mm."""
    m = spatial_all_pairs()
    m.add_point_driver("lift", point="T", direction=(0.3, 0.2, 1.0))
    return m


#: Normal of the plane of :func:`block_on_plane` (tilted, so that no frame axis is global).
PLANE_NORMAL = np.array([0.2, -0.4, 1.0]) / np.linalg.norm([0.2, -0.4, 1.0])
#: Crank of :func:`block_on_plane`, m.
BLOCK_CRANK = 0.08


def block_points(normal=PLANE_NORMAL):
    """The crank tip B (m, the block's pin, at the design pose) and the planar pair's centre C
    on the block of :func:`block_on_plane`: B a crank length from the origin normal to
    ``normal``, C 0.03 m from B in the plane."""
    normal = np.asarray(normal, dtype=float) / np.linalg.norm(normal)
    along = np.cross(normal, [0.0, 1.0, 0.0])
    pin = BLOCK_CRANK * along / np.linalg.norm(along)
    return pin, pin + 0.03 * np.cross(normal, pin) / BLOCK_CRANK


def block_on_plane(chain=False, normal=PLANE_NORMAL):
    """A block on a tilted plane, driven by a crank: ground -A(revolute about the normal, at the
    origin)- crank -B(revolute about the normal at the crank tip)- block -P(planar, on the plane
    through the tip, centred at C on the block)- ground. A planar loop (3 of its 6 equations
    repeat): two freedoms, the crank and the block's turn about B. Size ~0.1 m.

    ``chain=True``: P replaced by its equivalent chain of massless links, a prismatic pair Px
    along the planar frame's X, one Py along its Y and a revolute pair Pr about the normal,
    all at C (the same motion, the same values)."""
    normal = np.asarray(normal, dtype=float) / np.linalg.norm(normal)
    pin, centre = block_points(normal)
    m = Mechanism("block-on-plane" + (" (chain)" if chain else ""))
    for link in ("crank", "block"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=normal)
    m.add_pair("B", "revolute", "crank", "block", at=pin, axis=normal)
    if chain:
        plane = frame_from_axis(centre, normal)
        m.add_link("slide x")
        m.add_link("slide y")
        m.add_pair("Px", "prismatic", "ground", "slide x", at=centre, axis=plane[:3, 0])
        m.add_pair("Py", "prismatic", "slide x", "slide y", at=centre, axis=plane[:3, 1])
        m.add_pair("Pr", "revolute", "slide y", "block", at=centre, axis=normal)
    else:
        m.add_pair("P", "planar", "ground", "block", at=centre, axis=normal)
    m.add_point("T", "block", at=centre + 0.02 * normal + 0.01 * pin / BLOCK_CRANK)
    return m


def rssr():
    """Spatial RSSR (crank about z, rocker about a skew axis): dof 1 plus the coupler's idle
    spin about the line through its two balls. Size ~0.15 m."""
    m = Mechanism("RSSR")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("S1", "spherical", "crank", "coupler", at=(0.03, 0, 0))
    m.add_pair("S2", "spherical", "coupler", "rocker", at=(0.045, 0.110, 0.087))
    m.add_pair("D", "revolute", "rocker", "ground", at=(0.09, 0.05, 0.06), axis=(0.2, -0.3, 1.0))
    return m


def cardan_coupling(bend=0.5):
    """Cardan (Hooke) coupling, a spherical loop: input shaft about x, output shaft about
    (cos b, sin b, 0), the cross at the origin (input pin z). The cross's turn about the input
    pin, U.0, swings between -2 b and 0 as the input turns: the design pose is its maximum."""
    m = Mechanism("Cardan coupling")
    m.add_link("input")
    m.add_link("output")
    u = np.array([np.cos(bend), np.sin(bend), 0.0])
    m.add_pair("IN", "revolute", "ground", "input", at=(-0.1, 0, 0), axis=(1, 0, 0))
    m.add_pair("U", "hooke", "input", "output", at=(0, 0, 0), axes=((0, 0, 1), (-np.sin(bend), np.cos(bend), 0)))
    m.add_pair("OUT", "revolute", "output", "ground", at=0.1 * u, axis=u)
    return m


def sliding_chord():
    """Spatial RSCR whose loop is closed by its cylindrical pair C (the chord of the spanning
    tree: A and D leave the ground, S hangs on the crank, C joins rod and rocker), so the
    chord slides when the crank turns. Size ~0.4 m."""
    m = Mechanism("RSCR")
    for link in ("crank", "rod", "rocker"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("D", "revolute", "ground", "rocker", at=(0.3, 0.0, 0.1), axis=(1, 0.2, 0.3))
    m.add_pair("S", "spherical", "crank", "rod", at=(0.1, 0, 0))
    m.add_pair("C", "cylindrical", "rod", "rocker", at=(0.2, 0.15, 0.05), axis=(0.0, 0.3, 1.0))
    return m


def double_wishbone():
    """The shipped double-wishbone corner (tie rod between two balls, wheel on its hub, point
    driver ``travel`` on the wheel centre). Size ~0.5 m."""
    return load_model(EXAMPLES / "double_wishbone.toml")


# --------------------------------------------------------------------------- Bennett
BENNETT = dict(a=0.10, alpha=np.radians(40.0), beta=np.radians(75.0))  # b from Bennett's condition


def bennett():
    """Bennett's 4R linkage declared by global hardpoints at joint-1 angle 1.2 rad
    (frames from tests/reference/closed_forms.bennett_joint_frames)."""
    a, alpha, beta = BENNETT.values()
    frames = cf.bennett_joint_frames(a, alpha, beta, 1.2)
    m = Mechanism("Bennett")
    for link in ("L1", "L2", "L3"):
        m.add_link(link)
    links = ["ground", "L1", "L2", "L3", "ground"]
    for i, F in enumerate(frames):
        m.add_pair(f"J{i + 1}", "revolute", links[i], links[i + 1], at=F[:3, 3], axis=F[:3, 2])
    return m


def bennett_link_local():
    """Bennett's linkage declared Denavit-Hartenberg style (link-local pair frames): the loop
    ``Rz(t1) T(a, alpha) Rz(t2) T(b, beta) Rz(t3) T(a, alpha) Rz(t4) T(b, beta) = E`` with
    ``T(l, tw) = Trans_x(l) Rot_x(tw)``; it closes only after ``assemble``."""
    a, alpha, beta = BENNETT.values()
    b = cf.bennett_b(a, alpha, beta)
    eye = np.eye(4)
    m = Mechanism("Bennett (DH)")
    for link in ("L1", "L2", "L3"):
        m.add_link(link)
    m.add_pair("J1", "revolute", "ground", "L1", frame_on_first=eye, frame_on_second=eye)
    m.add_pair("J2", "revolute", "L1", "L2", frame_on_first=dh_transform(a=a, alpha=alpha), frame_on_second=eye)
    m.add_pair("J3", "revolute", "L2", "L3", frame_on_first=dh_transform(a=b, alpha=beta), frame_on_second=eye)
    m.add_pair("J4", "revolute", "L3", "ground", frame_on_first=dh_transform(a=a, alpha=alpha),
               frame_on_second=inverse(dh_transform(a=b, alpha=beta)))
    return m


#: Link lengths (m) of the link-local four-bar: Grashof crank-rocker (0.04 + 0.12 < 0.09 + 0.10).
DH_FOUR_BAR = dict(a=0.04, b=0.12, c=0.09, d=0.10)


def four_bar_link_local():
    """A four-bar declared by link shapes: each link's frame sits at its first pin with X
    towards its second pin (``dh_transform(a=length)``), all pair frames Z-up; the coupler
    carries point P in its own frame. With Freudenstein's angles t2, t3, t4 (crank, coupler,
    rocker D -> C, from the ground line) the pair values are A = t2, B = t3 - t2,
    C = t4 + pi - t3, D = pi - t4 (mod 2 pi): the rocker's frame points from C to D."""
    a, b, c, d = DH_FOUR_BAR.values()
    eye = np.eye(4)
    m = Mechanism("four-bar (link-local)")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", frame_on_first=eye, frame_on_second=eye)
    m.add_pair("B", "revolute", "crank", "coupler", frame_on_first=dh_transform(a=a), frame_on_second=eye)
    m.add_pair("C", "revolute", "coupler", "rocker", frame_on_first=dh_transform(a=b), frame_on_second=eye)
    m.add_pair("D", "revolute", "rocker", "ground", frame_on_first=dh_transform(a=c),
               frame_on_second=dh_transform(a=d))
    m.add_point("P", "coupler", at=(0.06, 0.02, 0.0), local=True)
    return m


def four_bar_link_local_angles(theta2, branch=1):
    """Pair values (A, B, C, D) of :func:`four_bar_link_local` at crank angle ``theta2``
    on Freudenstein's ``branch`` (tests/reference/closed_forms.four_bar_angles)."""
    a, b, c, d = DH_FOUR_BAR.values()
    t3, t4 = cf.four_bar_angles(a, b, c, d, theta2, branch)
    return dict(A=theta2, B=t3 - theta2, C=t4 + np.pi - t3, D=np.pi - t4)


# --------------------------------------------------------------------------- rebuilding
def rebuild(source, link_order=None, pair_order=None, rename=None, name=None, point_drivers=True):
    """The same global-geometry mechanism declared again: links and pairs in another order,
    links renamed (``rename``: old -> new). Points and (unless ``point_drivers`` is False)
    point drivers follow."""
    rename = dict(rename or {})
    new = lambda link: rename.get(link, link)  # noqa: E731
    links = {k: v for k, v in source.links.items() if k != "ground"}
    pairs = source.pairs
    m = Mechanism(name or source.name)
    for link in link_order or list(links):
        spec = links[link]
        m.add_link(new(link), mass=spec.mass, com=spec.com, inertia=spec.inertia)
    for pair_name in pair_order or list(pairs):
        p = pairs[pair_name]
        extra = {}
        if p.kind == "hooke":
            extra["axes"] = p.axes
        elif p.kind != "spherical":
            extra["axis"] = p.axis
        if p.kind == "helical":
            extra["pitch"] = p.pair_type.pitch
        m.add_pair(p.name, p.kind, new(p.first), new(p.second), at=p.at, **extra)
    for point in source.points.values():
        m.add_point(point.name, new(point.link), at=point.at)
    for driver in source.point_drivers.values() if point_drivers else ():
        m.add_point_driver(driver.name, point=driver.point, direction=driver.direction)
    return m


# --------------------------------------------------------------------------- checks
#: Sweeps close every loop to 1e-10 relative to the mechanism size (closure.DEFAULT_TOLERANCE);
#: checks of closure allow 10x that: 1e-9 rad for rotations, 1e-9 x size for positions.
CLOSURE_TOL = 1e-9


def pair_values(result, pair):
    """Values of ``pair`` from a sweep result as (N, k)."""
    q = result.q(pair)
    return q[:, None] if q.ndim == 1 else q


def assert_pairs_coincide(result, size, tol=CLOSURE_TOL):
    """At every sample, each real pair's frame k reached through its first link equals the
    same frame carried by its second link: ``T_first F_j A(q) = T_second F_k`` (eq. 1-2), with
    ``F_j``, ``F_k`` and ``A`` from the frozen model's pair records."""
    for pair in result.model.pairs:
        reached = result.pose(pair.first) @ pair.frame_on_first @ oracle_of(pair.pair_type).matrix(pair_values(result, pair.name))
        carried = result.pose(pair.second) @ pair.frame_on_second
        assert_allclose(reached[:, :3, :3], carried[:, :3, :3], rtol=0.0, atol=tol,
                        err_msg=f"pair {pair.name}: frames turned apart")
        assert_allclose(reached[:, :3, 3], carried[:, :3, 3], rtol=0.0, atol=tol * size,
                        err_msg=f"pair {pair.name}: frames apart")


def loop_product(pairs, loop, values):
    """Pavlov's eq. (2) along ``loop.walk`` from ``loop.links[0]``: alternating constant link
    matrices (frame of the incoming pair to the frame of the outgoing pair, on one link) and
    variable pair matrices; returns the 4x4 product, E when the loop closes.

    ``pairs`` are pair records (``model.pairs``); ``values`` maps pair name -> (k,) values.
    Walking a pair backwards uses its inverse.
    """
    pairs = {p.name: p for p in pairs}
    # Frame on the current link where the walk arrived (the start link's own frame at first).
    product = np.eye(4)
    arrived = np.eye(4)
    link = loop.links[0]
    for pair_name, direction in loop.walk:
        p = pairs[pair_name]
        A = oracle_of(p.pair_type).matrix(np.atleast_1d(np.asarray(values[pair_name], dtype=float)))
        if direction > 0:
            assert p.first == link, (pair_name, link)
            leave, enter, move, link = p.frame_on_first, p.frame_on_second, A, p.second
        else:
            assert p.second == link, (pair_name, link)
            leave, enter, move, link = p.frame_on_second, p.frame_on_first, inverse(A), p.first
        product = product @ (inverse(arrived) @ leave) @ move  # link matrix, then pair matrix
        arrived = enter
    assert link == loop.links[0], "the walk does not return to its first link"
    return product @ inverse(arrived)  # the first link's own matrix back to its frame


# --------------------------------------------------------------------------- time paths
def sweep_along_time(m, drivers, t0, h, offsets=(-2, -1, 0, 1, 2), **options):
    """Sweep at times ``t0 + h * offsets`` with every driver on a parabola in time:
    ``drivers`` maps name -> (x0, w, a): value ``x0 + w t + a t^2 / 2``, speed ``w + a t``,
    acceleration ``a``. The rates the result reports are then time derivatives."""
    t = t0 + h * np.asarray(offsets, dtype=float)
    values = {name: x0 + w * t + 0.5 * a * t**2 for name, (x0, w, a) in drivers.items()}
    speeds = {name: w + a * t for name, (x0, w, a) in drivers.items()}
    accelerations = {name: np.full(len(t), float(a)) for name, (x0, w, a) in drivers.items()}
    return m.sweep(values, speeds=speeds, accelerations=accelerations, **options)


def central_difference(samples, h):
    """(f(t + h) - f(t - h)) / 2h from samples at offsets (-1, 0, 1) or (-2 .. 2)."""
    f = np.asarray(samples)
    mid = len(f) // 2
    return (f[mid + 1] - f[mid - 1]) / (2 * h)


def richardson_derivative(samples, h):
    """(4 D_h - D_2h) / 3 from samples at offsets -2..2: truncation O(h^4)."""
    f = np.asarray(samples)
    return (4 * (f[3] - f[1]) / (2 * h) - (f[4] - f[0]) / (4 * h)) / 3


def rotation_vector(R):
    """Rotation vector of rotations (..., 3, 3) with angle < pi/2, in plain numpy (for the
    small relative rotations of finite differences)."""
    skew = (R - np.swapaxes(R, -1, -2)) / 2
    v = np.stack([skew[..., 2, 1], skew[..., 0, 2], skew[..., 1, 0]], axis=-1)
    sin = np.linalg.norm(v, axis=-1, keepdims=True)
    cos = (np.trace(R, axis1=-2, axis2=-1)[..., None] - 1) / 2
    angle = np.arctan2(sin, cos)
    return v * np.where(sin > 0, angle / np.where(sin > 0, sin, 1.0), 1.0)


def angular_rate_difference(rotations, h, richardson=True):
    """Angular velocity of rotations R(t) (left increments, fixed axes) from samples at offsets
    -2..2 (or -1..1): log(R(t + h) R(t - h)^T) / 2h is odd in h, so Richardson applies."""
    R = np.asarray(rotations)
    mid = len(R) // 2
    d1 = rotation_vector(R[mid + 1] @ R[mid - 1].T) / (2 * h)
    if not richardson:
        return d1
    d2 = rotation_vector(R[mid + 2] @ R[mid - 2].T) / (4 * h)
    return (4 * d1 - d2) / 3


def spatial_velocity_difference(poses, h, richardson=True):
    """Spatial velocity (omega, v_o) of a link from its poses: vee(T' T^-1), T' by differences."""
    T = np.asarray(poses)
    T_dot = richardson_derivative(T, h) if richardson else central_difference(T, h)
    M = T_dot @ inverse(T[len(T) // 2])
    return np.r_[M[2, 1], M[0, 2], M[1, 0], M[:3, 3]]


def relative_rotation_vectors(result, first, second):
    """Principal rotation vectors (N, 3), norm <= pi, of link ``second`` relative to link
    ``first`` from their poses in a record: ``log(R_first^T R_second)`` by scipy (independent
    of how spherical pairs are parametrized)."""
    from scipy.spatial.transform import Rotation

    R1, R2 = result.pose(first)[:, :3, :3], result.pose(second)[:, :3, :3]
    return Rotation.from_matrix(np.swapaxes(R1, 1, 2) @ R2).as_rotvec()


def rewrapped_rotation_vectors(values):
    """Rotation vectors (N, 3) of any norm brought back to the principal ones (norm <= pi):
    the same rotation, ``v - 2 pi k v/|v|`` with the integer k that puts the norm in
    (-pi, pi], the axis flipped where it ends negative."""
    values = np.asarray(values, dtype=float)
    norm = np.linalg.norm(values, axis=1)
    axis = values / np.where(norm > 0, norm, 1.0)[:, None]
    wrapped = norm - 2 * np.pi * np.round(norm / (2 * np.pi))
    return axis * wrapped[:, None]
