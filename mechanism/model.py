"""The :class:`Mechanism` builder: links, pairs, points, drivers and loads as plain data.

Every ``add_*`` validates its arguments at once and raises
:class:`~mechanism.errors.ModelError` naming the object and the key. Geometry is global
at the design pose (hardpoints from a drawing), SI units and radians; each pair's two
frames come from its location and axis (its type's ``frames``, :mod:`mechanism.pairs`), every
link matrix follows from them, and the design pose closes with all pair values zero.

Mechanisms easier to state by link shapes (Denavit-Hartenberg style) declare each pair
with ``frame_on_first``/``frame_on_second`` in link-local coordinates and close their loops
with :meth:`Mechanism.assemble`.

Examples
--------
>>> import numpy as np
>>> from mechanism import Mechanism
>>> m = Mechanism("four-bar")
>>> for link in ("crank", "coupler", "rocker"):
...     m.add_link(link)
>>> m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
>>> m.add_pair("B", "revolute", "crank", "coupler", at=(1, 0, 0), axis=(0, 0, 1))
>>> m.add_pair("C", "revolute", "coupler", "rocker", at=(3, 2, 0), axis=(0, 0, 1))
>>> m.add_pair("D", "revolute", "rocker", "ground", at=(4, 0, 0), axis=(0, 0, 1))
>>> m.check().dof
1
"""

from __future__ import annotations

import numpy as np

from . import _validate as check_arg
from .bushings import bushing_spec, check_compliant_loads, moved_bushings, restiffened, variant_pairs
from .errors import ModelError
from .pairs import PAIR_TYPES, make_pair_type
from .specs import (
    DAMPING_LAWS,
    GROUND,
    BushingSpec,
    LinkMomentSpec,
    LinkSpec,
    Model,
    PairForceSpec,
    PairSpec,
    PairSpringSpec,
    PointDriverSpec,
    PointForceSpec,
    PointSpec,
    SpringDamperSpec,
)
from .units import Units

__all__ = ["Mechanism"]


class Mechanism:
    """A spatial linkage under construction.

    Parameters
    ----------
    name : str
        Name used in reports and files. A link named ``"ground"`` exists from the start.
    units : None, ("mm", "deg"), {"length": ..., "angle": ...} or mechanism.units.Units
        The model's own units (default SI): the default units of the files written from it
        (:func:`~mechanism.save_model`, ``to_csv`` of its results) and of the values in its
        messages. Every value given to or returned by the API is SI and radians regardless;
        :func:`~mechanism.load_model` sets them to the file's ``[units]``.
    """

    def __init__(self, name: str = "mechanism", units=None):
        self.name = check_arg.name(name, "mechanism name")
        self._units = Units.of(units)
        self._links: dict[str, LinkSpec] = {GROUND: LinkSpec(GROUND, com=check_arg.read_only(np.zeros(3)),
                                                             inertia=check_arg.read_only(np.zeros((3, 3))))}
        self._pairs: dict[str, PairSpec] = {}
        self._points: dict[str, PointSpec] = {}
        self._point_drivers: dict[str, PointDriverSpec] = {}
        self._pair_springs: list[PairSpringSpec] = []
        self._pair_forces: list[PairForceSpec] = []
        self._spring_dampers: dict[str, SpringDamperSpec] = {}
        self._point_forces: dict[str, PointForceSpec] = {}
        self._link_moments: dict[str, LinkMomentSpec] = {}
        self._gravity = np.zeros(3)
        self._reference: dict[str, np.ndarray] = {}
        self._bushings: dict[str, BushingSpec] = {}
        self._compliant = False
        self._snapshot: Model | None = None

    # ------------------------------------------------------------------ links
    def add_link(self, name, mass=0.0, com=(0.0, 0.0, 0.0), inertia=None):
        """Add a rigid link.

        Parameters
        ----------
        name : str
        mass : float, kg (0 for a massless link)
        com : (3,) m, centre of mass, global at the design pose
        inertia : (3, 3) kg m^2 about the centre of mass, global axes at the design pose
        """
        name = check_arg.name(name, "link name")
        where = f"link {name!r}"
        if name in self._links:
            raise ModelError(where, "a link of that name exists already")
        spec = LinkSpec(
            name=name,
            mass=check_arg.number(mass, f"{where}: mass", minimum=0.0),
            com=check_arg.vector(com, f"{where}: com", is_length=True),
            inertia=check_arg.inertia_tensor(np.zeros((3, 3)) if inertia is None else inertia,
                                            f"{where}: inertia"),
        )
        self._links[name] = spec
        self._changed()

    # ------------------------------------------------------------------ pairs
    def add_pair(self, name, type, first, second, at=None, axis=None, *, axes=None,
                 pitch=None, frame_on_first=None, frame_on_second=None):
        """Add a kinematic pair joining ``first`` to ``second``.

        Parameters
        ----------
        name : str
        type : {"revolute", "prismatic", "cylindrical", "helical", "hooke", "spherical", "planar"}
            (``"universal"`` is accepted for ``"hooke"``; the registry :mod:`mechanism.pairs`
            lists them).
        first, second : str
            Link names; the pair variables describe the motion of ``second`` relative to
            ``first`` (right-handed rotation about ``axis``, slide along it).
        at : (3,) m, global
            Pair centre (a point on the axis for revolute, prismatic, cylindrical, helical;
            a point of the plane for planar).
        axis : (3,), any non-zero length
            Pair axis (not used by spherical and Hooke pairs); a planar pair's normal: its
            ``"P.0"``, ``"P.1"`` slide the second link's centre along the plane's X and Y (m;
            X the global axis least parallel to the normal made normal to it, Y = normal x X),
            ``"P.2"`` turns it about the normal (rad).
        axes : ((3,), (3,))
            Hooke pair only: the pin on ``first`` and the pin on ``second``.
        pitch : float
            Helical pair only: advance per turn along ``axis``, m/rev.
        frame_on_first, frame_on_second : (4, 4)
            Link-local declaration instead of ``at``/``axis``: pose of the pair frame (Z along
            the axis) in each link's own frame. Close the loops with :meth:`assemble`.
        """
        name = check_arg.name(name, "pair name")
        where = f"pair {name!r}"
        if name in self._pairs or name in self._point_drivers or name in self._bushings:
            raise ModelError(where, "a pair or driver of that name exists already")
        if not isinstance(type, str) or type not in PAIR_TYPES:
            raise ModelError(f"{where}: type", f"unknown pair type {type!r} "
                             f"(expected one of {', '.join(sorted(PAIR_TYPES))})")
        for role, link in (("first", first), ("second", second)):
            check_arg.known(link, self._links, f"{where}: {role} link", "link")
        if first == second:
            raise ModelError(where, f"joins link {first!r} to itself")
        options = PAIR_TYPES[type].read_options(where, type, pitch)

        local = frame_on_first is not None or frame_on_second is not None
        if local:
            if frame_on_first is None or frame_on_second is None:
                raise ModelError(where, "give both frame_on_first and frame_on_second")
            if at is not None or axis is not None or axes is not None:
                raise ModelError(where, "give either link-local frames or global at/axis, not both")
            frame_j = check_arg.transform(frame_on_first, f"{where}: frame_on_first")
            frame_k = check_arg.transform(frame_on_second, f"{where}: frame_on_second")
            pair_type = make_pair_type(type, **options)
            spec = PairSpec(name, pair_type, first, second, frame_j, frame_k, local=True)
        else:
            spec = self._global_pair(name, type, first, second, at, axis, axes, options)
        self._pairs[name] = spec
        self._changed()

    def _global_pair(self, name, kind, first, second, at, axis, axes, options):
        where = f"pair {name!r}"
        if at is None:
            raise ModelError(f"{where}: at", "missing pair location")
        at = check_arg.vector(at, f"{where}: at", is_length=True)
        axis_used, axes, constants = PAIR_TYPES[kind].read_axes(where, kind, axis, axes)
        pair_type = make_pair_type(kind, **options, **constants)
        frame_j, frame_k = pair_type.frames(at, axis_used, axes)
        return PairSpec(name, pair_type, first, second, check_arg.read_only(frame_j), check_arg.read_only(frame_k),
                        at=at, axis=axis_used, axes=axes)

    # ----------------------------------------------------------------- points
    def add_point(self, name, link, at, *, local=False):
        """Name a point of ``link`` at ``at`` (m, global at the design pose; link frame if ``local``)."""
        name = check_arg.name(name, "point name")
        where = f"point {name!r}"
        if name in self._points:
            raise ModelError(where, "a point of that name exists already")
        check_arg.known(link, self._links, f"{where}: link", "link")
        self._points[name] = PointSpec(name, link, check_arg.vector(at, f"{where}: at", is_length=True),
                                       local=bool(local))
        self._changed()

    def add_point_driver(self, name, point, direction):
        """Drive the displacement of ``point`` along ``direction`` (m from the design pose).

        Builds Pavlov's road loop: massless virtual links joined to the ground by three
        prismatic pairs (the first along ``direction``, its variable named ``name``) and to
        the point's link by a spherical pair at the point.
        """
        name = check_arg.name(name, "point driver name")
        where = f"point driver {name!r}"
        if name in self._pairs or name in self._point_drivers or name in self._bushings:
            raise ModelError(where, "a pair or driver of that name exists already")
        check_arg.known(point, self._points, f"{where}: point", "point")
        if self._points[point].local:
            raise ModelError(f"{where}: point", "point drivers need points given globally at the design pose")
        self._point_drivers[name] = PointDriverSpec(name, point, check_arg.direction(direction, f"{where}: direction"))
        self._changed()

    # ------------------------------------------------------------------ loads
    def set_gravity(self, vector):
        """Gravitational acceleration, m/s^2, global, for example ``(0, 0, -9.81)``."""
        self._gravity = check_arg.vector(vector, "gravity")
        self._changed()

    def add_pair_spring(self, pair, stiffness, free_value=0.0, damping=0.0):
        """Torsion (or linear) spring-damper in a pair variable.

        ``pair`` is a one-variable pair or a component (``"U.0"``); stiffness N m/rad (N/m),
        free_value rad (m), damping N m s/rad (N s/m). Spherical components are not allowed
        (their values are a rotation vector, not additive coordinates).
        """
        where = f"pair spring on {check_arg.shown(pair)}"
        variable = self._scalar_variable(pair, where)
        self._pair_springs.append(PairSpringSpec(
            variable,
            check_arg.number(stiffness, f"{where}: stiffness", minimum=0.0),
            check_arg.number(free_value, f"{where}: free_value", is_length=not self._is_angle(variable)),
            check_arg.number(damping, f"{where}: damping", minimum=0.0),
        ))
        self._changed()

    def add_pair_force(self, pair, force):
        """Generalized force (N m or N) in a pair variable: a number, ``f(t)`` or ``(times, values)``."""
        where = f"pair force on {check_arg.shown(pair)}"
        variable = self._scalar_variable(pair, where)
        self._pair_forces.append(PairForceSpec(variable, check_arg.load_value(force, f"{where}: force", ())))
        self._changed()

    def add_spring_damper(self, name, link_a, at_a, link_b, at_b, stiffness, free_length=None, damping=0.0,
                          damping_law="linear"):
        """Point-to-point spring-damper (coil-over) between two links.

        Attachment points are global at the design pose (m); stiffness N/m, free_length m
        (default: the design length). The damper's force along the line is ``damping v``
        (``damping_law="linear"``, N s/m) or ``damping v |v|`` (``"quadratic"``, N s^2/m^2, a
        hydraulic orifice), ``v`` the rate of the length (m/s); it opposes ``v``.
        """
        name = check_arg.name(name, "spring-damper name")
        where = f"spring-damper {name!r}"
        if name in self._spring_dampers:
            raise ModelError(where, "a spring-damper of that name exists already")
        if not isinstance(damping_law, str) or damping_law not in DAMPING_LAWS:
            raise ModelError(f"{where}: damping_law",
                             f"expected one of {', '.join(map(repr, DAMPING_LAWS))}, got {check_arg.shown(damping_law)}")
        for key, link in (("link_a", link_a), ("link_b", link_b)):
            check_arg.known(link, self._links, f"{where}: {key}", "link")
        if link_a == link_b:
            raise ModelError(where, f"joins link {link_a!r} to itself")
        a = check_arg.vector(at_a, f"{where}: at_a", is_length=True)
        b = check_arg.vector(at_b, f"{where}: at_b", is_length=True)
        if np.linalg.norm(a - b) < 1e-12:
            raise ModelError(where, "attachment points coincide")
        if free_length is None:
            free_length = float(np.linalg.norm(a - b))
        self._spring_dampers[name] = SpringDamperSpec(
            name, link_a, a, link_b, b,
            check_arg.number(stiffness, f"{where}: stiffness", minimum=0.0),
            check_arg.number(free_length, f"{where}: free_length", minimum=0.0, is_length=True),
            check_arg.number(damping, f"{where}: damping", minimum=0.0),
            damping_law,
        )
        self._changed()

    def add_point_force(self, name, link, at, force, circle=None):
        """Force at a point of ``link`` (global at the design pose, m); vector N, global axes: a 3-vector,
        ``f(t) -> 3-vector`` or a ``(times, (N, 3) values)`` table. ``circle=(axis, radius, toward)``: it
        acts at the point of the circle on ``link`` about ``at`` (normal ``axis``, global at the design
        pose; radius m) farthest along the fixed ``toward`` (a wheel's contact patch; METHOD.md (E8))."""
        name = check_arg.name(name, "point force name")
        where = f"point force {name!r}"
        if name in self._point_forces:
            raise ModelError(where, "a point force of that name exists already")
        check_arg.known(link, self._links, f"{where}: link", "link")
        value = check_arg.load_value(force, f"{where}: force", (3,))
        self._point_forces[name] = PointForceSpec(name, link, check_arg.vector(at, f"{where}: at", is_length=True),
                                                  value, check_arg.circle(circle, f"{where}: circle"))
        self._changed()

    def add_link_moment(self, name, link, moment):
        """Free moment (a pure couple) on ``link``; vector N m, global axes, not turning with the
        link: a 3-vector, ``f(t) -> 3-vector`` or a ``(times, (N, 3) values)`` table (METHOD.md (E9))."""
        name = check_arg.name(name, "link moment name")
        where = f"link moment {name!r}"
        if name in self._link_moments:
            raise ModelError(where, "a link moment of that name exists already")
        check_arg.known(link, self._links, f"{where}: link", "link")
        self._link_moments[name] = LinkMomentSpec(name, link, check_arg.load_value(moment, f"{where}: moment", (3,)))
        self._changed()

    # --------------------------------------------------------------- bushings
    def add_bushing(self, name, first, second, at, axes=None, stiffness=None, damping=None, preload=None,
                    replaces=None):
        """A compliant connection joining ``first`` to ``second`` (mechanism/METHOD.md, "The bushing family").

        Parameters
        ----------
        at : (3,) m, global at the design pose: its centre
        axes : three directions (x, y, z), perpendicular and right-handed (default: global)
        stiffness : 6 rates (along x, y, z N/m, about x, y, z N m/rad) or a symmetric positive
            semi-definite (6, 6) matrix in its axes (translations first)
        damping : same layout, N s/m and N m s/rad (default zero)
        preload : (6,) N and N m, the force and moment on ``second`` at no deflection (default zero)
        replaces : str, optional, the rigid pair joining the same links that the bushing stands
            for in the compliant variant (two bushings may replace one wishbone pivot)

        In the rigid variant (the default, :meth:`use_bushings`) a bushing that replaces a pair
        leaves it in place and one that replaces nothing is a weld; in the compliant variant
        the bushing is a pair of six freedoms ``NAME.0``-``NAME.5`` (slides m, turns rad in its
        axes) carrying its stiffness, damping and preload. Raises ModelError at
        ``bushing 'NAME'`` for each mistake.
        """

        taken = set(self._pairs) | set(self._point_drivers) | set(self._bushings)
        spec = bushing_spec(name, first, second, at, axes, stiffness, damping, preload, replaces,
                            links=self._links, pairs=self._pairs, taken=taken)
        self._bushings[spec.name] = spec
        self._changed()

    def set_bushing_stiffness(self, name, stiffness):
        """Bushing ``name``'s stiffness, checked as :meth:`add_bushing`'s, its other data kept."""
        self._bushings[name] = restiffened(self._bushings, name, stiffness)
        self._changed()

    def use_bushings(self, compliant=True):
        """Switch between the compliant variant (True: replaced pairs give way to their bushings,
        the bushings deflect under the loads; sweeps are equilibria, :func:`loops.equilibrium`)
        and the rigid variant (False, the default: the replaced pairs are back, bushings that
        replace nothing act as welds)."""
        if not isinstance(compliant, (bool, np.bool_)):
            raise ModelError("use_bushings", f"expected True or False, got {check_arg.shown(compliant)}")
        self._compliant = bool(compliant)
        self._changed()

    @property
    def bushings(self):
        """Bushing records by name (read-only view)."""
        return dict(self._bushings)

    @property
    def compliant(self) -> bool:
        """True in the compliant variant (:meth:`use_bushings`)."""
        return self._compliant

    # -------------------------------------------------------------- queries
    @property
    def links(self):
        """Link records by name (read-only view)."""
        return dict(self._links)

    @property
    def pairs(self):
        """Pair records by name (read-only view)."""
        return dict(self._pairs)

    @property
    def points(self):
        return dict(self._points)

    @property
    def point_drivers(self):
        return dict(self._point_drivers)

    @property
    def units(self) -> Units:
        """The model's own units (see the class docstring); assign a ``Units`` or ``("mm", "deg")``."""
        return self._units

    @units.setter
    def units(self, value):
        self._units = Units.of(value)
        self._changed()

    @property
    def gravity(self):
        return self._gravity.copy()

    def variable_names(self):
        """Every pair variable name, in declaration order, then the point drivers."""
        names = [v for p in self._pairs.values() for v in p.variable_names()]
        return names + list(self._point_drivers)

    def _is_angle(self, variable):
        for pair in self._pairs.values():
            if variable in pair.variable_names():
                return pair.pair_type.rotational[pair.variable_names().index(variable)]
        return False

    def _scalar_variable(self, variable, where):
        if not isinstance(variable, str):
            raise ModelError(where, f"expected a pair variable name, got {check_arg.shown(variable)}")
        for pair in self._pairs.values():
            if variable in pair.variable_names():
                if not pair.pair_type.additive:
                    raise ModelError(where, f"{variable!r} is a spherical-pair component; "
                                     "only additive pair variables take springs and forces")
                return variable
            if variable == pair.name:
                raise ModelError(where, f"pair {variable!r} has {pair.size} variables; "
                                 f"name one of {', '.join(pair.variable_names())}")
        if variable in self._point_drivers:
            return variable
        raise ModelError(where, f"unknown pair variable {variable!r}")

    # ------------------------------------------------------------- snapshots
    def _changed(self):
        self._snapshot = None

    def snapshot(self) -> Model:
        """Frozen copy of the model, as analyses take it and results keep it."""
        if self._snapshot is None:
            reference = tuple((name, check_arg.read_only(values)) for name, values in self._reference.items())
            bushings = tuple(self._bushings.values())
            if self._compliant:
                check_compliant_loads(bushings, self._pair_springs, self._pair_forces, self._pairs)
            self._snapshot = Model(
                name=self.name,
                links=tuple(self._links.values()),
                pairs=variant_pairs(tuple(self._pairs.values()), bushings, self._compliant),
                points=tuple(self._points.values()),
                point_drivers=tuple(self._point_drivers.values()),
                pair_springs=tuple(self._pair_springs),
                pair_forces=tuple(self._pair_forces),
                spring_dampers=tuple(self._spring_dampers.values()),
                point_forces=tuple(self._point_forces.values()),
                gravity=check_arg.read_only(self._gravity),
                reference=reference,
                units=self._units,
                bushings=bushings,
                use_bushings=self._compliant,
                declared_pairs=tuple(self._pairs.values()) if bushings else None,
                link_moments=tuple(self._link_moments.values()),
            )
        return self._snapshot

    # -------------------------------------------------------- analyses (loops)
    def check(self):
        """Loops and mobility at the reference assembly: a printable ``MobilityReport``."""
        from loops.mobility import mobility_report  # up a layer on purpose: the API's convenience method

        return mobility_report(self.snapshot())

    def sweep(self, drivers, speeds=None, accelerations=None, *, hold=None, tolerance=None, progress=None):
        """Position (and velocity, acceleration) sweep of this mechanism; see :func:`loops.sweep.sweep`.

        ``drivers``: dict name -> (N,) values (rad, m); ``speeds``, ``accelerations``: dict
        name -> float or (N,) driver rates (default 0); ``hold``: variables to hold for the
        freedoms no driver fixes (default: chosen); ``tolerance``: closure tolerance,
        dimensionless (None: :data:`loops.continuation.DEFAULT_TOLERANCE`); ``progress``: a
        progress bar on stderr (None: for long sweeps on a terminal). Returns a
        :class:`loops.results.SweepResult`; raises ``SweepStopped`` where the sweep cannot go on.

        In the compliant variant (:meth:`use_bushings`) the sweep is an equilibrium sweep
        (:func:`loops.equilibrium`: the bushings deflect where the loads balance), without
        speeds or accelerations; it returns an :class:`loops.statics.EquilibriumResult`.
        """
        if self._compliant and self._bushings:
            from loops.statics import equilibrium  # up a layer on purpose: the API's convenience method

            if speeds or accelerations:
                raise ModelError("speeds", "a compliant model (use_bushings(True)) sweeps by equilibrium, at rest: "
                                 "give no speeds or accelerations")
            options = {} if tolerance is None else {"tolerance": tolerance}
            return equilibrium(self, drivers, hold=hold, **options)
        from loops.sweep import sweep  # up a layer on purpose: the API's convenience method

        options = {} if tolerance is None else {"tolerance": tolerance}
        return sweep(self.snapshot(), drivers, speeds=speeds, accelerations=accelerations, hold=hold,
                     progress=progress, **options)

    def assemble(self, guess=None, **options):
        """Close every loop from rough pair values ``guess`` (dict name -> value or values).

        The assembled values become the reference from which sweeps start; returns them as
        a dict pair name -> ndarray. Raises :class:`~mechanism.errors.ClosureError` naming
        the loop that could not close.
        """
        from loops.newton import assemble  # up a layer on purpose: the API's convenience method

        previous = self._reference
        self._reference = {}
        self._changed()
        try:
            values = assemble(self.snapshot(), guess or {}, **options)
        except BaseException:
            self._reference = previous  # a failed attempt leaves the last assembly in place
            self._changed()
            raise
        self._reference = {name: check_arg.read_only(v) for name, v in values.items()}
        self._changed()
        return {name: np.array(v) for name, v in self._reference.items()}

    def closure_defect(self):
        """How far the loops are from closing at the reference assembly (zero pair values at
        the design pose, or :meth:`assemble`'s values): ``(defect, loop)``, the largest
        closure defect (dimensionless: rad, and gap over the mechanism's size) and the loop
        holding it as ``"name: pair-pair-..."`` ("" without loops).

        Raises :class:`~mechanism.errors.ModelError` where the model cannot be analysed (links
        not connected, sizes beyond mechanism/limits.py), located at the pair or link.
        """
        # Up a layer on purpose (the engine imports the model, not the reverse at module level):
        # the model file's reader asks the model whether its loops close.
        from loops.compiled import compile_model  # noqa: PLC0415
        from loops.configuration import evaluate  # noqa: PLC0415
        from loops.newton import worst_loop  # noqa: PLC0415

        system = compile_model(self.snapshot())
        config = evaluate(system, system.reference_q())
        return config.closure_error(), worst_loop(system, config)

    def moved(self, hardpoints) -> "Mechanism":
        """A copy of this mechanism with some hardpoints moved: a design variant.

        ``hardpoints`` maps hardpoint names (:mod:`mechanism.hardpoints`: ``"PAIR"``, ``"PAIR.axis"``,
        ``"POINT"``, ``"SPRING.at_a"``, ``"BUSHING"``) to new global values at the design pose (m;
        any non-zero length for an axis). Pair frames are derived anew as :meth:`add_pair` derives
        them; links, loads, a spring-damper's free length, a bushing's rates are kept. A pair's centre
        moved by ``d`` moves the bushings replacing it by ``d``, its axis turned turns them about its
        centre (:func:`~mechanism.bushings.moved_bushings`). ModelError at ``hardpoint 'NAME'`` for
        a name that is not a hardpoint, as :meth:`add_pair` for a bad value."""
        import copy  # noqa: PLC0415
        from dataclasses import replace  # noqa: PLC0415

        from .hardpoints import hardpoints_of  # noqa: PLC0415

        known, hardpoints = hardpoints_of(self.snapshot()), dict(hardpoints)
        out = copy.copy(self)
        out._pairs, out._points, out._bushings = dict(self._pairs), dict(self._points), dict(self._bushings)
        out._spring_dampers, out._reference = dict(self._spring_dampers), dict(self._reference)
        out._snapshot = None
        for name, value in hardpoints.items():
            point = known.get(name) if isinstance(name, str) else None
            if point is None:
                raise ModelError(f"hardpoint {name!r}", f"not a hardpoint of {self.name!r} (hardpoints: "
                                 f"{', '.join(known)})")
            where = f"hardpoint {name!r}"
            if point.table == "pairs":
                pair = out._pairs[point.owner]
                at = value if point.key == "at" else pair.at
                axis = value if point.key == "axis" else pair.axis
                out._pairs[point.owner] = out._global_pair(pair.name, pair.kind, pair.first, pair.second, at, axis,
                                                           pair.axes, pair.pair_type.options())
            elif point.table == "points":
                out._points[point.owner] = replace(out._points[point.owner],
                                                   at=check_arg.vector(value, where, is_length=True))
            elif point.table == "spring_dampers":
                out._spring_dampers[point.owner] = replace(out._spring_dampers[point.owner], **{
                    point.key: check_arg.vector(value, where, is_length=True)})
        out._bushings = moved_bushings(self._bushings, [(known[n], v) for n, v in hardpoints.items()], out._pairs)
        return out

    def __repr__(self):
        return (f"Mechanism({self.name!r}: {len(self._links)} links, {len(self._pairs)} pairs, "
                f"{len(self._points)} points)")

    def _repr_html_(self):
        """In a notebook: a summary with loops and degrees of freedom (:meth:`check`) and the model in
        3-D (:mod:`loops.views`; a convenience method's call up to the engine, as :meth:`check`)."""
        from loops.views.notebook import mechanism_html  # up a layer on purpose, as check()

        return mechanism_html(self)
