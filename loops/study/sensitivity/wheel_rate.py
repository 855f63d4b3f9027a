"""The wheel rate's sensitivities: third rates of the spring length and the wheel travel,
METHOD.md (T3) and the chain rule (T4).

``wheel_rate = k MR^2 + F rho`` holds second rates along the travel driver, so its
derivative along a hardpoint coordinate needs the third: the acceleration rates of
:meth:`~loops.study.sensitivity.directions.Directions.acceleration_rate` (T1)-(T2), carried
to the spring's ends and the wheel centre (T3) and through the wheel rate's formula (T4).
"""

from __future__ import annotations

import numpy as np

from mechanism.transforms import cross

from ...passive import pairs_touching

__all__ = ["has_wheel_rate", "point_rates", "spring_rates", "wheel_rate_derivative", "wheel_rate_sensitivity"]


def has_wheel_rate(system, resolved):
    """Whether the corner has a wheel rate with sensitivities: a spring with its rate, and
    neither spring end nor the wheel centre off the line of an idle link they sit on (there
    the metric would follow the idle spin, whose third rate (T2) leaves free)."""
    if resolved.spring is None or resolved.spring_spec is None:
        return False
    centres = np.array([p.frame_on_first[:3, 3] for p in system.pairs])
    for gauge in system.gauges:
        on_line = centres[pairs_touching(system.topology, gauge.link)[0]]
        for located in (*resolved.spring, resolved.wheel_centre):
            # at the design pose every link frame is the global frame
            if system.link_index[located.link] == gauge.link and \
                    np.abs(cross(located.r - on_line, gauge.axis)).max() > 1e-9 * system.scale:
                return False
    return True


def point_rates(closure, V_a, A_a, along, J, located, moved):
    """A located point's derivatives along driver a and the B directions b of ``along`` (N B
    rows, 3): ``x, x_a, x_b, x_aa, x_ab, x_aab`` (T3), from its link's pose, velocity ``V_a``
    (N, L, 6), acceleration ``A_a`` (N, L, 6), twist ``V_b`` with its own move ``R e`` in the
    link when it is the moved hardpoint (``moved``, as :class:`HardpointMotion`'s), velocity
    rate ``d_b V_a`` and acceleration rate ``J = d_b A_a`` (N, B, L, 6)."""
    B = along.V.shape[1]
    link = closure.system.link_index[located.link]

    def rows(array):  # (N, ...) -> each position repeated for the B directions
        return np.repeat(array, B, axis=0)

    pose = rows(closure.poses[:, link])
    R = pose[:, :3, :3]
    V, A = rows(V_a[:, link]), rows(A_a[:, link])
    V_b, dV, dA = (array[:, :, link].reshape(-1, 6) for array in (along.V, along.rate, J))
    x = np.einsum("nij,nj->ni", R, np.broadcast_to(located.r, (len(R), 3))) + pose[:, :3, 3]
    e = moved.get(located.source) if located.source is not None else None
    own = 0.0 if e is None else np.einsum("nij,nj->ni", R, e)
    x_a = cross(V[:, :3], x) + V[:, 3:]
    x_b = cross(V_b[:, :3], x) + V_b[:, 3:] + own
    x_aa = cross(A[:, :3], x) + A[:, 3:] + cross(V[:, :3], x_a)
    x_ab = cross(dV[:, :3], x) + dV[:, 3:] + cross(V[:, :3], x_b)
    x_aab = (cross(dA[:, :3], x) + dA[:, 3:] + cross(A[:, :3], x_b) + cross(dV[:, :3], x_a)
             + cross(V[:, :3], x_ab))
    return x, x_a, x_b, x_aa, x_ab, x_aab


def spring_rates(closure, directions, d, A_a, q_aa, along, resolved, up, moved):
    """The wheel rate's ingredients along driver a (the travel driver ``d``) and the B
    directions of ``along`` (T4), each (N, B): the spring length ``L`` and its rates ``L_a,
    L_b, L_aa, L_ab, L_aab`` (from ``L^2 = D . D``, D the spring's end-to-end vector,
    differentiated), the wheel-centre travel's ``w_a, w_aa, w_ab, w_aab`` along ``up`` (3,) or
    (N, 3) one per position."""
    N, B = along.V.shape[:2]
    J = directions.acceleration_rate(d, A_a, q_aa, along)
    V_a = directions.V_a[:, d]
    ends = [point_rates(closure, V_a, A_a, along, J, end, moved) for end in resolved.spring]
    D, D_a, D_b, D_aa, D_ab, D_aab = (one - two for one, two in zip(*ends))
    centre = point_rates(closure, V_a, A_a, along, J, resolved.wheel_centre, moved)
    up = np.repeat(np.broadcast_to(up, (N, 3)), B, axis=0)

    def dot(u, v):
        return np.einsum("ni,ni->n", u, v)

    L = np.sqrt(dot(D, D))
    L_a, L_b = dot(D, D_a) / L, dot(D, D_b) / L
    L_aa = (dot(D_a, D_a) + dot(D, D_aa) - L_a ** 2) / L
    L_ab = (dot(D_b, D_a) + dot(D, D_ab) - L_b * L_a) / L
    L_aab = (2.0 * dot(D_a, D_ab) + dot(D_b, D_aa) + dot(D, D_aab) - 2.0 * L_a * L_ab - L_b * L_aa) / L
    out = {"L": L, "L_a": L_a, "L_b": L_b, "L_aa": L_aa, "L_ab": L_ab, "L_aab": L_aab}
    for name, part in zip(("w_a", "w_aa", "w_ab", "w_aab"), (centre[1], centre[3], centre[4], centre[5])):
        out[name] = dot(part, up)
    return {name: value.reshape(N, B) for name, value in out.items()}


def wheel_rate_derivative(spec, at, dL, dL_a, dL_aa, dw_a, dw_aa):
    """``d wheel_rate`` (T4) from the values ``at`` (:func:`spring_rates`' ``L, L_a, L_aa, w_a,
    w_aa``) and the derivatives along p of the same five: the wheel rate of
    :func:`~loops.suspension.metrics.corner_metrics`, ``k MR^2 + F rho`` with ``MR = -L_a /
    w_a``, ``rho = -(L_aa w_a - L_a w_aa) / w_a^3``, ``F = k (L_free - L)``, differentiated."""
    L, L_a, L_aa, w_a, w_aa = at
    k = spec.stiffness
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = -L_a / w_a
        ratio_p = -(dL_a * w_a - L_a * dw_a) / w_a ** 2
        top = L_aa * w_a - L_a * w_aa
        top_p = dL_aa * w_a + L_aa * dw_a - dL_a * w_aa - L_a * dw_aa
        rho = -top / w_a ** 3
        rho_p = -(top_p * w_a - 3.0 * top * dw_a) / w_a ** 4
    return 2.0 * k * ratio * ratio_p - k * dL * rho + k * (spec.free_length - L) * rho_p


def wheel_rate_sensitivity(closure, directions, d, accelerations, resolved, up, moved):
    """``d wheel_rate / dp`` (N, k) along the travel driver ``d`` (T4) at fixed drivers, the
    travel taken along ``up`` (3,)."""
    q_aa, A_a = accelerations(d)
    r = spring_rates(closure, directions, d, A_a, q_aa, directions.along_coordinates(d), resolved, up, moved)
    at = (r["L"], r["L_a"], r["L_aa"], r["w_a"], r["w_aa"])
    return wheel_rate_derivative(resolved.spring_spec, at, r["L_b"], r["L_ab"], r["L_aab"], r["w_ab"], r["w_aab"])
