"""Accelerations: the closure differentiated twice (METHOD.md, "Velocity (4) and acceleration").

    sum_k B_k q_k'' = - sum_k xi_k' q_k'

with ``xi_k'`` the rate of variable k's world twist: the Lie bracket with the velocity of
the link that carries the pair's frame, plus the pair's own change of twist (Hooke). Along
a loop this is the bracket sum ``- sum_{j<k} [S_j, S_k] q_j' q_k'`` of METHOD.md, written
per link instead of per pair of twists. Solved with the same factorization of ``B`` as
the velocities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .velocity import solve_velocity

__all__ = ["Motion", "velocity_product_terms", "solve_acceleration", "solve_motion"]


@dataclass
class Motion:
    """Rates at one closed configuration.

    q_dot, q_ddot : (n,) variable rates and second rates (spherical: relative angular
        velocity and acceleration, frame j axes)
    link_velocities, link_accelerations : (links, 6) spatial ``(omega, v_o)`` and its rate,
        global, origin-referenced
    """

    q_dot: np.ndarray
    q_ddot: np.ndarray
    link_velocities: np.ndarray
    link_accelerations: np.ndarray


def velocity_product_terms(system, config, q_dot, link_velocities=None):
    """``xi_k' q_k'`` for every variable, (..., n, 6): the part of the accelerations due to rates alone."""
    if link_velocities is None:
        link_velocities = system.link_velocities(config, q_dot)
    rates = system.twist_rates(config, q_dot, link_velocities)
    return rates * np.asarray(q_dot)[..., None]


def solve_acceleration(linearization, q_dot, driver_accelerations, config, terms=None):
    """All variable accelerations ``q''`` (n,) given rates ``q_dot`` and the drivers' ``q''``.

    ``terms`` are the :func:`velocity_product_terms` when already known. Units rad/s^2, m/s^2.
    """
    system = linearization.system
    if terms is None:
        terms = velocity_product_terms(system, config, q_dot)
    loop_terms = system.velocity_product_rhs(config, q_dot, terms)
    accelerations = np.asarray(driver_accelerations, dtype=float)
    q_ddot = np.zeros(loop_terms.shape[:-1] + (system.n,))
    q_ddot[..., linearization.driven] = accelerations
    rhs = -linearization.driver_terms(accelerations) - loop_terms
    q_ddot[..., linearization.free] = linearization.solve_vector(rhs)
    return q_ddot


def solve_motion(linearization, config, driver_speeds, driver_accelerations) -> Motion:
    """Velocities (eq. 4) and accelerations of variables and links for the drivers' rates.

    Link accelerations: ``V_i' = sum_k (xi_k q_k'' + xi_k' q_k')`` over link i's tree path.
    """
    system = linearization.system
    q_dot = solve_velocity(linearization, driver_speeds)
    link_velocities = system.link_velocities(config, q_dot)
    terms = velocity_product_terms(system, config, q_dot, link_velocities)
    q_ddot = solve_acceleration(linearization, q_dot, driver_accelerations, config, terms)
    link_accelerations = system.link_incidence @ (config.twists * q_ddot[..., None] + terms)
    return Motion(q_dot, q_ddot, link_velocities, link_accelerations)
