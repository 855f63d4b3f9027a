"""The metric catalogue: every suspension metric of a corner and of an axle, its definition,
sign, unit, readable name and function, in one place.

Every metric below is computed for all positions at once (numpy over the positions), from
the link poses of the sweep and, for rates, from its velocity and acceleration solutions:
the metric is written once as arithmetic on jets (:mod:`loops.suspension.jets`) and its
derivatives follow by the chain rule, exact to the closure tolerance, with no step size.
:data:`CATALOGUE` lists them in the order of the CSV columns: each :class:`Metric` names its
function (:mod:`~loops.suspension.wheel` for the position metrics,
:mod:`~loops.suspension.velocity_field`, :mod:`~loops.suspension.axle_geometry`) or the rate
it is; :mod:`loops.suspension.measure` takes them, the sheets label their axes with
:attr:`Metric.label`, and the design sensitivities (:mod:`loops.study.sensitivity`) follow
from the same functions.

Adding a metric
---------------
One function and one entry. A position metric of a wheel: a function of a
:class:`~loops.suspension.wheel.Wheel` returning a jet (None where the corner has no such
metric) in :mod:`loops.suspension.wheel`, and a ``Metric(name, dimension, label, POSITION,
function)`` in :data:`CATALOGUE` where its column goes. Its CSV column, its place on a sheet's
``--metrics`` and its sensitivities follow (its rates along a driver or a hardpoint are
the jet's). A rate of a position metric along the wheel travel or the steering variable
needs no function: ``Metric(name, dimension, label, RATE, rate_of=..., along=...)``. A metric
of the upright's velocity field (a function of a
:class:`~loops.suspension.velocity_field.VelocityField`) or of the axle (of an
:class:`~loops.suspension.axle_geometry.AxleGeometry`) likewise, with kind FIELD or AXLE.
A metric whose function gives values only (kind ``WHEEL_RATE``, second rates taken apart)
has sensitivities only by its own third rates: the wheel rate's (METHOD.md (T1)-(T4),
:mod:`loops.study.sensitivity.wheel_rate`); a new one says ``sensitivities=False``, and the
design sensitivities and the optimiser refuse it by name. Any metric can be drawn on a sheet
(``plot_sheet(..., metrics=[...])``, ``kinematrix study --metrics``), its axis labelled with
``label`` and its unit; the standard sheets' panels are the analyses' (the registry,
:mod:`loops.suspension.analyses`).

Axes, frames and signs
----------------------
ISO 8855 vehicle axes (see :mod:`loops.suspension.corner`): ``f`` forward, ``u`` up, ``o``
outboard (horizontal), ``e`` the vehicle's left; the vehicle centre plane ``y =
centre_plane_y``. Angles are radians, lengths metres, as everywhere in kinematrix; the
command line and :meth:`~loops.suspension.analyses.SuspensionResult.to_csv` write them in the
model file's units. The metrics are taken in the body's frame (the model's ground), except
in a roll analysis, where the body rolls and they are taken relative to the road (see
:func:`loops.suspension.analyses.roll`).

Wheel geometry. Spin axis ``s``: unit vector from ``spin_axis_point`` to the wheel centre
``C`` (outboard). Contact patch ``P = C + R d``: ``d`` the unit vector of the wheel plane
along which height falls fastest, ``R`` the loaded radius; the ground plane is horizontal
through ``P``. Steering axis ``k``: unit vector through the two kingpin points, or along
the kingpin pair's axis, or along the upright's instantaneous screw axis for the steering
motion (a virtual axis, ``Corner.kingpin = None``: the axis about which the upright turns
relative to the body when the steering variable moves at fixed wheel travel, Adams/Car's
"instant axis" method), oriented up.

Per-wheel metrics (:data:`METRICS`; an axle adds ``_left`` and ``_right``)
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``camber``
    Angle between the wheel plane and the vertical, ``arctan2(-s.u, |s - (s.u) u|)``
    (ISO 8855 camber angle; SAE J670, Adams/Car and SHARK agree): positive when the top of
    the wheel leans outboard.
``camber_front_view``
    The wheel plane's inclination seen from the front (projected on the plane normal to
    ``f``), ``arctan2(-s.u, s.o)``: what SHARK prints in its steering table. It differs
    from ``camber`` by ``tan(front view) = tan(camber) / cos(toe)``.
``toe``
    Angle in the ground plane between the wheel's heading and ``f``, ``arctan2(s.f,
    s.o)``: positive for toe-in (the front of the wheel points inboard), ISO 8855, SAE J670
    and Adams/Car alike.
``steer_angle``
    ISO 8855 wheel steer angle: the heading's angle from ``f`` about ``u``, positive to the
    left (counter-clockwise seen from above), ``-toe`` on the left and ``+toe`` on the right.
    SAE J670 (z down) counts it positive for a right turn.
``castor``
    Side view (projection on the plane normal to ``o``): angle between the steering axis and
    the vertical, ``arctan2(-k.f, k.u)``; positive when the top of the axis leans rearward.
``kingpin_inclination``
    Front view: ``arctan2(-k.o, k.u)``; positive when the top of the axis leans inboard.
``scrub_radius``
    Kingpin offset at the ground, ``(P - G).o`` with ``G`` where the steering axis meets the
    ground plane: positive when ``G`` lies inboard of the contact patch (Adams/Car's and
    SHARK's sign; the lateral distance along the horizontal ``o``, as Altair's suspension
    design factors report it).
``kingpin_offset_wheel_centre``
    ``(C - K_c).o`` with ``K_c`` the point of the steering axis at the wheel centre's
    height: positive when the axis passes inboard of the wheel centre.
``castor_trail``
    Castor offset at the ground (mechanical trail, Milliken), ``(G - P).f``: positive when
    the axis meets the ground ahead of the contact patch.
``hub_trail``
    Castor offset at the wheel centre, ``(K_c - C).f``: positive when the axis passes ahead
    of the wheel centre. With zero camber and toe ``castor_trail = hub_trail + R
    tan(castor)`` and ``scrub_radius = kingpin_offset_wheel_centre - R
    tan(kingpin_inclination)``.
``wheel_travel``
    Vertical displacement from the design pose, ``(X - X_0).u``, of the travel point: the
    wheel centre (``travel_at="wheel-centre"``, Adams/Car's convention, the default) or the
    contact patch (``"contact-patch"``, SHARK's); positive in bump (jounce).
``contact_patch_travel`` / ``wheel_centre_travel``
    The vertical displacement of the other point (whichever ``wheel_travel`` is not).
``wheel_recession``
    ``-(C - C_0).f``: the wheel centre's longitudinal displacement, positive rearward.
``wheelbase_change``
    The contact patch's longitudinal displacement, ``(P - P_0).f`` on a front axle and
    ``-(P - P_0).f`` on a rear one (``Vehicle.axle``): positive when the wheelbase grows.
``track_change``
    ``(P - P_0).o``: positive when the contact patch moves outboard (this wheel's share of
    the change of track).
``half_track``
    Distance of the contact patch from the vehicle centre plane, positive outboard.
``camber_gain``, ``bump_steer``
    ``d camber / d wheel_travel`` and ``d toe / d wheel_travel`` (rad/m): bump steer is
    positive when the wheel toes in as it rises.
``steer_rate``
    ``d steer_angle / d steering`` at fixed wheel travel, rad per unit of the steering
    variable (rad/m for a rack), when the sweep drives the corner's steering variable.
``fvic_height``, ``fvsa_length``
    Front-view instant centre of the upright relative to the body: the point ``X`` of the
    plane through ``P`` normal to ``f`` whose velocity in wheel travel has no component in
    that plane (for a double wishbone with arms in one plane, where the arm lines meet).
    ``fvic_height = (X - P).u``; ``fvsa_length = (P - X).o``, the front-view swing-arm
    length, positive when ``X`` lies inboard of the patch. NaN when ``X`` is at infinity.
``svic_height``, ``svsa_length``
    Side-view instant centre: the same in the plane through ``P`` normal to ``o``;
    ``svsa_length = (X - P).f``, positive when ``X`` lies ahead of the contact patch (a
    front axle with anti-dive has it behind: negative).
    The vehicle's pitch centre, where the front and the rear axle's lines from the contact
    patches through their side-view instant centres meet, needs both axles: it is not
    computed here (run each axle; the two lines follow from these two metrics).
``roll_centre_height``, ``roll_centre_z``
    This corner's kinematic roll centre: the line through ``P`` perpendicular (in the front
    view) to the velocity in wheel travel of the upright's point at ``P`` (the line from
    ``P`` through the front-view instant centre) meets the vehicle centre plane there.
    ``roll_centre_z`` is its height in the frame, ``roll_centre_height`` its height above
    the ground plane through ``P`` (Altair: roll-centre z minus tyre-patch z; SHARK's
    "to ground"; its "to body" is this plus the contact patch's travel).
``anti_dive`` and ``anti_lift`` (front axle), ``anti_lift`` and ``anti_squat`` (rear axle)
    Percent, with ``Vehicle.wheelbase``, ``cg_height`` and the brake (drive) share: the
    side-view path slope ``dx/dz`` (forward per upward, in wheel travel) of the brake
    reaction point (the upright's point at the design contact patch for outboard brakes,
    the wheel centre for inboard ones) or, for the drive, of the wheel centre, times
    ``wheelbase / cg_height`` times the axle's share, times 100. Braking (front:
    ``anti_dive``, rear: ``anti_lift``): the front uses ``+dx/dz``, the rear ``-dx/dz``;
    driving (front: ``anti_lift``, rear: ``anti_squat``) likewise. 100 % means the
    brake or drive force alone carries the load transfer (no pitch of the body).
``spring_length``, ``motion_ratio``, ``wheel_rate`` (with ``Corner.spring``)
    Distance between the spring's ends; ``motion_ratio = -d spring_length / d
    wheel_travel`` (installation ratio: positive when the spring shortens in bump);
    ``wheel_rate = k MR^2 + F dMR/d wheel_travel`` (N/m) with ``k`` and the free length of
    the spring-damper named by ``Corner.spring`` and ``F = k (free_length - length)`` its
    compression force: the derivative of the vertical wheel load ``F MR`` that the spring
    carries (virtual work).
``damper_length``, ``damper_motion_ratio`` (with ``Corner.damper``)
    The same for the damper.

``roll_camber``, ``roll_steer`` (roll analyses, :data:`ROLL_METRICS`)
    ``d camber / d roll_angle`` and ``d steer_angle / d roll_angle`` along the roll motion
    (the body turning about the fixed axis, the wheels travelling so that their contact
    patches stay on the road), camber taken to the road; the roll angle is ISO 8855's
    (positive right side down; SAE J670 likewise). Milliken's roll camber and roll steer
    coefficients: per degree of roll in a file in degrees.

Axle metrics (:data:`AXLE_METRICS`)
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``roll_centre_height``, ``roll_centre_lateral``
    The axle's kinematic roll centre: where the two wheels' lines (through each contact
    patch, perpendicular in the front view to the velocity of the upright's point there)
    meet. Height above the line through the two contact patches (the road), measured
    perpendicular to it; lateral position ``(X - Q).e`` from the vehicle centre plane,
    positive to the left (its migration). For a symmetric axle in parallel travel it lies
    on the centre plane.
``track``
    Lateral distance between the two contact patches, ``(P_left - P_right).e``.
``ackermann_error``, ``ackermann_percent`` (with ``Vehicle.wheelbase``)
    With steer angles measured from the design pose, the inner wheel (the left one in a
    left turn) at ``a_i`` and the outer at ``a_o``, the reference is ideal Ackermann for
    the wheelbase ``L`` and the design track ``t`` between the contact patches:
    ``cot a_o* = cot a_i + t / L``. ``ackermann_error = a_o - a_o*`` (positive: the
    outer wheel steers more than the ideal); ``ackermann_percent = 100 (a_i - a_o) / (a_i -
    a_o*)`` (100: ideal; 0: parallel steer). NaN straight ahead.
``steering_ratio`` (with ``Vehicle.rack_travel_per_turn``)
    ``d (steering-wheel angle) / d (mean steer angle of the two wheels)``, the steering
    wheel turning ``2 pi`` per ``rack_travel_per_turn`` of rack travel: positive when a
    left turn of the steering wheel steers the wheels left.

Differences between standards and packages
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
SAE J670 puts z down and y right: its steer angle is positive for a right turn, its
camber, toe-in, castor and kingpin inclination signs are ISO's. Adams/Car measures wheel
travel at the wheel centre (the default here) and takes a multi-link's steering axis from
the upright's instant axis, as here; Lotus SHARK measures travel at the contact patch
(``travel_at="contact-patch"``), prints the front-view camber in its steering table
(``camber_front_view``) and the roll centre height "to body" (``roll_centre_height`` plus
``contact_patch_travel``). Scrub radius and castor trail are taken along the vehicle's
horizontal axes; under large steer angles packages that take them in the wheel's own
heading report other numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import axle_geometry, velocity_field, wheel

__all__ = ["Metric", "CATALOGUE", "POSITION", "RATE", "FIELD", "WHEEL_RATE", "ROLL", "AXLE", "WHEEL_METRICS",
           "METRICS", "AXLE_METRICS", "ROLL_METRICS", "PART_METRICS", "TRAVEL_AT", "INPUT_LABELS", "wheel_metric",
           "axle_metric", "readable", "WHEEL_SUFFIXES"]

#: Where wheel travel is measured: the wheel centre (Adams/Car) or the contact patch (SHARK).
TRAVEL_AT = ("wheel-centre", "contact-patch")

#: Kinds of metric, by how they are computed: a jet of a Wheel (POSITION), the rate of one
#: along a driver (RATE) or along the roll (ROLL), a function of the upright's velocity field
#: (FIELD), values of a Wheel's second rates (WHEEL_RATE), a jet of the axle (AXLE).
POSITION, RATE, FIELD, WHEEL_RATE, ROLL, AXLE = "position", "rate", "field", "wheel rate", "roll", "axle"


@dataclass(frozen=True)
class Metric:
    """One metric of the catalogue.

    Attributes
    ----------
    name : its CSV column (an axle's per-wheel ones add ``_left`` and ``_right``)
    dimension : its quantity (``Column.dimension``: ``"angle"``, ``"angle/length"``, ...)
    label : its readable name (a sheet's axis: ``"camber gain"``)
    kind : :data:`POSITION`, :data:`RATE`, :data:`FIELD`, :data:`WHEEL_RATE`, :data:`ROLL`
        or :data:`AXLE`
    function : what computes it (POSITION and WHEEL_RATE: of a
        :class:`~loops.suspension.wheel.Wheel`; FIELD: of a
        :class:`~loops.suspension.velocity_field.VelocityField`; AXLE: of an
        :class:`~loops.suspension.axle_geometry.AxleGeometry`), returning None where the
        corner, the vehicle or the analysis has no such metric
    rate_of, along, sign : RATE and ROLL: ``sign * d rate_of / d along`` (``along``:
        ``"travel"``, divided by the wheel travel's rate, ``"steering"``, per unit of the
        steering variable, or ``"roll"``)
    part : ``(what, Resolved attribute)`` a corner needs for it (a spring), or None
    sensitivities : whether :mod:`loops.study.sensitivity` gives its derivatives
    """

    name: str
    dimension: str
    label: str
    kind: str
    function: object = None
    rate_of: str | None = None
    along: str | None = None
    sign: float = 1.0
    part: tuple | None = None
    sensitivities: bool = True


_SPRING, _SPRING_RATE, _DAMPER = ("spring (corner.spring)", "spring"), \
    ("spring with a stiffness (corner.spring)", "spring_spec"), ("damper (corner.damper)", "damper")

#: Every metric, per wheel then the axle's, in the order of the CSV columns.
CATALOGUE = (
    Metric("camber", "angle", "camber", POSITION, wheel.camber),
    Metric("camber_front_view", "angle", "camber, front view", POSITION, wheel.camber_front_view),
    Metric("toe", "angle", "toe", POSITION, wheel.toe),
    Metric("steer_angle", "angle", "steer angle", POSITION, wheel.steer_angle),
    Metric("castor", "angle", "castor", POSITION, wheel.castor),
    Metric("kingpin_inclination", "angle", "kingpin inclination", POSITION, wheel.kingpin_inclination),
    Metric("scrub_radius", "length", "scrub radius", POSITION, wheel.scrub_radius),
    Metric("kingpin_offset_wheel_centre", "length", "kingpin offset at the wheel centre", POSITION,
           wheel.kingpin_offset_wheel_centre),
    Metric("castor_trail", "length", "castor trail", POSITION, wheel.castor_trail),
    Metric("hub_trail", "length", "hub trail", POSITION, wheel.hub_trail),
    Metric("wheel_travel", "length", "wheel travel", POSITION, wheel.wheel_travel),
    Metric("contact_patch_travel", "length", "contact patch travel", POSITION, wheel.contact_patch_travel),
    Metric("wheel_centre_travel", "length", "wheel centre travel", POSITION, wheel.wheel_centre_travel),
    Metric("wheel_recession", "length", "wheel recession", POSITION, wheel.wheel_recession),
    Metric("wheelbase_change", "length", "wheelbase change", POSITION, wheel.wheelbase_change),
    Metric("track_change", "length", "track change", POSITION, wheel.track_change),
    Metric("half_track", "length", "half track", POSITION, wheel.half_track),
    Metric("camber_gain", "angle/length", "camber gain", RATE, rate_of="camber", along="travel"),
    Metric("bump_steer", "angle/length", "bump steer", RATE, rate_of="toe", along="travel"),
    Metric("steer_rate", "angle/length", "steer rate", RATE, rate_of="steer_angle", along="steering"),
    Metric("fvic_height", "length", "front-view instant centre height", FIELD, velocity_field.fvic_height),
    Metric("fvsa_length", "length", "front-view swing arm", FIELD, velocity_field.fvsa_length),
    Metric("svic_height", "length", "side-view instant centre height", FIELD, velocity_field.svic_height),
    Metric("svsa_length", "length", "side-view swing arm", FIELD, velocity_field.svsa_length),
    Metric("roll_centre_height", "length", "roll centre height", FIELD, velocity_field.roll_centre_height),
    Metric("roll_centre_z", "length", "roll centre z", FIELD, velocity_field.roll_centre_z),
    Metric("anti_dive", "percent", "anti-dive", FIELD, velocity_field.anti_dive),
    Metric("anti_lift", "percent", "anti-lift", FIELD, velocity_field.anti_lift),
    Metric("anti_squat", "percent", "anti-squat", FIELD, velocity_field.anti_squat),
    Metric("spring_length", "length", "spring length", POSITION, wheel.spring_length, part=_SPRING),
    Metric("motion_ratio", "dimensionless", "motion ratio", RATE, rate_of="spring_length", along="travel",
           sign=-1.0, part=_SPRING),
    Metric("wheel_rate", "force/length", "wheel rate", WHEEL_RATE, wheel.wheel_rate, part=_SPRING_RATE),
    Metric("damper_length", "length", "damper length", POSITION, wheel.damper_length, part=_DAMPER),
    Metric("damper_motion_ratio", "dimensionless", "damper motion ratio", RATE, rate_of="damper_length",
           along="travel", sign=-1.0, part=_DAMPER),
    Metric("roll_camber", "angle/angle", "roll camber", ROLL, rate_of="camber", along="roll"),
    Metric("roll_steer", "angle/angle", "roll steer", ROLL, rate_of="steer_angle", along="roll"),
    Metric("roll_centre_height", "length", "roll centre height", AXLE, axle_geometry.roll_centre_height),
    Metric("roll_centre_lateral", "length", "roll centre lateral position", AXLE, axle_geometry.roll_centre_lateral),
    Metric("track", "length", "track", AXLE, axle_geometry.track),
    Metric("ackermann_error", "angle", "Ackermann error", AXLE, axle_geometry.ackermann_error),
    Metric("ackermann_percent", "percent", "Ackermann", AXLE, axle_geometry.ackermann_percent),
    Metric("steering_ratio", "dimensionless", "steering ratio", AXLE, axle_geometry.steering_ratio),
)

#: Per-wheel metrics by name (a roll's own included), and the axle's.
WHEEL_METRICS = {m.name: m for m in CATALOGUE if m.kind != AXLE}
_AXLE = {m.name: m for m in CATALOGUE if m.kind == AXLE}

#: Per-wheel metric -> dimension (``Column.dimension``), every analysis's. Metrics that need
#: something the corner or the sweep may not have are left out then: ``steer_rate`` (the
#: steering variable driven), the anti-geometry (vehicle parameters), spring and damper metrics.
METRICS = {m.name: m.dimension for m in CATALOGUE if m.kind not in (AXLE, ROLL)}

#: Per-wheel metrics of a roll analysis besides :data:`METRICS`: ``d camber / d roll`` and
#: ``d steer_angle / d roll`` with the body's roll angle (ISO 8855: positive right side down).
ROLL_METRICS = {m.name: m.dimension for m in CATALOGUE if m.kind == ROLL}

#: Per-wheel metrics a corner has only with a part: metric -> (the part, the
#: :class:`~loops.suspension.corner.Resolved` attribute that holds it).
PART_METRICS = {m.name: m.part for m in CATALOGUE if m.part is not None}

#: Axle metric -> dimension.
AXLE_METRICS = {m.name: m.dimension for m in _AXLE.values()}


def wheel_metric(name) -> Metric | None:
    """The per-wheel :class:`Metric` ``name`` (without ``_left`` or ``_right``), or None."""
    return WHEEL_METRICS.get(name)


def axle_metric(name) -> Metric | None:
    """The axle's :class:`Metric` ``name``, or None."""
    return _AXLE.get(name)


#: Readable names of the analyses' inputs (an axis of a sheet).
INPUT_LABELS = {"wheel_travel": "wheel travel", "roll_angle": "roll angle", "pitch_angle": "pitch angle",
                "steering_wheel_angle": "steering-wheel angle"}


#: What a per-wheel metric's column may end in: the wheel's side on an axle, or the axle's
#: place on a vehicle of two axles.
WHEEL_SUFFIXES = ("left", "right", "front", "rear")


def readable(column) -> str:
    """A column's readable name (a sheet's axis): the catalogue's label, a per-wheel column with
    its side or axle (``camber_gain_left`` -> ``"camber gain, left"``, ``anti_dive_front`` ->
    ``"anti-dive, front"``), an input's (:data:`INPUT_LABELS`), else the name with spaces (a
    steering variable)."""
    if column in _AXLE:
        return _AXLE[column].label
    if column in WHEEL_METRICS:
        return WHEEL_METRICS[column].label
    base, _, side = column.rpartition("_")
    if side in WHEEL_SUFFIXES and base in WHEEL_METRICS:
        return f"{WHEEL_METRICS[base].label}, {side}"
    return INPUT_LABELS.get(column, column.replace("_", " "))
