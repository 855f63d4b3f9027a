"""Rates of every variable and link along the drivers and the hardpoint coordinates: first
order (eq. 4, (H2)), the mixed second order (H3), the velocity rates (H4) and the
acceleration rates from the closure differentiated a third time (T1), (T1'), (T2) of
METHOD.md, "Design sensitivities".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...kernel_arrays import kernel_array
from ...spatial import dexp_inverse, lie_bracket, transform_twists
from ...suspension import jets

__all__ = ["Directions", "Along", "hooke_terms"]


class Directions:
    """Rates of every variable and link along the drivers and the hardpoint coordinates."""

    def __init__(self, closure, moves, driver_columns, where):
        self.closure, self.moves, self.where = closure, moves, where
        # Hooke pairs: their second pin turns with the first angle (T1')
        self.hooke = [p for p, pair in enumerate(closure.system.pairs) if pair.kind == "hooke"]
        system = closure.system
        N, P, K = closure.xi.shape[0], system.topology.pairs, len(moves)
        # Drivers: unit rate of one, the others (and held variables) at rest (eq. 4).
        D = len(driver_columns)
        rhs = -closure.B[:, :, driver_columns] if D else np.zeros((N, closure.B.shape[1], 0))
        q_a = closure.solve(rhs, where)
        q_a[:, driver_columns, np.arange(D)] = 1.0
        self.q_a = q_a.transpose(0, 2, 1)  # (N, D, n)
        self.V_a = closure.link_sum(self.q_a, None)  # (N, D, L, 6)
        # Hardpoints: (H1) per pair, (H2), link twists.
        self.pre = np.zeros((N, K, P, 6))
        self.post = np.zeros((N, K, P, 6))
        for j, move in enumerate(moves):
            for h, X in move.pairs:
                self.pre[:, j, h] = transform_twists(closure.poses[:, closure.first[h]], X)
                self.post[:, j, h] = -transform_twists(closure.poses[:, closure.second[h]], X)
        self.Xi = self.pre + self.post
        self.gauge_axes = np.array([m.gauge_axes for m in moves]).reshape(K, len(closure.gauge_links), 3)
        direct = np.einsum("Ngs,kgs->Nkg", closure.swings, self.gauge_axes)
        B_p = closure.rows_of(self.Xi, direct)
        self.q_p = closure.solve(-B_p, where).transpose(0, 2, 1)  # (N, K, n)
        self.V_p = closure.link_sum(self.q_p, self.Xi)  # (N, K, L, 6)
        self._mixed = {}

    def mixed(self, d):
        """``S = d_p V_a + d_a V_p`` (N, K, L, 6) for driver ``d`` (index) and every coordinate
        (H3); solved once per driver."""
        if d not in self._mixed:
            self._mixed[d] = self._solve_mixed(d)
        return self._mixed[d][0]

    def variable_rates(self, d):
        """``d_p q_a`` (N, K, n) for driver ``d`` (index): half the ``u`` of (H3), the mixed
        second rates of the variables that are coordinates (all but a spherical pair's)."""
        self.mixed(d)
        return self._mixed[d][1] / 2.0

    def velocity_rate(self, d):
        """``d/dp`` of every link's velocity per unit rate of driver ``d`` (index; the other
        drivers and the held variables at rest), for every coordinate: (N, K, L, 6), global,
        origin-referenced. It is ``(S + [V_p, V_a]) / 2`` with ``S`` of (H3), ``V_p`` the link's
        twist along p and ``V_a`` its velocity."""
        return (self.mixed(d) + lie_bracket(self.V_p, self.V_a[:, d][:, None])) / 2.0

    def velocity_jet(self, d, link):
        """Link ``link``'s (index) velocity per unit rate of driver ``d`` as a jet along every
        coordinate (N K rows): ``V_a`` and its rate ``d_p V_a`` (H4), no second rate."""
        N, K = self.V_p.shape[:2]
        value = np.repeat(self.V_a[:, d, link], K, axis=0)
        return jets.Jet(value, self.velocity_rate(d)[:, :, link].reshape(N * K, 6), np.full_like(value, np.nan))

    def along_coordinates(self, d):
        """The coordinates as a :class:`Along` for the third rates along driver ``d``."""
        return Along(self.V_p, self.pre, self.velocity_rate(d), self.q_p, self.variable_rates(d))

    def acceleration_rate(self, d, A_a, q_aa, along):
        """``d_b A_a`` (N, B, L, 6): the rate along the B directions of ``along`` (a
        :class:`Along`) of every link's acceleration ``A_a = d_a V_a`` (N, L, 6, along driver
        ``d`` alone, with the variables' second rates ``q_aa`` (N, n)), from the closure
        differentiated a third time, METHOD.md (T1)-(T2)."""
        c = self.closure
        first, second = c.first, c.second
        V_a = self.V_a[:, d]  # (N, L, 6)
        Z = V_a[:, second] - V_a[:, first]  # (N, P, 6) each pair's relative twist along a
        Y = A_a[:, second] - A_a[:, first] - lie_bracket(V_a[:, first], Z)  # its own part of d_a Z
        dZ = along.rate[:, :, second] - along.rate[:, :, first]  # (N, B, P, 6)
        carrier = along.V[:, :, first] + along.pre  # the pair's twists' carrier along b (after a virtual slide)
        known = (lie_bracket(along.rate[:, :, first], Z[:, None]) + lie_bracket(V_a[:, None, first], dZ)
                 + lie_bracket(carrier, Y[:, None]))
        for p in self.hooke:
            known[:, :, p] += hooke_terms(c.xi, c.column_start[p], self.q_a[:, d], q_aa, along)
        # Gauge rows: any third rate of an idle spin closes the loops and moves no other link
        # (T2); the one with the rows' own terms left out is taken.
        rhs = c.rows_of(known, np.zeros(known.shape[:2] + (len(c.gauge_links),)))
        x = c.solve(-rhs, self.where).transpose(0, 2, 1)
        return c.link_sum(x, known)

    def _solve_mixed(self, d):
        c = self.closure
        system = c.system
        topology = system.topology
        cols = c.column_pair
        q_a, V_a = self.q_a[:, d], self.V_a[:, d]  # (N, n), (N, L, 6)
        xi = c.xi[:, None]  # (N, 1, n, 6)
        V_a_first = V_a[:, c.first[cols]][:, None]  # (N, 1, n, 6)
        V_p_first = self.V_p[:, :, c.first[cols]] + self.pre[:, :, cols]  # (N, K, n, 6)
        terms = (lie_bracket(V_a_first, xi) * self.q_p[..., None]
                 + lie_bracket(V_p_first, xi) * q_a[:, None, :, None])
        from ...kernels.pairs import twist_rates  # noqa: PLC0415 (kernels on first use)

        for p, pair in enumerate(system.pairs):
            if not pair.pair_type.twists_vary:
                continue  # a pair whose twists do not change with its own variables (all but Hooke)
            span = slice(topology.start[p], topology.start[p] + topology.size[p])
            q = c.q[:, span]
            rates_a = twist_rates(pair.pair_type, q[:, None], q_a[:, None, span])
            rates_p = twist_rates(pair.pair_type, q[:, None], self.q_p[:, :, span])
            W = c.frames[:, None, p, None]
            terms[:, :, span] += (transform_twists(W, rates_a) * self.q_p[:, :, span, None]
                                  + transform_twists(W, rates_p) * q_a[:, None, span, None])
        pair_terms = c.column_pairs.T @ terms
        pair_terms += (lie_bracket(V_a[:, None, c.first], self.pre) + lie_bracket(V_a[:, None, c.second], self.post))
        gauge = np.zeros(pair_terms.shape[:2] + (len(c.gauge_links),))
        if len(c.gauge_links):
            gauge = self._gauge_rates(d)
        rhs = c.rows_of(pair_terms, gauge)
        u = c.solve(-rhs, self.where).transpose(0, 2, 1)
        return c.link_sum(u, pair_terms), u

    def _gauge_rates(self, d):
        """The gauge rows' second-order terms besides ``r . S``: ``rate(w, w_p, u) . omega_a +
        rate(w, w_a, u) . omega_p + 2 (J_l^-T du/dp) . omega_a`` (N, K, G), with ``w_x =
        J_l(w)^-1 omega_x`` the rotation vector's rates (:mod:`loops.passive`)."""
        from ...kernels.rotations import dexp_inverse_transposed_rate  # noqa: PLC0415 (kernels on first use)

        c = self.closure
        w = c.swings  # (N, G, 3)
        omega_a = self.V_a[:, d][:, c.gauge_links, :3]  # (N, G, 3)
        omega_p = self.V_p[:, :, c.gauge_links, :3]  # (N, K, G, 3)
        w_a = dexp_inverse(w, omega_a)
        w_p = dexp_inverse(w[:, None], omega_p)
        N, K, G = omega_p.shape[:3]
        out = 2.0 * np.einsum("Nkgs,Ngs->Nkg", dexp_inverse(w[:, None], self.gauge_axes[None], transposed=True),
                              omega_a)
        rate, scratch = np.empty(3), np.empty((5, 3))
        for i in range(N):
            for g in range(G):
                w_ig, u = kernel_array(w[i, g]), kernel_array(c.gauge_axes[g])
                dexp_inverse_transposed_rate(w_ig, kernel_array(w_a[i, g]), u, rate, scratch)
                along_p = rate.copy()
                for k in range(K):
                    dexp_inverse_transposed_rate(w_ig, kernel_array(w_p[i, k, g]), u, rate, scratch)
                    out[i, k, g] += along_p @ omega_p[i, k, g] + rate @ omega_a[i, g]
        return out


@dataclass(frozen=True)
class Along:
    """B directions ``b`` of the third rates along a driver ``a`` (T1): every link's twist
    ``V`` (N, B, L, 6) along b, the virtual slides' twists ``pre`` (N, B, P, 6) before the
    pairs b moves (zero along a driver), ``rate = d_b V_a`` (N, B, L, 6), and the variables'
    rates ``q`` (N, B, n) along b and mixed second rates ``q_ab`` (N, B, n) (read for the
    Hooke pairs' angles only, (T1'))."""

    V: np.ndarray
    pre: np.ndarray
    rate: np.ndarray
    q: np.ndarray
    q_ab: np.ndarray

    @classmethod
    def driver(cls, V_j, rate, q_j, q_aj):
        """Along driver j: its link twists (N, L, 6), ``d_j V_a`` (N, L, 6), the variables'
        rates ``q_j`` (N, n) and ``q_aj`` (N, n)."""
        return cls(V_j[:, None], 0.0, rate[:, None], q_j[:, None], q_aj[:, None])


def hooke_terms(xi, start, q_a, q_aa, along):
    """(T1') The Hooke pair's terms of ``d_b d_a Z`` (N, B, 6) besides (T1): its second pin
    ``xi_1`` is carried by the cross, which turns with the first angle, so with ``K =
    [xi_0, xi_1]`` (``xi`` (N, n, 6) the variables' twists, the pair's from column ``start``)

        K (w0_b a1 + q0_ab w1_a + w0_a q1_ab) + [xi_0, K] w0_b w0_a w1_a

    (``w = q_a``, ``w_b`` the angles' rates, ``a1`` the second angle's second rate along a)."""
    xi_0, xi_1 = xi[:, start], xi[:, start + 1]
    K = lie_bracket(xi_0, xi_1)  # (N, 6)
    KK = lie_bracket(xi_0, K)
    w0a, w1a, a1 = q_a[:, start, None], q_a[:, start + 1, None], q_aa[:, start + 1, None]
    w0b, q0ab, q1ab = along.q[:, :, start], along.q_ab[:, :, start], along.q_ab[:, :, start + 1]
    first = w0b * a1 + q0ab * w1a + w0a * q1ab  # (N, B)
    return K[:, None] * first[..., None] + KK[:, None] * (w0b * w0a * w1a)[..., None]
