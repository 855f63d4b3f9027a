"""Sensitivities of the roll analysis (:func:`loops.suspension.roll`): along a hardpoint
coordinate the roll axis, the road frame and the wheel travels all move, and every metric is
differentiated along the roll solution, METHOD.md (R1)-(R8).
"""

from __future__ import annotations

import numpy as np


from ...spatial import lie_bracket, transform_twists
from ...suspension import jets
from ...suspension.axle import SIDES
from ...suspension.axle_geometry import roll_centre_point
from ...suspension.body_motion import BODY_TRAVELS, roll_frame
from ...suspension.measure import axle_metrics, corner_metrics, velocity_field_metrics
from ...suspension.metrics import AXLE_METRICS, METRICS, ROLL_METRICS
from ...suspension.motion import Frame, Motion
from ...suspension.travel import design_pose, patch_height, wheel_centre_and_patch
from ...suspension.velocity_field import has_anti_geometry
from .closure import Closure
from .directions import Along, Directions
from .driver_rates import driver_accelerations, motion_along
from .metrics import FIELD_METRICS, RATE_METRICS, design_patch_point, rate_derivative
from .motion import (DesignJets, HardpointMotion, flat_rows, motion_along_coordinates, motion_along_driver,
                     moved_points, repeated_rows)
from .wheel_rate import has_wheel_rate, spring_rates, wheel_rate_derivative
from loops.continuation import DEFAULT_TOLERANCE

__all__ = ["Roll", "roll_axis", "roll_sensitivities", "roll_order", "wheel_metric"]


def wheel_metric(name):
    """A per-wheel metric's name without its side (``camber_left`` -> ``camber``)."""
    return name.removesuffix("_left").removesuffix("_right") if isinstance(name, str) else name


def roll_axis(susp, moves, where):
    """The roll axis's point ``a`` (3,), the axle's static roll centre (m, body frame), and its
    rates ``a_p`` (k, 3) along the coordinates (R1)."""
    record = design_pose(susp, DEFAULT_TOLERANCE)  # the design closes at zero pair variables: no iteration
    system, names = record.system, list(record.drivers)
    closure = Closure(system, *record.closed_positions(), where)
    columns = np.array([system.variable_index[n] for n in names], dtype=np.int64)
    directions = Directions(closure, moves, columns, where)
    along_p = motion_along_coordinates(closure, directions, moved_points(moves, 1))
    body = Frame.body(susp.corners["left"])
    patches, velocities = {}, {}
    for side in SIDES:
        _, patches[side] = wheel_centre_and_patch(susp, side, along_p, body.up)
        d, upright = names.index(susp.resolved[side].travel), system.link_index[susp.corners[side].upright]
        velocities[side] = jets.material_velocity(directions.velocity_jet(d, upright), patches[side])
    centre = roll_centre_point(patches, velocities, body)
    return centre.value[0], centre.d


class Roll:
    """The roll solution's rates along the coordinates at every position (module docstring,
    "Roll"): the axis (R1), the road frame (R2), the travels (R3), the metrics (R4) and the
    roll's rates (R5).

    Attributes: ``axis`` (3,) the static roll centre, m, body frame, and ``axis_rate`` (K, 3)
    its rates; ``R`` (N, 3, 3), ``shift`` (N, 3) the body seen from the road (``x_road = R x +
    shift``); ``slide`` (N, K, 3) the road picture's slide ``(1 - R) a_p``; ``J`` (N, 2, 2) the
    contact conditions' rates along the travels (left, right); ``travel_rate`` (N, 2, K) the
    travels' rates ``t_p`` along the solution, m per metre (or per unit axis component).
    """

    def __init__(self, susp, result, closure, directions, driver_names, where):
        self.susp, self.result, self.closure, self.directions = susp, result, closure, directions
        self.driver_names = driver_names
        N, K = self.N, self.K = closure.xi.shape[0], len(directions.moves)
        self.body = body = Frame.body(susp.corners["left"])
        self.axis, self.axis_rate = roll_axis(susp, directions.moves, where)  # (R1)
        R, shift, self.road = roll_frame(result.metric("roll_angle"), np.broadcast_to(self.axis, (N, 3)), body)
        self.R, self.shift = R, shift
        self.M = np.zeros((N, 4, 4))  # the body's pose seen from the road
        self.M[:, :3, :3], self.M[:, :3, 3], self.M[:, 3, 3] = R, shift, 1.0
        self.slide = (self.axis_rate[None] - np.einsum("nij,kj->nki", R, self.axis_rate))  # (R2) (N, K, 3)
        self.road_rows = Frame(body.forward, body.up, np.repeat(self.road.left, K, axis=0),
                               np.repeat(self.road.centre, K, axis=0))
        self.moved = moved_points(directions.moves, N)
        self.along_p = motion_along_coordinates(closure, directions, self.moved)
        self.travels = [driver_names.index(susp.resolved[side].travel) for side in SIDES]
        self.along_t = [motion_along_driver(closure, directions, d) for d in self.travels]
        self.design_p = {side: DesignJets(susp.design[side], susp.resolved[side], susp.corners[side], self.moved,
                                           N * K) for side in SIDES}
        # (R3): g_p + J t_p = 0, J[i, j] = d g_i / d t_j
        g_p = np.stack([self.height(side, self.on_road(self.along_p, True), self.slid(side)).d.reshape(N, K)
                        for side in SIDES], axis=1)
        self.J = np.stack([np.stack([self.height(side, self.on_road(m, False)).d for m in self.along_t], axis=1)
                           for side in SIDES], axis=1)
        self.travel_rate = -np.linalg.solve(self.J, g_p)  # (N, 2, K)
        self._along_travels = {}
        self._steer_rates = {}

    def on_road(self, motion, rows):
        """A body motion seen from the road (N rows, or N K rows)."""
        R, shift = (np.repeat(self.R, self.K, axis=0), np.repeat(self.shift, self.K, axis=0)) if rows else \
            (self.R, self.shift)
        return motion.in_frame(R, shift)

    def slid(self, side):
        """``side``'s design values along p seen from the road, its slide (R2) included."""
        return self.design_p[side].slid(self.slide.reshape(-1, 3))

    def height(self, side, motion, design=None):
        """The contact condition ``g`` of ``side`` along ``motion`` (a jet), against the nominal
        design patch or ``design``'s."""
        patch = self.susp.design[side].patch if design is None else design.patch
        return patch_height(self.susp, side, motion, self.body.up, patch)

    def steer(self, side, rows, seen, rate=None):
        """The steering variable's motion (for a virtual steering axis), seen by ``seen``, with
        its twists' rate ``rate`` (a getter link -> (rows, 6)) along the jets' direction."""
        steering = self.susp.corners[side].steering
        if steering not in self.driver_names:
            return None
        motion = motion_along_driver(self.closure, self.directions, self.driver_names.index(steering),
                               self.K if rows else None)
        if rate is not None:
            motion = Motion(motion.pose, motion.twist, None, rate)
        return seen(motion, rows)

    def steer_rates(self, side):
        """(V1) for a virtual steering axis seen from the road: the steering motion's twists'
        rates along p (getter, N K rows) and along each travel (getters, N rows), or None when
        ``side`` has a kingpin (or no steering variable)."""
        corner = self.susp.corners[side]
        if corner.kingpin is not None or corner.steering not in self.driver_names:
            return None
        s = self.driver_names.index(corner.steering)
        if s not in self._steer_rates:
            index = self.closure.system.link_index
            D = driver_accelerations(self.result, self.travels + [s])  # D[j][-1] = d_{t_j} V_s
            self._steer_rates[s] = (flat_rows(self.closure, self.directions.velocity_rate(s)),
                                    [lambda link, j=j: D[j][-1][:, index[link]] for j in range(len(self.travels))])
        return self._steer_rates[s]

    def along_travels(self, side):
        """``side``'s metric jets along each travel seen from the road (N rows each), once."""
        if side not in self._along_travels:
            rates = self.steer_rates(side)
            self._along_travels[side] = [self.metrics(side, self.on_road(m, False), self.susp.design[side],
                                                      self.road, False, self.on_road,
                                                      None if rates is None else rates[1][j])
                                         for j, m in enumerate(self.along_t)]
        return self._along_travels[side]

    def metrics(self, side, motion, design, frame, rows, seen, steer_rate=None):
        """``corner_metrics``' jets of ``side`` along ``motion`` (rows: N K, else N); a virtual
        steering axis moves with ``steer_rate`` (:meth:`steer`)."""
        corner = self.susp.corners[side]
        return corner_metrics(self.susp.resolved[side], corner, design, motion, frame, vehicle=self.susp.vehicle,
                              steer_motion=self.steer(side, rows, seen, steer_rate))[1]

    def position_rates(self):
        """``{metric_side: (N, k)}``: (R4) for every position metric, in the road frame, the
        wheel travels in the body frame."""
        N, K = self.N, self.K

        def in_body(motion, rows):
            return motion

        def rates(side, frame_rows, seen, design_along_p, named_t):
            steer_rates = self.steer_rates(side)
            named_p = self.metrics(side, seen(self.along_p, True), design_along_p, frame_rows, True, seen,
                                   None if steer_rates is None else steer_rates[0])
            return {name: jet.d.reshape(N, K) + sum(t[name].d[:, None] * self.travel_rate[:, j]
                                                    for j, t in enumerate(named_t))
                    for name, jet in named_p.items() if name in METRICS}

        out = {}
        for side in SIDES:
            values = rates(side, self.road_rows, self.on_road, self.slid(side), self.along_travels(side))
            body_t = [self.metrics(side, m, self.susp.design[side], self.body, False, in_body) for m in self.along_t]
            body_values = rates(side, self.body, in_body, self.design_p[side], body_t)
            values.update({key: body_values[key] for key in BODY_TRAVELS if key in values})
            out.update({f"{name}_{side}": values[name] for name in METRICS if name in values})
        return out

    def roll_rates(self):
        """``{roll_camber_side, roll_steer_side: (N, k)}``: (R5)."""
        N, K, c = self.N, self.K, self.closure
        f = self.body.forward
        M = self.M
        poses = M[:, None] @ c.poses  # (N, L, 4, 4) seen from the road
        frame_phi = np.r_[f, -np.cross(f, self.axis)]  # the frame's twist per unit roll
        frame_p = np.concatenate([np.zeros((N, K, 3)), self.slide], axis=2)  # per unit p (R2)
        # the travels' rates along the roll at fixed p: g_phi + J t_phi = 0
        turning = Motion(lambda link: poses[:, c.system.link_index[link]], lambda link: np.broadcast_to(
            frame_phi, (N, 6)), lambda link: np.zeros((N, 6)))
        g_phi = np.stack([self.height(side, turning).d for side in SIDES], axis=1)
        t_phi = -np.linalg.solve(self.J, g_phi[..., None])[..., 0]  # (N, 2)
        V_t = self.directions.V_a[:, self.travels]  # (N, 2, L, 6), body
        body_phi = np.einsum("nj,njls->nls", t_phi, V_t)
        V_phi = frame_phi + transform_twists(M[:, None], body_phi)  # (N, L, 6)
        V_p = frame_p[:, :, None] + transform_twists(M[:, None, None], self.directions.V_p + np.einsum(
            "njk,njls->nkls", self.travel_rate, V_t))  # (N, K, L, 6)
        # d_p V_phi without the travels' second rates t_{phi p}: the axis's rate, the frame's
        # slide turning the body's twist, the body twist's own rate along the solution
        D = driver_accelerations(self.result, self.travels)
        body_rate = sum(t_phi[:, j, None, None, None] * (
            self.directions.velocity_rate(d) + sum(self.travel_rate[:, k, :, None, None] * D[k][j][:, None]
                                                   for k in range(len(self.travels))))
            for j, d in enumerate(self.travels))
        axis_turn = np.concatenate([np.zeros((K, 3)), -np.cross(f, self.axis_rate)], axis=1)
        rate_phi = (axis_turn[None, :, None] + lie_bracket(frame_p[:, :, None], transform_twists(M[:, None], body_phi)
                                                          [:, None]) + transform_twists(M[:, None, None], body_rate))
        S = 2.0 * rate_phi + lie_bracket(V_phi[:, None], V_p)  # d_p V_phi + d_phi V_p, t_{phi p} left out

        index = c.system.link_index
        rows_zero, zero = np.zeros((N * K, 6)), np.zeros((N, 6))
        pose_rows = repeated_rows(c, poses, K)
        along_phi = Motion(lambda link: poses[:, index[link]], lambda link: V_phi[:, index[link]], lambda link: zero)
        along_p = HardpointMotion(pose_rows, flat_rows(c, V_p), lambda link: rows_zero, self.moved)
        both = HardpointMotion(pose_rows, flat_rows(c, V_phi[:, None] + V_p), flat_rows(c, S), self.moved)

        def mixed(jet_phi, jet_p, jet_both):
            """``f_{phi p}`` (N, K) by polarisation, t_{phi p} left out."""
            return (jet_both.dd.reshape(N, K) - jet_p.dd.reshape(N, K) - jet_phi.dd[:, None]) / 2.0

        G = np.stack([mixed(self.height(side, along_phi), self.height(side, along_p, self.design_p[side]),
                            self.height(side, both, self.design_p[side])) for side in SIDES], axis=1)
        t_phi_p = -np.linalg.solve(self.J, G)  # (N, 2, K), (R5)
        out = {}

        def seen(motion, rows):
            return self.on_road(motion, rows)

        for side in SIDES:
            design = self.design_p[side]
            jets_phi = self.metrics(side, along_phi, self.susp.design[side], self.road, False, seen)
            jets_p = self.metrics(side, along_p, design, self.road_rows, True, seen)
            jets_both = self.metrics(side, both, design, self.road_rows, True, seen)
            jets_t = self.along_travels(side)
            for name, metric in (("roll_camber", "camber"), ("roll_steer", "steer_angle")):
                out[f"{name}_{side}"] = mixed(jets_phi[metric], jets_p[metric], jets_both[metric]) + sum(
                    jets_t[j][metric].d[:, None] * t_phi_p[:, j] for j in range(len(self.travels)))
        return out

    def driver_rates(self):
        """``{metric_side: (N, k)}``: (R6) the rate metrics along the wheel travels and the
        steering variable, differentiated along the roll solution."""
        N, K, c, dirs = self.N, self.K, self.closure, self.directions
        index = c.system.link_index
        steering = [self.driver_names.index(corner.steering) for corner in self.susp.corners.values()
                    if corner.steering in self.driver_names]
        drivers = sorted(set(self.travels) | set(steering))
        at = {d: i for i, d in enumerate(drivers)}
        D = driver_accelerations(self.result, drivers)
        zero = np.zeros_like(dirs.V_a[:, 0])

        def along(twists, accelerations):
            """Body motion (N rows) with link twists and accelerations (N, L, 6)."""
            return Motion(lambda link: c.poses[:, index[link]], lambda link: twists[:, index[link]],
                          lambda link: accelerations[:, index[link]])

        def second(a, j):
            """``d_a d_j V`` summed symmetrically: the acceleration along drivers a + j."""
            return D[at[a]][at[j]] + D[at[j]][at[a]]

        out = {}
        for side in SIDES:
            design = self.design_p[side]

            def jets_of(motion, rows=False):
                seen = self.on_road(motion, rows)
                return self.metrics(side, seen, design if rows else self.susp.design[side],
                                    self.road_rows if rows else self.road, rows, self.on_road)

            along_p = jets_of(self.along_p, True)
            roles = {"travel": self.travels[SIDES.index(side)], "steering": None}
            steer_name = self.susp.corners[side].steering
            if steer_name in self.driver_names:
                roles["steering"] = self.driver_names.index(steer_name)
            for name, (role, numerator, sign) in RATE_METRICS.items():
                a = roles[role]
                if a is None or numerator not in along_p:
                    continue
                V_a = dirs.V_a[:, a]
                jets_a = jets_of(along(V_a, zero))
                both = jets_of(HardpointMotion(repeated_rows(c, c.poses, K), flat_rows(c, V_a[:, None] + dirs.V_p),
                                               flat_rows(c, dirs.mixed(a)), self.moved), True)
                along_t = [jets_of(along(dirs.V_a[:, t], zero)) for t in self.travels]
                twice = [jets_of(along(V_a + dirs.V_a[:, t], second(a, t)) if t != a else along(V_a, D[at[a]][at[a]]))
                         for t in self.travels]

                def total(key):
                    """``d/dp`` of ``key``'s rate along a on the solution: ``f_ap + sum_j f_{a t_j}
                    t_{j,p}`` (N, K), mixed derivatives by polarisation."""
                    f_ap = (both[key].dd.reshape(N, K) - along_p[key].dd.reshape(N, K) - jets_a[key].dd[:, None]) / 2.0
                    for j, t in enumerate(self.travels):
                        f_at = twice[j][key].dd if t == a else \
                            (twice[j][key].dd - jets_a[key].dd - along_t[j][key].dd) / 2.0
                        f_ap = f_ap + f_at[:, None] * self.travel_rate[:, j]
                    return f_ap

                w = (None, None) if role == "steering" else (jets_a["wheel_travel"].d[:, None], total("wheel_travel"))
                out[f"{name}_{side}"] = rate_derivative(role, sign, jets_a[numerator].d[:, None], total(numerator),
                                                         *w)
        return out

    def field_rates(self, driver_rates):
        """``{metric: (N, k)}``: (R7) the velocity-field metrics per side and the axle's metrics
        (roll centre, track, steering ratio from the rates ``driver_rates`` of (R6)) along the
        roll solution, from their inputs' total rates."""
        N, K, c, dirs = self.N, self.K, self.closure, self.directions
        index = c.system.link_index
        D = driver_accelerations(self.result, self.travels)
        M = self.M
        rate_t = self.travel_rate  # (N, 2, K)
        nan = np.full((N * K, 6), np.nan)

        def total(value, along_p, along_t):
            """A jet (N K rows) of ``value`` (N, ...) with its rate along the solution, from its
            rate along p at fixed travels (N, K, ...) and along each travel (N, ...)."""
            d = along_p + sum(along_t[j][:, None] * rate_t[:, j].reshape((N, K) + (1,) * (value.ndim - 1))
                              for j in range(len(self.travels)))
            rows = np.repeat(value, K, axis=0)
            return jets.Jet(rows, d.reshape(rows.shape), nan[:, :rows.shape[1]])

        out, wheels = {}, {}
        for i, side in enumerate(SIDES):
            corner, resolved = self.susp.corners[side], self.susp.resolved[side]
            at_p = self.wheel(side, self.on_road(self.along_p, True), self.design_p[side], self.road_rows, True)
            at_t = [self.wheel(side, self.on_road(m, False), self.susp.design[side], self.road, False)
                    for m in self.along_t]

            def point(key):
                return total(at_t[0][key].value, at_p[key].d.reshape(N, K, 3), [w[key].d for w in at_t])

            def twist(link):
                """The link's twist per unit of this side's travel, seen from the road, (R7)."""
                l = index[link]
                own = transform_twists(M, dirs.V_a[:, self.travels[i], l])
                return total(own, transform_twists(M[:, None], dirs.velocity_rate(self.travels[i])[:, :, l]),
                             [transform_twists(M, D[j][i][:, l]) for j in range(len(self.travels))])

            static = None
            if has_anti_geometry(self.susp.vehicle):
                up_link = index[corner.upright]
                pose = M @ c.poses[:, up_link]
                on_p = design_patch_point(np.repeat(pose, K, axis=0), transform_twists(
                    np.repeat(M, K, axis=0), dirs.V_p[:, :, up_link].reshape(N * K, 6)), self.design_p[side])
                r = self.susp.design[side].patch_on_upright
                on_t = [jets.point_jet(pose, transform_twists(M, dirs.V_a[:, t, up_link]), None, r).d
                        for t in self.travels]
                static = total(on_p.value[::K], on_p.d.reshape(N, K, 3), on_t)
            centre = jets.material_velocity(twist(resolved.wheel_centre.link), point("centre_jet"))
            _, outboard, _ = corner.axes
            field, v_patch = velocity_field_metrics(twist(corner.upright), point("patch_jet"), centre, static,
                                                    self.road_rows, outboard, self.susp.vehicle)
            for name, jet in field.items():
                out[f"{name}_{side}"] = jet.d.reshape(N, K)
            # The road's slide (R2) moves the roll centre with the road picture: its height in
            # the frame (the others are relative) takes it.
            out[f"roll_centre_z_{side}"] = out[f"roll_centre_z_{side}"] + self.slide @ self.body.up
            wheels[side] = (point("patch_jet"), v_patch)
        steer_rates = None
        if all(f"steer_rate_{side}" in driver_rates for side in SIDES):
            values = {side: self.result.metric(f"steer_rate_{side}") for side in SIDES}
            steer_rates = {side: jets.Jet(np.repeat(values[side], K), driver_rates[f"steer_rate_{side}"].reshape(-1),
                                          nan[:, 0]) for side in SIDES}
        axle = axle_metrics({side: wheels[side][0] for side in SIDES}, {side: wheels[side][1] for side in SIDES},
                            self.road_rows, steer_rates=steer_rates, vehicle=self.susp.vehicle)
        out.update({name: jet.d.reshape(N, K) for name, jet in axle.items()})
        return out

    def wheel_rates(self):
        """``{wheel_rate_side: (N, k)}``: (R8) the wheel rate along each wheel's own travel, seen
        from the road, differentiated along the roll solution."""
        dirs = self.directions
        D = driver_accelerations(self.result, self.travels)
        q_aa = [motion_along(self.result, [t])[0] for t in self.travels]
        up = np.einsum("nji,j->ni", self.R, self.body.up)  # the road's up in the body frame
        out = {}
        for i, side in enumerate(SIDES):
            resolved = self.susp.resolved[side]
            if not has_wheel_rate(self.closure.system, resolved):
                continue
            a = self.travels[i]
            at_p = spring_rates(self.closure, dirs, a, D[i][i], q_aa[i], dirs.along_coordinates(a), resolved, up,
                                 self.moved)
            at_t = []
            for j, t in enumerate(self.travels):
                # q_aj: half the second rates along a + t less those along a and along t (a
                # Hooke pair's angles are coordinates: their mixed rates are symmetric)
                q_at = q_aa[i] if j == i else (motion_along(self.result, [a, t])[0] - q_aa[i] - q_aa[j]) / 2.0
                along = Along.driver(dirs.V_a[:, t], D[j][i], dirs.q_a[:, t], q_at)
                at_t.append(spring_rates(self.closure, dirs, a, D[i][i], q_aa[i], along, resolved, up, {}))

            def total(key):
                """(R4) for one ingredient: along p at fixed travels, plus along each travel."""
                return at_p[key] + sum(t[key] * self.travel_rate[:, j] for j, t in enumerate(at_t))

            at = (at_t[0]["L"], at_t[0]["L_a"], at_t[0]["L_aa"], at_t[0]["w_a"], at_t[0]["w_aa"])
            out[f"wheel_rate_{side}"] = wheel_rate_derivative(resolved.spring_spec, at, total("L_b"), total("L_ab"),
                                                               total("L_aab"), total("w_ab"), total("w_aab"))
        return out

    def wheel(self, side, motion, design, frame, rows):
        """``corner_metrics``' point jets of ``side`` (contact patch, wheel centre) along
        ``motion``."""
        corner = self.susp.corners[side]
        return corner_metrics(self.susp.resolved[side], corner, design, motion, frame, vehicle=self.susp.vehicle,
                              steer_motion=self.steer(side, rows, self.on_road))[2]


def roll_sensitivities(susp, result, closure, directions, driver_names, rates, where, only=None):
    """``{metric_side: (N, k)}`` of a roll analysis (METHOD.md (R1)-(R8)); with ``only``
    (metric names), the second-order groups only where one of them needs it."""
    wanted = None if only is None else {wheel_metric(name) for name in only}

    def needs(*groups):
        return rates and (wanted is None or any(wanted & set(group) for group in groups))

    solution = Roll(susp, result, closure, directions, driver_names, where)
    out = solution.position_rates()
    if needs(ROLL_METRICS):
        out.update(solution.roll_rates())
    if needs(("wheel_rate",)):
        out.update(solution.wheel_rates())
    driver_rates = solution.driver_rates() if needs(RATE_METRICS, ("steering_ratio",)) else {}
    out.update(driver_rates)
    if needs(FIELD_METRICS, AXLE_METRICS):
        out.update(solution.field_rates(driver_rates))
    return {name: out[name] for name in sorted(out, key=roll_order)}


def roll_order(name):
    """Metrics in the order of METRICS per side, then the roll's own, then the axle's (as the
    roll's columns)."""
    base, _, side = name.rpartition("_")
    if side not in SIDES:
        return (len(SIDES), list(AXLE_METRICS).index(name) if name in AXLE_METRICS else len(AXLE_METRICS))
    order = list(METRICS) + list(ROLL_METRICS)
    return (SIDES.index(side), order.index(base) if base in order else len(order))
