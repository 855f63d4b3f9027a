"""Moving a configuration along increments, in plain numpy, for the kinematics tests.

The engine does this inside its kernels (:func:`loops.kernels.newton.apply_step` and
:func:`~loops.kernels.newton.seat_spherical`); the tests need it on their own, written
independently of the kernels, to take finite differences along each variable and to
perturb closed configurations:

* additive variables (angles, slides) move by ``q += dq``;
* a spherical pair's state is its rotation matrix ``R`` (``rotations``, (m, 3, 3)), and its
  increment ``dq_s`` (3,) is a rotation about frame j's fixed axes, ``R <- exp(hat(dq_s)) R``
  (:mod:`mechanism.pairs`); its slots in ``q`` are stale until seated with ``log(R)``.

``loops.configuration.evaluate(system, q, rotations)`` takes the spherical pairs from
``rotations`` and ignores their slots in ``q``, so a stepped configuration is evaluated
without seating it. Also here: thin calls of the link-velocity and twist-rate kernels on a
:class:`loops.configuration.Configuration`.
"""

from __future__ import annotations

import numpy as np

from loops.configuration import rotations_of
from oracles.transforms import exp_so3, log_so3


def step(system, q, dq, rotations):
    """``(q + dq, rotations turned by the spherical increments)``: (n,), (m, 3, 3).

    The spherical slots of the returned ``q`` are stale (``q_s + dq_s``, not ``log(R)``)."""
    moved = np.asarray(q, dtype=float) + dq
    rotations = np.asarray(rotations, dtype=float)
    columns = system.spherical_columns
    if len(columns):
        rotations = exp_so3(np.asarray(dq, dtype=float)[columns]) @ rotations
    return moved, rotations


def seat(system, q, rotations):
    """A copy of ``q`` with the spherical slots set to ``log(R)`` (principal value, |w| <= pi)."""
    seated = np.array(q, dtype=float)
    columns = system.spherical_columns
    if len(columns):
        seated[columns] = log_so3(rotations)
    return seated


def advance(system, q, dq):
    """``q`` (seated) moved by ``dq`` and seated again: :func:`step` from ``exp(q_s)``, then :func:`seat`."""
    return seat(system, *step(system, q, dq, rotations_of(system, q)))


def link_velocities(system, config, q_dot):
    """Spatial velocities ``(omega, v_o)`` (L, 6) of every link at ``config`` for the rates ``q_dot``
    (:func:`loops.kernels.velocity.link_velocities`: the twists summed along each tree path)."""
    from loops.kernels.velocity import link_velocities as kernel

    V = np.zeros((system.topology.links, 6))
    kernel(system.topology, np.array(config.twists), np.array(q_dot, dtype=float), V)
    return V


def twist_rate_terms(system, config, q_dot, V):
    """``xi_k' q_k'`` (n, 6) for every variable (:func:`loops.kernels.acceleration.velocity_product_terms`):
    the rate of each world twist times its variable's rate."""
    from loops.kernels.acceleration import velocity_product_terms

    terms = np.zeros((system.n, 6))
    velocity_product_terms(system.topology, np.array(config.q), np.array(q_dot, dtype=float),
                           np.array(config.pair_frames), np.array(config.twists), np.array(V, dtype=float), terms,
                           np.zeros((3, 6)))
    return terms
